//! Incompressible Navier-Stokes on tetrahedra (CPU): plane Poiseuille flow reaches the exact
//! profile and pressure gradient with divergence-free face fluxes, the DFG template runs, and
//! bad input or a failing run ends with a clear message and the right exit code, keeping the
//! last good output.

mod common;

use common::{run_cpu, stderr};
use meshtool::generate::cartesian_box::{generate, BoxSpec};
use meshtool::pmesh::prepare;
use meshtool::reorder::Reorder;
use solver::backend::Target;
use solver::cases::FAMILIES;
use solver::framework::{Case, CaseDoc, Clock};
use std::path::{Path, PathBuf};

/// A Kuhn box of dims x 6 tetrahedra on [lo, hi] (patches xmin .. zmax).
fn box_mesh(dir: &Path, dims: [usize; 3], hi: [f64; 3]) -> PathBuf {
    let raw = generate(&BoxSpec { dims, lo: [0.0; 3], hi }).unwrap();
    let p = dir.join(format!("box{}x{}x{}.pmesh", dims[0], dims[1], dims[2]));
    prepare(&raw, Reorder::Hilbert).unwrap().0.write(&p).unwrap();
    p
}

/// Plane Poiseuille flow between walls at y = 0 and 1 (symmetry planes at z = 0 and z = hi):
/// the exact profile 4 U y (1 - y) enters through xmin, p = 0 on xmax.
fn poiseuille(mesh: &Path, nu: f64, extra: &str) -> String {
    format!(
        r#"mesh = "{}"
[case]
kind = "navier-stokes"
[time]
cfl = 2.0
steps = 400
[run]
backend = "cpu"
[navier-stokes]
viscosity = {nu}
log_every = 0
{extra}
[navier-stokes.boundary]
xmin = {{ kind = "inlet", profile = "parabolic", u_max = 1.0, across = "y" }}
xmax = {{ kind = "outlet" }}
ymin = {{ kind = "wall" }}
ymax = {{ kind = "wall" }}
zmin = {{ kind = "symmetry" }}
zmax = {{ kind = "symmetry" }}
"#,
        mesh.display()
    )
}

/// Runs a case text to its end (or its steady state) in-process: the final clock, the fields
/// and the family's summary entries.
fn run_case(dir: &Path, text: &str) -> (Clock, Vec<solver::output::Field>, serde_json::Value) {
    let doc = CaseDoc::parse(text, &dir.join("case.toml"), &[]).unwrap();
    let mut case = Case::prepare(&doc, FAMILIES, Target::Cpu).unwrap();
    let mut clock = Clock::default();
    while !case.schedule.done(&clock) && !case.sim.converged() {
        clock = case.advance(&clock).unwrap();
    }
    let fields = case.sim.fields(&clock).unwrap();
    (clock, fields, case.setup.summary())
}

/// Least-squares slope of p against x over the cells with x in [a, b].
fn slope(xs: &[[f64; 3]], p: &[f64], a: f64, b: f64) -> f64 {
    let pts: Vec<(f64, f64)> = xs
        .iter()
        .zip(p)
        .filter(|(x, _)| x[0] > a && x[0] < b)
        .map(|(x, &p)| (x[0], p))
        .collect();
    let n = pts.len() as f64;
    let (mx, mp) = (
        pts.iter().map(|q| q.0).sum::<f64>() / n,
        pts.iter().map(|q| q.1).sum::<f64>() / n,
    );
    let sxy: f64 = pts.iter().map(|q| (q.0 - mx) * (q.1 - mp)).sum();
    let sxx: f64 = pts.iter().map(|q| (q.0 - mx) * (q.0 - mx)).sum();
    sxy / sxx
}

/// Deliverable: steady plane Poiseuille flow on an unstructured (Kuhn) tetrahedral box keeps
/// the exact parabola (max error below 2 % of U inside), the pressure gradient -8 mu U / H^2
/// within 3 %, converges to the steady criterion, and the projected face fluxes are
/// divergence-free to the CG tolerance.
#[test]
fn plane_poiseuille_flow_is_exact_to_the_stated_tolerance() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [16, 8, 2], [2.0, 1.0, 0.25]);
    for fit in ["wide", "local"] {
        poiseuille_holds(dir.path(), &mesh, fit);
    }
}

/// The Poiseuille test's measurements and assertions with the quadratic's `fit`.
fn poiseuille_holds(dir: &Path, mesh: &Path, fit: &str) {
    let nu = 0.1;
    let (clock, fields, summary) = run_case(dir, &poiseuille(mesh, nu, &format!("fit = \"{fit}\"")));
    let pm = meshtool::PreparedMesh::read(mesh).unwrap();
    let xs = &pm.topo.centroids;
    let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
    let p = &fields.iter().find(|f| f.name == "pressure").unwrap().values;
    let (mut worst, mut cross) = (0.0f64, 0.0f64);
    for (c, x) in xs.iter().enumerate() {
        let exact = 4.0 * x[1] * (1.0 - x[1]);
        if x[0] > 0.25 && x[0] < 1.75 {
            worst = worst.max((u[3 * c] - exact).abs());
        }
        cross = cross.max(u[3 * c + 1].abs()).max(u[3 * c + 2].abs());
    }
    let g = slope(xs, p, 0.25, 1.75);
    let want = -8.0 * nu;
    println!(
        "Poiseuille 16x8x2x6 tets, fit {fit}: {} steps, max |u - exact| {worst:.3e}, max |v|,|w| {cross:.3e}, dp/dx {g:.5} (exact {want}), divergence {}",
        clock.step, summary["max_relative_divergence"]
    );
    assert!(summary["converged_at_step"].as_u64().is_some(), "{summary}");
    assert!(worst < 0.02, "max |u - exact| = {worst}");
    assert!(((g - want) / want).abs() < 0.03, "dp/dx = {g}, exact {want}");
    assert!(summary["max_relative_divergence"].as_f64().unwrap() < 1e-6, "{summary}");
}

/// Deliverable: `face_gradients = "fits"` makes the viscous operator exact for a quadratic
/// velocity ("wall-fits", the fits' wall flux alone, keeps the profile as well). At a Stokes-like viscosity (nu = 10, so the viscous operator sets the profile) the
/// steady Poiseuille profile keeps its shape: the wall rows' mean error stays below 1e-3 U. The
/// default "cells" (two-point wall flux, cell gradients for the non-orthogonal part) flattens
/// it there (wall rows about 5e-3 U too fast on this mesh), which is printed for comparison.
#[test]
fn vertex_fit_face_gradients_keep_the_poiseuille_profile() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [16, 8, 2], [2.0, 1.0, 0.25]);
    let xs = meshtool::PreparedMesh::read(&mesh).unwrap().topo.centroids;
    let wall_rows = |how: &str| {
        let (clock, fields, summary) = run_case(
            dir.path(),
            &poiseuille(&mesh, 10.0, &format!("face_gradients = \"{how}\"")),
        );
        assert!(summary["converged_at_step"].as_u64().is_some(), "{how}: {summary}");
        let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
        let (mut sum, mut n) = (0.0, 0.0);
        for (c, x) in xs.iter().enumerate() {
            if x[0] > 0.75 && x[0] < 1.25 && (x[1] < 0.125 || x[1] > 0.875) {
                sum += u[3 * c] - 4.0 * x[1] * (1.0 - x[1]);
                n += 1.0;
            }
        }
        println!(
            "Poiseuille, nu 10, face_gradients {how}: {} steps, wall rows' mean error {:+.3e}",
            clock.step,
            sum / n
        );
        sum / n
    };
    let cells = wall_rows("cells");
    for how in ["fits", "wall-fits"] {
        let fits = wall_rows(how);
        assert!(
            fits.abs() < 1e-3,
            "{how}: wall rows' mean error {fits:.3e} (cells {cells:.3e})"
        );
    }
}

/// Writes `text` as a case file and runs it with the CLI on the CPU.
fn cli(dir: &Path, name: &str, text: &str, extra: &[&str]) -> (std::process::Output, PathBuf) {
    let case = dir.join(format!("{name}.toml"));
    std::fs::write(&case, text).unwrap();
    let out = dir.join(name);
    (run_cpu(&case, &out, extra), out)
}

