//! MUSCL-Hancock along one line (Toro sec. 14.4): limited slopes of the conservative variables,
//! boundary-extrapolated values evolved by half a step, the flux at each face from the chosen
//! Riemann solver (the exact solver's Godunov state, HLLC or HLL), the conservative update. One line of cells, two ghosts at each end.

use super::gas::{self, Cons};
use super::section::Riemann;
use crate::numerics::fv::limiters::Limiter;
use crate::numerics::fv::riemann_exact::godunov_state;
use crate::numerics::fv::riemann_hll::{hll_flux, hllc_flux};
use crate::real::Real;

/// The boundary-extrapolated values of cell i evolved by half a step (Toro eqs. 14.32-14.34).
/// Where that leaves density or pressure non-positive, the cell falls back to first order
/// (its own value at both faces), which keeps the scheme positive on near-vacuum problems.
#[inline]
fn evolved<R: Real>(line: &[Cons<R>], i: usize, lambda: R, gamma: R, limiter: Limiter) -> (Cons<R>, Cons<R>) {
    let half = R::of(0.5);
    let (um, u, up) = (&line[i - 1], &line[i], &line[i + 1]);
    let mut l = *u;
    let mut r = *u;
    for c in 0..5 {
        let s = limiter.slope(u[c] - um[c], up[c] - u[c]);
        l[c] = u[c] - half * s;
        r[c] = u[c] + half * s;
    }
    let (fl, fr) = (gas::flux(&l, gamma), gas::flux(&r, gamma));
    for c in 0..5 {
        let d = half * lambda * (fl[c] - fr[c]);
        l[c] = l[c] + d;
        r[c] = r[c] + d;
    }
    let sound = |v: &Cons<R>| v[0] > R::zero() && gas::pressure(v, gamma) > R::zero();
    if sound(&l) && sound(&r) {
        (l, r)
    } else {
        (*u, *u)
    }
}

/// The Godunov flux between a left and a right state: the exact solution at x/t = 0, the
/// transverse velocities taken from the side the flow comes from.
#[inline]
pub fn godunov_flux<R: Real>(l: &Cons<R>, r: &Cons<R>, gamma: R) -> Cons<R> {
    let (wl, tl) = gas::primitive(l, gamma);
    let (wr, tr) = gas::primitive(r, gamma);
    let w = godunov_state(wl, wr, gamma);
    let t = if w.u >= R::zero() { tl } else { tr };
    gas::flux_of_primitive(w, t, gamma)
}

/// The flux between a left and a right state from the chosen Riemann solver.
#[inline]
pub fn face_flux<R: Real>(riemann: Riemann, l: &Cons<R>, r: &Cons<R>, gamma: R) -> Cons<R> {
    match riemann {
        Riemann::Exact => godunov_flux(l, r, gamma),
        Riemann::Hllc => hllc_flux(l, r, gamma),
        Riemann::Hll => hll_flux(l, r, gamma),
    }
}

/// Update the interior of `line` (length n + 4) by one step, `lambda` = dt / dx, into `out`
/// (length n), with `limiter` and `riemann` solver.
pub fn update_line<R: Real>(
    line: &[Cons<R>],
    lambda: R,
    gamma: R,
    (limiter, riemann): (Limiter, Riemann),
    out: &mut [Cons<R>],
) {
    let m = line.len();
    // Evolved boundary values of cells 1..m-1 and the fluxes of faces 1+1/2 .. m-3+1/2.
    let ev: Vec<(Cons<R>, Cons<R>)> = (1..m - 1).map(|i| evolved(line, i, lambda, gamma, limiter)).collect();
    let faces: Vec<Cons<R>> = (0..m - 3).map(|f| face_flux(riemann, &ev[f].1, &ev[f + 1].0, gamma)).collect();
    for (k, o) in out.iter_mut().enumerate() {
        // Cell k + 2 of the line: faces k (left) and k + 1 (right).
        let (u, fl, fr) = (&line[k + 2], &faces[k], &faces[k + 1]);
        for c in 0..5 {
            o[c] = u[c] - lambda * (fr[c] - fl[c]);
        }
    }
}
