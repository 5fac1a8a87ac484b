//! The contract between the commands and a physics family. A family is one folder under
//! `cases/` that implements these three traits and one line in the registry (`cases/mod.rs`);
//! the commands parse, run, write, checkpoint, check and benchmark it without naming it.
//!
//! - [`Family`]: what the family is (its TOML section, templates, checks and benchmarks as data)
//!   and how it parses its own sections of a case file into a [`Setup`].
//! - [`Setup`]: the parsed, validated case: the physics that a restart must not change, how the
//!   step size is chosen, and how to build the running [`Simulation`] on a backend.
//! - [`Simulation`]: the state on a backend, stepped by the framework's clock.

use super::clock::{Clock, DtPolicy};
use super::config::{CaseDoc, Precision};
use super::field::{Centring, Field, Geometry, Piece};
use super::target::Target;
use crate::error::Result;

/// A case file that ships with the solver (`solver cases`, `solver cases NAME`).
pub struct Template {
    pub name: &'static str,
    pub about: &'static str,
    pub text: &'static str,
}

impl Template {
    pub const fn new(name: &'static str, about: &'static str, text: &'static str) -> Template {
        Template { name, about, text }
    }
}

/// What the framework asks of a family.
pub trait Family: Sync {
    /// Its `[case] kind` and the name of its own TOML section.
    fn name(&self) -> &'static str;
    /// Other top-level keys its case files may use (shared layers such as `grid` or `mesh`).
    fn shared_keys(&self) -> &'static [&'static str];
    fn templates(&self) -> &'static [Template];
    /// Parse and validate the family's sections; errors name the file, the key and the line.
    fn parse(&self, doc: &CaseDoc) -> Result<Box<dyn Setup>>;
    /// CPU-vs-CUDA agreement checks (`solver check`).
    fn checks(&self) -> &'static [CheckSpec];
    /// Throughput benchmarks (`solver bench`).
    fn benches(&self) -> &'static [BenchSpec];
}

/// Parses a family's sections into its setup.
pub type ParseFn = fn(&CaseDoc) -> Result<Box<dyn Setup>>;

/// A family given as data: what every family so far needs (one implements `Family` itself
/// only if it needs more).
pub struct FamilyInfo {
    pub name: &'static str,
    pub shared_keys: &'static [&'static str],
    pub templates: &'static [Template],
    pub parse: ParseFn,
    pub checks: &'static [CheckSpec],
    pub benches: &'static [BenchSpec],
}

impl FamilyInfo {
    /// A family: its name (= `[case] kind` and its section), the other top-level keys it
    /// reads, its templates, checks and benchmarks, and how it parses its sections.
    pub const fn new(
        name: &'static str,
        shared_keys: &'static [&'static str],
        templates: &'static [Template],
        checks: &'static [CheckSpec],
        benches: &'static [BenchSpec],
        parse: ParseFn,
    ) -> Self {
        FamilyInfo {
            name,
            shared_keys,
            templates,
            parse,
            checks,
            benches,
        }
    }
}

impl Family for FamilyInfo {
    fn name(&self) -> &'static str {
        self.name
    }
    fn shared_keys(&self) -> &'static [&'static str] {
        self.shared_keys
    }
    fn templates(&self) -> &'static [Template] {
        self.templates
    }
    fn parse(&self, doc: &CaseDoc) -> Result<Box<dyn Setup>> {
        (self.parse)(doc)
    }
    fn checks(&self) -> &'static [CheckSpec] {
        self.checks
    }
    fn benches(&self) -> &'static [BenchSpec] {
        self.benches
    }
}

pub trait Setup: Send + Sync {
    /// The parsed physics (the family's sections with every default filled in). A checkpoint
    /// stores it, and a restart whose physics differs is refused, naming the keys.
    fn physics(&self) -> toml::Table;
    fn dt_policy(&self) -> DtPolicy;
    /// Where the fields live, for output and for the weights of error norms.
    fn geometry(&self) -> Geometry;
    /// Where on the geometry the fields' values sit (heat's at the grid's points): with
    /// `geometry`, the values a step updates, known without gathering the fields.
    fn centring(&self) -> Centring {
        Centring::Cell
    }
    fn build(&self, target: &Target, precision: Precision) -> Result<Box<dyn Simulation>>;
    /// The exact solution at the clock's time of one of the fields (same name), where one
    /// exists; its relative errors go to summary.json as `errors`.
    fn exact(&self, _clock: &Clock) -> Option<Field> {
        None
    }
    /// Whether the family splits its grid into parts: several devices per process
    /// (`run.gpus`) or processes (`mpirun -np N`). One that does not is refused more than one
    /// of either, rather than computing the whole case on each.
    fn decomposes(&self) -> bool {
        false
    }
    /// Whether the family's CUDA kernels honour `run.math = "fast"`; a case asking it of one
    /// that does not is refused (its kernels have one arithmetic).
    fn offers_fast_math(&self) -> bool {
        false
    }
    /// Family-specific entries for summary.json.
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({})
    }
    /// What the simulation will hold in memory on its backend and what a step costs on the
    /// CPU, estimated from the parsed case before anything is allocated (`framework::budget`:
    /// a case too large for the device is refused before it is built, and `--backend auto`
    /// does not hand the CPU a case that would take hours there). None where unknown.
    fn footprint(&self, _precision: Precision) -> Option<Footprint> {
        None
    }
}

