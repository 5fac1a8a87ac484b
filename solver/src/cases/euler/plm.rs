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
/// ghosts filled (padded arrays, components one after another). Each face is computed once,
/// axis by axis (the flux below each cell, and above the last cell of each line), and every
/// cell takes the difference of its two faces, in the CUDA kernel's order.
pub fn stage<R: Real>(g: &StructuredGrid, s: &StageParams<R>, u: &[R], u0: &[R], out: &mut [R]) {
    use rayon::prelude::*;
    let len = g.padded_len();
    let cons = |p: usize| -> Cons<R> { std::array::from_fn(|c| u[c * len + p]) };
    // Primitives of every padded value (ghost edges and corners too: never read).
    let w: Vec<Prim<R>> = (0..len).into_par_iter().map(|p| primitive(&cons(p), s.gamma)).collect();
    let [nx, ny, nz] = g.n;
    let strides = [1, g.padded()[0], g.padded()[0] * g.padded()[1]];
    // Interior cells, x fastest, as padded indices.
    let cells: Vec<usize> = (0..nz)
        .flat_map(|k| (0..ny).flat_map(move |j| (0..nx).map(move |i| (i, j, k))))
        .map(|(i, j, k)| g.at(i as isize, j as isize, k as isize))
        .collect();
    let mut acc = vec![[R::zero(); 5]; cells.len()];
    for a in (0..3).filter(|&a| s.active[a]) {
        let st = strides[a] as isize;
        let flux_below = |p: usize| {
            let at = |o: isize| &w[(p as isize + o * st) as usize];
            face_flux([at(-2), at(-1), at(0), at(1)], a, s.gamma, s.scheme)
        };
        // The face below each cell; above it is the face below the next cell, which for the
        // last cell of a line is the first ghost's.
        let below: Vec<Cons<R>> = cells.par_iter().map(|&p| flux_below(p)).collect();
        let n = g.n[a];
        let index_stride = [1, nx, nx * ny][a];
        acc.par_iter_mut().enumerate().for_each(|(q, acc)| {
            let along = (q / index_stride) % n;
            let hi = if along + 1 < n {
                below[q + index_stride]
            } else {
                flux_below((cells[q] as isize + st) as usize)
            };
            let lo = &below[q];
            for c in 0..5 {
                acc[c] = acc[c] - (hi[c] - lo[c]) * s.inv_h[a];
            }
        });
    }
    let values: Vec<Cons<R>> = cells
        .par_iter()
        .zip(acc.par_iter_mut())
        .map(|(&p, acc)| {
            let uc = cons(p);
            add_gravity(&uc, s.gravity, acc);
            std::array::from_fn(|c| s.a * u0[c * len + p] + s.b * (uc[c] + s.dt * acc[c]))
        })
        .collect();
    for (&p, v) in cells.iter().zip(&values) {
        for c in 0..5 {
            out[c * len + p] = v[c];
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{BoundarySet, GridSpec};
    use crate::output::Centring;

    /// The stage with each face computed once equals the plain per-cell form (both faces of
    /// every cell evaluated from its own stencil), bit for bit, on a 3D grid with a rough state.
    #[test]
    fn stage_with_shared_faces_equals_the_per_cell_form() {
        let spec = GridSpec {
            cells: [7, 5, 6],
            origin: [0.0; 3],
            extent: [1.0, 0.8, 0.9],
        };
        let g = StructuredGrid::new(&spec, Centring::Cell, &BoundarySet::periodic(), [2, 2, 2], 5);
        let len = g.padded_len();
        let mut u = vec![0.0f64; 5 * len];
        for p in 0..len {
            let x = p as f64;
            let rho = 1.0 + 0.3 * (0.7 * x).sin();
            let v = [0.2 * (0.3 * x).cos(), -0.1 * (1.1 * x).sin(), 0.15 * (0.5 * x).cos()];
            let pr = 1.0 + 0.2 * (0.9 * x).cos();
            let kinetic = 0.5 * rho * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            let state = [rho, rho * v[0], rho * v[1], rho * v[2], pr / 0.4 + kinetic];
            for c in 0..5 {
                u[c * len + p] = state[c];
            }
        }
        let s = StageParams {
            gamma: 1.4,
            scheme: (Limiter::Minmod, Riemann::Hll),
            active: [true; 3],
            inv_h: g.h.map(|h| 1.0 / h),
            gravity: [0.0, 0.0, -0.1],
            a: 0.75,
            b: 0.25,
            dt: 1e-3,
        };
        let mut out = vec![0.0; 5 * len];
        stage(&g, &s, &u, &u, &mut out);
        let strides = [1isize, g.padded()[0] as isize, (g.padded()[0] * g.padded()[1]) as isize];
        let cons = |p: usize| -> Cons<f64> { std::array::from_fn(|c| u[c * len + p]) };
        let prim = |p: isize| primitive(&cons(p as usize), s.gamma);
        for k in 0..6 {
            for j in 0..5 {
                for i in 0..7 {
                    let p = g.at(i, j, k);
                    let mut acc = [0.0; 5];
                    for a in 0..3 {
                        let w: Vec<Prim<f64>> = (-2..=2).map(|o| prim(p as isize + o * strides[a])).collect();
                        let lo = face_flux([&w[0], &w[1], &w[2], &w[3]], a, s.gamma, s.scheme);
                        let hi = face_flux([&w[1], &w[2], &w[3], &w[4]], a, s.gamma, s.scheme);
                        for c in 0..5 {
                            acc[c] -= (hi[c] - lo[c]) * s.inv_h[a];
                        }
                    }
                    let uc = cons(p);
                    add_gravity(&uc, s.gravity, &mut acc);
                    for c in 0..5 {
                        let want = s.a * uc[c] + s.b * (uc[c] + s.dt * acc[c]);
                        assert_eq!(out[c * len + p], want, "cell ({i}, {j}, {k}) component {c}");
                    }
                }
            }
        }
    }
}
