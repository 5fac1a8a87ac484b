//! Periodic boundaries from Gmsh's `$Periodic`: a 1 x 0.5 x 0.25 box periodic in x and z
//! (tests/data/periodic-box.geo). Every face on the periodic axes is joined to the cell across
//! the domain with the domain's length as its shift; the relation is symmetric; MSH 2.2 and 4.1,
//! ASCII and binary, give the same pairs; mismatched or malformed links are refused with exit 2
//! and a message naming the file, the patches and an example node.

mod common;
use common::*;
use meshtool::faces::{face_centre, is_boundary};
use meshtool::pmesh::{prepare, PreparedMesh};
use meshtool::reorder::Reorder;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn meshtool(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshtool"))
        .args(args)
        .output()
        .unwrap()
}

fn load(path: &Path, reorder: Reorder) -> PreparedMesh {
    let raw = meshtool::msh::read_msh(path).unwrap();
    prepare(&raw, reorder).unwrap().0
}

const X: [f64; 3] = [1.0, 0.0, 0.0];
const Z: [f64; 3] = [0.0, 0.0, 0.25];

/// The invariants of a box periodic in x and z, with walls ymin/ymax.
fn check_periodic_box(m: &PreparedMesh) {
    check_pairs(m);
    check_node_correspondence(m);
    let bounds = m.bounding_box();
    for c in 0..m.num_cells() {
        for f in 0..4 {
            check_face(m, bounds, c, f);
        }
    }
}

/// Only the walls are left as patches; the two pairs carry the domain's lengths and the areas
/// of their sides, and every joined face appears once on each side.
fn check_pairs(m: &PreparedMesh) {
    let t = &m.topo;
    let names: Vec<&str> = m.patches.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["ymin", "ymax"]);
    assert_eq!(t.periodic.len(), 2);
    for p in &t.periodic {
        let (want, area) = match (p.slave.as_str(), p.master.as_str()) {
            ("xmax", "xmin") => (X, 0.5 * 0.25),
            ("zmax", "zmin") => (Z, 1.0 * 0.5),
            other => panic!("unexpected pair {other:?}"),
        };
        for k in 0..3 {
            assert!((p.translation[k] - want[k]).abs() < 1e-12, "{p:?}");
        }
        assert!((p.area - area).abs() < 1e-12, "{p:?}");
        assert!(p.faces > 0);
    }
    assert_eq!(
        t.periodic_faces.len() as u64,
        2 * t.periodic.iter().map(|p| p.faces).sum::<u64>()
    );
}

/// Every slave node is its master node translated, and every node on a slave plane (x = 1,
/// z = 0.25) has its master.
fn check_node_correspondence(m: &PreparedMesh) {
    let t = &m.topo;
    let (_, hi) = m.bounding_box();
    for &[s, mn, p] in &t.periodic_nodes {
        let tr = t.periodic[p as usize].translation;
        for k in 0..3 {
            assert!((m.nodes[s as usize][k] - m.nodes[mn as usize][k] - tr[k]).abs() < 1e-12);
        }
    }
    for (p, axis) in t
        .periodic
        .iter()
        .enumerate()
        .map(|(i, q)| (i as u32, if q.slave == "xmax" { 0 } else { 2 }))
    {
        let on_plane = m.nodes.iter().filter(|x| (x[axis] - hi[axis]).abs() < 1e-12).count();
        let mapped = t.periodic_nodes.iter().filter(|q| q[2] == p).count();
        assert_eq!(mapped, on_plane, "pair {p}");
    }
}

