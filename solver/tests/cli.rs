//! The solver as users and scripts drive it: bad case files, divergence, VTK output that VTK's
//! own reader opens, summary.json, restart, and the GPU checks (skipped without a device).

mod common;

use common::{solver, stderr};

use std::path::{Path, PathBuf};

fn template(dir: &Path, name: &str) -> PathBuf {
    let o = solver(&["cases", name]);
    assert!(o.status.success());
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(&p, &o.stdout).unwrap();
    p
}

/// `solver cases` lists every registered template with its line, `solver cases NAME` prints its
/// text, and each template on a structured grid (no mesh file to read) parses; the conformance
/// test runs every template.
#[test]
fn every_template_is_listed_and_printed_and_the_grid_templates_parse() {
    let o = solver(&["cases"]);
    let list = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = list.lines().collect();
    let all: Vec<_> = solver::cases::FAMILIES.iter().flat_map(|f| f.templates()).collect();
    assert_eq!(lines.len(), all.len(), "{list}");
    for (line, t) in lines.iter().zip(&all) {
        assert_eq!(*line, format!("{:<22} {}", t.name, t.about));
        let dir = tempfile::tempdir().unwrap();
        let p = template(dir.path(), t.name);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), t.text, "{}", t.name);
        let doc = solver::framework::CaseDoc::load(&p, &[]).unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let table: toml::Table = toml::from_str(t.text).unwrap();
        if !table.contains_key("mesh") {
            solver::framework::case::parse_setup(&doc, solver::cases::FAMILIES)
                .unwrap_or_else(|e| panic!("{}: {e}", t.name));
        }
    }
}

fn bad_case(text_edit: impl Fn(String) -> String, set: &[&str], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let p = template(dir.path(), "heat-decay");
    let text = text_edit(std::fs::read_to_string(&p).unwrap());
    std::fs::write(&p, text).unwrap();
    let mut args = vec!["run", p.to_str().unwrap(), "--backend", "cpu", "-q", "-o"];
    let out = dir.path().join("out");
    args.push(out.to_str().unwrap());
    for s in set {
        args.push("--set");
        args.push(s);
    }
    let o = solver(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains(needle), "expected '{needle}' in: {e}");
    assert!(e.contains("heat-decay.toml"), "names the file: {e}");
}

#[test]
fn unknown_key_names_it_and_suggests_the_nearest() {
    bad_case(|t| t.replace("alpha = 0.1", "alpah = 0.1"), &[], "did you mean `alpha`");
}

#[test]
fn wrong_type_names_the_line() {
    bad_case(|t| t.replace("cfl = 0.2", "cfl = \"fast\""), &[], "line 17");
}

#[test]
fn negative_cfl_names_the_key() {
    bad_case(|t| t, &["time.cfl=-0.4"], "time.cfl");
}

#[test]
fn missing_grid_file_names_the_key() {
    bad_case(
        |t| t.replace("dims = [32, 32, 32]", "file = \"nowhere.grid.toml\""),
        &[],
        "grid.file",
    );
}

