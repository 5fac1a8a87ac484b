//! The `[advect]` section of a case file.

use super::profile::Profile;
use super::velocity::VelocitySpec;
use crate::numerics::sl::{Interpolation, Method, Scheme, Weighting};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdvectSection {
    /// "bfecc" (with the limiter, eq. 16-18) or "sl1" (first-order semi-Lagrangian).
    #[serde(default)]
    pub scheme: Scheme,
    /// "quadratic" (the default: a limited least-squares quadratic, second order), "voronoi"
    /// (eq. 11-14, the paper's), "voronoi-grad" or "linear".
    #[serde(default)]
    pub interpolation: Interpolation,
    /// How the quadratic's vertex fits weigh their stencil points: "local" (the default:
    /// weights 1/|r|^8 over at least 40 points, sharp) or "wide" (1/|r|^2 over at least 30, the
    /// first fit; `numerics::sl::Weighting`).
    #[serde(default = "local")]
    pub fit: Weighting,
    /// Clamp the corrected BFECC value to the donors' range (no new extrema).
    #[serde(default = "yes")]
    pub limiter: bool,
    pub profile: Profile,
    pub velocity: VelocitySpec,
    /// Boundary condition per patch name: `{ dirichlet = value }` or `"neumann"` (zero
    /// gradient, the default for patches not listed). Applied to departure points outside, and
    /// inside the interpolation (section II.C): Dirichlet patches add their faces carrying the
    /// value to the quadratic's stencils, virtual cells to the Voronoi weights and pin their
    /// vertices in the linear interpolation.
    #[serde(default)]
    pub boundary: BTreeMap<String, PatchBc>,
    /// Keep the total of F (sum of V F over the cells) to round-off, the default:
    /// after each step, the difference from the previous total plus the net inflow through the
    /// boundary (upwind face fluxes at mid-step) is spread over the cells within the limiter's
    /// range, taken from the cells nearest the bound it moves them to (`sim::conserve_within`),
    /// so no new extrema appear (`conservative` in summary.json's totals). `false`: the plain
    /// scheme, which gains 3-24 % of the scalar on the paper's tests. Runs on the host (a CUDA
    /// run copies F there and back each step).
    #[serde(default = "yes")]
    pub conserve: bool,
    /// Step budget of the walk before the restart from the nearest centroid.
    #[serde(default = "walk_steps")]
    pub max_walk: u32,
    /// The advected scalar's name in the output files and summary.json (the paper's F).
    #[serde(default = "paper_name")]
    pub name: String,
}

fn paper_name() -> String {
    "F".into()
}

fn local() -> Weighting {
    Weighting::Local
}

fn yes() -> bool {
    true
}
fn walk_steps() -> u32 {
    200
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum PatchBc {
    Neumann,
    Dirichlet(f64),
}

impl AdvectSection {
    /// The step: the scheme, with the limiter only where BFECC has something to clamp.
    pub fn method(&self) -> Method {
        Method {
            scheme: self.scheme,
            limiter: self.scheme == Scheme::Bfecc && self.limiter,
        }
    }

    /// e.g. "bfecc+voronoi+limiter" (summary.json, benchmark rows).
    pub fn variant(&self) -> String {
        let m = self.method();
        let limiter = if m.limiter { "+limiter" } else { "" };
        let conserve = if self.conserve { "+conserve" } else { "" };
        // The default fit goes unnamed (the rows measured before `fit` existed keep their names).
        let fit = match (self.interpolation, self.fit) {
            (Interpolation::Quadratic, Weighting::Wide) => "-wide",
            _ => "",
        };
        format!("{}+{}{fit}{limiter}{conserve}", m.scheme.name(), self.interpolation.name())
    }
}
