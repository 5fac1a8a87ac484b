//! Initial profiles of the advected scalar, placed relative to the mesh's bounding box so a
//! template runs on any channel-like mesh.

use serde::{Deserialize, Serialize};

/// Initial profiles, placed relative to the mesh's bounding box (lo, L = hi - lo).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Profile {
    /// 1 inside x in [lo.x + 0.08 Lx, + 0.5 Ly], y and z in the middle half; 0 elsewhere.
    Step,
    /// A half sine period along x over the same span, times a half ellipse sqrt(1 - r^2) over
    /// the middle half of the y-z section.
    SineEllipse,
    /// A smooth Gaussian bump of standard deviation `width` (fraction of the smallest box
    /// edge) at `center` (fractions of the box).
    Bump {
        #[serde(default = "bump_width")]
        width: f64,
        #[serde(default = "bump_center")]
        center: [f64; 3],
    },
}

fn bump_width() -> f64 {
    0.08
}
fn bump_center() -> [f64; 3] {
    [0.75, 0.5, 0.5]
}

impl Profile {
    pub fn value(&self, x: [f64; 3], lo: [f64; 3], len: [f64; 3]) -> f64 {
        let x0 = lo[0] + 0.08 * len[0];
        let span = 0.5 * len[1];
        let mid = |k: usize| ((x[k] - lo[k]) / len[k] - 0.5) / 0.25; // -1..1 over the middle half
        match self {
            Profile::Step => {
                let inside = x[0] >= x0 && x[0] <= x0 + span && mid(1).abs() <= 1.0 && mid(2).abs() <= 1.0;
                inside as i32 as f64
            }
            Profile::SineEllipse => {
                let s = (x[0] - x0) / span;
                let r2 = mid(1).powi(2) + mid(2).powi(2);
                if (0.0..=1.0).contains(&s) && r2 <= 1.0 {
                    (std::f64::consts::PI * s).sin() * (1.0 - r2).sqrt()
                } else {
                    0.0
                }
            }
            Profile::Bump { width, center } => {
                let sigma = width * len.iter().cloned().fold(f64::INFINITY, f64::min);
                let r2: f64 = (0..3).map(|k| (x[k] - lo[k] - center[k] * len[k]).powi(2)).sum();
                (-r2 / (2.0 * sigma * sigma)).exp()
            }
        }
    }
}
