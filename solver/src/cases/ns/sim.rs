//! The running Navier-Stokes case, written once over its executions (`NsOps`): the step, the
//! linear solvers' reports (log, residuals.csv every step, their totals and last values in
//! summary.json, warnings and the stop on a failed pressure solve), the force coefficients and
//! the pressure difference, the steady-state criterion, and the framework's output (fields
//! with vorticity and Q, forces.csv, probes.csv), health and checkpoint calls.

use super::faces::Faces;
use super::section::{Mode, SteadySettings};
use super::averages::Averages;
use super::history::{EnergySummary, History, Measured, Signals, PROBE_NAMES};
use super::section::Les;
use super::step::Var;
use super::wake::{Wake, WakeSummary};
use super::step::{self, NsOps, State, StepReport, Stepping};
use crate::error::{Result, SolverError};
use crate::framework::{Clock, Simulation, SolverWork, Unhealthy};
use crate::diagnostics::{derived_fields, Force, Normalisation, PatchForce, Probes};
use crate::mesh::TetGeometry;
use crate::numerics::linalg::amg::HierarchyStats;
use crate::numerics::linalg::CgReport;
use crate::numerics::sl::Span;
use crate::output::{Centring, CsvLog, Field};
use std::path::Path;
use crate::real::{from_bytes, to_bytes};
use serde::Serialize;
use std::sync::{Arc, Mutex};