/// A boundary condition on a patch the mesh does not have names it and lists the mesh's.
#[test]
fn a_missing_patch_is_named_with_the_mesh_patches() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [4, 2, 2], [2.0, 1.0, 0.25]);
    let text = poiseuille(&mesh, 0.1, "").replace("xmax = {", "outlet = {");
    let (o, _) = cli(dir.path(), "missing", &text, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("navier-stokes.boundary.outlet") && e.contains("no patch 'outlet'") && e.contains("xmin, xmax"),
        "{e}"
    );
}

/// Without a pressure outlet or a reference point the pressure system is singular: refused;
/// with a reference point the closed box runs.
#[test]
fn a_singular_pressure_system_is_refused_unless_a_reference_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [4, 2, 2], [2.0, 1.0, 0.25]);
    let text = poiseuille(&mesh, 0.1, "").replace("{ kind = \"outlet\" }", "{ kind = \"wall\" }");
    let (o, _) = cli(dir.path(), "singular", &text, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("singular") && stderr(&o).contains("pressure_reference"),
        "{}",
        stderr(&o)
    );
    let (o, _) = cli(
        dir.path(),
        "reference",
        &text,
        &[
            "--set",
            "navier-stokes.pressure_reference=[1.0, 0.5, 0.1]",
            "--set",
            "time.steps=2",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A pressure solve capped far from its tolerance stops the run (exit 1) keeping the initial
/// output; capped within `fail_residual` it warns and goes on.
#[test]
fn a_pressure_solve_that_does_not_converge_warns_or_stops() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [8, 4, 2], [2.0, 1.0, 0.25]);
    // Jacobi: AMG would solve this small mesh's pressure exactly (its coarsest level).
    let solver =
        "pressure_solver = { tolerance = 1e-12, max_iter = 3, fail_residual = 1e-3, preconditioner = \"jacobi\" }";
    let (o, out) = cli(
        dir.path(),
        "stop",
        &poiseuille(&mesh, 0.1, solver),
        &["--set", "time.steps=3"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the pressure solve stopped after 3 CG iterations"),
        "{}",
        stderr(&o)
    );
    assert!(out.join("step_0000000.vtu").exists());
    let lax = solver.replace("1e-3", "1e9");
    let (o, out) = cli(
        dir.path(),
        "warn",
        &poiseuille(&mesh, 0.1, &lax),
        &["--set", "time.steps=2"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: step 1: the pressure solve stopped"),
        "{}",
        stderr(&o)
    );
    let s = common::summary(&out);
    assert!(s["cg_warnings"].as_u64().unwrap() >= 2, "{s}");
}

/// Explicit viscosity far beyond its stability limit blows up: the health check stops the run
/// (exit 1) naming the field, and the initial output is kept.
#[test]
fn a_diverging_run_stops_keeping_the_last_good_output() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [8, 4, 2], [2.0, 1.0, 0.25]);
    let text = poiseuille(&mesh, 1.0, "viscous = \"explicit\"");
    let sets = [
        "--set",
        "time.dt=0.5",
        "--set",
        "time.check_every=1",
        "--set",
        "time.steps=200",
    ];
    let (o, out) = cli(dir.path(), "blowup", &text, &sets);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("diverged") || e.contains("solve stopped"), "{e}");
    assert!(out.join("step_0000000.vtu").exists());
}

