//! Velocity fields with their gradients (the trajectory formula needs both): analytic ones
//! placed relative to the mesh's bounding box, a cell field from a previous run (a VTU file
//! with one vector per cell of this mesh), whose Jacobian is its least-squares gradient, or a
//! time series of such fields interpolated linearly in time (`series`).

pub use super::frames::{max_speed, CellVelocity, Window};
use crate::error::{Result, SolverError};
use crate::mesh::cell_field;
use crate::mesh::linalg3::arr;
use crate::numerics::sl::VelocityField;
use crate::real::Real;
use meshtool::PreparedMesh;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;
use std::path::Path;
use std::sync::Arc;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum VelocitySpec {
    /// Uniform velocity `speed` along +x (the paper's test); reversed after `reverse_after`
    /// steps when set (the back-and-forth test).
    Constant {
        #[serde(default = "one")]
        speed: f64,
        #[serde(default)]
        reverse_after: Option<u64>,
    },
    /// Solid-body rotation about the z axis through the box centre, `omega` rad per unit time.
    Rotation {
        #[serde(default = "two_pi")]
        omega: f64,
    },
    /// LeVeque's 3D deformation field on the box mapped to the unit cube, period `period`:
    /// the flow reverses at t = period / 2 and the exact solution at t = period is the initial.
    Deformation {
        #[serde(default = "one")]
        period: f64,
    },
    /// A steady cell field from a previous run: the vector cell array `array` of the VTU file
    /// `file` (relative to the case file; a `.pvd` series stands for its latest output),
    /// written on this same prepared mesh.
    Field {
        file: String,
        #[serde(default = "velocity_array")]
        array: String,
    },
    /// A time-dependent cell field: the frames of the `.pvd` series `file` (relative to the
    /// case file), each a VTU with the vector cell array `array` written on this same prepared
    /// mesh, interpolated linearly in time between the two frames around series time
    /// t + `offset`. Instead of `file`, `sample` (an analytic velocity of the kinds above)
    /// sampled at the centroids every `interval` from time 0 stands in for a previous run.
    /// A run that reaches outside the frames' times is refused unless `outside = "clamp"`
    /// (hold the first or last frame).
    Series {
        #[serde(default)]
        file: Option<String>,
        #[serde(default = "velocity_array")]
        array: String,
        #[serde(default)]
        offset: f64,
        #[serde(default)]
        outside: Outside,
        #[serde(default)]
        sample: Option<Box<VelocitySpec>>,
        #[serde(default)]
        interval: Option<f64>,
    },
}

/// What a `series` velocity does at a time outside its frames.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Outside {
    /// Refuse the case (exit 2), naming the series' time range.
    #[default]
    Refuse,
    /// Hold the first frame before it and the last after it (a warning says so).
    Clamp,
}

fn one() -> f64 {
    1.0
}
fn two_pi() -> f64 {
    2.0 * PI
}
fn velocity_array() -> String {
    "velocity".into()
}

/// A velocity field ready to evaluate: spec + box (+ the cell field for `field`, the frames
/// around the times being evaluated for `series`).
#[derive(Clone)]
pub struct Velocity<R> {
    pub spec: VelocitySpec,
    pub lo: [f64; 3],
    pub len: [f64; 3],
    pub cells: Option<Arc<CellVelocity<R>>>,
    pub frames: Option<Arc<Window<R>>>,
}