/// The force coefficients' patch and normalisation.
pub struct ForceSpec {
    pub patch: PatchForce,
    pub drag: [f64; 3],
    pub lift: [f64; 3],
    pub norm: Normalisation,
    /// The same force by the other wall-shear measure (its name: "fits" or "distance"), where
    /// both can be taken: summary.json reports its cd and cl beside the case's.
    pub other: Option<(&'static str, PatchForce)>,
}

impl ForceSpec {
    /// (cd, cl) of a force.
    fn coefficients(&self, f: &Force) -> [f64; 2] {
        let c = self.norm.coefficients(f.total());
        let along = |a: [f64; 3]| c[0] * a[0] + c[1] * a[1] + c[2] * a[2];
        [along(self.drag), along(self.lift)]
    }
}

/// What the simulation needs besides the state.
pub struct Common {
    pub geo: Arc<TetGeometry<f64>>,
    pub faces: Arc<Faces>,
    /// Dynamic viscosity rho nu (the pressure is p, not p / rho).
    pub mu: f64,
    pub rho: f64,
    /// The volume flow that scales the mass residual: the inflow, or u_ref V^(2/3) without one.
    pub flow_scale: f64,
    pub force: Option<ForceSpec>,
    /// The two probe points of dp (`PROBE_NAMES`).
    pub probes: Option<Probes>,
    /// The mean wake's sample points (`navier-stokes.wake`).
    pub wake: Option<Wake>,
    pub mode: Mode,
    pub steady: SteadySettings,
    pub nonorth: usize,
    /// The implicit fraction of the forcing (`NsSection::theta`).
    pub theta: f64,
    /// A time-accurate run: departure points at the half step, and the signals' statistics.
    pub transient: bool,
    /// The weight of the transport's error at zero displacement taken off u^a
    /// (`NsSection::rest_correction`).
    pub rest_correction: f64,
    /// The predicted fluxes start from the previous step's (`NsSection::flux_memory`), with
    /// this relaxation time (infinite: weight 1).
    pub flux_memory: Option<f64>,
    /// The running averages' and the signals' start (`navier-stokes.statistics`).
    pub statistics_start: Option<f64>,
    /// The LES model (`navier-stokes.les`); None without one.
    pub les: Option<LesSpec>,
    /// St's reference length and speed (`forces.length`, `forces.velocity`).
    pub strouhal: Option<(f64, f64)>,
    pub log_every: u64,
    /// Relative residuals beyond which a capped solve stops the run (pressure, momentum).
    pub fail: [f64; 2],
    /// The stable step: cfl * h / u_ref, and at most `dt_max` (explicit viscosity).
    pub h: f64,
    pub u_ref: f64,
    pub dt_max: f64,
    pub variant: String,
    pub bytes_per_step: f64,
    pub report: Arc<Mutex<Report>>,
}

/// What the run reports of its LES model (`navier-stokes.les`).
pub struct LesSpec {
    pub model: Les,
    /// Cs (smagorinsky).
    pub cs: Option<f64>,
    pub nu: f64,
    /// `les_diffusion_limit`: the largest dt nu_t a_over_v the cap lets a cell reach.
    pub limit: f64,
    /// Per cell, the sum of its faces' a (interior, and twice on symmetry planes) over its
    /// volume: dt nu_t times it is the explicit subgrid term's diffusion number.
    pub a_over_v: Vec<f64>,
    pub volumes: Vec<f64>,
}

/// The eddy viscosity at the last output (summary.json `les`).
#[derive(Clone, Debug, Serialize)]
pub struct LesSummary {
    pub model: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smagorinsky_constant: Option<f64>,
    /// The time of the field these describe (the last output's).
    pub time: f64,
    /// The volume-weighted mean and the maximum of nu_t / nu over the cells.
    pub mean_nut_over_nu: f64,
    pub max_nut_over_nu: f64,
    /// max over cells of dt nu_t sum(a) / V with the last step's dt: the explicit subgrid
    /// term is stable below about 1 (Gershgorin's bound for forward Euler).
    pub max_diffusion_number: f64,
    /// `les_diffusion_limit`, and the cells whose nu_t it capped (at the last output).
    pub diffusion_limit: f64,
    pub limited_cells: usize,
}

impl LesSpec {
    /// The summary of the eddy viscosity `nut` at `time` with the step dt.
    fn summary(&self, nut: &[f64], time: f64, dt: f64) -> LesSummary {
        let vol: f64 = self.volumes.iter().sum();
        let mean = nut.iter().zip(&self.volumes).map(|(n, v)| n * v).sum::<f64>() / vol;
        let max = nut.iter().copied().fold(0.0, f64::max);
        let numbers = nut.iter().zip(&self.a_over_v).map(|(n, a)| dt * n * a);
        let number = numbers.clone().fold(0.0, f64::max);
        // At the cap to rounding (the cap is limit / a / dt, times dt times a again).
        let limited_cells = numbers.filter(|&x| x >= self.limit * (1.0 - 1e-12)).count();
        LesSummary {
            model: self.model.name(),
            smagorinsky_constant: self.cs,
            time,
            mean_nut_over_nu: mean / self.nu,
            max_nut_over_nu: max / self.nu,
            max_diffusion_number: number,
            diffusion_limit: self.limit,
            limited_cells,
        }
    }
}

/// One step's residuals: a row of residuals.csv, and summary.json's `last_step`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StepRow {
    pub step: u64,
    pub time: f64,
    /// |u^(n+1) - u^n|_2 / |u^(n+1)|_2, the steady criterion's velocity change.
    pub velocity_change: f64,
    /// |F^(n+1) - F^n| / |F^(n+1)| of the force on the forces patch (0 without one).
    pub force_change: f64,
    /// The mass residual: the L2 norm over cells of the predicted fluxes' imbalance (the first
    /// pressure solve's right-hand side times dt / rho) over the flow scale (the inflow). It
    /// vanishes at a steady state, where the predictor already conserves mass.
    pub mass_residual: f64,
    pub pressure_iterations: Vec<usize>,
    pub pressure_residual: Vec<f64>,
    pub momentum_iterations: Vec<usize>,
    pub momentum_residual: Vec<f64>,
}

impl StepRow {
    /// residuals.csv's columns for `pressure_solves` pressure solves a step.
    fn columns(pressure_solves: usize) -> Vec<String> {
        let mut c: Vec<String> = ["time", "step", "velocity_change", "force_change", "mass_residual"]
            .map(String::from)
            .to_vec();
        for i in 1..=pressure_solves {
            c.extend([format!("p{i}_iterations"), format!("p{i}_residual")]);
        }
        for k in ["ux", "uy", "uz"] {
            c.extend([format!("{k}_iterations"), format!("{k}_residual")]);
        }
        c
    }

    fn values(&self) -> Vec<f64> {
        let mut v = vec![self.time, self.step as f64, self.velocity_change, self.force_change, self.mass_residual];
        for (its, res) in [
            (&self.pressure_iterations, &self.pressure_residual),
            (&self.momentum_iterations, &self.momentum_residual),
        ] {
            for (i, r) in its.iter().zip(res) {
                v.extend([*i as f64, *r]);
            }
        }
        v
    }
}

/// The iterations of one kind of solve over the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SolveTotals {
    pub solves: u64,
    pub iterations: u64,
    pub max_iterations: usize,
    pub mean_iterations: f64,
}

