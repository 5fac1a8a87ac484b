//! Interpolation of a cell field at a point: the Voronoi-dual weights of the paper (eq. 11-14)
//! from the prepared mesh's tables, or linear (cell values averaged to vertices, barycentric in
//! the cell). Both return the donor range for the limiter.

use super::locate::barycentric;
use meshtool::mesh::vec3;
use meshtool::PreparedMesh;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Interpolation {
    /// The paper's Voronoi-dual weights (eq. 11-14) applied to the cell values.
    #[default]
    Voronoi,
    /// The same weights applied to each donor's value carried to the point along its
    /// least-squares gradient, F_t + g_t . (p - c_t): exact for linear fields.
    #[serde(rename = "voronoi-grad")]
    VoronoiGrad,
    Linear,
}

/// Least-squares gradient of a cell field from the face neighbours (exact for linear fields),
/// with the range of the cell and its neighbours (the carried value is clamped to it, which
/// keeps discontinuities from overshooting, as a Barth-Jespersen limiter does).
pub struct Gradients {
    pub g: Vec<[f64; 3]>,
    pub range: Vec<(f64, f64)>,
}

pub fn lsq_gradients(m: &PreparedMesh, f: &[f64]) -> Gradients {
    use rayon::prelude::*;
    let range = (0..m.num_cells())
        .into_par_iter()
        .map(|c| {
            let mut r = (f[c], f[c]);
            for &d in &m.topo.neighbours[c] {
                if !meshtool::topology::is_boundary(d) {
                    r = (r.0.min(f[d as usize]), r.1.max(f[d as usize]));
                }
            }
            r
        })
        .collect();
    Gradients {
        g: lsq_gradients_raw(m, f),
        range,
    }
}

fn lsq_gradients_raw(m: &PreparedMesh, f: &[f64]) -> Vec<[f64; 3]> {
    use rayon::prelude::*;
    (0..m.num_cells())
        .into_par_iter()
        .map(|c| {
            let (mut a, mut b) = ([[0.0f64; 3]; 3], [0.0f64; 3]);
            for &d in &m.topo.neighbours[c] {
                if meshtool::topology::is_boundary(d) {
                    continue;
                }
                let r = vec3::sub(m.topo.centroids[d as usize], m.topo.centroids[c]);
                let w = 1.0 / vec3::dot(r, r);
                let df = f[d as usize] - f[c];
                for i in 0..3 {
                    for j in 0..3 {
                        a[i][j] += w * r[i] * r[j];
                    }
                    b[i] += w * r[i] * df;
                }
            }
            super::velocity::solve3_or_zero(a, b)
        })
        .collect()
}

/// Value at p (inside cell c) and the min/max of the donor values; with `grad`, each donor's
/// value is first carried to p along its gradient.
#[inline]
pub fn voronoi(m: &PreparedMesh, c: usize, p: [f64; 3], f: &[f64]) -> (f64, f64, f64) {
    voronoi_with(m, c, p, f, None)
}

#[inline]
pub fn voronoi_with(m: &PreparedMesh, c: usize, p: [f64; 3], f: &[f64], grad: Option<&Gradients>) -> (f64, f64, f64) {
    // The dual cell containing p is (for Delaunay meshes) that of the nearest vertex of c.
    let cell = &m.topo.cells[c];
    let mut v = cell[0] as usize;
    let mut best = f64::INFINITY;
    for &k in cell {
        let d = vec3::norm(vec3::sub(m.nodes[k as usize], p));
        if d < best {
            best = d;
            v = k as usize;
        }
    }
    let dual = &m.dual;
    let (mut sum_w, mut sum_wf, mut lo, mut hi) = (0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY);
    for e in dual.cells_of(v) {
        let t = dual.cells[e] as usize;
        // Eq. (11): distances to the three bisector planes of t's edges at v, floored at a
        // small fraction of the edge so points on or just beyond a face stay bounded.
        let w = dual.weight(e, p);
        let ft = match grad {
            Some(g) => {
                let (lo, hi) = g.range[t];
                (f[t] + vec3::dot(g.g[t], vec3::sub(p, m.topo.centroids[t]))).clamp(lo, hi)
            }
            None => f[t],
        };
        sum_w += w;
        sum_wf += w * ft;
        lo = lo.min(f[t]);
        hi = hi.max(f[t]);
    }
    (sum_wf / sum_w, lo, hi)
}

