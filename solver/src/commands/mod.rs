//! The commands, each handed the registry (`cases::FAMILIES`) by `main`: `run` (the one time
//! loop: output, health checks, checkpoints and restarts, summary.json), `check` (CPU-vs-CUDA
//! agreement of every family's checks), `bench` (their throughput) and `bench_cg` (the linear
//! solvers' micro-benchmark, `solver bench cg`), `signals` (a run's force statistics over
//! another window), and `specs`, what `check` and `bench` share (a spec's case document, a case
//! stepped a number of steps).

pub mod bench;
pub mod bench_cg;
pub mod check;
pub mod run;
pub mod signals;
pub mod specs;
