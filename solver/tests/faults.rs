//! Fault injection: what goes wrong in a long run, made to happen, and what
//! the run must do about it. Each fault ends with a clear message and exit code, and nothing
//! written before it is lost:
//!
//! - SIGKILL at random moments of a run that writes an output and a checkpoint every step (100
//!   kills, `CFD_FAULT_KILLS` for more): every file the .pvd lists and both checkpoints read
//!   back whole, and `--restart` ends with every output byte-identical to an uninterrupted run;
//! - a truncated, corrupted or foreign checkpoint: refused (exit 2) naming the file, pointing
//!   at the previous checkpoint, from which `--restart=previous` resumes bit-identically;
//! - a full disk (a small tmpfs in a user namespace): exit 1 naming the path, the last good
//!   checkpoint kept and named, no temporary file left, and a restart once there is room ends
//!   bit-identical;
//! - a case too large for the memory there is: refused before anything is built with both
//!   figures; `--backend auto` without a device refuses a case of days on the CPU;
//! - a NaN injected in one cell (`CFD_INJECT_NAN`): on one process and on one rank of a 2-rank
//!   run, the run stops on every rank naming the field, the cell, the step and the rank, and
//!   keeps the last good output and checkpoint.

mod common;

use common::{stderr, write_template};
use solver::framework::checkpoint;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `solver ARGS` with extra environment variables.
fn solver_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_solver"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// `solver run CASE --backend cpu -q -o OUT` with `--set` overrides and more arguments.
fn run_args<'a>(case: &'a Path, out: &'a Path, sets: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    common::cpu_run_args(case, out, extra, sets)
}

fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// The files a .pvd lists, in its order.
fn pvd_files(pvd: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(pvd).unwrap_or_else(|e| panic!("{}: {e}", pvd.display()));
    assert!(
        text.trim_end().ends_with("</VTKFile>"),
        "{}: not whole:\n{text}",
        pvd.display()
    );
    text.lines()
        .filter_map(|l| l.split("file=\"").nth(1)?.split('"').next())
        .map(|f| pvd.parent().unwrap().join(f))
        .collect()
}

/// Every array of a VTK XML file, read back whole (decompressed) by vtkio: their values.
fn read_vtk(path: &Path) -> Vec<(String, Vec<f64>)> {
    let vtk = vtkio::Vtk::import(path).unwrap_or_else(|e| panic!("{}: unreadable: {e}", path.display()));
    let attributes = match vtk.data {
        vtkio::model::DataSet::ImageData { pieces, .. } => {
            let p = pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap();
            p.data
        }
        vtkio::model::DataSet::UnstructuredGrid { pieces, .. } => {
            let p = pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap();
            p.data
        }
        _ => panic!("{}: not a VTI or VTU", path.display()),
    };
    attributes
        .point
        .into_iter()
        .chain(attributes.cell)
        .map(|a| match a {
            vtkio::model::Attribute::DataArray(d) => {
                let values = d.data.cast_into::<f64>().unwrap();
                (d.name, values)
            }
            _ => panic!("{}: an unexpected attribute", path.display()),
        })
        .collect()
}

/// VTK's own reader on a file (vtkio drops the cell data of 2D images): each array's name and
/// how many of its values are not finite. None where python3-vtk9 is missing (not under CI).
fn read_with_vtk(path: &Path) -> Option<Vec<(String, usize)>> {
    const SCRIPT: &str = r#"
import sys, vtk, numpy
from vtk.util.numpy_support import vtk_to_numpy
f = sys.argv[1]
r = vtk.vtkXMLImageDataReader() if f.endswith('.vti') else vtk.vtkXMLUnstructuredGridReader()
r.SetFileName(f)
r.Update()
assert r.GetErrorCode() == 0, 'unreadable'
d = r.GetOutput()
for data in (d.GetPointData(), d.GetCellData()):
    for i in range(data.GetNumberOfArrays()):
        a = vtk_to_numpy(data.GetArray(i))
        print(data.GetArrayName(i), int((~numpy.isfinite(a)).sum()))
"#;
    let text = common::vtk_python(SCRIPT, path)?;
    Some(
        text.lines()
            .filter_map(|l| l.rsplit_once(' '))
            .map(|(name, bad)| (name.to_string(), bad.parse().unwrap()))
            .collect(),
    )
}

