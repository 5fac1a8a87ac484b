//! Semi-Lagrangian advection on tetrahedra (CPU): the limiter creates no new extrema, the
//! default (quadratic) interpolation is second order on the rotating bump and LeVeque's
//! deformation on Kuhn and Gmsh boxes, linear interpolation with BFECC approaches second order,
//! and the cell field is written as a VTU series that VTK's reader opens.

mod common;

use common::{last_cell_array, solver};

use meshtool::generate::cartesian_box::{generate, BoxSpec};
use meshtool::pmesh::prepare;
use meshtool::reorder::Reorder;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn box_mesh(dir: &Path, n: usize) -> String {
    let raw = generate(&BoxSpec {
        dims: [n; 3],
        lo: [0.0; 3],
        hi: [1.0; 3],
    })
    .unwrap();
    let p = dir.join(format!("box{n}.pmesh"));
    prepare(&raw, Reorder::Rcm).unwrap().0.write(&p).unwrap();
    p.to_string_lossy().into_owned()
}

fn run(dir: &Path, template: &str, sets: &[String]) -> serde_json::Value {
    let case = dir.join(format!("{template}.toml"));
    std::fs::write(&case, solver(&["cases", template]).stdout).unwrap();
    let mut name = sets
        .join("-")
        .replace(['/', '"', '=', '{', '}', '[', ']', ',', ' '], "_");
    if name.len() > 120 {
        // A file name has at most 255 bytes: long override lists go by their hash.
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        name.hash(&mut h);
        name = format!("{}-{:016x}", &name[..60], h.finish());
    }
    let out = dir.join(format!("out-{name}"));
    let mut args = vec![
        "run".to_string(),
        case.to_string_lossy().into(),
        "-q".into(),
        "--backend".into(),
        "cpu".into(),
        "-o".into(),
        out.to_string_lossy().into(),
    ];
    for s in sets {
        args.push("--set".into());
        args.push(s.clone());
    }
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let o = solver(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    s["out"] = serde_json::json!(out);
    s
}

#[test]
fn limited_bfecc_creates_no_new_extrema_and_writes_a_vtu_series() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), 10);
    for interp in ["quadratic", "voronoi", "linear"] {
        let s = run(
            dir.path(),
            "advect-step",
            &[
                format!("mesh={mesh}"),
                format!("advect.interpolation={interp}"),
                "time.steps=20".into(),
                "advect.velocity.reverse_after=10".into(),
                "advect.boundary={xmin={dirichlet=0.0}}".into(),
            ],
        );
        let (lo, hi) = (s["initial_min"].as_f64().unwrap(), s["initial_max"].as_f64().unwrap());
        assert!(
            s["final_min"].as_f64().unwrap() >= lo - 1e-12 && s["final_max"].as_f64().unwrap() <= hi + 1e-12,
            "{s}"
        );
        assert_eq!(s["cells"], 6000);
        let l1 = s["errors"]["l1"].as_f64().unwrap();
        println!("step, 10 + 10 steps at CFL 3 on 6,000 Kuhn tets, bfecc+{interp}: relative L1 {l1:.3}");
        assert!(l1.is_finite() && l1 > 0.0);
        let out = Path::new(s["out"].as_str().unwrap());
        let script = "import sys, os, vtk\nimport xml.etree.ElementTree as ET\npvd = sys.argv[1]\nfor d in ET.parse(pvd).getroot().iter('DataSet'):\n    r = vtk.vtkXMLUnstructuredGridReader()\n    r.SetFileName(os.path.join(os.path.dirname(pvd), d.get('file')))\n    r.Update()\n    o = r.GetOutput()\n    print(o.GetNumberOfCells(), o.GetCellData().GetArrayName(0))\n";
        let Some(text) = common::vtk_python(script, &out.join("advect-step.pvd")) else {
            continue;
        };
        assert_eq!(text.lines().count(), 3, "{text}"); // steps 0, 10, 20
        assert!(text.lines().all(|l| l == "6000 F"), "{text}");
    }
}

