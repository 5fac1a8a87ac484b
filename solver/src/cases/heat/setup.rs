//! A heat case file parsed and checked (`HeatSetup`) and its `Setup`: the simulation it builds
//! (`Setup::build`) is `sim.rs`'s (`BuildIn`).

use super::section::{self, AxisBoundary, HeatInitial, HeatKernel, HeatSection};
use super::step::RADIUS;
use super::reference::{self, Problem};
use crate::backend::Target;
use crate::error::Result;
use crate::framework::{build_in_precision, CaseDoc, Clock, DtPolicy, Precision, Setup, Simulation};
use crate::grid::parts::{self, Link};
use crate::grid::{BoundarySet, GridSection, StructuredGrid};
use crate::output::{Centring, Field, Geometry};
use serde::{Deserialize, Serialize};

/// What a heat case file holds besides the framework's sections.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
struct HeatDoc {
    heat: HeatSection,
    grid: GridSection,
}

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
    pub(super) fn parse(doc: &CaseDoc) -> Result<Self> {
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
    pub(super) fn part(&self, link: Link) -> HeatSetup {
        HeatSetup {
            grid: self.grid.part(&link.split),
            bc: parts::part_bc(&self.bc, &link.split),
            link: Some(link),
            ..self.clone()
        }
    }

    /// What the initial condition and the closed-form solutions read (`reference`).
    pub fn problem(&self) -> Problem<'_> {
        Problem {
            grid: &self.grid,
            alpha: self.alpha,
            axes: self.axes,
            initial: &self.initial,
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
        let mut padded = self.grid.pad(&self.grid.sample(|x| reference::initial_value(self.problem(), x)));
        crate::grid::halo::fill(&self.grid, &self.bc, &mut padded);
        self.grid.unpad(&padded)
    }

    /// `initial_field` at the points of `split`'s planes only: those points of the whole grid
    /// sampled, then the part's own fill (its Dirichlet boundary points as the whole grid's).
    pub(super) fn initial_part(&self, split: &parts::Split) -> Vec<f64> {
        let (grid, bc) = (self.grid.part(split), parts::part_bc(&self.bc, split));
        let points = parts::point_range(&self.grid, split);
        let mut padded = grid.pad(&self.grid.sample_range(points, |x| reference::initial_value(self.problem(), x)));
        crate::grid::halo::fill(&grid, &bc, &mut padded);
        grid.unpad(&padded)
    }

    /// Bytes a step must move at the least: three stages reading the stencil array once and
    /// the pointwise arrays once, writing once: 6 reads + 3 writes of one value per point.
    pub fn min_bytes_per_step(&self, real_bytes: usize) -> f64 {
        9.0 * real_bytes as f64 * self.grid.points() as f64
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
        let values = reference::exact(self.problem(), clock.time)?;
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