impl SolveTotals {
    fn add(&mut self, reps: &[CgReport]) {
        for r in reps {
            self.solves += 1;
            self.iterations += r.iterations as u64;
            self.max_iterations = self.max_iterations.max(r.iterations);
        }
        self.mean_iterations = self.iterations as f64 / self.solves.max(1) as f64;
    }
}

/// What the run reports at its end (shared with the setup, which writes summary.json).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// The last step's residuals (every step's are in residuals.csv).
    pub last_step: Option<StepRow>,
    pub pressure_solves: SolveTotals,
    pub momentum_solves: SolveTotals,
    pub force: Option<[f64; 3]>,
    pub cd: Option<f64>,
    pub cl: Option<f64>,
    pub dp: Option<f64>,
    pub converged_at: Option<u64>,
    /// A steady run stopped on a floor (`SteadySettings::stall_window`): the step, and why.
    pub stalled_at: Option<u64>,
    pub stop_reason: Option<String>,
    pub cg_warnings: u64,
    pub max_divergence: f64,
    /// The pressure AMG hierarchy (levels, rows, complexity, set-up time), where used.
    pub pressure_amg: Option<HierarchyStats>,
    /// cd and cl by the wall-shear measure the case did not choose.
    pub other_wall_shear: Option<OtherMeasure>,
    /// A transient run's force and probe statistics.
    pub signals: Option<Signals>,
    /// The LES model's eddy viscosity at the last output.
    pub les: Option<LesSummary>,
    /// A transient run's kinetic energy and its dissipation rate (energy.csv's).
    pub energy: Option<EnergySummary>,
    /// The mean wake's base pressure and recirculation length at the last output.
    pub wake: Option<WakeSummary>,
}

/// The force coefficients by the other wall-shear measure (`forces.wall_shear`).
#[derive(Clone, Debug, Serialize)]
pub struct OtherMeasure {
    pub wall_shear: &'static str,
    pub cd: f64,
    pub cl: f64,
}

/// The floor watch of a steady run (`SteadySettings::stall_window`): the last velocity changes
/// and how many steps in a row the force has been steady.
#[derive(Default)]
struct Stall {
    du: std::collections::VecDeque<f64>,
    steady_force: u64,
}

impl Stall {
    /// One step's (velocity change, force change); the reason to stop, once stalled.
    fn push(&mut self, (du, df): (f64, f64), s: &SteadySettings) -> Option<String> {
        let window = s.stall_window as usize;
        if window < 2 {
            return None;
        }
        let half = window / 2;
        self.du.push_back(du);
        if self.du.len() > 2 * half {
            self.du.pop_front();
        }
        // The first step's force change is NaN (no force before): not steady.
        self.steady_force = if df <= s.force_tol { self.steady_force + 1 } else { 0 };
        if self.du.len() < 2 * half || self.steady_force < half as u64 || du <= s.velocity_tol {
            return None;
        }
        let min = |it: std::collections::vec_deque::Iter<'_, f64>| it.copied().fold(f64::INFINITY, f64::min);
        let before = min(self.du.range(..half));
        let recent = min(self.du.range(half..));
        (recent > 0.5 * before).then(|| {
            format!(
                "the velocity change has stopped falling (its least in the last {half} steps {recent:.3e}, in the {half} before {before:.3e}) and keeps rising above the criterion {:.1e}, while the force changed by at most {:.1e} a step: a floor of the discrete iteration, with converged forces",
                s.velocity_tol, s.force_tol
            )
        })
    }
}

/// Host copies of u and p.
type Host = ([Vec<f64>; 3], Vec<f64>);

/// The cells the per-step measurement reads (`PatchForce::cells`, `Probes::stencil_cells`),
/// on the backend, and each cell's position in that list (u32::MAX: not read).
struct Gathered<O: NsOps> {
    idx: O::Index,
    slot: Vec<u32>,
    len: usize,
}

pub struct NsSim<O: NsOps> {
    ops: O,
    st: State<O>,
    c: Common,
    gathered: Gathered<O>,
    /// The force of the previous step, and how many steps in a row met the steady criterion.
    prev_force: Option<[f64; 3]>,
    calm: u64,
    converged: bool,
    stall: Stall,
    /// forces.csv, probes.csv and the signals; residuals.csv.
    history: History,
    residuals: Option<CsvLog>,
    /// The running averages (with `statistics`).
    averages: Option<Averages<O>>,
    /// Steps this simulation took (not restored by a restart: the solvers' statistics are not).
    steps: u64,
    /// The last step's dt (the LES summary's diffusion number).
    last_dt: f64,
}

