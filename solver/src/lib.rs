//! solver: the framework (case files, clock, time loop, checkpoints, checks and benchmarks),
//! the CPU and CUDA backends, the shared numerical layers (structured grids, tetrahedral
//! meshes, semi-Lagrangian pieces), typed VTK output, and one folder per physics under `cases/`.

pub mod backend;
pub mod cases;
pub mod error;
pub mod framework;
pub mod grid;
pub mod mesh;
pub mod numerics;
pub mod output;
pub mod real;

pub use error::{Result, SolverError};
