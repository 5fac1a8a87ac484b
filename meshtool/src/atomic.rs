//! Atomic file writes: a temporary file in the target's folder, renamed over the target only
//! when complete, so a failed or interrupted run never leaves a half-written file.
//!
//! Testing knob: `CFD_INJECT_KILL=N` makes the process kill itself with SIGKILL once N bytes
//! (counted over every atomic write since it started) have reached the files, in the middle
//! of a write: the fault-injection suite's way to land a kill on a random byte of an output or
//! a checkpoint (`solver/tests/faults.rs`). Unset, it costs one relaxed load per buffer flush.

use crate::error::{MeshError, Result};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The `CFD_INJECT_KILL` byte count, read once.
fn kill_after() -> Option<u64> {
    static AT: OnceLock<Option<u64>> = OnceLock::new();
    *AT.get_or_init(|| {
        std::env::var("CFD_INJECT_KILL")
            .ok()
            .and_then(|v| v.trim().parse().ok())
    })
}

/// Bytes written through atomic writes so far (counted only under `CFD_INJECT_KILL`).
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// A file writer that dies on the `CFD_INJECT_KILL` byte.
struct Counting<'a>(&'a std::fs::File);

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(limit) = kill_after() else {
            return self.0.write(buf);
        };
        let done = WRITTEN.fetch_add(buf.len() as u64, Ordering::SeqCst);
        if done + buf.len() as u64 >= limit {
            let part = limit.saturating_sub(done).min(buf.len() as u64) as usize;
            let _ = self.0.write_all(&buf[..part]);
            // SAFETY: kill(2) on this process; nothing after it runs.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Write `path` through `fill`; the file appears (mode 0644) only if `fill` succeeds.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    write_atomically(path, false, fill)
}

/// As `write_with`, and the data reaches the disk (fsync) before the rename: a file system
/// that reports a full disk or an I/O error only when it writes back (NFS, some quotas) fails
/// here, leaving the old file in place, instead of after the rename.
pub fn write_with_sync(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    write_atomically(path, true, fill)
}

fn write_atomically(path: &Path, sync: bool, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map_err(|e| MeshError::io(dir, e))?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, Counting(tmp.as_file()));
        fill(&mut w).map_err(|e| MeshError::io(path, e))?;
        w.flush().map_err(|e| MeshError::io(path, e))?;
    }
    if sync {
        tmp.as_file().sync_all().map_err(|e| MeshError::io(path, e))?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.persist(path).map_err(|e| MeshError::io(path, e.error))?;
    Ok(())
}
