//! The `[shallow-water]` section of a case file: gravity, the bathymetry, the initial water and
//! pollutant, the boundary and its open sides, point sources, the dry threshold.

use super::series::SeriesSpec;
use crate::grid::BoundarySection;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweSection {
    #[serde(default = "default_gravity")]
    pub gravity: f64,
    /// The initial state and the bathymetry that goes with it.
    pub initial: Initial,
    /// Pollutant concentration C (hC is carried): discs of concentration 1 on 0.
    #[serde(default)]
    pub pollutant: Vec<Disc>,
    #[serde(default = "walls")]
    pub boundary: BoundarySection,
    /// Depth below which a cell is dry (its velocity is zero). Default 1e-6 (f64), 1e-5 (f32).
    #[serde(default)]
    pub dry_depth: Option<f64>,
    /// Depth below which velocities are desingularized, u = sqrt(2) h q / sqrt(h^4 +
    /// max(h^4, eps^4)) (Kurganov & Petrova 2007). Default 1e-3 of the deepest initial water.
    #[serde(default)]
    pub thin_depth: Option<f64>,
    /// Ghost rows a part keeps beside each other part of a decomposed run (ranks and devices):
    /// they arrive every `ghost_rows` steps and are updated again in between (the paper's
    /// ghost-cell expansion: fewer, larger messages; the halo's `grid::parts::Cadence`).
    #[serde(default = "one_row")]
    pub ghost_rows: usize,
    /// Manning's roughness n (s / m^(1/3)); 0: no friction. Applied semi-implicitly after each
    /// step: q / (1 + dt g n^2 |u| / h^(4/3)).
    #[serde(default)]
    pub manning: f64,
    /// Open sides: a prescribed level (e.g. a tide) and/or discharge, each a number or a CSV
    /// file of `time,value` lines (linear in time, held outside its range), e.g.
    /// `open = [{ side = "x-", level = "tide.csv" }]`. An open side replaces that side's
    /// `boundary` (which must not be periodic).
    #[serde(default)]
    pub open: Vec<Open>,
    /// Point sources of water and pollutant, e.g.
    /// `sources = [{ at = [x, y], discharge = 5.0, concentration = 1.0 }]`.
    #[serde(default)]
    pub sources: Vec<Source>,
}

/// An open side. Its ghost cells take
/// - depth h = max(level(t) + H, 0) with `level` (the free surface eta; H of the ghost is the
///   bed's depth beside it), else the interior's depth;
/// - normal momentum: the discharge per unit width q(t) (m^2/s, positive into the domain) with
///   `discharge`, else the interior's; the tangential momentum is the interior's;
/// - pollutant: h times `concentration` where given (e.g. 0: clean water flows in), else the
///   interior's concentration.
///
/// A ghost at or below the dry depth is at rest with no pollutant. The time is that at the start
/// of each step.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Open {
    /// "x-", "x+", "y-" or "y+".
    pub side: String,
    #[serde(default)]
    pub level: Option<SeriesSpec>,
    #[serde(default)]
    pub discharge: Option<SeriesSpec>,
    #[serde(default)]
    pub concentration: Option<f64>,
}

/// A point source: each step adds Q dt / (cell area) to h and Q C dt / (cell area) to hC of the
/// cell that contains `at` (before the step's fluxes). Q in m^3/s, not negative (a number or a
/// CSV), C its pollutant concentration (default 0: clean water).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub at: [f64; 2],
    pub discharge: SeriesSpec,
    #[serde(default)]
    pub concentration: f64,
}

fn one_row() -> usize {
    1
}

fn default_gravity() -> f64 {
    9.81
}

fn walls() -> BoundarySection {
    use crate::grid::boundary::{AxisBc, Side};
    BoundarySection {
        x: AxisBc::Both(Side::Reflect),
        y: AxisBc::Both(Side::Reflect),
        z: AxisBc::Both(Side::Reflect),
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Disc {
    pub center: [f64; 2],
    pub radius: f64,
}

/// Initial data. H is the bed's depth below the reference level (positive downward, the paper's
/// convention), the free surface eta = h - H.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Initial {
    /// SWASHES 3.1.2: bed z = max(0, 0.2 - 0.05 (x - 10)^2) along x (an island of that profile in r
    /// when `island`), still water at `level` (0.1): dry over the bump's top.
    LakeAtRest {
        #[serde(default = "level")]
        level: f64,
        #[serde(default)]
        island: bool,
    },
    /// A dam at x = `position` on a flat bed: depth `left` behind it, `right` (0: dry, Ritter;
    /// > 0: wet, Stoker) in front, still water (SWASHES 4.1.1, 4.1.2).
    DamBreak { position: f64, left: f64, right: f64 },
    /// Thacker's planar surface in a paraboloid (SWASHES 4.2.2): bed z = -h0 (1 - r^2 / a^2)
    /// about the domain's centre, the free surface a tilted plane rotating with omega =
    /// sqrt(2 g h0) / a, amplitude `eta`.
    Thacker { a: f64, h0: f64, eta: f64 },
    /// A column of water falling into a tank (the paper's sec. 6.4): flat bed at `depth`, the
    /// surface raised by `height` inside the disc.
    Column { depth: f64, height: f64, center: [f64; 2], radius: f64 },
    /// Still water at `level` over the bed elevations of an ESRI ASCII grid (`.asc`, relative to
    /// the case file, or `builtin:estuary.asc`; its ncols x nrows must be the grid's cells).
    StillWater {
        level: f64,
        /// An ESRI ASCII grid, or absent: the bed elevations of `grid.file` (made by
        /// `meshtool generate grid --bathymetry`).
        #[serde(default)]
        bathymetry: Option<std::path::PathBuf>,
    },
}

fn level() -> f64 {
    0.1
}
