//! meshtool: everything about meshes for the solver — Gmsh import, generators, topology,
//! Voronoi-dual tables, quality, locality reordering, and the `.pmesh` prepared-mesh format.

pub mod atomic;
pub mod dual;
pub mod element_types;
pub mod error;
pub mod faces;
pub mod generate;
pub mod mesh;
pub mod msh;
pub mod paths;
pub mod periodic;
pub mod pmesh;
pub mod process;
pub mod quality;
pub mod reorder;
pub mod topology;
pub mod vtk;

pub use error::{MeshError, Result};
pub use mesh::RawMesh;
pub use pmesh::PreparedMesh;
