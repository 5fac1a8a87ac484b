//! The framework: knows no family. Case files (`config`), the registry lookup and the prepared
//! case (`case`), the clock, the one time loop (`run`), checkpoints, what a case needs before it
//! runs (`budget`), faults made on purpose for tests (`faults`), the processes of a
//! decomposed run (`ranks`), and the generic
//! CPU-vs-CUDA checks and benchmarks driven by each family's specs (and `bench_cg`, the
//! CG micro-benchmark, `solver bench cg`).

pub mod bench;
pub mod bench_cg;
pub mod budget;
pub mod case;
pub mod check;
pub mod checkpoint;
pub mod clock;
pub mod config;
pub mod family;
pub mod faults;
pub mod ranks;
pub mod rewindow;
pub mod run;
pub mod specs;
pub mod timing;

pub use case::Case;
pub use clock::{Clock, DtPolicy};
pub use config::{CaseDoc, Precision};
pub use family::{
    build_in_precision, BenchSpec, BuildIn, CheckSpec, Family, FamilyInfo, Footprint, Setup, Simulation, Sizes,
    SolverWork, SpecContext, Template, Unhealthy,
};
