//! What the CPU and CUDA executions of shallow water share: the output fields of the state,
//! what stops a run, the roofline's bytes, and the totals (water, pollutant and their ledger)
//! with the rule by which a decomposed run reduces them over its parts (`TOTALS`).

use super::setup::SweSetup;
use crate::framework::Unhealthy;
use crate::grid::parts::TotalsRule;
use crate::output::{Centring, Field};

/// The output fields of interior (h, q_x, q_y, hC) and H: depth, velocity, free surface, bed
/// elevation, pollutant concentration.
pub fn fields(values: &[f64], bed: &[f64], dry: f64) -> Vec<Field> {
    let n = bed.len();
    let wet = |i: usize| values[i] > dry;
    let velocity = (0..n)
        .flat_map(|i| {
            let h = values[i];
            if wet(i) {
                [values[n + i] / h, values[2 * n + i] / h]
            } else {
                [0.0, 0.0]
            }
        })
        .collect();
    let conc = (0..n).map(|i| if wet(i) { values[3 * n + i] / values[i] } else { 0.0 }).collect();
    vec![
        Field::scalar("depth", Centring::Cell, values[..n].to_vec()),
        Field::vector("velocity", 2, Centring::Cell, velocity),
        Field::scalar("surface", Centring::Cell, (0..n).map(|i| values[i] - bed[i]).collect()),
        Field::scalar("bed", Centring::Cell, bed.iter().map(|b| -b).collect()),
        Field::scalar("concentration", Centring::Cell, conc),
    ]
}

/// What stops a run: a negative depth or a state that is not finite in interior cell `cell` of
/// the whole grid (x fastest), named by the output field it feeds (depth, velocity,
/// concentration); a decomposed run adds the rank that holds it (`parts::Naming::Rank`).
pub fn unhealthy(cell: usize, state: [f64; 4]) -> Unhealthy {
    let [h, qx, qy, hc] = state;
    let (field, value) = if !(h >= 0.0 && h.is_finite()) {
        ("depth", format!("depth {h:e}"))
    } else if !(qx.is_finite() && qy.is_finite()) {
        ("velocity", format!("velocity (discharge {qx:e}, {qy:e})"))
    } else {
        ("concentration", format!("concentration (pollutant hC {hc:e})"))
    };
    Unhealthy {
        field: field.into(),
        what: format!("{value} in cell {cell} (x fastest)"),
    }
}

/// The roofline's bytes of a step: read (h, q_x, q_y, hC) and H, write the state, 9 values a
/// cell at the least.
pub fn min_bytes_per_step(setup: &SweSetup, real_bytes: usize) -> f64 {
    9.0 * real_bytes as f64 * setup.grid.points() as f64
}

/// What the totals count besides the state: the water added by clipping negative depths at
/// dry fronts, the water and pollutant added by the sources, the water at the start of the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ledger {
    pub clipped: f64,
    pub sources: [f64; 2],
    pub start_water: f64,
    /// The pollutant at the start of the run.
    pub start_pollutant: f64,
    /// Through the grid's faces so far (`cpu::crossing`): water in, water out, pollutant in,
    /// pollutant out.
    pub boundary: [f64; 4],
    /// The largest concentration hC / h of a cell with water at the start and after any step
    /// since, owned cells, and the largest of -hC / h (0 if none was negative).
    pub conc_bounds: [f64; 2],
}

/// The largest hC / h and -hC / h (at least 0) of interior (h, q_x, q_y, hC) with water.
pub fn conc_bounds(setup: &SweSetup, values: &[f64]) -> [f64; 2] {
    let n = setup.grid.points();
    (0..n).filter(|&i| values[i] > 0.0).fold([0.0f64; 2], |[hi, lo], i| {
        let c = values[3 * n + i] / values[i];
        [hi.max(c), lo.max(-c)]
    })
}