/// The advected scalar is written under the name `advect.name` sets (the paper's F by default),
/// in the VTU files and summary.json's totals; a name that is no name is refused.
#[test]
fn the_scalar_takes_the_name_the_user_gives() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), 6);
    let base = [
        format!("mesh={mesh}"),
        "time.steps=4".into(),
        "advect.boundary={}".into(),
    ];
    let mut named = base.to_vec();
    named.push("advect.name=\"dye\"".into());
    let s = run(dir.path(), "advect-step", &named);
    assert!(s["totals"]["dye"]["end"].is_number(), "{s}");
    let out = Path::new(s["out"].as_str().unwrap());
    let vtu = std::fs::read(out.join("step_0000004.vtu")).unwrap();
    assert!(String::from_utf8_lossy(&vtu).contains("Name=\"dye\""));
    let case = common::write_template(dir.path(), "advect-step");
    for bad in ["\"velocity\"", "\"\"", "\"a b\""] {
        let mut extra: Vec<String> = base.iter().flat_map(|s| ["--set".to_string(), s.clone()]).collect();
        extra.extend(["--set".to_string(), format!("advect.name={bad}")]);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let o = common::run_cpu(&case, &dir.path().join("refused"), &extra);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", common::stderr(&o));
        assert!(common::stderr(&o).contains("advect.name"), "{}", common::stderr(&o));
    }
}

/// BFECC makes the first-order linear interpolation second order (Dupont & Liu): on the
/// rotating bump (width 0.15, CFL 2, the limiter on) the observed L1 order approaches 2 from
/// below as the bump is resolved: 1.29 from 8^3 to 16^3 (h = 1/8 is about the bump's width),
/// 1.79 from 16^3 to 24^3. Asserted: the order rises with the resolution and reaches 1.7 to 2.1
/// on the finer pair, at least 1.2 on the coarse one.
#[test]
fn linear_bfecc_approaches_second_order_on_the_rotating_bump() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![];
    for n in [8usize, 16, 24] {
        let mesh = box_mesh(dir.path(), n);
        let s = run(
            dir.path(),
            "advect-rotation",
            &[
                format!("mesh={mesh}"),
                "advect.interpolation=linear".into(),
                "advect.profile={kind=\"bump\",width=0.15,center=[0.7,0.5,0.5]}".into(),
                "time.cfl=2".into(),
            ],
        );
        rows.push((n, s["errors"]["l1"].as_f64().unwrap()));
    }
    let orders: Vec<f64> = rows
        .windows(2)
        .map(|w| {
            let order = (w[0].1 / w[1].1).ln() / (w[1].0 as f64 / w[0].0 as f64).ln();
            println!(
                "n {:>3} -> {:>3}: L1 {:.4e} -> {:.4e}, observed order {order:.2}",
                w[0].0, w[1].0, w[0].1, w[1].1
            );
            order
        })
        .collect();
    assert!(orders[0] >= 1.2 && orders[1] > orders[0], "orders {orders:.2?}");
    assert!(
        (1.7..=2.1).contains(&orders[1]),
        "orders {orders:.2?}: not near second order"
    );
}

/// Gmsh boxes of target sizes 1/8, 1/16, 1/32 (None, said, without gmsh).
fn gmsh_boxes(dir: &Path) -> Option<Vec<String>> {
    [8, 16, 32].map(|n| gmsh_box(dir, n)).into_iter().collect()
}

/// A Delaunay mesh of the unit cube by Gmsh (OpenCASCADE box, target size 1/n), prepared; None
/// (with a visible SKIPPED) where the `gmsh` program is missing, which CI does not allow.
fn gmsh_box(dir: &Path, n: usize) -> Option<String> {
    if Command::new("gmsh").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "gmsh is required under CI");
        eprintln!("SKIPPED: Gmsh boxes (gmsh missing; scripts/setup.sh installs it)");
        return None;
    }
    let geo = dir.join("gbox.geo");
    std::fs::write(
        &geo,
        "SetFactory(\"OpenCASCADE\");\nDefineConstant[ h = 0.125 ];\nBox(1) = {0, 0, 0, 1, 1, 1};\n\
         Mesh.CharacteristicLengthMin = h;\nMesh.CharacteristicLengthMax = h;\n\
         Physical Volume(\"box\") = {1};\nPhysical Surface(\"walls\") = {1, 2, 3, 4, 5, 6};\n",
    )
    .unwrap();
    let msh = dir.join(format!("gbox{n}.msh"));
    let h = format!("{}", 1.0 / n as f64);
    let o = Command::new("gmsh")
        .args(["-3", "-v", "1", "-setnumber", "h", &h])
        .arg(&geo)
        .args(["-format", "msh41", "-o"])
        .arg(&msh)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let raw = meshtool::msh::read_msh(&msh).unwrap();
    let p = dir.join(format!("gbox{n}.pmesh"));
    prepare(&raw, Reorder::Rcm).unwrap().0.write(&p).unwrap();
    Some(p.to_string_lossy().into_owned())
}

