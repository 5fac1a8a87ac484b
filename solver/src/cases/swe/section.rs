//! The `[shallow-water]` section of a case file: gravity, the bathymetry, the initial water and
//! pollutant, the boundary, the dry threshold.

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
    /// Manning's roughness n (s / m^(1/3)); 0: no friction. Applied semi-implicitly after each
    /// step: q / (1 + dt g n^2 |u| / h^(4/3)).
    #[serde(default)]
    pub manning: f64,
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
    /// the case file; its ncols x nrows must be the grid's cells).
    StillWater { level: f64, bathymetry: std::path::PathBuf },
}

fn level() -> f64 {
    0.1
}
