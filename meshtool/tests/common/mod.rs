//! Shared helpers: external tools (Gmsh, VTK's Python reader) and skipping when they are absent.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// True if `cmd args` runs. When it does not, print a visible SKIPPED line — or fail under CI,
/// where scripts/setup.sh installs every tool the tests use.
pub fn have(what: &str, cmd: &str, args: &[&str]) -> bool {
    let ok = Command::new(cmd)
        .args(args)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!(
                "{what} is required under CI (scripts/setup.sh installs it): `{cmd} {}` failed",
                args.join(" ")
            );
        }
        eprintln!(
            "SKIPPED: {what} not available (`{cmd} {}`); run scripts/setup.sh",
            args.join(" ")
        );
    }
    ok
}

pub fn have_gmsh() -> bool {
    have("gmsh", "gmsh", &["--version"])
}

/// Mesh meshes/channel.geo with Gmsh into `dir`, in the given format (`msh22`/`msh41`, binary or not).
pub fn gmsh_channel(dir: &Path, format: &str, binary: bool, size: f64) -> PathBuf {
    let out = dir.join(format!("channel-{format}-{}.msh", if binary { "bin" } else { "ascii" }));
    let geo = repo_root().join("meshes/channel.geo");
    let mut cmd = Command::new("gmsh");
    cmd.arg("-3")
        .arg(&geo)
        .args([
            "-setnumber",
            "size",
            &size.to_string(),
            "-format",
            format,
            "-v",
            "1",
            "-o",
        ])
        .arg(&out);
    if binary {
        cmd.arg("-bin");
    }
    let st = cmd.status().expect("run gmsh");
    assert!(st.success(), "gmsh failed on {}", geo.display());
    out
}

/// Re-save an existing .msh in another format with Gmsh (same mesh, different encoding).
pub fn gmsh_convert(src: &Path, dir: &Path, format: &str, binary: bool) -> PathBuf {
    let out = dir.join(format!("conv-{format}-{}.msh", if binary { "bin" } else { "ascii" }));
    let mut cmd = Command::new("gmsh");
    cmd.arg(src)
        .args(["-save", "-format", format, "-v", "1", "-o"])
        .arg(&out);
    if binary {
        cmd.arg("-bin");
    }
    assert!(
        cmd.status().expect("run gmsh").success(),
        "gmsh could not convert {}",
        src.display()
    );
    out
}