impl<O: NsOps> NsSim<O> {
    /// The simulation from the initial velocity `u` and pressure `p`.
    pub fn new(mut ops: O, u: [Vec<f64>; 3], p: &[f64], c: Common) -> Result<Self> {
        let n = u[0].len();
        let statistics_start = c.statistics_start;
        let st = State {
            u: [ops.upload(&u[0])?, ops.upload(&u[1])?, ops.upload(&u[2])?],
            p: ops.upload(p)?,
            flux: ops.upload_faces(&vec![0.0; c.faces.len()])?,
            u_prev: None,
        };
        let mut cells = c.force.as_ref().map_or(Vec::new(), |fs| fs.patch.cells());
        if let Some(pr) = &c.probes {
            cells.extend(pr.stencil_cells(&*c.geo));
        }
        cells.sort_unstable();
        cells.dedup();
        let mut slot = vec![u32::MAX; n];
        for (i, &c) in cells.iter().enumerate() {
            slot[c as usize] = i as u32;
        }
        let gathered = Gathered {
            idx: ops.upload_index(&cells)?,
            slot,
            len: cells.len(),
        };
        Ok(NsSim {
            ops,
            st,
            c,
            gathered,
            prev_force: None,
            calm: 0,
            converged: false,
            stall: Stall::default(),
            history: History::default(),
            residuals: None,
            averages: statistics_start.map(Averages::new),
            steps: 0,
            last_dt: 0.0,
        })
    }

    /// The host copies of u and p.
    fn host(&mut self) -> Result<Host> {
        let u = [
            self.ops.download(&self.st.u[0])?,
            self.ops.download(&self.st.u[1])?,
            self.ops.download(&self.st.u[2])?,
        ];
        Ok((u, self.ops.download(&self.st.p)?))
    }

    /// The force with cd and cl, and the probes with dp, of the host state `h` (the tests'
    /// reference for the gathered measurement).
    #[cfg(test)]
    fn measure_host(&self, h: &Host) -> Result<Measured> {
        let (u, p) = h;
        self.measure_by(|c| p[c], |k, c| u[k][c])
    }

    /// The force with cd and cl, and the probes with dp, of the cell values p(cell) and
    /// u(component, cell).
    fn measure_by(&self, p: impl Fn(usize) -> f64 + Sync, u: impl Fn(usize, usize) -> f64 + Sync) -> Result<Measured> {
        let g = &*self.c.geo;
        let force = self.c.force.as_ref().map(|fs| {
            let f = fs.patch.force_by(g, self.c.mu, [0.0; 3], &p, &u);
            (f, fs.coefficients(&f))
        });

        let probes = match &self.c.probes {
            None => None,
            Some(pr) => {
                let ps = pr.sample_by(g, &p);
                let dp = pr.difference(&ps, PROBE_NAMES[0], PROBE_NAMES[1])?;
                Some((ps, std::array::from_fn(|k| pr.sample_by(g, |c| u(k, c))), dp))
            }
        };
        Ok(Measured { force, probes })
    }

    /// The force with cd and cl, and the probes with dp, of the current state, from the
    /// values at the cells they read only (`NsOps::gather`: no whole fields cross to the host).
    fn measure_gathered(&mut self) -> Result<Measured> {
        let st = &self.st;
        let vals = self.ops.gather(&[&st.u[0], &st.u[1], &st.u[2], &st.p], &self.gathered.idx)?;
        let (m, slot) = (self.gathered.len, &self.gathered.slot);
        // A cell outside the list has slot u32::MAX: reading it would panic, not read garbage.
        let at = |k: usize, c: usize| vals[k * m + slot[c] as usize];
        self.measure_by(|c| at(3, c), at)
    }

    /// The force, cd, cl and dp of the state at (time, step) into the report and the history;
    /// the force.
    fn measure(&mut self, time: f64, step: u64) -> Result<Option<[f64; 3]>> {
        if self.c.force.is_none() && self.c.probes.is_none() {
            return Ok(None);
        }
        let m = self.measure_gathered()?;
        self.history.push(time, step, &m)?;
        // The unit tests hold every step's gathered measurement to the whole fields' one.
        #[cfg(test)]
        {
            let h = self.host()?;
            assert_eq!(m, self.measure_host(&h)?, "gathered and whole-field measurements differ");
        }
        let mut r = self.c.report.lock().unwrap();
        if let Some((f, [cd, cl])) = &m.force {
            (r.force, r.cd, r.cl) = (Some(f.total()), Some(*cd), Some(*cl));
        }

        if let Some((_, _, dp)) = m.probes {
            r.dp = Some(dp);
        }
        Ok(m.force.map(|(f, _)| f.total()))
    }

