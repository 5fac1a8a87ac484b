//! Analytic velocity fields, placed relative to the mesh's bounding box, with their gradients
//! (the trajectory formula needs both).

use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

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
}

fn one() -> f64 {
    1.0
}
fn two_pi() -> f64 {
    2.0 * PI
}

/// A velocity field ready to evaluate: spec + box.
#[derive(Clone, Debug)]
pub struct Velocity {
    pub spec: VelocitySpec,
    pub lo: [f64; 3],
    pub len: [f64; 3],
}

impl Velocity {
    pub fn centre(&self) -> [f64; 3] {
        std::array::from_fn(|k| self.lo[k] + 0.5 * self.len[k])
    }

    /// Velocity and its Jacobian J[a][b] = d v_a / d x_b at (x, t); `step` is the step index,
    /// for fields that reverse after a number of steps.
    pub fn eval(&self, x: [f64; 3], t: f64, step: u64) -> ([f64; 3], [[f64; 3]; 3]) {
        match self.spec {
            VelocitySpec::Constant { speed, reverse_after } => {
                let s = if reverse_after.is_some_and(|n| step >= n) {
                    -speed
                } else {
                    speed
                };
                ([s, 0.0, 0.0], [[0.0; 3]; 3])
            }
            VelocitySpec::Rotation { omega } => {
                let c = self.centre();
                let (dx, dy) = (x[0] - c[0], x[1] - c[1]);
                (
                    [-omega * dy, omega * dx, 0.0],
                    [[0.0, -omega, 0.0], [omega, 0.0, 0.0], [0.0; 3]],
                )
            }
            VelocitySpec::Deformation { period } => {
                // On the unit cube (s = (x - lo) / len): LeVeque (1996), scaled back to the box.
                let s: [f64; 3] = std::array::from_fn(|k| (x[k] - self.lo[k]) / self.len[k]);
                let g = (PI * t / period).cos();
                let (sx, sy, sz) = ((PI * s[0]).sin(), (PI * s[1]).sin(), (PI * s[2]).sin());
                let (s2x, s2y, s2z) = (
                    (2.0 * PI * s[0]).sin(),
                    (2.0 * PI * s[1]).sin(),
                    (2.0 * PI * s[2]).sin(),
                );
                let (c2x, c2y, c2z) = (
                    (2.0 * PI * s[0]).cos(),
                    (2.0 * PI * s[1]).cos(),
                    (2.0 * PI * s[2]).cos(),
                );
                let u = [2.0 * sx * sx * s2y * s2z, -s2x * sy * sy * s2z, -s2x * s2y * sz * sz];
                // d/ds of each component (sin^2(pi s))' = pi sin(2 pi s).
                let du = [
                    [
                        2.0 * PI * s2x * s2y * s2z,
                        4.0 * PI * sx * sx * c2y * s2z,
                        4.0 * PI * sx * sx * s2y * c2z,
                    ],
                    [
                        -2.0 * PI * c2x * sy * sy * s2z,
                        -PI * s2x * s2y * s2z,
                        -2.0 * PI * s2x * sy * sy * c2z,
                    ],
                    [
                        -2.0 * PI * c2x * s2y * sz * sz,
                        -2.0 * PI * s2x * c2y * sz * sz,
                        -PI * s2x * s2y * s2z,
                    ],
                ];
                let v = std::array::from_fn(|a| g * u[a] * self.len[a]);
                let j = std::array::from_fn(|a| std::array::from_fn(|b| g * du[a][b] * self.len[a] / self.len[b]));
                (v, j)
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
                let c = self.centre();
                let (s, co) = (-omega * t).sin_cos();
                let (dx, dy) = (x[0] - c[0], x[1] - c[1]);
                Some([c[0] + co * dx - s * dy, c[1] + s * dx + co * dy, x[2]])
            }
            VelocitySpec::Deformation { period } => ((t - period).abs() < 1e-12 * period).then_some(x),
        }
    }
}

/// The explicit second-order departure point (Evstigneev eq. 8-10): the midpoint rule with the
/// velocity linearised about the arrival point x,
///   (I + dt/2 J) (x - x*) = dt/2 (V(x, t) + V(x, t + dt)),
/// solved exactly (3x3); `sign` = -1 traces the reversed field (BFECC's backward step).
pub fn departure(v: &Velocity, x: [f64; 3], t: f64, dt: f64, step: u64, sign: f64) -> [f64; 3] {
    let (v0, j) = v.eval(x, t, step);
    let (v1, _) = v.eval(x, t + dt, step);
    let h = 0.5 * dt * sign;
    let rhs: [f64; 3] = std::array::from_fn(|a| h * (v0[a] + v1[a]));
    let m: [[f64; 3]; 3] = std::array::from_fn(|a| std::array::from_fn(|b| (a == b) as i32 as f64 + h * j[a][b]));
    let d = solve3(m, rhs);
    [x[0] - d[0], x[1] - d[1], x[2] - d[2]]
}

/// Solve a 3x3 system; zero when it is singular (e.g. too few neighbours for a gradient).
pub fn solve3_or_zero(m: [[f64; 3]; 3], b: [f64; 3]) -> [f64; 3] {
    let x = solve3(m, b);
    if x.iter().all(|v| v.is_finite()) {
        x
    } else {
        [0.0; 3]
    }
}

fn solve3(m: [[f64; 3]; 3], b: [f64; 3]) -> [f64; 3] {
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    std::array::from_fn(|col| {
        let mut mc = m;
        for r in 0..3 {
            mc[r][col] = b[r];
        }
        det(mc) / d
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deformation_jacobian_matches_finite_differences() {
        let v = Velocity {
            spec: VelocitySpec::Deformation { period: 1.0 },
            lo: [0.0, -1.0, 2.0],
            len: [1.0, 2.0, 0.5],
        };
        let x = [0.3, -0.2, 2.1];
        let (_, j) = v.eval(x, 0.2, 0);
        for b in 0..3 {
            let mut xp = x;
            let mut xm = x;
            xp[b] += 1e-6;
            xm[b] -= 1e-6;
            let (vp, _) = v.eval(xp, 0.2, 0);
            let (vm, _) = v.eval(xm, 0.2, 0);
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
        let v = Velocity {
            spec: VelocitySpec::Rotation { omega: 1.0 },
            lo: [-1.0; 3],
            len: [2.0; 3],
        };
        let x = [0.5, 0.0, 0.0];
        let err = |dt: f64| {
            let d = departure(&v, x, 0.0, dt, 0, 1.0);
            let exact = v.origin(x, dt, 1).unwrap();
            ((d[0] - exact[0]).powi(2) + (d[1] - exact[1]).powi(2)).sqrt()
        };
        let order = (err(0.1) / err(0.05)).log2();
        assert!(order > 2.8, "local error order {order}"); // local O(dt^3) -> global O(dt^2)
    }
}
