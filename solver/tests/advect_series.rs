//! A time-dependent velocity from a `.pvd` series (`velocity = { kind = "series" }`, CPU):
//! identical frames repeat the steady run byte for byte; a uniform velocity growing linearly in
//! time and a rotation whose rate grows linearly in time (both exact under the linear
//! interpolation between two frames) carry the bump where the exact solution has it, which the
//! latest frame alone does not; a bad series is refused with exit 2, naming the file and key.

mod common;

use common::{last_cell_array, run_cpu, stderr};

use meshtool::PreparedMesh;
use solver::cases::advect::series::write_series;
use solver::cases::advect::velocity::VelocitySpec;
use solver::cases::advect::Profile;
use std::f64::consts::PI;
use std::path::{Path, PathBuf};

fn box_mesh(path: &Path, n: usize) -> PathBuf {
    use meshtool::generate::cartesian_box::{generate, BoxSpec};
    let raw = generate(&BoxSpec {
        dims: [n; 3],
        lo: [0.0; 3],
        hi: [1.0; 3],
    })
    .unwrap();
    meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Rcm)
        .unwrap()
        .0
        .write(path)
        .unwrap();
    path.to_path_buf()
}

/// `advect-rotation` with the overrides, into DIR/out-NAME; the output folder.
fn run(dir: &Path, name: &str, sets: &[String]) -> PathBuf {
    let case = common::write_template(dir, "advect-rotation");
    let out = dir.join(format!("out-{name}"));
    let extra: Vec<&str> = sets.iter().flat_map(|s| ["--set", s.as_str()]).collect();
    let o = run_cpu(&case, &out, &extra);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    out
}

fn series(file: &Path) -> String {
    format!("advect.velocity={{kind=\"series\",file=\"{}\"}}", file.display())
}

fn rotation(omega: f64) -> VelocitySpec {
    VelocitySpec::Rotation { omega }
}

/// A series of three identical frames gives exactly the run with that one steady field.
#[test]
fn identical_frames_repeat_the_steady_field_run_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(&dir.path().join("box.pmesh"), 8);
    let pvd = dir.path().join("steady.pvd");
    let frames: Vec<(f64, VelocitySpec)> = [0.0, 0.1, 0.3].iter().map(|&t| (t, rotation(2.0 * PI))).collect();
    write_series(&pvd, &mesh, &frames).unwrap();
    for (precision, extra) in [("f64", "advect.conserve=false"), ("f32", "advect.conserve=true")] {
        let base = vec![format!("run.precision=\"{precision}\""), extra.to_string()];
        let mut steady = base.clone();
        steady.push(format!(
            "advect.velocity={{kind=\"field\",file=\"{}\"}}",
            dir.path().join("steady_0000.vtu").display()
        ));
        let mut unsteady = base.clone();
        unsteady.push(series(&pvd));
        let (a, b) = (
            last_cell_array(&run(dir.path(), &format!("steady-{precision}"), &steady), "F"),
            last_cell_array(&run(dir.path(), &format!("series-{precision}"), &unsteady), "F"),
        );
        assert_eq!(a.len(), 3072);
        let diff = a.iter().zip(&b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        println!("{precision} ({extra}): three identical frames vs the steady field: max |dF| {diff:e}");
        assert!(a == b, "{precision}: differs by {diff:e}");
    }
}

/// Volume-weighted relative L1 error of F against `exact` at the centroids, and the shift of
/// F's centroid from `exact`'s.
fn errors(mesh: &Path, f: &[f64], exact: impl Fn([f64; 3]) -> f64) -> (f64, [f64; 3]) {
    let m = PreparedMesh::read(mesh).unwrap();
    let t = &m.topo;
    let (mut num, mut den) = (0.0, 0.0);
    let (mut cf, mut ce, mut sf, mut se) = ([0.0; 3], [0.0; 3], 0.0, 0.0);
    for c in 0..t.volumes.len() {
        let (v, x, e) = (t.volumes[c], t.centroids[c], exact(t.centroids[c]));
        num += v * (f[c] - e).abs();
        den += v * e.abs();
        sf += v * f[c];
        se += v * e;
        for k in 0..3 {
            cf[k] += v * f[c] * x[k];
            ce[k] += v * e * x[k];
        }
    }
    (num / den, std::array::from_fn(|k| cf[k] / sf - ce[k] / se))
}

