//! The command line as scripts use it: exit codes, no output on error, JSON info, VTU export
//! opened by VTK's own reader.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

fn meshtool(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshtool"))
        .args(args)
        .output()
        .unwrap()
}

const GOOD: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n2 7 \"wall\"\n$EndPhysicalNames\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n$Elements\n8\n1 4 2 9 1 1 2 3 4\n2 4 2 9 1 2 3 4 5\n3 2 2 7 1 1 3 2\n4 2 2 7 1 1 2 4\n5 2 2 7 1 1 4 3\n6 2 2 7 1 2 3 5\n7 2 2 7 1 2 5 4\n8 2 2 7 1 3 4 5\n$EndElements\n";

/// Run `prepare` on `text`, with a stale output file present, and expect exit 2, a message
/// containing `needle`, and no output file afterwards.
fn expect_bad_input(text: &str, needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.msh");
    let output = dir.path().join("out.pmesh");
    std::fs::write(&input, text).unwrap();
    std::fs::write(&output, "stale").unwrap();
    let o = meshtool(&["prepare", input.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    assert!(
        err.contains("in.msh") || needle.contains("non-manifold"),
        "message names the file: {err}"
    );
    assert!(!output.exists(), "output must not exist after an error");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary files left behind"
    );
}

#[test]
fn good_file_prepares_and_info_json_has_the_interface_fields() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.msh");
    let output = dir.path().join("out.pmesh");
    std::fs::write(&input, GOOD).unwrap();
    let o = meshtool(&[
        "prepare",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--reorder",
        "hilbert",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for file in [&input, &output] {
        let o = meshtool(&["info", "--json", file.to_str().unwrap()]);
        assert!(o.status.success());
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["nodes"], 5);
        assert_eq!(j["cells"], 2);
        assert!((j["volume"].as_f64().unwrap() - (1.0 / 6.0 + 1.0 / 3.0)).abs() < 1e-12);
        assert_eq!(j["patches"][0]["name"], "wall");
        assert_eq!(j["patches"][0]["faces"], 6);
        assert!(j["patches"][0]["area"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn truncated_file() {
    expect_bad_input(&GOOD[..GOOD.len() - 60], "line");
}

#[test]
fn wrong_element_count() {
    expect_bad_input(&GOOD.replace("$Elements\n8\n", "$Elements\n9\n"), "elements");
}

#[test]
fn wrong_node_count() {
    expect_bad_input(&GOOD.replace("$Nodes\n5\n", "$Nodes\n4\n"), "$EndNodes");
}

#[test]
fn node_tag_out_of_range() {
    expect_bad_input(&GOOD.replace("1 4 2 9 1 1 2 3 4", "1 4 2 9 1 1 2 3 42"), "node tag 42");
}

#[test]
fn unknown_element_type() {
    expect_bad_input(
        &GOOD.replace("3 2 2 7 1 1 3 2", "3 99 2 7 1 1 3 2"),
        "unknown element type 99",
    );
}

#[test]
fn hexahedra_are_named() {
    expect_bad_input(
        &GOOD.replace("1 4 2 9 1 1 2 3 4", "1 5 2 9 1 1 2 3 4 1 2 3 4"),
        "8-node hexahedron",
    );
}

#[test]
fn non_manifold_face() {
    // A third tetrahedron on face (2,3,4).
    let text = GOOD
        .replace("$Nodes\n5\n", "$Nodes\n6\n")
        .replace("5 1 1 1\n", "5 1 1 1\n6 2 2 2\n")
        .replace("$Elements\n8\n", "$Elements\n9\n")
        .replace("8 2 2 7 1 3 4 5\n", "8 2 2 7 1 3 4 5\n9 4 2 9 1 2 3 4 6\n");
    expect_bad_input(&text, "non-manifold");
}

#[test]
fn boundary_face_on_no_patch() {
    let text = GOOD
        .replace("$Elements\n8\n", "$Elements\n7\n")
        .replace("8 2 2 7 1 3 4 5\n", "");
    expect_bad_input(&text, "belong to no patch");
}

#[test]
fn not_a_pmesh_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.pmesh");
    std::fs::write(&f, b"PMESH\0\r\n\x07\0\0\0").unwrap();
    let o = meshtool(&["info", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn exported_vtu_opens_in_vtk_reader() {
    let py = "/usr/bin/python3";
    if !have("VTK's Python reader (python3-vtk9)", py, &["-c", "import vtk"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pm = dir.path().join("box.pmesh");
    let vtu = dir.path().join("box.vtu");
    let o = meshtool(&["generate", "box", "--dims", "4,3,2", "-o", pm.to_str().unwrap()]);
    assert!(o.status.success());
    let o = meshtool(&["export", pm.to_str().unwrap(), "-o", vtu.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let script = "import sys, vtk\nr = vtk.vtkXMLUnstructuredGridReader()\nr.SetFileName(sys.argv[1])\nr.Update()\no = r.GetOutput()\ncd = o.GetCellData()\nprint(o.GetNumberOfCells(), o.GetNumberOfPoints(), ','.join(cd.GetArrayName(i) for i in range(cd.GetNumberOfArrays())))\nprint(cd.GetArray('volume').GetRange())\n";
    let o = Command::new(py).args(["-c", script]).arg(&vtu).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut lines = out.lines();
    let first: Vec<&str> = lines.next().unwrap().split(' ').collect();
    assert_eq!(first[0], "144"); // 4*3*2 cubes * 6 tets
    assert_eq!(first[1], "60"); // 5*4*3 nodes
    for name in [
        "volume",
        "aspect_ratio",
        "min_dihedral_deg",
        "max_dihedral_deg",
        "non_orthogonality_deg",
        "skewness",
        "boundary_patch",
        "order_index",
        "input_index",
    ] {
        assert!(
            first[2].split(',').any(|n| n == name),
            "array {name} missing: {}",
            first[2]
        );
    }
    // Each Kuhn tet of a 0.25 x 1/3 x 0.5 cube has volume 1/6 of it.
    let range = lines.next().unwrap();
    let expect = 0.25 * (1.0 / 3.0) * 0.5 / 6.0;
    let got: Vec<f64> = range
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    assert!(
        (got[0] - expect).abs() < 1e-12 && (got[1] - expect).abs() < 1e-12,
        "{range}"
    );
    assert!(Path::new(&vtu).metadata().unwrap().len() > 0);
}

/// `meshtool info X | head`: the reader closes the pipe after a line; meshtool must end quietly
/// (as any Unix tool, by SIGPIPE), not panic in println!.
#[test]
fn info_into_a_closed_pipe_ends_without_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.msh");
    std::fs::write(&input, GOOD).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshtool"))
        .args(["info", input.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // `head -0`: nobody reads
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(status.code(), Some(101), "a panic's exit code: {err}");
}
