//! `meshtool check` against OpenFOAM's checkMesh on a small shipped Gmsh mesh.
//!
//! The mesh: `gmsh -3 meshes/duct.geo -setnumber size 0.14 -format msh22 -nt 1 -o
//! meshtool/tests/data/duct-0.14.msh` (Gmsh 4.8.4; 1,058 tetrahedra). The reference numbers:
//! OpenFOAM v1912 (Debian package `openfoam` 1912.200626), in a case whose system/ holds
//! controlDict, fvSchemes and fvSolution: `gmshToFoam duct-0.14.msh && checkMesh -allGeometry`
//! (benchmarks/peers/checkmesh-duct-0.14.txt holds its output).

use meshtool::pmesh::prepare;
use meshtool::quality::{cell_quality, report};
use meshtool::reorder::Reorder;
use std::path::Path;

fn close(name: &str, ours: f64, checkmesh: f64) {
    let rel = (ours - checkmesh).abs() / checkmesh.abs();
    assert!(
        rel < 1e-3,
        "{name}: ours {ours}, checkMesh {checkmesh} (relative {rel:.2e})"
    );
}

#[test]
fn check_matches_checkmesh_on_the_coarse_duct() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/duct-0.14.msh");
    let raw = meshtool::msh::read_msh(&path).unwrap();
    let (mesh, _) = prepare(&raw, Reorder::None).unwrap();
    let r = report(&mesh.nodes, &mesh.topo, &cell_quality(&mesh.nodes, &mesh.topo));
    assert_eq!((r.cells, r.interior_faces, r.boundary_faces), (1058, 1798, 636));
    // checkMesh: "Max aspect ratio = 5.89708 OK."
    close("max aspect ratio", r.aspect_ratio.max, 5.89708);
    // "Minimum face area = 0.00528651. Maximum face area = 0.0236531."
    close("min face area", r.face_area.min, 0.00528651);
    close("max face area", r.face_area.max, 0.0236531);
    // "Min volume = 0.000176693. Max volume = 0.00120957.  Total volume = 0.42025."
    close("min volume", r.volume.min, 0.000176693);
    close("max volume", r.volume.max, 0.00120957);
    close("total volume", r.volume.mean * r.cells as f64, 0.42025);
    // "Mesh non-orthogonality Max: 58.6557 average: 23.6106"
    close("max non-orthogonality", r.non_orthogonality_deg.max, 58.6557);
    close("average non-orthogonality", r.non_orthogonality_deg.mean, 23.6106);
    // "Max skewness = 0.644484 OK."
    close("max skewness", r.skewness.max, 0.644484);
    // "Min/max edge length = 0.105653 0.277992 OK."
    close("min edge length", r.edge_length.min, 0.105653);
    close("max edge length", r.edge_length.max, 0.277992);
    assert_eq!((r.severely_non_orthogonal_faces, r.highly_skewed_faces), (0, 0));
}
