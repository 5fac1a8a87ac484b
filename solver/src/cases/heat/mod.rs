//! The 3D heat equation d(phi)/dt = alpha Laplacian(phi) with the 8th-order central stencil
//! and Kutta's third-order Runge-Kutta scheme (Kawasaki thesis, ch. 4-6), vertex-centred on the
//! structured-grid layer. One numerical core, two executions: `cpu.rs` (rayon) and `cuda.rs`
//! (kernels/cuda/heat.cu).
//!
//! Each RK3 step is three stages of the form  out = ca*A + cb*B + cs*S + cl*L(S):
//!   u1   = phi + dt/2 L(phi)
//!   u2   = 3 phi - 2 u1 + 2 dt L(u1)
//!   phi' = -phi/3 + u1 + u2/3 + dt/6 L(u2)
//! which is Kutta's k1, k2, k3 (y' = y + dt/6 (k1 + 4 k2 + k3)) rewritten to need three arrays.

pub mod cpu;
pub mod cuda;
pub mod reference;
pub mod section;
mod simulation;

use crate::backend::Target;
use crate::error::Result;
use crate::framework::{
    build_in_precision, BuildIn, FamilyInfo,
    BenchSpec, CaseDoc, CheckSpec, Clock, DtPolicy, Precision, Setup, Simulation, Sizes, Template,
};
use crate::grid::parts::{self, Link};
use crate::grid::{BoundarySet, GridSection, StructuredGrid};
use crate::output::{Centring, Field, Geometry};
use crate::real::Real;
use section::{AxisBoundary, HeatInitial, HeatKernel, HeatSection};
use serde::{Deserialize, Serialize};

/// Coefficients of the 8th-order second derivative: centre, then the symmetric pairs 1..4.
pub const FD8: [f64; 5] = [-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0];

/// The stencil's reach: the halo width on every axis.
pub const RADIUS: usize = 4;

/// The stencil's symbol: D2 exp(i theta x) = -sigma(theta)/h^2 exp(i theta x).
pub fn fd8_symbol(theta: f64) -> f64 {
    -(FD8[0] + 2.0 * (1..5).map(|m| FD8[m] * (m as f64 * theta).cos()).sum::<f64>())
}

/// The three stages: (ca, cb, cs, cl/dt) with A = phi, B = u1.
pub const STAGES: [[f64; 4]; 3] = [
    [0.0, 0.0, 1.0, 0.5],
    [3.0, 0.0, -2.0, 2.0],
    [-1.0 / 3.0, 1.0, 1.0 / 3.0, 1.0 / 6.0],
];

/// What a heat case file holds besides the framework's sections.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
struct HeatDoc {
    heat: HeatSection,
    grid: GridSection,
}

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

/// Everything both executions need, built once from the case file.
#[derive(Clone, Debug)]
pub struct HeatSetup {
    pub grid: StructuredGrid,
    pub alpha: f64,
    pub axes: [AxisBoundary; 3],
    pub bc: BoundarySet,
    pub initial: HeatInitial,
    pub kernel: HeatKernel,
    /// Devices this process drives (`run.gpus`; 1 on the CPU), each a part of the grid.
    pub gpus: usize,
    /// For a part of a decomposed grid: its planes and neighbours (`grid::parts`).
    pub link: Option<Link>,
    doc: Option<HeatDoc>,
}

impl HeatSetup {
    fn parse(doc: &CaseDoc) -> Result<Self> {
        let view: HeatDoc = doc.section()?;
        let h = &view.heat;
        if !crate::framework::config::positive(h.alpha) {
            return Err(doc.error("heat.alpha", format!("must be positive, got {}", h.alpha)));
        }
        if let HeatInitial::Gaussian(section::Gaussian { axis, width, .. }) = h.initial {
            if axis > 2 {
                return Err(doc.error("heat.initial.axis", format!("must be 0, 1 or 2, got {axis}")));
            }
            if !crate::framework::config::positive(width) {
                return Err(doc.error("heat.initial.width", format!("must be positive, got {width}")));
            }
        }
        let spec = view.grid.spec(doc)?;
        let mut s = HeatSetup::new(spec, h);
        if let Some(k) = (0..3).find(|&k| s.grid.n[k] < 2 * RADIUS + 1) {
            let m = format!(
                "axis {k} has {} points; the 8th-order stencil needs at least 9",
                s.grid.n[k]
            );
            return Err(doc.error("grid.dims", m));
        }
        s.gpus = parts::devices_per_rank(doc, &s.grid, &s.bc)?;
        s.doc = Some(view);
        Ok(s)
    }

    /// A setup on the grid `spec` (tests and benchmarks build these directly).
    pub fn new(spec: crate::grid::GridSpec, h: &HeatSection) -> Self {
        let bc = h.boundary.set();
        HeatSetup {
            grid: StructuredGrid::new(&spec, Centring::Point, &bc, [RADIUS; 3], 1),
            alpha: h.alpha,
            axes: h.boundary.axes(),
            bc,
            initial: h.initial.clone(),
            kernel: h.kernel,
            gpus: 1,
            link: None,
            doc: None,
        }
    }

    /// The setup of one part of the grid: its planes and neighbour faces.
    fn part(&self, link: Link) -> HeatSetup {
        HeatSetup {
            grid: self.grid.part(&link.split),
            bc: parts::part_bc(&self.bc, &link.split),
            link: Some(link),
            ..self.clone()
        }
    }