/// The template runs as shipped (built-in coarse mesh) for a few steps and reports cd, cl and
/// dp with their errors against the reference; a restart continues bit-identically (the
/// conformance test checks the files; here the forces).
#[test]
fn the_dfg_template_reports_forces_and_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "dfg-3d-1z");
    let full = dir.path().join("full");
    let o = run_cpu(&case, &full, &["--set", "time.steps=6"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = common::summary(&full);
    for k in ["cd", "cl", "dp"] {
        assert!(s[k].as_f64().is_some() && s["errors"][k].as_f64().is_some(), "{s}");
    }
    // The last step's residuals and the solves' totals in summary.json; every step's in
    // residuals.csv (two pressure solves a step: one non-orthogonal corrector).
    assert_eq!(s["last_step"]["step"], 6, "{s}");
    assert_eq!(s["solves"]["pressure"]["solves"], 12, "{s}");
    assert_eq!(s["solves"]["momentum"]["solves"], 18, "{s}");
    let lines = |out: &Path, name: &str| -> Vec<String> {
        let text = std::fs::read_to_string(out.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        text.lines().map(String::from).collect()
    };
    let residuals = lines(&full, "residuals.csv");
    assert_eq!(
        residuals[0],
        "time,step,velocity_change,force_change,mass_residual,p1_iterations,p1_residual,p2_iterations,p2_residual,ux_iterations,ux_residual,uy_iterations,uy_residual,uz_iterations,uz_residual"
    );
    assert_eq!(residuals.len(), 7, "{residuals:?}");
    let last: Vec<f64> = residuals[6].split(',').map(|v| v.parse().unwrap()).collect();
    assert_eq!(last[1], 6.0);
    assert_eq!(last[2], s["last_step"]["velocity_change"].as_f64().unwrap());
    assert!(last[4] > 0.0 && last[4].is_finite(), "mass residual {}", last[4]);
    // The time series (a header and a row per output) and the derived cell fields.
    let forces = lines(&full, "forces.csv");
    assert!(
        forces[0].starts_with("time,step,fx,fy,fz,") && forces[0].ends_with(",cd,cl"),
        "{forces:?}"
    );
    let probes = lines(&full, "probes.csv");
    assert!(
        probes[0].starts_with("time,step,p_a,") && probes[0].ends_with(",dp"),
        "{probes:?}"
    );
    assert!(forces.len() >= 2 && probes.len() >= 2, "{forces:?} {probes:?}");
    let vtu = std::fs::read_to_string(full.join("step_0000006.vtu")).unwrap();
    for name in [
        "velocity",
        "pressure",
        "vorticity",
        "vorticity_magnitude",
        "q_criterion",
    ] {
        assert!(vtu.contains(&format!("Name=\"{name}\"")), "{name} missing from the VTU");
    }
    let part = dir.path().join("part");
    let o = run_cpu(
        &case,
        &part,
        &["--set", "time.steps=3", "--set", "output.checkpoint_every=3"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_cpu(&case, &part, &["--set", "time.steps=6", "--restart"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = common::summary(&part);
    assert_eq!(r["cd"], s["cd"]);
    assert_eq!(r["dp"], s["dp"]);
    // The series have a row every step (0 to 6); the restart resumed them after step 3 and
    // its rows are the uninterrupted run's, bit for bit.
    for name in ["forces.csv", "probes.csv", "residuals.csv"] {
        let (a, b) = (lines(&full, name), lines(&part, name));
        assert_eq!(a.len(), if name == "residuals.csv" { 7 } else { 8 }, "{a:?}");
        assert_eq!(a, b, "{name}");
    }
}

/// The template's case document with overrides, in-process (`solver check`'s way).
fn dfg_doc(sets: &[String]) -> CaseDoc {
    let (_, t) = solver::commands::specs::template(FAMILIES, "dfg-3d-1z").unwrap();
    CaseDoc::parse(t.text, Path::new("dfg-3d-1z.toml"), sets).unwrap()
}

/// `solver check navier-stokes` solves to 1e-14 (pressure) and 1e-15 (momentum) so that where
/// each backend's CG stops barely shows in the comparison: on the CPU, the check's steps with
/// those solves and with solves to 1e-16 differ by under a third of the check's 1e-10 (u, p
/// and the derived fields) with the family's default "cells" (20 steps, 5.3e-12 measured; solves
/// to 1e-12 differ by 4.6e-9) and the template's "wall-fits" (10 steps, 1.2e-11), and by under
/// half of it with "fits" (20 steps, 4.5e-11: their wide stencils carry a solve's last digits
/// further; the device's CPU-vs-CUDA difference was 1.5e-11), and "fits-full" (the fits' whole flux inside too, 10 steps, 4.9e-12; by step 20 the
/// device's difference reached 6.5e-10). The built-in mesh's flow is
/// unsteady at every face gradient (du 2e-2 per step after 400 steps), so such differences
/// grow: "wall-fits" reaches 2.6e-10 by step 15, hence its 10-step rows in the check.
#[test]
fn the_check_solves_make_the_stopping_point_invisible() {
    for (how, steps, bound) in [
        ("cells", 20, 3e-11),
        ("wall-fits", 10, 3e-11),
        ("fits", 20, 5e-11),
        ("fits-full", 10, 5e-11),
    ] {
        let mut base: Vec<String> = solver::cases::ns::CHECK_SOLVES.iter().map(|s| s.to_string()).collect();
        base.push(format!("navier-stokes.face_gradients=\"{how}\""));
        let mut tight: Vec<String> = base
            .iter()
            .map(|s| s.replace("=1e-14", "=1e-16").replace("=1e-15", "=1e-16"))
            .collect();
        tight.extend(["navier-stokes.pressure_solver.max_iter=20000".to_string()]);
        let run = |sets: &[String]| {
            let mut s = solver::commands::specs::Stepped::run(&dfg_doc(sets), FAMILIES, Target::Cpu, steps).unwrap();
            (s.fields().unwrap(), s.case.setup.summary())
        };
        let ((a, sa), (b, sb)) = (run(&base), run(&tight));
        if how == "cells" {
            // The bench's solver line: the CPU counts its CG work too, and adds it to the step's bytes.
            let mut s = solver::commands::specs::Stepped::run(&dfg_doc(&base), FAMILIES, Target::Cpu, 2).unwrap();
            let w = s.case.sim.solver_work().unwrap();
            assert_eq!(w.steps, 2);
            assert!(w.iterations > 0 && w.seconds > 0.0 && w.bytes > 0.0, "{w:?}");
            assert!(s.case.sim.bytes_per_step() > w.bytes / 2.0);
            assert!(s.fields().is_ok());
        }
        for (x, y) in a.iter().zip(&b) {
            let d = solver::output::max_relative_difference(&x.values, &y.values);
            eprintln!("{how}, {}: {d:.3e}", x.name);
        }
        let diff = a
            .iter()
            .zip(&b)
            .map(|(x, y)| solver::output::max_relative_difference(&x.values, &y.values))
            .fold(0.0f64, f64::max);
        eprintln!(
            "{how}: the check's CG tolerances vs 1e-16 after {steps} steps: max relative field difference {diff:.3e}"
        );
        assert!(diff < bound, "{how}: {diff:e}");
        for k in ["cd", "dp"] {
            let (x, y) = (sa[k].as_f64().unwrap(), sb[k].as_f64().unwrap());
            assert!((x - y).abs() <= bound * x.abs(), "{how}, {k}: {x} {y}");
        }
    }
}

/// f32 is refused with the reason; `--backend cuda` runs where there is a device (and
/// `solver check navier-stokes` passes), else it fails with the visible SKIPPED and a clear
/// CUDA message, not the old refusal.
#[test]
fn cuda_runs_or_says_there_is_no_device_and_f32_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "dfg-3d-1z");
    let o = run_cpu(&case, &dir.path().join("f32"), &["--set", "run.precision=\"f32\""]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("f64 only"), "{}", stderr(&o));
    let out = dir.path().join("cuda");
    let args = [
        "run",
        case.to_str().unwrap(),
        "--backend",
        "cuda",
        "-q",
        "--set",
        "time.steps=3",
        "-o",
        out.to_str().unwrap(),
    ];
    if solver::backend::cuda::Device::open(0).is_err() {
        eprintln!("SKIPPED: no CUDA device (navier-stokes CUDA run and check)");
        let o = common::solver(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("CUDA") && !stderr(&o).contains("no CUDA backend"),
            "{}",
            stderr(&o)
        );
        return;
    }
    let o = common::solver(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = common::solver(&["check", "navier-stokes"]);
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
}

/// A profiled inlet keeps its profile in the first cells at cfl 1, where the departure points
/// of those cells fall between the inlet and their centroids: the semi-Lagrangian fit has no
/// inlet value there, and extrapolating from the cells eroded the DFG inflow (axis velocity
/// 0.30 instead of 0.45 in the first cells of the 28k-tet channel). Nearly inviscid (nu
/// 1e-4), so the viscous term cannot hold the profile up by itself: 0.22 with the blend of
/// `CpuNs::between_inlet_and_centroid`, 1.39 without it (u_max 1).
#[test]
fn a_parabolic_inlet_keeps_its_profile_in_the_first_cells_at_cfl_1() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [16, 8, 2], [2.0, 1.0, 0.25]);
    let text = poiseuille(&mesh, 1e-4, "")
        .replace("cfl = 2.0", "cfl = 1.0")
        .replace("steps = 400", "steps = 40");
    let (_, fields, _) = run_case(dir.path(), &text);
    let pm = meshtool::PreparedMesh::read(&mesh).unwrap();
    let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
    let mut worst = 0.0f64;
    for (c, x) in pm.topo.centroids.iter().enumerate() {
        if x[0] < 0.125 {
            worst = worst.max((u[3 * c] - 4.0 * x[1] * (1.0 - x[1])).abs());
        }
    }
    println!("first column of cells at cfl 1: max |u - profile| {worst:.3e}");
    assert!(
        worst < 0.4,
        "max |u - profile| = {worst} next to the inlet (1.39 without the inlet blend)"
    );
}

/// Steady plane Poiseuille flow at u_max and cfl 2 (nu 0.1, 8 x 8 x 1 Kuhn box): the steps it
/// took, whether it converged, and max |u / u_max - exact| inside.
fn slow_poiseuille(dir: &Path, mesh: &Path, u_max: f64, steps: u64) -> (u64, bool, f64) {
    let text = poiseuille(mesh, 0.1, "")
        .replace("u_max = 1.0", &format!("u_max = {u_max}"))
        .replace("steps = 400", &format!("steps = {steps}"));
    let (clock, fields, summary) = run_case(dir, &text);
    let pm = meshtool::PreparedMesh::read(mesh).unwrap();
    let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
    let mut worst = 0.0f64;
    for (c, x) in pm.topo.centroids.iter().enumerate() {
        if x[0] > 0.25 && x[0] < 0.75 {
            worst = worst.max((u[3 * c] / u_max - 4.0 * x[1] * (1.0 - x[1])).abs());
        }
    }
    (clock.step, summary["converged_at_step"].as_u64().is_some(), worst)
}

/// Deliverable (time scheme): the default theta stays stable far beyond the explicit viscous
/// limit (1.6e-3 on this mesh). At u_max 1e-2 (dt 6.8, 4e3 times the limit) it converges to
/// the parabola within the Poiseuille test's 2 % (103 steps; theta = 1: 179 steps, 2.7 %).
/// At u_max 1e-4 (dt 680, 4e5 times) it stays bounded, where theta = 0.55 blows up from
/// u_max 2e-3 on (to 1e45 in 50 steps): the reason the default is 0.6.
#[test]
fn the_default_theta_is_stable_far_beyond_the_explicit_viscous_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [8, 8, 1], [1.0, 1.0, 0.125]);
    let (steps, converged, worst) = slow_poiseuille(dir.path(), &mesh, 1e-2, 400);
    println!("u_max 1e-2: {steps} steps, converged {converged}, max |u / u_max - exact| {worst:.3e}");
    assert!(converged && worst < 0.02, "u_max 1e-2: {steps} steps, error {worst}");
    let (_, _, worst) = slow_poiseuille(dir.path(), &mesh, 1e-4, 60);
    println!("u_max 1e-4: 60 steps, max |u / u_max - exact| {worst:.3e}");
    assert!(worst < 1.0, "u_max 1e-4: error {worst} after 60 steps");
}

/// A steady run whose velocity change cannot reach its tolerance (here 1e-30, below what the
/// solves' 1e-8 tolerances leave) stops once the change has stalled for `stall_window` steps,
/// saying why in summary.json, instead of running to its step cap; with `stall_window = 0` it
/// runs to the cap.
#[test]
fn a_steady_run_on_a_floor_stops_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [8, 4, 2], [2.0, 1.0, 0.25]);
    let steady =
        |w: u64| format!("steady = {{ velocity_tol = 1e-30, force_tol = 1e-5, window = 5, stall_window = {w} }}");
    let (_, _, s) = run_case(dir.path(), &poiseuille(&mesh, 0.1, &steady(40)));
    let at = s["stalled_at_step"].as_u64().unwrap_or_else(|| panic!("{s}"));
    assert!((40..400).contains(&at), "{s}");
    assert!(s["converged_at_step"].is_null(), "{s}");
    let why = s["stop_reason"].as_str().unwrap();
    assert!(why.contains("floor") && why.contains("1.0e-30"), "{why}");
    let (clock, _, s) = run_case(dir.path(), &poiseuille(&mesh, 0.1, &steady(0)));
    assert_eq!(clock.step, 400, "{s}");
    assert!(
        s["stalled_at_step"].is_null() && s["converged_at_step"].is_null(),
        "{s}"
    );
}