    /// A transient run's signal statistics into the report: over t >= `statistics.start`, or the
    /// second half of the run so far.
    fn summarise_signals(&self, clock: &Clock) {
        if !self.c.transient {
            return;
        }
        let from = self.c.statistics_start.unwrap_or(0.5 * clock.time);
        let signals = self.history.signals(from, self.c.strouhal);
        self.c.report.lock().unwrap().signals = signals;
    }

    /// cd and cl by the other wall-shear measure, into the report (at outputs and at the end:
    /// the per-step criterion needs the case's measure only).
    fn measure_other(&self, h: &Host) {
        let Some(fs) = &self.c.force else { return };
        let Some((name, patch)) = &fs.other else { return };
        let (u, p) = h;
        let f = patch.force_by(&*self.c.geo, self.c.mu, [0.0; 3], |c| p[c], |k, c| u[k][c]);
        let [cd, cl] = fs.coefficients(&f);
        self.c.report.lock().unwrap().other_wall_shear = Some(OtherMeasure { wall_shear: name, cd, cl });
    }

    /// The wake's summary from the running averages' fields (`velocity_mean`, `pressure_mean`).
    fn measure_wake(&self, means: &[Field], time: f64, from: f64) {
        let Some(w) = &self.c.wake else { return };
        let find = |n: &str| means.iter().find(|f| f.name == n).map(|f| &f.values[..]);
        let (Some(u), Some(p)) = (find("velocity_mean"), find("pressure_mean")) else { return };
        if time > from {
            self.c.report.lock().unwrap().wake = w.measure(&self.c.geo, u, p, time, from).ok();
        }
    }

    /// Warn about a capped solve, or stop the run where its residual is beyond `fail`.
    fn check_solves(&self, step: u64, what: &str, reps: &[CgReport], fail: f64) -> Result<u64> {
        let mut warnings = 0;
        for r in reps.iter().filter(|r| !r.converged) {
            let msg = format!(
                "step {step}: the {what} solve stopped after {} CG iterations at relative residual {:.3e}",
                r.iterations, r.rel_residual
            );
            if r.rel_residual.is_nan() || r.rel_residual > fail {
                return Err(SolverError::Other(format!(
                    "{msg} (beyond {what}_solver.fail_residual = {fail:e}): the run stops, the outputs written so far are kept. Raise navier-stokes.{what}_solver.max_iter, or reduce time.cfl"
                )));
            }
            eprintln!("warning: {msg}; raise navier-stokes.{what}_solver.max_iter");
            warnings += 1;
        }
        Ok(warnings)
    }

