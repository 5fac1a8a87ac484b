//! Where a simulation runs (`Target`: the CPU, or a CUDA device) and the device a run holds:
//! its context, streams and loaded kernel modules. What is done on a device (opening it,
//! loading kernels, copies, reductions) is the backend's (`backend::cuda`, which implements
//! `Device`); the base only hands the target to the families (`Setup::build`).

use cudarc::driver::{CudaContext, CudaModule, CudaStream};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The backend a run actually uses, with the device when it is CUDA.
#[derive(Clone)]
pub enum Target {
    Cpu,
    Cuda(Arc<Device>),
}

impl Target {
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

/// The CPU's model name, where the system says.
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

/// An open CUDA device (`backend::cuda` opens it and implements its operations).
pub struct Device {
    pub ctx: Arc<CudaContext>,
    /// The compute stream: every kernel of a step, in order.
    pub stream: Arc<CudaStream>,
    /// A second stream, of high priority, for work that overlaps compute (halo exchange,
    /// transfers).
    pub aux: Arc<CudaStream>,
    pub name: String,
    /// e.g. "sm_90"
    pub arch: String,
    pub sm_count: u32,
    pub total_mem: usize,
    /// Whether kernels are launched early (`backend::cuda::EarlyFunction`): sm_90 and newer, unless
    /// `CFD_EARLY_LAUNCH=0`.
    pub early_launch: bool,
    /// The kernel modules loaded so far, by module, precision and defines (`Device::function`).
    pub(crate) modules: Mutex<HashMap<(kernels::Module, kernels::Real, String), Arc<CudaModule>>>,
}