/// theta outside [0.5, 1] is refused, naming the key.
#[test]
fn theta_outside_its_range_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [4, 2, 2], [2.0, 1.0, 0.25]);
    let (o, _) = cli(dir.path(), "theta", &poiseuille(&mesh, 0.1, "theta = 0.3"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("navier-stokes.theta") && e.contains("[0.5, 1]"), "{e}");
}

/// `pressure_solver.preconditioner = "chebyshev"` and the default "amg" reach the Jacobi run's
/// answer in fewer pressure iterations: the DFG template, 10 steps from rest (as its check
/// rows), all solved as `solver check` solves (pressure to 1e-14, momentum to 1e-15). Each
/// solve then stops near the rounding of the exact solve, so the runs differ only by where
/// their CG stopped, which `the_check_solves_make_the_stopping_point_invisible` holds below
/// 3e-11: the fields, cd and dp must agree to the check's 1e-10, as CPU and CUDA must (Jacobi
/// about 4 times the Chebyshev iterations, each of those 3 matrix-vector products dearer, and
/// over 10 times AMG's). Then a restarted Chebyshev run is bit-identical (its bounds are
/// re-estimated from the matrix, in a fixed order).
#[test]
fn chebyshev_and_amg_pressure_solves_take_fewer_iterations_to_the_same_answer() {
    let sets = |s: &[&str]| -> Vec<String> { s.iter().map(|s| s.to_string()).collect() };
    let run = |sets: &[String]| {
        let mut s = solver::commands::specs::Stepped::run(&dfg_doc(sets), FAMILIES, Target::Cpu, 10).unwrap();
        (s.fields().unwrap(), s.case.setup.summary())
    };
    let ((a, sa), (b, sb), (c, sc)) = (
        run(&sets(solver::cases::ns::CHECK_SOLVES_JACOBI)),
        run(&sets(solver::cases::ns::CHECK_SOLVES_CHEBYSHEV)),
        run(&sets(solver::cases::ns::CHECK_SOLVES)),
    );
    let iterations = |s: &serde_json::Value| -> u64 { s["solves"]["pressure"]["iterations"].as_u64().unwrap() };
    let (ij, ic, ia) = (iterations(&sa), iterations(&sb), iterations(&sc));
    let diff = |b: &[solver::output::Field]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| solver::output::max_relative_difference(&x.values, &y.values))
            .fold(0.0f64, f64::max)
    };
    let (dc, da) = (diff(&b), diff(&c));
    eprintln!("10 steps: pressure CG iterations jacobi {ij}, chebyshev {ic}, amg {ia}; max relative field difference {dc:.3e}, {da:.3e}");
    assert_eq!(sb["cg_warnings"], 0, "{sb}");
    assert_eq!(sc["cg_warnings"], 0, "{sc}");
    assert!(2 * ic < ij, "chebyshev {ic} vs jacobi {ij} pressure iterations");
    assert!(10 * ia < ij, "amg {ia} vs jacobi {ij} pressure iterations");
    assert!(dc < 1e-10 && da < 1e-10, "{dc:e} {da:e}");
    for k in ["cd", "dp"] {
        let x = sa[k].as_f64().unwrap();
        for y in [sb[k].as_f64().unwrap(), sc[k].as_f64().unwrap()] {
            assert!((x - y).abs() <= 1e-10 * x.abs(), "{k}: {x} {y}");
        }
    }
    // Restart: 3 steps, a checkpoint, 3 more, against 6 in one go.
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "dfg-3d-1z");
    let cheb = ["--set", "navier-stokes.pressure_solver.preconditioner=\"chebyshev\""];
    let (full, part) = (dir.path().join("full"), dir.path().join("part"));
    let o = run_cpu(&case, &full, &[&cheb[..], &["--set", "time.steps=6"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let first = ["--set", "time.steps=3", "--set", "output.checkpoint_every=3"];
    let o = run_cpu(&case, &part, &[&cheb[..], &first].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_cpu(
        &case,
        &part,
        &[&cheb[..], &["--set", "time.steps=6", "--restart"]].concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (f, p) = (common::summary(&full), common::summary(&part));
    for k in ["cd", "cl", "dp"] {
        assert_eq!(f[k], p[k], "{k}");
    }
}

/// A wrong preconditioner, a Chebyshev degree of 0, a bad or unknown AMG setting, or
/// "chebyshev" for the momentum solve is refused (exit 2) naming the key.
#[test]
fn a_bad_preconditioner_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "dfg-3d-1z");
    let momentum = "navier-stokes.momentum_solver={tolerance=1e-8,max_iter=500,preconditioner=\"chebyshev\"}";
    for (set, want) in [
        (
            "navier-stokes.pressure_solver.preconditioner=\"ilu\"",
            "preconditioner = \"ilu\": unknown; give \"amg\", \"jacobi\" or \"chebyshev\"",
        ),
        (
            "navier-stokes.pressure_solver.degree=0",
            "navier-stokes.pressure_solver.degree: 0",
        ),
        (
            "navier-stokes.pressure_solver.amg.smoother_steps=0",
            "navier-stokes.pressure_solver.amg.smoother_steps: 0: must lie in 1..=16",
        ),
        (
            "navier-stokes.pressure_solver.amg.coarsest=9",
            "unknown field `coarsest`",
        ),
        (
            momentum,
            "navier-stokes.momentum_solver.preconditioner: only pressure_solver",
        ),
        (
            "navier-stokes.pressure_solver.precondition=1",
            "did you mean `preconditioner`?",
        ),
    ] {
        let o = run_cpu(&case, &dir.path().join("out"), &["--set", set, "--set", "time.steps=1"]);
        assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{set}: {}", stderr(&o));
    }
}

/// A `--set` into a table the case file lacks (here `pressure_solver`, which `--set` then
/// creates with one key) names the override and the missing key, not a top-level section.
#[test]
fn a_set_into_a_missing_table_names_the_override_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), [4, 2, 2], [2.0, 1.0, 0.25]);
    let set = r#"navier-stokes.pressure_solver.preconditioner="chebyshev""#;
    let (o, _) = cli(dir.path(), "set", &poiseuille(&mesh, 0.1, ""), &["--set", set]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("--set") && e.contains("missing field `tolerance`") && e.contains("whole table"),
        "{e}"
    );
}

/// The Taylor-Green vortex on [0, pi]^2 (one cell thick) with symmetry planes all round: the
/// case text for `dt` on `mesh` (nu 0.05, U = L = 1, to t = 1; the dp probes at (pi/4, pi/4) and
/// (pi/2, pi/4) give a signal).
fn taylor_green(mesh: &Path, dt: f64, extra: &str) -> String {
    format!(
        r#"mesh = "{}"
[case]
kind = "navier-stokes"
[time]
dt = {dt}
end_time = 1.0
[output]
every = 1000
[run]
backend = "cpu"
[navier-stokes]
viscosity = 0.05
mode = "transient"
initial = {{ kind = "taylor-green", velocity = 1.0, length = 1.0 }}
pressure_reference = [1.5707963, 1.5707963, 0.05]
dp_probes = [[0.7853982, 0.7853982, 0.05], [1.5707963, 0.7853982, 0.05]]
log_every = 0
{extra}
[navier-stokes.boundary]
xmin = {{ kind = "symmetry" }}
xmax = {{ kind = "symmetry" }}
ymin = {{ kind = "symmetry" }}
ymax = {{ kind = "symmetry" }}
zmin = {{ kind = "symmetry" }}
zmax = {{ kind = "symmetry" }}
"#,
        mesh.display()
    )
}