#[test]
fn diverging_run_stops_with_a_message_and_keeps_the_last_output() {
    let dir = tempfile::tempdir().unwrap();
    let p = template(dir.path(), "heat-benchmark");
    let out = dir.path().join("out");
    let o = solver(&[
        "run",
        p.to_str().unwrap(),
        "--backend",
        "cpu",
        "-q",
        "-o",
        out.to_str().unwrap(),
        "--set",
        "grid.dims=[16,16,16]",
        "--set",
        "time.cfl=5",
        "--set",
        "output.every=10",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("diverged at step") && e.contains("time.cfl"), "{e}");
    // Outputs before the blow-up are intact and listed; nothing after it was written.
    let pvd = std::fs::read_to_string(out.join("heat-benchmark.pvd")).unwrap();
    assert!(pvd.contains("step_0000000.vti") && pvd.contains("step_0000010.vti"));
    assert!(!out.join("summary.json").exists());
}

#[test]
fn heat_run_writes_summary_and_a_series_vtk_reads() {
    let dir = tempfile::tempdir().unwrap();
    let p = template(dir.path(), "heat-decay");
    let out = dir.path().join("out");
    let o = solver(&[
        "run",
        p.to_str().unwrap(),
        "--backend",
        "cpu",
        "-q",
        "-o",
        out.to_str().unwrap(),
        "--set",
        "grid.dims=[16,12,10]",
        "--set",
        "output.every=10",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for key in [
        "backend",
        "device",
        "precision",
        "steps",
        "wall_seconds",
        "cells",
        "throughput",
    ] {
        assert!(!s[key].is_null(), "summary lacks {key}: {s}");
    }
    assert_eq!(s["backend"], "cpu");
    assert_eq!(s["cells"], 16 * 12 * 10);
    assert!(s["errors"]["l2"].as_f64().unwrap() < 1e-4, "{s}");

    let script = r#"
import sys, os, vtk
import xml.etree.ElementTree as ET
pvd = sys.argv[1]
files = [d.get('file') for d in ET.parse(pvd).getroot().iter('DataSet')]
for f in files:
    r = vtk.vtkXMLImageDataReader()
    r.SetFileName(os.path.join(os.path.dirname(pvd), f))
    r.Update()
    o = r.GetOutput()
    pd = o.GetPointData()
    print(f, o.GetDimensions(), pd.GetNumberOfArrays(), pd.GetArrayName(0), o.GetNumberOfPoints())
"#;
    let Some(text) = common::vtk_python(script, &out.join("heat-decay.pvd")) else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 3, "{text}");
    for l in lines {
        assert!(l.contains("(16, 12, 10) 1 phi 1920"), "{l}");
    }
}

#[test]
fn restart_is_bit_identical_on_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let p = template(dir.path(), "heat-benchmark");
    let p = p.to_str().unwrap();
    let common = [
        "--backend",
        "cpu",
        "-q",
        "--set",
        "grid.dims=[16,16,16]",
        "--set",
        "output.every=10",
    ];
    let full = dir.path().join("full");
    let part = dir.path().join("part");
    let run = |out: &Path, extra: &[&str]| {
        let mut a = vec!["run", p, "-o", out.to_str().unwrap()];
        a.extend_from_slice(&common);
        a.extend_from_slice(extra);
        let o = solver(&a);
        assert!(o.status.success(), "{}", stderr(&o));
    };
    run(&full, &["--set", "time.steps=20"]);
    run(
        &part,
        &["--set", "time.steps=10", "--set", "output.checkpoint_every=10"],
    );
    run(&part, &["--set", "time.steps=20", "--restart"]);
    let a = std::fs::read(full.join("step_0000020.vti")).unwrap();
    let b = std::fs::read(part.join("step_0000020.vti")).unwrap();
    assert!(a == b, "restarted run differs from the uninterrupted one");
    // A checkpoint of a different run is refused, naming what changed.
    for (set, key) in [
        ("time.cfl=0.3", "time.dt (resolved)"),
        ("heat.alpha=0.2", "heat.alpha: 0.1 -> 0.2"),
        ("heat.boundary.y=\"periodic\"", "heat.boundary.y"),
        ("run.precision=f32", "run.precision"),
    ] {
        let mut a = vec!["run", p, "-o", part.to_str().unwrap(), "--restart"];
        a.extend_from_slice(&common);
        a.extend_from_slice(&["--set", set, "--set", "time.steps=30"]);
        let o = solver(&a);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(key), "{set}: {}", stderr(&o));
    }
}

