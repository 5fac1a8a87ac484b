//! The mesh arrays the unstructured families read, in the run's precision R: moved out of the
//! prepared mesh without a copy for f64, converted once for f32. Both backends read these same
//! arrays, so the CPU and the CUDA kernels see the same rounded geometry.
//!
//! Besides the mesh's own Voronoi-dual tables, it holds the Dirichlet "virtual cells" of
//! section II.C of the semi-Lagrangian paper: the mirror image of every cell with a face on a
//! Dirichlet patch, across that face, as an extra dual-cell vertex of each of the face's three
//! vertices, carrying the patch's value. Near a Dirichlet wall the interpolation then sees the
//! wall value, as a ghost cell would; Neumann (zero-gradient) patches get none, so only the
//! interior cells weigh in.

use super::linalg3::arr;
use super::periodic::PeriodicShifts;
use crate::real::Real;
use meshtool::dual::DualTables;
use meshtool::mesh::vec3;
use meshtool::topology::{is_boundary, patch_of, FACE_VERTS};
use meshtool::PreparedMesh;
use std::any::Any;

pub struct TetGeometry<R> {
    pub nodes: Vec<[R; 3]>,
    pub cells: Vec<[u32; 4]>,
    /// Face neighbours; a boundary face holds 0x80000000 | patch.
    pub neighbours: Vec<[u32; 4]>,
    /// Unit outward normals and areas of the four faces (face f is opposite vertex f).
    pub face_normals: Vec<[[R; 3]; 4]>,
    pub face_areas: Vec<[R; 4]>,
    pub centroids: Vec<[R; 3]>,
    pub volumes: Vec<R>,
    /// Per cell, what a point's barycentric coordinates need (`locate::barycentric`): the four
    /// faces' outward normals scaled by area / (3 volume) (12 values), vertex 0 (3) and the
    /// scaled normal of face 0 dotted with vertex 1 - vertex 0 (1, about 1). One 16-value
    /// record per cell, so a walk step gathers one record instead of normals, areas, the
    /// volume, the cell's vertex indices and two vertices.
    pub locate: Vec<[R; 16]>,
    pub dual: DualTables<R>,
    /// Dirichlet virtual cells per vertex, `cells` holding their patch (empty when no patch is
    /// Dirichlet).
    pub virt: DualTables<R>,
    /// Per vertex: the Dirichlet value of a patch the vertex lies on, NaN if none (the linear
    /// interpolation pins such vertices to the wall value).
    pub node_bc: Vec<R>,
    /// The periodic faces' shifts and the vertices' periodic images (`mesh::periodic`; empty
    /// for a mesh without periodic faces).
    pub periodic: PeriodicShifts<R>,
}

impl<R: Real> TetGeometry<R> {
    /// Builds the arrays, taking the large per-cell and dual tables out of `m` (afterwards `m`
    /// keeps what output needs: nodes, cells, volumes, centroids, patches). `bc[patch]` is the
    /// Dirichlet value of a patch, NaN for Neumann.
    pub fn take(m: &mut PreparedMesh, bc: &[f64]) -> Self {
        TetGeometry::<f64>::take_f64(m, bc).into_precision()
    }

    pub fn num_cells(&self) -> usize {
        self.cells.len()
    }
}

impl TetGeometry<f64> {
    fn take_f64(m: &mut PreparedMesh, bc: &[f64]) -> Self {
        let (virt, node_bc) = dirichlet_mirrors(m, bc);
        let periodic = PeriodicShifts::of(&m.topo, m.nodes.len());
        let t = &mut m.topo;
        // Before the face normals and areas move out.
        let locate = locate_records(&m.nodes, &t.cells, &t.face_normals, &t.face_areas, &t.volumes);
        TetGeometry {
            nodes: m.nodes.clone(),
            cells: t.cells.clone(),
            neighbours: t.neighbours.clone(),
            face_normals: std::mem::take(&mut t.face_normals),
            face_areas: std::mem::take(&mut t.face_areas),
            centroids: t.centroids.clone(),
            volumes: t.volumes.clone(),
            locate,
            dual: std::mem::take(&mut m.dual),
            virt,
            node_bc,
            periodic,
        }
    }

    /// The same arrays in precision R: moved for f64, each value rounded once for f32.
    pub fn into_precision<R: Real>(self) -> TetGeometry<R> {
        TetGeometry {
            nodes: convert(self.nodes, arr),
            cells: self.cells,
            neighbours: self.neighbours,
            face_normals: convert(self.face_normals, |n| n.map(arr)),
            face_areas: convert(self.face_areas, arr),
            centroids: convert(self.centroids, arr),
            volumes: convert(self.volumes, R::of),
            locate: convert(self.locate, arr),
            dual: tables(self.dual),
            virt: tables(self.virt),
            node_bc: convert(self.node_bc, R::of),
            periodic: self.periodic.map(R::of),
        }
    }
}

