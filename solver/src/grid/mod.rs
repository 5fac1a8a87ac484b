//! The structured-grid layer shared by the structured families (heat, Euler, shallow water):
//! the `[grid]` section (`dims` counts cells on every axis, as `meshtool generate grid`
//! writes it), a padded memory layout with a halo width per axis set by the family, cell- or
//! vertex-centred values, several components, one boundary-condition set, and one halo fill
//! on each backend (`halo` on the CPU, `cuda` on the device).

pub mod boundary;
pub mod cuda;
pub mod halo;
pub mod layout;
pub mod parts;
pub mod peer;

pub use boundary::{BoundarySection, BoundarySet, FaceBc, Side};
pub use layout::StructuredGrid;

use crate::error::Result;
use crate::framework::config::positive;
use crate::framework::CaseDoc;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The `[grid]` section of a structured case.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GridSection {
    /// Cells per axis (1 on the unused axes of a 1D or 2D grid).
    #[serde(default)]
    pub dims: Option<[usize; 3]>,
    #[serde(default = "unit3")]
    pub extent: [f64; 3],
    #[serde(default)]
    pub origin: [f64; 3],
    /// A grid description written by `meshtool generate grid` (its dims, extent and origin are
    /// used; `dims` here must then be absent).
    #[serde(default)]
    pub file: Option<PathBuf>,
}

fn unit3() -> [f64; 3] {
    [1.0; 3]
}

/// Cells, origin and extent of a grid, from the section or the file it names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridSpec {
    pub cells: [usize; 3],
    pub origin: [f64; 3],
    pub extent: [f64; 3],
}

impl GridSection {
    /// The grid this section describes, validated; errors name `grid.*` keys.
    pub fn spec(&self, doc: &CaseDoc) -> Result<GridSpec> {
        let (cells, origin, extent) = match (&self.dims, &self.file) {
            (Some(_), Some(_)) => return Err(doc.error("grid.file", "give grid.dims or grid.file, not both")),
            (None, None) => {
                return Err(doc.error(
                    "grid.dims",
                    "missing: set grid.dims = [nx, ny, nz] (cells) or grid.file",
                ))
            }
            (Some(d), None) => (*d, self.origin, self.extent),
            (None, Some(f)) => {
                let path = doc.resolve(f);
                if !path.exists() {
                    let m = format!(
                        "{} does not exist; create it with `meshtool generate grid`",
                        path.display()
                    );
                    return Err(doc.error("grid.file", m));
                }
                let g = meshtool::generate::grid::GridSpec::read(&path)?;
                (g.dims, g.origin, g.extent)
            }
        };
        if let Some(k) = (0..3).find(|&k| cells[k] == 0) {
            return Err(doc.error("grid.dims", format!("axis {k} has no cells; use 1 for an unused axis")));
        }
        if let Some(k) = (0..3).find(|&k| !positive(extent[k])) {
            return Err(doc.error(
                "grid.extent",
                format!("axis {k} extent must be positive, got {}", extent[k]),
            ));
        }
        Ok(GridSpec { cells, origin, extent })
    }
}