impl<R: Real> Velocity<R> {
    /// Velocity and its Jacobian J[a][b] = d v_a / d x_b at (x, t), x being the centroid of
    /// `cell`; `step` is the step index, for fields that reverse after a number of steps.
    /// Evaluated in R with the constants rounded to R, as the CUDA kernel does.
    pub fn eval(&self, x: [R; 3], cell: usize, t: R, step: u64) -> ([R; 3], [[R; 3]; 3]) {
        let zero = R::zero();
        let lo: [R; 3] = arr(self.lo);
        let len: [R; 3] = arr(self.len);
        match &self.spec {
            VelocitySpec::Constant { speed, reverse_after } => {
                let s = if reverse_after.is_some_and(|n| step >= n) {
                    -R::of(*speed)
                } else {
                    R::of(*speed)
                };
                ([s, zero, zero], [[zero; 3]; 3])
            }
            VelocitySpec::Rotation { omega } => {
                let w = R::of(*omega);
                let half = R::of(0.5);
                let (dx, dy) = (x[0] - (lo[0] + half * len[0]), x[1] - (lo[1] + half * len[1]));
                ([-w * dy, w * dx, zero], [[zero, -w, zero], [w, zero, zero], [zero; 3]])
            }
            VelocitySpec::Deformation { period } => deformation(x, lo, len, t, R::of(*period)),
            VelocitySpec::Field { .. } => {
                let f = self.cells.as_ref().expect("loaded at prepare");
                (f.v[cell], f.jac[cell])
            }
            VelocitySpec::Series { .. } => {
                let w = self.frames.as_ref().expect("the frames of the step are loaded before it");
                w.eval(cell, t)
            }
        }
    }

    /// Largest speed over the box (for the time step).
    pub fn max_speed(&self) -> f64 {
        match self.spec {
            VelocitySpec::Constant { speed, .. } => speed.abs(),
            VelocitySpec::Rotation { omega } => {
                omega.abs() * 0.5 * (self.len[0] * self.len[0] + self.len[1] * self.len[1]).sqrt()
            }
            VelocitySpec::Deformation { .. } => 2.0 * self.len.iter().cloned().fold(0.0, f64::max),
            VelocitySpec::Field { .. } => self.cells.as_ref().map_or(0.0, |f| f.max_speed),
            VelocitySpec::Series { .. } => self.frames.as_ref().map_or(0.0, |w| w.max_speed()),
        }
    }

    /// Where the material now at x was at time 0, where that is known in closed form.
    pub fn origin(&self, x: [f64; 3], t: f64, steps: u64) -> Option<[f64; 3]> {
        match self.spec {
            VelocitySpec::Constant { speed, reverse_after } => {
                let forward = reverse_after.map_or(steps, |n| n.min(steps));
                let back = steps - forward;
                let dt = t / steps.max(1) as f64;
                Some([x[0] - speed * dt * (forward as f64 - back as f64), x[1], x[2]])
            }
            VelocitySpec::Rotation { omega } => {
                let c: [f64; 3] = std::array::from_fn(|k| self.lo[k] + 0.5 * self.len[k]);
                let (s, co) = (-omega * t).sin_cos();
                let (dx, dy) = (x[0] - c[0], x[1] - c[1]);
                Some([c[0] + co * dx - s * dy, c[1] + s * dx + co * dy, x[2]])
            }
            VelocitySpec::Deformation { period } => ((t - period).abs() < 1e-12 * period).then_some(x),
            VelocitySpec::Field { .. } | VelocitySpec::Series { .. } => None,
        }
    }
}

/// The steady cell velocity of `velocity = { kind = "field" }`: the vector cell array `array`
/// of a VTU file a previous run wrote on this prepared mesh (a `.pvd` series stands for its
/// latest output), with its least-squares Jacobian. `fail` makes a bad-input error of the
/// message (the case file's `advect.velocity.file`).
pub fn load_cell_velocity(
    path: &Path,
    array: &str,
    mesh: &PreparedMesh,
    fail: &dyn Fn(String) -> SolverError,
) -> Result<CellVelocity<f64>> {
    Ok(CellVelocity::with_jacobian(
        cell_field::read_cell_field(path, array, mesh, fail)?,
        mesh,
    ))
}

impl<R: Real> VelocityField<R> for Velocity<R> {
    fn eval(&self, x: [R; 3], cell: usize, t: R, step: u64) -> ([R; 3], [[R; 3]; 3]) {
        Velocity::eval(self, x, cell, t, step)
    }
}

