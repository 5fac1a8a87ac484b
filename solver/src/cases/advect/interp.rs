//! Interpolation of a cell field at a point: the Voronoi-dual weights of the paper (eq. 11-14)
//! from the prepared mesh's tables, or linear (cell values averaged to vertices, barycentric in
//! the cell). Both return the donor range for the limiter. Dirichlet patches enter as virtual
//! cells (Voronoi) or pinned vertex values (linear), see `geometry`.

use super::geometry::{v3, Geometry};
use super::locate::barycentric;
use crate::real::Real;
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
        if meshtool::topology::is_boundary(d) {
            continue;
        }
        let r = v3::sub(centroids[d as usize], centroids[c]);
        let w = R::one() / v3::dot(r, r);
        let df = f(d as usize) - f(c);
        for i in 0..3 {
            for j in 0..3 {
                a[i][j] = a[i][j] + w * r[i] * r[j];
            }
            b[i] = b[i] + w * r[i] * df;
        }
    }
    super::velocity::solve3_or_zero(a, b)
}

/// Least-squares gradients of a cell field with the range of each cell and its neighbours
/// (the carried value is clamped to it, which keeps discontinuities from overshooting, as a
/// Barth-Jespersen limiter does).
pub struct Gradients<R> {
    pub g: Vec<[R; 3]>,
    pub range: Vec<(R, R)>,
}