    /// The steady criterion after a step: relative velocity change and force change.
    fn steady_check(&mut self, rep: &StepReport, force: Option<[f64; 3]>) -> (f64, f64) {
        let du = (rep.change.0 / rep.change.1.max(1e-300)).sqrt();
        let df = match (force, self.prev_force) {
            (Some(f), Some(g)) => {
                let d = ((f[0] - g[0]).powi(2) + (f[1] - g[1]).powi(2) + (f[2] - g[2]).powi(2)).sqrt();
                d / (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt().max(1e-300)
            }
            (Some(_), None) => f64::INFINITY,
            _ => 0.0,
        };
        self.prev_force = force;
        let s = &self.c.steady;
        if self.c.mode == Mode::Steady && du <= s.velocity_tol && df <= s.force_tol {
            self.calm += 1;
        } else {
            self.calm = 0;
        }
        self.converged = self.c.mode == Mode::Steady && self.calm >= s.window.max(1);
        (du, if df.is_finite() { df } else { f64::NAN })
    }

    /// After a step of a steady run that has not converged: stop it (the loop sees
    /// `converged`) where its velocity change has hit a floor while the force is steady.
    fn stall_check(&mut self, step: u64, change: (f64, f64)) {
        if self.c.mode != Mode::Steady || self.converged {
            return;
        }
        let Some(reason) = self.stall.push(change, &self.c.steady) else {
            return;
        };
        eprintln!("warning: step {step}: {reason}; the run stops here (summary.json stop_reason)");
        let mut r = self.c.report.lock().unwrap();
        r.stalled_at = Some(step);
        r.stop_reason = Some(reason);
        self.converged = true;
    }

    /// The eddy viscosity of the current velocity on the host (None without LES).
    fn eddy_viscosity(&mut self) -> Result<Option<Vec<f64>>> {
        if self.c.les.is_none() {
            return Ok(None);
        }
        let (ops, u) = (&mut self.ops, &self.st.u);
        // The symmetry planes' face values of this u (the next step refreshes them again).
        ops.symmetry(u)?;
        let gu = [ops.gradient(&u[0], Var::U(0))?, ops.gradient(&u[1], Var::U(1))?, ops.gradient(&u[2], Var::U(2))?];
        // The last step's dt: the field is the nu_t that step used, capped as it was.
        let nut = ops.eddy_viscosity(u, &gu, self.last_dt)?;
        Ok(Some(ops.download(&nut)?))
    }

    /// A transient run's kinetic energy after the step that ended at (time, step), into
    /// energy.csv and the report.
    fn record_energy(&mut self, time: f64, step: u64) -> Result<()> {
        if !self.c.transient {
            return Ok(());
        }
        let e = self.ops.kinetic_energy(&self.st.u)?;
        self.history.push_energy(time, step, e)?;
        self.c.report.lock().unwrap().energy = self.history.energy_summary();
        Ok(())
    }

    fn log(&self, clock: &Clock, row: &StepRow) {
        let first = clock.step == 0;
        if !(first || self.converged || (self.c.log_every > 0 && (clock.step + 1).is_multiple_of(self.c.log_every))) {
            return;
        }
        let r = self.c.report.lock().unwrap();
        let coef = match (r.cd, r.cl, r.dp) {
            (Some(cd), Some(cl), dp) => format!(" cd {cd:.5} cl {cl:.5}{}", dp.map_or(String::new(), |d| format!(" dp {d:.5}"))),
            (_, _, Some(d)) => format!(" dp {d:.5}"),
            _ => String::new(),
        };
        eprintln!(
            "step {}: t = {:.4e} p: {:?} it, res {:.2e}  u: {:?} it, res {:.2e}  du {:.2e} mass {:.2e}{coef}",
            row.step,
            row.time,
            row.pressure_iterations,
            row.pressure_residual.iter().cloned().fold(0.0, f64::max),
            row.momentum_iterations,
            row.momentum_residual.iter().cloned().fold(0.0, f64::max),
            row.velocity_change,
            row.mass_residual,
        );
    }
}

/// The residuals of the step that ended at `step`, `time`; `change` = (du, dF).
fn row(step: u64, time: f64, rep: &StepReport, change: (f64, f64), mass_residual: f64) -> StepRow {
    StepRow {
        step,
        time,
        velocity_change: change.0,
        force_change: change.1,
        mass_residual,
        pressure_iterations: rep.pressure.iter().map(|r| r.iterations).collect(),
        pressure_residual: rep.pressure.iter().map(|r| r.rel_residual).collect(),
        momentum_iterations: rep.momentum.iter().map(|r| r.iterations).collect(),
        momentum_residual: rep.momentum.iter().map(|r| r.rel_residual).collect(),
    }
}

impl<O: NsOps> Simulation for NsSim<O> {
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        Ok((cfl * self.c.h / self.c.u_ref).min(self.c.dt_max))
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        let span = Span {
            t: clock.time,
            dt,
            step: clock.step,
        };
        let how = Stepping {
            nonorth: self.c.nonorth,
            theta: self.c.theta,
            transient: self.c.transient,
            rest_correction: self.c.rest_correction,
            flux_memory: self.c.flux_memory,
            les: self.c.les.is_some(),
        };
        let rep = step::step(&mut self.ops, &mut self.st, span, how)?;
        self.steps += 1;
        self.last_dt = dt;
        self.record_energy(clock.time + dt, clock.step + 1)?;
        let mut warnings = self.check_solves(clock.step + 1, "pressure", &rep.pressure, self.c.fail[0])?;
        warnings += self.check_solves(clock.step + 1, "momentum", &rep.momentum, self.c.fail[1])?;
        let force = self.measure(clock.time + dt, clock.step + 1)?;
        let change = self.steady_check(&rep, force);
        if let Some(a) = &mut self.averages {
            a.add(&mut self.ops, clock.time + dt, dt, &self.st.u, &self.st.p)?;
        }
        let div = self.ops.divergence(&self.st.flux)?;
        // Before the report reads `converged`: a stall stops the run without converging it.
        let converged = self.converged;
        self.stall_check(clock.step + 1, change);
        // The first pressure solve's right-hand side is (rho / (theta dt)) times the predicted
        // fluxes' imbalance (plus the deferred part, zero in the first solve).
        let mass = rep.pressure.first().map_or(0.0, |p| p.rhs_norm) * self.c.theta * dt / self.c.rho / self.c.flow_scale;
        let row = row(clock.step + 1, clock.time + dt, &rep, change, mass);
        if let Some(log) = &mut self.residuals {
            log.push(&row.values())?;
        }
        {
            let mut r = self.c.report.lock().unwrap();
            r.cg_warnings += warnings;
            r.max_divergence = r.max_divergence.max(div);
            r.pressure_solves.add(&rep.pressure);
            r.momentum_solves.add(&rep.momentum);
            if converged && r.converged_at.is_none() {
                r.converged_at = Some(clock.step + 1);
            }
        }
        self.log(clock, &row);
        self.c.report.lock().unwrap().last_step = Some(row);
        Ok(())
    }

