//! Errors of the mesh library. Every variant names the file and, where it can, the line (ASCII)
//! or byte offset (binary) and says what to do about it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("{path}: {location}: {message}")]
    Parse {
        path: PathBuf,
        /// "line 12" for ASCII sections, "byte 4096" for binary ones.
        location: String,
        message: String,
    },
    /// A volume element other than the linear tetrahedron; the message says what made it.
    #[error("{}", crate::element_types::unsupported_volume_element(.path, *.element, *.type_id, .type_name))]
    UnsupportedElement {
        path: PathBuf,
        element: u64,
        type_id: i32,
        type_name: &'static str,
    },
    #[error("topology: {0}")]
    Topology(String),
    #[error("{path}: {message}")]
    Pmesh { path: PathBuf, message: String },
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl MeshError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        MeshError::Io {
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = MeshError> = std::result::Result<T, E>;