fn norm(x: [f64; 3]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// u(t) = (1 + t, 0, 0) from two frames (t = 0 and 0.25): the trapezoidal departure is exact for
/// a velocity linear in time, so the bump moves by T + T^2 / 2 = 0.28125. The latest frame alone
/// (u = 1.25) moves it by 0.3125.
#[test]
fn a_uniform_velocity_growing_in_time_moves_the_bump_by_its_integral() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(&dir.path().join("box.pmesh"), 12);
    let pvd = dir.path().join("growing.pvd");
    let (t_end, reverse_after) = (0.25, None);
    let frames = [
        (
            0.0,
            VelocitySpec::Constant {
                speed: 1.0,
                reverse_after,
            },
        ),
        (
            t_end,
            VelocitySpec::Constant {
                speed: 1.0 + t_end,
                reverse_after,
            },
        ),
    ];
    write_series(&pvd, &mesh, &frames).unwrap();
    let center = [0.3, 0.5, 0.5];
    let base = vec![
        format!(
            "advect.profile={{kind=\"bump\",width=0.15,center=[{},{},{}]}}",
            center[0], center[1], center[2]
        ),
        "time.dt=0.0125".to_string(),
        format!("time.end_time={t_end}"),
        // The figures (VALIDATION.md) were measured with the wide fit; the default local
        // fit lags more on this Kuhn box (centroid -0.072 against -0.042, L1 0.21 against
        // 0.13), which shrinks the latest frame's overshoot margin below the 0.015 asserted.
        "advect.fit=\"wide\"".to_string(),
    ];
    let profile = Profile::Bump { width: 0.15, center };
    let profile = &profile;
    let shifted = |d: f64| move |x: [f64; 3]| profile.value([x[0] - d, x[1], x[2]], [0.0; 3], [1.0; 3]);
    let exact = t_end + 0.5 * t_end * t_end;
    let mut with_series = base.clone();
    with_series.push(series(&pvd));
    let f = last_cell_array(&run(dir.path(), "series", &with_series), "F");
    let (l1, shift) = errors(&mesh, &f, shifted(exact));
    let mut latest = base.clone();
    latest.push(format!("advect.velocity={{kind=\"field\",file=\"{}\"}}", pvd.display()));
    let g = last_cell_array(&run(dir.path(), "latest", &latest), "F");
    let (l1_latest, shift_latest) = errors(&mesh, &g, shifted(exact));
    let mut steady = base.clone();
    steady.push(format!("advect.velocity={{kind=\"constant\",speed={}}}", exact / t_end));
    let h = last_cell_array(&run(dir.path(), "steady", &steady), "F");
    let (l1_steady, shift_steady) = errors(&mesh, &h, shifted(exact));
    println!(
        "u = 1 + t, 20 steps to t = 0.25 on 10,368 tets: relative L1 {l1:.4} with the series, {l1_steady:.4} at \
         the constant mean speed 1.125 (same exact solution), {l1_latest:.4} with the latest frame; F's centroid \
         off the exact one's in x by {:+.4} / {:+.4} / {:+.4} (exact shift {exact})",
        shift[0], shift_steady[0], shift_latest[0]
    );
    assert!(
        (shift[0] - shift_steady[0]).abs() < 0.01,
        "{shift:?} vs {shift_steady:?}"
    );
    assert!(shift_latest[0] - shift[0] > 0.015, "{shift_latest:?} vs {shift:?}");
    assert!(
        l1 < 1.1 * l1_steady && l1_latest > 1.3 * l1,
        "{l1} {l1_steady} {l1_latest}"
    );
}

/// Rotation about the box's z axis at omega(t) = pi + 4 pi t from frames at t = 0 and 0.5 (exact
/// under linear interpolation): a half turn, theta = pi T + 2 pi T^2 = pi. The same half turn at
/// the constant rate 2 pi has the same exact solution (the reference error of the scheme); the
/// latest frame alone (3 pi) turns it by 1.5 pi.
#[test]
fn a_rotation_whose_rate_grows_in_time_turns_the_bump_by_its_integral() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(&dir.path().join("box.pmesh"), 12);
    let pvd = dir.path().join("spin-up.pvd");
    let t_end = 0.5;
    write_series(&pvd, &mesh, &[(0.0, rotation(PI)), (t_end, rotation(3.0 * PI))]).unwrap();
    let base = vec!["time.dt=0.0125".to_string(), format!("time.end_time={t_end}")];
    let profile = Profile::Bump {
        width: 0.08,
        center: [0.75, 0.5, 0.5],
    };
    // Rotated by pi about (0.5, 0.5): x -> 1 - x, y -> 1 - y.
    let exact = |x: [f64; 3]| profile.value([1.0 - x[0], 1.0 - x[1], x[2]], [0.0; 3], [1.0; 3]);
    let case = |name: &str, velocity: String| {
        let mut sets = base.clone();
        sets.push(velocity);
        errors(&mesh, &last_cell_array(&run(dir.path(), name, &sets), "F"), exact)
    };
    let (l1, shift) = case("series", series(&pvd));
    let (l1_steady, _) = case(
        "steady",
        "advect.velocity={kind=\"rotation\",omega=6.283185307179586}".into(),
    );
    let latest = format!("advect.velocity={{kind=\"field\",file=\"{}\"}}", pvd.display());
    let (l1_latest, shift_latest) = case("latest", latest);
    println!(
        "omega = pi + 4 pi t, 40 steps to a half turn on 10,368 tets: relative L1 {l1:.4} with the series \
         (centroid off by {:.2e}), {l1_steady:.4} turning at the constant 2 pi, {l1_latest:.4} with the latest \
         frame (centroid off by {:.2e})",
        norm(shift),
        norm(shift_latest)
    );
    assert!(l1 < 1.25 * l1_steady, "{l1} vs {l1_steady}");
    assert!(norm(shift) < 0.03, "{shift:?}");
    assert!(l1 < 0.25 * l1_latest, "{l1} vs {l1_latest}");
}

