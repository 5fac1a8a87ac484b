//! Helpers shared by the solver's integration tests.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::Path;
use std::process::{Command, Output};

/// The solver binary with these arguments.
pub fn solver(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_solver")).args(args).output().unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run a Python script with VTK's own readers on `file`; its standard output. None (with a
/// visible SKIPPED) where python3-vtk9 is missing, which CI does not allow.
pub fn vtk_python(script: &str, file: &Path) -> Option<String> {
    let py = "/usr/bin/python3";
    if !Command::new(py)
        .args(["-c", "import vtk"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(std::env::var_os("CI").is_none(), "python3-vtk9 is required under CI");
        eprintln!("SKIPPED: VTK read-back (python3-vtk9 missing; scripts/setup.sh installs it)");
        return None;
    }
    let o = Command::new(py).args(["-c", script]).arg(file).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The arguments of `solver run CASE --backend cpu -q -o OUT`, then `extra`, then one `--set`
/// per override.
pub fn cpu_run_args<'a, S: AsRef<str>>(
    case: &'a Path,
    out: &'a Path,
    extra: &[&'a str],
    sets: &'a [S],
) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        case.to_str().unwrap(),
        "--backend",
        "cpu",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    a.extend_from_slice(extra);
    for s in sets {
        a.extend(["--set", s.as_ref()]);
    }
    a
}

/// `solver run CASE --backend cpu -q -o OUT` with more arguments.
pub fn run_cpu(case: &Path, out: &Path, extra: &[&str]) -> Output {
    solver(&cpu_run_args::<&str>(case, out, extra, &[]))
}

/// The template's text written to DIR/TEMPLATE.toml.
pub fn write_template(dir: &Path, template: &str) -> std::path::PathBuf {
    let case = dir.join(format!("{template}.toml"));
    std::fs::write(&case, solver(&["cases", template]).stdout).unwrap();
    case
}

/// Run a template on the CPU with overrides, asserting success; its output folder (named
/// after the overrides, so runs of one test do not overwrite each other).
pub fn run_template(dir: &Path, template: &str, sets: &[String]) -> std::path::PathBuf {
    let case = write_template(dir, template);
    let out = dir.join(format!(
        "out-{template}-{}",
        sets.join("-").replace(['/', '"', '=', '[', ']', ','], "_")
    ));
    let extra: Vec<&str> = sets.iter().flat_map(|s| ["--set", s.as_str()]).collect();
    let o = run_cpu(&case, &out, &extra);
    assert!(o.status.success(), "{template} {sets:?}: {}", stderr(&o));
    out
}

/// A run's summary.json.
pub fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Overrides from string literals.
pub fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// Run `template` on the CPU with one bad override: exit 2, `needle` in the message, nothing
/// written.
pub fn assert_refused(dir: &Path, template: &str, set: &str, needle: &str) {
    let case = write_template(dir, template);
    let out = dir.join("out");
    let o = run_cpu(&case, &out, &["--set", set]);
    assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
    assert!(stderr(&o).contains(needle), "{set}: {}", stderr(&o));
    assert!(!out.exists(), "{set}: output written");
}

/// The VTK image files of an output folder, by name.
pub fn vti_files(out: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vti"))
        .collect();
    v.sort();
    v
}

/// The cell array `name` of the last VTU of a run's series.
pub fn last_cell_array(out: &Path, name: &str) -> Vec<f64> {
    let mut files: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vtu"))
        .collect();
    files.sort();
    let vtk = vtkio::Vtk::import(files.last().unwrap()).unwrap();
    let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not a VTU")
    };
    let piece = pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap();
    piece
        .data
        .cell
        .into_iter()
        .find_map(|a| match a {
            vtkio::model::Attribute::DataArray(d) if d.name == name => d.data.cast_into::<f64>(),
            _ => None,
        })
        .unwrap()
}
