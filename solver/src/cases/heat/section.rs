//! The `[heat]` section of a case file.

use crate::grid::{BoundarySet, FaceBc};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HeatSection {
    /// Thermal diffusivity.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    pub initial: HeatInitial,
    #[serde(default)]
    pub boundary: HeatBoundary,
    /// "register-queue" (2.5D blocked, Micikevicius) or "naive" (one 1D stencil per axis).
    #[serde(default)]
    pub kernel: HeatKernel,
}

fn default_alpha() -> f64 {
    0.1
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HeatInitial {
    /// prod_i sin(k_i pi x_i / L_i), k = `modes` (the thesis' benchmark: modes = [1, 1, 1]).
    SineProduct {
        #[serde(default = "ones")]
        modes: [f64; 3],
    },
    /// a exp(-(y - b)^2 / (2 c^2)) along `axis` (0, 1, 2), periodic images (the thesis' 5.2).
    Gaussian(Gaussian),
    /// A constant everywhere (the Dirichlet boundaries then drive the solution).
    Constant {
        #[serde(default)]
        value: f64,
    },
}

/// The Gaussian initial condition's parameters.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Gaussian {
    #[serde(default = "one")]
    pub amplitude: f64,
    #[serde(default = "half")]
    pub center: f64,
    #[serde(default = "tenth")]
    pub width: f64,
    #[serde(default = "axis_y")]
    pub axis: usize,
}

impl Gaussian {
    /// The profile at coordinate y along its axis (measured from the grid's origin).
    pub fn at(&self, y: f64) -> f64 {
        self.amplitude * (-(y - self.center).powi(2) / (2.0 * self.width * self.width)).exp()
    }
}

fn ones() -> [f64; 3] {
    [1.0; 3]
}
fn one() -> f64 {
    1.0
}
fn half() -> f64 {
    0.5
}
fn tenth() -> f64 {
    0.1
}
fn axis_y() -> usize {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HeatBoundary {
    #[serde(default)]
    pub x: AxisBoundary,
    #[serde(default)]
    pub y: AxisBoundary,
    #[serde(default)]
    pub z: AxisBoundary,
}

impl Default for HeatBoundary {
    fn default() -> Self {
        HeatBoundary {
            x: AxisBoundary::Periodic,
            y: AxisBoundary::Periodic,
            z: AxisBoundary::Periodic,
        }
    }
}

impl HeatBoundary {
    pub fn axes(&self) -> [AxisBoundary; 3] {
        [self.x, self.y, self.z]
    }

    /// The grid layer's boundary set.
    pub fn set(&self) -> BoundarySet {
        let mut set = BoundarySet::periodic();
        for (axis, b) in self.axes().iter().enumerate() {
            if let AxisBoundary::Dirichlet([lo, hi]) = *b {
                set.faces[axis] = [FaceBc::Dirichlet(vec![lo]), FaceBc::Dirichlet(vec![hi])];
            }
        }
        set
    }
}

/// `"periodic"` or `{ dirichlet = [value_at_min, value_at_max] }`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum AxisBoundary {
    #[default]
    Periodic,
    Dirichlet([f64; 2]),
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum HeatKernel {
    #[default]
    RegisterQueue,
    Naive,
}
