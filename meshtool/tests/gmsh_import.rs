//! Gmsh-generated meshes: the four MSH encodings give identical prepared meshes; volumes and
//! patch areas match an independent computation with Gmsh's own reader; topology invariants;
//! reordering improves locality.

mod common;
use common::*;
use meshtool::faces::{is_boundary, FACE_VERTS};
use meshtool::pmesh::{prepare, PreparedMesh};
use meshtool::reorder::{locality, Reorder};
use std::process::Command;

fn prepared_bytes(m: &PreparedMesh) -> Vec<u8> {
    let mut b = Vec::new();
    m.write_to(&mut b).unwrap();
    b
}

#[test]
fn four_encodings_give_identical_prepared_meshes() {
    if !have_gmsh() {
        return;
    }
    // Mesh once (ASCII 4.1), then let Gmsh re-save that mesh in the other three encodings:
    // separate meshing runs would differ in the last digit of the ASCII coordinates.
    let dir = tempfile::tempdir().unwrap();
    let source = gmsh_channel(dir.path(), "msh41", false, 0.1);
    let mut reference: Option<Vec<u8>> = None;
    for (format, binary) in [("msh41", false), ("msh22", false), ("msh22", true), ("msh41", true)] {
        let path = if (format, binary) == ("msh41", false) {
            source.clone()
        } else {
            gmsh_convert(&source, dir.path(), format, binary)
        };
        let raw = meshtool::msh::read_msh(&path).unwrap();
        let (mesh, _) = prepare(&raw, Reorder::Rcm).unwrap();
        let bytes = prepared_bytes(&mesh);
        match &reference {
            None => reference = Some(bytes),
            Some(r) => assert!(r == &bytes, "{format} binary={binary} differs from msh41 ASCII"),
        }
    }
}

#[test]
fn volume_and_areas_match_gmsh_reader_and_topology_is_closed() {
    if !have_gmsh()
        || !have(
            "python3-gmsh + numpy",
            "/usr/bin/python3",
            &["-c", "import gmsh, numpy"],
        )
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = gmsh_channel(dir.path(), "msh41", true, 0.06);
    let out = Command::new("/usr/bin/python3")
        .arg(repo_root().join("meshtool/tests/msh_reference.py"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reference: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let raw = meshtool::msh::read_msh(&path).unwrap();
    let (mesh, report) = prepare(&raw, Reorder::None).unwrap();
    let rel = |a: f64, b: f64| (a - b).abs() / b.abs();
    assert_eq!(mesh.num_cells() as u64, reference["cells"].as_u64().unwrap());
    let v_ref = reference["volume"].as_f64().unwrap();
    assert!(
        rel(mesh.total_volume(), v_ref) < 1e-9,
        "volume {} vs {v_ref}",
        mesh.total_volume()
    );
    for p in &mesh.patches {
        let a_ref = reference["patches"][&p.name].as_f64().unwrap();
        assert!(rel(p.area, a_ref) < 1e-9, "patch {} area {} vs {a_ref}", p.name, p.area);
    }
    // Every interior face is shared by exactly two cells, with the same three vertices.
    let t = &mesh.topo;
    for (c, nb) in t.neighbours.iter().enumerate() {
        for f in 0..4 {
            let d = nb[f];
            if is_boundary(d) {
                continue;
            }
            let back: Vec<usize> = (0..4).filter(|&g| t.neighbours[d as usize][g] == c as u32).collect();
            assert_eq!(back.len(), 1, "cell {c} face {f}");
            let mut a: Vec<u32> = FACE_VERTS[f].iter().map(|&k| t.cells[c][k]).collect();
            let mut b: Vec<u32> = FACE_VERTS[back[0]].iter().map(|&k| t.cells[d as usize][k]).collect();
            a.sort();
            b.sort();
            assert_eq!(a, b);
            // Opposite outward normals.
            let dot: f64 = (0..3)
                .map(|k| t.face_normals[c][f][k] * t.face_normals[d as usize][back[0]][k])
                .sum();
            assert!((dot + 1.0).abs() < 1e-12);
        }
    }
    // Closed cells: outward area vectors sum to zero (relative to the cell's face areas).
    for c in 0..mesh.num_cells() {
        let scale: f64 = t.face_areas[c].iter().sum();
        assert!(
            mesh.closure_defect(c) < 1e-13 * scale,
            "cell {c}: {}",
            mesh.closure_defect(c)
        );
    }
    let boundary_faces: usize = t.neighbours.iter().flatten().filter(|&&d| is_boundary(d)).count();
    assert_eq!(boundary_faces as u64, mesh.patches.iter().map(|p| p.faces).sum::<u64>());
    assert_eq!(report.before, report.after); // no reordering requested
}

#[test]
fn reordering_shrinks_mean_neighbour_distance_on_a_gmsh_mesh() {
    if !have_gmsh() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = gmsh_channel(dir.path(), "msh41", true, 0.06);
    let raw = meshtool::msh::read_msh(&path).unwrap();
    let input = locality(&prepare(&raw, Reorder::None).unwrap().0.topo.neighbours);
    for method in [Reorder::Rcm, Reorder::Hilbert] {
        let (mesh, report) = prepare(&raw, method).unwrap();
        println!(
            "{method:?}: mean neighbour index distance {:.1} -> {:.1}, bandwidth {} -> {}",
            report.before.mean_neighbour_distance,
            report.after.mean_neighbour_distance,
            report.before.bandwidth,
            report.after.bandwidth
        );
        assert_eq!(report.before, input);
        assert!(report.after.mean_neighbour_distance < 0.5 * input.mean_neighbour_distance);
        // The permutation maps back to the input: same cell volumes in the input order.
        let unordered = prepare(&raw, Reorder::None).unwrap().0;
        for (new, &old) in mesh.cell_original.iter().enumerate() {
            assert!((mesh.topo.volumes[new] - unordered.topo.volumes[old as usize]).abs() < 1e-18);
        }
    }
    let rcm = prepare(&raw, Reorder::Rcm).unwrap().1.after;
    assert!(rcm.bandwidth < input.bandwidth);
}