/// The amplitude of the vortex in a velocity field: <u, shape> / <shape, shape> over the cells.
fn taylor_green_amplitude(mesh: &Path, u: &[f64]) -> f64 {
    let pm = meshtool::PreparedMesh::read(mesh).unwrap();
    let (mut num, mut den) = (0.0, 0.0);
    for (c, x) in pm.topo.centroids.iter().enumerate() {
        let shape = [x[0].sin() * x[1].cos(), -x[0].cos() * x[1].sin()];
        num += u[3 * c] * shape[0] + u[3 * c + 1] * shape[1];
        den += shape[0] * shape[0] + shape[1] * shape[1];
    }
    num / den
}

/// A transient run: the Taylor-Green vortex decays at the viscous rate (amplitude within 3 % of
/// exp(-2 nu t) at t = 1 on 24^2 x 6 tets with dt 0.05: the run measured -2.0 %, from the
/// symmetry planes' treatment of the normal velocity and the interpolation's dissipation,
/// VALIDATION.md); the running averages start at `statistics.start` and are written as fields;
/// the dp signal is summarised over the window; and a run stopped at t = 0.5 and restarted
/// (u^(n-1), the averages and the history in the checkpoint) ends bit-identical to the
/// uninterrupted one.
#[test]
fn a_transient_run_decays_the_taylor_green_vortex_and_restarts_bit_identically() {
    let dir = tempfile::tempdir().unwrap();
    let pi = std::f64::consts::PI;
    let mesh = box_mesh(dir.path(), [24, 24, 1], [pi, pi, 0.13]);
    let stats = "statistics = { start = 0.5 }";
    let (clock, fields, s) = run_case(dir.path(), &taylor_green(&mesh, 0.05, stats));
    assert!((clock.time - 1.0).abs() < 1e-12, "{clock:?}");
    let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
    let a = taylor_green_amplitude(&mesh, u);
    let exact = (-2.0f64 * 0.05).exp();
    assert!((a - exact).abs() < 0.03 * exact, "amplitude {a}, exact {exact}");
    // The mean over t in [0.5, 1] lies between the amplitudes at its ends.
    let um = &fields.iter().find(|f| f.name == "velocity_mean").unwrap().values;
    let am = taylor_green_amplitude(&mesh, um);
    assert!(am > a && am < (-2.0f64 * 0.05 * 0.5).exp(), "mean amplitude {am}");
    assert!(fields.iter().any(|f| f.name == "pressure_rms"));
    let sig = &s["signals"];
    assert!((sig["window"][0].as_f64().unwrap() - 0.5).abs() < 1e-12, "{sig}");
    assert!(sig["dp"]["mean"].as_f64().unwrap().is_finite(), "{sig}");
    // Stopped at t = 0.5 and restarted: the same bits at t = 1.
    let text = taylor_green(&mesh, 0.05, stats);
    let case = dir.path().join("tgv.toml");
    std::fs::write(&case, &text).unwrap();
    let (full, part) = (dir.path().join("full"), dir.path().join("part"));
    let o = run_cpu(&case, &full, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let half = ["--set", "time.end_time=0.5", "--set", "output.checkpoint_every=10"];
    let o = run_cpu(&case, &part, &half);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_cpu(&case, &part, &["--restart"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (f, p) = (common::summary(&full), common::summary(&part));
    assert_eq!(f["signals"], p["signals"]);
    let vtu = |d: &Path| std::fs::read(d.join("step_0000020.vtu")).unwrap();
    assert!(vtu(&full) == vtu(&part), "the restarted run's last output differs");
}

/// The relative L2 error of a Taylor-Green run's velocity at t = 1 against the exact vortex.
fn taylor_green_error(mesh: &Path, u: &[f64]) -> f64 {
    let pm = meshtool::PreparedMesh::read(mesh).unwrap();
    let a = (-2.0f64 * 0.05).exp();
    let (mut e, mut n) = (0.0, 0.0);
    for (c, x) in pm.topo.centroids.iter().enumerate() {
        let shape = [x[0].sin() * x[1].cos(), -x[0].cos() * x[1].sin(), 0.0];
        for k in 0..3 {
            e += (u[3 * c + k] - a * shape[k]).powi(2);
            n += (a * shape[k]).powi(2);
        }
    }
    (e / n).sqrt()
}

/// The vertex fits' whole flux on every face ("fits-full") makes the viscous operator consistent
/// on the Kuhn slabs (the two-point difference between centroids is not taken at the face
/// centre, and the cells' gradients left a pointwise error of 0.42 on every mesh), which the
/// projection turned into a decay of the vortex 40 % too fast. At a fixed Courant number
/// (12^2 at dt 0.2, 24^2 at dt 0.1) the error now falls by 1.77 (measured 1.98e-2, 1.12e-2),
/// and on 24^2 it is below "cells"' (1.12e-2 against 1.46e-2, amplitude -0.91 % against
/// -1.32 %). The order is still under 1 (VALIDATION.md says what is left): these bounds guard
/// what was gained.
#[test]
fn whole_fit_fluxes_converge_the_taylor_green_vortex_faster() {
    let dir = tempfile::tempdir().unwrap();
    let pi = std::f64::consts::PI;
    let run = |n: usize, dt: f64, fg: &str| {
        let mesh = box_mesh(dir.path(), [n, n, 1], [pi, pi, pi / n as f64]);
        let extra = format!("face_gradients = \"{fg}\"");
        let (clock, fields, _) = run_case(dir.path(), &taylor_green(&mesh, dt, &extra));
        assert!((clock.time - 1.0).abs() < 1e-12, "{clock:?}");
        let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
        (
            taylor_green_error(&mesh, u),
            taylor_green_amplitude(&mesh, u) / (-0.1f64).exp() - 1.0,
        )
    };
    let (coarse, _) = run(12, 0.2, "fits-full");
    let (fine, amp) = run(24, 0.1, "fits-full");
    let (cells, cells_amp) = run(24, 0.1, "cells");
    eprintln!(
        "fits-full 12^2 {coarse:.4e}, 24^2 {fine:.4e} (amplitude {amp:+.4}); cells 24^2 {cells:.4e} ({cells_amp:+.4})"
    );
    assert!(coarse / fine > 1.6, "fixed-Courant ratio {}", coarse / fine);
    assert!(fine < 1.25e-2 && fine < 0.85 * cells, "fits {fine}, cells {cells}");
    assert!(
        amp.abs() < 0.75 * cells_amp.abs(),
        "amplitude {amp} against cells' {cells_amp}"
    );
}

/// The vortex's loss per step. On 24^2 at dt 0.025 (40 steps, "fits-full") the run
/// loses 2.8 % of the amplitude beyond exp(-2 nu t) (4.1 % at 80 steps: a fixed fraction a step,
/// whatever the step). Taking the semi-Lagrangian transport's error at zero displacement off
/// the advected field (`rest_correction = 1`) leaves 0.25 %: the loss is the quadratic fits'
/// smoothing of the grid-scale velocity every step, fed by the projection; predicted fluxes
/// from the previous step's (`flux_memory = "full"`, so that the pressure answers the step's
/// change alone and its grid-scale modes stop summing) leave 0.25 % too (VALIDATION.md; both
/// are diagnostics, neither holds on DFG 2D-2); with the memory relaxed over tau = 0.1
/// (`flux_memory_time`, weight tau / (tau + dt)) 1.3 %.
#[test]
fn the_transport_rest_error_and_the_projection_make_the_taylor_green_loss_per_step() {
    let dir = tempfile::tempdir().unwrap();
    let pi = std::f64::consts::PI;
    let mesh = box_mesh(dir.path(), [24, 24, 1], [pi, pi, pi / 24.0]);
    let amp = |extra: &str| {
        let extra = format!("face_gradients = \"fits-full\"\n{extra}");
        let (_, fields, _) = run_case(dir.path(), &taylor_green(&mesh, 0.025, &extra));
        let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
        taylor_green_amplitude(&mesh, u) / (-0.1f64).exp() - 1.0
    };
    let (plain, rest) = (amp(""), amp("rest_correction = 1.0"));
    let memory = amp("flux_memory = \"full\"");
    let relaxed = amp("flux_memory = \"full\"\nflux_memory_time = 0.1");
    eprintln!(
        "amplitude error: plain {plain:+.4e}, rest_correction {rest:+.4e}, flux_memory {memory:+.4e}, relaxed {relaxed:+.4e}"
    );
    assert!(relaxed < memory && relaxed > 0.6 * plain, "relaxed {relaxed}");
    assert!(plain < -0.02, "plain {plain}");
    assert!(rest.abs() < 0.005, "rest_correction {rest}");
    assert!(memory.abs() < 0.005, "flux_memory {memory}");
}

/// The 2D-2 template runs as shipped (its built-in slab) and reports each benchmark quantity
/// it measured against the template's interval (`navier-stokes.reference_bounds`): its value,
/// the interval, `inside` exactly when the value lies in it, and `relative_miss` the relative
/// distance to the nearer bound (0 inside, negative below, positive above). A short run with the
/// window moved to its second half measures cd_max, cl_max and the last Δp, not yet St (no
/// shedding period), which is then neither reported nor judged. An interval whose bounds are the wrong way round is refused
/// naming it.
#[test]
fn the_dfg_2d_2_template_reports_its_quantities_against_the_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "dfg-2d-2");
    let out = dir.path().join("run");
    // The template's intervals, two of them moved so that the short run's values fall inside
    // one (cd_max 2.49) and above another (cl_max 0.018), and below the third (dp 1.31).
    let sets = [
        "--set",
        "time.end_time=0.04",
        "--set",
        "navier-stokes.statistics.start=0.02",
        "--set",
        "navier-stokes.reference_bounds.cd_max=[2.0, 3.0]",
        "--set",
        "navier-stokes.reference_bounds.cl_max=[0.001, 0.01]",
    ];
    let o = run_cpu(&case, &out, &sets);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = common::summary(&out);
    let template: toml::Table = toml::from_str(&std::fs::read_to_string(&case).unwrap()).unwrap();
    let mut intervals = template["navier-stokes"]["reference_bounds"]
        .as_table()
        .unwrap()
        .clone();
    intervals.insert("cd_max".into(), toml::Value::try_from([2.0, 3.0]).unwrap());
    intervals.insert("cl_max".into(), toml::Value::try_from([0.001, 0.01]).unwrap());
    let bounds = s["bounds"].as_object().unwrap();
    let mut judged: Vec<&str> = bounds.keys().map(String::as_str).collect();
    judged.sort();
    assert_eq!(judged, ["cd_max", "cl_max", "dp"], "{s}");
    assert!(s["st"].is_null(), "{s}");
    for k in judged {
        let b = &bounds[k];
        let v = s[k].as_f64().unwrap_or_else(|| panic!("{k} not reported: {s}"));
        let [lo, hi] = [0, 1].map(|i| intervals[k][i].as_float().unwrap());
        let miss = if v < lo {
            (v - lo) / lo
        } else if v > hi {
            (v - hi) / hi
        } else {
            0.0
        };
        println!(
            "{k} = {v} in [{lo}, {hi}]: inside {}, relative miss {}",
            b["inside"], b["relative_miss"]
        );
        assert_eq!(b["value"].as_f64(), Some(v), "{k}: {b}");
        assert_eq!(b["bounds"], serde_json::json!([lo, hi]), "{k}: {b}");
        assert_eq!(b["inside"].as_bool(), Some((lo..=hi).contains(&v)), "{k}: {b}");
        assert_eq!(b["relative_miss"].as_f64(), Some(miss), "{k}: {b}");
    }
    let inside = |k: &str| bounds[k]["inside"].as_bool();
    assert_eq!(
        [inside("cd_max"), inside("cl_max"), inside("dp")],
        [Some(true), Some(false), Some(false)]
    );
    assert!(
        bounds["cl_max"]["relative_miss"].as_f64() > Some(0.0) && bounds["dp"]["relative_miss"].as_f64() < Some(0.0)
    );
    assert_eq!(s["steps"], 40, "{s}");
    // A row of forces.csv for every step, from step 0.
    let forces = std::fs::read_to_string(out.join("forces.csv")).unwrap();
    assert_eq!(forces.lines().count(), 42);
    let bad = [
        "--set",
        "navier-stokes.reference_bounds.st=[0.31, 0.29]",
        "--set",
        "time.end_time=0.004",
    ];
    let o = run_cpu(&case, &dir.path().join("bad"), &bad);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("navier-stokes.reference_bounds.st"),
        "{}",
        stderr(&o)
    );
}

