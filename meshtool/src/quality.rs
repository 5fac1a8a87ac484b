//! Mesh quality as CFD users know it from OpenFOAM's checkMesh: cell volumes, face areas, edge
//! lengths, aspect ratio, face non-orthogonality and skewness, connectivity; plus dihedral
//! angles and two measures of our own.
//!
//! The measures named as checkMesh names them are computed as OpenFOAM (v1912,
//! `primitiveMeshTools.C`, `polyMeshTools.C`, `primitiveMeshCheck.C`) computes them, with the
//! face centre of a triangle = the mean of its vertices and the cell centre = the centroid:
//! - aspect ratio (`cellClosedness`): with A = Σ_faces (|S_x|, |S_y|, |S_z|) over the cell's
//!   face area vectors, max(max_i A_i / min_i A_i, (A_x + A_y + A_z) / (6 V^(2/3)));
//! - non-orthogonality of an interior face: the angle between the face area vector and the
//!   owner-to-neighbour centre vector d; checkMesh's "average" is acos of the mean cosine over
//!   the interior faces (`Range::mean` holds that);
//! - skewness of an interior face: |s| / max(0.2 |d|, max_vertices |ŝ · (p − C_f)|), with s =
//!   C_f minus where the centre line crosses the face plane; on a boundary face d is the normal
//!   from the cell centre to the face plane and the floor 0.4 |d|; checkMesh reports the max over
//!   all faces.

use crate::faces::{face_centre, is_boundary, FACE_VERTS};
use crate::mesh::vec3;
use crate::topology::Topology;
use rayon::prelude::*;
use serde::Serialize;

type V = [f64; 3];

/// Per-face measures seen from one cell (local face i is opposite vertex i).
#[derive(Clone, Copy, Debug, Default)]
pub struct FaceQuality {
    /// cos of the non-orthogonality angle (interior faces; 1 on boundary faces).
    pub cos_non_orthogonality: f64,
    /// checkMesh's skewness (interior and boundary faces).
    pub skewness: f64,
    /// |C_f − crossing of the centre line| / |d| (interior faces; 0 on boundary faces).
    pub distance_skewness: f64,
}

/// Per-cell quality fields (exported to VTU) and the per-face measures behind them.
#[derive(Clone, Debug, Default)]
pub struct CellQuality {
    /// checkMesh's cell aspect ratio.
    pub aspect_ratio: Vec<f64>,
    /// Longest edge / (2√6 × inradius): 1 for the regular tetrahedron.
    pub edge_inradius_ratio: Vec<f64>,
    pub min_dihedral_deg: Vec<f64>,
    pub max_dihedral_deg: Vec<f64>,
    /// Largest non-orthogonality of the cell's interior faces, degrees.
    pub non_orthogonality_deg: Vec<f64>,
    /// Largest checkMesh skewness of the cell's faces (boundary faces included).
    pub skewness: Vec<f64>,
    /// Largest distance skewness of the cell's interior faces.
    pub distance_skewness: Vec<f64>,
    pub faces: Vec<[FaceQuality; 4]>,
    /// Shortest, longest and mean edge of each cell.
    pub edge_length: Vec<[f64; 3]>,
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
    /// Interior faces (each counted once).
    pub interior_faces: usize,
    pub boundary_faces: usize,
    pub volume: Range,
    pub volume_ratio: f64,
    /// Over all faces.
    pub face_area: Range,
    /// checkMesh's "Min/max edge length"; `mean` counts each edge once per cell holding it.
    pub edge_length: Range,
    /// checkMesh's "Max aspect ratio" is `aspect_ratio.max`.
    pub aspect_ratio: Range,
    /// Longest edge / (2√6 × inradius) per cell, 1 for the regular tetrahedron.
    pub edge_inradius_ratio: Range,
    pub min_dihedral_deg: f64,
    pub max_dihedral_deg: f64,
    /// Over interior faces; `max` and `mean` are checkMesh's "Mesh non-orthogonality Max" and
    /// "average" (acos of the mean cosine).
    pub non_orthogonality_deg: Range,
    /// Faces above checkMesh's 70° threshold.
    pub severely_non_orthogonal_faces: usize,
    /// Over all faces; `max` is checkMesh's "Max skewness".
    pub skewness: Range,
    /// Faces above checkMesh's skewness threshold of 4.
    pub highly_skewed_faces: usize,
    /// |C_f − crossing of the centre line| / |d| over interior faces (what meshtool called
    /// skewness before it matched checkMesh).
    pub distance_skewness: Range,
    pub regions: usize,
    pub unreferenced_nodes: usize,
    pub reoriented_cells: u64,
}

fn range(v: impl IntoIterator<Item = f64>) -> Range {
    let (mut min, mut max, mut sum, mut n) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize);
    for x in v {
        min = min.min(x);
        max = max.max(x);
        sum += x;
        n += 1;
    }
    Range {
        min,
        max,
        mean: sum / n.max(1) as f64,
    }
}

