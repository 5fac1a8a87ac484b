//! Decomposed runs under Open MPI's `mpirun` (CPU backend), shared by the tests of every family
//! that splits its grid over ranks.

use std::path::Path;
use std::process::{Command, Output};

/// `solver ARGS` on `ranks` MPI ranks (oversubscribed: CI has 2 cores).
pub fn mpirun(ranks: usize, args: &[&str]) -> Output {
    mpirun_with(ranks, args, &[])
}

/// `solver ARGS` on `ranks` MPI ranks with environment variables `env` set on every rank.
pub fn mpirun_with(ranks: usize, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new("mpirun");
    c.args([
        "-np",
        &ranks.to_string(),
        "--oversubscribe",
        env!("CARGO_BIN_EXE_solver"),
    ])
    .args(args)
    // Containers and CI run as root; Open MPI refuses that unless told.
    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Whether decomposed runs can be tested here: the `mpi` feature and Open MPI's `mpirun` (both
/// required under CI); prints SKIPPED otherwise.
pub fn available() -> bool {
    let mpi = cfg!(feature = "mpi") && Command::new("mpirun").arg("--version").output().is_ok();
    if !mpi {
        assert!(
            std::env::var_os("CI").is_none(),
            "the mpi feature and mpirun are required under CI"
        );
        eprintln!("SKIPPED: decomposed runs (build with --features solver/mpi and install openmpi-bin)");
    }
    mpi
}

/// `solver run CASE --backend cpu -o OUT` on `ranks` ranks with `--set` overrides and `extra`
/// arguments.
pub fn solver_run(ranks: usize, case: &Path, out: &Path, sets: &[&str], extra: &[&str]) -> Output {
    let args = super::cpu_run_args(case, out, extra, sets);
    mpirun(ranks, &args)
}

/// Run `case` on `ranks` ranks into `out` with overrides; panics with stderr on failure.
pub fn run(ranks: usize, case: &Path, out: &Path, sets: &[&str]) {
    let o = solver_run(ranks, case, out, sets, &[]);
    assert!(
        o.status.success(),
        "{ranks} ranks: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every VTK image file of `a` equals `b`'s of the same name, byte for byte (at least two).
pub fn assert_same_files(a: &Path, b: &Path) {
    let (fa, fb) = (super::vti_files(a), super::vti_files(b));
    assert!(fa.len() >= 2, "{}: {fa:?}", a.display());
    assert_eq!(
        fa.iter().map(|p| p.file_name()).collect::<Vec<_>>(),
        fb.iter().map(|p| p.file_name()).collect::<Vec<_>>()
    );
    for (x, y) in fa.iter().zip(&fb) {
        assert!(
            std::fs::read(x).unwrap() == std::fs::read(y).unwrap(),
            "{} differs from {}",
            y.display(),
            x.display()
        );
    }
}

/// A run on 2 ranks to `half` (a checkpoint at its end), finished on 4 ranks with `--restart` to
/// `end`, writes the files of one rank's run to `end` (`sets` in every run).
pub fn assert_two_ranks_restart_on_four(dir: &Path, template: &str, sets: &[&str], half: &str, end: &str) {
    let case = super::write_template(dir, template);
    let (whole, split) = (
        dir.join(format!("whole-{template}")),
        dir.join(format!("split-{template}")),
    );
    let to_end: Vec<&str> = sets.iter().copied().chain([end, "output.checkpoint_every=1"]).collect();
    let to_half: Vec<&str> = sets
        .iter()
        .copied()
        .chain([half, "output.checkpoint_every=1"])
        .collect();
    run(1, &case, &whole, &to_end);
    run(2, &case, &split, &to_half);
    let o = solver_run(4, &case, &split, &to_end, &["--restart"]);
    assert!(o.status.success(), "{template}: {}", String::from_utf8_lossy(&o.stderr));
    assert_same_files(&whole, &split);
}

/// `template` with `sets` on `ranks` ranks: refused with exit 2, the message naming `key` and
/// saying `needle`, nothing written.
pub fn assert_refused_on(ranks: usize, dir: &Path, template: &str, sets: &[&str], key: &str, needle: &str) {
    let case = super::write_template(dir, template);
    let out = dir.join(format!("refused-{template}"));
    let o = solver_run(ranks, &case, &out, sets, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{template} {sets:?}: {err}");
    assert!(err.contains(key) && err.contains(needle), "{template} {sets:?}: {err}");
    assert!(!out.exists(), "{template} {sets:?}: nothing is written");
}
