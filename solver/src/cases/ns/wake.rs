//! The mean wake of a bluff body (`navier-stokes.wake`): the base pressure coefficient and the
//! recirculation length, from the running averages (summary.json `wake`).
//!
//! Cpb = (p̄(base) − p̄(reference)) / (ρ U² / 2), the base point just behind the body on its
//! axis and the reference in the free stream. The recirculation length L is the distance from
//! the base point along the axis to where the mean axial velocity, negative in the bubble, turns
//! positive again (linearly between two samples); it is reported in units of the body's length
//! D (`forces.length`): L / D, the quantity LES studies of the cylinder quote (Parnaudeau et al.
//! 2008: 1.51 at Re 3900). A wake that never reverses has L = 0; one still reversed at the end
//! of the line reports none.

use crate::error::Result;
use crate::diagnostics::{Probe, Probes};
use crate::mesh::TetGeometry;
use serde::{Deserialize, Serialize};

/// `navier-stokes.wake = { base = [x, y, z], reference = [x, y, z] }` (and `axis`, `points`,
/// `search`): needs `statistics` (the means) and `forces` with `length` (U and D).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WakeSection {
    /// The base point: on the body's rear, just inside the fluid (e.g. (D/2 + 1e-4 D, 0, z)
    /// behind a cylinder of diameter D at the origin).
    pub base: [f64; 3],
    /// A free-stream point whose mean pressure is p_∞.
    pub reference: [f64; 3],
    /// The wake's axis, pointing downstream [x axis].
    #[serde(default = "x_axis")]
    pub axis: [f64; 3],
    /// How far down the axis to look, in D [10].
    #[serde(default = "ten")]
    pub search: f64,
    /// Samples along that distance [400].
    #[serde(default = "four_hundred")]
    pub points: usize,
}

fn x_axis() -> [f64; 3] {
    [1.0, 0.0, 0.0]
}
fn ten() -> f64 {
    10.0
}
fn four_hundred() -> usize {
    400
}

/// summary.json `wake`.
#[derive(Clone, Debug, Serialize)]
pub struct WakeSummary {
    /// The time of the means these describe and the time the averaging started.
    pub time: f64,
    pub averaged_from: f64,
    pub base_pressure_coefficient: f64,
    /// L / D; None where the mean flow is still reversed at the end of the line.
    pub recirculation_length: Option<f64>,
}

/// The located sample points: the base followed by the line down the axis (as far as it stays
/// in the mesh), and the reference.
#[derive(Clone, Debug)]
pub struct Wake {
    line: Probes,
    reference: Probes,
    axis: [f64; 3],
    spacing: f64,
    /// ρ U² / 2 and D.
    dynamic_pressure: f64,
    length: f64,
}

impl Wake {
    /// Locate the points; `Err(key, message)` names the key at fault.
    pub fn new(
        g: &TetGeometry<f64>,
        w: &WakeSection,
        density: f64,
        speed: f64,
        length: f64,
    ) -> std::result::Result<Wake, (&'static str, String)> {
        let norm = w.axis.iter().map(|a| a * a).sum::<f64>().sqrt();
        if !(norm > 0.0 && w.search > 0.0 && w.points >= 2) {
            return Err(("navier-stokes.wake", "axis must be non-zero, search positive and points at least 2".into()));
        }
        let axis = w.axis.map(|a| a / norm);
        let spacing = w.search * length / w.points as f64;
        let reference = Probes::new(g, vec![Probe::new("reference", w.reference)])
            .map_err(|e| ("navier-stokes.wake.reference", e.to_string()))?;
        // The line ends where it leaves the mesh (an outlet, or the body's far side); each point
        // is walked to from the one before.
        let points = (0..=w.points).map(|i| {
            let x = std::array::from_fn(|k| w.base[k] + axis[k] * spacing * i as f64);
            Probe::new(if i == 0 { "base" } else { "line" }, x)
        });
        let line = Probes::along(g, points.collect());
        if line.cells().is_empty() {
            let [x, y, z] = w.base;
            return Err(("navier-stokes.wake.base", format!("probe 'base' at ({x}, {y}, {z}) lies outside the mesh; move it into the fluid")));
        }
        Ok(Wake {
            line,
            reference,
            axis,
            spacing,
            dynamic_pressure: 0.5 * density * speed * speed,
            length,
        })
    }

    /// The summary from the mean velocity (3 values a cell, interleaved) and mean pressure.
    pub fn measure(&self, g: &TetGeometry<f64>, u: &[f64], p: &[f64], time: f64, from: f64) -> Result<WakeSummary> {
        let p_base = self.line.sample(g, p)[0];
        let p_ref = self.reference.sample(g, p)[0];
        let comp: [Vec<f64>; 3] = std::array::from_fn(|k| self.line.sample_by(g, |c| u[3 * c + k]));
        let along: Vec<f64> = (1..comp[0].len()).map(|i| (0..3).map(|k| comp[k][i] * self.axis[k]).sum()).collect();
        Ok(WakeSummary {
            time,
            averaged_from: from,
            base_pressure_coefficient: (p_base - p_ref) / self.dynamic_pressure,
            recirculation_length: reversal_end(&along, self.spacing).map(|l| l / self.length),
        })
    }
}

/// The distance from the base to where the axial velocity `u` (sampled every `spacing` from
/// one spacing on) turns from negative back to positive: 0 where it never reverses, None where
/// it is still reversed at the last sample.
fn reversal_end(u: &[f64], spacing: f64) -> Option<f64> {
    let Some(first) = u.iter().position(|&v| v < 0.0) else {
        return Some(0.0);
    };
    let i = first + u[first..].iter().position(|&v| v >= 0.0)?;
    // Linear between samples i - 1 (negative) and i; sample j sits at (j + 1) spacing.
    let (a, b) = (u[i - 1], u[i]);
    Some(spacing * (i as f64 + a / (a - b)))
}

#[cfg(test)]
mod tests {
    use super::reversal_end;

    #[test]
    fn the_reversal_ends_where_the_axial_velocity_turns_positive() {
        // Samples at 1, 2, 3, 4, 5: negative up to 3, positive from 4; the zero at 3.5.
        let u = [-0.2, -0.3, -0.1, 0.1, 0.4];
        assert!((reversal_end(&u, 1.0).unwrap() - 3.5).abs() < 1e-12);
        assert_eq!(reversal_end(&[0.1, 0.2], 1.0), Some(0.0));
        assert_eq!(reversal_end(&[-0.1, -0.2], 1.0), None);
    }
}