/// What a simulation holds and costs, from `Setup::footprint`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footprint {
    /// Bytes the simulation holds on its backend (state, work arrays, mesh and solver tables).
    pub bytes: f64,
    /// Seconds one step takes on one CPU core (the family's CPU throughput measured on the
    /// 2-core CI machine; rough, for telling minutes from days).
    pub cpu_core_seconds_per_step: f64,
}

impl Footprint {
    /// `cells` cells (or points) holding `bytes_per_cell` each and updated at
    /// `core_seconds_per_update` CPU core-seconds each per step.
    pub fn per_cell(cells: usize, bytes_per_cell: f64, core_seconds_per_update: f64) -> Footprint {
        Footprint {
            bytes: cells as f64 * bytes_per_cell,
            cpu_core_seconds_per_step: cells as f64 * core_seconds_per_update,
        }
    }
}

/// A setup whose simulation is generic over the precision: `build` is then one line,
/// `build_in_precision(self, target, precision)`.
pub trait BuildIn {
    fn build_in<R: crate::real::Real>(&self, target: &Target) -> Result<Box<dyn Simulation>>;
}

/// The setup's simulation in the run's precision.
pub fn build_in_precision<S: BuildIn>(s: &S, target: &Target, precision: Precision) -> Result<Box<dyn Simulation>> {
    match precision {
        Precision::F64 => s.build_in::<f64>(target),
        Precision::F32 => s.build_in::<f32>(target),
    }
}

/// What stopped a run: the field, the offending value and where.
#[derive(Clone, Debug)]
pub struct Unhealthy {
    pub field: String,
    /// e.g. "max |phi| = inf" or "density -1e-3 in cell (4, 7, 0)".
    pub what: String,
}

pub trait Simulation {
    /// The largest step the current state allows at Courant (or diffusion) number `cfl`.
    fn stable_dt(&mut self, cfl: f64) -> Result<f64>;
    /// Advance from `clock.time` (after `clock.step` steps) by `dt`.
    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()>;
    /// None while the state is sound; what is wrong otherwise (NaN, overflow, negative density).
    fn health(&mut self) -> Result<Option<Unhealthy>>;
    /// The output fields at the clock's time.
    fn fields(&mut self, clock: &Clock) -> Result<Vec<Field>>;
    /// Open the time series (CSV) written beside the fields, in the output folder `dir`: new
    /// files, or on a restart (`resume` = the checkpoint's time) the rows up to that time kept.
    /// Called on the writing process only, before the first output; rows follow in `fields`.
    fn open_series(&mut self, _dir: &std::path::Path, _resume: Option<f64>) -> Result<()> {
        Ok(())
    }
    /// The full state, bit-exact, for checkpoints.
    fn save_state(&mut self) -> Result<Vec<u8>>;
    fn load_state(&mut self, bytes: &[u8]) -> Result<()>;
    /// Bytes a step must move at the least (the roofline model of the benchmarks).
    fn bytes_per_step(&self) -> f64;
    /// The numerical variant that runs (kernel, scheme), for the summary and benchmark rows.
    fn variant(&self) -> String;
    /// Wait until the device has finished the queued work (benchmark timing).
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    /// Up to `max_steps` adaptive steps at once, each `cfl` times the stable step and cut so as
    /// to land on `until` and go no further: for devices that find the step size themselves,
    /// with one round trip to the host per batch instead of one per step. The clock reached,
    /// or None where the simulation takes one step at a time (the default).
    fn advance_batch(&mut self, _clock: &Clock, _cfl: f64, _until: f64, _max_steps: u64) -> Result<Option<Clock>> {
        Ok(None)
    }
    /// Testing knob (`CFD_INJECT_NAN`, `framework::faults`): make the state of output cell
    /// `cell` (numbered as the output's cells or points, x fastest, in the whole grid of a
    /// decomposed run) not finite, as a fault in memory would. Whether this process holds that
    /// cell; an error where the family does not take the knob.
    fn inject_nan(&mut self, _cell: usize) -> Result<bool> {
        Err(crate::error::SolverError::Other(
            "CFD_INJECT_NAN: this family (or this backend of it) does not take injected faults".into(),
        ))
    }
    /// The state of some part of a decomposed run was changed from outside (`inject_nan`):
    /// take the neighbours' planes again at the next step, if the step does not always.
    fn refresh_neighbours(&mut self) {}
    /// This process's parts' fields as pieces of a parallel output (`output::pieces`), where
    /// the simulation is a decomposed grid; None otherwise.
    fn pieces(&mut self, _clock: &Clock) -> Result<Option<Vec<Piece>>> {
        Ok(None)
    }
    /// Whether the run has reached what it was run for before its step budget (a steady state):
    /// the loop then writes the final output and ends as if it had reached its last step.
    fn converged(&self) -> bool {
        false
    }
    /// Quantities the scheme conserves (e.g. the water volume), by name: the run prints them at
    /// each output and summary.json reports their change.
    fn totals(&mut self) -> Result<Vec<(String, f64)>> {
        Ok(Vec::new())
    }
    /// The parts of a decomposed grid, every rank's (summary.json `decomposition`); None
    /// where the case runs whole.
    fn decomposition(&self) -> Option<Vec<Block>> {
        None
    }
    /// The linear solves' work so far, for families that solve linear systems every step
    /// (`solver bench` reports iterations per step and seconds per iteration).
    fn solver_work(&self) -> Option<SolverWork> {
        None
    }
}

