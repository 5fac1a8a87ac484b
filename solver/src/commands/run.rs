//! The one time loop every family uses: the clock, output cadence, progress bar, health
//! checks that stop a diverging run keeping the last good output, checkpoints (every N steps
//! and on Ctrl-C), restart, and summary.json.

use crate::error::{Result, SolverError};
use crate::framework::case::{self, Case};
use crate::framework::checkpoint::{self, Checkpoint};
use crate::framework::clock::Clock;
use crate::framework::config::CaseDoc;
use crate::framework::family::Family;
use crate::framework::faults::{self, NanAt};
use crate::framework::{budget, ranks, timing};
use crate::output::pieces::PieceWriter;
use crate::output::writer::{Frame, FrameWriter, WriterStats};
use crate::output::{self, pvd::Series, Field, Geometry};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Install the Ctrl-C handler once: the loop then checkpoints and stops cleanly.
fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    });
}

#[derive(clap::Args)]
pub struct RunOptions {
    /// The case file.
    pub case: PathBuf,
    /// cpu | cuda | auto (CUDA if a device is usable, else CPU); overrides run.backend.
    #[arg(long, value_enum)]
    pub backend: Option<crate::framework::config::Backend>,
    /// Override any key: --set time.cfl=0.5 --set run.precision=f32
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub set: Vec<String>,
    /// Output folder (default: output.dir, else out/<case name>).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Continue from the checkpoint in the output folder: the latest (`--restart`), or the one
    /// before it (`--restart=previous`, kept as checkpoint.prev.bin) when the latest is damaged.
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "latest", value_name = "WHICH")]
    pub restart: Option<RestartFrom>,
    /// No progress bar or backend message.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Which checkpoint `--restart` continues from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RestartFrom {
    /// checkpoint.bin, the latest.
    Latest,
    /// checkpoint.prev.bin, the one before it.
    Previous,
}

/// Every part's points in a parallel output of `geometry`: (its number, first and last point
/// index per axis). A block's stored values along an axis are cells or points; its last point is
/// the next block's first (cell data) or, for point data, the next block's first point too,
/// which its piece carries (`output::pieces::Piece`), except at the end of the grid.
fn piece_extents(geometry: &Geometry, blocks: &[crate::grid::parts::Block]) -> Vec<(usize, [[usize; 2]; 3])> {
    let points = match geometry {
        Geometry::Image { points, .. } => *points,
        Geometry::Tets(_) => [1; 3],
    };
    blocks
        .iter()
        .enumerate()
        .map(|(k, b)| (k, std::array::from_fn(|a| [b.lo[a], b.hi[a].min(points[a] - 1)])))
        .collect()
}

