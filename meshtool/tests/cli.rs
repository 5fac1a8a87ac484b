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

/// The mesh of `GOOD` in binary MSH 2.2, laid out as Gmsh writes it: the same nodes, two
/// element blocks (the tetrahedra, then the triangles).
fn good_binary() -> Vec<u8> {
    let ints = |b: &mut Vec<u8>, v: &[i32]| v.iter().for_each(|x| b.extend(x.to_le_bytes()));
    let mut b = b"$MeshFormat\n2.2 1 8\n".to_vec();
    ints(&mut b, &[1]);
    b.extend(b"\n$EndMeshFormat\n$PhysicalNames\n1\n2 7 \"wall\"\n$EndPhysicalNames\n$Nodes\n5\n");
    let xyz = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 1.0, 1.0],
    ];
    for (tag, x) in xyz.iter().enumerate() {
        ints(&mut b, &[tag as i32 + 1]);
        x.iter().for_each(|c: &f64| b.extend(c.to_le_bytes()));
    }
    b.extend(b"\n$EndNodes\n$Elements\n8\n");
    // A block: type, count, tags an element; then each element: tag, physical, entity, nodes.
    ints(&mut b, &[4, 2, 2, 1, 9, 1, 1, 2, 3, 4, 2, 9, 1, 2, 3, 4, 5]);
    ints(&mut b, &[2, 6, 2]);
    for (k, t) in [[1, 3, 2], [1, 2, 4], [1, 4, 3], [2, 3, 5], [2, 5, 4], [3, 4, 5]]
        .iter()
        .enumerate()
    {
        ints(&mut b, &[k as i32 + 3, 7, 1, t[0], t[1], t[2]]);
    }
    b.extend(b"\n$EndElements\n");
    b
}

