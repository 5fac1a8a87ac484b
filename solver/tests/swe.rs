//! Shallow water (CPU): a lake at rest over an emerging bump stays exactly at rest for 10,000
//! steps, the dam breaks and Thacker's oscillation converge to their exact solutions, water and
//! pollutant are conserved in a closed tank, bad input is refused.

mod common;

use common::{run_cpu, run_template, sets, stderr, summary, vtk_python};

/// Run a template on the CPU with overrides; its output folder and summary.json.
fn run(dir: &std::path::Path, template: &str, sets: &[String]) -> (std::path::PathBuf, serde_json::Value) {
    let out = run_template(dir, template, sets);
    let s = summary(&out);
    (out, s)
}

#[test]
fn a_lake_at_rest_over_an_emerging_bump_stays_at_rest_for_10000_steps() {
    let dir = tempfile::tempdir().unwrap();
    for (precision, bound) in [("f64", 1e-12), ("f32", 1e-6)] {
        let p = format!("run.precision=\"{precision}\"");
        let (_, s) = run(dir.path(), "swe-lake-at-rest", &sets(&["time.end_time=1150.0", &p]));
        let (speed, steps) = (s["errors"]["linf"].as_f64().unwrap(), s["steps"].as_u64().unwrap());
        println!("lake at rest, 1D bump, {precision}, {steps} steps: max |u| = {speed:.3e}");
        assert!(steps >= 10_000 && speed <= bound, "{precision}: {steps} steps, {speed}");
        assert!(s["final_min"].as_f64().unwrap() >= 0.0);
    }
    // A round island on a 2D grid.
    let island = [
        "grid.dims=[50,20,1]",
        "grid.extent=[25.0,10.0,1.0]",
        "shallow-water.initial.island=true",
        "time.end_time=100.0",
    ];
    let (_, s) = run(dir.path(), "swe-lake-at-rest", &sets(&island));
    let (speed, steps) = (s["errors"]["linf"].as_f64().unwrap(), s["steps"].clone());
    println!("lake at rest, 2D island, {steps} steps: max |u| = {speed:.3e}");
    assert!(speed <= 1e-12, "{speed}");
}

/// Relative L1 errors of the depth at three resolutions, each smaller than the last by `ratio`.
fn assert_converges(template: &str, dims: [&str; 3], ratio: f64) {
    let dir = tempfile::tempdir().unwrap();
    let errors: Vec<f64> = dims
        .iter()
        .map(|d| {
            let (_, s) = run(dir.path(), template, &[format!("grid.dims={d}")]);
            assert!(
                s["final_min"].as_f64().unwrap() >= 0.0,
                "{template} {d}: negative depth"
            );
            s["errors"]["l1"].as_f64().unwrap()
        })
        .collect();
    println!("{template}: depth L1 {errors:?}");
    for w in errors.windows(2) {
        assert!(w[0] / w[1] > ratio, "{template}: {errors:?}");
    }
}

/// Stoker (wet bed): L1 6.73e-3, 3.91e-3, 2.28e-3 at 200, 400, 800 cells (ratios 1.72, 1.71).
#[test]
fn stokers_dam_break_converges() {
    assert_converges("swe-dam-break-wet", ["[200,1,1]", "[400,1,1]", "[800,1,1]"], 1.6);
}

/// Ritter (dry bed): L1 1.29e-2, 9.40e-3, 7.06e-3 (ratios 1.37, 1.33): the wet/dry front lags
/// (VALIDATION.md), so the error falls slowly.
#[test]
fn ritters_dam_break_converges() {
    assert_converges("swe-dam-break-dry", ["[200,1,1]", "[400,1,1]", "[800,1,1]"], 1.25);
}

/// Thacker's planar oscillation after one period: L1 0.362, 0.122, 0.0509 on 50^2, 100^2, 200^2.
#[test]
fn thackers_oscillation_converges() {
    assert_converges("swe-thacker", ["[50,50,1]", "[100,100,1]", "[200,200,1]"], 2.0);
}