/// Runs `template` with `sets` on each mesh, asserting no new extrema; prints and returns
/// (h, relative L1) with h = (1 / cells)^(1/3) (the meshes fill the unit cube), and asserts that
/// each observed order ln(e1 / e2) / ln(h1 / h2) is at least `min_order`.
fn assert_order(dir: &Path, label: &str, template: &str, meshes: &[String], sets: &[&str], min_order: f64) {
    let mut rows: Vec<(f64, f64)> = vec![];
    for mesh in meshes {
        let mut all = vec![format!("mesh={mesh}")];
        all.extend(sets.iter().map(|s| s.to_string()));
        let t = Instant::now();
        let s = run(dir, template, &all);
        assert_eq!(
            s["kernel"], "bfecc+quadratic+limiter+conserve",
            "the default is what this test measures"
        );
        let (lo, hi) = (s["initial_min"].as_f64().unwrap(), s["initial_max"].as_f64().unwrap());
        let (flo, fhi) = (s["final_min"].as_f64().unwrap(), s["final_max"].as_f64().unwrap());
        assert!(flo >= lo - 1e-12 && fhi <= hi + 1e-12, "new extrema on {mesh}: {s}");
        let cells = s["cells"].as_f64().unwrap();
        let h = cells.cbrt().recip();
        let l1 = s["errors"]["l1"].as_f64().unwrap();
        println!(
            "{label}: {cells:>7} cells, {:>4} steps, relative L1 {l1:.4e}, range [{flo:.2e}, {fhi:.4}] of [{lo:.2e}, {hi:.4}], {:.1} s",
            s["steps"],
            t.elapsed().as_secs_f64()
        );
        rows.push((h, l1));
    }
    let orders: Vec<f64> = rows
        .windows(2)
        .map(|w| (w[0].1 / w[1].1).ln() / (w[0].0 / w[1].0).ln())
        .collect();
    println!("{label}: observed L1 orders {orders:.2?}");
    assert!(
        orders.iter().all(|&o| o >= min_order),
        "{label}: observed orders {orders:.2?}, below {min_order}"
    );
}

const ROTATION_BUMP: &str = "advect.profile={kind=\"bump\",width=0.1,center=[0.65,0.5,0.5]}";
const DEFORMATION_BUMP: &str = "advect.profile={kind=\"bump\",width=0.2,center=[0.35,0.35,0.35]}";

/// The order test: solid-body rotation (a quarter turn) of a smooth bump that stays
/// clear of the walls (the box's zero-gradient inflow would add an error of its own), BFECC +
/// limiter with the template's default interpolation, CFL 2, Kuhn boxes 8^3, 16^3, 32^3.
#[test]
fn default_interpolation_is_second_order_on_the_rotating_bump() {
    let dir = tempfile::tempdir().unwrap();
    let meshes: Vec<String> = [8, 16, 32].map(|n| box_mesh(dir.path(), n)).into();
    let sets = [ROTATION_BUMP, "time.cfl=2"];
    assert_order(dir.path(), "rotation, Kuhn", "advect-rotation", &meshes, &sets, 1.8);
}

