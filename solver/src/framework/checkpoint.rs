//! Checkpoints: the step, the time and the raw state of a run, with a checksum and a
//! fingerprint of everything that must match for a restart to continue the same run.

use crate::error::{Result, SolverError};
use std::path::Path;

const MAGIC: &[u8; 8] = b"CFDCKPT1";

pub struct Checkpoint {
    pub step: u64,
    pub time: f64,
    pub fingerprint: u32,
    pub state: Vec<u8>,
}

pub fn write(path: &Path, c: &Checkpoint) -> Result<()> {
    let crc = crc32fast::hash(&c.state);
    meshtool::atomic::write_with(path, |w| {
        w.write_all(MAGIC)?;
        w.write_all(&c.step.to_le_bytes())?;
        w.write_all(&c.time.to_le_bytes())?;
        w.write_all(&c.fingerprint.to_le_bytes())?;
        w.write_all(&crc.to_le_bytes())?;
        w.write_all(&(c.state.len() as u64).to_le_bytes())?;
        w.write_all(&c.state)
    })
    .map_err(|e| SolverError::Other(e.to_string()))
}

pub fn read(path: &Path) -> Result<Checkpoint> {
    let b = std::fs::read(path).map_err(|e| SolverError::io(path, e))?;
    let bad = |m: &str| SolverError::Other(format!("{}: {m}", path.display()));
    if b.len() < 40 || &b[..8] != MAGIC {
        return Err(bad("not a checkpoint of this solver"));
    }
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let (step, time, fingerprint, crc, len) = (
        u64_at(8),
        f64::from_bits(u64_at(16)),
        u32_at(24),
        u32_at(28),
        u64_at(32) as usize,
    );
    let state = b.get(40..40 + len).ok_or_else(|| bad("truncated checkpoint"))?.to_vec();
    if crc32fast::hash(&state) != crc {
        return Err(bad("checkpoint checksum mismatch (corrupted file)"));
    }
    Ok(Checkpoint {
        step,
        time,
        fingerprint,
        state,
    })
}