/// The water volume and the pollutant mass (sums of h and hC times the cell area) of interior
/// (h, q_x, q_y, hC), the water volume added so far by clipping negative depths at dry fronts,
/// with sources the water and pollutant they added, with open sides the net inflow of water
/// through them (what the other terms leave of the change since the start: the scheme
/// conserves water to round-off).
pub fn totals(setup: &SweSetup, values: &[f64], ledger: &Ledger) -> Vec<(String, f64)> {
    let (n, area) = (setup.grid.points(), setup.grid.h[0] * setup.grid.h[1]);
    let sum = |k: usize| values[k * n..(k + 1) * n].iter().sum::<f64>() * area;
    let water = sum(0);
    let mut t = vec![
        ("water".into(), water),
        ("pollutant".into(), sum(3)),
        ("water_clipped".into(), ledger.clipped),
    ];
    if setup.forcing.any_sources {
        t.push(("water_sources".into(), ledger.sources[0]));
        t.push(("pollutant_sources".into(), ledger.sources[1]));
    }
    if setup.forcing.any_open {
        let inflow = water - ledger.start_water - ledger.clipped - ledger.sources[0];
        t.push(("water_open_inflow".into(), inflow));
    }
    // The pollutant's ledger: what was there, what came in (sources, faces), what went out,
    // and what that leaves unexplained of what is there now.
    let [water_in, water_out, in_c, out_c] = ledger.boundary;
    let imbalance = sum(3) - ledger.start_pollutant - ledger.sources[1] - in_c + out_c;
    t.extend([
        ("water_boundary_in".into(), water_in),
        ("water_boundary_out".into(), water_out),
        ("pollutant_start".into(), ledger.start_pollutant),
        ("pollutant_boundary_in".into(), in_c),
        ("pollutant_boundary_out".into(), out_c),
        ("pollutant_imbalance".into(), imbalance),
    ]);
    t
}

/// The totals with the concentration's bounds seen so far (`Ledger::conc_bounds`):
/// `concentration_max_seen`, `concentration_below_zero_seen` (0: never negative), and the
/// pollutant's imbalance relative to all the pollutant that was ever in the domain
/// (`with_relative`).
pub fn with_bounds(mut t: Vec<(String, f64)>, bounds: [f64; 2]) -> Vec<(String, f64)> {
    t.push(("concentration_max_seen".into(), bounds[0]));
    t.push(("concentration_below_zero_seen".into(), bounds[1]));
    with_relative(t)
}

/// The totals with `pollutant_imbalance_relative`, the imbalance relative to all the pollutant
/// that was ever in the domain (at the start, from sources, in through faces), before the
/// concentration's bounds.
pub fn with_relative(mut t: Vec<(String, f64)>) -> Vec<(String, f64)> {
    let get = |name: &str| t.iter().find(|(k, _)| k == name).map_or(0.0, |(_, v)| *v);
    let entered = get("pollutant_start") + get("pollutant_sources") + get("pollutant_boundary_in");
    let imbalance = get("pollutant_imbalance");
    let relative = if entered > 0.0 { imbalance / entered } else { imbalance };
    let at = t.iter().position(|(k, _)| k == "concentration_max_seen").unwrap_or(t.len());
    t.insert(at, ("pollutant_imbalance_relative".into(), relative));
    t
}

/// How a decomposed run reduces the totals over its parts and ranks: sums, the bounds seen
/// their maxima, the relative imbalance worked out again from the sums.
pub const TOTALS: TotalsRule = TotalsRule {
    maxima: &["concentration_max_seen", "concentration_below_zero_seen"],
    derived: &["pollutant_imbalance_relative"],
    finish: with_relative,
};

/// The pollutant mass of interior (h, q_x, q_y, hC).
pub fn pollutant(setup: &SweSetup, values: &[f64]) -> f64 {
    let n = setup.grid.points();
    values[3 * n..4 * n].iter().sum::<f64>() * setup.grid.h[0] * setup.grid.h[1]
}

