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

use crate::backend::Target;
use crate::error::Result;
use crate::framework::config::Math;
use crate::framework::{
    build_in_precision, BenchSpec, BuildIn, CaseDoc, CheckSpec, Clock, DtPolicy, FamilyInfo, Precision, Setup,
    Simulation, Sizes, Template,
};
use crate::grid::parts::{self, Link};
use crate::grid::{BoundarySet, GridSection, StructuredGrid};
use crate::numerics::fv::limiters::Limiter;
use crate::output::{Centring, Field, Geometry};
use crate::real::Real;
use section::{EulerSection, Initial, RayleighTaylor, Riemann, Scheme};
use serde::{Deserialize, Serialize};

/// Ghost layers on every active axis: MUSCL-Hancock's flux at a face reads two cells each side.
const HALO: usize = 2;

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

/// What a Euler case file holds besides the framework's sections.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
struct EulerDoc {
    euler: EulerSection,
    grid: GridSection,
}

#[derive(Clone, Debug)]
pub struct EulerSetup {
    pub grid: StructuredGrid,
    pub bc: BoundarySet,
    pub gamma: f64,
    pub scheme: Scheme,
    pub limiter: Limiter,
    pub riemann: Riemann,
    pub gravity: [f64; 3],
    /// Reflecting walls across gravity: (axis, side, energy per unit density of ghost layers
    /// 1 and 2), the hydrostatic ghost states (`plm::hydrostatic_energy`).
    pub hydrostatic_walls: Vec<(usize, usize, [f64; 2])>,
    pub initial: Initial,
    /// Devices this process drives (`run.gpus`; 1 on the CPU), each a part of the grid.
    pub gpus: usize,
    /// For a part of a decomposed grid: its planes and neighbours (`grid::parts`).
    pub link: Option<Link>,
    /// `run.math`: the CUDA kernels' arithmetic (the CPU's is always exact).
    pub math: Math,
    doc: EulerDoc,
}

/// The largest Courant number of both schemes: MUSCL-Hancock's per sweep (Toro sec. 14.4),
/// PLM + SSP-RK3's with the unsplit step dt = cfl / max sum_a (|u_a| + c) / h_a.
const MAX_CFL: f64 = 1.0;

impl EulerSetup {
    fn parse(doc: &CaseDoc) -> Result<Self> {
        let view: EulerDoc = doc.section()?;
        let e = &view.euler;
        if !(e.gamma > 1.0 && e.gamma.is_finite()) {
            return Err(doc.error("euler.gamma", format!("must be above 1, got {}", e.gamma)));
        }
        if let Some((key, message)) = e.initial.problem() {
            return Err(doc.error(&key, message));
        }
        if doc.time.cfl > MAX_CFL {
            return Err(doc.error(
                "time.cfl",
                format!("{} is above {MAX_CFL}, the stable limit of {}", doc.time.cfl, e.scheme.name()),
            ));
        }
        if e.gravity.iter().any(|g| !g.is_finite()) {
            return Err(doc.error("euler.gravity", format!("must be finite, got {:?}", e.gravity)));
        }
        if e.scheme == Scheme::MusclHancock && e.gravity != [0.0; 3] {
            return Err(doc.error("euler.gravity", "needs euler.scheme = \"plm-rk3\" (muscl-hancock has no source term)"));
        }
        let spec = view.grid.spec(doc)?;
        let bc = e.boundary.set(1);
        if let Some(p) = bc.problem(5) {
            return Err(doc.error("euler.boundary", p));
        }
        let halo = spec.cells.map(|c| if c > 1 { HALO } else { 0 });
        let grid = StructuredGrid::new(&spec, Centring::Cell, &bc, halo, 5);
        if let Some(a) = (0..3).find(|&a| halo[a] > 0 && grid.n[a] < HALO) {
            return Err(doc.error("grid.dims", format!("axis {a} needs at least {HALO} cells")));
        }
        if let Initial::RayleighTaylor(rt) = &e.initial {
            if RayleighTaylor::vertical(e.gravity).is_none() {
                return Err(doc.error(
                    "euler.gravity",
                    format!("rayleigh-taylor needs gravity along exactly one axis, got {:?}", e.gravity),
                ));
            }
            let p = rt.min_pressure(&grid, e.gravity);
            if p <= 0.0 {
                return Err(doc.error(
                    "euler.initial.pressure",
                    format!("the hydrostatic column reaches pressure {p} at the top: raise it"),
                ));
            }
        }
        let gpus = parts::devices_per_rank(doc, &grid, &bc)?;
        Ok(EulerSetup {
            hydrostatic_walls: hydrostatic_walls(&grid, &bc, e.gravity, e.gamma),
            grid,
            bc,
            gamma: e.gamma,
            scheme: e.scheme,
            limiter: e.limiter,
            riemann: e.riemann,
            gravity: e.gravity,
            initial: e.initial.clone(),
            gpus,
            link: None,
            math: doc.run.math,
            doc: view,
        })
    }

