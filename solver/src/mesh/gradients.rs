//! Least-squares cell gradients over the face neighbours (weights 1/|r|^2, exact for linear
//! fields): the Jacobian of a velocity given as a cell field, and the gradient-corrected
//! interpolation. The CUDA kernel `advect_gradients` does the same arithmetic in the same order.

use super::geometry::TetGeometry;
use super::linalg3::{dot, solve3_or_zero, sub};
use crate::real::Real;
use meshtool::topology::is_boundary;
use rayon::prelude::*;

/// Least-squares gradient at cell c of the cell values `f(d)` over the face neighbours,
/// weighted by 1/|r|^2 (exact for linear fields); zero where too few neighbours fix it.
pub fn lsq_gradient<R: Real>(
    centroids: &[[R; 3]],
    neighbours: &[[u32; 4]],
    c: usize,
    f: impl Fn(usize) -> R,
) -> [R; 3] {
    let (mut a, mut b) = ([[R::zero(); 3]; 3], [R::zero(); 3]);
    for &d in &neighbours[c] {
        if is_boundary(d) {
            continue;
        }
        let r = sub(centroids[d as usize], centroids[c]);
        let w = R::one() / dot(r, r);
        let df = f(d as usize) - f(c);
        for i in 0..3 {
            for j in 0..3 {
                a[i][j] = a[i][j] + w * r[i] * r[j];
            }
            b[i] = b[i] + w * r[i] * df;
        }
    }
    solve3_or_zero(a, b)
}

/// Least-squares gradients of a cell field with the range of each cell and its neighbours
/// (a value carried along the gradient is clamped to it, which keeps discontinuities from
/// overshooting, as a Barth-Jespersen limiter does).
pub struct Gradients<R> {
    pub g: Vec<[R; 3]>,
    pub range: Vec<(R, R)>,
}

pub fn lsq_gradients<R: Real>(m: &TetGeometry<R>, f: &[R]) -> Gradients<R> {
    let range = (0..m.num_cells())
        .into_par_iter()
        .map(|c| {
            let mut r = (f[c], f[c]);
            for &d in &m.neighbours[c] {
                if !is_boundary(d) {
                    r = (r.0.min(f[d as usize]), r.1.max(f[d as usize]));
                }
            }
            r
        })
        .collect();
    let g = (0..m.num_cells())
        .into_par_iter()
        .map(|c| lsq_gradient(&m.centroids, &m.neighbours, c, |d| f[d]))
        .collect();
    Gradients { g, range }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::test_geometry;

    #[test]
    fn gradients_of_a_linear_field_are_exact() {
        let m = test_geometry([4, 4, 4]);
        let f: Vec<f64> = m
            .centroids
            .iter()
            .map(|x| 1.0 + x[0] - 2.0 * x[1] + 0.5 * x[2])
            .collect();
        let g = lsq_gradients(&m, &f);
        let mut interior = 0;
        for (c, gc) in g.g.iter().enumerate() {
            assert!(g.range[c].0 <= f[c] && f[c] <= g.range[c].1);
            // Exact where the face neighbours span space; zero where too few fix it.
            if m.neighbours[c].iter().any(|&d| is_boundary(d)) {
                continue;
            }
            interior += 1;
            let want = [1.0, -2.0, 0.5];
            assert!((0..3).all(|k| (gc[k] - want[k]).abs() < 1e-10), "cell {c}: {gc:?}");
        }
        assert!(interior > m.num_cells() / 2);
    }
}
