//! Sparse linear algebra for the implicit parts of the families (the Navier-Stokes pressure
//! Poisson equation and implicit viscosity): matrices are `sprs::CsMat<f64>` in CSR, assembled
//! once per mesh; `cg` solves a symmetric positive (semi-)definite system by preconditioned
//! conjugate gradients on the CPU, with Jacobi, Chebyshev-Jacobi (`chebyshev`) or
//! smoothed-aggregation AMG (`amg`) preconditioning, chosen by one description that both
//! backends build from (`preconditioner`); `cuda` is the same solver on the device (fused
//! kernels, scalars kept on the device) with the same settings and report; `poisson` builds
//! the finite-volume two-point matrix of a tetrahedral mesh (the CG benchmark's).

pub mod amg;
pub mod cg;
pub mod chebyshev;
pub mod cuda;
pub mod poisson;
pub mod preconditioner;

pub use amg::{AmgSettings, Hierarchy};
pub use cg::{solve_cg, CgReport, CgSettings, Jacobi, Preconditioner};
pub use chebyshev::{Chebyshev, ChebyshevBounds};
pub use cuda::CudaCg;
pub use preconditioner::CgPreconditioner;
pub use sprs::CsMat;
