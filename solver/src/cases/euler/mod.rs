//! The compressible Euler equations of an ideal gas on cell-centred structured grids (1D, 2D,
//! 3D): conservative variables (rho, rho u, rho v, rho w, E), two schemes with interchangeable
//! Riemann solvers (exact, HLLC, HLL) and limiters: dimensionally split MUSCL-Hancock (Toro;
//! the paper `euler-2d-muscl-hancock-gpu.md`, `muscl.rs`) and unsplit PLM + SSP-RK3 with
//! gravity (the paper `euler-3d-rayleigh-taylor-hll-rk3-gpu.md`, `plm.rs`); a CFL step from
//! the fastest signal, Toro's tests 1-5 against their exact solutions, Rayleigh-Taylor
//! (`rayleigh_taylor.rs`), on the CPU (`cpu.rs`) and CUDA (`cuda.rs`, kernels/cuda/euler.cu),
//! f32 and f64.

pub mod cpu;
pub mod cuda;
pub mod gas;
pub mod muscl;
pub mod plm;
pub mod rayleigh_taylor;
pub mod section;
pub mod setup;
mod sim;
pub mod step;

use crate::framework::{BenchSpec, CheckSpec, FamilyInfo, Sizes, Template};
pub use setup::EulerSetup;

const TEMPLATES: &[Template] = &[
    Template::new("euler-toro-1", "Toro's test 1 (Sod): rarefaction, contact, shock; exact solution", include_str!("templates/euler-toro-1.toml")),
    Template::new("euler-toro-2", "Toro's test 2 (123 problem): two rarefactions, near vacuum", include_str!("templates/euler-toro-2.toml")),
    Template::new("euler-toro-3", "Toro's test 3: left half of the blast wave, strong shock", include_str!("templates/euler-toro-3.toml")),
    Template::new("euler-toro-4", "Toro's test 4: right half of the blast wave", include_str!("templates/euler-toro-4.toml")),
    Template::new("euler-toro-5", "Toro's test 5: collision of the shocks of tests 3 and 4", include_str!("templates/euler-toro-5.toml")),
    Template::new("euler-density-wave", "smooth density wave advected diagonally, periodic: the order of accuracy", include_str!("templates/euler-density-wave.toml")),
    Template::new("euler-riemann-2d", "the paper's benchmark: Lax & Liu's 2D Riemann problem, configuration 3, 1000 x 1000", include_str!("templates/euler-riemann-2d.toml")),
    Template::new("euler-rt-2d", "Rayleigh-Taylor, single mode, 2D: PLM + HLL + SSP-RK3 with gravity, hydrostatic walls", include_str!("templates/euler-rt-2d.toml")),
    Template::new("euler-rt-3d", "Rayleigh-Taylor, single mode, 3D, 64 x 64 x 192 (the PLM paper's grid)", include_str!("templates/euler-rt-3d.toml")),
    Template::new("euler-rt-3d-multimode", "Rayleigh-Taylor from a random perturbation, 3D, 64 x 64 x 192", include_str!("templates/euler-rt-3d-multimode.toml")),
];

/// A CPU-vs-CUDA check of `template` (the same arithmetic in the same order on both
/// backends; only the exact Riemann solver's `pow` may round differently on the device, HLLC
/// and HLL have none).
const fn check(name: &'static str, template: &'static str, sets: &'static [&'static str], steps: u64) -> CheckSpec {
    CheckSpec::new(name, template, sets, steps, [1e-10, 1e-5])
}

/// A CPU-vs-CUDA check of `template` with `run.math = "fast"` on the device (the CPU computes
/// exactly): contracted multiply-adds in both precisions differ from the CPU by rounding
/// (~1e-16 an operation), which the limiters' switches can raise to ~1e-10 over 100 steps;
/// f32's approximate division and square root (2 ulp, ~2.4e-7 each) to ~1e-4 — the tolerances
/// allow ten times that. The L1 errors against the exact solutions beside each row are the
/// figure that matters: they must read the same on both backends.
const fn fast_check(name: &'static str, template: &'static str, sets: &'static [&'static str], steps: u64) -> CheckSpec {
    CheckSpec::new(name, template, sets, steps, [1e-9, 1e-3])
}

/// The device's fast arithmetic.
const FAST: &str = "run.math=\"fast\"";

/// Toro's 1D tests on 200 cells.
const D200: &str = "grid.dims=[200,1,1]";

