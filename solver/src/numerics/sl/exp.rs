//! EXPERIMENT (branch sharp): runtime knobs for the step-sharpness study, read once from the
//! environment variable SLX ("bound=1,iter=2,..."). Not for merging as is.

use super::quadratic::{monomials, NQ, REC};
use crate::mesh::linalg3::{dot, sub};
use crate::mesh::locate::barycentric;
use crate::mesh::TetGeometry;
use crate::real::Real;
use rayon::prelude::*;
use std::sync::OnceLock;

#[derive(Debug, Clone)]
pub struct Exp {
    /// 0: the four stencils' union; 1: cells around c's 4 vertices; 2: c and its face
    /// neighbours; 3: cells around the vertex of c nearest to p.
    pub bound: u8,
    /// Clamp the interpolated value to the narrow bound too (else to the stencils').
    pub clampi: bool,
    /// Extra BFECC fixed-point iterations.
    pub iter: u8,
    /// Revert to the first-order value instead of clamping.
    pub revert: bool,
    /// Fit weights 1/|r|^wpow.
    pub wpow: f64,
    pub minpts: usize,
    /// Add the IDW-blended residuals F_t - q_v(c_t) over dual(v) (interpolating quadratic).
    pub resid: bool,
    /// IDW exponent.
    pub idw: f64,
    /// Barycentric blend exponent.
    pub bpow: f64,
    /// BFECC correction factor (1: standard).
    pub alpha: f64,
    /// Keep the nearest K stencil points (0: all).
    pub nearest: usize,
    /// Gaussian weights exp(-(s / g)^2) instead of 1/|s|^wpow (0: off).
    pub gauss: f64,
    /// Apply the narrow bound to the limiter only for the final value.
    pub any: bool,
}

pub fn exp() -> &'static Exp {
    static E: OnceLock<Exp> = OnceLock::new();
    E.get_or_init(|| {
        let mut e = Exp {
            bound: 0,
            clampi: true,
            iter: 0,
            revert: false,
            wpow: 2.0,
            minpts: 30,
            resid: false,
            idw: 2.0,
            bpow: 1.0,
            alpha: 1.0,
            nearest: 0,
            gauss: 0.0,
            any: false,
        };
        let s = std::env::var("SLX").unwrap_or_default();
        for kv in s.split(',').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').unwrap_or((kv, "1"));
            let f: f64 = v.parse().unwrap_or(1.0);
            match k {
                "bound" => e.bound = f as u8,
                "clampi" => e.clampi = f != 0.0,
                "iter" => e.iter = f as u8,
                "revert" => e.revert = f != 0.0,
                "wpow" => e.wpow = f,
                "minpts" => e.minpts = f as usize,
                "resid" => e.resid = f != 0.0,
                "idw" => e.idw = f,
                "bpow" => e.bpow = f,
                "alpha" => e.alpha = f,
                "nearest" => e.nearest = f as usize,
                "gauss" => e.gauss = f,
                _ => panic!("SLX: unknown key {k}"),
            }
        }
        e.any = e.bound != 0 || e.resid || e.bpow != 1.0;
        eprintln!("SLX: {e:?}");
        e
    })
}

/// Residuals F_t - q_v(c_t) per dual entry (resid).
pub fn residuals<R: Real>(m: &TetGeometry<R>, rec: &[R], f: &[R], out: &mut Vec<R>) {
    out.resize(m.dual.cells.len(), R::zero());
    let nodes = m.nodes.len();
    let chunks: Vec<(usize, Vec<R>)> = (0..nodes)
        .into_par_iter()
        .map(|v| {
            let r = m
                .dual
                .cells_of(v)
                .map(|e| {
                    let t = m.dual.cells[e] as usize;
                    f[t] - at_vertex(m, v, m.centroids[t], rec)
                })
                .collect();
            (v, r)
        })
        .collect();
    for (v, r) in chunks {
        let o = m.dual.offsets[v] as usize;
        out[o..o + r.len()].copy_from_slice(&r);
    }
}

