//! Derived cell quantities for output and post-processing: cell gradients over the vertex
//! neighbourhood, the velocity gradient tensor, and from it the vorticity vector, its magnitude
//! and the Q-criterion as cell `Field`s for the VTU series.
//!
//! The gradients here are least-squares fits (weights 1/|r|^2) over every cell that shares a
//! vertex with the cell, not only the face neighbours of `gradients::lsq_gradient`: at a cell
//! with two or three faces on the boundary the face neighbours do not span space (that
//! gradient is zero there), while the vertex neighbourhood does. So the fit is exact for linear
//! fields in every cell, wall cells included — which is where forces and near-wall probes read
//! it. Post-processing only: computed in f64 on the CPU, whatever the run's precision.

use super::geometry::TetGeometry;
use crate::output::{Centring, Field};
use crate::real::Real;
use rayon::prelude::*;

/// Names of the derived fields in the VTU series (scripts/render_dfg_slice.py reads them).
pub const VORTICITY: &str = "vorticity";
pub const VORTICITY_MAGNITUDE: &str = "vorticity_magnitude";
pub const Q_CRITERION: &str = "q_criterion";

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

/// The vorticity vector of a velocity gradient tensor: curl u.
pub fn vorticity(j: &[[f64; 3]; 3]) -> [f64; 3] {
    [j[2][1] - j[1][2], j[0][2] - j[2][0], j[1][0] - j[0][1]]
}

/// Q = (|Omega|^2 - |S|^2) / 2 with S and Omega the symmetric and antisymmetric parts of J
/// (Frobenius norms): positive where rotation dominates strain (Hunt, Wray & Moin 1988).
/// Solid-body rotation at angular velocity w gives Q = w^2, a pure shear 0.
pub fn q_criterion(j: &[[f64; 3]; 3]) -> f64 {
    let (mut s2, mut o2) = (0.0, 0.0);
    for a in 0..3 {
        for b in 0..3 {
            let s = 0.5 * (j[a][b] + j[b][a]);
            let o = 0.5 * (j[a][b] - j[b][a]);
            s2 += s * s;
            o2 += o * o;
        }
    }
    0.5 * (o2 - s2)
}

/// The cell fields `vorticity` (vector), `vorticity_magnitude` and `q_criterion` of the
/// velocity gradient tensors `grads` (one per cell).
pub fn derived_fields_from(grads: &[[[f64; 3]; 3]]) -> Vec<Field> {
    let w: Vec<[f64; 3]> = grads.iter().map(vorticity).collect();
    let mag = w
        .iter()
        .map(|w| (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt())
        .collect();
    vec![
        Field::vector(VORTICITY, 3, Centring::Cell, w.concat()),
        Field::scalar(VORTICITY_MAGNITUDE, Centring::Cell, mag),
        Field::scalar(Q_CRITERION, Centring::Cell, grads.iter().map(q_criterion).collect()),
    ]
}

/// `vorticity`, `vorticity_magnitude` and `q_criterion` as cell fields of the cell velocity
/// `u` (three component arrays).
pub fn derived_fields<R: Real>(m: &TetGeometry<R>, u: [&[R]; 3]) -> Vec<Field> {
    derived_fields_from(&velocity_gradients(m, u))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::test_geometry;

    /// The three components of the cell velocity u(x) at the centroids.
    fn velocity(m: &TetGeometry<f64>, u: impl Fn([f64; 3]) -> [f64; 3]) -> [Vec<f64>; 3] {
        let at: Vec<[f64; 3]> = m.centroids.iter().map(|&x| u(x)).collect();
        std::array::from_fn(|i| at.iter().map(|v| v[i]).collect())
    }

    fn fields(m: &TetGeometry<f64>, u: impl Fn([f64; 3]) -> [f64; 3]) -> Vec<Field> {
        let u = velocity(m, u);
        derived_fields(m, [&u[0], &u[1], &u[2]])
    }

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

    #[test]
    fn solid_body_rotation_has_vorticity_twice_the_rate_and_q_its_square() {
        let m = test_geometry([4, 3, 3]);
        let w = 1.5;
        let f = fields(&m, |x| [-w * (x[1] - 0.5), w * (x[0] - 0.5), 0.2]);
        assert_eq!(
            f.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            [VORTICITY, VORTICITY_MAGNITUDE, Q_CRITERION]
        );
        assert_eq!((f[0].components, f[0].len()), (3, m.num_cells()));
        for c in 0..m.num_cells() {
            let v = &f[0].values[3 * c..3 * c + 3];
            assert!(
                v[0].abs() < 1e-10 && v[1].abs() < 1e-10 && (v[2] - 2.0 * w).abs() < 1e-10,
                "{v:?}"
            );
            assert!((f[1].values[c] - 2.0 * w).abs() < 1e-10);
            assert!((f[2].values[c] - w * w).abs() < 1e-10, "Q = {}", f[2].values[c]);
        }
    }

    #[test]
    fn shear_has_zero_q_and_pure_strain_negative_q() {
        let m = test_geometry([3, 3, 3]);
        let g = 2.0;
        let shear = fields(&m, |x| [g * x[1], 0.0, 0.0]);
        let strain = fields(&m, |x| [x[0], -x[1], 0.0]);
        for c in 0..m.num_cells() {
            assert!((shear[0].values[3 * c + 2] + g).abs() < 1e-10);
            assert!(shear[2].values[c].abs() < 1e-10);
            // S = diag(1, -1, 0): Q = -|S|^2 / 2 = -1; no rotation.
            assert!((strain[2].values[c] + 1.0).abs() < 1e-10);
            assert!(strain[1].values[c].abs() < 1e-10);
        }
    }
}
