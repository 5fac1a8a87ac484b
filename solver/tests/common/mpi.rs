//! Decomposed runs under Open MPI's `mpirun` (CPU backend), shared by the tests of every family
//! that splits its grid over ranks.

use std::path::Path;
use std::process::{Command, Output};

/// `solver ARGS` on `ranks` MPI ranks (oversubscribed: CI has 2 cores).
pub fn mpirun(ranks: usize, args: &[&str]) -> Output {
    Command::new("mpirun")
        .args([
            "-np",
            &ranks.to_string(),
            "--oversubscribe",
            env!("CARGO_BIN_EXE_solver"),
        ])
        .args(args)
        // Containers and CI run as root; Open MPI refuses that unless told.
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .unwrap()
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
