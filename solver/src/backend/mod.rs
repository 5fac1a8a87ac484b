//! Execution backends. The CPU backend is plain Rust over slices with rayon (in each case's
//! `cpu.rs`); the CUDA backend holds the device context, compiled modules and the shared
//! reductions (this folder's `cuda.rs`).

pub mod cuda;