/// The output folder is sound: the .pvd whole, every file it lists readable, the checkpoints
/// there readable; the number of files listed.
fn assert_sound(out: &Path, name: &str) -> usize {
    let files = pvd_files(&out.join(format!("{name}.pvd")));
    for f in &files {
        if read_vtk(f).is_empty() {
            let arrays = read_with_vtk(f).unwrap_or_else(|| vec![("unchecked".into(), 0)]);
            assert!(!arrays.is_empty(), "{}: no arrays", f.display());
        }
    }
    for c in ["checkpoint.bin", "checkpoint.prev.bin"] {
        let p = out.join(c);
        if p.exists() {
            checkpoint::read(&p).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    files.len()
}

/// Every file of `reference`'s series is in `out`'s, byte for byte, and so is the .pvd.
fn assert_identical(out: &Path, reference: &Path, name: &str) {
    let pvd = format!("{name}.pvd");
    let (a, b) = (
        std::fs::read(out.join(&pvd)).unwrap(),
        std::fs::read(reference.join(&pvd)).unwrap(),
    );
    assert!(
        a == b,
        "{}: the .pvd differs from the uninterrupted run's",
        out.display()
    );
    for f in pvd_files(&reference.join(&pvd)) {
        let name = f.file_name().unwrap();
        let (x, y) = (std::fs::read(out.join(name)).unwrap(), std::fs::read(&f).unwrap());
        assert!(
            x == y,
            "{}: differs from the uninterrupted run's",
            out.join(name).display()
        );
    }
}

/// The temporary files (`.tmp-*`) in an output folder: a write that never completed.
fn temporaries(out: &Path) -> Vec<String> {
    std::fs::read_dir(out).map_or(vec![], |d| {
        d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".tmp-"))
            .collect()
    })
}

/// A small random number generator (xorshift), seeded: the kill times repeat run to run.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A heat run that writes an output and a checkpoint at every one of its 30 steps: most of its
/// time is spent writing, so most kills land in a write.
const WRITING: &[&str] = &[
    "grid.dims=[24,23,24]",
    "time.steps=30",
    "output.every=1",
    "output.checkpoint_every=1",
];

/// After a kill: every file the .pvd lists and both checkpoints read back; `--restart` (from
/// the start where no checkpoint was written yet) completes, removes the dead writes' temporary
/// files, and every output equals the uninterrupted run's byte for byte.
fn assert_recovers(case: &Path, out: &Path, reference: &Path, sets: &[String], what: &str) {
    if out.join("heat-benchmark.pvd").exists() {
        assert_sound(out, "heat-benchmark");
    }
    let extra: &[&str] = if out.join("checkpoint.bin").exists() {
        &["--restart"]
    } else {
        &[]
    };
    let o = common::solver(&run_args(case, out, sets, extra));
    assert!(o.status.success(), "{what}: the restart failed: {}", stderr(&o));
    assert!(
        temporaries(out).is_empty(),
        "{what}: left after the restart: {:?}",
        temporaries(out)
    );
    assert_eq!(assert_sound(out, "heat-benchmark"), 31, "{what}");
    assert_identical(out, reference, "heat-benchmark");
}