/// The projection keeps no two-step pressure mode (the mid-step pressure). The Re 3900 template's
/// impulsive start on its built-in span: while p^(n+1) = p^n + p' was kept, the pressure
/// obeyed p^(n+1) = -p^n + source at theta 0.5 and Cd rang 299, -269, 243, -218, ... (rms of
/// its step-to-step part 66 over steps 10-30); with the mid-step pressure p^n + theta p' it
/// falls 150, 8.7, 1.2, 0.3 and goes smoothly on (5e-4). The summary reports the same
/// measure (`signals.cd_two_step_rms`).
#[test]
fn an_impulsive_start_does_not_ring_from_step_to_step() {
    let dir = tempfile::tempdir().unwrap();
    let sets = common::sets(&["time.end_time=0.6", "navier-stokes.statistics.start=0.2"]);
    let out = common::run_template(dir.path(), "cylinder-re3900-les", &sets);
    let s = common::summary(&out);
    let forces = std::fs::read_to_string(out.join("forces.csv")).unwrap();
    let column = forces
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "cd")
        .unwrap();
    let cd: Vec<f64> = forces
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(column).unwrap().parse().unwrap())
        .collect();
    assert_eq!(cd.len(), 31, "{s}");
    let (mean, ring) = (
        s["signals"]["cd"]["mean"].as_f64().unwrap(),
        s["signals"]["cd_two_step_rms"].as_f64().unwrap(),
    );
    eprintln!(
        "cd over steps 0-6: {:?}; over t >= 0.2: mean {mean}, two-step rms {ring}",
        &cd[..7]
    );
    assert!(mean > 0.3 && ring < 1e-2 * mean, "{s}");
    // The first steps after the start fall without changing sign (then the drag builds up).
    assert!(cd[1..5].windows(2).all(|w| w[1] < w[0] && w[1] > 0.0), "{cd:?}");
    // `solver signals` reads the same statistics back from forces.csv (the run's window).
    let f = out.join("forces.csv");
    let o = common::solver(&["signals", f.to_str().unwrap(), "--from", "0.2"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let again: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(again, s["signals"], "read back: {again}");
}

/// The Kuhn box of `box_mesh` with the patch pairs (max side the translate of the min side)
/// along `axes` joined periodically, written as a .pmesh.
fn periodic_mesh(dir: &Path, dims: [usize; 3], hi: [f64; 3], axes: &[usize]) -> PathBuf {
    let m = solver::mesh::periodic_box(dims, hi, axes).unwrap();
    assert!(m.is_periodic());
    let p = dir.join(format!("periodic{}x{}x{}-{axes:?}.pmesh", dims[0], dims[1], dims[2]));
    m.write(&p).unwrap();
    p
}

/// A boundary condition on a joined (periodic) patch is refused, naming the
/// patch, its partner and what to do.
#[test]
fn a_boundary_condition_on_a_periodic_patch_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = periodic_mesh(dir.path(), [4, 2, 2], [2.0, 1.0, 0.25], &[2]);
    let (o, _) = cli(dir.path(), "periodic", &poiseuille(&mesh, 0.1, ""), &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("navier-stokes.boundary.zmax")
            && e.contains("patch 'zmax' is periodic (joined to 'zmin'")
            && e.contains("remove"),
        "{e}"
    );
}

/// A periodic pair whose translation does not map one side onto the other
/// (0.3 for a span of 0.25) is refused when the mesh is prepared, naming both patches; no
/// .pmesh (so no run) comes of it.
#[test]
fn a_mismatched_periodic_pair_is_refused_naming_the_patches() {
    let mut raw = generate(&BoxSpec {
        dims: [4, 2, 2],
        lo: [0.0; 3],
        hi: [2.0, 1.0, 0.25],
    })
    .unwrap();
    let mut affine = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    affine[11] = 0.3;
    raw.periodic.push(meshtool::mesh::PeriodicLink {
        slave_entity: 6,
        master_entity: 5,
        slave_patch: 5,
        master_patch: 4,
        affine: Some(affine),
        pairs: Vec::new(),
    });
    let e = prepare(&raw, Reorder::Hilbert)
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    eprintln!("{e}");
    assert!(e.contains("'zmax'") && e.contains("'zmin'"), "{e}");
}

