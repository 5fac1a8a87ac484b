//! Departure points: where the material that arrives at each cell centroid at t + dt was at t,
//! by the explicit second-order formula (Evstigneev eq. 8-10), and the cell that holds it.

use crate::mesh::linalg3::solve3;
use crate::mesh::{Location, Locator, TetGeometry};
use crate::real::Real;
use rayon::prelude::*;

/// A velocity field the trajectories follow: an analytic field, a steady cell field, or the
/// flow's own velocity.
pub trait VelocityField<R>: Sync {
    /// Velocity and its Jacobian J[a][b] = d v_a / d x_b at (x, t), x being the centroid of
    /// `cell`; `step` is the number of steps taken before this one (for fields that change
    /// with it).
    fn eval(&self, x: [R; 3], cell: usize, t: R, step: u64) -> ([R; 3], [[R; 3]; 3]);
}

/// The departure point of x (the centroid of `cell`): the trapezoidal rule over the step with
/// the velocity at the departure point linearised about the arrival point (eq. 8-10),
///   (I + dt/2 J(x, t_d)) (x - x*) = dt/2 (V(x, t) + V(x, t + dt)),
/// solved exactly (3x3). Forward (`sign` = 1) the material arrives at t + dt and departs at
/// t_d = t; BFECC's backward step (`sign` = -1, the reversed field) goes the other way in time,
/// arriving at t and departing at t_d = t + dt. For a steady field the two are the same.
pub fn departure<R: Real, V: VelocityField<R> + ?Sized>(
    v: &V,
    x: [R; 3],
    cell: usize,
    t: R,
    dt: R,
    step: u64,
    sign: R,
) -> [R; 3] {
    let (v0, j0) = v.eval(x, cell, t, step);
    let (v1, j1) = v.eval(x, cell, t + dt, step);
    let j = if sign > R::zero() { j0 } else { j1 };
    let h = R::of(0.5) * dt * sign;
    let rhs: [R; 3] = std::array::from_fn(|a| h * (v0[a] + v1[a]));
    let m: [[R; 3]; 3] =
        std::array::from_fn(|a| std::array::from_fn(|b| if a == b { R::one() } else { R::zero() } + h * j[a][b]));
    let d = solve3(m, rhs);
    [x[0] - d[0], x[1] - d[1], x[2] - d[2]]
}

/// A departure point and where it is.
#[derive(Clone, Copy, Debug)]
pub struct Departure<R> {
    pub point: [R; 3],
    pub loc: Location,
}

/// The time span of a step: from `t` by `dt`, after `step` steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Span {
    pub t: f64,
    pub dt: f64,
    pub step: u64,
}

/// Departure points of every cell centroid, each located by a walk that starts at its cell.
pub fn departures<R: Real, V: VelocityField<R> + ?Sized>(
    m: &TetGeometry<R>,
    locator: &Locator,
    vel: &V,
    span: Span,
    sign: f64,
) -> Vec<Departure<R>> {
    let (t, dt, sign) = (R::of(span.t), R::of(span.dt), R::of(sign));
    (0..m.num_cells())
        .into_par_iter()
        .map(|c| {
            let point = departure(vel, m.centroids[c], c, t, dt, span.step, sign);
            // In the frame of the cell found (moved across periodic faces).
            let (loc, point) = locator.locate_point(m, c as u32, point);
            Departure { point, loc }
        })
        .collect()
}
