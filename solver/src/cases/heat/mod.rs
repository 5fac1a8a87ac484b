//! The 3D heat equation d(phi)/dt = alpha Laplacian(phi) with the 8th-order central stencil
//! and Kutta's third-order Runge-Kutta scheme (Kawasaki thesis, ch. 4-6), vertex-centred on the
//! structured-grid layer. One numerical core, two executions: `cpu.rs` (rayon) and `cuda.rs`
//! (kernels/cuda/heat.cu).

pub mod cpu;
pub mod cuda;
pub mod reference;
pub mod section;
pub mod setup;
mod sim;
pub mod step;

use crate::framework::{BenchSpec, CheckSpec, FamilyInfo, Sizes, Template};
pub use setup::HeatSetup;
pub use step::{fd8_symbol, FD8, RADIUS, STAGES};

const TEMPLATES: &[Template] = &[
    Template::new(
        "heat-benchmark",
        "thesis benchmark cube: 2000 RK3 steps, Dirichlet at y = 0, periodic x and z",
        include_str!("templates/heat-benchmark.toml"),
    ),
    Template::new(
        "heat-gaussian",
        "periodic Gaussian diffusion against the exact heat-kernel solution",
        include_str!("templates/heat-gaussian.toml"),
    ),
    Template::new(
        "heat-erfc",
        "Dirichlet-driven slab against the erfc series",
        include_str!("templates/heat-erfc.toml"),
    ),
    Template::new(
        "heat-decay",
        "decaying periodic mode with a closed-form solution (convergence)",
        include_str!("templates/heat-decay.toml"),
    ),
];

/// CPU vs CUDA on the benchmark cube after 100 steps, both kernels; 45^3 is not a multiple of
/// the tile. Both sides do the same arithmetic in the same order.
const fn check(name: &'static str, sets: &'static [&'static str]) -> CheckSpec {
    CheckSpec::new(name, "heat-benchmark", sets, 100, [1e-12, 1e-5])
}

const CHECKS: &[CheckSpec] = &[
    check(
        "64^3 register-queue",
        &["grid.dims=[64,63,64]", "heat.kernel=\"register-queue\""],
    ),
    check("64^3 naive", &["grid.dims=[64,63,64]", "heat.kernel=\"naive\""]),
    check(
        "45^3 register-queue",
        &["grid.dims=[45,44,45]", "heat.kernel=\"register-queue\""],
    ),
    check("45^3 naive", &["grid.dims=[45,44,45]", "heat.kernel=\"naive\""]),
    // Periodic on every face: the register-queue stage reads every ghost's value from the
    // interior (past-the-edge columns and rows, 45 not a multiple of the tile); Dirichlet x
    // ghosts read by the two-column (f32) threads; Dirichlet on every face.
    check(
        "45^3 register-queue, periodic everywhere",
        &[
            "grid.dims=[45,45,45]",
            "heat.kernel=\"register-queue\"",
            "heat.boundary={x=\"periodic\", y=\"periodic\", z=\"periodic\"}",
        ],
    ),
    check(
        "64^3 register-queue, Dirichlet x and z",
        &[
            "grid.dims=[63,64,63]",
            "heat.kernel=\"register-queue\"",
            "heat.boundary={x={dirichlet=[0.5,2.0]}, y=\"periodic\", z={dirichlet=[1.0,0.0]}}",
        ],
    ),
    check(
        "45^3 register-queue, Dirichlet everywhere",
        &[
            "grid.dims=[44,44,44]",
            "heat.kernel=\"register-queue\"",
            "heat.boundary={x={dirichlet=[0.5,2.0]}, y={dirichlet=[1.0,1.0]}, z={dirichlet=[1.0,0.0]}}",
        ],
    ),
];

const fn bench(name: &'static str, sets: &'static [&'static str]) -> BenchSpec {
    BenchSpec {
        name,
        template: "heat-benchmark",
        sets,
        sizes: Sizes::GridCubes(&[128, 256, 512]),
    }
}

const BENCHES: &[BenchSpec] = &[
    bench("naive", &["heat.kernel=\"naive\""]),
    bench("register-queue", &["heat.kernel=\"register-queue\""]),
];

/// The family: the 3D heat equation on a vertex-centred structured grid.
pub static FAMILY: FamilyInfo = FamilyInfo::new("heat", &["grid"], TEMPLATES, CHECKS, BENCHES, |doc| {
    Ok(Box::new(HeatSetup::parse(doc)?))
});