/// OpenFOAM's `faceSkewness` (interior, `d` = neighbour − owner centre, floor 0.2 |d|) and
/// `boundaryFaceSkewness` (`d` = the normal part of C_f − C_owner, floor 0.4 |d|).
fn of_skewness(cpf: V, d: V, area_vec: V, verts: [V; 3], fc: V, floor: f64) -> f64 {
    let s = vec3::dot(area_vec, cpf) / vec3::dot(area_vec, d);
    let sv = vec3::sub(cpf, vec3::scale(d, s));
    let mag = vec3::norm(sv);
    let sv_hat = if mag > 0.0 { vec3::scale(sv, 1.0 / mag) } else { sv };
    let mut fd = floor * vec3::norm(d);
    for p in verts {
        fd = fd.max(vec3::dot(sv_hat, vec3::sub(p, fc)).abs());
    }
    mag / fd
}

/// checkMesh's aspect ratio of a 3-D cell from its face area vectors and volume.
fn of_aspect_ratio(area_vecs: [V; 4], volume: f64) -> f64 {
    let mut a = [0.0f64; 3];
    for s in area_vecs {
        for k in 0..3 {
            a[k] += s[k].abs();
        }
    }
    let (lo, hi) = (a[0].min(a[1]).min(a[2]), a[0].max(a[1]).max(a[2]));
    (hi / lo).max((a[0] + a[1] + a[2]) / (6.0 * volume.powf(2.0 / 3.0)))
}

fn face_quality(nodes: &[[f64; 3]], topo: &Topology, c: usize, f: usize) -> FaceQuality {
    let t = &topo.cells[c];
    let fc = face_centre(nodes, t, f);
    let n = topo.face_normals[c][f];
    let area_vec = vec3::scale(n, topo.face_areas[c][f]);
    let verts = FACE_VERTS[f].map(|k| nodes[t[k] as usize]);
    let ca = topo.centroids[c];
    let cpf = vec3::sub(fc, ca);
    let nb = topo.neighbours[c][f];
    if is_boundary(nb) {
        let d = vec3::scale(n, vec3::dot(n, cpf));
        return FaceQuality {
            cos_non_orthogonality: 1.0,
            skewness: of_skewness(cpf, d, area_vec, verts, fc, 0.4),
            distance_skewness: 0.0,
        };
    }
    // Across a periodic face the neighbour sits one period away: shift it next to this cell.
    let d = vec3::sub(vec3::add(topo.centroids[nb as usize], topo.neighbour_shift(c, f)), ca);
    let dn = vec3::norm(d);
    // Where the centre line crosses the face plane.
    let hit = vec3::add(ca, vec3::scale(d, vec3::dot(cpf, n) / vec3::dot(d, n)));
    FaceQuality {
        cos_non_orthogonality: (vec3::dot(d, n) / dn).clamp(-1.0, 1.0),
        skewness: of_skewness(cpf, d, area_vec, verts, fc, 0.2),
        distance_skewness: vec3::norm(vec3::sub(fc, hit)) / dn,
    }
}

/// Edge lengths (min, max, sum), edge/inradius ratio and dihedral range of one cell.
fn cell_shape(nodes: &[[f64; 3]], topo: &Topology, c: usize) -> ([f64; 3], f64, [f64; 2]) {
    let p = topo.cells[c].map(|v| nodes[v as usize]);
    let mut e = [f64::INFINITY, 0.0f64, 0.0];
    for i in 0..4 {
        for j in i + 1..4 {
            let l = vec3::norm(vec3::sub(p[i], p[j]));
            e = [e[0].min(l), e[1].max(l), e[2] + l];
        }
    }
    let area: f64 = topo.face_areas[c].iter().sum();
    let inradius = 3.0 * topo.volumes[c] / area;
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
    (e, e[1] / (2.0 * 6f64.sqrt() * inradius), [dmin, dmax])
}