/// LeVeque's deformation field (1996) on the unit cube s = (x - lo) / len, scaled back to the
/// box, and its Jacobian.
fn deformation<R: Real>(x: [R; 3], lo: [R; 3], len: [R; 3], t: R, period: R) -> ([R; 3], [[R; 3]; 3]) {
    let pi = R::of(PI);
    let (two, four) = (R::of(2.0), R::of(4.0));
    let s: [R; 3] = std::array::from_fn(|k| (x[k] - lo[k]) / len[k]);
    let g = (pi * t / period).cos();
    let (sx, sy, sz) = ((pi * s[0]).sin(), (pi * s[1]).sin(), (pi * s[2]).sin());
    let (s2x, s2y, s2z) = (
        (two * pi * s[0]).sin(),
        (two * pi * s[1]).sin(),
        (two * pi * s[2]).sin(),
    );
    let (c2x, c2y, c2z) = (
        (two * pi * s[0]).cos(),
        (two * pi * s[1]).cos(),
        (two * pi * s[2]).cos(),
    );
    let u = [two * sx * sx * s2y * s2z, -s2x * sy * sy * s2z, -s2x * s2y * sz * sz];
    // d/ds of each component (sin^2(pi s))' = pi sin(2 pi s).
    let du = [
        [
            two * pi * s2x * s2y * s2z,
            four * pi * sx * sx * c2y * s2z,
            four * pi * sx * sx * s2y * c2z,
        ],
        [
            -two * pi * c2x * sy * sy * s2z,
            -pi * s2x * s2y * s2z,
            -two * pi * s2x * sy * sy * c2z,
        ],
        [
            -two * pi * c2x * s2y * sz * sz,
            -two * pi * s2x * c2y * sz * sz,
            -pi * s2x * s2y * s2z,
        ],
    ];
    let v = std::array::from_fn(|a| g * u[a] * len[a]);
    let j = std::array::from_fn(|a| std::array::from_fn(|b| g * du[a][b] * len[a] / len[b]));
    (v, j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::sl::departure;

    #[test]
    fn deformation_jacobian_matches_finite_differences() {
        let v = Velocity::<f64> {
            spec: VelocitySpec::Deformation { period: 1.0 },
            lo: [0.0, -1.0, 2.0],
            len: [1.0, 2.0, 0.5],
            cells: None,
            frames: None,
        };
        let x = [0.3, -0.2, 2.1];
        let (_, j) = v.eval(x, 0, 0.2, 0);
        for b in 0..3 {
            let mut xp = x;
            let mut xm = x;
            xp[b] += 1e-6;
            xm[b] -= 1e-6;
            let (vp, _) = v.eval(xp, 0, 0.2, 0);
            let (vm, _) = v.eval(xm, 0, 0.2, 0);
            for a in 0..3 {
                let fd = (vp[a] - vm[a]) / 2e-6;
                assert!(
                    (fd - j[a][b]).abs() < 1e-6 * (1.0 + fd.abs()),
                    "J[{a}][{b}] {} vs {fd}",
                    j[a][b]
                );
            }
        }
    }

    #[test]
    fn rotation_departure_is_second_order() {
        let v = Velocity::<f64> {
            spec: VelocitySpec::Rotation { omega: 1.0 },
            lo: [-1.0; 3],
            len: [2.0; 3],
            cells: None,
            frames: None,
        };
        let x = [0.5, 0.0, 0.0];
        let err = |dt: f64| {
            let d = departure(&v, x, 0, 0.0, dt, 0, 1.0);
            let exact = v.origin(x, dt, 1).unwrap();
            ((d[0] - exact[0]).powi(2) + (d[1] - exact[1]).powi(2)).sqrt()
        };
        let order = (err(0.1) / err(0.05)).log2();
        assert!(order > 2.8, "local error order {order}"); // local O(dt^3) -> global O(dt^2)
    }
}
