//! Execution backends. The CPU backend is plain Rust over slices with rayon (each family's
//! `cpu.rs`); the CUDA backend (`cuda.rs`) holds the device context, its streams and events,
//! the compiled kernel modules and the shared reductions.

pub mod cuda;
pub mod nccl;

use crate::error::Result;
use crate::framework::config::Backend;
use cuda::Device;
use std::sync::Arc;

/// The backend a run actually uses, with the device when it is CUDA.
#[derive(Clone)]
pub enum Target {
    Cpu,
    Cuda(Arc<Device>),
}

impl Target {
    /// `auto`: CUDA if a device opens, else the CPU, saying which and why.
    pub fn resolve(backend: Backend, ordinal: usize, quiet: bool) -> Result<Target> {
        match backend {
            Backend::Cpu => Ok(Target::Cpu),
            Backend::Cuda => Ok(Target::Cuda(Device::open(ordinal)?)),
            Backend::Auto => match Device::open(ordinal) {
                Ok(d) => {
                    if !quiet {
                        eprintln!("backend: cuda ({}, {}) [auto]", d.name, d.arch);
                    }
                    Ok(Target::Cuda(d))
                }
                Err(e) => {
                    if !quiet {
                        eprintln!("backend: cpu ({} threads) [auto: {e}]", rayon::current_num_threads());
                    }
                    Ok(Target::Cpu)
                }
            },
        }
    }

    /// ("cpu" | "cuda", the device in words).
    pub fn describe(&self) -> (&'static str, String) {
        match self {
            Target::Cpu => (
                "cpu",
                format!("{} ({} threads)", cpu_name(), rayon::current_num_threads()),
            ),
            Target::Cuda(d) => ("cuda", format!("{} ({})", d.name, d.arch)),
        }
    }
}

pub fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "CPU".into())
}

/// max |x| over host values, NaN if any value is NaN (the CPU side of the health checks).
pub fn max_abs_host<T: crate::real::Real>(x: &[T]) -> f64 {
    use rayon::prelude::*;
    x.par_iter().map(|v| v.f64().abs()).reduce(
        || 0.0,
        |a, b| if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) },
    )
}
