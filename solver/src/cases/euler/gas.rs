//! The ideal gas in the frame of one axis: conservative states as [rho, rho u_n, rho u_t1,
//! rho u_t2, E] (u_n along the sweep's axis), primitives, fluxes and wave speeds.

use crate::framework::Unhealthy;
use crate::grid::StructuredGrid;
use crate::numerics::fv::riemann_exact::Primitive;
/// Pressure p = (gamma - 1) (E - rho |u|^2 / 2), and the flux along the axis, of a state.
pub use crate::numerics::fv::riemann_hll::{flux, pressure};
use crate::output::{Centring, Field};
use crate::real::Real;

/// A conservative state in a sweep's frame.
pub type Cons<R> = [R; 5];

/// The components of a state in the frame of `axis`: density, the momentum along the axis, the
/// two transverse momenta, energy.
pub fn frame(axis: usize) -> [usize; 5] {
    [0, 1 + axis, 1 + (axis + 1) % 3, 1 + (axis + 2) % 3, 4]
}

/// The conservative state at index `at` in the frame of `axis`, from values with components
/// one after another `stride` apart (interior values: stride = cells; padded: the padded length).
pub fn state<R: Real>(values: &[R], stride: usize, at: usize, axis: usize) -> Cons<R> {
    frame(axis).map(|c| values[c * stride + at])
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

/// The output fields (density, velocity, pressure, Mach number) of the interior conservative
/// values (components one after another, x fastest), either backend's.
pub fn fields<R: Real>(g: &StructuredGrid, gamma: R, values: &[R]) -> Vec<Field> {
    let points = g.points();
    let dims = if g.cells[2] > 1 { 3 } else { 2 };
    use rayon::prelude::*;
    let (mut rho, mut vel, mut p, mut mach) = (
        vec![0.0; points],
        vec![0.0; dims * points],
        vec![0.0; points],
        vec![0.0; points],
    );
    // Cell by cell, in parallel (the same values as one thread's).
    rho.par_iter_mut()
        .zip(vel.par_chunks_mut(dims))
        .zip(p.par_iter_mut())
        .zip(mach.par_iter_mut())
        .enumerate()
        .for_each(|(cell, (((rho, vel), p), mach))| {
            let s = state(values, points, cell, 0);
            let pr = pressure(&s, gamma);
            let v = [s[1] / s[0], s[2] / s[0], s[3] / s[0]];
            *rho = s[0].f64();
            for (o, x) in vel.iter_mut().zip(v) {
                *o = x.f64();
            }
            *p = pr.f64();
            let speed = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            *mach = (speed / (gamma * pr / s[0]).sqrt()).f64();
        });
    vec![
        Field::scalar("density", Centring::Cell, rho),
        Field::vector("velocity", dims, Centring::Cell, vel),
        Field::scalar("pressure", Centring::Cell, p),
        Field::scalar("mach", Centring::Cell, mach),
    ]
}

/// Whether the conservative state of a cell is sound: density and pressure positive, finite.
pub fn is_sound<R: Real>(s: &Cons<R>, gamma: R) -> bool {
    s[0] > R::zero() && pressure(s, gamma) > R::zero() && s.iter().all(|v| v.is_finite())
}

/// What is wrong with interior cell `cell` (x fastest) of the interior values: its density and
/// pressure, and where it is.
pub fn unsound<R: Real>(g: &StructuredGrid, gamma: R, values: &[R], cell: usize) -> Unhealthy {
    let s = state(values, g.points(), cell, 0);
    let at = g.whole_index(cell);
    Unhealthy {
        field: "density".into(),
        what: format!(
            "density {:e}, pressure {:e} in cell {at:?}",
            s[0].f64(),
            pressure(&s, gamma).f64()
        ),
    }
}
