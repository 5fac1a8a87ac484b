//! A case ready to step: the family's parsed setup, its simulation on a backend, and the
//! schedule of its steps. `solver run`, `solver check` and `solver bench` all start here.

use super::clock::DtPolicy;
use super::clock::{Clock, Schedule};
use super::config::{CaseDoc, Precision};
use super::family::{Family, Setup, Simulation};
use super::field::Geometry;
use super::target::Target;
use crate::error::{Result, SolverError};

/// The family of a case file's `[case] kind` among `families` (the registry), or an error
/// listing them.
pub fn family_of(doc: &CaseDoc, families: &[&'static dyn Family]) -> Result<&'static dyn Family> {
    let kind = doc.case.kind.as_str();
    if let Some(f) = families.iter().find(|f| f.name() == kind) {
        return Ok(*f);
    }
    let names: Vec<&str> = families.iter().map(|f| f.name()).collect();
    let hint = super::config::suggest(kind, &names).map_or(String::new(), |s| format!("; did you mean `{s}`?"));
    Err(doc.error(
        "case.kind",
        format!("unknown kind `{kind}` (the solver has: {}){hint}", names.join(", ")),
    ))
}

/// Parse the family's sections of a case file (top-level keys checked first), the family found
/// among `families`.
pub fn parse_setup(doc: &CaseDoc, families: &[&'static dyn Family]) -> Result<Box<dyn Setup>> {
    let family = family_of(doc, families)?;
    let mut allowed = vec![family.name()];
    allowed.extend_from_slice(family.shared_keys());
    doc.check_top_level_keys(&allowed)?;
    family.parse(doc)
}

pub struct Case {
    pub setup: Box<dyn Setup>,
    pub sim: Box<dyn Simulation>,
    pub target: Target,
    pub precision: Precision,
    pub schedule: Schedule,
    pub geometry: Geometry,
}

impl Case {
    /// The case of a case file whose family is among `families`, built on `target`.
    pub fn prepare(doc: &CaseDoc, families: &[&'static dyn Family], target: Target) -> Result<Case> {
        Case::from_setup(parse_setup(doc, families)?, doc, target)
    }

    /// The case of a parsed setup, built on `target`.
    pub fn from_setup(setup: Box<dyn Setup>, doc: &CaseDoc, target: Target) -> Result<Case> {
        let ranks = super::ranks::world().size();
        if ranks > 1 && !setup.decomposes() {
            return Err(doc.error(
                "case.kind",
                format!(
                    "\"{}\" does not decompose across ranks yet: each of the {ranks} ranks would compute the whole case; run it as one process (without mpirun; run.gpus = 1), or use a family that decomposes (those on structured grids)",
                    doc.case.kind
                ),
            ));
        }
        if doc.run.gpus > 1 && !setup.decomposes() {
            return Err(doc.error(
                "run.gpus",
                format!(
                    "{}: this family runs on one device per process; set run.gpus = 1",
                    doc.run.gpus
                ),
            ));
        }
        if doc.run.math == super::config::Math::Fast && !setup.offers_fast_math() {
            return Err(doc.error(
                "run.math",
                format!(
                    "\"fast\" is not offered by the \"{}\" family (its kernels have one arithmetic): remove the key or set it to \"exact\"",
                    doc.case.kind
                ),
            ));
        }
        let precision = doc.run.precision;
        let mut sim = setup.build(&target, precision)?;
        let policy = setup.dt_policy();
        let stable = match (policy, doc.time.dt) {
            (DtPolicy::Constant, None) => Some(sim.stable_dt(doc.time.cfl)?),
            _ => None,
        };
        if let Some(dt) = stable.filter(|dt| !super::config::positive(*dt)) {
            return Err(doc.error("time.cfl", format!("the stable step is {dt}: nothing moves")));
        }
        let schedule = Schedule::new(&doc.time, &doc.output, policy, stable);
        let geometry = setup.geometry();
        Ok(Case {
            setup,
            sim,
            target,
            precision,
            schedule,
            geometry,
        })
    }

    /// One step from `clock`: the step size from the schedule, then the simulation.
    pub fn advance(&mut self, clock: &Clock) -> Result<Clock> {
        let cfl = self.schedule.cfl;
        let sim = &mut self.sim;
        let dt = self.schedule.dt(clock, || sim.stable_dt(cfl))?;
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(SolverError::Other(format!(
                "the step size became {dt:e} at step {} (t = {:.6e}): the state is no longer sound",
                clock.step, clock.time
            )));
        }
        self.sim.step(clock, dt)?;
        Ok(self.schedule.advance(clock, dt))
    }

    /// Up to `max_steps` steps from `clock` (at least one): a batch on the device where the
    /// simulation finds adaptive steps itself (`Simulation::advance_batch`), one step otherwise.
    /// A batch stops on the next output or end time and at the step limit.
    pub fn advance_batch(&mut self, clock: &Clock, max_steps: u64) -> Result<Clock> {
        let max_steps = self
            .schedule
            .steps
            .map_or(max_steps, |n| max_steps.min(n.saturating_sub(clock.step)));
        if !self.schedule.constant() && max_steps > 1 {
            let until = self.schedule.next_target(clock.time);
            if let Some(next) = self.sim.advance_batch(clock, self.schedule.cfl, until, max_steps)? {
                return Ok(next);
            }
        }
        self.advance(clock)
    }

    /// What a checkpoint must match: the parsed physics, the precision and the step rule.
    pub fn physics(&self) -> String {
        let mut t = self.setup.physics();
        let mut run = toml::Table::new();
        run.insert("precision".into(), self.precision.name().into());
        t.insert("run".into(), run.into());
        let mut time = toml::Table::new();
        match self.schedule.dt {
            Some(dt) => time.insert("dt (resolved)".into(), dt.into()),
            None => time.insert("cfl".into(), self.schedule.cfl.into()),
        };
        t.insert("time".into(), time.into());
        super::checkpoint::physics_lines(&t)
    }
}