/// Plane Poiseuille flow in a channel periodic across the span (z) is as close
/// to the exact profile as with symmetry planes there (the flow does not depend on z; the two
/// discrete solutions differ by 1.3e-2 as the Kuhn cells are not mirror-symmetric in z).
#[test]
fn plane_poiseuille_flow_with_a_periodic_span_is_as_exact_as_with_symmetry_planes() {
    let dir = tempfile::tempdir().unwrap();
    let dims = [8, 6, 2];
    let hi = [2.0, 1.0, 0.25];
    let periodic = periodic_mesh(dir.path(), dims, hi, &[2]);
    let text: String = poiseuille(&periodic, 0.1, "")
        .lines()
        .filter(|l| !l.starts_with("zm"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (_, fp, sp) = run_case(dir.path(), &text);
    let plain = box_mesh(dir.path(), dims, hi);
    let (_, fs, _) = run_case(dir.path(), &poiseuille(&plain, 0.1, ""));
    let u = |f: &[solver::output::Field]| f.iter().find(|f| f.name == "velocity").unwrap().values.clone();
    let (up, us) = (u(&fp), u(&fs));
    let at = |m: &Path| meshtool::PreparedMesh::read(m).unwrap().topo.centroids;
    let (xp, xs) = (at(&periodic), at(&plain));
    let exact = |x: &[[f64; 3]], u: &[f64]| {
        x.iter()
            .enumerate()
            .map(|(i, x)| {
                let want = [4.0 * x[1] * (1.0 - x[1]), 0.0, 0.0];
                (0..3).map(|k| (u[3 * i + k] - want[k]).abs()).fold(0.0, f64::max)
            })
            .fold(0.0, f64::max)
    };
    eprintln!(
        "max |u - exact|: periodic span {:.3e}, symmetry planes {:.3e}",
        exact(&xp, &up),
        exact(&xs, &us)
    );
    let (ep, es) = (exact(&xp, &up), exact(&xs, &us));
    assert!(ep < es, "periodic {ep} against {es}");
    assert!(sp["max_relative_divergence"].as_f64().unwrap() < 1e-6, "{sp}");
}

/// A Taylor-Green case on a mesh periodic along x and y (symmetry planes in z).
fn periodic_taylor_green(mesh: &Path, dt: f64, extra: &str) -> String {
    taylor_green(mesh, dt, extra)
        .lines()
        .filter(|l| !(l.starts_with("xm") || l.starts_with("ym") || l.starts_with("dp_probes")))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The mean pointwise velocity error of the Taylor-Green vortex at t = 1 over the cells within
/// 0.3 of the seams of [0, 2 pi]^2 (x or y = 0) and over those within 0.3 of x or y = pi.
fn seams(mesh: &Path, u: &[f64]) -> [f64; 2] {
    let pm = meshtool::PreparedMesh::read(mesh).unwrap();
    let (a, pi) = ((-2.0f64 * 0.05).exp(), std::f64::consts::PI);
    let near = |x: &[f64; 3], c: f64| (0..2).any(|k| (x[k] - c).abs() < 0.3 || (x[k] - c - 2.0 * pi).abs() < 0.3);
    let mut sums = [(0.0, 0); 2];
    for (c, x) in pm.topo.centroids.iter().enumerate() {
        let shape = [x[0].sin() * x[1].cos(), -x[0].cos() * x[1].sin(), 0.0];
        let e = (0..3)
            .map(|k| (u[3 * c + k] - a * shape[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        for (i, line) in [0.0, pi].into_iter().enumerate() {
            if near(x, line) {
                sums[i].0 += e;
                sums[i].1 += 1;
            }
        }
    }
    sums.map(|(e, n)| e / n as f64)
}

/// The Taylor-Green vortex on the fully periodic square [0, 2 pi]^2 (one cell
/// thick, symmetry planes in z) decays at exp(-2 nu t) as on the symmetric quarter [0, pi]^2 at
/// the same cell size and step: the periodic faces act as interior faces (the quarter's
/// symmetry planes are exact for this flow, so the two must agree to the scheme's error).
#[test]
fn the_periodic_taylor_green_vortex_decays_like_the_symmetric_quarter() {
    let dir = tempfile::tempdir().unwrap();
    let pi = std::f64::consts::PI;
    let n = 12;
    let quarter = box_mesh(dir.path(), [n, n, 1], [pi, pi, pi / n as f64]);
    let square = periodic_mesh(
        dir.path(),
        [2 * n, 2 * n, 1],
        [2.0 * pi, 2.0 * pi, pi / n as f64],
        &[0, 1],
    );
    let run = |mesh: &Path, text: String| {
        let (clock, fields, summary) = run_case(dir.path(), &text);
        assert!((clock.time - 1.0).abs() < 1e-12, "{clock:?}");
        let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
        let div = summary["max_relative_divergence"].as_f64().unwrap();
        (
            taylor_green_error(mesh, u),
            taylor_green_amplitude(mesh, u) / (-0.1f64).exp() - 1.0,
            div,
            seams(mesh, u),
        )
    };
    let (eq, aq, _, _) = run(&quarter, taylor_green(&quarter, 0.2, ""));
    let (ep, ap, div, [seam, mid]) = run(&square, periodic_taylor_green(&square, 0.2, ""));
    eprintln!("Taylor-Green at t = 1, h = pi/{n}, dt 0.2: periodic square error {ep:.4e} amplitude {ap:+.4e} (divergence {div:.1e}, mean pointwise error along the seams {seam:.4e}, along x, y = pi {mid:.4e}); symmetric quarter {eq:.4e} {aq:+.4e}");
    assert!(div < 1e-8, "{div}");
    // The decay rate as the quarter's (the amplitude's error within 10 %), the error of the
    // same size (the square's Kuhn cubes are not the quarter's mirrored, so not the same).
    assert!((ap - aq).abs() < 0.1 * aq.abs(), "periodic {ap} against {aq}");
    assert!(ep < 1.5 * eq, "periodic {ep} against the quarter's {eq}");
    // The seams are interior lines like x, y = pi, where the flow has the same structure.
    assert!(seam < 1.15 * mid, "seams {seam} against {mid}");
}

/// A uniform flow (1, 0.3, 0) through a box periodic in x, y and z stays
/// uniform to round-off over steps whose departure points cross the periodic faces (the walk
/// shifts them, the fits of the vertices on the joined sides see the cells across), with the
/// vertex fits' fluxes on every face.
#[test]
fn a_uniform_flow_through_a_periodic_box_stays_uniform() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"mesh = "builtin:periodic-box-6"
[case]
kind = "navier-stokes"
[time]
dt = 0.5
steps = 8
[output]
every = 1000
[run]
backend = "cpu"
[navier-stokes]
viscosity = 0.01
mode = "transient"
initial = { kind = "uniform", velocity = [1.0, 0.3, 0.0] }
pressure_reference = [1.0, 1.0, 1.0]
face_gradients = "fits-full"
log_every = 0
"#;
    let (clock, fields, summary) = run_case(dir.path(), text);
    assert_eq!(clock.step, 8);
    let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
    let want = [1.0, 0.3, 0.0];
    let err = u
        .chunks(3)
        .map(|v| (0..3).map(|k| (v[k] - want[k]).abs()).fold(0.0, f64::max))
        .fold(0.0, f64::max);
    let p = &fields.iter().find(|f| f.name == "pressure").unwrap().values;
    let pmax = p.iter().map(|x| x.abs()).fold(0.0, f64::max);
    eprintln!(
        "uniform flow, 8 steps at cfl ~0.5 per h: max |u - u0| = {err:.2e}, max |p| = {pmax:.2e}, divergence {}",
        summary["max_relative_divergence"]
    );
    assert!(err < 1e-12, "{err}");
    assert!(pmax < 1e-10, "{pmax}");
}

/// The transient projection is second order. A semi-Lagrangian step's error is
/// O(dt^2) + O(h^(p+1) / dt) (the interpolation's error once a step), so its order is measured
/// at a fixed Courant number, the mesh and the step halved together (12^2 at dt 0.2, 24^2 at
/// 0.1, 48^2 at 0.05), against the exact vortex at t = 1: with the predicted fluxes' memory
/// (`flux_memory = "full"`, theta = 0.5, "fits-full") the errors 7.91e-3, 1.97e-3, 5.10e-4
/// fall at orders 2.00 and 1.95 (with the mid-step pressure; 2.21 and 2.11 without it;
/// without the memory 0.82: the grid-scale pressure's summed sources took a fixed fraction of
/// the vortex every step; VALIDATION.md).
#[test]
fn the_transient_projection_converges_at_second_order_at_a_fixed_courant_number() {
    let dir = tempfile::tempdir().unwrap();
    let pi = std::f64::consts::PI;
    let error = |n: usize, dt: f64| {
        let mesh = box_mesh(dir.path(), [n, n, 1], [pi, pi, pi / n as f64]);
        let extra = "face_gradients = \"fits-full\"\nflux_memory = \"full\"";
        let (clock, fields, _) = run_case(dir.path(), &taylor_green(&mesh, dt, extra));
        assert!((clock.time - 1.0).abs() < 1e-12, "{clock:?}");
        let u = &fields.iter().find(|f| f.name == "velocity").unwrap().values;
        taylor_green_error(&mesh, u)
    };
    let e = [error(12, 0.2), error(24, 0.1), error(48, 0.05)];
    let orders = [(e[0] / e[1]).log2(), (e[1] / e[2]).log2()];
    eprintln!("fixed-Courant errors {e:?}, orders {orders:?}");
    assert!(orders.iter().all(|&q| q >= 1.8), "errors {e:?}, orders {orders:?}");
}

/// The final kinetic energy of a run's summary.json `kinetic_energy`.
fn final_energy(summary: &serde_json::Value) -> f64 {
    summary["kinetic_energy"]["value"].as_f64().unwrap()
}

/// LES: the 3D Taylor-Green vortex at Re 1600 (template `tgv-3d-les`) on the 8^3
/// octant (3072 tets, symmetry planes all round), 20 steps to t = 1. Either subgrid model takes
/// more of the resolved kinetic energy than the run without one (the model's sign; measured
/// E(1) = 0.10535 none, 0.10414 Smagorinsky, 0.10499 dynamic), the eddy viscosity is a
/// non-negative field with its summary, energy.csv has a row a step, and a run stopped at
/// t = 0.5 and restarted ends bit-identical (the energy history travels in the checkpoint).
#[test]
fn the_subgrid_models_dissipate_the_taylor_green_vortex_and_restart_bit_identically() {
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "tgv-3d-les");
    let run = |les: &str, out: &str, extra: &[&str]| {
        let les = format!("navier-stokes.les=\"{les}\"");
        let mut args = vec![
            "--set",
            "mesh=\"builtin:pi-box-8\"",
            "--set",
            "time.end_time=1.0",
            "--set",
            &les,
        ];
        args.extend_from_slice(extra);
        let o = run_cpu(&case, &dir.path().join(out), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        common::summary(&dir.path().join(out))
    };
    let none = run("none", "none", &[]);
    let smag = run("smagorinsky", "smag", &[]);
    let dynamic = run("dynamic", "dyn", &[]);
    let (e0, es, ed) = (final_energy(&none), final_energy(&smag), final_energy(&dynamic));
    eprintln!("E(1): none {e0:.6}, smagorinsky {es:.6}, dynamic {ed:.6}");
    assert!(
        es < e0 * (1.0 - 5e-3) && ed < e0 * (1.0 - 1e-3),
        "none {e0}, smagorinsky {es}, dynamic {ed}"
    );
    assert!(none.get("les").is_none());
    for s in [&smag, &dynamic] {
        let l = &s["les"];
        let (mean, max) = (
            l["mean_nut_over_nu"].as_f64().unwrap(),
            l["max_nut_over_nu"].as_f64().unwrap(),
        );
        assert!(
            mean > 0.0 && max >= mean && l["max_diffusion_number"].as_f64().unwrap() < 1.0,
            "{l}"
        );
    }
    let energy = std::fs::read_to_string(dir.path().join("dyn/energy.csv")).unwrap();
    assert_eq!(energy.lines().count(), 1 + 21, "{energy}");
    let nut = common::vtk_python(
        "import sys\nfrom vtk.util.numpy_support import vtk_to_numpy as v\nimport vtk\nr = vtk.vtkXMLUnstructuredGridReader()\nr.SetFileName(sys.argv[1])\nr.Update()\na = v(r.GetOutput().GetCellData().GetArray('eddy_viscosity'))\nprint(a.min(), a.max())",
        &dir.path().join("dyn/step_0000020.vtu"),
    );
    if let Some(out) = nut {
        let v: Vec<f64> = out.split_whitespace().map(|x| x.parse().unwrap()).collect();
        assert!(v[0] >= 0.0 && v[1] > 0.0, "eddy_viscosity range {out}");
    }
    // Stopped at t = 0.5 and restarted: the same bits at t = 1, and the same energy summary.
    run(
        "dynamic",
        "part",
        &["--set", "time.end_time=0.5", "--set", "output.checkpoint_every=5"],
    );
    let restarted = run("dynamic", "part", &["--restart"]);
    assert_eq!(restarted["kinetic_energy"], dynamic["kinetic_energy"]);
    let vtu = |d: &str| std::fs::read(dir.path().join(d).join("step_0000020.vtu")).unwrap();
    assert!(vtu("dyn") == vtu("part"), "the restarted run's last output differs");
}

/// A subgrid model the family does not have is refused naming the key and the choices, and so
/// is a negative (or NaN) Smagorinsky constant.
#[test]
fn a_bad_les_setting_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "tgv-3d-les");
    for (set, want) in [
        (
            "navier-stokes.les=\"wale\"",
            "les = \"wale\": unknown; give \"none\", \"smagorinsky\" or \"dynamic\"",
        ),
        (
            "navier-stokes.smagorinsky_constant=-0.1",
            "navier-stokes.smagorinsky_constant: -0.1: must be a finite number >= 0",
        ),
        (
            "navier-stokes.smagorinsky_constant=nan",
            "navier-stokes.smagorinsky_constant: NaN",
        ),
        (
            "mesh=\"builtin:pi-box-1\"",
            "give builtin:pi-box-N with N from 2 to 128",
        ),
    ] {
        let o = run_cpu(
            &case,
            &dir.path().join("out"),
            &["--set", set, "--set", "time.end_time=0.05"],
        );
        assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{set}: {}", stderr(&o));
    }
}

/// The mean wake (`navier-stokes.wake`): summary.json `wake` has the base pressure
/// coefficient and the recirculation length L / D from the running averages (behind the DFG
/// cylinder after a short start: a small bubble and a base pressure below the free stream's);
/// a base point inside the body, or no statistics, are refused naming the key.
#[test]
fn the_mean_wake_reports_base_pressure_and_recirculation_length() {
    let dir = tempfile::tempdir().unwrap();
    let case = common::write_template(dir.path(), "dfg-2d-2");
    let wake = "navier-stokes.wake={base=[0.2501,0.2,0.005],reference=[0.1,0.35,0.005],search=5}";
    let out = dir.path().join("run");
    let sets = [
        "--set",
        "time.end_time=0.2",
        "--set",
        "time.dt=0.004",
        "--set",
        "navier-stokes.statistics.start=0.1",
        "--set",
        wake,
    ];
    let o = run_cpu(&case, &out, &sets);
    assert!(o.status.success(), "{}", stderr(&o));
    let w = &common::summary(&out)["wake"];
    let (cpb, l) = (
        w["base_pressure_coefficient"].as_f64().unwrap(),
        w["recirculation_length"].as_f64().unwrap(),
    );
    assert!(cpb < -0.5 && cpb > -3.0, "{w}");
    assert!(l > 0.1 && l < 3.0, "{w}");
    assert_eq!(w["averaged_from"].as_f64(), Some(0.1), "{w}");
    let inside = "navier-stokes.wake={base=[0.2,0.2,0.005],reference=[0.1,0.35,0.005]}";
    let o = run_cpu(
        &case,
        &dir.path().join("bad"),
        &["--set", inside, "--set", "time.end_time=0.001"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("navier-stokes.wake.base") && stderr(&o).contains("outside the mesh"),
        "{}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(&case)
        .unwrap()
        .replace("statistics = { start = 5.0 }\n", "");
    let (o, _) = cli(dir.path(), "nostats", &text, &["--set", wake]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("navier-stokes.wake") && stderr(&o).contains("statistics"),
        "{}",
        stderr(&o)
    );
}
