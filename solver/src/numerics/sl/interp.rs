//! Interpolation of a cell field at a point: a limited least-squares quadratic around the
//! nearest vertex (`quadratic`, the default), the Voronoi-dual weights of the paper (eq. 11-14)
//! from the prepared mesh's tables, optionally applied to gradient-carried donor values, or
//! linear (cell values averaged to vertices, barycentric in the cell). Each returns the donor
//! range for the limiter. Dirichlet patches enter as wall points (quadratic), virtual cells
//! (Voronoi) or pinned vertex values (linear), see `mesh::geometry`.

use super::departure::Departure;
use super::quadratic::{fit_field, quadratic, Bounds, QuadFit};
use crate::mesh::linalg3::{dot, sub};
use crate::mesh::locate::barycentric;
use crate::mesh::{lsq_gradients, Gradients, Location, TetGeometry};
use crate::real::Real;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Interpolation {
    /// A least-squares quadratic fitted around the nearest vertex, clamped to its stencil's
    /// range (`quadratic`): exact for quadratic fields, bounded, second order under refinement.
    #[default]
    Quadratic,
    /// The paper's Voronoi-dual weights (eq. 11-14) applied to the cell values.
    Voronoi,
    /// The same weights applied to each donor's value carried to the point along its
    /// least-squares gradient, F_t + g_t . (p - c_t): exact for linear fields.
    #[serde(rename = "voronoi-grad")]
    VoronoiGrad,
    Linear,
}

impl Interpolation {
    /// Its name in case files and variant strings.
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Quadratic => "quadratic",
            Interpolation::Voronoi => "voronoi",
            Interpolation::VoronoiGrad => "voronoi-grad",
            Interpolation::Linear => "linear",
        }
    }
}

/// Interpolated values with the range of the donors that made each (the limiter's bounds).
pub struct Interpolated<F> {
    pub value: F,
    pub lo: F,
    pub hi: F,
}

/// What the Voronoi interpolation weighs: the cell values, optionally carried along their
/// gradients, and the Dirichlet value of each patch (NaN for the others).
pub struct Donors<'a, R> {
    pub f: &'a [R],
    pub grad: Option<&'a Gradients<R>>,
    pub bc: &'a [R],
}

/// The vertex of cell c nearest to p (the first of equals).
#[inline]
pub fn nearest_vertex<R: Real>(m: &TetGeometry<R>, c: usize, p: [R; 3]) -> usize {
    let cell = &m.cells[c];
    let mut v = cell[0] as usize;
    let mut best = R::infinity();
    for &k in cell {
        let r = sub(m.nodes[k as usize], p);
        let dist = dot(r, r).sqrt();
        if dist < best {
            best = dist;
            v = k as usize;
        }
    }
    v
}

/// Value at p (inside cell c) and the min/max of the donor values (eq. 11-14).
///
/// The donors (the dual entries of the nearest vertex, then its Dirichlet virtual cells) are
/// summed in two interleaved partial sums, even and odd positions, added at the end: the CUDA
/// kernel by vertex groups gives each point two threads, one per partial sum, and the CPU and
/// the per-point kernel add in the same order so that every backend rounds alike.
#[inline]
pub fn voronoi<R: Real>(m: &TetGeometry<R>, c: usize, p: [R; 3], d: &Donors<R>) -> (R, R, R) {
    // The dual cell containing p is (for Delaunay meshes) that of the nearest vertex of c.
    let v = nearest_vertex(m, c, p);
    let (mut sum_w, mut sum_wf) = ([R::zero(); 2], [R::zero(); 2]);
    let (mut lo, mut hi) = (R::infinity(), R::neg_infinity());
    let mut add = |j: usize, w: R, value: R, donor: R| {
        sum_w[j % 2] = sum_w[j % 2] + w;
        sum_wf[j % 2] = sum_wf[j % 2] + w * value;
        lo = lo.min(donor);
        hi = hi.max(donor);
    };
    let dual = m.dual.cells_of(v);
    let first_virtual = dual.len();
    for (j, e) in dual.enumerate() {
        let t = m.dual.cells[e] as usize;
        let ft = match d.grad {
            Some(g) => {
                let (lo, hi) = g.range[t];
                (d.f[t] + dot(g.g[t], sub(p, m.centroids[t]))).max(lo).min(hi)
            }
            None => d.f[t],
        };
        add(j, m.dual.weight(e, p), ft, d.f[t]);
    }
    // Dirichlet virtual cells around v (section II.C): donors carrying the wall value.
    for (j, e) in m.virt.cells_of(v).enumerate() {
        let fb = d.bc[m.virt.cells[e] as usize];
        add(first_virtual + j, m.virt.weight(e, p), fb, fb);
    }
    ((sum_wf[0] + sum_wf[1]) / (sum_w[0] + sum_w[1]), lo, hi)
}

