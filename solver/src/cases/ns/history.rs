//! The run's force and probe history, every step: forces.csv and probes.csv (appended whole
//! lines, resumed on restart) and the in-memory signals (cd, cl, dp) from which a transient run
//! reports its statistics: the mean and extremes over the window, the shedding frequency from
//! the lift's crossings of its mean, the Strouhal number, and Δp half a period after the lift's
//! last maximum (Schäfer & Turek's 2D-2 definition). The signals travel with the checkpoint.

use crate::error::{Result, SolverError};
pub use crate::diagnostics::force_signals::Signals;
use crate::diagnostics::force_signals::ForceSeries;
use crate::diagnostics::Force;
use crate::output::CsvLog;
use serde::Serialize;
use std::path::Path;

/// The names of the two dp probes (dp = p(a) - p(b)), in probes.csv's columns.
pub const PROBE_NAMES: [&str; 2] = ["a", "b"];

const FORCE_COLUMNS: [&str; 13] = [
    "time",
    "step",
    "fx",
    "fy",
    "fz",
    "fx_pressure",
    "fy_pressure",
    "fz_pressure",
    "fx_viscous",
    "fy_viscous",
    "fz_viscous",
    "cd",
    "cl",
];

fn probe_columns() -> Vec<String> {
    let mut cols = vec!["time".to_string(), "step".into()];
    for n in PROBE_NAMES {
        cols.extend(["p", "ux", "uy", "uz"].map(|q| format!("{q}_{n}")));
    }
    cols.push("dp".into());
    cols
}

/// One step's measurement: the force with (cd, cl), and the probes' p, u and dp.
#[derive(Debug, PartialEq)]
pub struct Measured {
    pub force: Option<(Force, [f64; 2])>,
    pub probes: Option<(Vec<f64>, [Vec<f64>; 3], f64)>,
}

/// The history: the CSV logs (where the run writes them) and the signals.
#[derive(Default)]
pub struct History {
    forces: Option<CsvLog>,
    probes: Option<CsvLog>,
    t: Vec<f64>,
    cd: Vec<f64>,
    cl: Vec<f64>,
    dp: Vec<f64>,
    /// A transient run's energy.csv, and its kinetic energy series (times, values).
    energy: Option<CsvLog>,
    et: Vec<f64>,
    e: Vec<f64>,
    /// The largest -dE/dt between two samples so far, and its time (`energy_summary`).
    peak: Option<(f64, f64)>,
}

/// A transient run's kinetic energy (summary.json `kinetic_energy`): the last value, and the
/// largest dissipation rate -dE/dt between two samples with its time (their midpoint).
#[derive(Clone, Debug, Serialize)]
pub struct EnergySummary {
    pub time: f64,
    pub value: f64,
    pub initial: f64,
    pub max_dissipation_rate: Option<f64>,
    pub max_dissipation_time: Option<f64>,
}

impl History {
    /// forces.csv (with a force) and probes.csv (with probes) in `dir`, new or resumed at time
    /// `resume` (their rows past it dropped).
    pub fn open(&mut self, dir: &Path, force: bool, probes: bool, resume: Option<f64>) -> Result<()> {
        if force {
            self.forces = Some(CsvLog::open(&dir.join("forces.csv"), &FORCE_COLUMNS, resume)?);
        }
        if probes {
            let cols = probe_columns();
            let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
            self.probes = Some(CsvLog::open(&dir.join("probes.csv"), &cols, resume)?);
        }
        Ok(())
    }

    /// energy.csv in `dir` (transient runs: time, step, the volume-averaged kinetic energy
    /// sum V |u|^2 / 2 / sum V and the dissipation rate -dE/dt since the previous row), new or
    /// resumed at `resume`.
    pub fn open_energy(&mut self, dir: &Path, transient: bool, resume: Option<f64>) -> Result<()> {
        if transient {
            let cols = ["time", "step", "kinetic_energy", "dissipation_rate"];
            self.energy = Some(CsvLog::open(&dir.join("energy.csv"), &cols, resume)?);
        }
        Ok(())
    }