/// The water volume of interior (h, q_x, q_y, hC).
pub fn water(setup: &SweSetup, values: &[f64]) -> f64 {
    values[..setup.grid.points()].iter().sum::<f64>() * setup.grid.h[0] * setup.grid.h[1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Target;
    use crate::cases::FAMILIES;
    use crate::commands::specs::spec_doc;
    use crate::framework::{BuildIn, Clock, Precision};
    use crate::real::Real;

    /// Steps a CPU run of `template` with `sets` in precision R for `steps` steps (or to its
    /// end), checking after every step that no depth is negative and that every cell holds
    /// 0 <= hC <= C_max h, C_max = 1 the largest initial or inflowing concentration: hC / h within
    /// [0, 1] wherever there is water, to the last bit (no tolerance). Returns the totals at the
    /// start and the end, and the steps taken.
    fn bounded_run<R: Real>(template: &str, sets: &[&str], precision: Precision, steps: usize) -> (Totals, Totals, usize) {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let setup = SweSetup::parse(&spec_doc(FAMILIES, template, &sets, None, precision).unwrap()).unwrap();
        let mut sim = setup.build_in::<R>(&Target::Cpu).unwrap();
        let start = sim.totals().unwrap();
        let n = setup.grid.points();
        let mut clock = Clock { step: 0, time: 0.0 };
        let cfl = 0.9;
        let (mut wet_polluted, mut dry_polluted) = (0usize, 0usize);
        while (clock.step as usize) < steps {
            let dt = sim.stable_dt(cfl).unwrap();
            sim.step(&clock, dt).unwrap();
            clock = Clock { step: clock.step + 1, time: clock.time + dt };
            let w: Vec<R> = crate::real::from_bytes(&sim.save_state().unwrap());
            for i in 0..n {
                let (h, hc) = (w[i], w[3 * n + i]);
                assert!(h >= R::zero() && hc >= R::zero() && hc <= h, "step {}, cell {i}: h {h:?}, hC {hc:?}", clock.step);
                if h > R::zero() {
                    assert!(hc / h <= R::one(), "step {}, cell {i}: C = {:?}", clock.step, hc / h);
                }
                if hc > R::zero() {
                    if h.f64() > setup.dry {
                        wet_polluted += 1;
                    } else {
                        dry_polluted += 1;
                    }
                }
            }
        }
        assert!(wet_polluted > 0, "no polluted water");
        let t = sim.totals().unwrap();
        assert!(total(&t, "concentration_max_seen") <= 1.0 && total(&t, "concentration_below_zero_seen") == 0.0);
        println!("{template}: {} steps, polluted cell-steps {wet_polluted} wet, {dry_polluted} at or below the dry depth", clock.step);
        (start, sim.totals().unwrap(), clock.step as usize)
    }

    type Totals = Vec<(String, f64)>;

    fn total(t: &[(String, f64)], name: &str) -> f64 {
        t.iter().find(|(k, _)| k == name).unwrap_or_else(|| panic!("no total {name}")).1
    }

    /// A discrete maximum principle on wetting and drying at the f64 default dry depth 1e-6:
    /// Thacker's oscillation in a closed paraboloid (its shore moves across 100 x 100 cells,
    /// every cell it leaves drains to a film), a disc of pollutant (C = 1) across the shore;
    /// every step, every cell: 0 <= hC <= h (`bounded_run`). Closed basin: water and pollutant
    /// totals conserved to round-off (relative change below 1e-13), nothing clipped, the
    /// pollutant's ledger closed.
    #[test]
    fn the_pollutant_stays_within_its_bounds_and_is_conserved_while_thackers_shore_moves() {
        let sets = ["shallow-water.dry_depth=1e-6", "shallow-water.pollutant=[{center=[2.9,2.0],radius=0.6}]"];
        let (start, end, steps) = bounded_run::<f64>("swe-thacker", &sets, Precision::F64, 1200);
        let change = |name: &str| (total(&end, name) - total(&start, name)) / total(&start, name);
        println!(
            "thacker f64, {steps} steps: water {:.2e}, pollutant {:.2e} relative change; ledger {:.2e}; clipped {:e}",
            change("water"),
            change("pollutant"),
            total(&end, "pollutant_imbalance_relative"),
            total(&end, "water_clipped")
        );
        assert!(change("water").abs() < 1e-13 && change("pollutant").abs() < 1e-13);
        assert!(total(&end, "pollutant_imbalance_relative").abs() < 1e-13);
        assert_eq!(total(&end, "water_clipped"), 0.0);
        // f32 and its default dry depth 1e-5: the same bounds, bit for bit.
        let (start, end, _) = bounded_run::<f32>("swe-thacker", &sets[1..], Precision::F32, 600);
        let change = (total(&end, "pollutant") - total(&start, "pollutant")) / total(&start, "pollutant");
        println!("thacker f32: pollutant {change:.2e} relative change");
        assert!(change.abs() < 1e-5);
    }

    /// Ritter's dam break onto a dry bed (the front races over cells that were dry, thin and
    /// fast), polluted behind the dam, and a source of cleaner water: bounds every step; the
    /// ledger (water and pollutant out through the outflow side, the source's in) closes.
    #[test]
    fn the_pollutant_stays_within_its_bounds_behind_a_dry_front_and_its_ledger_closes() {
        let sets = [
            "shallow-water.dry_depth=1e-6",
            "shallow-water.pollutant=[{center=[3.0,0.5],radius=2.5}]",
            "shallow-water.sources=[{at=[1.0,0.5],discharge=0.001,concentration=0.25}]",
            "grid.dims=[200,1,1]",
        ];
        let (_, end, steps) = bounded_run::<f64>("swe-dam-break-dry", &sets, Precision::F64, 3000);
        let relative = total(&end, "pollutant_imbalance_relative");
        println!(
            "ritter, {steps} steps: pollutant out {:.6e}, ledger {relative:.2e}",
            total(&end, "pollutant_boundary_out")
        );
        assert!(total(&end, "pollutant_boundary_out") > 0.0, "the pollutant reaches the outflow side");
        assert!(relative.abs() < 1e-12, "{relative}");
        assert_eq!(total(&end, "water_clipped"), 0.0);
    }
}