#[test]
fn sigkill_at_random_moments_loses_nothing_and_the_restart_is_bit_identical() {
    let dir = tempfile::tempdir().unwrap();
    let case = write_template(dir.path(), "heat-benchmark");
    let sets = sets(WRITING);
    let reference = dir.path().join("reference");
    let t = Instant::now();
    let o = common::solver(&run_args(&case, &reference, &sets, &[]));
    assert!(o.status.success(), "{}", stderr(&o));
    let span = t.elapsed().as_secs_f64();
    assert_eq!(assert_sound(&reference, "heat-benchmark"), 31);
    let kills: usize = std::env::var("CFD_FAULT_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // From outside, at a random moment of the run (most of which is spent making outputs).
    let (mut mid_write, mut before_checkpoint, mut finished) = (0, 0, 0);
    for k in 0..kills {
        let out = dir.path().join(format!("kill-{k}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_solver"))
            .args(run_args(&case, &out, &sets, &[]))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs_f64(rng.unit() * 1.1 * span));
        let _ = child.kill(); // SIGKILL (nothing to do where the run has ended)
        finished += usize::from(child.wait().unwrap().success());
        if !out.exists() {
            continue; // killed before it made its folder
        }
        mid_write += usize::from(!temporaries(&out).is_empty());
        before_checkpoint += usize::from(!out.join("checkpoint.bin").exists());
        assert_recovers(&case, &out, &reference, &sets, &format!("kill {k}"));
        std::fs::remove_dir_all(&out).unwrap();
    }
    println!(
        "{kills} SIGKILLs at random moments of a {span:.2} s run: {mid_write} inside a file write (a temporary file left), \
         {before_checkpoint} before the first checkpoint (run again from the start), {finished} after the run had ended; \
         every listed file and checkpoint read back, every restart byte-identical to the uninterrupted run"
    );
    // From inside, on a random byte of the run's writes (`CFD_INJECT_KILL`): every kill lands
    // in an output or a checkpoint being written.
    let written: u64 = std::fs::read_dir(&reference)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let n = std::fs::metadata(&p).unwrap().len();
            if p.ends_with("checkpoint.bin") {
                30 * n
            } else {
                n
            }
        })
        .sum();
    let mut in_checkpoint = 0;
    for k in 0..kills {
        let out = dir.path().join(format!("byte-{k}"));
        let byte = 1 + (rng.unit() * written as f64) as u64;
        let o = solver_env(
            &run_args(&case, &out, &sets, &[]),
            &[("CFD_INJECT_KILL", &byte.to_string())],
        );
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&o.status),
            Some(9),
            "byte {byte}: not killed"
        );
        let left = temporaries(&out);
        assert!(!left.is_empty(), "byte {byte}: killed outside a write");
        let checkpoint = checkpoint::read(&out.join("checkpoint.bin")).ok().map(|c| c.clock.step);
        let pvd = out.join("heat-benchmark.pvd");
        let latest_output = pvd.exists().then(|| pvd_files(&pvd).len() as u64 - 1);
        // Killed while writing a checkpoint: the outputs are one step ahead of the checkpoint.
        let behind = |o: u64| checkpoint.map_or(o == 1, |c| c < o);
        in_checkpoint += usize::from(latest_output.is_some_and(behind));
        assert_recovers(&case, &out, &reference, &sets, &format!("killed on byte {byte}"));
        std::fs::remove_dir_all(&out).unwrap();
    }
    println!(
        "{kills} SIGKILLs on a random byte of the run's {written} written bytes: every one inside a write \
         ({in_checkpoint} in a checkpoint, the rest in an output or the .pvd), every restart byte-identical"
    );
    assert!(
        mid_write > 0 && in_checkpoint > 0,
        "the kills missed the writes: {mid_write} from outside, {in_checkpoint} in checkpoints"
    );
}

