//! Numerical building blocks shared by the families, each written once over the mesh layers:
//! `sl`, the semi-Lagrangian pieces (departure points, interpolation, BFECC with a limiter).

pub mod fv;
pub mod sl;