/// The same on Delaunay boxes from Gmsh (target sizes 1/8, 1/16, 1/32).
#[test]
fn default_interpolation_is_second_order_on_the_rotating_bump_on_gmsh_boxes() {
    let dir = tempfile::tempdir().unwrap();
    let Some(meshes) = gmsh_boxes(dir.path()) else {
        return;
    };
    let sets = [ROTATION_BUMP, "time.cfl=2"];
    assert_order(dir.path(), "rotation, Gmsh", "advect-rotation", &meshes, &sets, 1.8);
}

/// LeVeque's reversing deformation (period 1; the exact solution at t = 1 is the initial
/// bump), BFECC + limiter, CFL 2, Kuhn boxes 8^3, 16^3, 32^3.
#[test]
fn default_interpolation_is_second_order_on_leveque_deformation() {
    let dir = tempfile::tempdir().unwrap();
    let meshes: Vec<String> = [8, 16, 32].map(|n| box_mesh(dir.path(), n)).into();
    let sets = [DEFORMATION_BUMP, "time.cfl=2"];
    assert_order(
        dir.path(),
        "deformation, Kuhn",
        "advect-deformation",
        &meshes,
        &sets,
        1.8,
    );
}

/// The same on the Gmsh boxes.
#[test]
fn default_interpolation_is_second_order_on_leveque_deformation_on_gmsh_boxes() {
    let dir = tempfile::tempdir().unwrap();
    let Some(meshes) = gmsh_boxes(dir.path()) else {
        return;
    };
    let sets = [DEFORMATION_BUMP, "time.cfl=2"];
    assert_order(
        dir.path(),
        "deformation, Gmsh",
        "advect-deformation",
        &meshes,
        &sets,
        1.8,
    );
}

/// The peer figure on the paper's duct (Gmsh size 0.037, one thread so that the mesh is
/// the same every time: 39,980 tets, the mesh of the side-by-side with OpenFOAM): the step's
/// relative L1 with the defaults (`fit = "local"` and `conserve = true`, which
/// keeps the total to round-off) is at most half of OpenFOAM's best scheme on that mesh
/// (linearUpwind + backward at dt/6: 101.8 %, VALIDATION.md), and so is the plain scheme's,
/// where the `wide` fit (plain) stays above 60 %; none creates new extrema.
#[test]
fn default_fit_halves_openfoams_best_on_the_duct_step() {
    if Command::new("gmsh").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "gmsh is required under CI");
        eprintln!("SKIPPED: duct step (gmsh missing; scripts/setup.sh installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let geo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes/duct.geo");
    let msh = dir.path().join("duct.msh");
    let o = Command::new("gmsh")
        .args(["-3", "-v", "1", "-nt", "1", "-setnumber", "size", "0.037"])
        .arg(&geo)
        .args(["-format", "msh41", "-o"])
        .arg(&msh)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let raw = meshtool::msh::read_msh(&msh).unwrap();
    let mesh = dir.path().join("duct.pmesh");
    prepare(&raw, Reorder::Hilbert).unwrap().0.write(&mesh).unwrap();
    let mut l1 = vec![];
    for (fit, conserve) in [("local", true), ("local", false), ("wide", false)] {
        let sets = [
            format!("mesh=\"{}\"", mesh.display()),
            format!("advect.fit=\"{fit}\""),
            format!("advect.conserve={conserve}"),
            "output.every=60".into(),
        ];
        let s = run(dir.path(), "advect-step", &sets);
        assert_eq!(s["cells"], 39980, "not the side-by-side's mesh");
        let (flo, fhi) = (s["final_min"].as_f64().unwrap(), s["final_max"].as_f64().unwrap());
        assert!(flo >= 0.0 && fhi <= 1.0, "new extrema with fit {fit}: [{flo}, {fhi}]");
        let e = s["errors"]["l1"].as_f64().unwrap();
        let change = &s["totals"][if conserve { "conservative" } else { "F" }]["relative_change"];
        println!(
            "duct step, 39,980 tets, fit {fit}, conserve {conserve}: relative L1 {:.2} %, total {change}",
            100.0 * e
        );
        if conserve {
            assert!(change.as_f64().unwrap().abs() < 1e-12, "{s}");
        }
        l1.push(e);
    }
    for (e, what) in l1[..2].iter().zip(["default (conserving)", "plain local fit"]) {
        assert!(*e <= 0.5 * 1.018, "{what}: L1 {e} above half of OpenFOAM's 101.8 %");
    }
    assert!(l1[2] > 0.6, "wide fit: L1 {} (measured 60.6 %)", l1[2]);
}