#[inline]
fn at_vertex<R: Real>(m: &TetGeometry<R>, v: usize, p: [R; 3], rec: &[R]) -> R {
    let r = &rec[REC * v..REC * (v + 1)];
    let inv_h = r[NQ + 2];
    let x = m.nodes[v];
    let s = [(p[0] - x[0]) * inv_h, (p[1] - x[1]) * inv_h, (p[2] - x[2]) * inv_h];
    let ph = monomials(s);
    let mut val = R::zero();
    for k in 0..NQ {
        val = val + r[k] * ph[k];
    }
    val
}

fn include<R: Real>(lo: &mut R, hi: &mut R, x: R) {
    *lo = lo.min(x);
    *hi = hi.max(x);
}

/// Narrow bounds of p in c (bound = 1..3).
fn narrow<R: Real>(m: &TetGeometry<R>, c: usize, p: [R; 3], f: &[R], bc: &[R], e: &Exp) -> (R, R) {
    let (mut lo, mut hi) = (R::infinity(), R::neg_infinity());
    let vertex = |v: usize, lo: &mut R, hi: &mut R| {
        for k in m.dual.cells_of(v) {
            include(lo, hi, f[m.dual.cells[k] as usize]);
        }
        for k in m.virt.cells_of(v) {
            include(lo, hi, bc[m.virt.cells[k] as usize]);
        }
    };
    match e.bound {
        1 => {
            for &v in &m.cells[c] {
                vertex(v as usize, &mut lo, &mut hi);
            }
        }
        2 => {
            include(&mut lo, &mut hi, f[c]);
            for &nb in &m.neighbours[c] {
                if nb & 0x8000_0000 == 0 {
                    include(&mut lo, &mut hi, f[nb as usize]);
                } else if let Some(&b) = bc.get((nb & 0x7fff_ffff) as usize) {
                    if !b.is_nan() {
                        include(&mut lo, &mut hi, b);
                    }
                }
            }
        }
        _ => {
            let v = super::interp::nearest_vertex(m, c, p);
            vertex(v, &mut lo, &mut hi);
        }
    }
    (lo, hi)
}

/// The quadratic interpolation with the knobs: blend exponent, residual correction, bounds.
#[inline]
pub fn quadratic_x<R: Real>(
    m: &TetGeometry<R>,
    c: usize,
    p: [R; 3],
    rec: &[R],
    res: &[R],
    f: &[R],
    bc: &[R],
) -> (R, R, R) {
    let e = exp();
    let l = barycentric(m, c, p);
    let (zero, one) = (R::zero(), R::one());
    let (mut s, mut norm, mut lo, mut hi) = (zero, zero, R::infinity(), R::neg_infinity());
    let bp = R::of(e.bpow);
    for k in 0..4 {
        let v = m.cells[c][k] as usize;
        let r = &rec[REC * v..REC * (v + 1)];
        let mut val = at_vertex(m, v, p, rec);
        if e.resid {
            let (mut sw, mut swr) = (zero, zero);
            let mut exact = None;
            for k2 in m.dual.cells_of(v) {
                let t = m.dual.cells[k2] as usize;
                let d = sub(p, m.centroids[t]);
                let d2 = dot(d, d);
                if d2 <= R::of(1e-30) {
                    exact = Some(res[k2]);
                    break;
                }
                let w = d2.powf(-R::of(e.idw) * R::of(0.5));
                sw = sw + w;
                swr = swr + w * res[k2];
            }
            val = val + exact.unwrap_or(swr / sw);
        }
        let mut w = l[k].max(zero).min(one);
        if e.bpow != 1.0 {
            w = w.powf(bp);
        }
        s = s + w * val;
        norm = norm + w;
        lo = lo.min(r[NQ]);
        hi = hi.max(r[NQ + 1]);
    }
    let value = s / norm;
    if e.bound == 0 {
        return (value.max(lo).min(hi), lo, hi);
    }
    let (nlo, nhi) = narrow(m, c, p, f, bc, e);
    let v = if e.clampi {
        value.max(nlo).min(nhi)
    } else {
        value.max(lo).min(hi)
    };
    (v, nlo, nhi)
}
