//! The unstructured (tetrahedral) layer shared by the families that run on prepared meshes
//! (advection today, projection Navier-Stokes next): the mesh arrays in the run's precision
//! with the Voronoi-dual tables and the Dirichlet virtual cells (`geometry`), their device
//! copies (`cuda`), point location (`locate`, restarted from `centroid_grid`), least-squares
//! cell gradients (`gradients`) and the small 3x3 algebra they share (`linalg3`). Nothing here
//! knows a family.

pub mod centroid_grid;
pub mod cuda;
pub mod derived;
pub mod forces;
pub mod geometry;
pub mod gradients;
pub mod linalg3;
pub mod locate;
pub mod periodic;
pub mod probes;

pub use derived::{derived_fields, vertex_lsq_gradients};
pub use forces::{patch_id, FlowFields, Force, Normalisation, PatchForce};
pub use geometry::{length_scale, TetGeometry};
pub use gradients::{lsq_gradient, lsq_gradients, Gradients};
pub use locate::{Location, Locator};
pub use periodic::{periodic_box, PeriodicShifts};
pub use probes::{Probe, Probes};

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