    fn converged(&self) -> bool {
        self.converged
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let (u, p) = self.host()?;
        let mut umax = 0.0f64;
        for c in 0..p.len() {
            let s = (u[0][c] * u[0][c] + u[1][c] * u[1][c] + u[2][c] * u[2][c]).sqrt();
            umax = if s.is_nan() { f64::NAN } else { umax.max(s) };
        }
        let pmax = p.iter().map(|v| v.abs()).fold(0.0f64, |a, b| if b.is_nan() { f64::NAN } else { a.max(b) });
        if !umax.is_finite() || umax > 1e3 * self.c.u_ref {
            return Ok(Some(Unhealthy {
                field: "velocity".into(),
                what: format!("max |u| = {umax:e} (reference speed {:e})", self.c.u_ref),
            }));
        }
        Ok((!pmax.is_finite()).then(|| Unhealthy {
            field: "pressure".into(),
            what: format!("max |p| = {pmax:e}"),
        }))
    }

    fn open_series(&mut self, dir: &Path, resume: Option<f64>) -> Result<()> {
        let (force, probes) = (self.c.force.is_some(), self.c.probes.is_some());
        self.history.open(dir, force, probes, resume)?;
        self.history.open_energy(dir, self.c.transient, resume)?;
        if resume.is_none() {
            // The initial state's row (the state of step 0).
            self.measure(0.0, 0)?;
            self.record_energy(0.0, 0)?;
        }
        let cols = StepRow::columns(self.c.nonorth + 1);
        let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
        self.residuals = Some(CsvLog::open(&dir.join("residuals.csv"), &cols, resume)?);
        Ok(())
    }

    fn fields(&mut self, clock: &Clock) -> Result<Vec<Field>> {
        let h = self.host()?;
        self.measure_other(&h);
        self.summarise_signals(clock);
        let (u, p) = h;
        let vel: Vec<f64> = (0..p.len()).flat_map(|c| [u[0][c], u[1][c], u[2][c]]).collect();
        let mut out = derived_fields(&*self.c.geo, [&u[0], &u[1], &u[2]]);
        out.insert(0, Field::scalar("pressure", Centring::Cell, p));
        out.insert(0, Field::vector("velocity", 3, Centring::Cell, vel));
        if let Some(a) = &self.averages {
            let means = a.fields(&mut self.ops)?;
            self.measure_wake(&means, clock.time, a.start);
            out.extend(means);
        }
        if let Some(nut) = self.eddy_viscosity()? {
            let les = self.c.les.as_ref().expect("with a model").summary(&nut, clock.time, self.last_dt);
            self.c.report.lock().unwrap().les = Some(les);
            out.push(Field::scalar("eddy_viscosity", Centring::Cell, nut));
        }
        Ok(out)
    }