/// The work of a simulation's linear solves since it was built: steps taken, solver
/// iterations, their seconds (from an idle device) and the bytes they moved at the least.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolverWork {
    pub steps: u64,
    pub iterations: u64,
    pub seconds: f64,
    pub bytes: f64,
}

/// The block of one part of a decomposed grid in the whole grid (`Simulation::decomposition`,
/// summary.json `decomposition`; `grid::parts` makes them).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Block {
    pub rank: usize,
    /// The device of the part, counted on its rank's machine (None on the CPU).
    pub device: Option<usize>,
    /// First and one-past-last stored value per axis.
    pub lo: [usize; 3],
    pub hi: [usize; 3],
    pub cells: usize,
}

/// Context of a check or benchmark: a scratch folder and the meshes given on the command line.
pub struct SpecContext<'a> {
    pub dir: &'a std::path::Path,
    pub mesh: Option<&'a std::path::Path>,
}

/// A CPU-vs-CUDA agreement check: a template with overrides, run for `steps` steps on both
/// backends in both precisions, every field compared as max |cpu - cuda| / max |cpu|.
pub struct CheckSpec {
    pub name: &'static str,
    pub template: &'static str,
    /// `--set` overrides; `{mesh}` stands for the mesh given to `solver check --mesh`.
    pub sets: &'static [&'static str],
    pub steps: u64,
    /// Tolerance in f64 and in f32; NaN where the family refuses that precision (the row says
    /// so instead of running).
    pub tolerance: [f64; 2],
    /// More overrides made at run time (e.g. a velocity file written by a previous run).
    pub extra: Option<ExtraSets>,
    /// summary.json numbers compared besides the fields (e.g. force coefficients), each as
    /// |cpu - cuda| / |cpu| within the same tolerance.
    pub scalars: &'static [&'static str],
    /// Also check that a CUDA run restarted halfway from its saved state ends bit-identical
    /// to the uninterrupted one (in the first precision the spec runs in).
    pub restart: bool,
}

impl CheckSpec {
    /// A check of `template` with overrides `sets` for `steps` steps, within `tolerance` (f64,
    /// f32), with no run-time overrides.
    pub const fn new(
        name: &'static str,
        template: &'static str,
        sets: &'static [&'static str],
        steps: u64,
        tolerance: [f64; 2],
    ) -> CheckSpec {
        CheckSpec {
            name,
            template,
            sets,
            steps,
            tolerance,
            extra: None,
            scalars: &[],
            restart: false,
        }
    }

    /// The same check comparing summary.json's `scalars` too.
    pub const fn with_scalars(mut self, scalars: &'static [&'static str]) -> CheckSpec {
        self.scalars = scalars;
        self
    }

    /// The same check with a restart row.
    pub const fn with_restart(mut self) -> CheckSpec {
        self.restart = true;
        self
    }
}

/// Overrides a check makes at run time from its context.
pub type ExtraSets = fn(&SpecContext) -> Result<Vec<String>>;

/// A throughput benchmark: a template with overrides at several sizes.
pub struct BenchSpec {
    pub name: &'static str,
    pub template: &'static str,
    pub sets: &'static [&'static str],
    pub sizes: Sizes,
}

/// The sizes a benchmark runs at (`solver bench --sizes` / `--mesh` override them).
#[derive(Clone, Copy, Debug)]
pub enum Sizes {
    /// Structured cubes of n^3 cells: `grid.dims = [n, n, n]`.
    GridCubes(&'static [usize]),
    /// Structured squares of n^2 cells: `grid.dims = [n, n, 1]`.
    GridSquares(&'static [usize]),
    /// Tetrahedral meshes: the `--mesh` list, else Kuhn boxes of n^3 x 6 cells made here
    /// (none given: the template's own mesh, its overrides naming `{mesh}` left out).
    Meshes(&'static [usize]),
}
