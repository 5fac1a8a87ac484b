//! One module per physics. Each builds a `Simulation` (its numerical core on the chosen
//! backend) plus what the shared time loop needs: the step, the output layout, a reference.

pub mod advect;
pub mod heat;

use crate::backend::cuda::Device;
use crate::config::{Backend, CaseFile, CaseKind, Precision};
use crate::error::Result;
use crate::real::Real;
use crate::structured::Grid3;
use std::path::Path;
use std::sync::Arc;

/// What the time loop drives; implemented once per case over both backends.
pub trait Simulation {
    fn step(&mut self, dt: f64) -> Result<()>;
    /// max |field| over the state, NaN if any value is NaN (the divergence guard).
    fn max_abs(&mut self) -> Result<f64>;
    /// Output fields (interior values, x fastest) by name.
    fn fields(&mut self) -> Result<Vec<(String, Vec<f64>)>>;
    /// The full state, for checkpoints (bit-exact).
    fn save_state(&mut self) -> Result<Vec<u8>>;
    fn load_state(&mut self, bytes: &[u8]) -> Result<()>;
}

/// The exact solution at time t (interior points, x fastest), where it exists.
pub type ReferenceFn = Box<dyn Fn(f64) -> Option<Vec<f64>>>;

/// A case ready to run.
pub struct Prepared {
    pub sim: Box<dyn Simulation>,
    pub layout: Layout,
    pub dt: f64,
    pub steps: u64,
    /// The exact solution of the first field at time t, where one exists.
    pub reference: Option<ReferenceFn>,
    pub backend: &'static str,
    pub device: String,
    /// Variant of the numerical kernel, for the summary.
    pub variant: String,
    /// Bytes a step must move at the minimum (for the roofline fraction; 0 if not modelled).
    pub min_bytes_per_step: f64,
    /// Case-specific entries for summary.json.
    pub extra: serde_json::Value,
    /// Weights of the error norms (cell volumes on unstructured meshes; None: uniform).
    pub weights: Option<Vec<f64>>,
}

/// Where the fields live, which decides the output format.
pub enum Layout {
    /// Point fields on a structured grid (.vti).
    Structured(Grid3),
    /// Cell fields on a tetrahedral mesh (.vtu).
    Tets(Arc<meshtool::PreparedMesh>),
}

impl Layout {
    pub fn size(&self) -> usize {
        match self {
            Layout::Structured(g) => g.points(),
            Layout::Tets(m) => m.num_cells(),
        }
    }
}

/// The backend actually used, with the device when it is CUDA.
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

pub fn prepare(case: &CaseFile, case_path: &Path, target: &Target) -> Result<Prepared> {
    match (case.case.kind, case.run.precision) {
        (CaseKind::Heat, Precision::F64) => heat::prepare::<f64>(case, case_path, target),
        (CaseKind::Heat, Precision::F32) => heat::prepare::<f32>(case, case_path, target),
        (CaseKind::Advect, Precision::F64) => advect::prepare::<f64>(case, case_path, target),
        (CaseKind::Advect, Precision::F32) => advect::prepare::<f32>(case, case_path, target),
    }
}

/// The step and the number of steps from the [time] section, given the step the case's
/// CFL-type limit allows: a fixed `time.dt` wins; with `end_time` the step is shortened so an
/// integer number of steps lands on it.
pub fn time_steps(time: &crate::config::TimeSection, dt_cfl: f64) -> (f64, u64) {
    let dt0 = time.dt.unwrap_or(dt_cfl);
    match (time.steps, time.end_time) {
        (Some(n), _) => (dt0, n),
        (None, Some(t)) => {
            let n = (t / dt0).ceil().max(1.0) as u64;
            (t / n as f64, n)
        }
        (None, None) => unreachable!("validated: steps or end_time is set"),
    }
}

/// Little-endian bytes of a slice of reals (checkpoints).
pub fn to_bytes<T: Real>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of_val(v));
    for x in v {
        x.to_le(&mut out);
    }
    out
}

pub fn from_bytes<T: Real>(b: &[u8]) -> Vec<T> {
    b.chunks_exact(std::mem::size_of::<T>()).map(T::from_le).collect()
}
