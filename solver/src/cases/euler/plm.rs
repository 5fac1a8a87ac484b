//! PLM + SSP-RK3, the method of lines of the PLM paper (`euler-3d-rayleigh-taylor-hll-rk3-gpu.md`,
//! secs. II-III): per stage, the primitive variables (rho, u, v, w, p) reconstructed linearly
//! to each face with a limited slope, the flux from the chosen Riemann solver (the paper's is
//! HLL), all axes at once (unsplit), plus the gravity source; Shu & Osher's SSP-RK3 combines
//! the stages. The CUDA kernel `euler_rk_stage` (kernels/cuda/euler.cu) repeats these
//! functions operation by operation.

use super::gas::{self, Cons};
use super::muscl::face_flux as riemann_flux;
use super::section::Riemann;
use crate::grid::{FaceBc, StructuredGrid};
use crate::numerics::fv::limiters::Limiter;
use crate::real::Real;

/// A primitive state in the grid's axes: [rho, u_x, u_y, u_z, p].
pub type Prim<R> = [R; 5];

/// SSP-RK3 (the paper's eqs. 15-17) as u_(s+1) = a u_n + b (u_s + dt L(u_s)), per stage (a, b).
pub const RK3_WEIGHTS: [(f64, f64); 3] = [(0.0, 1.0), (0.75, 0.25), (1.0 / 3.0, 2.0 / 3.0)];

/// The primitive state of a conservative one (both in the grid's axes).
#[inline]
pub fn primitive<R: Real>(u: &Cons<R>, gamma: R) -> Prim<R> {
    [u[0], u[1] / u[0], u[2] / u[0], u[3] / u[0], gas::pressure(u, gamma)]
}

/// The value of cell `w` (neighbours `wm`, `wp` along the axis) at its upper or lower face:
/// w +- slope / 2 per variable; the cell's own value where that leaves rho or p non-positive.
#[inline]
fn face_value<R: Real>(wm: &Prim<R>, w: &Prim<R>, wp: &Prim<R>, limiter: Limiter, upper: bool) -> Prim<R> {
    let half = R::of(0.5);
    let mut f = *w;
    for c in 0..5 {
        let d = half * limiter.slope(w[c] - wm[c], wp[c] - w[c]);
        f[c] = if upper { w[c] + d } else { w[c] - d };
    }
    if f[0] > R::zero() && f[4] > R::zero() {
        f
    } else {
        *w
    }
}

/// The conservative state of a primitive one in the frame of `axis` ([rho, rho u_n, rho u_t1,
/// rho u_t2, E], as the Riemann solvers take it).
#[inline]
fn conservative_in_frame<R: Real>(w: &Prim<R>, axis: usize, gamma: R) -> Cons<R> {
    let half = R::of(0.5);
    let (rho, vn, t1, t2) = (w[0], w[1 + axis], w[1 + (axis + 1) % 3], w[1 + (axis + 2) % 3]);
    let kinetic = half * rho * (vn * vn + t1 * t1 + t2 * t2);
    [rho, rho * vn, rho * t1, rho * t2, w[4] * (R::one() / (gamma - R::one())) + kinetic]
}

/// The flux through the face between `w[1]` and `w[2]`, four consecutive cells along `axis`,
/// in the grid's component order.
#[inline]
pub fn face_flux<R: Real>(w: [&Prim<R>; 4], axis: usize, gamma: R, (limiter, riemann): (Limiter, Riemann)) -> Cons<R> {
    let l = face_value(w[0], w[1], w[2], limiter, true);
    let r = face_value(w[1], w[2], w[3], limiter, false);
    let f = riemann_flux(
        riemann,
        &conservative_in_frame(&l, axis, gamma),
        &conservative_in_frame(&r, axis, gamma),
        gamma,
    );
    let mut out = [R::zero(); 5];
    for (k, c) in gas::frame(axis).into_iter().enumerate() {
        out[c] = f[k];
    }
    out
}

/// Add the gravity source of cell state `u` to its tendency: rho g to the momentum, rho u . g
/// to the energy.
#[inline]
pub fn add_gravity<R: Real>(u: &Cons<R>, g: [R; 3], acc: &mut Cons<R>) {
    for b in 0..3 {
        acc[1 + b] = acc[1 + b] + u[0] * g[b];
    }
    acc[4] = acc[4] + (u[1] * g[0] + u[2] * g[1] + u[3] * g[2]);
}

