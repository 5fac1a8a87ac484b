//! Solver errors. Bad input (exit 2) names the file and key; failed runs (exit 1) say what
//! happened and what was kept.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    #[error("{file}{}: {message}", if key.is_empty() { String::new() } else { format!(": {key}") })]
    Config {
        file: PathBuf,
        key: String,
        message: String,
    },
    #[error("{0}")]
    Mesh(#[from] meshtool::MeshError),
    #[error("the solution diverged at step {step} (t = {time:.6e}): {what}. The last good output was kept{kept}. Reduce time.cfl (or time.dt) and run again.")]
    Diverged {
        step: u64,
        time: f64,
        /// The field at fault.
        field: String,
        /// What is wrong with it, e.g. "max |phi| = inf".
        what: String,
        kept: String,
    },
    #[error("CUDA: {0}")]
    Cuda(String),
    #[error("{0}")]
    Kernel(#[from] kernels::KernelError),
    /// A run stopped by a failed write (a full disk): what failed, and what is kept.
    #[error("{cause}. The run stopped at step {step}; {kept}")]
    Stopped {
        step: u64,
        cause: Box<SolverError>,
        kept: String,
    },
    #[error("interrupted at step {step}; a checkpoint was written to {}: continue with --restart", checkpoint.display())]
    Interrupted { step: u64, checkpoint: PathBuf },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// A checkpoint that cannot be restarted from: missing, of another version, truncated or
    /// corrupted (bad input: exit 2).
    #[error("{}: {message}", path.display())]
    Checkpoint { path: PathBuf, message: String },
    #[error("{0}")]
    Other(String),
}

impl SolverError {
    pub fn config(file: &Path, key: &str, message: impl Into<String>) -> Self {
        SolverError::Config {
            file: file.to_path_buf(),
            key: key.to_string(),
            message: message.into(),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SolverError::Io {
            path: path.into(),
            source,
        }
    }

    /// Exit code: 2 for bad input, 1 for a failed run, 130 for an interrupt.
    pub fn exit_code(&self) -> i32 {
        match self {
            SolverError::Config { .. } | SolverError::Mesh(_) | SolverError::Checkpoint { .. } => 2,
            SolverError::Interrupted { .. } => 130,
            _ => 1,
        }
    }
}

/// A failed write of an output as the run's error: a failed run (exit 1) that names the file
/// and keeps the I/O error (e.g. a full disk), never bad input.
pub fn write_error(e: meshtool::MeshError) -> SolverError {
    match e {
        meshtool::MeshError::Io { path, source } => SolverError::Io { path, source },
        other => SolverError::Other(other.to_string()),
    }
}

impl From<cudarc::driver::DriverError> for SolverError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        let hint = if format!("{e:?}").contains("OUT_OF_MEMORY") {
            ": the device is out of memory; use a smaller grid or precision = \"f32\""
        } else {
            ""
        };
        SolverError::Cuda(format!("{e:?}{hint}"))
    }
}

pub type Result<T, E = SolverError> = std::result::Result<T, E>;