#[test]
fn devices_explains_when_there_is_none_and_gpu_checks_run_when_there_is() {
    let o = solver(&["devices"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    if text.starts_with("no CUDA devices") {
        eprintln!("SKIPPED: GPU checks ({})", text.trim());
        // Asking for CUDA explicitly is a clear error, not a panic.
        let dir = tempfile::tempdir().unwrap();
        let p = template(dir.path(), "heat-decay");
        let o = solver(&[
            "run",
            p.to_str().unwrap(),
            "--backend",
            "cuda",
            "-q",
            "-o",
            dir.path().join("o").to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("CUDA"), "{}", stderr(&o));
        return;
    }
    let o = solver(&["check", "heat", "--steps", "50"]);
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
}

#[test]
fn validation_templates_match_their_exact_solutions() {
    // (template, relative Linf bound): erfc within 1e-4 of the series;
    // the Gaussian and the decaying mode far tighter.
    for (name, bound) in [("heat-erfc", 1e-4), ("heat-gaussian", 2e-6), ("heat-decay", 2e-9)] {
        let dir = tempfile::tempdir().unwrap();
        let p = template(dir.path(), name);
        let out = dir.path().join("out");
        let o = solver(&[
            "run",
            p.to_str().unwrap(),
            "--backend",
            "cpu",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
        let linf = s["errors"]["linf"].as_f64().unwrap();
        println!("{name}: relative Linf error {linf:.3e} (bound {bound:e})");
        assert!(linf < bound, "{name}: {linf}");
    }
}

/// `solver signals` on a forces.csv that is not one: the file, the line and what is wrong,
/// exit 2; a window with no rows says how to choose one.
#[test]
fn signals_of_a_bad_forces_file_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("forces.csv");
    let head = "time,step,cd,cl\n0,0,1,0\n0.5,1,1.1,0.1\n";
    let cases = [
        ("time,step,cl\n0,0,1\n", "line 1: no 'cd' column"),
        (&*format!("{head}1,2,x,0\n"), "line 4: 'x' in column cd is not a number"),
        (
            &*format!("{head}1,2,1\n"),
            "line 4: 3 values where the header has 4 columns",
        ),
        (
            &*format!("{head}0.5,2,1,0\n"),
            "line 4: time 0.5 does not follow the previous row's 0.5",
        ),
    ];
    for (text, needle) in cases {
        std::fs::write(&f, text).unwrap();
        let o = solver(&["signals", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{needle}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(needle) && stderr(&o).contains("forces.csv"),
            "{}",
            stderr(&o)
        );
    }
    std::fs::write(&f, head).unwrap();
    // A gzipped copy reads the same.
    let gz = dir.path().join("forces.csv.gz");
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), Default::default());
    std::io::Write::write_all(&mut enc, head.as_bytes()).unwrap();
    enc.finish().unwrap();
    let read = |p: &Path| solver(&["signals", p.to_str().unwrap(), "--from", "0"]);
    let (plain, zipped) = (read(&f), read(&gz));
    assert!(
        plain.status.success() && plain.stdout == zipped.stdout,
        "{}",
        stderr(&zipped)
    );
    let o = solver(&["signals", f.to_str().unwrap(), "--from", "3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("choose --from and --to inside the series"),
        "{}",
        stderr(&o)
    );
    let o = solver(&["signals", f.to_str().unwrap(), "--length", "0"]);
    assert!(
        o.status.code() == Some(2) && stderr(&o).contains("--length"),
        "{}",
        stderr(&o)
    );
    let o = solver(&["signals", dir.path().join("none.csv").to_str().unwrap()]);
    assert!(
        o.status.code() != Some(0) && stderr(&o).contains("none.csv"),
        "{}",
        stderr(&o)
    );
}

/// An f32 run writes its fields as Float32 (the same values, half the bytes), an f64 run as
/// Float64, and `output.precision` overrides either; a bad value names the key.
#[test]
fn fields_are_written_in_the_runs_precision_unless_output_precision_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let p = template(dir.path(), "heat-decay");
    let run = |tag: &str, sets: &[&str]| -> PathBuf {
        let out = dir.path().join(tag);
        let sets: Vec<&str> = ["time.end_time=0.01"].iter().chain(sets).copied().collect();
        let o = solver(&common::cpu_run_args(&p, &out, &[], &sets));
        assert!(o.status.success(), "{tag}: {}", stderr(&o));
        common::vti_files(&out).pop().expect("a .vti frame")
    };
    // The type="..." of every data array.
    let types = |vti: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(vti).unwrap();
        let type_of = |t: &str| {
            t.split_once("type=\"")
                .and_then(|(_, r)| r.split_once('"'))
                .map(|(v, _)| v.to_string())
        };
        text.split("<DataArray ").skip(1).map(|t| type_of(t).unwrap()).collect()
    };
    let single = run("f32", &["run.precision=\"f32\""]);
    let widened = run("f32-as-f64", &["run.precision=\"f32\"", "output.precision=\"f64\""]);
    let double = run("f64", &[]);
    let narrowed = run("f64-as-f32", &["output.precision=\"f32\""]);
    for (vti, want) in [
        (&single, "Float32"),
        (&widened, "Float64"),
        (&double, "Float64"),
        (&narrowed, "Float32"),
    ] {
        let t = types(vti);
        assert!(!t.is_empty() && t.iter().all(|t| t == want), "{}: {t:?}", vti.display());
    }
    // An f32 run's values lose nothing in Float32.
    let a = common::vtk_arrays(&single).unwrap();
    let b = common::vtk_arrays(&widened).unwrap();
    assert_eq!(a, b);
    assert!(a.iter().all(|(_, _, v)| !v.is_empty()));
    let size = |f: &Path| std::fs::metadata(f).unwrap().len();
    assert!(
        size(&single) < size(&widened),
        "{} against {}",
        size(&single),
        size(&widened)
    );
    // f64 values narrowed: each the nearest f32.
    let (c, d) = (
        common::vtk_arrays(&double).unwrap(),
        common::vtk_arrays(&narrowed).unwrap(),
    );
    for ((_, _, x), (_, _, y)) in c.iter().zip(&d) {
        assert!(x.iter().zip(y).all(|(x, y)| (*x as f32) as f64 == *y));
    }
    bad_case(|t| t, &["output.precision=\"f16\""], "output.precision");
}
