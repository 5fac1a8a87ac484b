//! The `[euler]` section of a case file.

use crate::grid::{BoundarySection, StructuredGrid};
use crate::numerics::fv::limiters::Limiter;
use crate::numerics::fv::riemann_exact::{sample, Primitive};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EulerSection {
    /// Ratio of specific heats of the ideal gas.
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// "muscl-hancock": dimensionally split, the sweep order alternating from step to step;
    /// "plm-rk3": method of lines, piecewise-linear primitive reconstruction, SSP-RK3.
    #[serde(default)]
    pub scheme: Scheme,
    /// "exact" (Toro ch. 4) | "hllc" | "hll" (Toro ch. 10, pressure-based wave speeds).
    #[serde(default)]
    pub riemann: Riemann,
    /// "first-order" | "minbee" | "van-leer" | "superbee" (Toro sec. 14.4) | "minmod" (the
    /// generalized minmod of the PLM paper, theta = 1.5).
    #[serde(default)]
    pub limiter: Limiter,
    /// A constant gravitational acceleration (plm-rk3 only): the momentum source rho g and the
    /// energy source rho u . g; reflecting walls across it hold hydrostatic ghost pressures.
    #[serde(default)]
    pub gravity: [f64; 3],
    pub initial: Initial,
    #[serde(default)]
    pub boundary: BoundarySection,
}

fn default_gamma() -> f64 {
    1.4
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    #[default]
    MusclHancock,
    PlmRk3,
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::MusclHancock => "muscl-hancock",
            Scheme::PlmRk3 => "plm-rk3",
        }
    }
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
    /// Heavy fluid over light in hydrostatic equilibrium under `euler.gravity` (which must
    /// point along one axis, the vertical), the interface at the middle of the vertical extent,
    /// the vertical velocity perturbed (the PLM paper's setup).
    RayleighTaylor(RayleighTaylor),
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RayleighTaylor {
    /// Densities [below, above] the interface ("above" is against gravity).
    #[serde(default = "rt_densities")]
    pub densities: [f64; 2],
    /// Pressure at the interface; hydrostatic p = p0 + rho g . (x - x_interface) elsewhere.
    #[serde(default = "rt_pressure")]
    pub pressure: f64,
    /// A of the perturbation.
    #[serde(default = "rt_amplitude")]
    pub amplitude: f64,
    #[serde(default)]
    pub perturbation: Perturbation,
    /// Seed of the multi-mode perturbation's random numbers (PCG64).
    #[serde(default)]
    pub seed: u64,
}

fn rt_densities() -> [f64; 2] {
    [1.0, 2.0]
}
fn rt_pressure() -> f64 {
    2.5
}
fn rt_amplitude() -> f64 {
    0.01
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Perturbation {
    /// v = A prod_a [1 + cos(2 pi (x_a - c_a) / L_a)] / 2^d over the d active axes (the paper:
    /// A [1 + cos(2 pi x / Lx)] [1 + cos(2 pi y / Ly)] / 4 in 2D, / 8 in 3D).
    #[default]
    SingleMode,
    /// v = A (r - 1/2) [1 + cos(2 pi (z - c_z) / L_z)] / 2, r uniform in [0, 1) per cell: random
    /// in [-A/2, A/2] at the interface, zero at the walls.
    MultiMode,
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
            Initial::RayleighTaylor(rt) => {
                let w = [rt.densities[0], rt.densities[1], rt.pressure];
                (!(w.iter().all(|v| *v > 0.0 && v.is_finite()) && rt.amplitude.is_finite()))
                    .then(|| ("euler.initial".into(), format!("densities and pressure must be positive, got {w:?}")))
            }
        }
    }

    /// The conservative initial values on `grid` (components one after another, x fastest).
    pub fn field(&self, grid: &StructuredGrid, gamma: f64, gravity: [f64; 3]) -> Vec<f64> {
        self.field_range(grid, gamma, gravity, 0..grid.points())
    }

    /// The same at the cells numbered `cells` only (a part's planes), each component in turn:
    /// the whole field's values there, computed without the rest.
    pub fn field_range(&self, grid: &StructuredGrid, gamma: f64, gravity: [f64; 3], cells: std::ops::Range<usize>) -> Vec<f64> {
        if let Initial::RayleighTaylor(rt) = self {
            return rt.field(grid, gamma, gravity, cells);
        }
        let at = |x: [f64; 3]| self.conservative_at(x, gamma);
        (0..5).flat_map(|c| grid.sample_range(cells.clone(), |x| at(x)[c])).collect()
    }

    /// The conservative state (rho, rho u, rho v, rho w, E) at x at t = 0, for the initial
    /// data that is a function of position alone.
    fn conservative_at(&self, x: [f64; 3], gamma: f64) -> [f64; 5] {
        match self {
            Initial::Riemann(r) => super::gas::conservative_along(r.initial_at(x), r.axis, gamma),
            Initial::DensityWave(w) => conservative(w.density(x, 0.0), w.velocity, w.pressure, gamma),
            Initial::Quadrants { center, states } => {
                let (right, upper) = (x[0] >= center[0], x[1] >= center[1]);
                let q = match (right, upper) {
                    (true, true) => 0,
                    (false, true) => 1,
                    (false, false) => 2,
                    (true, false) => 3,
                };
                let w = states[q];
                conservative(w[0], [w[1], w[2], 0.0], w[3], gamma)
            }
            Initial::RayleighTaylor(_) => unreachable!("sampled per cell by RayleighTaylor::field"),
        }
    }

    /// The exact density at x and time t, where the initial data has an exact solution.
    pub fn exact_density(&self, x: [f64; 3], t: f64, gamma: f64) -> Option<f64> {
        match self {
            Initial::Riemann(r) => Some(r.exact_at(x, t, gamma).rho),
            Initial::DensityWave(w) => Some(w.density(x, t)),
            Initial::Quadrants { .. } | Initial::RayleighTaylor(_) => None,
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

/// The conservative state of density, velocity and pressure.
pub fn conservative(rho: f64, v: [f64; 3], p: f64, gamma: f64) -> [f64; 5] {
    let kinetic = 0.5 * rho * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    [rho, rho * v[0], rho * v[1], rho * v[2], p / (gamma - 1.0) + kinetic]
}

fn half() -> f64 {
    0.5
}
