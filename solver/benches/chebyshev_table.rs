//! The Chebyshev preconditioner against its degree and its interval's ratio: CG iterations,
//! matrix-vector products and CPU seconds to a relative residual of 1e-8 on the two-point
//! Poisson matrix of a 30³ × 6 Kuhn box (Dirichlet on its first patch, a unit source per cell),
//! Jacobi's first as the reference. Run with `cargo bench -p solver --bench chebyshev_table`
//! (`-- N` for an N³ × 6 box); `solver bench cg --precond chebyshevN` times one degree on the
//! GPU.

use meshtool::generate::cartesian_box::{generate, BoxSpec};
use solver::numerics::linalg::poisson::two_point_laplacian;
use solver::numerics::linalg::{solve_cg, CgSettings, Chebyshev, ChebyshevBounds, Jacobi, Preconditioner};

fn main() {
    // `cargo bench` passes `--bench`; a number is the box's cells per axis.
    let n = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(30);
    let raw = generate(&BoxSpec {
        dims: [n; 3],
        lo: [0.0; 3],
        hi: [1.0; 3],
    })
    .expect("a Kuhn box");
    let topo = meshtool::topology::build(&raw).expect("its topology");
    let a = two_point_laplacian(&raw.nodes, &topo, &[true]);
    let b = topo.volumes.clone();
    let settings = CgSettings {
        rel_tol: 1e-8,
        max_iter: 5000,
        keep_history: false,
    };
    let run = |m: &dyn Preconditioner| {
        let mut x = vec![0.0; b.len()];
        let t = std::time::Instant::now();
        let r = solve_cg(&a, &b, &mut x, m, &settings);
        (r.iterations, t.elapsed().as_secs_f64())
    };
    println!(
        "{n}^3 x 6 Kuhn box, {} unknowns, {} threads",
        b.len(),
        rayon::current_num_threads()
    );
    println!(
        "{:<12} {:>6} {:>6} {:>11} {:>9}",
        "precond", "degree", "ratio", "iterations", "seconds"
    );
    let (it, t) = run(&Jacobi::new(&a));
    println!("{:<12} {:>6} {:>6} {it:>11} {t:>9.3}", "jacobi", "-", "-");
    for ratio in [10.0, 30.0, 100.0] {
        for degree in [2, 3, 4, 6, 8] {
            let mut bounds = ChebyshevBounds::estimate(&a, degree);
            bounds.lambda_min = bounds.lambda_max / ratio;
            let (it, t) = run(&Chebyshev::with_bounds(&a, bounds));
            println!("{:<12} {degree:>6} {ratio:>6} {it:>11} {t:>9.3}", "chebyshev");
        }
    }
}
