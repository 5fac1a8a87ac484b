//! The output writer thread under interruption and failure: a run stopped by SIGINT while it
//! writes frames leaves a `.pvd` whose every file is complete and opens (no frame the loop
//! handed to the writer is lost, no temporary file is left), and a frame that cannot be written
//! stops the run with the file named.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The files a `.pvd` lists, in order.
fn listed(pvd: &Path) -> Vec<String> {
    std::fs::read_to_string(pvd)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| Some(l.split("file=\"").nth(1)?.split('"').next()?.to_string()))
        .collect()
}

/// A 2D Riemann problem on the CPU writing a frame every step: the run spends most of its time
/// writing, so an interrupt lands mid-write.
fn case(dir: &Path) -> PathBuf {
    let case = common::write_template(dir, "euler-riemann-2d");
    let text = std::fs::read_to_string(&case).unwrap();
    let text = text
        .replace("dims = [1000, 1000, 1]", "dims = [320, 320, 1]")
        .replace("every = 0", "every = 1");
    std::fs::write(&case, text).unwrap();
    case
}

/// Every file of the series decodes completely and holds the grid's cells in each array.
fn assert_series_opens(out: &Path, pvd: &Path, cells: usize) -> usize {
    let files = listed(pvd);
    assert!(!files.is_empty(), "{}", std::fs::read_to_string(pvd).unwrap());
    for f in &files {
        let path = out.join(f);
        let arrays = common::vtk_arrays(&path).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = arrays.iter().map(|a| a.0.as_str()).collect();
        assert_eq!(names, ["density", "velocity", "pressure", "mach"], "{f}");
        for (name, ncomp, values) in &arrays {
            assert_eq!(values.len(), cells * ncomp, "{f}: {name}");
            assert!(values.iter().all(|v| v.is_finite()), "{f}: {name}");
        }
    }
    // VTK itself opens the last one.
    let script = "import sys, vtk\nr = vtk.vtkXMLImageDataReader()\nr.SetFileName(sys.argv[1])\nr.Update()\nprint(r.GetOutput().GetCellData().GetArray('density').GetNumberOfTuples())\n";
    if let Some(text) = common::vtk_python(script, &out.join(files.last().unwrap())) {
        assert_eq!(text.trim(), cells.to_string());
    }
    // Nothing half-written is left, and every frame file on disk is listed.
    for e in std::fs::read_dir(out).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with(".tmp"), "a temporary file was left: {name}");
        if name.ends_with(".vti") {
            assert!(files.contains(&name), "{name} is on disk but not in the .pvd");
        }
    }
    files.len()
}

/// Wait for a few frames, then interrupt the run (SIGINT) while a frame is being written (its
/// temporary file is there), or at the latest after 60 s; whether it was mid-write.
fn interrupt_mid_write(child: &mut std::process::Child, out: &Path, pvd: &Path) -> bool {
    let t = Instant::now();
    let mut sent_mid_write = false;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended before it was interrupted: {status}");
        }
        let frames = listed(pvd).len();
        let writing = std::fs::read_dir(out)
            .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with(".tmp")))
            .unwrap_or(false);
        if frames >= 3 && writing {
            sent_mid_write = true;
            break;
        }
        if t.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    sent_mid_write
}

#[test]
fn sigint_mid_write_leaves_every_listed_file_readable() {
    let dir = tempfile::tempdir().unwrap();
    let case = case(dir.path());
    let out = dir.path().join("out");
    let pvd = out.join("euler-riemann-2d.pvd");
    let mut child = Command::new(env!("CARGO_BIN_EXE_solver"))
        .args(["run", case.to_str().unwrap(), "--backend", "cpu", "-q", "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sent_mid_write = interrupt_mid_write(&mut child, &out, &pvd);
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted at step"), "{stderr}");
    let n = assert_series_opens(&out, &pvd, 320 * 320);
    // The steps run so far are summarised, marked as interrupted at the step the message names.
    let step: u64 = stderr
        .split("interrupted at step ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let summary = common::summary(&out);
    assert_eq!(summary["interrupted_at_step"], step, "{summary}");
    assert_eq!(summary["steps"], step, "{summary}");
    assert!(
        summary["stop_reason"].as_str().unwrap().contains("--restart"),
        "{summary}"
    );
    eprintln!(
        "interrupted {} a write; {n} frames listed, all readable",
        if sent_mid_write { "during" } else { "outside" }
    );
    // The checkpoint continues the run to its end, and the series still opens.
    let o = Command::new(env!("CARGO_BIN_EXE_solver"))
        .args([
            "run",
            case.to_str().unwrap(),
            "--backend",
            "cpu",
            "-q",
            "--restart",
            "--set",
            "output.every=40",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(assert_series_opens(&out, &pvd, 320 * 320) > n);
    // The finished run's summary replaces the interrupted one's.
    let finished = common::summary(&out);
    assert!(finished.get("interrupted_at_step").is_none(), "{finished}");
}

#[test]
fn a_frame_that_cannot_be_written_stops_the_run_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let case = case(dir.path());
    let out = dir.path().join("out");
    // A folder where the third frame's file should go: the rename onto it fails (also as root).
    std::fs::create_dir_all(out.join("step_0000002.vti").join("x")).unwrap();
    let o = common::run_cpu(&case, &out, &["--set", "time.end_time=0.01"]);
    let stderr = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("step_0000002.vti"), "{stderr}");
    // The frames before it are complete and listed.
    let files = listed(&out.join("euler-riemann-2d.pvd"));
    assert_eq!(files, ["step_0000000.vti", "step_0000001.vti"], "{stderr}");
}
