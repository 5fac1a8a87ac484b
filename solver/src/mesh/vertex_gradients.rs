//! Least-squares cell gradients over the vertex neighbourhood (weights 1/|r|^2): every cell
//! that shares a vertex with the cell, not only the face neighbours of `gradients::lsq_gradient`.
//! At a cell with two or three faces on the boundary the face neighbours do not span space (that
//! gradient is zero there), while the vertex neighbourhood does, so these are exact for linear
//! fields in every cell, wall cells included — where forces and near-wall probes read them.
//! Computed in f64, whatever the run's precision.

use super::geometry::TetGeometry;
use crate::real::Real;
use rayon::prelude::*;

/// A stencil cell and the shift that places it next to the centre cell (zero but across
/// periodic faces, `mesh::periodic`).
pub type Placed = (u32, [f64; 3]);

/// The cells sharing a vertex with cell c (c excluded), each once, into `out`; on a periodic
/// mesh also those around the periodic images of c's vertices, shifted into c's frame.
pub fn vertex_neighbours<R: Real>(m: &TetGeometry<R>, c: usize, out: &mut Vec<Placed>) {
    out.clear();
    for &v in &m.cells[c] {
        let images = m.periodic.images(v as usize);
        if images.is_empty() {
            out.extend(m.dual.cells_of(v as usize).map(|e| (m.dual.cells[e], [0.0; 3])));
            continue;
        }
        let off = |w: u32| m.periodic.rep_offset[w as usize].map(|x| x.f64());
        let ov = off(v);
        for &w in images {
            let ow = off(w);
            let s = [ov[0] - ow[0], ov[1] - ow[1], ov[2] - ow[2]];
            out.extend(m.dual.cells_of(w as usize).map(|e| (m.dual.cells[e], s)));
        }
    }
    // The same image reached through two vertices may differ in the last bits of its shift.
    let key = |p: &Placed| (p.0, p.1.map(|x| (x * 1e9).round() as i64));
    out.sort_unstable_by_key(key);
    out.dedup_by_key(|p| key(p));
    out.retain(|p| key(p) != (c as u32, [0; 3]));
}

/// The least-squares gradient at cell c of the cell values `f(d)` over `stencil` (weights
/// 1/|r|^2), in f64; zero where the stencil does not span space.
pub fn stencil_gradient<R: Real>(
    m: &TetGeometry<R>,
    c: usize,
    stencil: &[Placed],
    f: impl Fn(usize) -> f64,
) -> [f64; 3] {
    let xc = m.centroids[c].map(|x| x.f64());
    let fc = f(c);
    let (mut a, mut b) = ([[0.0f64; 3]; 3], [0.0f64; 3]);
    for &(d, s) in stencil {
        let xd = m.centroids[d as usize].map(|x| x.f64());
        let xd = if s == [0.0; 3] {
            xd
        } else {
            std::array::from_fn(|k| xd[k] + s[k])
        };
        let r: [f64; 3] = std::array::from_fn(|k| xd[k] - xc[k]);
        let w = 1.0 / (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        let df = f(d as usize) - fc;
        for i in 0..3 {
            for j in 0..3 {
                a[i][j] += w * r[i] * r[j];
            }
            b[i] += w * r[i] * df;
        }
    }
    super::linalg3::solve3_or_zero(a, b)
}

/// The vertex-neighbourhood least-squares gradient of cell field `f` in every cell (exact for
/// linear fields, wall cells included).
pub fn vertex_lsq_gradients<R: Real>(m: &TetGeometry<R>, f: &[R]) -> Vec<[f64; 3]> {
    (0..m.num_cells())
        .into_par_iter()
        .map_init(Vec::new, |stencil, c| {
            vertex_neighbours(m, c, stencil);
            stencil_gradient(m, c, stencil, |d| f[d].f64())
        })
        .collect()
}

/// The velocity gradient tensor J[i][j] = du_i/dx_j in every cell, from the three velocity
/// components as cell fields (one stencil per cell, shared by the components).
pub fn velocity_gradients<R: Real>(m: &TetGeometry<R>, u: [&[R]; 3]) -> Vec<[[f64; 3]; 3]> {
    (0..m.num_cells())
        .into_par_iter()
        .map_init(Vec::new, |stencil, c| {
            vertex_neighbours(m, c, stencil);
            std::array::from_fn(|i| stencil_gradient(m, c, stencil, |d| u[i][d].f64()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::test_geometry;

    #[test]
    fn gradients_are_exact_for_linear_fields_in_every_cell() {
        let m = test_geometry([3, 4, 3]);
        let f: Vec<f64> = m
            .centroids
            .iter()
            .map(|x| 2.0 - x[0] + 3.0 * x[1] + 0.25 * x[2])
            .collect();
        for (c, g) in vertex_lsq_gradients(&m, &f).iter().enumerate() {
            let want = [-1.0, 3.0, 0.25];
            assert!((0..3).all(|k| (g[k] - want[k]).abs() < 1e-10), "cell {c}: {g:?}");
        }
    }
}
