//! Numerical building blocks shared by the families, each written once over the mesh layers:
//! `sl`, the semi-Lagrangian pieces (departure points, interpolation, BFECC with a limiter);
//! `fv`, finite-volume limiters and Riemann solvers; `linalg`, sparse matrices and CG.

pub mod fv;
pub mod linalg;
pub mod sl;
