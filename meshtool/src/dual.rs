//! Vertex-to-cell tables and the Voronoi-dual geometry for the interpolation of
//! semi-Lagrangian advection (Evstigneev, eq. 11-14).
//!
//! The dual (Voronoi) cell of mesh vertex v is bounded by the perpendicular bisectors of the
//! mesh edges (v, a) leaving v: planes with unit normal n_f = (x_a - x_v)/|x_a - x_v| through
//! the edge midpoints, n_f · y = d_f. Each tetrahedron t around v contributes the dual vertex
//! where the bisectors of its three edges at v meet, and carries the cell value F_t. The weight
//! of t at a point x inside the dual cell is eq. (11), Warren's coordinate:
//!
//!   w_t(x) = |det N_t| / prod_f (d_f - n_f · x),   normalised so that sum_t w_t = 1 (eq. 12),
//!
//! and F(x) = sum_t w_t F_t (eq. 14). (Eq. 13 rewrites the distances as n_f · (c_t - x), exact
//! when c_t is the Voronoi vertex of a Delaunay mesh; with centroids for c_t the planes of
//! different dual vertices disagree and the weights blow up near them, so we keep eq. 11.)
//! Stored per (vertex, cell) pair: the three normals, the three plane offsets d_f and
//! |det N_t|, so the solver evaluates weights with no geometry of its own.

use crate::mesh::vec3;
use rayon::prelude::*;

/// The tables in precision R (the prepared mesh stores f64; the solver converts them for f32
/// runs, and reuses the layout for its Dirichlet virtual cells, whose `cells` are patches).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DualTables<R = f64> {
    /// CSR offsets: cells around vertex v are `cells[offsets[v]..offsets[v + 1]]`.
    pub offsets: Vec<u32>,
    pub cells: Vec<u32>,
    /// Per CSR entry: unit normals of the three dual faces meeting at the entry's centroid.
    pub normals: Vec<[[R; 3]; 3]>,
    /// Per CSR entry: offsets d_f of the three bisector planes (n_f · y = d_f).
    pub plane_d: Vec<[R; 3]>,
    /// Per CSR entry: half the lengths of the three edges (the vertex's distance to each plane).
    pub half_len: Vec<[R; 3]>,
    /// Per CSR entry: |det N_t| of those three normals.
    pub det: Vec<R>,
}

impl<R: num_traits::Float> DualTables<R> {
    #[inline]
    pub fn cells_of(&self, v: usize) -> std::ops::Range<usize> {
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }

    /// The unnormalised weight (eq. 11) of CSR entry `e` at x.
    #[inline]
    pub fn weight(&self, e: usize, x: [R; 3]) -> R {
        warren_weight(&self.normals[e], &self.plane_d[e], &self.half_len[e], self.det[e], x)
    }
}

impl DualTables {
    /// Normalised weights (eq. 11-12) of the dual-cell vertices of `v` at point `x`.
    /// Distances are clamped below at `floor` (a small fraction of the local edge length, so a
    /// point on or just outside a dual face stays finite and bounded).
    pub fn weights(&self, v: usize, x: [f64; 3], out: &mut Vec<f64>) {
        out.clear();
        let mut sum = 0.0;
        for e in self.cells_of(v) {
            let w = self.weight(e, x);
            out.push(w);
            sum += w;
        }
        for w in out.iter_mut() {
            *w /= sum;
        }
    }
}

/// Eq. (11) for one dual-cell vertex: |det N| / prod_f (d_f - n_f . x), each distance floored
/// at 1e-3 of the half edge length, in the precision R of the caller. The solver's CPU path
/// calls this and the CUDA kernel (kernels/cuda/advect.cu) does the same arithmetic in the
/// same order, so both backends round alike.
#[inline]
pub fn warren_weight<R: num_traits::Float>(
    normals: &[[R; 3]; 3],
    plane_d: &[R; 3],
    half_len: &[R; 3],
    det: R,
    x: [R; 3],
) -> R {
    let floor = R::from(1e-3).unwrap();
    let mut prod = R::one();
    for f in 0..3 {
        let n = normals[f];
        let dist = plane_d[f] - (n[0] * x[0] + n[1] * x[1] + n[2] * x[2]);
        prod = prod * dist.max(floor * half_len[f]);
    }
    det / prod
}

pub fn build(nodes: &[[f64; 3]], cells: &[[u32; 4]]) -> DualTables {
    let nv = nodes.len();
    let mut counts = vec![0u32; nv + 1];
    for t in cells {
        for &v in t {
            counts[v as usize + 1] += 1;
        }
    }
    for i in 0..nv {
        counts[i + 1] += counts[i];
    }
    let offsets = counts;
    let mut fill = offsets.clone();
    let mut vcells = vec![0u32; *offsets.last().unwrap() as usize];
    // Ascending cell order within each vertex: deterministic, and local after reordering.
    for (c, t) in cells.iter().enumerate() {
        for &v in t {
            let slot = &mut fill[v as usize];
            vcells[*slot as usize] = c as u32;
            *slot += 1;
        }
    }
    // Geometry per entry, in parallel over vertices.
    type Entry = ([[f64; 3]; 3], [f64; 3], [f64; 3], f64);
    let entries: Vec<Entry> = (0..nv)
        .into_par_iter()
        .flat_map_iter(|v| {
            let range = offsets[v] as usize..offsets[v + 1] as usize;
            let vcells = &vcells;
            range.map(move |e| {
                let t = &cells[vcells[e] as usize];
                let xv = nodes[v];
                let mut normals = [[0.0; 3]; 3];
                let mut plane_d = [0.0; 3];
                let mut half_len = [0.0; 3];
                for (k, &a) in t.iter().filter(|&&a| a as usize != v).enumerate() {
                    let edge = vec3::sub(nodes[a as usize], xv);
                    normals[k] = vec3::normalize(edge);
                    half_len[k] = 0.5 * vec3::norm(edge);
                    plane_d[k] = vec3::dot(normals[k], xv) + half_len[k];
                }
                let det = vec3::dot(normals[0], vec3::cross(normals[1], normals[2])).abs();
                (normals, plane_d, half_len, det)
            })
        })
        .collect();
    let mut t = DualTables {
        offsets,
        cells: vcells,
        ..Default::default()
    };
    for (n, d, h, det) in entries {
        t.normals.push(n);
        t.plane_d.push(d);
        t.half_len.push(h);
        t.det.push(det);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::cartesian_box::{generate, BoxSpec};
    use crate::topology;

    #[test]
    fn weights_form_a_partition_of_unity_and_are_positive_near_the_vertex() {
        let m = generate(&BoxSpec {
            dims: [4, 4, 4],
            lo: [0.0; 3],
            hi: [1.0; 3],
        })
        .unwrap();
        let topo = topology::build(&m).unwrap();
        let d = build(&m.nodes, &topo.cells);
        // Interior vertex (2,2,2) at (0.5,0.5,0.5): 24 Kuhn tets meet at a grid node.
        let v = 2 + 5 * (2 + 5 * 2);
        assert_eq!(d.cells_of(v).len(), 24);
        let mut w = Vec::new();
        d.weights(v, [0.52, 0.49, 0.505], &mut w);
        let s: f64 = w.iter().sum();
        assert!((s - 1.0).abs() < 1e-12);
        assert!(w.iter().all(|&x| x > 0.0));
        // Every cell appears exactly four times over all vertices.
        assert_eq!(d.cells.len(), 4 * topo.cells.len());
    }
}