/// `TetGeometry::locate`, in f64 (rounded once to R with the other arrays).
fn locate_records(
    nodes: &[[f64; 3]],
    cells: &[[u32; 4]],
    normals: &[[[f64; 3]; 4]],
    areas: &[[f64; 4]],
    volumes: &[f64],
) -> Vec<[f64; 16]> {
    (0..cells.len())
        .map(|c| {
            let s = |f: usize| vec3::scale(normals[c][f], areas[c][f] / (3.0 * volumes[c]));
            let [x0, x1] = [0, 1].map(|k| nodes[cells[c][k] as usize]);
            let mut r = [0.0; 16];
            for f in 0..4 {
                r[3 * f..3 * f + 3].copy_from_slice(&s(f));
            }
            r[12..15].copy_from_slice(&x0);
            r[15] = vec3::dot(s(0), vec3::sub(x1, x0));
            r
        })
        .collect()
}

fn tables<R: Real>(d: DualTables<f64>) -> DualTables<R> {
    DualTables {
        offsets: d.offsets,
        cells: d.cells,
        normals: convert(d.normals, |n| n.map(arr)),
        plane_d: convert(d.plane_d, arr),
        half_len: convert(d.half_len, arr),
        det: convert(d.det, R::of),
    }
}

/// `v` as a vector of U: moved when U is T (f64 -> f64, no copy), converted otherwise.
fn convert<T: 'static, U: 'static>(v: Vec<T>, f: impl Fn(T) -> U) -> Vec<U> {
    match (Box::new(v) as Box<dyn Any>).downcast::<Vec<U>>() {
        Ok(same) => *same,
        Err(other) => other
            .downcast::<Vec<T>>()
            .expect("input type")
            .into_iter()
            .map(f)
            .collect(),
    }
}

/// The CFL length scale of the semi-Lagrangian paper: mean cell volume / mean face area (of
/// the prepared mesh, before `TetGeometry::take` moves its face areas out).
pub fn length_scale(m: &PreparedMesh) -> f64 {
    let n = m.num_cells() as f64;
    let vol = m.total_volume() / n;
    let area: f64 = m.topo.face_areas.iter().map(|a| a.iter().sum::<f64>()).sum::<f64>() / (4.0 * n);
    vol / area
}

/// One virtual entry: (vertex, patch, normals, plane offsets, half lengths, |det N|).
type Mirror = (u32, u32, [[f64; 3]; 3], [f64; 3], [f64; 3], f64);

/// The virtual cells of the Dirichlet patches (see the module comment) and the per-vertex
/// Dirichlet value.
fn dirichlet_mirrors(m: &PreparedMesh, bc: &[f64]) -> (DualTables, Vec<f64>) {
    let mut node_bc = vec![f64::NAN; m.nodes.len()];
    let mut found: Vec<Mirror> = Vec::new();
    let t = &m.topo;
    for c in 0..m.num_cells() {
        for f in 0..4 {
            let nb = t.neighbours[c][f];
            if !is_boundary(nb) || bc.get(patch_of(nb) as usize).is_none_or(|v| v.is_nan()) {
                continue;
            }
            for &k in &FACE_VERTS[f] {
                node_bc[t.cells[c][k] as usize] = bc[patch_of(nb) as usize];
            }
            mirror_face(m, c, f, &mut found);
        }
    }
    found.sort_by_key(|e| e.0);
    let mut out = DualTables {
        offsets: vec![0; m.nodes.len() + 1],
        ..Default::default()
    };
    for (v, patch, n, p, h, det) in found {
        out.offsets[v as usize + 1] += 1;
        out.cells.push(patch);
        out.normals.push(n);
        out.plane_d.push(p);
        out.half_len.push(h);
        out.det.push(det);
    }
    for v in 0..m.nodes.len() {
        out.offsets[v + 1] += out.offsets[v];
    }
    (out, node_bc)
}

/// The mirror of cell c across its boundary face f, as an entry of each face vertex. It shares
/// the face's vertices; at a face vertex v, its three bisector planes are those of c's entry
/// for v reflected across the face plane (the two in-plane edges map to themselves, the edge
/// to the apex to its mirror), and |det N| is unchanged by a reflection.
fn mirror_face(m: &PreparedMesh, c: usize, f: usize, found: &mut Vec<Mirror>) {
    let (t, d) = (&m.topo, &m.dual);
    let patch = patch_of(t.neighbours[c][f]);
    let nf = t.face_normals[c][f];
    let q = m.nodes[t.cells[c][FACE_VERTS[f][0]] as usize];
    let qn = vec3::dot(q, nf);
    for &k in &FACE_VERTS[f] {
        let v = t.cells[c][k] as usize;
        let e = d
            .cells_of(v)
            .find(|&e| d.cells[e] as usize == c)
            .expect("every cell is in the dual table of its vertices");
        let mut normals = d.normals[e];
        let mut plane_d = d.plane_d[e];
        for j in 0..3 {
            let s = vec3::dot(normals[j], nf);
            normals[j] = vec3::sub(normals[j], vec3::scale(nf, 2.0 * s));
            plane_d[j] -= 2.0 * s * qn;
        }
        found.push((v as u32, patch, normals, plane_d, d.half_len[e], d.det[e]));
    }
}