/// Face f of cell c of the box `(lo, hi)`: open only on the walls; otherwise its neighbour points back with the
/// opposite shift, and the shifted neighbour face coincides with it, normal reversed; shifted
/// (periodic) exactly on the planes x = 0, 1 and z = 0, 0.25, by a domain length.
fn check_face(m: &PreparedMesh, (lo, hi): ([f64; 3], [f64; 3]), c: usize, f: usize) {
    let t = &m.topo;
    let d = t.neighbours[c][f];
    let fc = face_centre(&m.nodes, &t.cells[c], f);
    let n = t.face_normals[c][f];
    if is_boundary(d) {
        assert!(
            (fc[1] - lo[1]).abs() < 1e-12 || (fc[1] - hi[1]).abs() < 1e-12,
            "open face off the walls at {fc:?}"
        );
        return;
    }
    let d = d as usize;
    let s = t.neighbour_shift(c, f);
    let back = (0..4)
        .find(|&g| {
            t.neighbours[d][g] == c as u32 && {
                let s2 = t.neighbour_shift(d, g);
                (0..3).all(|k| (s[k] + s2[k]).abs() < 1e-12)
            }
        })
        .unwrap_or_else(|| panic!("cell {c} face {f}: neighbour {d} does not point back"));
    let gc = face_centre(&m.nodes, &t.cells[d], back);
    for k in 0..3 {
        assert!(
            (gc[k] + s[k] - fc[k]).abs() < 1e-9,
            "cell {c} face {f}: {gc:?} + {s:?} != {fc:?}"
        );
        assert!((t.face_normals[d][back][k] + n[k]).abs() < 1e-9);
    }
    let shifted = s != [0.0; 3];
    assert_eq!(shifted, t.periodic_face(c, f).is_some());
    if shifted {
        let on_x = (fc[0] - lo[0]).abs() < 1e-12 || (fc[0] - hi[0]).abs() < 1e-12;
        let on_z = (fc[2] - lo[2]).abs() < 1e-12 || (fc[2] - hi[2]).abs() < 1e-12;
        assert!(on_x || on_z, "periodic face inside the box at {fc:?}");
        let len = (0..3).map(|k| s[k] * s[k]).sum::<f64>().sqrt();
        assert!((len - 1.0).abs() < 1e-12 || (len - 0.25).abs() < 1e-12, "{s:?}");
    }
}

/// The joined face pairs as a set of (slave face centre, master face centre), rounded.
fn pair_set(m: &PreparedMesh) -> BTreeSet<[i64; 6]> {
    let t = &m.topo;
    let r = |x: f64| (x * 1e9).round() as i64;
    t.periodic_faces
        .iter()
        .filter(|p| p.side == 0)
        .map(|p| {
            let (c, f) = (p.cell as usize, p.face as usize);
            let d = t.neighbours[c][f] as usize;
            let g = (0..4)
                .find(|&g| {
                    t.periodic_face(d, g)
                        .is_some_and(|q| q.pair == p.pair && t.neighbours[d][g] == c as u32)
                })
                .unwrap();
            let a = face_centre(&m.nodes, &t.cells[c], f);
            let b = face_centre(&m.nodes, &t.cells[d], g);
            [r(a[0]), r(a[1]), r(a[2]), r(b[0]), r(b[1]), r(b[2])]
        })
        .collect()
}

#[test]
fn the_shipped_periodic_box_is_joined_alike_from_msh22_and_msh41_in_every_cell_order() {
    let m41 = load(&data("periodic-box-41.msh"), Reorder::None);
    check_periodic_box(&m41);
    let m22 = load(&data("periodic-box-22.msh"), Reorder::Hilbert);
    check_periodic_box(&m22);
    check_periodic_box(&load(&data("periodic-box-41.msh"), Reorder::Rcm));
    assert_eq!(pair_set(&m41), pair_set(&m22));
}

#[test]
fn a_periodic_pmesh_reads_back_equal_and_cannot_be_written_as_version_2() {
    let m = load(&data("periodic-box-41.msh"), Reorder::Hilbert);
    let mut bytes = Vec::new();
    m.write_to(&mut bytes).unwrap();
    let back = PreparedMesh::from_bytes(&bytes, Path::new("p.pmesh")).unwrap();
    assert_eq!(back, m);
    assert!(back.is_periodic());
    let e = back.refuse_periodic("family demo").unwrap_err().to_string();
    assert!(
        e.contains("not yet supported by family demo") && e.contains("xmax"),
        "{e}"
    );
    // A version-2 writer cannot hold periodic data.
    assert!(m.write_version(&mut Vec::new(), 2).is_err());
}

