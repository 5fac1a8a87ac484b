//! The base of the solver, which every layer may use and which uses none of them; it knows no
//! family. Case files (`config`), the clock, the processes of a decomposed run (`ranks`) and
//! the device a run holds (`target`), timing, checkpoints, faults made on purpose for tests
//! (`faults`), what a case needs before it runs (`budget`); the contract between the commands
//! and a family (`family`: `Family`, `Setup`, `Simulation`), the fields a simulation hands out
//! (`field`), and a case built from a registered family and stepped by the clock (`case`).

pub mod budget;
pub mod case;
pub mod checkpoint;
pub mod clock;
pub mod config;
pub mod family;
pub mod faults;
pub mod field;
pub mod ranks;
pub mod target;
pub mod timing;

pub use case::Case;
pub use clock::{Clock, DtPolicy};
pub use config::{CaseDoc, Precision};
pub use family::{
    build_in_precision, BenchSpec, Block, BuildIn, CheckSpec, Family, FamilyInfo, Footprint, Setup, Simulation, Sizes,
    SolverWork, SpecContext, Template, Unhealthy,
};
pub use field::{Centring, Field, Geometry, Piece};
pub use target::Target;