/// `advect-rotation` in DIR (its mesh DIR/box.pmesh) with the overrides: exit 2, every needle
/// in the message, nothing written.
fn refused(dir: &Path, sets: &[String], needles: &[&str]) {
    let case = common::write_template(dir, "advect-rotation");
    let out = dir.join("refused");
    let extra: Vec<&str> = sets.iter().flat_map(|s| ["--set", s.as_str()]).collect();
    let o = run_cpu(&case, &out, &extra);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{sets:?}: {e}");
    for n in needles {
        assert!(e.contains(n), "{sets:?}: expected '{n}' in: {e}");
    }
    assert!(!out.exists(), "{sets:?}: output written");
}

#[test]
fn a_bad_series_is_refused_naming_the_file_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mesh = box_mesh(&d.join("box.pmesh"), 6);
    let good = d.join("good.pvd");
    write_series(&good, &mesh, &[(0.0, rotation(1.0)), (0.25, rotation(2.0))]).unwrap();
    let key = "advect.velocity.file";
    let text = std::fs::read_to_string(&good).unwrap();
    let edited = |name: &str, edit: &dyn Fn(&str) -> String| {
        let p = d.join(name);
        std::fs::write(&p, edit(&text)).unwrap();
        p
    };
    let out_of_order = edited("swapped.pvd", &|t| t.replacen("timestep=\"0.0", "timestep=\"9.0", 1));
    refused(
        d,
        &[series(&out_of_order)],
        &[key, "swapped.pvd", "frames out of order"],
    );
    let missing = edited("missing.pvd", &|t| t.replace("good_0001.vtu", "gone.vtu"));
    refused(d, &[series(&missing)], &[key, "missing.pvd", "gone.vtu does not exist"]);
    let single = edited("single.pvd", &|t| {
        t.lines()
            .filter(|l| !l.contains("good_0001.vtu"))
            .collect::<Vec<_>>()
            .join("\n")
    });
    refused(d, &[series(&single)], &[key, "single.pvd", "two or more"]);
    let array = format!(
        "advect.velocity={{kind=\"series\",file=\"{}\",array=\"speed\"}}",
        good.display()
    );
    refused(d, &[array], &[key, "good_0000.vtu", "no cell array named 'speed'"]);
    let other = d.join("other.pvd");
    write_series(
        &other,
        &box_mesh(&d.join("box5.pmesh"), 5),
        &[(0.0, rotation(1.0)), (1.0, rotation(1.0))],
    )
    .unwrap();
    refused(
        d,
        &[series(&other)],
        &[key, "other_0000.vtu", "not those of the prepared mesh"],
    );
    let long = vec![series(&good), "time.end_time=0.5".into()];
    refused(d, &long, &[key, "the frames cover [0, 0.25]", "outside = \"clamp\""]);
    let late = vec![series(&good), "advect.velocity.offset=0.1".into()];
    refused(d, &late, &[key, "0.1..0.35"]);
    refused(
        d,
        &["advect.velocity={kind=\"series\"}".into()],
        &["advect.velocity", "give one of `file`"],
    );
    let field = "advect.velocity={kind=\"series\",interval=0.1,sample={kind=\"field\",file=\"x.vtu\"}}";
    refused(d, &[field.into()], &["advect.velocity.sample", "analytic"]);
    let no_interval = "advect.velocity={kind=\"series\",sample={kind=\"rotation\"}}";
    refused(d, &[no_interval.into()], &["advect.velocity.interval"]);

    // Held at the last frame past its time where the case says so, with a warning.
    let clamp: [String; 3] = [
        series(&good),
        "time.end_time=0.5".into(),
        "advect.velocity.outside=\"clamp\"".into(),
    ];
    let case = common::write_template(d, "advect-rotation");
    let extra: Vec<&str> = clamp.iter().flat_map(|s| ["--set", s.as_str()]).collect();
    let o = run_cpu(&case, &d.join("clamped"), &extra);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning") && stderr(&o).contains("held"),
        "{}",
        stderr(&o)
    );
}
