//! Checkpoints: the clock, the raw state, a checksum, and the physics of the run as
//! `key = value` lines (the parsed setup, never a hand-kept list), so that a restart with
//! changed physics is refused naming the keys that changed.

use super::clock::Clock;
use crate::error::{Result, SolverError};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"CFDCKPT2";

pub struct Checkpoint {
    pub clock: Clock,
    /// `key = value` per line, sorted (see `physics_lines`).
    pub physics: String,
    pub state: Vec<u8>,
}

/// A table flattened to sorted `a.b.c = value` lines.
pub fn physics_lines(t: &toml::Table) -> String {
    fn walk(prefix: &str, v: &toml::Value, out: &mut Vec<String>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            }
            other => out.push(format!("{prefix} = {other}")),
        }
    }
    let mut out = vec![];
    walk("", &toml::Value::Table(t.clone()), &mut out);
    out.sort();
    out.join("\n")
}

/// The keys whose values differ between two `physics_lines` texts, as "key: old -> new".
pub fn changed_keys(old: &str, new: &str) -> Vec<String> {
    let parse = |s: &str| -> std::collections::BTreeMap<String, String> {
        s.lines()
            .filter_map(|l| l.split_once(" = "))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let (a, b) = (parse(old), parse(new));
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            let show = |v: Option<&String>| v.map_or("(unset)".to_string(), |s| s.clone());
            format!("{k}: {} -> {}", show(a.get(k)), show(b.get(k)))
        })
        .collect()
}

/// Where the checkpoint before the latest is kept: `checkpoint.prev.bin` beside `checkpoint.bin`.
pub fn previous(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or("checkpoint".into(), |s| s.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}.prev.bin"))
}

/// Write `c` to `path` atomically and durably (temporary file, fsync, rename). With `rotate`
/// (the file at `path` is a good checkpoint of this run), that file is first kept as
/// `previous(path)` (a hard link renamed into place, a copy where links are not supported), so
/// that at every moment `path` is a whole checkpoint, the new one or the last, and the one
/// before it is kept. A failed write (a full disk) leaves both as they were.
pub fn write(path: &Path, c: &Checkpoint, rotate: bool) -> Result<()> {
    if rotate && path.exists() {
        keep_as_previous(path)?;
    }
    let crc = crc32fast::hash(&c.state);
    meshtool::atomic::write_with_sync(path, |w| {
        w.write_all(MAGIC)?;
        w.write_all(&c.clock.step.to_le_bytes())?;
        w.write_all(&c.clock.time.to_le_bytes())?;
        w.write_all(&crc.to_le_bytes())?;
        w.write_all(&(c.physics.len() as u64).to_le_bytes())?;
        w.write_all(c.physics.as_bytes())?;
        w.write_all(&(c.state.len() as u64).to_le_bytes())?;
        w.write_all(&c.state)
    })
    .map_err(crate::error::write_error)
}

/// `path` also as `previous(path)`, replaced atomically.
fn keep_as_previous(path: &Path) -> Result<()> {
    let prev = previous(path);
    let tmp = path.with_file_name(format!(".tmp-prev-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    if std::fs::hard_link(path, &tmp).is_err() {
        std::fs::copy(path, &tmp).map_err(|e| SolverError::io(&prev, e))?;
    }
    let renamed = std::fs::rename(&tmp, &prev).map_err(|e| SolverError::io(&prev, e));
    // Where `prev` already was this same file (a run killed between this and the write that
    // follows), rename does nothing and leaves the temporary name: remove it.
    let _ = std::fs::remove_file(&tmp);
    renamed
}

/// Read a checkpoint: refused, naming the file, when it is missing, of another version,
/// truncated or corrupted (exit 2).
pub fn read(path: &Path) -> Result<Checkpoint> {
    let b = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SolverError::Checkpoint {
                path: path.to_path_buf(),
                message: "no such checkpoint (a run writes one every output.checkpoint_every steps and on Ctrl-C); run without --restart".into(),
            })
        }
        Err(e) => return Err(SolverError::io(path, e)),
    };
    from_bytes(&b, path)
}

/// A checkpoint from its bytes (`path` names it in errors).
pub fn from_bytes(b: &[u8], path: &Path) -> Result<Checkpoint> {
    let bad = |m: &str| SolverError::Checkpoint {
        path: path.to_path_buf(),
        message: m.to_string(),
    };
    if b.len() < 8 || &b[..8] != MAGIC {
        return Err(bad(
            "not a checkpoint of this solver version (remove it, or run without --restart)",
        ));
    }
    let truncated = || bad("truncated checkpoint (the file ends before its state does)");
    let slice = |at: usize, len: usize| at.checked_add(len).and_then(|end| b.get(at..end));
    let u64_at = |at: usize| slice(at, 8).map(|s| u64::from_le_bytes(s.try_into().unwrap()));
    let step = u64_at(8).ok_or_else(truncated)?;
    let time = f64::from_bits(u64_at(16).ok_or_else(truncated)?);
    let crc = u32::from_le_bytes(slice(24, 4).ok_or_else(truncated)?.try_into().unwrap());
    let plen = usize::try_from(u64_at(28).ok_or_else(truncated)?).map_err(|_| truncated())?;
    let physics = String::from_utf8_lossy(slice(36, plen).ok_or_else(truncated)?).into_owned();
    let at = 36usize.checked_add(plen).ok_or_else(truncated)?;
    let slen = usize::try_from(u64_at(at).ok_or_else(truncated)?).map_err(|_| truncated())?;
    let state = slice(at + 8, slen).ok_or_else(truncated)?.to_vec();
    if b.len() != at + 8 + slen {
        return Err(bad("the file runs on past its state (not one whole checkpoint)"));
    }
    if crc32fast::hash(&state) != crc {
        return Err(bad("checksum mismatch (corrupted file)"));
    }
    Ok(Checkpoint {
        clock: Clock { step, time },
        physics,
        state,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_changed_keys() {
        let t: toml::Table = toml::from_str("[diffusion]\nalpha = 0.1\n[grid]\ndims = [8, 8, 8]\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.bin");
        let c = Checkpoint {
            clock: Clock { step: 7, time: 0.5 },
            physics: physics_lines(&t),
            state: vec![1, 2, 3],
        };
        write(&p, &c, false).unwrap();
        let r = read(&p).unwrap();
        assert_eq!(
            (r.clock, r.physics.as_str(), r.state.as_slice()),
            (c.clock, c.physics.as_str(), &[1u8, 2, 3][..])
        );
        let t2: toml::Table = toml::from_str("[diffusion]\nalpha = 0.2\n[grid]\ndims = [8, 8, 8]\n").unwrap();
        assert_eq!(
            changed_keys(&r.physics, &physics_lines(&t2)),
            vec!["diffusion.alpha: 0.1 -> 0.2"]
        );
        let mut bytes = std::fs::read(&p).unwrap();
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&p, bytes).unwrap();
        assert!(read(&p).is_err());
    }
}
