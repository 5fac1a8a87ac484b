//! The unstructured (tetrahedral) layer of the families that run on prepared meshes: the mesh
//! arrays in the run's precision with the Voronoi-dual tables and the Dirichlet virtual cells
//! (`geometry`), their device copies (`cuda`), point location (`locate`, restarted from
//! `centroid_grid`), least-squares cell gradients over the face neighbours (`gradients`) and
//! over the vertex neighbourhood (`vertex_gradients`), periodic images (`periodic`), a cell
//! field a previous run wrote, read back (`cell_field`), and the small 3x3 algebra they share
//! (`linalg3`). Nothing here knows a family.

pub mod cell_field;
pub mod centroid_grid;
pub mod cuda;
pub mod geometry;
pub mod gradients;
pub mod linalg3;
pub mod locate;
pub mod periodic;
pub mod vertex_gradients;

pub use geometry::{length_scale, TetGeometry};
pub use gradients::{lsq_gradient, lsq_gradients, Gradients};
pub use locate::{Location, Locator};
pub use periodic::{periodic_box, PeriodicShifts};
pub use vertex_gradients::vertex_lsq_gradients;

/// A prepared Kuhn box of dims[0] x dims[1] x dims[2] x 6 tetrahedra on the unit cube, in RCM
/// order, with the patches xmin .. zmax (unit tests).
#[cfg(test)]
pub(crate) fn test_box(dims: [usize; 3]) -> meshtool::PreparedMesh {
    use meshtool::generate::cartesian_box::{generate, BoxSpec};
    let raw = generate(&BoxSpec {
        dims,
        lo: [0.0; 3],
        hi: [1.0; 3],
    })
    .unwrap();
    meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Rcm)
        .unwrap()
        .0
}

/// The geometry of `test_box(dims)` in f64, all patches zero-gradient (unit tests).
#[cfg(test)]
pub(crate) fn test_geometry(dims: [usize; 3]) -> TetGeometry<f64> {
    TetGeometry::take(&mut test_box(dims), &[])
}
