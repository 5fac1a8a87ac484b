//! solver: the CPU and CUDA solver of the physics families under `cases/`.
//!
//! Its layers, lowest first; a module imports only from its own layer or those before it
//! (`scripts/dev/check_layout.py` checks it in CI):
//!
//! 1. **base** (`error`, `real`, `framework`): case files, clock, ranks, the family contract.
//! 2. **backend**: where a simulation runs: the CPU, a CUDA device, NCCL.
//! 3. **output**: what a run writes: VTK fields, `.pvd` series, parallel pieces, CSV series.
//! 4. **grid**: structured grids: layout, boundary conditions, halos, parts.
//! 5. **mesh**: prepared tetrahedral meshes: geometry, point location, gradients.
//! 6. **numerics**: semi-Lagrangian transport, finite volumes, linear solvers.
//! 7. **diagnostics**: what any family can measure of its flow: forces, probes, signals.
//! 8. **cases**: the families, one folder each, and their registry; none imports another.
//! 9. **commands**: `run`, `check`, `bench`, `signals`, handed the registry by `main`.
//! 10. **main**: the command line.

pub mod backend;
pub mod cases;
pub mod commands;
pub mod diagnostics;
pub mod error;
pub mod framework;
pub mod grid;
pub mod mesh;
pub mod numerics;
pub mod output;
pub mod real;

pub use error::{Result, SolverError};
