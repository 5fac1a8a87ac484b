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
fn assert_converges(template: &str, dims: [&str; 3], ratio: f64) -> Vec<f64> {
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
    errors
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

/// Thacker's planar oscillation after one period: L1 0.276, 0.118, 0.0500 on 50^2, 100^2,
/// 200^2 (ratios 2.35, 2.35). Before the water moved at its donors' shares (a draining cell
/// gives at most what it holds, and its edges' momentum with it; earlier its depth went below
/// zero and was clipped, adding water) they were 0.362, 0.122, 0.0509: each must stay below.
#[test]
fn thackers_oscillation_converges() {
    let errors = assert_converges("swe-thacker", ["[50,50,1]", "[100,100,1]", "[200,200,1]"], 2.0);
    for (e, before) in errors.iter().zip([0.362, 0.122, 0.0509]) {
        assert!(*e < before, "{errors:?}");
    }
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
/// water) stays at rest, read directly or through `meshtool generate grid --bathymetry`; a file
/// with a hole or the wrong size is refused, naming it.
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

    the_grid_files_bathymetry_gives_the_same_run(dir.path(), [nx, ny], &bay);

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

/// The bed of `bay.asc` in `dir` through `meshtool generate grid --bathymetry bay.asc` (sampled
/// at the cell centres into the grid file) gives the same run as the file itself, file for file;
/// neither a file nor a grid file with a bathymetry is refused, saying how to make one.
fn the_grid_files_bathymetry_gives_the_same_run(dir: &std::path::Path, [nx, ny]: [usize; 2], bay: &[String]) {
    // The same bed through `meshtool generate grid --bathymetry bay.asc` (sampled at the cell
    // centres into the grid file): the same run, file for file.
    let esri = meshtool::generate::grid::EsriGrid::read(&dir.join("bay.asc")).unwrap();
    let mut g = meshtool::generate::grid::GridSpec::new([0.0; 3], [240.0, 120.0, 1.0], [nx, ny, 1]).unwrap();
    meshtool::generate::grid::attach_bathymetry(&mut g, &esri, "bay.asc").unwrap();
    std::fs::write(dir.join("bay.grid.toml"), g.to_toml()).unwrap();
    let text = std::fs::read_to_string(dir.join("swe-lake-at-rest.toml")).unwrap();
    let text = text.replace("[grid]", "[grid]\nfile = \"bay.grid.toml\"");
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("dims") && !l.starts_with("extent"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.join("from-grid-file.toml"), text).unwrap();
    let (from_asc, from_grid) = (dir.join("from-asc"), dir.join("from-grid"));
    let still = [
        "--set",
        "shallow-water.initial={ kind = \"still-water\", level = 0.0 }",
        "--set",
        "time.end_time=200.0",
    ];
    let o = run_cpu(&dir.join("from-grid-file.toml"), &from_grid, &still);
    assert!(o.status.success(), "{}", stderr(&o));
    let extra: Vec<&str> = bay.iter().flat_map(|s| ["--set", s.as_str()]).collect();
    assert!(run_cpu(&dir.join("swe-lake-at-rest.toml"), &from_asc, &extra)
        .status
        .success());
    let last = |d: &std::path::Path| std::fs::read(common::vti_files(d).last().unwrap()).unwrap();
    assert!(
        last(&from_asc) == last(&from_grid),
        "the grid file's bathymetry gives the same run"
    );
    // Neither a file nor a grid file with a bathymetry: refused, saying how to make one.
    let o = run_cpu(&dir.join("swe-lake-at-rest.toml"), &dir.join("none"), &still);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("meshtool generate grid --bathymetry"),
        "{}",
        stderr(&o)
    );
}

/// `solver run CASE --backend cpu` without -q (the totals at each output go to stderr) with
/// overrides: the printed (t, water) pairs.
fn water_at_outputs(case: &std::path::Path, out: &std::path::Path, sets: &[String]) -> Vec<(f64, f64)> {
    let mut args = vec![
        "run",
        case.to_str().unwrap(),
        "--backend",
        "cpu",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(sets.iter().flat_map(|s| ["--set", s.as_str()]));
    let o = common::solver(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    stderr(&o)
        .lines()
        .filter_map(|l| {
            let (t, rest) = l.strip_prefix("t = ")?.split_once(": water ")?;
            Some((t.parse().ok()?, rest.split(',').next()?.parse().ok()?))
        })
        .collect()
}

/// A flat channel 1000 m long and 2 m deep, closed but for its side x-, where the level
/// follows a CSV (a slow tide eta = 0.25 (1 - cos(2 pi t / T)), T = 40000 s, sampled every
/// 500 s, linear between): its mean level (water / area - depth) follows the CSV's level. For a
/// basin short beside the tide's wavelength (k L = 2 pi L / (T sqrt(g d)) = 0.035) the level is
/// a standing wave eta(x) = eta0 cos(k (L - x)) / cos(k L) about the mean, whose average over
/// the basin exceeds eta0 by (k L)^2 / 3 = 4.2e-4 of the oscillating part's 0.25 m: 1.05e-4 m.
/// The kinks of the linear series excite free seiches (period 4 L / sqrt(g d) = 903 s) of
/// about as much: the bound is 2.5e-4 m, 0.05% of the range (measured: 1.3e-4 m).
#[test]
fn a_slow_tide_fills_and_empties_a_basin_through_its_open_side_as_the_csv_says() {
    let dir = tempfile::tempdir().unwrap();
    let tide: String = (0..=80)
        .map(|k| {
            let t = 500.0 * k as f64;
            format!(
                "{t},{:.6}\n",
                0.25 * (1.0 - (2.0 * std::f64::consts::PI * t / 40000.0).cos())
            )
        })
        .collect();
    std::fs::write(
        dir.path().join("tide.csv"),
        format!("# a slow tide\ntime,level\n{tide}"),
    )
    .unwrap();
    let series = solver::cases::swe::series::parse("tide.csv", &tide).unwrap();
    let case = common::write_template(dir.path(), "swe-column");
    let sets = sets(&[
        "shallow-water.initial={kind=\"column\",depth=2.0,height=0.0,center=[0.0,0.0],radius=1.0}",
        "shallow-water.pollutant=[]",
        "shallow-water.open=[{side=\"x-\",level=\"tide.csv\"}]",
        "grid.dims=[100,1,1]",
        "grid.extent=[1000.0,1.0,1.0]",
        "time.end_time=40000.0",
        "output.interval=1000.0",
    ]);
    let outputs = water_at_outputs(&case, &dir.path().join("out"), &sets);
    assert_eq!(outputs.len(), 40);
    let worst = outputs
        .iter()
        .map(|&(t, water)| (water / 1000.0 - 2.0 - series.at(t)).abs())
        .fold(0.0f64, f64::max);
    let (t, w) = outputs[19];
    println!(
        "slow tide over 0.5 m: mean level {:.6} m at t = {t} s (csv {:.6}); worst |mean level - csv| = {worst:.2e} m",
        w / 1000.0 - 2.0,
        series.at(t)
    );
    assert!(worst < 2.5e-4, "{worst}");
}

/// Sources in a closed tank add Q t of water (and Q C t of pollutant) to round-off: the totals
/// of summary.json, the sources' own count too.
#[test]
fn point_sources_add_exactly_q_t_of_water_and_q_c_t_of_pollutant() {
    let dir = tempfile::tempdir().unwrap();
    let (_, s) = run(
        dir.path(),
        "swe-column",
        &sets(&[
            "grid.dims=[60,60,1]",
            "shallow-water.sources=[{at=[2.0,2.0],discharge=0.5,concentration=2.0},{at=[8.0,3.0],discharge=0.25}]",
        ]),
    );
    let total = |k: &str, when: &str| s["totals"][k][when].as_f64().unwrap();
    let (water, pollutant) = (
        total("water", "end") - total("water", "start"),
        total("pollutant", "end") - total("pollutant", "start"),
    );
    println!(
        "sources over 1 s: water added {water:.15} (Q t = 0.75), pollutant {pollutant:.15} (Q C t = 1), sources' count {}",
        total("water_sources", "end")
    );
    // Round-off of sums of 3600 depths near 1 m times the cell area: about 1e-14 of 103 m^3.
    let bound = 1e-12 * total("water", "start");
    assert!((water - 0.75).abs() < bound, "{water}");
    assert!((pollutant - 1.0).abs() < bound, "{pollutant}");
    assert!((total("water_sources", "end") - 0.75).abs() < 1e-14);
}

/// Still water stays still with a constant-level open side (a number or a CSV) at its level:
/// the ghosts hold what the wall would.
#[test]
fn a_lake_at_rest_stays_at_rest_with_constant_level_open_sides() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("level.csv"), "time,level\n0,0.1\n50,0.1\n").unwrap();
    for (precision, bound) in [("f64", 1e-12), ("f32", 1e-6)] {
        let (_, s) = run(
            dir.path(),
            "swe-lake-at-rest",
            &sets(&[
                "grid.dims=[50,20,1]",
                "grid.extent=[25.0,10.0,1.0]",
                "shallow-water.initial.island=true",
                "shallow-water.open=[{side=\"x-\",level=0.1},{side=\"x+\",level=\"level.csv\"},{side=\"y-\",level=0.1}]",
                "time.end_time=200.0",
                &format!("run.precision=\"{precision}\""),
            ]),
        );
        let speed = s["errors"]["linf"].as_f64().unwrap();
        let inflow = s["totals"]["water_open_inflow"]["end"].as_f64().unwrap();
        println!("lake at rest, open sides at its level, {precision}, {} steps: max |u| = {speed:.3e}, inflow {inflow:.3e} m^3", s["steps"]);
        assert!(speed <= bound, "{precision}: {speed}");
    }
}

/// Bad series files and bad forcing keys: exit 2, the file and line (or key) named, nothing
/// written.
#[test]
fn bad_tide_files_and_sources_are_refused_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "swe-column");
    let refused = |csv: Option<&str>, set: &str, needle: &str| {
        if let Some(text) = csv {
            std::fs::write(dir.path().join("tide.csv"), text).unwrap();
        }
        let out = dir.path().join("refused");
        let o = run_cpu(&case, &out, &["--set", set]);
        assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{needle}: {}", stderr(&o));
        assert!(!out.exists(), "{set}: output written");
    };
    let open = "shallow-water.open=[{side=\"x-\",level=\"tide.csv\"}]";
    refused(
        Some("time,level\n0,0.1\n10,high\n"),
        open,
        "tide.csv line 3: `high` is not a number",
    );
    refused(
        Some("0,0.1\n10,0.2\n10,0.3\n"),
        open,
        "tide.csv line 3: time 10 does not increase",
    );
    refused(Some("# empty\ntime,level\n"), open, "tide.csv: no `time,value` lines");
    refused(Some("0,0.1,7\n"), open, "tide.csv line 1: 3 fields");
    refused(
        None,
        "shallow-water.open=[{side=\"x-\",level=\"missing.csv\"}]",
        "missing.csv: cannot read",
    );
    refused(
        None,
        "shallow-water.open=[{side=\"x-\",level=\"builtin:nope.csv\"}]",
        "no such built-in file",
    );
    refused(None, "shallow-water.open=[{side=\"z-\",level=0.1}]", "open[0].side");
    refused(
        None,
        "shallow-water.open=[{side=\"x-\"}]",
        "give `level`, `discharge` or both",
    );
    refused(
        None,
        "shallow-water.sources=[{at=[12.0,2.0],discharge=1.0}]",
        "sources[0].at: [12.0, 2.0] is outside the grid",
    );
    refused(
        None,
        "shallow-water.sources=[{at=[2.0,2.0],discharge=-1.0}]",
        "cannot take it away",
    );
}

/// The estuary template as a user runs it (`solver cases swe-estuary > e.toml && solver run
/// e.toml`, its files built in), one hour of tide: h never negative, the water's change is the
/// river's plus the sea side's inflow.
#[test]
fn the_estuary_template_runs_from_any_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (_, s) = run(
        dir.path(),
        "swe-estuary",
        &sets(&["time.end_time=3600.0", "output.interval=1800.0"]),
    );
    let total = |k: &str| s["totals"][k]["end"].as_f64().unwrap();
    println!(
        "estuary, 1 h: {} steps, water {:.6e} m^3 (+{:.4e}), river {:.4e}, sea inflow {:.4e}, clipped {:.3e}, pollutant change {:.3e}",
        s["steps"],
        total("water"),
        total("water") - s["totals"]["water"]["start"].as_f64().unwrap(),
        total("water_sources"),
        total("water_open_inflow"),
        total("water_clipped"),
        s["totals"]["pollutant"]["relative_change"].as_f64().unwrap()
    );
    assert!(s["final_min"].as_f64().unwrap() >= 0.0);
    assert!(total("water_open_inflow") > 0.0, "the tide rises for the first 3 hours");
}
