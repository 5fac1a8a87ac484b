//! Mesh quality as CFD users know it from OpenFOAM's checkMesh: cell volumes, aspect ratio,
//! dihedral angles, face non-orthogonality and skewness, connectivity.

use crate::mesh::vec3;
use crate::topology::{face_centre, is_boundary, Topology};
use rayon::prelude::*;
use serde::Serialize;

/// Per-cell quality fields (exported to VTU).
#[derive(Clone, Debug, Default)]
pub struct CellQuality {
    pub aspect_ratio: Vec<f64>,
    pub min_dihedral_deg: Vec<f64>,
    pub max_dihedral_deg: Vec<f64>,
    /// Largest non-orthogonality of the cell's interior faces, degrees.
    pub non_orthogonality_deg: Vec<f64>,
    /// Largest skewness of the cell's interior faces (checkMesh definition).
    pub skewness: Vec<f64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Range {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct QualityReport {
    pub cells: usize,
    pub volume: Range,
    pub volume_ratio: f64,
    pub aspect_ratio: Range,
    pub min_dihedral_deg: f64,
    pub max_dihedral_deg: f64,
    pub non_orthogonality_deg: Range,
    /// Faces above checkMesh's 70° warning threshold.
    pub severely_non_orthogonal_faces: usize,
    pub skewness: Range,
    /// Faces above checkMesh's skewness threshold of 4.
    pub highly_skewed_faces: usize,
    pub regions: usize,
    pub unreferenced_nodes: usize,
    pub reoriented_cells: u64,
}

fn range(v: &[f64]) -> Range {
    let (mut min, mut max, mut sum) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
    for &x in v {
        min = min.min(x);
        max = max.max(x);
        sum += x;
    }
    Range {
        min,
        max,
        mean: sum / v.len().max(1) as f64,
    }
}

pub fn cell_quality(nodes: &[[f64; 3]], topo: &Topology) -> CellQuality {
    let per: Vec<[f64; 5]> = (0..topo.cells.len())
        .into_par_iter()
        .map(|c| {
            let t = &topo.cells[c];
            let p = t.map(|v| nodes[v as usize]);
            let mut longest: f64 = 0.0;
            for i in 0..4 {
                for j in i + 1..4 {
                    longest = longest.max(vec3::norm(vec3::sub(p[i], p[j])));
                }
            }
            let area: f64 = topo.face_areas[c].iter().sum();
            let inradius = 3.0 * topo.volumes[c] / area;
            // 1 for the regular tetrahedron.
            let aspect = longest / (2.0 * 6f64.sqrt() * inradius);
            // Dihedral angle at the edge shared by faces i and j: pi - angle(n_i, n_j).
            let (mut dmin, mut dmax) = (180.0f64, 0.0f64);
            for i in 0..4 {
                for j in i + 1..4 {
                    let cosn = vec3::dot(topo.face_normals[c][i], topo.face_normals[c][j]).clamp(-1.0, 1.0);
                    let ang = 180.0 - cosn.acos().to_degrees();
                    dmin = dmin.min(ang);
                    dmax = dmax.max(ang);
                }
            }
            let (mut nonortho, mut skew) = (0.0f64, 0.0f64);
            for f in 0..4 {
                let d = topo.neighbours[c][f];
                if is_boundary(d) {
                    continue;
                }
                let (ca, cb) = (topo.centroids[c], topo.centroids[d as usize]);
                let dv = vec3::sub(cb, ca);
                let n = topo.face_normals[c][f];
                let cosang = (vec3::dot(dv, n) / vec3::norm(dv)).clamp(-1.0, 1.0);
                nonortho = nonortho.max(cosang.acos().to_degrees());
                // Skewness: distance from face centre to where the centroid line crosses the
                // face plane, over the centroid distance.
                let fc = face_centre(nodes, t, f);
                let s = vec3::dot(vec3::sub(fc, ca), n) / vec3::dot(dv, n);
                let hit = vec3::add(ca, vec3::scale(dv, s));
                skew = skew.max(vec3::norm(vec3::sub(fc, hit)) / vec3::norm(dv));
            }
            [aspect, dmin, dmax, nonortho, skew]
        })
        .collect();
    CellQuality {
        aspect_ratio: per.iter().map(|q| q[0]).collect(),
        min_dihedral_deg: per.iter().map(|q| q[1]).collect(),
        max_dihedral_deg: per.iter().map(|q| q[2]).collect(),
        non_orthogonality_deg: per.iter().map(|q| q[3]).collect(),
        skewness: per.iter().map(|q| q[4]).collect(),
    }
}

/// Number of connected regions of the cell adjacency graph (petgraph).
pub fn regions(ncells: usize, neighbours: &[[u32; 4]]) -> usize {
    let mut g = petgraph::graph::UnGraph::<(), ()>::with_capacity(ncells, 2 * ncells);
    for _ in 0..ncells {
        g.add_node(());
    }
    g.extend_with_edges(crate::topology::adjacency_pairs(neighbours));
    petgraph::algo::connected_components(&g)
}

pub fn unreferenced_nodes(nnodes: usize, cells: &[[u32; 4]]) -> usize {
    let mut used = vec![false; nnodes];
    for t in cells {
        for &v in t {
            used[v as usize] = true;
        }
    }
    used.iter().filter(|&&u| !u).count()
}

pub fn report(nodes: &[[f64; 3]], topo: &Topology, q: &CellQuality) -> QualityReport {
    let volume = range(&topo.volumes);
    QualityReport {
        cells: topo.cells.len(),
        volume_ratio: volume.max / volume.min,
        volume,
        aspect_ratio: range(&q.aspect_ratio),
        min_dihedral_deg: range(&q.min_dihedral_deg).min,
        max_dihedral_deg: range(&q.max_dihedral_deg).max,
        non_orthogonality_deg: range(&q.non_orthogonality_deg),
        severely_non_orthogonal_faces: q.non_orthogonality_deg.iter().filter(|&&a| a > 70.0).count(),
        skewness: range(&q.skewness),
        highly_skewed_faces: q.skewness.iter().filter(|&&s| s > 4.0).count(),
        regions: regions(topo.cells.len(), &topo.neighbours),
        unreferenced_nodes: unreferenced_nodes(nodes.len(), &topo.cells),
        reoriented_cells: topo.reoriented,
    }
}

impl QualityReport {
    /// A checkMesh-like table.
    pub fn table(&self) -> String {
        let r = |name: &str, x: &Range| format!("  {name:<28} {:>12.4e} {:>12.4e} {:>12.4e}\n", x.min, x.max, x.mean);
        let mut s = String::new();
        s += &format!("  {:<28} {:>12} {:>12} {:>12}\n", "", "min", "max", "mean");
        s += &r("cell volume", &self.volume);
        s += &r("aspect ratio (1 = regular)", &self.aspect_ratio);
        s += &r("non-orthogonality (deg)", &self.non_orthogonality_deg);
        s += &r("skewness", &self.skewness);
        s += &format!(
            "  {:<28} {:>12.3} {:>12.3}\n",
            "dihedral angle (deg)", self.min_dihedral_deg, self.max_dihedral_deg
        );
        s += &format!("  volume ratio max/min        {:.4e}\n", self.volume_ratio);
        s += &format!(
            "  cells with faces > 70 deg non-orthogonal: {}\n",
            self.severely_non_orthogonal_faces
        );
        s += &format!(
            "  cells with skewness > 4:                  {}\n",
            self.highly_skewed_faces
        );
        s += &format!(
            "  connected regions: {}   unreferenced nodes: {}   re-oriented cells: {}\n",
            self.regions, self.unreferenced_nodes, self.reoriented_cells
        );
        s
    }
}
