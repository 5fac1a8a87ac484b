//! Sparse linear algebra for the implicit parts of the families (the Navier-Stokes pressure
//! Poisson equation and implicit viscosity): matrices are `sprs::CsMat<f64>` in CSR, assembled
//! once per mesh; `cg` solves a symmetric positive (semi-)definite system by preconditioned
//! conjugate gradients on the CPU. The CUDA solver mirrors the same settings and report.

pub mod cg;

pub use cg::{solve_cg, CgReport, CgSettings, Jacobi, Preconditioner};
pub use sprs::CsMat;
