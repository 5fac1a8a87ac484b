//! Where a run's wall time goes, for summary.json's `timing`: the process's start (from `main`)
//! to the device being ready, loading kernel modules, the family's set-up, the steps, the output
//! on the critical path, and the writer thread's own time (overlapped with the steps). One place
//! for every family: the time loop and the CUDA backend report into it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

static START: OnceLock<Instant> = OnceLock::new();
static KERNEL_LOAD_NS: AtomicU64 = AtomicU64::new(0);
static KERNEL_MODULES: AtomicU64 = AtomicU64::new(0);
static KERNEL_CACHED: AtomicU64 = AtomicU64::new(0);

/// Mark the process's start (the first thing `main` does); later calls change nothing.
pub fn mark_start() {
    START.get_or_init(Instant::now);
}

/// Seconds since [`mark_start`] (or since the first call here, where `main` did not mark it).
pub fn since_start() -> f64 {
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// A kernel module loaded (compiled or from the cache) in `took`.
pub fn add_kernel_load(took: Duration, cached: bool) {
    KERNEL_LOAD_NS.fetch_add(took.as_nanos() as u64, Ordering::Relaxed);
    KERNEL_MODULES.fetch_add(1, Ordering::Relaxed);
    if cached {
        KERNEL_CACHED.fetch_add(1, Ordering::Relaxed);
    }
}

/// Seconds spent loading kernel modules so far in this process.
pub fn kernel_load_seconds() -> f64 {
    KERNEL_LOAD_NS.load(Ordering::Relaxed) as f64 * 1e-9
}

/// (modules loaded, of which from the on-disk cache) so far.
pub fn kernel_modules() -> (u64, u64) {
    (
        KERNEL_MODULES.load(Ordering::Relaxed),
        KERNEL_CACHED.load(Ordering::Relaxed),
    )
}

/// Time spent in one phase, less the kernel loads that happened inside it.
pub struct Phase {
    start: Instant,
    kernels: f64,
}

impl Phase {
    pub fn start() -> Phase {
        Phase {
            start: Instant::now(),
            kernels: kernel_load_seconds(),
        }
    }

    /// (wall seconds, of which kernel loading).
    pub fn stop(&self) -> (f64, f64) {
        (self.start.elapsed().as_secs_f64(), kernel_load_seconds() - self.kernels)
    }
}