    /// alpha / h^2 per axis.
    pub fn axis_factors(&self) -> [f64; 3] {
        self.grid.h.map(|h| self.alpha / (h * h))
    }

    /// The stable step of the diffusion limit: dt = cfl / (2 alpha sum 1/h^2). With RK3 and the
    /// 8th-order stencil, runs are stable up to cfl ~ 0.77.
    pub fn dt_for_cfl(&self, cfl: f64) -> f64 {
        cfl / (2.0 * self.axis_factors().iter().sum::<f64>())
    }

    /// Initial field at the interior points, x fastest; Dirichlet boundary points carry their
    /// values from the start.
    pub fn initial_field(&self) -> Vec<f64> {
        let mut padded = self.grid.pad(&self.grid.sample(|x| reference::initial_value(self, x)));
        crate::grid::halo::fill(&self.grid, &self.bc, &mut padded);
        self.grid.unpad(&padded)
    }

    /// `initial_field` at the points of `split`'s planes only: those points of the whole grid
    /// sampled, then the part's own fill (its Dirichlet boundary points as the whole grid's).
    fn initial_part(&self, split: &parts::Split) -> Vec<f64> {
        let (grid, bc) = (self.grid.part(split), parts::part_bc(&self.bc, split));
        let points = parts::point_range(&self.grid, split);
        let mut padded = grid.pad(&self.grid.sample_range(points, |x| reference::initial_value(self, x)));
        crate::grid::halo::fill(&grid, &bc, &mut padded);
        grid.unpad(&padded)
    }

    /// Bytes a step must move at the least: three stages reading the stencil array once and
    /// the pointwise arrays once, writing once: 6 reads + 3 writes of one value per point.
    pub fn min_bytes_per_step(&self, real_bytes: usize) -> f64 {
        9.0 * real_bytes as f64 * self.grid.points() as f64
    }

}

/// Values a part must hold for its exchange to go by copy engine, hidden behind its inner
/// planes: on 2 H200s the copy engines made 512^3 f64 1.85x faster than one GPU where NCCL made
/// it 1.71x, but cost about 77 us of host time an exchange where NCCL costs about 16, so NCCL
/// wins up to 256^3 (1.26x against 0.87x; BENCHMARKS.md, session 14).
const COPY_ENGINE_PART: usize = 1 << 25;

impl HeatSetup {
    /// How this run's parts exchange their planes (`COPY_ENGINE_PART`).
    fn transport(&self) -> parts::Transport {
        match self.grid.n.iter().product::<usize>() / self.gpus.max(1) >= COPY_ENGINE_PART {
            true => parts::Transport::CopyEngine,
            false => parts::Transport::Nccl,
        }
    }
}

impl BuildIn for HeatSetup {
    fn build_in<T: Real>(&self, target: &Target) -> Result<Box<dyn Simulation>> {
        if parts::is_split(target, self.gpus) {
            let initial = |split: &parts::Split| self.initial_part(split);
            return parts::decompose(&self.grid, &self.bc, target, self.gpus, self.transport(), &initial, &|link, initial, target| {
                let part = self.part(link);
                Ok(Box::new(match target {
                    Target::Cpu => simulation::Exec::<T>::Cpu(cpu::CpuHeat::new(part, initial)),
                    Target::Cuda(dev) => simulation::Exec::Cuda(cuda::CudaHeat::new(part, dev.clone(), initial)?),
                }))
            });
        }
        let initial = self.initial_field();
        Ok(Box::new(match target {
            Target::Cpu => simulation::Exec::<T>::Cpu(cpu::CpuHeat::new(self.clone(), &initial)),
            Target::Cuda(dev) => simulation::Exec::Cuda(cuda::CudaHeat::new(self.clone(), dev.clone(), &initial)?),
        }))
    }
}

impl Setup for HeatSetup {
    fn centring(&self) -> Centring {
        Centring::Point
    }
    fn physics(&self) -> toml::Table {
        self.doc
            .as_ref()
            .map_or_else(toml::Table::new, |d| toml::Table::try_from(d).expect("serializable"))
    }
    fn dt_policy(&self) -> DtPolicy {
        DtPolicy::Constant
    }
    /// Slabs of planes along z (`grid::parts`).
    fn decomposes(&self) -> bool {
        true
    }
    fn geometry(&self) -> Geometry {
        self.grid.geometry()
    }
    fn build(&self, target: &Target, precision: Precision) -> Result<Box<dyn Simulation>> {
        build_in_precision(self, target, precision)
    }
    fn exact(&self, clock: &Clock) -> Option<Field> {
        let values = reference::exact(self, clock.time)?;
        Some(Field::scalar("phi", Centring::Point, values))
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({"grid": self.grid.cells, "points": self.grid.n})
    }
    /// Three padded arrays on the device (the field and two RK3 stages; a fourth for the naive
    /// kernel); 6.7e-8 CPU core-seconds a point-update (2.8-3.5e7 point-updates/s on the 2-core
    /// CI machine, 64^3 and 128^3).
    fn footprint(&self, precision: Precision) -> Option<crate::framework::Footprint> {
        let arrays = if self.kernel == HeatKernel::Naive { 4.0 } else { 3.0 };
        let padded = self.grid.padded_len() as f64 / self.grid.points() as f64;
        let per_point = arrays * padded * precision.bytes() as f64;
        Some(crate::framework::Footprint::per_cell(self.grid.points(), per_point, 6.7e-8))
    }
}