/// summary.json reports the total of F; with `advect.conserve` (the default) the total less
/// the net inflow through the boundary stays at its initial value to 1e-12 (f64) and the step
/// still creates no new extrema. The paper's test at CFL 1 on a box whose x faces are Dirichlet
/// 0: 10 steps out and 10 back (the profile stays inside), and 30 and 30 (part of it leaves
/// through xmax, exercising the inflow term).
#[test]
fn conservative_option_keeps_the_total_and_the_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), 10);
    let base = [
        format!("mesh={mesh}"),
        "output.every=0".into(),
        "advect.boundary={xmin={dirichlet=0.0},xmax={dirichlet=0.0}}".into(),
        "time.cfl=1".into(),
    ];
    for (profile, steps) in [("step", 10), ("sine-ellipse", 10), ("step", 30), ("sine-ellipse", 30)] {
        let mut sets = base.to_vec();
        sets.push(format!("advect.profile={{kind=\"{profile}\"}}"));
        sets.push(format!("time.steps={}", 2 * steps));
        sets.push(format!("advect.velocity.reverse_after={steps}"));
        // The default conserves; the plain scheme is `conserve = false`.
        let kept = run(dir.path(), "advect-step", &sets);
        sets.push("advect.conserve=false".into());
        let plain = run(dir.path(), "advect-step", &sets);
        assert_eq!(kept["kernel"], "bfecc+quadratic+limiter+conserve");
        let t = &kept["totals"];
        let drift = t["conservative"]["relative_change"].as_f64().unwrap();
        let (lo, hi) = (
            kept["initial_min"].as_f64().unwrap(),
            kept["initial_max"].as_f64().unwrap(),
        );
        let (flo, fhi) = (kept["final_min"].as_f64().unwrap(), kept["final_max"].as_f64().unwrap());
        println!(
            "{profile}, {steps} + {steps} steps: total of F {:+.3e} relative without the option; with it \
             {:+.3e} (inflow {:+.3e}, total less inflow {drift:+.2e}); L1 {:.4} -> {:.4}; range [{flo:.2e}, {fhi:.4}]",
            plain["totals"]["F"]["relative_change"].as_f64().unwrap(),
            t["F"]["relative_change"].as_f64().unwrap(),
            t["F_inflow"]["end"].as_f64().unwrap(),
            plain["errors"]["l1"].as_f64().unwrap(),
            kept["errors"]["l1"].as_f64().unwrap(),
        );
        assert!(drift.abs() < 1e-12, "{t}");
        assert!(flo >= lo - 1e-12 && fhi <= hi + 1e-12, "{kept}");
        assert!(plain["totals"]["conservative"].is_null());
    }
}

