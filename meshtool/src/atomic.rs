//! Atomic file writes: a temporary file in the target's folder, renamed over the target only
//! when complete, so a failed or interrupted run never leaves a half-written file.

use crate::error::{MeshError, Result};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Write `path` through `fill`; the file appears (mode 0644) only if `fill` succeeds.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map_err(|e| MeshError::io(dir, e))?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file());
        fill(&mut w).map_err(|e| MeshError::io(path, e))?;
        w.flush().map_err(|e| MeshError::io(path, e))?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.persist(path).map_err(|e| MeshError::io(path, e.error))?;
    Ok(())
}
