//! Checkpoints: the clock, the raw state, a checksum, and the physics of the run as
//! `key = value` lines (the parsed setup, never a hand-kept list), so that a restart with
//! changed physics is refused naming the keys that changed.

use super::clock::Clock;
use crate::error::{Result, SolverError};
use std::path::Path;

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

pub fn write(path: &Path, c: &Checkpoint) -> Result<()> {
    let crc = crc32fast::hash(&c.state);
    meshtool::atomic::write_with(path, |w| {
        w.write_all(MAGIC)?;
        w.write_all(&c.clock.step.to_le_bytes())?;
        w.write_all(&c.clock.time.to_le_bytes())?;
        w.write_all(&crc.to_le_bytes())?;
        w.write_all(&(c.physics.len() as u64).to_le_bytes())?;
        w.write_all(c.physics.as_bytes())?;
        w.write_all(&(c.state.len() as u64).to_le_bytes())?;
        w.write_all(&c.state)
    })
    .map_err(|e| SolverError::Other(e.to_string()))
}

pub fn read(path: &Path) -> Result<Checkpoint> {
    let b = std::fs::read(path).map_err(|e| SolverError::io(path, e))?;
    let bad = |m: &str| SolverError::Other(format!("{}: {m}", path.display()));
    if b.len() < 36 || &b[..8] != MAGIC {
        return Err(bad(
            "not a checkpoint of this solver version (remove it, or run without --restart)",
        ));
    }
    let u64_at = |o: usize| b.get(o..o + 8).map(|s| u64::from_le_bytes(s.try_into().unwrap()));
    let truncated = || bad("truncated checkpoint");
    let (step, time) = (
        u64_at(8).ok_or_else(truncated)?,
        f64::from_bits(u64_at(16).ok_or_else(truncated)?),
    );
    let crc = u32::from_le_bytes(b[24..28].try_into().unwrap());
    let plen = u64_at(28).ok_or_else(truncated)? as usize;
    let physics = b.get(36..36 + plen).ok_or_else(truncated)?;
    let physics = String::from_utf8_lossy(physics).into_owned();
    let slen = u64_at(36 + plen).ok_or_else(truncated)? as usize;
    let state = b.get(44 + plen..44 + plen + slen).ok_or_else(truncated)?.to_vec();
    if crc32fast::hash(&state) != crc {
        return Err(bad("checkpoint checksum mismatch (corrupted file)"));
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
        write(&p, &c).unwrap();
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
