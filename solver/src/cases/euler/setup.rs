//! A Euler case file parsed and checked (`EulerSetup`) and its `Setup`: the simulation it
//! builds (`Setup::build`) is `sim.rs`'s (`BuildIn`).

use super::plm;
use super::section::{EulerSection, Initial, RayleighTaylor, Riemann, Scheme};
use crate::backend::Target;
use crate::error::Result;
use crate::framework::config::Math;
use crate::framework::{build_in_precision, CaseDoc, Clock, DtPolicy, Precision, Setup, Simulation};
use crate::grid::parts::{self, Link};
use crate::grid::{BoundarySet, GridSection, StructuredGrid};
use crate::numerics::fv::limiters::Limiter;
use crate::output::{Centring, Field, Geometry};
use serde::{Deserialize, Serialize};

/// Ghost layers on every active axis: MUSCL-Hancock's flux at a face reads two cells each side.
const HALO: usize = 2;

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
    pub(super) fn parse(doc: &CaseDoc) -> Result<Self> {
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
    pub(super) fn part(&self, link: Link) -> EulerSetup {
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