/// 100 steps, short of each template's end time on these grids (Lax & Liu's configuration 3
/// reaches it in about 108 steps on 240^2 cells), except the 123 problem (test 2), which
/// reaches it in 92 steps on 200 cells.
const CHECKS: &[CheckSpec] = &[
    check("toro-1 200", "euler-toro-1", &[D200], 100),
    check("toro-2 200", "euler-toro-2", &[D200], 90),
    check("toro-3 200", "euler-toro-3", &[D200], 100),
    check("toro-4 200", "euler-toro-4", &[D200], 100),
    check("toro-5 200", "euler-toro-5", &[D200], 100),
    check(
        "toro-1 200 minbee",
        "euler-toro-1",
        &[D200, "euler.limiter=\"minbee\""],
        100,
    ),
    check(
        "toro-1 200 superbee",
        "euler-toro-1",
        &[D200, "euler.limiter=\"superbee\""],
        100,
    ),
    check(
        "toro-1 200 first-order",
        "euler-toro-1",
        &[D200, "euler.limiter=\"first-order\""],
        100,
    ),
    check(
        "toro-1 200 periodic",
        "euler-toro-1",
        &[D200, "euler.boundary.x=\"periodic\""],
        100,
    ),
    check(
        "toro-1 64x200 along y",
        "euler-toro-1",
        &["grid.dims=[64,200,1]", "euler.initial.axis=1"],
        100,
    ),
    check(
        "toro-1 12x10x200 along z",
        "euler-toro-1",
        &["grid.dims=[12,10,200]", "euler.initial.axis=2"],
        100,
    ),
    check("density-wave 64x64", "euler-density-wave", &[], 100),
    check("riemann-2d 240x240", "euler-riemann-2d", &["grid.dims=[240,240,1]"], 100),
    check("toro-1 200 hllc", "euler-toro-1", &[D200, HLLC], 100),
    check("toro-1 200 hll", "euler-toro-1", &[D200, HLL], 100),
    check("toro-3 200 hllc", "euler-toro-3", &[D200, HLLC], 100),
    check("toro-3 200 hll", "euler-toro-3", &[D200, HLL], 100),
    check(
        "riemann-2d 240x240 hllc",
        "euler-riemann-2d",
        &["grid.dims=[240,240,1]", HLLC],
        100,
    ),
    check("toro-1 200 plm-rk3 hll", "euler-toro-1", &[D200, PLM, HLL, MINMOD], 100),
    check("toro-2 200 plm-rk3 hll", "euler-toro-2", &[D200, PLM, HLL, MINMOD], 90),
    check("toro-3 200 plm-rk3 hllc", "euler-toro-3", &[D200, PLM, HLLC], 100),
    check(
        "toro-1 12x10x200 along z plm-rk3",
        "euler-toro-1",
        &["grid.dims=[12,10,200]", "euler.initial.axis=2", PLM, HLL],
        100,
    ),
    check("density-wave 64x64 plm-rk3 exact", "euler-density-wave", &[PLM], 100),
    check("rt-2d 64x192", "euler-rt-2d", &[], 100),
    check("rt-3d 32x32x96", "euler-rt-3d", &["grid.dims=[32,32,96]"], 100),
    check(
        "rt-3d multimode 32x32x96",
        "euler-rt-3d-multimode",
        &["grid.dims=[32,32,96]"],
        100,
    ),
    // The z march with partial tiles along x and y and a partial last chunk of planes.
    check("rt-3d 37x21x70", "euler-rt-3d", &["grid.dims=[37,21,70]"], 100),
    check("rt-3d 37x21x70 hllc", "euler-rt-3d", &["grid.dims=[37,21,70]", HLLC], 100),
    fast_check("toro-1 200 fast", "euler-toro-1", &[D200, FAST], 100),
    fast_check("toro-2 200 fast", "euler-toro-2", &[D200, FAST], 90),
    fast_check("toro-3 200 fast", "euler-toro-3", &[D200, FAST], 100),
    fast_check("toro-4 200 fast", "euler-toro-4", &[D200, FAST], 100),
    fast_check("toro-5 200 fast", "euler-toro-5", &[D200, FAST], 100),
    fast_check("toro-1 200 hllc fast", "euler-toro-1", &[D200, HLLC, FAST], 100),
    fast_check("toro-3 200 plm-rk3 hllc fast", "euler-toro-3", &[D200, PLM, HLLC, FAST], 100),
    fast_check(
        "riemann-2d 240x240 hllc fast",
        "euler-riemann-2d",
        &["grid.dims=[240,240,1]", HLLC, FAST],
        100,
    ),
    fast_check("rt-3d 37x21x70 fast", "euler-rt-3d", &["grid.dims=[37,21,70]", FAST], 100),
];

/// The PLM paper's scheme and limiter.
const PLM: &str = "euler.scheme=\"plm-rk3\"";
const MINMOD: &str = "euler.limiter=\"minmod\"";

/// The approximate Riemann solvers.
const HLLC: &str = "euler.riemann=\"hllc\"";
const HLL: &str = "euler.riemann=\"hll\"";

/// Cell updates per second on cubes (Toro's test 1 along x, outflow on every face).
const BENCHES: &[BenchSpec] = &[
    BenchSpec {
        name: "toro-1 cube",
        template: "euler-toro-1",
        sets: &[],
        sizes: Sizes::GridCubes(&[128, 256, 512]),
    },
    // The paper's benchmark: Lax & Liu's configuration 3, van Leer, CFL 0.95.
    BenchSpec {
        name: "riemann-2d",
        template: "euler-riemann-2d",
        sets: &[],
        sizes: Sizes::GridSquares(&[1000, 2048, 4096]),
    },
    BenchSpec {
        name: "toro-1 cube hllc",
        template: "euler-toro-1",
        sets: &[HLLC],
        sizes: Sizes::GridCubes(&[128, 256, 512]),
    },
    BenchSpec {
        name: "riemann-2d hllc",
        template: "euler-riemann-2d",
        sets: &[HLLC],
        sizes: Sizes::GridSquares(&[1000, 2048, 4096]),
    },
    // The PLM paper's scheme: PLM + HLL + SSP-RK3 with gravity, one fused kernel per stage.
    BenchSpec {
        name: "rt-3d plm-rk3 hll",
        template: "euler-rt-3d",
        sets: &[],
        sizes: Sizes::GridCubes(&[128, 256, 512]),
    },
    BenchSpec {
        name: "riemann-2d plm-rk3 hll",
        template: "euler-riemann-2d",
        sets: &[PLM, HLL, MINMOD],
        sizes: Sizes::GridSquares(&[1000, 2048, 4096]),
    },
];

/// The family: compressible Euler on a cell-centred structured grid.
pub static FAMILY: FamilyInfo = FamilyInfo::new("euler", &["grid"], TEMPLATES, CHECKS, BENCHES, |doc| {
    Ok(Box::new(EulerSetup::parse(doc)?))
});