/// The water column in a closed tank: the sums of h and hC over the cells (VTK's reader) at
/// t = 0 and t = 1 agree to round-off.
#[test]
fn water_and_pollutant_are_conserved_in_a_closed_tank() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run(dir.path(), "swe-column", &sets(&["grid.dims=[60,60,1]"]));
    let script = concat!(
        "import sys, glob, vtk\n",
        "from vtk.util.numpy_support import vtk_to_numpy as n\n",
        "fs = sorted(glob.glob(sys.argv[1] + '/*.vti'))\n",
        "fs = fs[:1] + fs[-1:]\n",
        "rs = [vtk.vtkXMLImageDataReader() for f in fs]\n",
        "_ = [(r.SetFileName(f), r.Update()) for r, f in zip(rs, fs)]\n",
        "ds = [r.GetOutput().GetCellData() for r in rs]\n",
        "hs = [n(d.GetArray('depth')) for d in ds]\n",
        "cs = [n(d.GetArray('concentration')) for d in ds]\n",
        "_ = [print(repr(float(h.sum())), repr(float((h * c).sum()))) for h, c in zip(hs, cs)]\n",
    );
    let Some(text) = vtk_python(script, &out) else { return };
    let sums: Vec<Vec<f64>> = text
        .lines()
        .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
        .collect();
    let (water, pollutant) = (
        (sums[1][0] - sums[0][0]) / sums[0][0],
        (sums[1][1] - sums[0][1]) / sums[0][1],
    );
    println!("closed tank, t = 1: water {water:.2e}, pollutant {pollutant:.2e} relative change");
    assert!(water.abs() < 1e-13 && pollutant.abs() < 1e-12, "{water} {pollutant}");
}

#[test]
fn bad_input_is_refused_naming_the_key_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "swe-column",
            "shallow-water.initial.height=-2.0",
            "negative initial depth",
        ),
        (
            "swe-dam-break-dry",
            "shallow-water.initial.left=-0.1",
            "depths must be positive",
        ),
        (
            "swe-thacker",
            "shallow-water.gravity=0.0",
            "shallow-water.gravity: must be positive",
        ),
        ("swe-thacker", "time.cfl=1.5", "time.cfl"),
        ("swe-thacker", "grid.dims=[10,10,10]", "grid.dims"),
    ];
    for (template, set, needle) in cases {
        common::assert_refused(dir.path(), template, set, needle);
    }
}

/// A bay with an island from an ESRI ASCII grid (bed elevations; the island above the still
/// water) stays at rest; a file with a hole or the wrong size is refused, naming it.
#[test]
fn still_water_over_a_bathymetry_file_stays_at_rest_and_bad_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny) = (24, 12);
    let mut asc = format!("ncols {nx}\nnrows {ny}\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n");
    for j in (0..ny).rev() {
        let row: Vec<String> = (0..nx)
            .map(|i| {
                let (x, y) = (i as f64 * 10.0 + 5.0, j as f64 * 10.0 + 5.0);
                let island = 3.0 - ((x - 120.0).powi(2) + (y - 60.0).powi(2)) / 400.0;
                format!("{:.3}", island.max(-2.0 - 0.01 * x))
            })
            .collect();
        asc.push_str(&row.join(" "));
        asc.push('\n');
    }
    std::fs::write(dir.path().join("bay.asc"), &asc).unwrap();
    let bay = [
        "shallow-water.initial={ kind = \"still-water\", level = 0.0, bathymetry = \"bay.asc\" }".to_string(),
        format!("grid.dims=[{nx},{ny},1]"),
        "grid.extent=[240.0,120.0,1.0]".to_string(),
        "time.end_time=200.0".to_string(),
    ];
    let (_, s) = run(dir.path(), "swe-lake-at-rest", &bay);
    let speed = s["errors"]["linf"].as_f64().unwrap();
    println!(
        "still water over a bathymetry file with an island, {} steps: max |u| = {speed:.3e}",
        s["steps"]
    );
    assert!(speed <= 1e-12, "{speed}");
    assert!(s["final_min"].as_f64().unwrap() == 0.0, "the island is dry");

    let case = dir.path().join("swe-lake-at-rest.toml");
    let refused = |file_text: &str, set: &[String], needle: &str| {
        std::fs::write(dir.path().join("bay.asc"), file_text).unwrap();
        let extra: Vec<&str> = set.iter().flat_map(|s| ["--set", s.as_str()]).collect();
        let out = dir.path().join("refused");
        let o = run_cpu(&case, &out, &extra);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{needle}: {}", stderr(&o));
        assert!(!out.exists());
    };
    refused(&asc.replacen("-2.050", "NaN", 1), &bay, "bay.asc line");
    refused(&asc.replacen("ncols 24", "nclos 24", 1), &bay, "no `ncols`");
    let mut small = bay.clone();
    small[1] = "grid.dims=[20,12,1]".into();
    refused(&asc, &small, "set grid.dims = [24, 12, 1]");
}