    /// The checkpoint: u, p, the face fluxes, the steady criterion's state; then u^(n-1) (a
    /// transient run's), the running averages and the force history, each led by a count or
    /// a flag.
    fn save_state(&mut self) -> Result<Vec<u8>> {
        let mut all = Vec::new();
        for k in 0..3 {
            all.extend(self.ops.download(&self.st.u[k])?);
        }
        all.extend(self.ops.download(&self.st.p)?);
        all.extend(self.ops.download_faces(&self.st.flux)?);
        all.extend(self.prev_force.unwrap_or([f64::NAN; 3]));
        all.extend([self.calm as f64, self.converged as u8 as f64]);
        match &self.st.u_prev {
            None => all.push(0.0),
            Some(prev) => {
                all.push(1.0);
                for u in prev {
                    all.extend(self.ops.download(u)?);
                }
            }
        }
        match &self.averages {
            None => all.push(f64::NAN),
            Some(a) => a.save(&mut self.ops, &mut all)?,
        }
        self.history.save(&mut all);
        Ok(to_bytes(&all))
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let (n, nf) = (self.c.geo.num_cells(), self.c.faces.len());
        let base = 4 * n + nf + 5;
        let all: Vec<f64> = from_bytes(bytes);
        let short = || {
            SolverError::Other(format!(
                "the checkpoint holds {} values, fewer than this mesh's state needs ({base} and more)",
                all.len()
            ))
        };
        if all.len() < base + 1 {
            return Err(short());
        }
        for k in 0..3 {
            self.st.u[k] = self.ops.upload(&all[k * n..(k + 1) * n])?;
        }
        self.st.p = self.ops.upload(&all[3 * n..4 * n])?;
        self.st.flux = self.ops.upload_faces(&all[4 * n..4 * n + nf])?;
        let tail = &all[4 * n + nf..];
        self.prev_force = (!tail[0].is_nan()).then(|| [tail[0], tail[1], tail[2]]);
        self.calm = tail[3] as u64;
        self.converged = tail[4] != 0.0;
        let mut at = base;
        self.st.u_prev = None;
        if all[at] == 1.0 {
            if all.len() < at + 1 + 3 * n {
                return Err(short());
            }
            let part = |k: usize| &all[at + 1 + k * n..at + 1 + (k + 1) * n];
            self.st.u_prev = Some([self.ops.upload(part(0))?, self.ops.upload(part(1))?, self.ops.upload(part(2))?]);
            at += 3 * n;
        }
        at += 1;
        at += match &mut self.averages {
            Some(a) => a.load(&mut self.ops, &all[at..], n)?,
            None => 1,
        };
        at += self.history.load(&all[at.min(all.len())..])?;
        if at != all.len() {
            return Err(SolverError::Other(format!(
                "the checkpoint holds {} values, not the {at} of this case's state",
                all.len()
            )));
        }
        Ok(())
    }

    /// The stages' bytes (`setup::min_bytes_per_step`) plus the linear solves' so far per step
    /// (their iterations times the solver's bytes per iteration).
    fn bytes_per_step(&self) -> f64 {
        let cg = self.ops.solve_stats().bytes / self.steps.max(1) as f64;
        self.c.bytes_per_step + cg
    }

    fn sync(&mut self) -> Result<()> {
        self.ops.sync()
    }

    fn solver_work(&self) -> Option<SolverWork> {
        let s = self.ops.solve_stats();
        Some(SolverWork {
            steps: self.steps,
            iterations: s.iterations,
            seconds: s.seconds,
            bytes: s.bytes,
        })
    }

    fn variant(&self) -> String {
        self.c.variant.clone()
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::Target;
    use crate::commands::specs::{template, Stepped};
    use crate::cases::FAMILIES;
    use crate::framework::CaseDoc;
    use std::path::Path;

    /// The forces and probes of the DFG template from the gathered cells are those of the
    /// whole fields, bit for bit, every step (`measure` compares them under cfg(test)); so the
    /// list of cells the formulas read is complete (a missing cell would panic, not differ).
    #[test]
    fn the_gathered_measurement_is_the_whole_fields_one() {
        let (_, t) = template(FAMILIES, "dfg-3d-1z").unwrap();
        let doc = CaseDoc::parse(t.text, Path::new("dfg-3d-1z.toml"), &[]).unwrap();
        let s = Stepped::run(&doc, FAMILIES, Target::Cpu, 4).unwrap();
        let summary = s.case.setup.summary();
        assert_eq!(summary["last_step"]["step"], 4, "{summary}");
        assert!(summary["cd"].as_f64().unwrap() > 0.0 && summary["dp"].as_f64().is_some(), "{summary}");
    }
}