#[test]
fn msh22_and_msh41_in_ascii_and_binary_give_the_same_periodic_pairs() {
    if !have_gmsh() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let geo = data("periodic-box.geo");
    let mut reference = None;
    for (format, binary) in [("msh41", false), ("msh22", false), ("msh22", true), ("msh41", true)] {
        let out = dir.path().join(format!("box-{format}-{binary}.msh"));
        let mut cmd = Command::new("gmsh");
        cmd.arg("-3")
            .arg(&geo)
            .args(["-setnumber", "size", "0.15", "-format", format, "-v", "1", "-o"])
            .arg(&out);
        if binary {
            cmd.arg("-bin");
        }
        assert!(cmd.status().unwrap().success());
        let m = load(&out, Reorder::Hilbert);
        check_periodic_box(&m);
        let set = pair_set(&m);
        match &reference {
            None => reference = Some(set),
            Some(r) => assert!(r == &set, "{format} binary={binary}: pairs differ from msh41 ASCII"),
        }
    }
}

/// `meshtool prepare` on `text` exits 2 with every needle in the message and leaves no output;
/// returns the message.
fn expect_refused(text: &str, needles: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad-periodic.msh");
    let output = dir.path().join("out.pmesh");
    std::fs::write(&input, text).unwrap();
    let o = meshtool(&["prepare", input.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    for n in needles.iter().chain(&["bad-periodic.msh"]) {
        assert!(err.contains(n), "expected '{n}' in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!output.exists());
    err.into_owned()
}

/// The counts "a of b" just before `phrase` in `msg`.
fn counts_before(msg: &str, phrase: &str) -> (u64, u64) {
    let head = &msg[..msg.find(phrase).unwrap_or_else(|| panic!("no '{phrase}' in: {msg}"))];
    let v: Vec<&str> = head.split_whitespace().rev().take(3).collect();
    assert_eq!(v[1], "of", "{msg}");
    (v[2].parse().unwrap(), v[0].parse().unwrap())
}

/// The MSH 2.2 fixture split into (before $Periodic, the section's lines, after).
fn split22() -> (String, Vec<String>, String) {
    let s = std::fs::read_to_string(data("periodic-box-22.msh")).unwrap();
    let a = s.find("$Periodic\n").unwrap();
    let b = s.find("$EndPeriodic\n").unwrap();
    let lines = s[a..b].lines().map(str::to_string).collect();
    (s[..a].to_string(), lines, s[b..].to_string())
}

fn join22(head: &str, lines: &[String], tail: &str) -> String {
    format!("{head}{}\n{tail}", lines.join("\n"))
}

/// Index of the first pair line of the link of slave surface `slave` whose slave node is not a
/// corner point, and that node's tag.
fn pair_line(lines: &[String], slave: &str) -> (usize, u64) {
    let start = lines
        .iter()
        .position(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            v.len() == 3 && v[0] == "2" && v[1] == slave
        })
        .unwrap();
    (start + 3..)
        .find(|&i| lines[i].split_whitespace().next().unwrap().parse::<u64>().unwrap() > 8)
        .map(|i| (i, lines[i].split_whitespace().next().unwrap().parse().unwrap()))
        .unwrap()
}

#[test]
fn a_slave_node_off_its_masters_image_is_refused_with_exit_2_its_tag_coordinates_and_mismatch() {
    let (head, lines, tail) = split22();
    let (_, node) = pair_line(&lines, "2");
    // Move that node of xmax (x = 1) inward by 1e-3.
    let (a, b) = (head.find("$Nodes\n").unwrap(), head.find("$EndNodes").unwrap());
    let mut out = head[..a].to_string();
    for l in head[a..b].lines() {
        let v: Vec<&str> = l.split_whitespace().collect();
        if v.len() == 4 && v[0] == node.to_string() {
            let x: f64 = v[1].parse().unwrap();
            out += &format!("{} {} {} {}\n", v[0], x - 1e-3, v[2], v[3]);
        } else {
            out += l;
            out += "\n";
        }
    }
    out += &head[b..];
    expect_refused(
        &join22(&out, &lines, &tail),
        &[
            // x = 1 moved to 0.999.
            &format!("slave node {node} (0.999000000, "),
            "not the image of master node",
            "mismatch 1.000e-3",
        ],
    );
}

#[test]
fn a_node_pair_naming_a_missing_node_is_refused_with_exit_2_the_tag_and_the_surface() {
    let (head, mut lines, tail) = split22();
    let (i, node) = pair_line(&lines, "6");
    lines[i] = format!("{node} 999999");
    expect_refused(
        &join22(&head, &lines, &tail),
        &["node tag 999999 which is not in $Nodes", "surface 6"],
    );
}

#[test]
fn a_rotational_link_is_refused_with_exit_2_naming_both_patches() {
    // A quarter turn about z maps no node pair right, so the pair check names it first; with
    // no pairs, the transform itself is refused.
    let (head, _, tail) = split22();
    let rot = "Affine 0 -1 0 0 1 0 0 0 0 0 1 0 0 0 0 1";
    let text = join22(
        &head,
        &["$Periodic".into(), "1".into(), "2 2 1".into(), rot.into(), "0".into()],
        &tail,
    );
    expect_refused(&text, &["not a pure translation", "'xmax'", "'xmin'"]);
}

#[test]
fn a_translation_that_misses_the_master_is_refused_with_exit_2_the_face_counts_and_a_node() {
    // Drop the node pairs and translate the master by a wrong length: no slave face finds a
    // master face by position.
    let (head, _, tail) = split22();
    let text = join22(
        &head,
        &[
            "$Periodic".into(),
            "1".into(),
            "2 2 1".into(),
            "Affine 1 0 0 0.9 0 1 0 0 0 0 1 0 0 0 0 1".into(),
            "0".into(),
        ],
        &tail,
    );
    let err = expect_refused(&text, &["'xmax'", "'xmin'", "maps to (0.100000", "nearest master node"]);
    // No face of either side finds its partner.
    let (unmatched, slaves) = counts_before(&err, " slave faces have no master face");
    let (left, masters) = counts_before(&err, " master faces no slave face");
    assert!(
        slaves > 0 && unmatched == slaves && left == masters && masters == slaves,
        "{err}"
    );
}

#[test]
fn sides_meshed_without_a_periodic_constraint_are_refused_with_exit_2_naming_the_patches() {
    if !have_gmsh() {
        return;
    }
    // The same box without Periodic links and a finer mesh on xmax; then a hand-written
    // $Periodic that claims xmax is xmin translated by (1, 0, 0).
    let dir = tempfile::tempdir().unwrap();
    let geo = dir.path().join("np.geo");
    let text = std::fs::read_to_string(data("periodic-box.geo")).unwrap();
    let text = text
        .lines()
        .filter(|l| !l.starts_with("Periodic"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\nMeshSize{ PointsOf{ Surface{2}; } } = 0.07;\n";
    std::fs::write(&geo, text).unwrap();
    let msh = dir.path().join("np.msh");
    assert!(Command::new("gmsh")
        .arg("-3")
        .arg(&geo)
        .args(["-format", "msh22", "-v", "1", "-o"])
        .arg(&msh)
        .status()
        .unwrap()
        .success());
    let s = std::fs::read_to_string(&msh).unwrap();
    assert!(!s.contains("$Periodic"));
    let s = s + "$Periodic\n1\n2 2 1\nAffine 1 0 0 1 0 1 0 0 0 0 1 0 0 0 0 1\n0\n$EndPeriodic\n";
    expect_refused(
        &s,
        &[
            "periodic patches 'xmax' (surfaces 2) -> 'xmin' (surfaces 1)",
            "slave faces have no master face",
            "node",
        ],
    );
}

#[test]
fn info_reports_each_periodic_pair_with_its_patches_translation_and_faces_in_json_and_text() {
    let path = data("periodic-box-41.msh");
    let o = meshtool(&["info", "--json", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pairs = j["periodic"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    let o = meshtool(&["info", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("periodic slave"), "{text}");
    for (p, (slave, master, t)) in pairs.iter().zip([("xmax", "xmin", X), ("zmax", "zmin", Z)]) {
        assert_eq!(p["slave"], slave);
        assert_eq!(p["master"], master);
        for k in 0..3 {
            assert_eq!(p["translation"][k], t[k], "{p}");
        }
        let faces = p["faces"].as_u64().unwrap();
        assert!(faces > 0);
        // The text row: slave, master, faces, area, translation.
        let row = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(slave))
            .unwrap_or_else(|| panic!("no row for {slave}: {text}"));
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!((cols[1], cols[2]), (master, faces.to_string().as_str()), "{row}");
        assert!(
            row.ends_with(&format!("({:.9e}, {:.9e}, {:.9e})", t[0], t[1], t[2])),
            "{row}"
        );
    }
}