pub fn lsq_gradients<R: Real>(m: &Geometry<R>, f: &[R]) -> Gradients<R> {
    use rayon::prelude::*;
    let range = (0..m.num_cells())
        .into_par_iter()
        .map(|c| {
            let mut r = (f[c], f[c]);
            for &d in &m.neighbours[c] {
                if !meshtool::topology::is_boundary(d) {
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

/// What the Voronoi interpolation weighs: the cell values, optionally carried along their
/// gradients, and the Dirichlet value of each patch (NaN for the others).
pub struct Donors<'a, R> {
    pub f: &'a [R],
    pub grad: Option<&'a Gradients<R>>,
    pub bc: &'a [R],
}

/// Value at p (inside cell c) and the min/max of the donor values (eq. 11-14).
#[inline]
pub fn voronoi<R: Real>(m: &Geometry<R>, c: usize, p: [R; 3], d: &Donors<R>) -> (R, R, R) {
    // The dual cell containing p is (for Delaunay meshes) that of the nearest vertex of c.
    let cell = &m.cells[c];
    let mut v = cell[0] as usize;
    let mut best = R::infinity();
    for &k in cell {
        let r = v3::sub(m.nodes[k as usize], p);
        let dist = v3::dot(r, r).sqrt();
        if dist < best {
            best = dist;
            v = k as usize;
        }
    }
    let (mut sum_w, mut sum_wf, mut lo, mut hi) = (R::zero(), R::zero(), R::infinity(), R::neg_infinity());
    for e in m.dual.cells_of(v) {
        let t = m.dual.cells[e] as usize;
        let w = m.dual.weight(e, p);
        let ft = match d.grad {
            Some(g) => {
                let (lo, hi) = g.range[t];
                (d.f[t] + v3::dot(g.g[t], v3::sub(p, m.centroids[t]))).max(lo).min(hi)
            }
            None => d.f[t],
        };
        sum_w = sum_w + w;
        sum_wf = sum_wf + w * ft;
        lo = lo.min(d.f[t]);
        hi = hi.max(d.f[t]);
    }
    // Dirichlet virtual cells around v (section II.C): donors carrying the wall value.
    for e in m.virt.cells_of(v) {
        let fb = d.bc[m.virt.cells[e] as usize];
        let w = m.virt.weight(e, p);
        sum_w = sum_w + w;
        sum_wf = sum_wf + w * fb;
        lo = lo.min(fb);
        hi = hi.max(fb);
    }
    (sum_wf / sum_w, lo, hi)
}

/// Cell values averaged to vertices, volume-weighted; vertices on a Dirichlet patch take the
/// wall value.
pub fn vertex_values<R: Real>(m: &Geometry<R>, f: &[R], out: &mut Vec<R>) {
    use rayon::prelude::*;
    (0..m.nodes.len())
        .into_par_iter()
        .map(|v| {
            if !m.node_bc[v].is_nan() {
                return m.node_bc[v];
            }
            let (mut s, mut w) = (R::zero(), R::zero());
            for e in m.dual.cells_of(v) {
                let t = m.dual.cells[e] as usize;
                s = s + m.volumes[t] * f[t];
                w = w + m.volumes[t];
            }
            if w > R::zero() {
                s / w
            } else {
                R::zero()
            }
        })
        .collect_into_vec(out);
}

#[inline]
pub fn linear<R: Real>(m: &Geometry<R>, c: usize, p: [R; 3], fv: &[R]) -> (R, R, R) {
    let l = barycentric(m, c, p);
    let cell = &m.cells[c];
    let (zero, one) = (R::zero(), R::one());
    let (mut s, mut lo, mut hi) = (zero, R::infinity(), R::neg_infinity());
    for k in 0..4 {
        let val = fv[cell[k] as usize];
        s = s + l[k].max(zero).min(one) * val;
        lo = lo.min(val);
        hi = hi.max(val);
    }
    let mut norm = zero;
    for k in 0..4 {
        norm = norm + l[k].max(zero).min(one);
    }
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
        let mut pm = prepare(&raw, Reorder::Rcm).unwrap().0;
        let m = Geometry::<f64>::take(&mut pm, &[]);
        let lin = |x: [f64; 3]| x[0] + 2.0 * x[1] + 3.0 * x[2];
        let f: Vec<f64> = m.centroids.iter().map(|&c| lin(c)).collect();
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
            let with_grad = Donors {
                f: &f,
                grad: Some(&g),
                bc: &[],
            };
            let plain = Donors {
                f: &f,
                grad: None,
                bc: &[],
            };
            let corrected = voronoi(&m, c as usize, p, &with_grad);
            worst[2] = worst[2].max((corrected.0 - lin(p)).abs());
            for (i, (v, lo, hi)) in [voronoi(&m, c as usize, p, &plain), linear(&m, c as usize, p, &fv)]
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

    /// Section II.C: near a Dirichlet patch the interpolation weighs the wall value through the
    /// virtual (mirrored) cells; near a Neumann patch it sees only the interior cells.
    #[test]
    fn dirichlet_virtual_cells_bring_the_wall_value_in() {
        let raw = generate(&BoxSpec {
            dims: [6, 6, 6],
            lo: [0.0; 3],
            hi: [1.0; 3],
        })
        .unwrap();
        let pm = prepare(&raw, Reorder::Rcm).unwrap().0;
        let xmin = pm.patch_index("xmin").expect("box patches");
        let mut bc = vec![f64::NAN; pm.patches.len()];
        bc[xmin] = 1.0;
        let dirichlet = Geometry::<f64>::take(&mut pm.clone(), &bc);
        let neumann = Geometry::<f64>::take(&mut pm.clone(), &vec![f64::NAN; bc.len()]);
        assert!(neumann.virt.cells.is_empty());
        assert!(!dirichlet.virt.cells.is_empty());
        let zeros = vec![0.0; dirichlet.num_cells()];
        let ones = vec![1.0; dirichlet.num_cells()];
        let loc = Locator::new(&dirichlet, 100);
        // Points on and just inside the Dirichlet face x = 0, and one deep inside.
        for (p, lo, hi) in [
            ([0.0, 0.45, 0.55], 0.25, 0.75),
            ([0.02, 0.3, 0.6], 0.05, 0.6),
            ([0.5, 0.5, 0.5], 0.0, 0.0),
        ] {
            let Location::Inside(c) = loc.locate(&dirichlet, 0, p) else {
                panic!()
            };
            let at = |m: &Geometry<f64>, f: &[f64]| voronoi(m, c as usize, p, &Donors { f, grad: None, bc: &bc });
            let (v, dlo, dhi) = at(&dirichlet, &zeros);
            println!("{p:?}: {v:.4}");
            assert!(v >= lo && v <= hi, "{p:?}: {v} not in [{lo}, {hi}]");
            assert!(dlo >= 0.0 && dhi <= 1.0 && v >= dlo && v <= dhi);
            assert_eq!(at(&neumann, &zeros).0, 0.0);
            // A field equal to the wall value everywhere stays exactly that value.
            assert!((at(&dirichlet, &ones).0 - 1.0).abs() < 1e-14);
        }
        // The linear interpolation pins the wall's vertices to the wall value.
        let mut fv = Vec::new();
        vertex_values(&dirichlet, &zeros, &mut fv);
        let pinned = dirichlet.node_bc.iter().filter(|v| !v.is_nan()).count();
        assert_eq!(pinned, 7 * 7);
        assert_eq!(fv.iter().filter(|&&v| v == 1.0).count(), pinned);
    }
}