    /// The kinetic energy after the step that ended at (time, step).
    pub fn push_energy(&mut self, time: f64, step: u64, e: f64) -> Result<()> {
        let rate = match (self.et.last(), self.e.last()) {
            (Some(&t0), Some(&e0)) if time > t0 => {
                let rate = -(e - e0) / (time - t0);
                if self.peak.is_none_or(|p| rate > p.0) {
                    self.peak = Some((rate, 0.5 * (time + t0)));
                }
                rate
            }
            _ => f64::NAN,
        };
        if let Some(csv) = &mut self.energy {
            csv.push(&[time, step as f64, e, rate])?;
        }
        self.et.push(time);
        self.e.push(e);
        Ok(())
    }

    /// The kinetic energy's summary (None before the first sample).
    pub fn energy_summary(&self) -> Option<EnergySummary> {
        let (&time, &value) = (self.et.last()?, self.e.last()?);
        Some(EnergySummary {
            time,
            value,
            initial: self.e[0],
            max_dissipation_rate: self.peak.map(|b| b.0),
            max_dissipation_time: self.peak.map(|b| b.1),
        })
    }

    /// The measurement after the step that ended at (time, step).
    pub fn push(&mut self, time: f64, step: u64, m: &Measured) -> Result<()> {
        let head = [time, step as f64];
        if let (Some(csv), Some((f, [cd, cl]))) = (&mut self.forces, &m.force) {
            let mut row = head.to_vec();
            row.extend(f.total().into_iter().chain(f.pressure).chain(f.viscous).chain([*cd, *cl]));
            csv.push(&row)?;
        }
        if let (Some(csv), Some((p, u, dp))) = (&mut self.probes, &m.probes) {
            let mut row = head.to_vec();
            for i in 0..p.len() {
                row.extend([p[i], u[0][i], u[1][i], u[2][i]]);
            }
            row.push(*dp);
            csv.push(&row)?;
        }
        let (cd, cl) = m.force.as_ref().map_or((f64::NAN, f64::NAN), |(_, c)| (c[0], c[1]));
        self.t.push(time);
        self.cd.push(cd);
        self.cl.push(cl);
        self.dp.push(m.probes.as_ref().map_or(f64::NAN, |p| p.2));
        Ok(())
    }

    /// The statistics over t >= from (None with fewer than two samples there); St with the
    /// reference length and speed.
    pub fn signals(&self, from: f64, length_and_speed: Option<(f64, f64)>) -> Option<Signals> {
        let series = ForceSeries { t: &self.t, cd: &self.cd, cl: &self.cl, dp: &self.dp };
        series.signals(from, length_and_speed)
    }

    /// The checkpoint's part: the sample count, then the times and the three signals; then the
    /// kinetic energy's count, times and values.
    pub fn save(&self, out: &mut Vec<f64>) {
        out.push(self.t.len() as f64);
        for v in [&self.t, &self.cd, &self.cl, &self.dp] {
            out.extend(v.iter().copied());
        }
        out.push(self.et.len() as f64);
        out.extend(self.et.iter().chain(&self.e).copied());
    }

    /// Restores `save`'s part; the values it used.
    pub fn load(&mut self, data: &[f64]) -> Result<usize> {
        let m = data.first().map_or(usize::MAX, |&m| m as usize);
        if m == usize::MAX || data.len() < 1 + 4 * m {
            return Err(SolverError::Other("the checkpoint ends inside the force history".into()));
        }
        let part = |k: usize| data[1 + k * m..1 + (k + 1) * m].to_vec();
        (self.t, self.cd, self.cl, self.dp) = (part(0), part(1), part(2), part(3));
        // The kinetic energy's part (absent from checkpoints written before it was kept).
        let rest = &data[1 + 4 * m..];
        let Some(&k) = rest.first() else {
            (self.et, self.e, self.peak) = (Vec::new(), Vec::new(), None);
            return Ok(1 + 4 * m);
        };
        let k = k as usize;
        if rest.len() < 1 + 2 * k {
            return Err(SolverError::Other("the checkpoint ends inside the kinetic energy history".into()));
        }
        let (et, e) = (&rest[1..1 + k], &rest[1 + k..1 + 2 * k]);
        (self.et, self.e, self.peak) = (Vec::new(), Vec::new(), None);
        // Pushed again, energy.csv aside: the peak as the uninterrupted run found it.
        let csv = self.energy.take();
        for i in 0..k {
            self.push_energy(et[i], 0, e[i])?;
        }
        self.energy = csv;
        Ok(1 + 4 * m + 1 + 2 * k)
    }
}