pub fn cell_quality(nodes: &[[f64; 3]], topo: &Topology) -> CellQuality {
    let n = topo.cells.len();
    let per: Vec<_> = (0..n)
        .into_par_iter()
        .map(|c| {
            let faces: [FaceQuality; 4] = std::array::from_fn(|f| face_quality(nodes, topo, c, f));
            let area_vecs = std::array::from_fn(|f| vec3::scale(topo.face_normals[c][f], topo.face_areas[c][f]));
            let aspect = of_aspect_ratio(area_vecs, topo.volumes[c]);
            (faces, aspect, cell_shape(nodes, topo, c))
        })
        .collect();
    let mut q = CellQuality::default();
    for (faces, aspect, (e, ratio, dih)) in per {
        let fold = |g: fn(&FaceQuality) -> f64| faces.iter().map(g).fold(f64::NEG_INFINITY, f64::max);
        q.aspect_ratio.push(aspect);
        q.edge_inradius_ratio.push(ratio);
        q.min_dihedral_deg.push(dih[0]);
        q.max_dihedral_deg.push(dih[1]);
        q.non_orthogonality_deg.push(
            faces
                .iter()
                .map(|f| f.cos_non_orthogonality)
                .fold(1.0, f64::min)
                .acos()
                .to_degrees(),
        );
        q.skewness.push(fold(|f| f.skewness));
        q.distance_skewness.push(fold(|f| f.distance_skewness));
        q.edge_length.push([e[0], e[1], e[2] / 6.0]);
        q.faces.push(faces);
    }
    q
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

/// Each face once: interior faces from the lower-numbered cell, boundary faces from their cell.
fn unique_faces<'a>(topo: &'a Topology, q: &'a CellQuality) -> impl Iterator<Item = (usize, usize, bool)> + 'a {
    (0..q.faces.len()).flat_map(move |c| {
        (0..4).filter_map(move |f| {
            let d = topo.neighbours[c][f];
            if is_boundary(d) {
                Some((c, f, true))
            } else {
                ((d as usize) > c).then_some((c, f, false))
            }
        })
    })
}

pub fn report(nodes: &[[f64; 3]], topo: &Topology, q: &CellQuality) -> QualityReport {
    let volume = range(topo.volumes.iter().copied());
    let faces: Vec<(usize, usize, bool)> = unique_faces(topo, q).collect();
    let interior = || faces.iter().filter(|x| !x.2).map(|&(c, f, _)| q.faces[c][f]);
    let cos = range(interior().map(|f| f.cos_non_orthogonality));
    let deg = |x: f64| x.clamp(-1.0, 1.0).acos().to_degrees();
    let skewness = range(faces.iter().map(|&(c, f, _)| q.faces[c][f].skewness));
    let mut edge_length = range(q.edge_length.iter().map(|e| e[2]));
    edge_length.min = q.edge_length.iter().map(|e| e[0]).fold(f64::INFINITY, f64::min);
    edge_length.max = q.edge_length.iter().map(|e| e[1]).fold(0.0, f64::max);
    QualityReport {
        cells: topo.cells.len(),
        interior_faces: interior().count(),
        boundary_faces: faces.iter().filter(|x| x.2).count(),
        volume_ratio: volume.max / volume.min,
        volume,
        face_area: range(faces.iter().map(|&(c, f, _)| topo.face_areas[c][f])),
        edge_length,
        aspect_ratio: range(q.aspect_ratio.iter().copied()),
        edge_inradius_ratio: range(q.edge_inradius_ratio.iter().copied()),
        min_dihedral_deg: q.min_dihedral_deg.iter().copied().fold(180.0, f64::min),
        max_dihedral_deg: q.max_dihedral_deg.iter().copied().fold(0.0, f64::max),
        non_orthogonality_deg: Range {
            min: deg(cos.max),
            max: deg(cos.min),
            mean: deg(cos.mean),
        },
        severely_non_orthogonal_faces: interior().filter(|f| deg(f.cos_non_orthogonality) > 70.0).count(),
        skewness: skewness.clone(),
        highly_skewed_faces: faces.iter().filter(|&&(c, f, _)| q.faces[c][f].skewness > 4.0).count(),
        distance_skewness: range(interior().map(|f| f.distance_skewness)),
        regions: regions(topo.cells.len(), &topo.neighbours),
        unreferenced_nodes: unreferenced_nodes(nodes.len(), &topo.cells),
        reoriented_cells: topo.reoriented,
    }
}

impl QualityReport {
    /// A checkMesh-like table.
    pub fn table(&self) -> String {
        let r = |name: &str, x: &Range| format!("  {name:<34} {:>12.5e} {:>12.5e} {:>12.5e}\n", x.min, x.max, x.mean);
        let mut s = String::new();
        s += &format!(
            "  faces: {} interior, {} boundary\n",
            self.interior_faces, self.boundary_faces
        );
        s += &format!("  {:<34} {:>12} {:>12} {:>12}\n", "", "min", "max", "mean");
        s += &r("cell volume", &self.volume);
        s += &r("face area", &self.face_area);
        s += &r("edge length", &self.edge_length);
        s += &r("aspect ratio (checkMesh)", &self.aspect_ratio);
        s += &r("edge/inradius ratio (1 = regular)", &self.edge_inradius_ratio);
        s += &r("non-orthogonality (deg, checkMesh)", &self.non_orthogonality_deg);
        s += &r("skewness (checkMesh)", &self.skewness);
        s += &r("distance skewness (interior)", &self.distance_skewness);
        s += &format!(
            "  {:<34} {:>12.3} {:>12.3}\n",
            "dihedral angle (deg)", self.min_dihedral_deg, self.max_dihedral_deg
        );
        s += &format!("  volume ratio max/min        {:.4e}\n", self.volume_ratio);
        s += "  (non-orthogonality mean = acos of the mean cosine over interior faces, as checkMesh's average)\n";
        s += &format!(
            "  faces > 70 deg non-orthogonal: {}   faces with skewness > 4: {}\n",
            self.severely_non_orthogonal_faces, self.highly_skewed_faces
        );
        s += &format!(
            "  connected regions: {}   unreferenced nodes: {}   re-oriented cells: {}\n",
            self.regions, self.unreferenced_nodes, self.reoriented_cells
        );
        s
    }
}
