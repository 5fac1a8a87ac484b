//! Execution backends. The CPU backend is plain Rust over slices with rayon (each family's
//! `cpu.rs`); the CUDA backend (`cuda.rs`) opens the device (`framework::target::Device`) and
//! works on it: its streams and events, the compiled kernel modules and the shared reductions.
//! `resolve` chooses the backend of a run, its memory checked first (`framework::budget`).

pub mod cuda;
pub mod nccl;

use crate::error::{Result, SolverError};
use crate::framework::budget::{check_fits, host_memory, per_part};
use crate::framework::config::{Backend, CaseDoc};
pub use crate::framework::target::{cpu_name, Target};
use crate::framework::Setup;
use cuda::Device;

/// max |x| over host values, NaN if any value is NaN (the CPU side of the health checks).
pub fn max_abs_host<T: crate::real::Real>(x: &[T]) -> f64 {
    use rayon::prelude::*;
    x.par_iter().map(|v| v.f64().abs()).reduce(
        || 0.0,
        |a, b| if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) },
    )
}

/// The backend a case runs on, with its memory checked before anything is built, and why
/// `auto` fell back to the CPU (None where it did not).
pub fn resolve(doc: &CaseDoc, setup: &dyn Setup, ordinal: usize, quiet: bool) -> Result<(Target, Option<String>)> {
    let bytes = setup.footprint(doc.run.precision).map(|f| f.bytes);
    let fits_device = |d: &Device| -> Result<()> {
        let need = bytes.map(|b| per_part(setup, doc, b, true));
        let (Some(need), Ok((free, total))) = (need, d.ctx.mem_get_info()) else {
            return Ok(());
        };
        let what = format!("CUDA device {ordinal} ({})", d.name);
        check_fits(need, free as f64, total as f64, &what).map_err(|m| doc.error("run.backend", m))
    };
    let fits_host = || -> Result<()> {
        let need = bytes.map(|b| per_part(setup, doc, b, false));
        let (Some(need), Some((free, total))) = (need, host_memory()) else {
            return Ok(());
        };
        check_fits(need, free, total, "this machine").map_err(|m| doc.error("run.backend", m))
    };
    match doc.run.backend {
        Backend::Cpu => fits_host().map(|_| (Target::Cpu, None)),
        Backend::Cuda => {
            let d = Device::open(ordinal)?;
            fits_device(&d)?;
            Ok((Target::Cuda(d), None))
        }
        Backend::Auto => match Device::open(ordinal) {
            Ok(d) => {
                // Too large for the device is said as such, never run on the CPU unasked.
                fits_device(&d)?;
                if !quiet {
                    eprintln!("backend: cuda ({}, {}) [auto]", d.name, d.arch);
                }
                Ok((Target::Cuda(d), None))
            }
            Err(e) => {
                fits_host().map_err(|err| match err {
                    SolverError::Config { file, key, message } => SolverError::Config {
                        file,
                        key,
                        message: format!("no CUDA device ({e}), and on the CPU {message}"),
                    },
                    other => other,
                })?;
                Ok((Target::Cpu, Some(e.to_string())))
            }
        },
    }
}
