//! Mesh generators: tetrahedralised boxes, Cartesian grid descriptions, and CAD geometries
//! through the Gmsh C API (cargo feature `gmsh`).

pub mod cartesian_box;
#[cfg(feature = "gmsh")]
pub mod gmsh;
pub mod grid;