/// A run of 30 steps with checkpoints every 10: checkpoint.bin at step 30, .prev at 20.
fn checkpointed(dir: &Path, case: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    let s = sets(&[
        "grid.dims=[16,15,16]",
        "time.steps=30",
        "output.every=10",
        "output.checkpoint_every=10",
    ]);
    let o = common::solver(&run_args(case, &out, &s, &[]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(checkpoint::read(&out.join("checkpoint.bin")).unwrap().clock.step, 30);
    assert_eq!(
        checkpoint::read(&out.join("checkpoint.prev.bin")).unwrap().clock.step,
        20
    );
    out
}

#[test]
fn a_damaged_checkpoint_is_refused_naming_it_and_the_previous_one_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let case = write_template(dir.path(), "heat-benchmark");
    let longer = sets(&[
        "grid.dims=[16,15,16]",
        "time.steps=40",
        "output.every=10",
        "output.checkpoint_every=10",
    ]);
    let reference = dir.path().join("reference");
    assert!(common::solver(&run_args(&case, &reference, &longer, &[]))
        .status
        .success());
    type Damage = fn(&mut Vec<u8>);
    let damages: [(&str, Damage, &str); 4] = [
        ("truncated", |b| b.truncate(b.len() / 2), "truncated checkpoint"),
        (
            "a flipped byte",
            |b| {
                let n = b.len() - 100;
                b[n] ^= 0x10;
            },
            "checksum mismatch",
        ),
        (
            "another file",
            |b| b[..8].copy_from_slice(b"PMESH\0\r\n"),
            "not a checkpoint of this solver version",
        ),
        ("one byte more", |b| b.push(0), "runs on past its state"),
    ];
    for (what, damage, needle) in damages {
        let out = checkpointed(dir.path(), &case, &format!("run-{}", what.replace(' ', "-")));
        let latest = out.join("checkpoint.bin");
        let mut bytes = std::fs::read(&latest).unwrap();
        damage(&mut bytes);
        std::fs::write(&latest, bytes).unwrap();
        let o = common::solver(&run_args(&case, &out, &longer, &["--restart"]));
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {e}");
        assert!(
            e.contains(&latest.display().to_string()) && e.contains(needle),
            "{what}: {e}"
        );
        assert!(
            e.contains("checkpoint.prev.bin (step 20") && e.contains("--restart=previous"),
            "{what}: the previous checkpoint is not offered: {e}"
        );
        // Nothing was written by the refused restart: the outputs to step 30 are still there.
        assert_eq!(assert_sound_without_latest(&out), 4);
        let o = common::solver(&run_args(&case, &out, &longer, &["--restart=previous"]));
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert_identical(&out, &reference, "heat-benchmark");
        // The damaged checkpoint was replaced, not kept as the previous one.
        assert_eq!(checkpoint::read(&latest).unwrap().clock.step, 40);
        assert_eq!(
            checkpoint::read(&out.join("checkpoint.prev.bin")).unwrap().clock.step,
            30
        );
        println!("{what}: refused with \"{}\"", e.trim());
    }
    // Both damaged, or none there: said so, exit 2.
    let out = checkpointed(dir.path(), &case, "both");
    for f in ["checkpoint.bin", "checkpoint.prev.bin"] {
        std::fs::write(out.join(f), b"CFDCKPT2 and then nothing").unwrap();
    }
    let o = common::solver(&run_args(&case, &out, &longer, &["--restart"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("No earlier checkpoint reads well"),
        "{}",
        stderr(&o)
    );
    let fresh = dir.path().join("fresh");
    let o = common::solver(&run_args(&case, &fresh, &longer, &["--restart"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no such checkpoint"), "{}", stderr(&o));
}

/// `assert_sound` where checkpoint.bin is known to be damaged: the series and the previous
/// checkpoint.
fn assert_sound_without_latest(out: &Path) -> usize {
    let files = pvd_files(&out.join("heat-benchmark.pvd"));
    for f in &files {
        read_vtk(f);
    }
    checkpoint::read(&out.join("checkpoint.prev.bin")).unwrap();
    files.len()
}

/// Whether this machine can mount a small tmpfs in a user namespace (`unshare -rm`).
fn user_namespaces() -> bool {
    let ok = Command::new("unshare")
        .args([
            "-rm",
            "sh",
            "-c",
            "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\"",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "unshare -rm (user namespaces) is required under CI for the full-disk test"
        );
        eprintln!("SKIPPED: full disk (unshare -rm cannot mount a tmpfs here)");
    }
    ok
}

#[test]
fn a_full_disk_stops_the_run_naming_the_path_and_keeps_the_last_checkpoint() {
    if !user_namespaces() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let case = write_template(dir.path(), "heat-benchmark");
    let s = sets(&[
        "grid.dims=[24,23,24]",
        "time.steps=60",
        "output.every=5",
        "output.checkpoint_every=10",
    ]);
    let reference = dir.path().join("reference");
    assert!(common::solver(&run_args(&case, &reference, &s, &[])).status.success());
    // Room for the outputs to step 30 and two checkpoints, not for the whole run.
    let size = |files: &[&str]| -> u64 {
        files
            .iter()
            .map(|f| std::fs::metadata(reference.join(f)).unwrap().len())
            .sum()
    };
    let vti: Vec<String> = (0..=30).step_by(5).map(|k| format!("step_{k:07}.vti")).collect();
    let mut names: Vec<&str> = vti.iter().map(|s| s.as_str()).collect();
    names.extend(["checkpoint.bin", "checkpoint.prev.bin", "heat-benchmark.pvd"]);
    let room = size(&names) + 4096 * 16;
    let mount = dir.path().join("disk");
    let (kept, restarted) = (dir.path().join("kept"), dir.path().join("restarted"));
    std::fs::create_dir_all(&mount).unwrap();
    let out = mount.join("run");
    let args = |extra: &str| {
        let a: Vec<String> = run_args(&case, &out, &s, &[])
            .iter()
            .map(|a| format!("'{a}'"))
            .collect();
        format!("{} {} {extra}", env!("CARGO_BIN_EXE_solver"), a.join(" "))
    };
    // Full disk, copy what is there, make room, restart, copy again: all inside the namespace
    // (the tmpfs goes with it).
    let script = format!(
        "set -u; mount -t tmpfs -o size={room} tmpfs '{m}' || exit 99; {run} 2> '{d}/err1'; echo $? > '{d}/rc1'; \
         cp -a '{o}' '{k}'; mount -o remount,size=64m '{m}'; {restart} 2> '{d}/err2'; echo $? > '{d}/rc2'; cp -a '{o}' '{r}'",
        m = mount.display(),
        d = dir.path().display(),
        o = out.display(),
        k = kept.display(),
        r = restarted.display(),
        run = args(""),
        restart = args("--restart"),
    );
    let o = Command::new("unshare")
        .args(["-rm", "sh", "-c", &script])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap();
    let (rc, err) = (read("rc1"), read("err1"));
    assert_eq!(rc.trim(), "1", "a full disk is a failed run: {err}");
    assert!(
        err.contains("No space left on device") && err.contains(&out.display().to_string()),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "its last good checkpoint is {}/checkpoint.bin (step",
            out.display()
        )),
        "{err}"
    );
    assert!(
        temporaries(&kept).is_empty(),
        "left on the full disk: {:?}",
        temporaries(&kept)
    );
    let n = assert_sound(&kept, "heat-benchmark");
    let last = checkpoint::read(&kept.join("checkpoint.bin")).unwrap().clock.step;
    assert!(
        err.contains(&format!("(step {last})")),
        "the message names another step: {err}"
    );
    assert!((20..60).contains(&last) && n >= 6, "step {last}, {n} outputs");
    println!(
        "full disk ({room} bytes): \"{}\"; kept {n} outputs and the checkpoint of step {last}",
        err.trim()
    );
    assert_eq!(read("rc2").trim(), "0", "{}", read("err2"));
    assert_identical(&restarted, &reference, "heat-benchmark");
}

#[test]
fn a_case_too_large_for_memory_is_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let case = write_template(dir.path(), "heat-benchmark");
    let out = dir.path().join("out");
    let s = sets(&["grid.dims=[8192,8191,8192]"]);
    let t = Instant::now();
    let o = common::solver(&run_args(&case, &out, &s, &[]));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("run.backend") && e.contains("needs about 12.0 TiB") && e.contains("this machine has"),
        "{e}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(5) && !out.exists(),
        "it allocated or wrote first: {e}"
    );
    // `auto` without a device: a case of days on the CPU is refused before any step, with
    // the estimate; on a machine with a device it would run there, so this part needs none.
    let devices = common::solver(&["devices"]);
    if !String::from_utf8_lossy(&devices.stdout).starts_with("no CUDA devices") {
        eprintln!("SKIPPED: auto's refusal of a CPU fallback (this machine has a CUDA device)");
        return;
    }
    let s = sets(&["grid.dims=[128,127,128]", "time.steps=10000000"]);
    let mut args = run_args(&case, &out, &s, &[]);
    args[3] = "auto";
    let o = common::solver(&args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("no CUDA device") && e.contains("days") && e.contains("--backend cpu"),
        "{e}"
    );
    assert!(
        !out.join("step_0000000.vti").exists(),
        "a step or an output came first: {e}"
    );
    println!("{}", e.trim());
}

/// The run stopped by an injected NaN: exit 1, the message, the outputs it kept.
fn assert_stopped(o: &Output, out: &Path, name: &str, needles: &[&str], kept_outputs: usize, checkpoint_step: u64) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    for n in needles {
        assert!(e.contains(n), "'{n}' not in: {e}");
    }
    assert_eq!(assert_sound(out, name), kept_outputs, "{e}");
    for f in pvd_files(&out.join(format!("{name}.pvd"))) {
        let mut arrays: Vec<(String, usize)> = read_vtk(&f)
            .into_iter()
            .map(|(name, v)| (name, v.iter().filter(|x| !x.is_finite()).count()))
            .collect();
        if arrays.is_empty() {
            arrays = read_with_vtk(&f).unwrap_or_default();
        }
        for (array, bad) in arrays {
            assert_eq!(bad, 0, "{}: {array} has values that are not finite", f.display());
        }
    }
    assert_eq!(
        checkpoint::read(&out.join("checkpoint.bin")).unwrap().clock.step,
        checkpoint_step
    );
}

#[test]
fn a_nan_in_one_cell_stops_the_run_naming_field_cell_and_step() {
    let dir = tempfile::tempdir().unwrap();
    let case = write_template(dir.path(), "heat-benchmark");
    let out = dir.path().join("heat");
    // A NaN after step 30; health checks every 50 steps, outputs every 20, checkpoints every
    // 10: the checkpoint due at step 30 checks first, stops, and keeps step 20's.
    let s = sets(&[
        "grid.dims=[16,15,16]",
        "time.steps=100",
        "output.every=20",
        "output.checkpoint_every=10",
    ]);
    let o = solver_env(&run_args(&case, &out, &s, &[]), &[("CFD_INJECT_NAN", "30:1000")]);
    let needles = [
        "diverged at step 30",
        "phi NaN at point 1000 (8, 14, 3)",
        "step 20 in",
        "checkpoint of step 20",
    ];
    assert_stopped(&o, &out, "heat-benchmark", &needles, 2, 20);
    println!("{}", stderr(&o).trim());

    let case = write_template(dir.path(), "swe-column");
    let out = dir.path().join("swe");
    let s = sets(&[
        "output.every=20",
        "output.checkpoint_every=20",
        "time.check_every=10",
        "time.end_time=10",
    ]);
    let o = solver_env(&run_args(&case, &out, &s, &[]), &[("CFD_INJECT_NAN", "40:7550")]);
    let needles = [
        "diverged at step 40",
        "depth NaN in cell 7550 (x fastest)",
        "checkpoint of step 20",
    ];
    let e = stderr(&o);
    assert!(!e.contains("on rank"), "one process names no rank: {e}");
    assert_stopped(&o, &out, "swe-column", &needles, 3, 20);
    println!("{}", e.trim());
}

#[test]
fn a_nan_on_one_rank_of_two_stops_every_rank() {
    if !common::mpi::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let case = write_template(dir.path(), "swe-column");
    let out = dir.path().join("swe");
    // 100 x 100 cells, rows 50-99 on rank 1: cell 7550 is row 75, column 50.
    let s = sets(&[
        "output.every=20",
        "output.checkpoint_every=20",
        "time.check_every=10",
        "time.end_time=10",
    ]);
    let mut c = Command::new("mpirun");
    c.args(["-np", "2", "--oversubscribe", env!("CARGO_BIN_EXE_solver")])
        .args(run_args(&case, &out, &s, &[]))
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("CFD_INJECT_NAN", "40:7550");
    let t = Instant::now();
    let o = c.output().unwrap();
    let e = stderr(&o);
    assert!(t.elapsed() < Duration::from_secs(60), "the ranks did not stop: {e}");
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("made NaN after step 40 on rank 1"), "{e}");
    // Rank 0 says it, and rank 1 as well: both stopped at the same check.
    let said = "the solution diverged at step 40 (t = ";
    let what = "depth NaN in cell 7550 (x fastest) on rank 1";
    assert!(e.contains(&format!("error: {said}")), "rank 0 did not stop: {e}");
    assert!(
        e.contains(&format!("error (rank 1): {said}")),
        "rank 1 did not stop: {e}"
    );
    assert_eq!(e.matches(what).count(), 2, "{e}");
    assert_eq!(assert_sound(&out, "swe-column"), 3, "{e}");
    assert_eq!(checkpoint::read(&out.join("checkpoint.bin")).unwrap().clock.step, 20);
}
