//! The ideal gas in the frame of one axis: conservative states as [rho, rho u_n, rho u_t1,
//! rho u_t2, E] (u_n along the sweep's axis), primitives, fluxes and wave speeds.

use crate::numerics::fv::riemann_exact::Primitive;
use crate::real::Real;

/// A conservative state in a sweep's frame.
pub type Cons<R> = [R; 5];

/// Pressure p = (gamma - 1) (E - rho |u|^2 / 2).
#[inline]
pub fn pressure<R: Real>(u: &Cons<R>, gamma: R) -> R {
    let half = R::of(0.5);
    let kinetic = half * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0];
    (gamma - R::one()) * (u[4] - kinetic)
}

/// The 1D primitive state (rho, u_n, p) and the transverse velocities.
#[inline]
pub fn primitive<R: Real>(u: &Cons<R>, gamma: R) -> (Primitive<R>, [R; 2]) {
    let rho = u[0];
    let w = Primitive {
        rho,
        u: u[1] / rho,
        p: pressure(u, gamma),
    };
    (w, [u[2] / rho, u[3] / rho])
}

/// The flux along the axis of a conservative state.
#[inline]
pub fn flux<R: Real>(u: &Cons<R>, gamma: R) -> Cons<R> {
    let p = pressure(u, gamma);
    let un = u[1] / u[0];
    [u[1], u[1] * un + p, u[2] * un, u[3] * un, un * (u[4] + p)]
}

/// The flux of a primitive state (rho, u_n, p) with transverse velocities `t`.
#[inline]
pub fn flux_of_primitive<R: Real>(w: Primitive<R>, t: [R; 2], gamma: R) -> Cons<R> {
    let half = R::of(0.5);
    let m = w.rho * w.u;
    let e = w.p / (gamma - R::one()) + half * w.rho * (w.u * w.u + t[0] * t[0] + t[1] * t[1]);
    [m, m * w.u + w.p, m * t[0], m * t[1], w.u * (e + w.p)]
}

/// The conservative state of primitives (rho, u along `axis`, p), at rest across it.
pub fn conservative_along(w: [f64; 3], axis: usize, gamma: f64) -> [f64; 5] {
    let mut u = [w[0], 0.0, 0.0, 0.0, w[2] / (gamma - 1.0) + 0.5 * w[0] * w[1] * w[1]];
    u[1 + axis] = w[0] * w[1];
    u
}

/// |u_n| + c, the fastest signal along the axis.
#[inline]
pub fn max_speed<R: Real>(u: &Cons<R>, gamma: R) -> R {
    let p = pressure(u, gamma);
    (u[1] / u[0]).abs() + (gamma * p / u[0]).sqrt()
}