/// Cell values averaged to vertices, volume-weighted; vertices on a Dirichlet patch take the
/// wall value.
pub fn vertex_values<R: Real>(m: &TetGeometry<R>, f: &[R], out: &mut Vec<R>) {
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

/// Barycentric interpolation of the vertex values `fv` at p (inside cell c), the weights
/// clamped to [0, 1] and renormalised, with the range of the four vertex values.
#[inline]
pub fn linear<R: Real>(m: &TetGeometry<R>, c: usize, p: [R; 3], fv: &[R]) -> (R, R, R) {
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

/// I(deps, f): the field f at every departure point, with the donors' range. A point outside
/// the domain takes its patch's Dirichlet value (`bc`, NaN for none), else the value of the
/// cell it left through (zero gradient). `fit` holds the quadratic's tables (needed for it
/// alone).
pub fn interpolate<R: Real>(
    m: &TetGeometry<R>,
    how: Interpolation,
    fit: Option<&QuadFit<R>>,
    bc: &[R],
    deps: &[Departure<R>],
    f: &[R],
) -> Interpolated<Vec<R>> {
    let mut fv = Vec::new();
    let mut grad = None;
    match how {
        Interpolation::Linear => vertex_values(m, f, &mut fv),
        Interpolation::VoronoiGrad => grad = Some(lsq_gradients(m, f)),
        Interpolation::Quadratic => fit_field(
            fit.expect("the quadratic interpolation needs its fit tables"),
            bc,
            f,
            &mut fv,
        ),
        Interpolation::Voronoi => {}
    }
    let donors = Donors {
        f,
        grad: grad.as_ref(),
        bc,
    };
    let at = |d: &Departure<R>| match d.loc {
        Location::Inside(c) => match how {
            Interpolation::Linear => linear(m, c as usize, d.point, &fv),
            Interpolation::Quadratic => quadratic(m, c as usize, d.point, &fv, fit.map_or(Bounds::Union, |f| f.bounds)),
            _ => voronoi(m, c as usize, d.point, &donors),
        },
        Location::Outside { cell, patch } => {
            let b = bc[patch as usize];
            let v = if b.is_nan() { f[cell as usize] } else { b };
            (v, v, v)
        }
    };
    let n = deps.len();
    let mut out = Interpolated {
        value: vec![R::zero(); n],
        lo: vec![R::zero(); n],
        hi: vec![R::zero(); n],
    };
    (&mut out.value, &mut out.lo, &mut out.hi, deps)
        .into_par_iter()
        .for_each(|(v, lo, hi, d)| (*v, *lo, *hi) = at(d));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{test_box, test_geometry, Locator};

    #[test]
    fn both_interpolations_are_close_to_a_linear_field_and_bounded() {
        let m = test_geometry([8, 8, 8]);
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
        let pm = test_box([6, 6, 6]);
        let xmin = pm.patch_index("xmin").expect("box patches");
        let mut bc = vec![f64::NAN; pm.patches.len()];
        bc[xmin] = 1.0;
        let dirichlet = TetGeometry::<f64>::take(&mut pm.clone(), &bc);
        let neumann = TetGeometry::<f64>::take(&mut pm.clone(), &vec![f64::NAN; bc.len()]);
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
            let at = |m: &TetGeometry<f64>, f: &[f64]| voronoi(m, c as usize, p, &Donors { f, grad: None, bc: &bc });
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
