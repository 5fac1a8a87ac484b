//! The compressible Euler equations of an ideal gas on cell-centred structured grids (1D, 2D,
//! 3D): conservative variables (rho, rho u, rho v, rho w, E), dimensionally split
//! MUSCL-Hancock with the exact Riemann solver and four slope limiters (Toro; the paper
//! `euler-2d-muscl-hancock-gpu.md`), a CFL step from the fastest signal, Toro's tests 1-5
//! against their exact solutions. So far on the CPU (f32 and f64); the CUDA kernels, PLM + HLL
//! + SSP-RK3 with gravity and the 2D/3D templates are the rest of the Euler issue.

pub mod cpu;
pub mod gas;
pub mod muscl;
pub mod section;

use crate::backend::Target;
use crate::error::{Result, SolverError};
use crate::framework::{
    build_in_precision, BuildIn, CaseDoc, Clock, DtPolicy, FamilyInfo, Precision, Setup, Simulation, Template,
};
use crate::grid::{BoundarySet, GridSection, StructuredGrid};
use crate::numerics::fv::limiters::Limiter;
use crate::output::{Centring, Field, Geometry};
use crate::real::Real;
use section::{EulerSection, Initial};
use serde::{Deserialize, Serialize};

/// Ghost layers on every active axis: MUSCL-Hancock's flux at a face reads two cells each side.
const HALO: usize = 2;

const fn template(name: &'static str, about: &'static str, text: &'static str) -> Template {
    Template { name, about, text }
}

const TEMPLATES: &[Template] = &[
    template("euler-toro-1", "Toro's test 1 (Sod): rarefaction, contact, shock; exact solution", include_str!("templates/euler-toro-1.toml")),
    template("euler-toro-2", "Toro's test 2 (123 problem): two rarefactions, near vacuum", include_str!("templates/euler-toro-2.toml")),
    template("euler-toro-3", "Toro's test 3: left half of the blast wave, strong shock", include_str!("templates/euler-toro-3.toml")),
    template("euler-toro-4", "Toro's test 4: right half of the blast wave", include_str!("templates/euler-toro-4.toml")),
    template("euler-toro-5", "Toro's test 5: collision of the shocks of tests 3 and 4", include_str!("templates/euler-toro-5.toml")),
    template("euler-density-wave", "smooth density wave advected diagonally, periodic: the order of accuracy", include_str!("templates/euler-density-wave.toml")),
    template("euler-riemann-2d", "the paper's benchmark: Lax & Liu's 2D Riemann problem, configuration 3, 1000 x 1000", include_str!("templates/euler-riemann-2d.toml")),
];

/// The family: compressible Euler on a cell-centred structured grid.
pub static FAMILY: FamilyInfo = FamilyInfo {
    name: "euler",
    shared_keys: &["grid"],
    templates: TEMPLATES,
    parse: |doc| Ok(Box::new(EulerSetup::parse(doc)?)),
    checks: &[],
    benches: &[],
};

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
    pub limiter: Limiter,
    pub initial: Initial,
    doc: EulerDoc,
}

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
        let spec = view.grid.spec(doc)?;
        let bc = e.boundary.set();
        if let Some(p) = bc.problem(5) {
            return Err(doc.error("euler.boundary", p));
        }
        let halo = spec.cells.map(|c| if c > 1 { HALO } else { 0 });
        let grid = StructuredGrid::new(&spec, Centring::Cell, &bc, halo, 5);
        if let Some(a) = (0..3).find(|&a| halo[a] > 0 && grid.n[a] < HALO) {
            return Err(doc.error("grid.dims", format!("axis {a} needs at least {HALO} cells")));
        }
        Ok(EulerSetup {
            grid,
            bc,
            gamma: e.gamma,
            limiter: e.limiter,
            initial: e.initial.clone(),
            doc: view,
        })
    }

    /// The axes with more than one cell (the sweeps).
    pub fn active_axes(&self) -> Vec<usize> {
        (0..3).filter(|&a| self.grid.cells[a] > 1).collect()
    }

    /// Conservative initial values, components one after another, x fastest.
    pub fn initial_field(&self) -> Vec<f64> {
        let state = |x: [f64; 3]| self.initial.conservative_at(x, self.gamma);
        (0..5).flat_map(|c| self.grid.sample(|x| state(x)[c])).collect()
    }
}

impl BuildIn for EulerSetup {
    fn build_in<R: Real>(&self, target: &Target) -> Result<Box<dyn Simulation>> {
        match target {
            Target::Cpu => Ok(Box::new(cpu::CpuEuler::<R>::new(self.clone(), &self.initial_field()))),
            Target::Cuda(_) => Err(SolverError::Other(
                "the euler family runs on the CPU only so far (its CUDA kernels are not written yet): use --backend cpu".into(),
            )),
        }
    }
}

impl Setup for EulerSetup {
    fn build(&self, target: &Target, precision: Precision) -> Result<Box<dyn Simulation>> {
        build_in_precision(self, target, precision)
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
        serde_json::json!({"grid": self.grid.cells, "gamma": self.gamma, "limiter": self.limiter.name()})
    }
}