/// What one stage needs besides the states.
#[derive(Clone, Copy)]
pub struct StageParams<R> {
    pub gamma: R,
    pub scheme: (Limiter, Riemann),
    /// The axes with more than one cell, in order, and 1 / h of each axis.
    pub active: [bool; 3],
    pub inv_h: [R; 3],
    pub gravity: [R; 3],
    /// RK3 weights of the stage and the step.
    pub a: R,
    pub b: R,
    pub dt: R,
}

/// One SSP-RK3 stage on the CPU: `out` = a `u0` + b (`u` + dt L(`u`)) on the interior, `u`'s
/// ghosts filled (padded arrays, components one after another).
pub fn stage<R: Real>(g: &StructuredGrid, s: &StageParams<R>, u: &[R], u0: &[R], out: &mut [R]) {
    use rayon::prelude::*;
    let len = g.padded_len();
    let cons = |p: usize| -> Cons<R> { std::array::from_fn(|c| u[c * len + p]) };
    // Primitives of every padded value (ghost edges and corners too: never read).
    let w: Vec<Prim<R>> = (0..len).into_par_iter().map(|p| primitive(&cons(p), s.gamma)).collect();
    let [nx, ny, nz] = g.n;
    let strides = [1, g.padded()[0], g.padded()[0] * g.padded()[1]];
    let rows: Vec<Vec<Cons<R>>> = (0..ny * nz)
        .into_par_iter()
        .map(|row| {
            let (j, k) = ((row % ny) as isize, (row / ny) as isize);
            (0..nx)
                .map(|i| {
                    let p = g.at(i as isize, j, k);
                    let uc = cons(p);
                    let mut acc = [R::zero(); 5];
                    for a in (0..3).filter(|&a| s.active[a]) {
                        let at = |o: isize| &w[(p as isize + o * strides[a] as isize) as usize];
                        let lo = face_flux([at(-2), at(-1), at(0), at(1)], a, s.gamma, s.scheme);
                        let hi = face_flux([at(-1), at(0), at(1), at(2)], a, s.gamma, s.scheme);
                        for c in 0..5 {
                            acc[c] = acc[c] - (hi[c] - lo[c]) * s.inv_h[a];
                        }
                    }
                    add_gravity(&uc, s.gravity, &mut acc);
                    std::array::from_fn(|c| s.a * u0[c * len + p] + s.b * (uc[c] + s.dt * acc[c]))
                })
                .collect()
        })
        .collect();
    for (row, values) in rows.iter().enumerate() {
        let (j, k) = ((row % ny) as isize, (row / ny) as isize);
        for (i, v) in values.iter().enumerate() {
            let p = g.at(i as isize, j, k);
            for c in 0..5 {
                out[c * len + p] = v[c];
            }
        }
    }
}

/// The energy to add to ghost layers 1, 2 of a reflecting wall across gravity, per unit
/// density, so the ghosts' pressure continues the hydrostatic column instead of mirroring it:
/// p_ghost = p_mirror + rho g_a (x_ghost - x_mirror), x_ghost - x_mirror = -+(2l - 1) h on the
/// lower / upper side. None where the face is not such a wall.
pub fn hydrostatic_energy(g: &StructuredGrid, face: &FaceBc, gravity: [f64; 3], gamma: f64, axis: usize, side: usize) -> Option<[f64; 2]> {
    if *face != FaceBc::Reflect || gravity[axis] == 0.0 || g.halo[axis] == 0 {
        return None;
    }
    let sign = if side == 0 { -1.0 } else { 1.0 };
    Some(std::array::from_fn(|l| {
        gravity[axis] * sign * (2 * l + 1) as f64 * g.h[axis] / (gamma - 1.0)
    }))
}

/// Hydrostatic ghosts on the CPU: after the halo fill (which mirrored rho and E), add rho
/// times `per_density[l - 1]` to the energy of ghost layer l on `side` of `axis`, over the
/// interior rows of the other axes (the halo fill's faces).
pub fn hydrostatic_ghosts<R: Real>(g: &StructuredGrid, axis: usize, side: usize, per_density: [f64; 2], u: &mut [R]) {
    let len = g.padded_len();
    let n = g.n.map(|v| v as isize);
    let (a1, a2) = ((axis + 1) % 3, (axis + 2) % 3);
    for r2 in 0..n[a2] {
        for r1 in 0..n[a1] {
            for l in 1..=g.halo[axis] as isize {
                let mut idx = [0isize; 3];
                idx[axis] = if side == 0 { -l } else { n[axis] - 1 + l };
                idx[a1] = r1;
                idx[a2] = r2;
                let p = g.at(idx[0], idx[1], idx[2]);
                u[4 * len + p] = u[4 * len + p] + u[p] * R::of(per_density[l as usize - 1]);
            }
        }
    }
}
