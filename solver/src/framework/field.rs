//! Typed fields, the geometry they live on and where on it they sit (`Centring`): what a
//! simulation hands out (`Simulation::fields`, `Simulation::pieces`) and `output` writes.

use std::sync::Arc;

/// Where a field's values sit: on the points (vertices) or in the cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Centring {
    Point,
    Cell,
}

/// A named field of 1, 2 or 3 components per point or cell, components interleaved
/// (x0 y0 x1 y1 ... for a 2D vector), points or cells in the geometry's order (x fastest on
/// structured grids).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub components: usize,
    pub centring: Centring,
    pub values: Vec<f64>,
}

impl Field {
    pub fn scalar(name: &str, centring: Centring, values: Vec<f64>) -> Field {
        Field {
            name: name.into(),
            components: 1,
            centring,
            values,
        }
    }

    /// A vector of `components` (2 or 3) values per point or cell, interleaved.
    pub fn vector(name: &str, components: usize, centring: Centring, values: Vec<f64>) -> Field {
        debug_assert!((2..=3).contains(&components) && values.len().is_multiple_of(components));
        Field {
            name: name.into(),
            components,
            centring,
            values,
        }
    }

    /// Points or cells the field covers.
    pub fn len(&self) -> usize {
        self.values.len() / self.components
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// (min, max) over every value (NaN-free fields).
    pub fn range(&self) -> (f64, f64) {
        self.values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)))
    }
}

/// The geometry fields are written on.
#[derive(Clone)]
pub enum Geometry {
    /// A uniform grid (VTK ImageData): `points` per axis (1 on unused axes), the first point at
    /// `origin`, `spacing` apart. Cell fields have (points - 1) values per axis (1 where flat).
    Image {
        points: [usize; 3],
        origin: [f64; 3],
        spacing: [f64; 3],
    },
    /// A tetrahedral mesh (VTK UnstructuredGrid), cell fields.
    Tets(Arc<meshtool::PreparedMesh>),
}

impl Geometry {
    pub fn points(&self) -> usize {
        match self {
            Geometry::Image { points, .. } => points.iter().product(),
            Geometry::Tets(m) => m.nodes.len(),
        }
    }

    pub fn cells(&self) -> usize {
        match self {
            Geometry::Image { points, .. } => points.iter().map(|&p| (p - 1).max(1)).product(),
            Geometry::Tets(m) => m.num_cells(),
        }
    }

    /// The number of values of a field with this centring.
    pub fn size(&self, c: Centring) -> usize {
        match c {
            Centring::Point => self.points(),
            Centring::Cell => self.cells(),
        }
    }

    /// Weights of the error norms for this centring: cell volumes on meshes, uniform on grids.
    pub fn weights(&self, c: Centring) -> Option<&[f64]> {
        match (self, c) {
            (Geometry::Tets(m), Centring::Cell) => Some(&m.topo.volumes),
            _ => None,
        }
    }
}

/// One part's fields, its points along the split axis followed, for point fields, by the
/// first plane of the part after it (pieces of point data share their boundary plane, or
/// ParaView shows a gap between them).
pub struct Piece {
    /// The part's number in the whole run (its block in `decomposition`).
    pub index: usize,
    pub fields: Vec<Field>,
}
