//! The `[euler]` section of a case file.

use crate::grid::{BoundarySet, FaceBc};
use crate::numerics::fv::limiters::Limiter;
use crate::numerics::fv::riemann_exact::{sample, Primitive};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EulerSection {
    /// Ratio of specific heats of the ideal gas.
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// "muscl-hancock": dimensionally split, the sweep order alternating from step to step.
    #[serde(default)]
    pub scheme: Scheme,
    /// "exact" (Toro ch. 4) | "hllc" | "hll" (Toro ch. 10, pressure-based wave speeds).
    #[serde(default)]
    pub riemann: Riemann,
    /// "first-order" | "minbee" | "van-leer" | "superbee" (Toro sec. 14.4).
    #[serde(default)]
    pub limiter: Limiter,
    pub initial: Initial,
    #[serde(default)]
    pub boundary: EulerBoundary,
}

fn default_gamma() -> f64 {
    1.4
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    #[default]
    MusclHancock,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Riemann {
    #[default]
    Exact,
    Hllc,
    Hll,
}

impl Riemann {
    /// The name in a case file.
    pub fn name(self) -> &'static str {
        match self {
            Riemann::Exact => "exact",
            Riemann::Hllc => "hllc",
            Riemann::Hll => "hll",
        }
    }
}

/// Initial data, as primitive states [density, normal velocity, pressure].
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Initial {
    /// A 1D Riemann problem along `axis` (0, 1, 2): `left` for x_axis < `position`, `right`
    /// beyond; the velocity is along the axis (Toro's tests 1-5 in x, y or z).
    Riemann(RiemannProblem),
    /// rho = 1 + amplitude sin(2 pi k . (x - v t)) at constant pressure and velocity v: a
    /// smooth solution, for the order of accuracy (periodic boundaries).
    DensityWave(DensityWave),
    /// Four constant states [density, u, v, pressure] meeting at `center` (x, y), for the
    /// quadrants upper right, upper left, lower left, lower right (Lax & Liu's numbering).
    Quadrants { center: [f64; 2], states: [[f64; 4]; 4] },
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DensityWave {
    #[serde(default = "fifth")]
    pub amplitude: f64,
    /// Periods per unit length along each axis.
    pub wavenumber: [f64; 3],
    pub velocity: [f64; 3],
    #[serde(default = "one")]
    pub pressure: f64,
}

fn fifth() -> f64 {
    0.2
}
fn one() -> f64 {
    1.0
}

impl DensityWave {
    pub fn density(&self, x: [f64; 3], t: f64) -> f64 {
        let phase: f64 = (0..3).map(|a| self.wavenumber[a] * (x[a] - self.velocity[a] * t)).sum();
        1.0 + self.amplitude * (2.0 * std::f64::consts::PI * phase).sin()
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RiemannProblem {
    #[serde(default)]
    pub axis: usize,
    #[serde(default = "half")]
    pub position: f64,
    pub left: [f64; 3],
    pub right: [f64; 3],
}

impl Initial {
    /// The key and what is wrong, if the initial data is not sound.
    pub fn problem(&self) -> Option<(String, String)> {
        let unsound =
            |w: &[f64], rho: usize, p: usize| !(w[rho] > 0.0 && w[p] > 0.0 && w.iter().all(|v| v.is_finite()));
        let bad = |key: String, w: &[f64]| Some((key, format!("density and pressure must be positive, got {w:?}")));
        match self {
            Initial::Riemann(r) => {
                if r.axis > 2 {
                    return Some((
                        "euler.initial.axis".into(),
                        format!("must be 0, 1 or 2, got {}", r.axis),
                    ));
                }
                let side = [("left", r.left), ("right", r.right)]
                    .into_iter()
                    .find(|(_, w)| unsound(w, 0, 2));
                side.and_then(|(name, w)| bad(format!("euler.initial.{name}"), &w))
            }
            Initial::DensityWave(w) => (!(w.amplitude.abs() < 1.0 && w.pressure > 0.0)).then(|| {
                (
                    "euler.initial".into(),
                    "needs |amplitude| < 1 and a positive pressure".into(),
                )
            }),
            Initial::Quadrants { states, .. } => {
                let q = states.iter().position(|w| unsound(w, 0, 3))?;
                bad(format!("euler.initial.states[{q}]"), &states[q])
            }
        }
    }

    /// The conservative state (rho, rho u, rho v, rho w, E) at x at t = 0.
    pub fn conservative_at(&self, x: [f64; 3], gamma: f64) -> [f64; 5] {
        let state = |rho: f64, v: [f64; 3], p: f64| {
            let kinetic = 0.5 * rho * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            [rho, rho * v[0], rho * v[1], rho * v[2], p / (gamma - 1.0) + kinetic]
        };
        match self {
            Initial::Riemann(r) => super::gas::conservative_along(r.initial_at(x), r.axis, gamma),
            Initial::DensityWave(w) => state(w.density(x, 0.0), w.velocity, w.pressure),
            Initial::Quadrants { center, states } => {
                let (right, upper) = (x[0] >= center[0], x[1] >= center[1]);
                let q = match (right, upper) {
                    (true, true) => 0,
                    (false, true) => 1,
                    (false, false) => 2,
                    (true, false) => 3,
                };
                let w = states[q];
                state(w[0], [w[1], w[2], 0.0], w[3])
            }
        }
    }

    /// The exact density at x and time t, where the initial data has an exact solution.
    pub fn exact_density(&self, x: [f64; 3], t: f64, gamma: f64) -> Option<f64> {
        match self {
            Initial::Riemann(r) => Some(r.exact_at(x, t, gamma).rho),
            Initial::DensityWave(w) => Some(w.density(x, t)),
            Initial::Quadrants { .. } => None,
        }
    }
}

impl RiemannProblem {
    /// The primitive state [density, velocity along the axis, pressure] at x at t = 0.
    pub fn initial_at(&self, x: [f64; 3]) -> [f64; 3] {
        if x[self.axis] < self.position {
            self.left
        } else {
            self.right
        }
    }

    /// The exact solution at x and time t (Toro ch. 4).
    pub fn exact_at(&self, x: [f64; 3], t: f64, gamma: f64) -> Primitive<f64> {
        let prim = |w: [f64; 3]| Primitive {
            rho: w[0],
            u: w[1],
            p: w[2],
        };
        if t <= 0.0 {
            return prim(self.initial_at(x));
        }
        sample(
            prim(self.left),
            prim(self.right),
            gamma,
            (x[self.axis] - self.position) / t,
        )
    }
}

fn half() -> f64 {
    0.5
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EulerBoundary {
    #[serde(default)]
    pub x: AxisBc,
    #[serde(default)]
    pub y: AxisBc,
    #[serde(default)]
    pub z: AxisBc,
}

impl Default for EulerBoundary {
    fn default() -> Self {
        EulerBoundary {
            x: AxisBc::Both(Side::Outflow),
            y: AxisBc::Both(Side::Outflow),
            z: AxisBc::Both(Side::Outflow),
        }
    }
}

/// One condition for both faces of an axis, or `[low, high]`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum AxisBc {
    Both(Side),
    Sides([Side; 2]),
}

impl Default for AxisBc {
    fn default() -> Self {
        AxisBc::Both(Side::Outflow)
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// Zero gradient.
    Outflow,
    /// A wall: the normal momentum is reflected.
    Reflect,
    Periodic,
}

impl EulerBoundary {
    /// The grid layer's boundary set; the momentum along each axis is the wall-normal one.
    pub fn set(&self) -> BoundarySet {
        let face = |s: Side| match s {
            Side::Outflow => FaceBc::Outflow,
            Side::Reflect => FaceBc::Reflect,
            Side::Periodic => FaceBc::Periodic,
        };
        let mut set = BoundarySet::periodic();
        for (axis, bc) in [self.x, self.y, self.z].iter().enumerate() {
            let [lo, hi] = match *bc {
                AxisBc::Both(s) => [s, s],
                AxisBc::Sides(s) => s,
            };
            set.faces[axis] = [face(lo), face(hi)];
            set.normal_component[axis] = Some(1 + axis);
        }
        set
    }
}
