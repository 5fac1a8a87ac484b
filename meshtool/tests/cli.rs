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

/// Refused: run `prepare` on `input`, with an earlier output file present, and expect exit 2, a
/// message that names the input file and contains every needle, the earlier output as it was
/// and no temporary file left behind.
fn expect_refused(input: impl AsRef<[u8]>, needles: &[&str]) -> String {
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
    assert_eq!(
        std::fs::read(&output).unwrap(),
        b"stale",
        "a failed run leaves the earlier output as it was"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temporary files left behind"
    );
    err.into_owned()
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
        GOOD.replace("3 2 2 7 1 1 3 2", "3 150 2 7 1 1 3 2"),
        &["line 20: element 3 has unknown element type 150"],
    );
}

#[test]
fn a_hexahedron_is_refused_with_exit_2_by_its_name_and_element_tag() {
    expect_refused(
        GOOD.replace("1 4 2 9 1 1 2 3 4", "1 5 2 9 1 1 2 3 4 1 2 3 4"),
        &[
            "element 1 has type 5 (8-node hexahedron)",
            "only linear tetrahedra",
            "Mesh.RecombineAll = 0",
            "Mesh.SubdivisionAlgorithm = 0",
        ],
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

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Every command that writes, failing on its input, leaves a file of its output's name as it
/// was (the `--msh` copy of `generate cylinder` too) and no temporary file.
#[test]
fn a_failed_command_leaves_an_earlier_output_of_the_same_name_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let at = |n: &str| dir.path().join(n).to_str().unwrap().to_owned();
    std::fs::write(at("bad.msh"), &GOOD[..GOOD.len() - 60]).unwrap();
    // NODATA under the north-east cell of a 2 x 2 grid.
    let asc = "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n1 -9999\n1 1\n";
    std::fs::write(at("bed.asc"), asc).unwrap();
    let earlier = b"an earlier good output\n";
    let (bad, bed, out, msh) = (at("bad.msh"), at("bed.asc"), at("out"), at("legacy.msh"));
    let grid = ["generate", "grid", "--dims", "2,2,1", "--extent", "2,2,1"];
    let cases: Vec<Vec<&str>> = vec![
        vec!["prepare", &bad, "-o", &out],
        vec!["export", &bad, "-o", &out],
        vec!["generate", "box", "--dims", "0,2,2", "-o", &out],
        [&grid[..], &["--bathymetry", bed.as_str(), "-o", out.as_str()][..]].concat(),
        vec!["generate", "cylinder", "--size", "2", "--msh", &msh, "-o", &out],
        vec!["generate", "sphere", "--size", "2", "-o", &out],
    ];
    for args in cases {
        std::fs::write(&out, earlier).unwrap();
        std::fs::write(&msh, earlier).unwrap();
        let before = names_in(dir.path());
        let o = meshtool(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            earlier,
            "{args:?} changed its -o file: {err}"
        );
        assert_eq!(std::fs::read(&msh).unwrap(), earlier, "{args:?} changed the --msh file");
        assert_eq!(names_in(dir.path()), before, "{args:?} left a file behind");
    }
}

/// A path a user got wrong is bad input: exit 2 and one line that names the path, what is
/// wrong with it and what to do, with nothing written anywhere.
#[test]
fn a_path_problem_is_bad_input_with_one_message_naming_the_path_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let at = |n: &str| dir.path().join(n).to_str().unwrap().to_owned();
    std::fs::write(at("good.msh"), GOOD).unwrap();
    std::fs::create_dir(at("sub")).unwrap();
    let (good, sub, nosuch) = (at("good.msh"), at("sub"), at("nosuch.msh"));
    let (out, nodir, under_file) = (at("out.pmesh"), at("nodir/out.pmesh"), at("good.msh/out.pmesh"));
    let refused = |args: &[&str], needles: &[&str]| {
        let before = names_in(dir.path());
        let o = meshtool(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one message: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{args:?}: expected '{needle}' in: {err}");
        }
        assert_eq!(names_in(dir.path()), before, "{args:?} left a file behind");
        assert!(names_in(Path::new(&sub)).is_empty(), "{args:?} wrote into {sub}");
    };
    let missing = ["nosuch.msh: no such file", "check the path"];
    refused(&["prepare", &nosuch, "-o", &out], &missing);
    refused(&["info", &nosuch], &missing);
    refused(&["check", &nosuch], &missing);
    refused(&["export", &nosuch, "-o", &out], &missing);
    refused(
        &[
            "generate",
            "grid",
            "--dims",
            "2,2,1",
            "--extent",
            "1,1,1",
            "--bathymetry",
            &nosuch,
            "-o",
            &out,
        ],
        &missing,
    );
    refused(&["prepare", &sub, "-o", &out], &["sub: is a folder, not a file"]);
    let no_folder = ["nodir/out.pmesh: the folder", "does not exist", "mkdir -p"];
    refused(&["prepare", &good, "-o", &nodir], &no_folder);
    refused(&["generate", "box", "-o", &nodir], &no_folder);
    refused(&["generate", "cylinder", "-o", &out, "--msh", &nodir], &no_folder);
    refused(&["prepare", &good, "-o", &under_file], &["good.msh", "is not a folder"]);
    let folder = ["sub: is a folder; -o takes a file name, e.g. -o"];
    refused(&["prepare", &good, "-o", &sub], &folder);
    refused(&["export", &good, "-o", &sub], &folder);
    refused(&["generate", "box", "-o", &sub], &folder);
    refused(
        &["generate", "grid", "--dims", "2,2,1", "--extent", "1,1,1", "-o", &sub],
        &folder,
    );
    refused(&["generate", "sphere", "-o", &sub], &folder);
    refused(
        &["prepare", &good, "-o", "/dev/null"],
        &["/dev/null: is a device, pipe or socket, not a regular file"],
    );

    // A folder without write permission (root writes there anyway: skipped).
    use std::os::unix::fs::PermissionsExt;
    let ro = at("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    if tempfile::tempfile_in(&ro).is_ok() {
        eprintln!("SKIPPED: the read-only folder case (this user writes into a mode 0555 folder)");
    } else {
        let target = format!("{ro}/out.pmesh");
        refused(
            &["prepare", &good, "-o", &target],
            &["ro/out.pmesh: cannot write in the folder", "Permission denied"],
        );
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn second_order_tetrahedra_are_refused_naming_the_element_order_as_the_cause() {
    let err = expect_refused(
        GOOD.replace(
            "1 4 2 9 1 1 2 3 4\n2 4 2 9 1 2 3 4 5\n",
            "1 11 2 9 1 1 2 3 4 5 1 2 3 4 5\n2 11 2 9 1 2 3 4 5 1 2 3 4 5 1\n",
        ),
        &[
            "second-order (10-node) tetrahedra",
            "element 1 has type 11",
            "Mesh.ElementOrder = 1",
            "-order 1",
        ],
    );
    assert!(!err.contains("SubdivisionAlgorithm"), "{err}");
}

/// Gmsh's own second- and third-order meshes: each named by its order (the third-order file's
/// 10-node triangles come first and were once an "unknown element type").
#[test]
fn gmsh_meshes_of_order_2_and_3_are_refused_naming_their_element_order() {
    if !have_gmsh() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (order, what) in [
        (2, "second-order (10-node) tetrahedra"),
        (3, "third-order (20-node) tetrahedra"),
    ] {
        let msh = dir.path().join(format!("order{order}.msh"));
        let st = Command::new("gmsh")
            .arg("-3")
            .arg(repo_root().join("meshes/duct.geo"))
            .args(["-setnumber", "size", "0.3", "-order", &order.to_string()])
            .args(["-format", "msh41", "-v", "1", "-o"])
            .arg(&msh)
            .status()
            .unwrap();
        assert!(st.success());
        let out = dir.path().join("out.pmesh");
        let o = meshtool(&["prepare", msh.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        for needle in [what, "Mesh.ElementOrder = 1"] {
            assert!(err.contains(needle), "order {order}: expected '{needle}' in: {err}");
        }
    }
}

/// Gmsh saves only the elements of physical groups once there are any: a volume left out of
/// them leaves the file without tetrahedra, which the message names as a possible cause.
#[test]
fn a_file_without_tetrahedra_names_the_missing_physical_volume_as_well_as_the_3d_mesh() {
    expect_refused(
        GOOD.replace("$Elements\n8\n1 4 2 9 1 1 2 3 4\n2 4 2 9 1 2 3 4 5\n", "$Elements\n6\n"),
        &["no linear tetrahedra", "gmsh -3", "Physical Volume"],
    );
}

/// A grid reaching beyond the raster by more than half a raster cell would give every cell
/// outside the raster's edge value: refused, naming both extents and what to change.
#[test]
fn a_bathymetry_grid_beyond_the_rasters_extent_is_refused_naming_both_extents() {
    let dir = tempfile::tempdir().unwrap();
    let asc = dir.path().join("bed.asc");
    // 4 x 3 cells of 1 m from (10, 20): x [10, 14], y [20, 23].
    std::fs::write(
        &asc,
        "ncols 4\nnrows 3\nxllcorner 10\nyllcorner 20\ncellsize 1\nNODATA_value -9999\n1 2 3 4\n5 6 7 8\n9 10 11 12\n",
    )
    .unwrap();
    let out = dir.path().join("g.grid.toml");
    let grid = |origin: &str, extent: &str| {
        let o = meshtool(&[
            "generate",
            "grid",
            "--dims",
            "8,6,1",
            "--origin",
            origin,
            "--extent",
            extent,
            "--bathymetry",
            asc.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    // The raster's extent, and up to half a raster cell beyond each edge: accepted.
    for (origin, extent) in [("10,20,0", "4,3,1"), ("9.6,19.6,0", "4.8,3.8,1")] {
        let (code, err) = grid(origin, extent);
        assert_eq!(code, Some(0), "{origin} {extent}: {err}");
    }
    let earlier = std::fs::read(&out).unwrap();
    for (origin, extent, needle) in [
        ("10,20,0", "6,3,1", "the grid covers x [10, 16], y [20, 23]"),
        ("10,19,0", "4,3,1", "the grid covers x [10, 14], y [19, 22]"),
        ("9.4,20,0", "4,3,1", "the grid covers x [9.4, 13.4], y [20, 23]"),
    ] {
        let (code, err) = grid(origin, extent);
        assert_eq!(code, Some(2), "{origin} {extent}: {err}");
        for needle in [
            needle,
            "bed.asc",
            "the raster covers x [10, 14], y [20, 23]",
            "--origin",
            "--extent",
        ] {
            assert!(err.contains(needle), "{origin} {extent}: expected '{needle}' in: {err}");
        }
        assert_eq!(std::fs::read(&out).unwrap(), earlier, "the earlier grid file stays");
    }
}
