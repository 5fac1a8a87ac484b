//! The ParaView collection file (`.pvd`) listing the time series; vtkio does not write it.

use crate::error::Result;
use std::path::{Path, PathBuf};

pub struct Series {
    path: PathBuf,
    entries: Vec<(f64, String)>,
}

impl Series {
    pub fn new(path: &Path) -> Self {
        Series {
            path: path.to_path_buf(),
            entries: vec![],
        }
    }

    /// Re-open an existing series, keeping the entries up to time `t` (for a restart).
    pub fn reopen(path: &Path, t: f64) -> Self {
        let mut s = Series::new(path);
        if let Ok(text) = std::fs::read_to_string(path) {
            for line in text.lines() {
                let get = |key: &str| {
                    line.split(&format!("{key}=\""))
                        .nth(1)
                        .and_then(|r| r.split('"').next())
                };
                if let (Some(ts), Some(file)) = (get("timestep"), get("file")) {
                    if let Ok(time) = ts.parse::<f64>() {
                        if time <= t {
                            s.entries.push((time, file.to_string()));
                        }
                    }
                }
            }
        }
        s
    }

    /// The last data set of an existing series (the latest output), as a path.
    pub fn last_file(path: &Path) -> Option<std::path::PathBuf> {
        let s = Series::reopen(path, f64::INFINITY);
        let (_, file) = s.entries.last()?;
        Some(path.parent().unwrap_or(Path::new("")).join(file))
    }

    /// Add a file (relative to the .pvd's folder) at time `t` and rewrite the collection.
    pub fn add(&mut self, t: f64, file: &str) -> Result<()> {
        self.entries.retain(|(_, f)| f != file);
        self.entries.push((t, file.to_string()));
        let mut xml = String::from("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n");
        for (t, f) in &self.entries {
            xml += &format!("    <DataSet timestep=\"{t:.17e}\" group=\"\" part=\"0\" file=\"{f}\"/>\n");
        }
        xml += "  </Collection>\n</VTKFile>\n";
        super::write_text(&self.path, &xml)
    }
}