/// Deliverable 1's second source of velocity: the `velocity` cell field a previous run wrote.
/// Its least-squares Jacobian is exact for the (linear) rotation field, so the run must repeat
/// the analytic one; the f32 run must track the f64 one to single-precision accuracy.
#[test]
fn velocity_from_a_previous_run_repeats_the_analytic_run_and_f32_tracks_f64() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path(), 10);
    let common = [
        format!("mesh={mesh}"),
        "time.dt=0.0125".into(), // the same 20 steps whichever max speed the field reports
        "output.every=10".into(),
        "advect.interpolation=voronoi".into(),
        // The step itself: the conservation's boundary-inflow estimate evaluates the velocity
        // at the wall faces, where the cell field's linear reconstruction is not the analytic
        // rotation's exact zero normal speed (9.6e-4 apart after 20 steps with it).
        "advect.conserve=false".into(),
    ];
    let analytic = run(dir.path(), "advect-rotation", &common);
    let a_out = Path::new(analytic["out"].as_str().unwrap()).to_path_buf();
    // The series stands for its latest output (the rotation is steady: any output will do).
    let series = a_out.join("advect-rotation.pvd");
    let mut with_field = common.to_vec();
    with_field.push(format!(
        "advect.velocity={{kind=\"field\",file=\"{}\"}}",
        series.display()
    ));
    let field = run(dir.path(), "advect-rotation", &with_field);
    let (fa, ff) = (
        last_cell_array(&a_out, "F"),
        last_cell_array(Path::new(field["out"].as_str().unwrap()), "F"),
    );
    let diff = fa.iter().zip(&ff).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    println!("rotation from the analytic field vs from the previous run's cell field: max |dF| {diff:.2e}");
    assert!(
        diff < 1e-9,
        "field velocity run differs from the analytic run by {diff:e}"
    );

    // f32 against f64. The linear interpolant is continuous, so the two runs must agree to
    // single-precision accuracy everywhere. Eq. (11)'s Voronoi interpolant jumps across
    // dual-cell faces, and on this Kuhn mesh many departure points lie exactly on one (ties
    // of the nearest vertex) where f32 and f64 round to different sides: compare its error norm.
    let mut linear = common.to_vec();
    linear.push("advect.interpolation=linear".into());
    let l64 = run(dir.path(), "advect-rotation", &linear);
    linear.push("run.precision=\"f32\"".into());
    let l32 = run(dir.path(), "advect-rotation", &linear);
    assert_eq!(l32["precision"], "f32");
    let (a, b) = (
        last_cell_array(Path::new(l64["out"].as_str().unwrap()), "F"),
        last_cell_array(Path::new(l32["out"].as_str().unwrap()), "F"),
    );
    let d32 = a.iter().zip(&b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    println!("linear BFECC, f32 vs f64 after 20 steps: max |dF| {d32:.2e} (bump amplitude 1)");
    assert!(d32 < 1e-5 && d32 > 0.0, "f32 vs f64: {d32:e}");
    let mut single = common.to_vec();
    single.push("run.precision=\"f32\"".into());
    let s32 = run(dir.path(), "advect-rotation", &single);
    let (e32, e64) = (
        s32["errors"]["l1"].as_f64().unwrap(),
        analytic["errors"]["l1"].as_f64().unwrap(),
    );
    println!("voronoi BFECC, relative L1 error: f64 {e64:.5e}, f32 {e32:.5e}");
    assert!((e32 - e64).abs() < 0.02 * e64, "L1 f32 {e32} vs f64 {e64}");

    // A field written on another mesh is refused, naming the key, before anything is written.
    let other = box_mesh(dir.path(), 8);
    let case = dir.path().join("advect-rotation.toml");
    let (mesh_set, refused) = (format!("mesh={other}"), dir.path().join("refused"));
    let o = common::run_cpu(&case, &refused, &["--set", &mesh_set, "--set", &with_field[5]]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("advect.velocity.file") && err.contains("not those of the prepared mesh"),
        "{err}"
    );
    assert!(!refused.join("summary.json").exists());
}

/// A periodic mesh is refused (the departure walks and the interpolation do not cross periodic
/// faces yet) rather than advected as if the periodic faces were ordinary interior faces.
#[test]
fn a_periodic_mesh_is_refused_until_advection_supports_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut raw = generate(&BoxSpec {
        dims: [4; 3],
        lo: [0.0; 3],
        hi: [1.0; 3],
    })
    .unwrap();
    raw.periodic.push(meshtool::mesh::PeriodicLink {
        slave_entity: 2,
        master_entity: 1,
        slave_patch: 1,
        master_patch: 0,
        affine: Some([
            1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]),
        pairs: Vec::new(),
    });
    let mesh = dir.path().join("periodic.pmesh");
    prepare(&raw, Reorder::Rcm).unwrap().0.write(&mesh).unwrap();
    let case = dir.path().join("advect.toml");
    std::fs::write(&case, solver(&["cases", "advect-rotation"]).stdout).unwrap();
    let out = dir.path().join("out");
    let set = format!("mesh={}", mesh.display());
    let o = solver(&[
        "run",
        case.to_str().unwrap(),
        "-q",
        "--backend",
        "cpu",
        "-o",
        out.to_str().unwrap(),
        "--set",
        &set,
    ]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("periodic faces are not yet supported by family advect"),
        "{e}"
    );
}
