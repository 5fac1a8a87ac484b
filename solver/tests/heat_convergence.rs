//! Order of accuracy of the heat solver on the decaying periodic mode (closed form):
//! spatial order >= 7.5 with a time step small enough that RK3 error is negligible, and
//! third order in time against the exact solution of the semi-discrete system.

use solver::cases::heat::section::{HeatBoundary, HeatInitial, HeatKernel, HeatSection};
use solver::cases::heat::{cpu::CpuHeat, fd8_symbol, reference, HeatSetup};
use solver::grid::GridSpec;

fn setup(n: usize, modes: f64) -> HeatSetup {
    let section = HeatSection {
        alpha: 0.1,
        initial: HeatInitial::SineProduct { modes: [modes; 3] },
        boundary: HeatBoundary::default(),
        kernel: HeatKernel::RegisterQueue,
    };
    let spec = GridSpec {
        cells: [n; 3],
        origin: [0.0; 3],
        extent: [1.0; 3],
    };
    HeatSetup::new(spec, &section)
}

fn max_rel(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / scale
}

/// Run to `t_end` with `steps` steps and return the interior field.
fn run(s: &HeatSetup, t_end: f64, steps: usize) -> Vec<f64> {
    let mut sim = CpuHeat::<f64>::new(s.clone(), &s.initial_field());
    let dt = t_end / steps as f64;
    for _ in 0..steps {
        sim.step(dt);
    }
    sim.interior()
}

#[test]
fn spatial_order_at_least_7_5() {
    // k = 4 pi per axis: coarse grids are still in the asymptotic range and errors stay far
    // above round-off. dt: RK3 error ~ (lambda dt)^3 stays below 1e-3 of the spatial error.
    let t_end = 0.002;
    let mut rows = vec![];
    for n in [12usize, 16, 24] {
        let s = setup(n, 4.0);
        let u = run(&s, t_end, 400);
        let exact = reference::exact(s.problem(), t_end).unwrap();
        rows.push((n, max_rel(&u, &exact)));
    }
    println!("{:>4} {:>12} {:>8}", "n", "rel error", "order");
    for w in rows.windows(2) {
        let order = (w[0].1 / w[1].1).ln() / (w[1].0 as f64 / w[0].0 as f64).ln();
        println!("{:>4} {:>12.3e} {:>8.2}", w[1].0, w[1].1, order);
        assert!(
            order >= 7.5,
            "observed spatial order {order:.2} between n = {} and {}",
            w[0].0,
            w[1].0
        );
    }
}

#[test]
fn third_order_in_time() {
    // The semi-discrete system decays exactly as exp(-alpha sigma t): comparing with it removes
    // the spatial error, leaving RK3's.
    let n = 16;
    let s = setup(n, 2.0);
    let h = 1.0 / n as f64;
    // Mode 2 on [0, 1]: sin(2 pi x) per axis, theta = 2 pi h.
    let sigma = 3.0 * fd8_symbol(2.0 * std::f64::consts::PI * h) / (h * h);
    let t_end = 0.05;
    let dt_max = s.dt_for_cfl(0.7);
    let base = (t_end / dt_max).ceil() as usize;
    let mut errs = vec![];
    for steps in [base, 2 * base, 4 * base] {
        let u = run(&s, t_end, steps);
        let semi: Vec<f64> = s
            .initial_field()
            .iter()
            .map(|v| v * (-s.alpha * sigma * t_end).exp())
            .collect();
        errs.push(max_rel(&u, &semi));
    }
    for w in errs.windows(2) {
        let order = (w[0] / w[1]).log2();
        println!("time error {:.3e} -> {:.3e}: order {order:.2}", w[0], w[1]);
        assert!((2.8..3.3).contains(&order), "observed temporal order {order:.2}");
    }
}
