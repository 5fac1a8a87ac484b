//! Measurements a family can take of its flow, written once for every family. Each states what
//! it needs from a family (as PyFR's plugins state the systems they serve); a family that has
//! those quantities uses it, and none of them names a family:
//!
//! - `forces`: the force on boundary patches and its coefficients; needs a tetrahedral mesh, the
//!   cell pressure and velocity, and the viscosity (`FlowFields`).
//! - `probes`: cell fields read at points; needs a tetrahedral mesh and the cell fields.
//! - `vorticity`: the vorticity, its magnitude and the Q-criterion as output fields; needs a
//!   tetrahedral mesh and the cell velocity.
//! - `signals`: the statistics of a time signal (mean, extremes, frequency, standard errors,
//!   warm-up); needs the signal's samples.
//! - `force_signals`: drag and lift statistics over a window (summary.json `signals`,
//!   `solver signals`); needs the time series of the force coefficients (`ForceSeries`).

pub mod force_signals;
pub mod forces;
pub mod probes;
pub mod signals;
pub mod vorticity;

pub use force_signals::{ForceSeries, Signals};
pub use forces::{patch_id, FlowFields, Force, Normalisation, PatchForce};
pub use probes::{Probe, Probes};
pub use vorticity::derived_fields;
