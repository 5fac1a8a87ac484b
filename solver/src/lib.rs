//! solver: the run framework (config, time loop, output), the CPU and CUDA backends, and one
//! module per physics under `cases/`.

pub mod backend;
pub mod bench;
pub mod cases;
pub mod config;
pub mod error;
pub mod output;
pub mod real;
pub mod run;
pub mod structured;
pub mod templates;

pub use error::{Result, SolverError};
