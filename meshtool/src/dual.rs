//! Vertex-to-cell tables and the Voronoi-dual geometry for the interpolation of
//! semi-Lagrangian advection (Evstigneev, eq. 11-14).
//!
//! The dual cell of mesh vertex v has one vertex at the centroid c_t of every tetrahedron t
//! around v. Its faces are the planes normal to the mesh edges (v, a) leaving v, so the three
//! faces meeting at dual vertex c_t have the unit normals n_f = (x_a - x_v)/|x_a - x_v| of the
//! three edges of t at v. The weight of c_t at a point x (eq. 11-13) is
//!
//!   w_t(x) = |det N_t| / prod_f n_f · (c_t - x),   normalised so that sum_t w_t = 1 (eq. 12),
//!
//! and F(x) = sum_t w_t F_t (eq. 14). This module stores, per (vertex, cell) pair, the three
//! normals and |det N_t|, so the solver evaluates weights with no geometry of its own.

use crate::mesh::vec3;
use rayon::prelude::*;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DualTables {
    /// CSR offsets: cells around vertex v are `cells[offsets[v]..offsets[v + 1]]`.
    pub offsets: Vec<u32>,
    pub cells: Vec<u32>,
    /// Per CSR entry: unit normals of the three dual faces meeting at the entry's centroid.
    pub normals: Vec<[[f64; 3]; 3]>,
    /// Per CSR entry: |det N_t| of those three normals.
    pub det: Vec<f64>,
}

impl DualTables {
    pub fn cells_of(&self, v: usize) -> std::ops::Range<usize> {
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }

    /// Normalised weights (eq. 12-13) of the dual-cell vertices of `v` at point `x`.
    /// Distances below `eps` are clamped so a point on a dual face stays finite.
    pub fn weights(&self, v: usize, x: [f64; 3], centroids: &[[f64; 3]], out: &mut Vec<f64>) {
        out.clear();
        let mut sum = 0.0;
        for e in self.cells_of(v) {
            let c = centroids[self.cells[e] as usize];
            let d = vec3::sub(c, x);
            let mut prod = 1.0;
            for n in &self.normals[e] {
                prod *= vec3::dot(*n, d).abs().max(1e-300);
            }
            let w = self.det[e] / prod;
            out.push(w);
            sum += w;
        }
        for w in out.iter_mut() {
            *w /= sum;
        }
    }
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
    let entries: Vec<([[f64; 3]; 3], f64)> = (0..nv)
        .into_par_iter()
        .flat_map_iter(|v| {
            let range = offsets[v] as usize..offsets[v + 1] as usize;
            let vcells = &vcells;
            range.map(move |e| {
                let t = &cells[vcells[e] as usize];
                let xv = nodes[v];
                let mut normals = [[0.0; 3]; 3];
                for (k, &a) in t.iter().filter(|&&a| a as usize != v).enumerate() {
                    normals[k] = vec3::normalize(vec3::sub(nodes[a as usize], xv));
                }
                let det = vec3::dot(normals[0], vec3::cross(normals[1], normals[2])).abs();
                (normals, det)
            })
        })
        .collect();
    let (normals, det) = entries.into_iter().unzip();
    DualTables {
        offsets,
        cells: vcells,
        normals,
        det,
    }
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
        d.weights(v, [0.52, 0.49, 0.505], &topo.centroids, &mut w);
        let s: f64 = w.iter().sum();
        assert!((s - 1.0).abs() < 1e-12);
        assert!(w.iter().all(|&x| x > 0.0));
        // Every cell appears exactly four times over all vertices.
        assert_eq!(d.cells.len(), 4 * topo.cells.len());
    }
}