/// Refused: run `prepare` on `input`, with a stale output file present, and expect exit 2, a
/// message that names the input file and contains every needle, and neither the output file
/// nor a temporary file left behind.
fn expect_refused(input: impl AsRef<[u8]>, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.msh");
    let output = dir.path().join("out.pmesh");
    std::fs::write(&path, input).unwrap();
    std::fs::write(&output, "stale").unwrap();
    let o = meshtool(&["prepare", path.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    for needle in needles {
        assert!(err.contains(needle), "expected '{needle}' in: {err}");
    }
    assert!(err.contains("in.msh"), "message names the file: {err}");
    assert!(!output.exists(), "output must not exist after an error");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary files left behind"
    );
}

#[test]
fn a_valid_msh_prepares_and_info_json_gives_its_nodes_cells_volume_and_patches_from_msh_and_pmesh() {
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
fn a_truncated_msh_is_refused_with_exit_2_naming_the_line() {
    // Cut inside the element line 23 ("6 2 2 7 1 2 3 5"), after its tag.
    expect_refused(
        &GOOD[..GOOD.len() - 60],
        &["line 23: missing element type", "truncated"],
    );
}

#[test]
fn a_truncated_binary_msh_is_refused_with_exit_2_naming_the_byte() {
    let good = good_binary();
    let o = {
        let dir = tempfile::tempdir().unwrap();
        let (input, output) = (dir.path().join("in.msh"), dir.path().join("out.pmesh"));
        std::fs::write(&input, &good).unwrap();
        meshtool(&["prepare", input.to_str().unwrap(), "-o", output.to_str().unwrap()])
    };
    assert!(
        o.status.success(),
        "the uncut file prepares: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Cut where the sixth triangle begins: 12 + 2 * 28 bytes of tetrahedra, 12 + 5 * 24 of
    // triangles into the element data.
    let cut = good.windows(12).position(|w| w == b"$Elements\n8\n").unwrap() + 12 + 200;
    expect_refused(
        &good[..cut],
        &[&format!("byte {cut}: file ends inside binary data"), "truncated"],
    );
}

#[test]
fn an_element_count_above_the_elements_is_refused_with_exit_2_naming_the_line_and_counts() {
    expect_refused(
        GOOD.replace("$Elements\n8\n", "$Elements\n9\n"),
        &["line 26: the header announces 9 elements but $EndElements follows after 8"],
    );
}

#[test]
fn a_node_count_below_the_nodes_is_refused_with_exit_2_at_the_first_extra_node() {
    expect_refused(
        GOOD.replace("$Nodes\n5\n", "$Nodes\n4\n"),
        &["line 13: expected $EndNodes, found '5 1 1 1'"],
    );
}

#[test]
fn an_element_naming_a_missing_node_tag_is_refused_with_exit_2_the_tag_and_the_line() {
    expect_refused(
        GOOD.replace("1 4 2 9 1 1 2 3 4", "1 4 2 9 1 1 2 3 42"),
        &["line 18: tetrahedron refers to node tag 42 which is not in $Nodes"],
    );
}

#[test]
fn an_unknown_element_type_is_refused_with_exit_2_the_type_the_element_and_the_line() {
    expect_refused(
        GOOD.replace("3 2 2 7 1 1 3 2", "3 99 2 7 1 1 3 2"),
        &["line 20: element 3 has unknown element type 99"],
    );
}

#[test]
fn a_hexahedron_is_refused_with_exit_2_by_its_name_and_element_tag() {
    expect_refused(
        GOOD.replace("1 4 2 9 1 1 2 3 4", "1 5 2 9 1 1 2 3 4 1 2 3 4"),
        &["element 1 has type 5 (8-node hexahedron)", "only linear tetrahedra"],
    );
}

#[test]
fn a_face_of_three_cells_is_refused_with_exit_2_as_non_manifold_with_its_place() {
    // A third tetrahedron on face (2,3,4).
    let text = GOOD
        .replace("$Nodes\n5\n", "$Nodes\n6\n")
        .replace("5 1 1 1\n", "5 1 1 1\n6 2 2 2\n")
        .replace("$Elements\n8\n", "$Elements\n9\n")
        .replace("8 2 2 7 1 3 4 5\n", "8 2 2 7 1 3 4 5\n9 4 2 9 1 2 3 4 6\n");
    expect_refused(
        text,
        &["non-manifold face shared by 3 cells (first: cell 0) at (0.333333, 0.333333, 0.333333)"],
    );
}

#[test]
fn a_boundary_face_in_no_patch_is_refused_with_exit_2_its_cell_and_centre() {
    let text = GOOD
        .replace("$Elements\n8\n", "$Elements\n7\n")
        .replace("8 2 2 7 1 3 4 5\n", "");
    expect_refused(
        text,
        &["1 boundary faces belong to no patch (first: cell 1, face 0, centre (0.333333, 0.666667, 0.666667))"],
    );
}

#[test]
fn info_refuses_a_file_that_is_not_a_pmesh_or_of_a_newer_version_with_exit_2_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let info = |f: &Path| {
        let o = meshtool(&["info", f.to_str().unwrap()]);
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let short = dir.path().join("short.pmesh");
    std::fs::write(&short, b"PMESH\0\r\n\x07\0\0\0").unwrap();
    let (code, err) = info(&short);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("short.pmesh: not a .pmesh file (bad magic number)"),
        "{err}"
    );
    // A real file whose version field says 7.
    let newer = dir.path().join("newer.pmesh");
    let o = meshtool(&["generate", "box", "--dims", "2,2,2", "-o", newer.to_str().unwrap()]);
    assert!(o.status.success());
    let mut bytes = std::fs::read(&newer).unwrap();
    bytes[8..12].copy_from_slice(&7u32.to_le_bytes());
    std::fs::write(&newer, bytes).unwrap();
    let (code, err) = info(&newer);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("newer.pmesh: format version 7, but this build reads versions"),
        "{err}"
    );
}

#[test]
fn an_exported_vtu_opens_in_vtks_reader_with_every_cell_node_and_quality_field() {
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