/// `solver run`: load the case file, run it (its family among `families`, the registry), say
/// how it went.
pub fn run_command(opts: &RunOptions, families: &[&'static dyn Family]) -> Result<()> {
    let mut doc = CaseDoc::load(&opts.case, &opts.set)?;
    if let Some(b) = opts.backend {
        doc.run.backend = b;
    }
    let s = run(&doc, opts, families)?;
    if !opts.quiet && ranks::is_root() {
        let errors = s.get("errors").map(|e| format!("  errors {e}")).unwrap_or_default();
        let text = |k: &str| s[k].as_str().unwrap_or("").to_string();
        let number = |k: &str| s[k].as_f64().unwrap_or(0.0);
        eprintln!(
            "done: {} steps on {} ({}), {:.3} s, {:.3e} {}{errors}",
            s["steps"],
            text("backend"),
            text("device"),
            number("wall_seconds"),
            number("throughput"),
            text("throughput_unit")
        );
    }
    Ok(())
}

/// Frames queued for the writer thread besides the one it writes: the steps run on while a
/// frame is encoded, and at most this many more wait in memory.
const WRITER_QUEUE: usize = 2;

/// Where a run writes, and what it has written.
struct Outputs {
    /// Whether this process writes (rank 0 of a decomposed run; the others only take part in
    /// the collective calls that gather fields and state).
    root: bool,
    dir: PathBuf,
    checkpoint: PathBuf,
    pvd: PathBuf,
    /// The writer thread (rank 0), started once the series is known (new or reopened).
    writer: Option<FrameWriter>,
    /// Instead, every process writing its parts' pieces (`output.pieces`).
    pieces: Option<PieceWriter>,
    last: Option<u64>,
    /// The fields of the last output, for the summary.
    last_fields: Option<(u64, Arc<Vec<Field>>)>,
    /// Seconds of output on the run's critical path: gathering fields and queueing them, and
    /// the wait for the writer at the end.
    seconds: f64,
    /// The clock of the last checkpoint written or restarted from.
    last_checkpoint: Option<Clock>,
    /// Whether checkpoint.bin is a good checkpoint of this run (written by it, or the one it
    /// restarted from): only then is it kept as checkpoint.prev.bin when the next is written.
    checkpoint_good: bool,
}

impl Outputs {
    /// The output folder of a run (created): `-o`, else output.dir, else out/NAME.
    fn open(doc: &CaseDoc, opts: &RunOptions, name: &str) -> Result<Outputs> {
        let dir = opts
            .output
            .clone()
            .or_else(|| doc.output.dir.clone())
            .unwrap_or_else(|| PathBuf::from("out").join(name));
        std::fs::create_dir_all(&dir).map_err(|e| SolverError::io(&dir, e))?;
        Ok(Outputs {
            root: ranks::is_root(),
            checkpoint: dir.join("checkpoint.bin"),
            pvd: dir.join(format!("{name}.pvd")),
            dir,
            writer: None,
            pieces: None,
            last: None,
            last_fields: None,
            seconds: 0.0,
            last_checkpoint: None,
            checkpoint_good: false,
        })
    }

    /// The series (new, or on a restart the existing one up to `clock`) with, on rank 0, the
    /// writer thread and the family's own series; or, where a decomposed grid writes pieces
    /// (`output.pieces`, the same choice on every rank), a piece writer on every process.
    fn start(&mut self, case: &mut Case, doc: &CaseDoc, clock: &Clock, restart: bool) -> Result<()> {
        let blocks = case.sim.decomposition().filter(|b| b.len() > 1);
        let wanted = doc.output.pieces.wanted(&case.geometry, blocks.is_some());
        let wanted = ranks::world().max(wanted as u8 as f64) > 0.0;
        let series = self.root.then(|| match restart {
            true => Series::reopen(&self.pvd, clock.time),
            false => Series::new(&self.pvd),
        });
        match (blocks, series) {
            (Some(blocks), series) if wanted => {
                let extents = piece_extents(&case.geometry, &blocks);
                self.pieces = Some(PieceWriter::new(
                    series,
                    &case.geometry,
                    extents,
                    doc.output.vtk_options(doc.run.precision),
                )?);
            }
            (_, Some(series)) => {
                self.writer = Some(FrameWriter::spawn(
                    series,
                    case.geometry.clone(),
                    doc.output.vtk_options(doc.run.precision),
                    WRITER_QUEUE,
                ));
            }
            (_, None) => {}
        }
        if !self.root {
            return Ok(());
        }
        case.sim.open_series(&self.dir, restart.then_some(clock.time))
    }

    /// This output as pieces: every process writes its parts', then (once all are on disk)
    /// rank 0 the `.pvti` and the series.
    fn write_pieces(&mut self, case: &mut Case, clock: &Clock) -> Result<()> {
        let Some(writer) = &mut self.pieces else { return Ok(()) };
        let stem = self.dir.join(format!("step_{:07}", clock.step));
        let pieces = case
            .sim
            .pieces(clock)?
            .ok_or_else(|| SolverError::Other("internal: a piece writer on a grid that is not split".into()))?;
        writer.write_pieces(&stem, &pieces)?;
        ranks::world().max(0.0);
        writer.write_index(&stem, clock.time, &pieces[0].fields)
    }

    /// Gather the fields of this output (the device's work before it counted as steps) and
    /// queue them for the writer thread.
    fn write(&mut self, case: &mut Case, clock: &Clock) -> Result<()> {
        case.sim.sync()?;
        let t = Instant::now();
        if self.pieces.is_some() {
            self.write_pieces(case, clock)?;
            self.last = Some(clock.step);
            self.seconds += t.elapsed().as_secs_f64();
            return Ok(());
        }
        let fields = Arc::new(case.sim.fields(clock)?);
        if let Some(w) = &mut self.writer {
            let stem = self.dir.join(format!("step_{:07}", clock.step));
            w.submit(Frame {
                stem,
                time: clock.time,
                fields: fields.clone(),
            })?;
        }
        self.last = Some(clock.step);
        self.last_fields = Some((clock.step, fields));
        self.seconds += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Wait for the writer to finish every queued frame; its totals or its first error.
    fn finish_writer(&mut self) -> Result<WriterStats> {
        let t = Instant::now();
        let stats = match self.writer.take() {
            Some(w) => w.finish(),
            None => Ok(WriterStats::default()),
        };
        self.seconds += t.elapsed().as_secs_f64();
        stats
    }

    fn checkpoint(&mut self, case: &mut Case, clock: &Clock) -> Result<()> {
        // A checkpoint at step N promises every output up to N: a run killed after it and
        // restarted from it must not miss a frame that was still queued.
        if let Some(w) = &mut self.writer {
            w.flush()?;
        }
        let c = Checkpoint {
            clock: *clock,
            physics: case.physics(),
            state: case.sim.save_state()?,
        };
        if self.root {
            checkpoint::write(&self.checkpoint, &c, self.checkpoint_good)?;
        }
        self.checkpoint_good = true;
        self.last_checkpoint = Some(*clock);
        Ok(())
    }

    /// What a run that stopped at `clock` keeps, in words: its last checkpoint and output.
    fn kept(&self) -> String {
        let checkpoint = match self.last_checkpoint {
            Some(c) => format!(
                "its last good checkpoint is {} (step {}): continue from it with --restart",
                self.checkpoint.display(),
                c.step
            ),
            None => "no checkpoint was written (output.checkpoint_every keeps one)".into(),
        };
        let output = match self.last {
            Some(s) => format!("; the outputs up to step {s} are listed in {}", self.pvd.display()),
            None => String::new(),
        };
        checkpoint + &output
    }

    /// A failed write (a full disk, a lost folder) as the error that stops the run, saying
    /// what is kept.
    fn stopped(&self, e: SolverError, clock: &Clock) -> SolverError {
        match e {
            SolverError::Io { .. } | SolverError::Other(_) => SolverError::Stopped {
                step: clock.step,
                cause: Box::new(e),
                kept: self.kept(),
            },
            other => other,
        }
    }

    /// Stop the run with what is wrong where the state is not sound.
    fn check_health(&self, case: &mut Case, clock: &Clock) -> Result<()> {
        let Some(bad) = case.sim.health()? else {
            return Ok(());
        };
        let kept = match self.last {
            Some(s) => format!(" (step {s} in {})", self.pvd.display()),
            None => String::new(),
        };
        let kept = match self.last_checkpoint {
            Some(c) => format!(
                "{kept}, and the checkpoint of step {} in {}",
                c.step,
                self.checkpoint.display()
            ),
            None => kept,
        };
        Err(SolverError::Diverged {
            step: clock.step,
            time: clock.time,
            field: bad.field,
            what: bad.what,
            kept,
        })
    }

    /// Continue from the checkpoint, refusing one whose physics differs (naming the keys), and
    /// a damaged one naming the file (and the previous one where that reads well).
    fn restart(&mut self, case: &mut Case, doc: &CaseDoc, from: RestartFrom) -> Result<Clock> {
        let path = match from {
            RestartFrom::Latest => self.checkpoint.clone(),
            RestartFrom::Previous => checkpoint::previous(&self.checkpoint),
        };
        let c = match checkpoint::read(&path) {
            Ok(c) => c,
            Err(SolverError::Checkpoint { path, message }) if from == RestartFrom::Latest => {
                return Err(SolverError::Checkpoint {
                    message: message + &previous_hint(&path),
                    path,
                })
            }
            Err(e) => return Err(e),
        };
        let changed = checkpoint::changed_keys(&c.physics, &case.physics());
        if !changed.is_empty() {
            return Err(doc.error(
                "",
                format!(
                    "{} belongs to a run with other physics; changed: {}. Undo the change, or remove the checkpoint and run without --restart",
                    self.checkpoint.display(),
                    changed.join("; ")
                ),
            ));
        }
        case.sim.load_state(&c.state)?;
        // Restarted from the previous checkpoint, the latest is damaged: it is replaced, not kept.
        self.checkpoint_good = from == RestartFrom::Latest;
        self.last_checkpoint = Some(c.clock);
        Ok(c.clock)
    }
}

/// The advice after a damaged latest checkpoint `path`: the previous one, where it reads well.
fn previous_hint(path: &Path) -> String {
    let prev = checkpoint::previous(path);
    match checkpoint::read(&prev) {
        Ok(p) => format!(
            ". The checkpoint before it, {} (step {}, t = {:.6e}), reads well: continue from it with --restart=previous",
            prev.display(),
            p.clock.step,
            p.clock.time
        ),
        Err(_) => ". No earlier checkpoint reads well: run without --restart".into(),
    }
}

/// Remove the temporary files (`.tmp-*`) that a killed run left in its output folder: the
/// writes they belonged to never completed, and the files they would have replaced are whole.
fn remove_stale_temporaries(dir: &Path, quiet: bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let stale: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    let removed = stale.iter().filter(|p| std::fs::remove_file(p).is_ok()).count();
    if removed > 0 && !quiet {
        eprintln!(
            "removed {removed} temporary file(s) of an interrupted write from {}",
            dir.display()
        );
    }
}

fn progress(quiet: bool, case: &Case, start: &Clock) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = match case.schedule.total_steps() {
        Some(n) => ProgressBar::new(n),
        // Adaptive steps to an end time: the bar counts time in thousandths.
        None => ProgressBar::new(1000),
    };
    let t = "{bar:40} {pos}/{len} {msg}  {per_sec}  ETA {eta}";
    bar.set_style(ProgressStyle::with_template(t).unwrap());
    update_bar(&bar, case, start);
    bar
}

fn update_bar(bar: &ProgressBar, case: &Case, c: &Clock) {
    match (case.schedule.total_steps(), case.schedule.end_time) {
        (Some(_), _) => bar.set_position(c.step),
        (None, Some(t)) => {
            bar.set_position((1000.0 * c.time / t) as u64);
            bar.set_message(format!("(t/end, step {})", c.step));
        }
        (None, None) => {}
    }
}

/// The start-up and set-up of this process's run, for the summary's `timing`: seconds from
/// `main` to the device being ready, then the set-up's (wall, kernel loading).
static SETUP: Mutex<Option<(f64, f64, f64)>> = Mutex::new(None);

/// Run a case file whose family is among `families`; the summary.
pub fn run(doc: &CaseDoc, opts: &RunOptions, families: &[&'static dyn Family]) -> Result<serde_json::Value> {
    install_interrupt_handler();
    // Under mpirun, each rank of a machine takes its own devices.
    let device = doc.run.device + ranks::local_rank() * doc.run.gpus;
    let quiet = opts.quiet || !ranks::is_root();
    let setup = case::parse_setup(doc, families)?;
    // Memory is checked before anything is built; the CPU time of a fallback before any step.
    let (target, fell_back) = crate::backend::resolve(doc, &*setup, device, quiet)?;
    let startup = timing::since_start();
    let phase = timing::Phase::start();
    let mut case = Case::from_setup(setup, doc, target)?;
    if let Some(why) = fell_back {
        budget::check_cpu_time(&mut case, doc, &why, quiet)?;
    }
    let (wall, kernels) = phase.stop();
    *SETUP.lock().unwrap() = Some((startup, wall, kernels));
    run_case(case, doc, opts)
}

/// Run a prepared case to its end, writing into the output folder; the summary.
pub fn run_case(mut case: Case, doc: &CaseDoc, opts: &RunOptions) -> Result<serde_json::Value> {
    let name = doc.case_name();
    let mut out = Outputs::open(doc, opts, &name)?;
    let root = out.root;
    let quiet = opts.quiet || !root;
    if root {
        remove_stale_temporaries(&out.dir, quiet);
    }
    let pre = timing::Phase::start();
    let mut clock = Clock::default();
    if let Some(from) = opts.restart {
        clock = out.restart(&mut case, doc, from)?;
        if !quiet {
            eprintln!("restart: from step {} (t = {:.6e})", clock.step, clock.time);
        }
    }
    out.start(&mut case, doc, &clock, opts.restart.is_some())?;
    let (pre_wall, pre_kernels) = pre.stop();
    if opts.restart.is_none() {
        out.write(&mut case, &clock).map_err(|e| out.stopped(e, &clock))?;
    }
    install_interrupt_handler();
    let start = clock;
    // Only the outputs written inside the loop (and the wait for the writer) count against
    // its wall time.
    let initial_output_seconds = out.seconds;
    let kernels_before_loop = timing::kernel_load_seconds();
    let loop_start = Instant::now();
    let bar = progress(quiet, &case, &start);
    let initial_totals = case.sim.totals()?;
    let result = time_loop(&mut case, doc, &mut out, &mut clock, &bar, quiet);
    if result.is_err() {
        bar.abandon();
    }
    // Every queued frame is written before the run ends, also when it stops on an error or
    // an interrupt; an error of the writer (naming the file) comes first.
    let written = out.finish_writer();
    let interrupted = interruption(result)?;
    let written = written?;
    bar.finish_and_clear();
    let wall = loop_start.elapsed().as_secs_f64();
    let loop_kernels = timing::kernel_load_seconds() - kernels_before_loop;
    let loop_output = out.seconds - initial_output_seconds;
    let finish = timing::Phase::start();
    let last_fields = out
        .last_fields
        .take()
        .filter(|(step, _)| *step == clock.step)
        .map(|(_, f)| f);
    let mut summary = summarize(
        &mut case,
        doc,
        &name,
        &start,
        &clock,
        wall,
        loop_output,
        opts.restart.is_some(),
        last_fields,
        out.pieces.is_some(),
    )?;
    add_totals(&mut summary, &initial_totals, &case.sim.totals()?);
    if let Some(SolverError::Interrupted { step, .. }) = &interrupted {
        summary["stop_reason"] = json!(format!("interrupted at step {step} (continue with --restart)"));
        summary["interrupted_at_step"] = json!(step);
    }
    if !root {
        return interrupted.map_or(Ok(summary), Err);
    }
    let stepping = (wall - loop_output - loop_kernels).max(0.0);
    summary["timing"] = timing_json(pre_wall - pre_kernels, stepping, out.seconds, &written, &finish);
    output::write_text(
        &out.dir.join("summary.json"),
        &serde_json::to_string_pretty(&summary).unwrap(),
    )
    .map_err(|e| out.stopped(e, &clock))?;
    interrupted.map_or(Ok(summary), Err)
}

/// The time loop's outcome: an interrupt (it has written its checkpoint) is kept for after the
/// summary of the steps run so far (a long run stopped early keeps its statistics); any other
/// error stops the run here.
fn interruption(result: Result<()>) -> Result<Option<SolverError>> {
    match result {
        Err(e @ SolverError::Interrupted { .. }) => Ok(Some(e)),
        other => other.map(|()| None),
    }
}

/// summary.json's `timing`: the start-up and set-up recorded by [`run`], the run's own set-up
/// (`pre`, without kernel loads), its steps, its output, the writer's totals and the summary's
/// gathering since `finish` started; `total` is up to here (the process's exit follows).
fn timing_json(pre: f64, stepping: f64, output: f64, w: &WriterStats, finish: &timing::Phase) -> serde_json::Value {
    let (startup, setup_wall, setup_kernels) = SETUP.lock().unwrap().take().unwrap_or((0.0, 0.0, 0.0));
    let (modules, cached) = timing::kernel_modules();
    json!({
        "startup": startup,
        "kernel_load": timing::kernel_load_seconds(),
        "kernel_modules": modules,
        "kernel_modules_cached": cached,
        "setup": setup_wall - setup_kernels + pre,
        "stepping": stepping,
        "output": output,
        "output_writer_busy": w.busy_seconds,
        "output_frames": w.frames,
        "output_bytes": w.bytes,
        "finish": finish.stop().0,
        "total": timing::since_start(),
    })
}

/// The most steps a device runs between two looks of the host (progress, interrupts).
const BATCH_STEPS: u64 = 256;

fn time_loop(
    case: &mut Case,
    doc: &CaseDoc,
    out: &mut Outputs,
    clock: &mut Clock,
    bar: &ProgressBar,
    quiet: bool,
) -> Result<()> {
    let nan = faults::nan_at()?;
    while !case.schedule.done(clock) {
        let next = case.advance_batch(clock, batch_steps(doc, clock, nan.as_ref()))?;
        let converged = case.sim.converged();
        let is_output = case.schedule.is_output(clock, &next) || converged;
        *clock = next;
        if let Some(at) = nan.as_ref().filter(|a| a.step == clock.step) {
            faults::inject(case, at)?;
        }
        let interrupted = INTERRUPTED.load(Ordering::SeqCst);
        let every = doc.output.checkpoint_every;
        let checkpoint = interrupted || (every > 0 && clock.step.is_multiple_of(every));
        // Nothing unsound is written: outputs and checkpoints follow a health check.
        if is_output || checkpoint || clock.step.is_multiple_of(doc.time.check_every) {
            out.check_health(case, clock)?;
        }
        if is_output {
            out.write(case, clock).map_err(|e| out.stopped(e, clock))?;
            print_totals(case, clock, bar, quiet)?;
        }
        if checkpoint {
            out.checkpoint(case, clock).map_err(|e| out.stopped(e, clock))?;
            if interrupted {
                return Err(SolverError::Interrupted {
                    step: clock.step,
                    checkpoint: out.checkpoint.clone(),
                });
            }
        }
        update_bar(bar, case, clock);
        if converged {
            break;
        }
    }
    Ok(())
}

/// The most steps to the next step where the loop has work to do (output, health check,
/// checkpoint, an injected fault): batches on devices that find their own steps end there.
fn batch_steps(doc: &CaseDoc, clock: &Clock, nan: Option<&NanAt>) -> u64 {
    let fault = nan.filter(|a| a.step > clock.step).map(|a| a.step - clock.step);
    [doc.output.every, doc.time.check_every, doc.output.checkpoint_every]
        .into_iter()
        .filter(|&e| e > 0)
        .map(|e| e - clock.step % e)
        .chain(fault)
        .fold(BATCH_STEPS, u64::min)
}

/// The conserved totals at an output, above the progress bar (or plainly into a log).
fn print_totals(case: &mut Case, clock: &Clock, bar: &ProgressBar, quiet: bool) -> Result<()> {
    let totals = case.sim.totals()?;
    if totals.is_empty() || quiet {
        return Ok(());
    }
    let shown: Vec<String> = totals.iter().map(|(k, v)| format!("{k} {v:.12e}")).collect();
    let line = format!("t = {:.6e}: {}", clock.time, shown.join(", "));
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
    Ok(())
}

/// The conserved totals at the start of this run and at its end, and their relative change.
fn add_totals(summary: &mut serde_json::Value, initial: &[(String, f64)], end: &[(String, f64)]) {
    if end.is_empty() {
        return;
    }
    let entries: serde_json::Map<String, serde_json::Value> = initial
        .iter()
        .zip(end)
        .map(|((name, a), (_, b))| {
            let change = if *a != 0.0 { (b - a) / a } else { b - a };
            (name.clone(), json!({"start": a, "end": b, "relative_change": change}))
        })
        .collect();
    summary["totals"] = serde_json::Value::Object(entries);
}

#[allow(clippy::too_many_arguments)]
fn summarize(
    case: &mut Case,
    doc: &CaseDoc,
    name: &str,
    start: &Clock,
    end: &Clock,
    wall: f64,
    output_seconds: f64,
    restarted: bool,
    last_fields: Option<Arc<Vec<Field>>>,
    pieces: bool,
) -> Result<serde_json::Value> {
    let (backend, device) = case.target.describe();
    let steps_run = end.step - start.step;
    // The last output's fields when it was written at the end (no second download), else
    // gathered on rank 0; written in pieces, each process's own parts' (none holds the whole).
    let fields = match (last_fields, pieces) {
        (Some(f), _) => f,
        (None, false) => Arc::new(case.sim.fields(end)?),
        (None, true) => {
            let mine = case.sim.pieces(end)?.unwrap_or_default();
            let mut first = mine[0].fields[..1].to_vec();
            first[0].values = mine.iter().flat_map(|p| p.fields[0].values.iter().copied()).collect();
            Arc::new(first)
        }
    };
    let first = &fields[0];
    let updated = case.geometry.size(case.setup.centring());
    debug_assert_eq!(first.centring, case.setup.centring(), "Setup::centring");
    let compute = (wall - output_seconds).max(1e-12);
    let mut summary = json!({
        "case": name,
        "kind": doc.case.kind,
        "backend": backend,
        "device": device,
        "precision": case.precision.name(),
        "math": doc.run.math.name(),
        "kernel": case.sim.variant(),
        "cells": updated,
        "steps": end.step,
        "steps_this_run": steps_run,
        "dt": case.schedule.dt,
        "end_time": end.time,
        "wall_seconds": wall,
        "output_seconds": output_seconds,
        "throughput": updated as f64 * steps_run as f64 / compute,
        "throughput_unit": match first.centring { output::Centring::Point => "point-updates/s", output::Centring::Cell => "cell-updates/s" },
        "bytes_per_step_min": case.sim.bytes_per_step(),
        "restarted_from": if restarted { json!(start.step) } else { json!(null) },
    });
    let (lo, hi) = first.range();
    let (lo, hi) = match pieces {
        true => (-ranks::world().max(-lo), ranks::world().max(hi)),
        false => (lo, hi),
    };
    summary["final_min"] = json!(lo);
    summary["final_max"] = json!(hi);
    summary["ranks"] = json!(ranks::world().size());
    if let Some(blocks) = case.sim.decomposition() {
        summary["decomposition"] = json!(blocks);
    }
    // Only rank 0 holds the gathered fields.
    if !ranks::is_root() {
        return Ok(summary);
    }
    if pieces {
        summary["errors_skipped"] = json!("output.pieces: no process holds the whole field to compare");
    } else if let Some(exact) = case.setup.exact(end) {
        if let Some(f) = fields.iter().find(|f| f.name == exact.name) {
            let w = case.geometry.weights(f.centring);
            summary["errors"] = output::relative_errors(&f.values, &exact.values, w);
        }
    }
    if let (Some(s), Some(extra)) = (summary.as_object_mut(), case.setup.summary().as_object()) {
        s.extend(extra.clone());
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Target;
    use crate::framework::clock::{DtPolicy, Schedule};
    use crate::framework::{Setup, Simulation, Unhealthy};
    use crate::output::{Centring, Field, Geometry};

    /// A state whose stable step changes every step, as a wave speed would.
    struct Wavy {
        value: f64,
    }

    impl Simulation for Wavy {
        fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
            Ok(cfl * (0.011 + 0.003 * (self.value * 7.0).sin().abs()))
        }
        fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
            self.value += dt * (1.0 + clock.time);
            Ok(())
        }
        fn health(&mut self) -> Result<Option<Unhealthy>> {
            Ok(None)
        }
        fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
            Ok(vec![Field::scalar("u", Centring::Cell, vec![self.value; 2])])
        }
        fn save_state(&mut self) -> Result<Vec<u8>> {
            Ok(self.value.to_le_bytes().to_vec())
        }
        fn load_state(&mut self, b: &[u8]) -> Result<()> {
            self.value = f64::from_le_bytes(b.try_into().unwrap());
            Ok(())
        }
        fn bytes_per_step(&self) -> f64 {
            16.0
        }
        fn variant(&self) -> String {
            "wavy".into()
        }
    }

    struct WavySetup;

    impl Setup for WavySetup {
        fn physics(&self) -> toml::Table {
            toml::Table::new()
        }
        fn dt_policy(&self) -> DtPolicy {
            DtPolicy::Adaptive
        }
        fn geometry(&self) -> Geometry {
            Geometry::Image {
                points: [3, 2, 1],
                origin: [0.0; 3],
                spacing: [1.0; 3],
            }
        }
        fn build(&self, _: &Target, _: crate::framework::Precision) -> Result<Box<dyn Simulation>> {
            Ok(Box::new(Wavy { value: 0.0 }))
        }
    }

    /// An adaptive run to an end time with output intervals: the .pvd lists exactly the interval
    /// times and the end time, and a restart from a mid-run checkpoint ends bit-identically.
    #[test]
    fn adaptive_steps_write_outputs_at_their_exact_times_and_restart() {
        let dir = tempfile::tempdir().unwrap();
        let text = "[case]\nkind = \"wavy\"\n[time]\ncfl = 0.9\nend_time = 0.25\n[output]\ninterval = 0.05\n";
        let doc = CaseDoc::parse(text, &dir.path().join("wavy.toml"), &[]).unwrap();
        let case = |doc: &CaseDoc| Case {
            sim: WavySetup.build(&Target::Cpu, doc.run.precision).unwrap(),
            setup: Box::new(WavySetup),
            target: Target::Cpu,
            precision: doc.run.precision,
            schedule: Schedule::new(&doc.time, &doc.output, DtPolicy::Adaptive, None),
            geometry: WavySetup.geometry(),
        };
        let opts = |out: &str, restart: bool| RunOptions {
            case: "wavy.toml".into(),
            backend: None,
            set: vec![],
            output: Some(dir.path().join(out)),
            restart: restart.then_some(RestartFrom::Latest),
            quiet: true,
        };
        let full = run_case(case(&doc), &doc, &opts("full", false)).unwrap();
        let pvd = std::fs::read_to_string(dir.path().join("full/wavy.pvd")).unwrap();
        let times: Vec<f64> = pvd
            .lines()
            .filter_map(|l| l.split("timestep=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect();
        let want = [0.0, 0.05, 0.1, 0.15, 0.2, 0.25];
        assert_eq!(times.len(), want.len(), "{pvd}");
        for (t, w) in times.iter().zip(want) {
            assert!((t - w).abs() <= 1e-15, "output at {t}, wanted {w}: {pvd}");
        }
        assert_eq!(full["end_time"], 0.25);
        assert!(
            full["steps"].as_u64().unwrap() > 20,
            "the step varies and is cut: {full}"
        );

        // Stop at 0.1 with a checkpoint, then continue to 0.25.
        let half = CaseDoc::parse(
            &text.replace("0.25", "0.1"),
            &dir.path().join("wavy.toml"),
            &["output.checkpoint_every=1".into()],
        )
        .unwrap();
        run_case(case(&half), &half, &opts("part", false)).unwrap();
        let part = run_case(case(&doc), &doc, &opts("part", true)).unwrap();
        assert_eq!(part["steps"], full["steps"]);
        assert_eq!(part["final_max"], full["final_max"]);
    }
}