/// Cell values averaged to vertices, volume-weighted.
pub fn vertex_values(m: &PreparedMesh, f: &[f64], out: &mut Vec<f64>) {
    out.clear();
    for v in 0..m.nodes.len() {
        let (mut s, mut w) = (0.0, 0.0);
        for e in m.dual.cells_of(v) {
            let t = m.dual.cells[e] as usize;
            s += m.topo.volumes[t] * f[t];
            w += m.topo.volumes[t];
        }
        out.push(if w > 0.0 { s / w } else { 0.0 });
    }
}

#[inline]
pub fn linear(m: &PreparedMesh, c: usize, p: [f64; 3], fv: &[f64]) -> (f64, f64, f64) {
    let l = barycentric(m, c, p);
    let cell = &m.topo.cells[c];
    let (mut s, mut lo, mut hi) = (0.0, f64::INFINITY, f64::NEG_INFINITY);
    for k in 0..4 {
        let val = fv[cell[k] as usize];
        s += l[k].clamp(0.0, 1.0) * val;
        lo = lo.min(val);
        hi = hi.max(val);
    }
    let norm: f64 = l.iter().map(|x| x.clamp(0.0, 1.0)).sum();
    (s / norm, lo, hi)
}

#[cfg(test)]
mod tests {
    use super::super::locate::{Location, Locator};
    use super::*;
    use meshtool::generate::cartesian_box::{generate, BoxSpec};
    use meshtool::pmesh::prepare;
    use meshtool::reorder::Reorder;

    #[test]
    fn both_interpolations_are_close_to_a_linear_field_and_bounded() {
        let raw = generate(&BoxSpec {
            dims: [8, 8, 8],
            lo: [0.0; 3],
            hi: [1.0; 3],
        })
        .unwrap();
        let m = prepare(&raw, Reorder::Rcm).unwrap().0;
        let lin = |x: [f64; 3]| x[0] + 2.0 * x[1] + 3.0 * x[2];
        let f: Vec<f64> = m.topo.centroids.iter().map(|&c| lin(c)).collect();
        let mut fv = Vec::new();
        vertex_values(&m, &f, &mut fv);
        let loc = Locator::new(&m, 100);
        let g = lsq_gradients(&m, &f);
        let mut worst = [0.0f64; 3];
        for k in 0..200 {
            let t = k as f64 / 200.0;
            let p = [
                0.2 + 0.6 * t,
                0.3 + 0.4 * (7.0 * t).sin().abs(),
                0.25 + 0.5 * (3.0 * t).cos().abs(),
            ];
            let Location::Inside(c) = loc.locate(&m, 0, p) else {
                panic!()
            };
            let corrected = voronoi_with(&m, c as usize, p, &f, Some(&g));
            worst[2] = worst[2].max((corrected.0 - lin(p)).abs());
            for (i, (v, lo, hi)) in [voronoi(&m, c as usize, p, &f), linear(&m, c as usize, p, &fv)]
                .into_iter()
                .enumerate()
            {
                assert!(v >= lo - 1e-12 && v <= hi + 1e-12);
                worst[i] = worst[i].max((v - lin(p)).abs());
            }
        }
        println!(
            "max error on a linear field (h = 1/8): voronoi {:.3e}, linear {:.3e}, voronoi-grad {:.3e}",
            worst[0], worst[1], worst[2]
        );
        assert!(
            worst[2] < 0.5 * worst[0],
            "the gradient correction must cut the Voronoi error"
        );
        assert!(
            worst[1] < 1e-9,
            "linear interpolation must reproduce linear fields inside"
        );
        assert!(worst[0] < 0.25, "voronoi error {}", worst[0]);
    }
}
