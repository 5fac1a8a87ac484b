//! The paths a command is given, checked before any work: a missing input, a folder where a
//! file belongs, an output folder that does not exist or cannot be written. Each is the user's
//! bad input (`MeshError::Invalid`, exit 2) with one message that names the path, what is
//! wrong and what to do; nothing has been written when it is refused.

use crate::error::{MeshError, Result};
use std::io::ErrorKind;
use std::path::Path;

/// A file to read: it exists, is not a folder and opens.
pub fn check_input(path: &Path) -> Result<()> {
    let p = path.display();
    let refuse = |m: String| Err(MeshError::Invalid(format!("{p}: {m}")));
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => refuse("is a folder, not a file; name the file in it".into()),
        Ok(_) => match std::fs::File::open(path) {
            Ok(_) => Ok(()),
            Err(e) => refuse(format!("cannot be read ({e}); check its permissions")),
        },
        Err(e) if e.kind() == ErrorKind::NotFound => {
            refuse(format!("no such file; check the path{}", relative_hint(path)))
        }
        Err(e) => refuse(format!("cannot be read ({e}); check the path and its permissions")),
    }
}

/// A file to write through `flag` (`-o`, `--msh`): not a folder or a device, in a folder that
/// exists and takes a new file (probed with a file created and removed at once). `example` is
/// the file name the message suggests where a folder was given.
pub fn check_output(path: &Path, flag: &str, example: &str) -> Result<()> {
    let p = path.display();
    let refuse = |m: String| Err(MeshError::Invalid(format!("{p}: {m}")));
    let e_g = || format!("{flag} takes a file name, e.g. {flag} {}", path.join(example).display());
    if path.is_dir() {
        return refuse(format!("is a folder; {}", e_g()));
    }
    if path.exists() && !path.is_file() {
        // A device, pipe or socket: the rename of a complete write would replace it.
        return refuse(format!(
            "is a device, pipe or socket, not a regular file; {flag} takes the name of a file to write"
        ));
    }
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return refuse(format!("ends in '/', which names a folder; {}", e_g()));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let d = dir.display();
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return refuse(format!("{d} is not a folder; choose a {flag} in an existing folder")),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return refuse(format!(
                "the folder {d} does not exist; create it first (mkdir -p {d}) or choose another {flag}"
            ))
        }
        Err(e) => {
            return refuse(format!(
                "cannot use the folder {d} ({e}); choose a {flag} in an existing folder"
            ))
        }
    }
    match probe(dir) {
        Ok(()) => Ok(()),
        Err(e) => refuse(format!(
            "cannot write in the folder {d} ({e}); choose a folder you can write to, or change its permissions"
        )),
    }
}

/// Create a new file in `dir` and remove it again: what an atomic write will do there first.
fn probe(dir: &Path) -> std::io::Result<()> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for k in 0..16u32 {
        let name = dir.join(format!(".tmp-probe-{}-{stamp:08x}-{k}", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&name) {
            Ok(_) => return std::fs::remove_file(&name),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Where a relative path starts.
fn relative_hint(path: &Path) -> String {
    match std::env::current_dir() {
        Ok(cwd) if path.is_relative() => format!(" (relative to {})", cwd.display()),
        _ => String::new(),
    }
}
