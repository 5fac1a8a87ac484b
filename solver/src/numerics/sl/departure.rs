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
/// solved exactly (3x3), with dt/2 J scaled down to a Frobenius norm of 1/2 where it is larger
/// (`linearisation_step`). Forward (`sign` = 1) the material arrives at t + dt and departs at
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
    let hj = linearisation_step(h, &j);
    let m: [[R; 3]; 3] =
        std::array::from_fn(|a| std::array::from_fn(|b| if a == b { R::one() } else { R::zero() } + hj * j[a][b]));
    let d = solve3(m, rhs);
    [x[0] - d[0], x[1] - d[1], x[2] - d[2]]
}

/// The factor of J in I + h J: h, or h scaled so that |h J| (Frobenius) is 1/2 where it is
/// larger. Where h J has an eigenvalue near -1 (strong compression over a step, as in the thin
/// wall cells of a fine mesh at a large time step) I + h J is near singular and the trajectory
/// blows up, to departure points several diameters from a cylinder's wall cell in one step;
/// beyond -1 it turns downstream. In 1D (dv/dx = -a) the linearised trajectory is
/// dt v / (1 - a dt/2), twice the straight one at a dt = 1 (the exact one is 1.72 times as long
/// there) and meaningless beyond: the scaling keeps it at twice the straight step from there
/// on, and ||(I + h J)^-1|| <= 2 everywhere. A shear flow (J nilpotent) is unaffected by it.
/// The CUDA `trapezoid_departure` (kernels/cuda/tet.cuh) does the same arithmetic.
fn linearisation_step<R: Real>(h: R, j: &[[R; 3]; 3]) -> R {
    let norm2 = j.iter().flatten().fold(R::zero(), |s, &x| s + x * x);
    if h * h * norm2 > R::of(0.25) {
        let scaled = R::of(0.5) / norm2.sqrt();
        if h < R::zero() {
            -scaled
        } else {
            scaled
        }
    } else {
        h
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// v = -a x (pure compression along x): the linearised trajectory dt v / (1 - a dt/2).
    struct Compression(f64);

    impl VelocityField<f64> for Compression {
        fn eval(&self, x: [f64; 3], _: usize, _: f64, _: u64) -> ([f64; 3], [[f64; 3]; 3]) {
            let a = self.0;
            ([-a * x[0], 0.0, 0.0], [[-a, 0.0, 0.0], [0.0; 3], [0.0; 3]])
        }
    }

    /// Up to a dt = 1 the trajectory is the linearisation's; from there on (I + dt/2 J singular
    /// at a dt = 2, a sign flip beyond) twice the straight step.
    #[test]
    fn a_near_singular_linearisation_gives_twice_the_straight_step() {
        let x = [1.0, 0.3, -0.2];
        let d_of = |a_dt: f64| x[0] - departure(&Compression(a_dt), x, 0, 0.0, 1.0, 0, 1.0)[0];
        for a_dt in [0.2, 0.5, 0.9, 1.0] {
            let want = -a_dt / (1.0 - a_dt / 2.0);
            assert!(
                (d_of(a_dt) - want).abs() < 1e-14,
                "a dt {a_dt}: {} against {want}",
                d_of(a_dt)
            );
        }
        for a_dt in [1.0 + 1e-9, 1.5, 2.0, 3.0, 40.0] {
            let want = -2.0 * a_dt;
            assert!(
                (d_of(a_dt) - want).abs() <= 1e-12 * a_dt,
                "a dt {a_dt}: {} against {want}",
                d_of(a_dt)
            );
        }
    }

    /// A shear flow's Jacobian (nilpotent) leaves the trajectory straight however large it is.
    #[test]
    fn a_strong_shear_keeps_the_straight_step() {
        struct Shear;
        impl VelocityField<f64> for Shear {
            fn eval(&self, x: [f64; 3], _: usize, _: f64, _: u64) -> ([f64; 3], [[f64; 3]; 3]) {
                ([300.0 * x[1], 0.0, 0.0], [[0.0, 300.0, 0.0], [0.0; 3], [0.0; 3]])
            }
        }
        let x = [0.4, 0.01, 0.0];
        let p = departure(&Shear, x, 0, 0.0, 0.02, 0, 1.0);
        assert!(
            (p[0] - (0.4 - 0.02 * 3.0)).abs() < 1e-15 && p[1] == 0.01 && p[2] == 0.0,
            "{p:?}"
        );
    }
}