    /// The setup of one part of the grid: its planes, neighbour faces, and walls.
    fn part(&self, link: Link) -> EulerSetup {
        let grid = self.grid.part(&link.split);
        let bc = parts::part_bc(&self.bc, &link.split);
        EulerSetup {
            hydrostatic_walls: hydrostatic_walls(&grid, &bc, self.gravity, self.gamma),
            grid,
            bc,
            link: Some(link),
            ..self.clone()
        }
    }

    /// The axes with more than one cell (the sweeps).
    pub fn active_axes(&self) -> Vec<usize> {
        (0..3).filter(|&a| self.grid.cells[a] > 1).collect()
    }

    /// Conservative initial values, components one after another, x fastest.
    pub fn initial_field(&self) -> Vec<f64> {
        self.initial.field(&self.grid, self.gamma, self.gravity)
    }
}

/// Reflecting walls across gravity and their hydrostatic ghost states (`plm::hydrostatic_energy`).
fn hydrostatic_walls(grid: &StructuredGrid, bc: &BoundarySet, gravity: [f64; 3], gamma: f64) -> Vec<(usize, usize, [f64; 2])> {
    (0..3)
        .flat_map(|a| [(a, 0), (a, 1)])
        .filter_map(|(a, side)| plm::hydrostatic_energy(grid, &bc.faces[a][side], gravity, gamma, a, side).map(|c| (a, side, c)))
        .collect()
}

impl BuildIn for EulerSetup {
    fn build_in<R: Real>(&self, target: &Target) -> Result<Box<dyn Simulation>> {
        if parts::is_split(target, self.gpus) {
            let initial = |split: &parts::Split| {
                let cells = parts::point_range(&self.grid, split);
                self.initial.field_range(&self.grid, self.gamma, self.gravity, cells)
            };
            return parts::decompose(&self.grid, &self.bc, target, self.gpus, parts::Transport::Nccl, &initial, &|link, initial, target| {
                let part = self.part(link);
                Ok(match target {
                    Target::Cpu => Box::new(cpu::CpuEuler::<R>::new(part, initial)),
                    Target::Cuda(dev) => Box::new(cuda::CudaEuler::<R>::new(part, dev.clone(), initial)?),
                })
            });
        }
        match target {
            Target::Cpu => Ok(Box::new(cpu::CpuEuler::<R>::new(self.clone(), &self.initial_field()))),
            Target::Cuda(dev) => Ok(Box::new(cuda::CudaEuler::<R>::new(
                self.clone(),
                dev.clone(),
                &self.initial_field(),
            )?)),
        }
    }
}

impl Setup for EulerSetup {
    fn build(&self, target: &Target, precision: Precision) -> Result<Box<dyn Simulation>> {
        build_in_precision(self, target, precision)
    }
    /// Five padded components in two arrays (MUSCL-Hancock) or three (PLM + RK3); CPU
    /// core-seconds per cell-update and active axis measured on the 2-core CI machine:
    /// 2.7e-7 (MUSCL-Hancock, 2D, 300^2 and 600^2), 6e-7 (PLM + RK3, 3D, 32^2 x 96, 64^2 x 96).
    fn footprint(&self, precision: Precision) -> Option<crate::framework::Footprint> {
        let (arrays, per_axis) = match self.scheme {
            Scheme::MusclHancock => (2.0, 2.7e-7),
            Scheme::PlmRk3 => (3.0, 6e-7),
        };
        let padded = self.grid.padded_len() as f64 / self.grid.points() as f64;
        let per_cell = 5.0 * arrays * padded * precision.bytes() as f64;
        let update = per_axis * self.active_axes().len() as f64;
        Some(crate::framework::Footprint::per_cell(self.grid.points(), per_cell, update))
    }
    /// Slabs of planes along the outermost axis (`grid::parts`).
    fn decomposes(&self) -> bool {
        true
    }
    /// Contracted multiply-adds and, in f32, approximate division and square root on the device.
    fn offers_fast_math(&self) -> bool {
        true
    }
    /// The step follows the fastest signal, which changes as the flow does.
    fn dt_policy(&self) -> DtPolicy {
        DtPolicy::Adaptive
    }
    fn physics(&self) -> toml::Table {
        toml::Table::try_from(&self.doc).expect("serializable")
    }
    fn geometry(&self) -> Geometry {
        self.grid.geometry()
    }
    /// The density of the exact solution at the cell centres, where the initial data has one.
    fn exact(&self, clock: &Clock) -> Option<Field> {
        self.initial.exact_density([0.0; 3], clock.time, self.gamma)?;
        let rho = self.grid.sample(|x| self.initial.exact_density(x, clock.time, self.gamma).unwrap_or(f64::NAN));
        Some(Field::scalar("density", Centring::Cell, rho))
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "grid": self.grid.cells,
            "gamma": self.gamma,
            "scheme": self.scheme.name(),
            "riemann": self.riemann.name(),
            "limiter": self.limiter.name(),
            "gravity": self.gravity,
        })
    }
}
