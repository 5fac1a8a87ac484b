//! `solver bench [FAMILY|all]`: every family's benchmark specs on the device: seconds per step,
//! updates per second, the bytes a step must move at the least (the family's traffic model) and
//! their fraction of the copy bandwidth measured in the same run; optionally the CPU backend on
//! all threads and on one.

use super::specs;
use crate::backend::{cuda::Device, Target};
use crate::error::{Result, SolverError};
use crate::framework::case::Case;
use crate::framework::clock::Clock;
use crate::framework::config::{CaseDoc, Precision};
use crate::framework::family::{BenchSpec, Family, Sizes, SolverWork};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct BenchOptions {
    /// A family's name, or all; or `cg`, the CG micro-benchmark (`--sizes` of its Kuhn boxes,
    /// default 119, or `--mesh`; `--cpu` checks CPU vs CUDA on those matrices too).
    #[arg(default_value = "all")]
    pub family: String,
    /// Cube sizes (cells per axis) of the structured families, e.g. 128,256,512.
    #[arg(long, value_delimiter = ',')]
    pub sizes: Option<Vec<usize>>,
    /// Meshes of the unstructured families (default: Kuhn boxes of each benchmark's sizes).
    #[arg(long = "mesh", value_delimiter = ',')]
    pub meshes: Vec<PathBuf>,
    /// Only the benchmarks whose name contains this, e.g. "plm-rk3".
    #[arg(long)]
    pub only: Option<String>,
    #[arg(long, default_value_t = 20)]
    pub steps: u64,
    /// Timed runs of `steps` steps; the best counts.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    #[arg(long = "precision", value_delimiter = ',', value_enum, default_values_t = [Precision::F64, Precision::F32])]
    pub precisions: Vec<Precision>,
    /// Also time the CPU backend (all threads, and one thread up to --one-thread-max cells).
    #[arg(long)]
    pub cpu: bool,
    #[arg(long, default_value_t = 2_000_000)]
    pub one_thread_max: usize,
    /// Write the rows as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Devices per run (`run.gpus`) for families that decompose their grid; the copy bandwidth
    /// column is then that of all of them.
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// `bench cg`: write each matrix and right-hand side here (NAME.csr, for
    /// benchmarks/peers/cupy_cg.py).
    #[arg(long)]
    pub matrix_out: Option<PathBuf>,
    /// `bench cg`: the preconditioners to time: jacobi, amg (smoothed aggregation, f32 V-cycles
    /// on the device), amg-f64, chebyshevN (Chebyshev-Jacobi of degree N).
    #[arg(long = "precond", value_delimiter = ',', default_values_t = ["jacobi".to_string(), "amg".into(), "amg-f64".into()])]
    pub preconds: Vec<String>,
    /// Overrides for every benchmark run, as `solver run --set` takes them (e.g.
    /// `shallow-water.ghost_rows=2`).
    #[arg(long = "set")]
    pub sets: Vec<String>,
}

#[derive(Serialize)]
pub struct BenchRow {
    pub family: String,
    pub variant: String,
    pub size: String,
    pub precision: &'static str,
    pub updates_per_step: usize,
    pub seconds_per_step: f64,
    pub updates_per_s: f64,
    pub min_bytes_per_step: f64,
    pub fraction_of_copy_bandwidth: f64,
    pub cpu_updates_per_s: Option<f64>,
    pub cpu_one_thread_updates_per_s: Option<f64>,
    /// Families with linear solves: their iterations per step, seconds per iteration, share
    /// of the step, and the bytes an iteration moves (included in `min_bytes_per_step`) over
    /// the copy bandwidth, in the best timed run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver: Option<SolverRow>,
}

#[derive(Serialize, Clone, Copy)]
pub struct SolverRow {
    pub iterations_per_step: f64,
    pub seconds_per_iteration: f64,
    pub fraction_of_step: f64,
    pub bytes_per_iteration: f64,
    pub fraction_of_copy_bandwidth: f64,
}

/// The linear solves' work between two readings, as a row over `steps` steps of `seconds`.
fn solver_row(
    a: Option<SolverWork>,
    b: Option<SolverWork>,
    steps: u64,
    step_seconds: f64,
    copy_bw: f64,
) -> Option<SolverRow> {
    let (a, b) = (a?, b?);
    let its = (b.iterations - a.iterations) as f64;
    if its == 0.0 {
        return None;
    }
    let secs = (b.seconds - a.seconds) / its;
    let bytes = (b.bytes - a.bytes) / its;
    Some(SolverRow {
        iterations_per_step: its / steps.max(1) as f64,
        seconds_per_iteration: secs,
        fraction_of_step: secs * its / steps.max(1) as f64 / step_seconds,
        bytes_per_iteration: bytes,
        fraction_of_copy_bandwidth: bytes / secs / copy_bw,
    })
}

/// `solver bench`: the benchmarks of the families of `all` (the registry) that `opts` selects,
/// or the CG micro-benchmark (`solver bench cg`).
pub fn bench(opts: &BenchOptions, all: &[&'static dyn Family]) -> Result<()> {
    if opts.family == "cg" {
        return super::bench_cg::bench_cg(&super::bench_cg::CgBenchOptions {
            sizes: opts.sizes.as_deref(),
            meshes: &opts.meshes,
            reps: opts.reps,
            cpu: opts.cpu,
            json: opts.json.as_deref(),
            matrix_out: opts.matrix_out.as_deref(),
            preconds: &opts.preconds,
        });
    }
    let families = specs::select(&opts.family, all)?;
    let dev = Device::open(0)?;
    let copy_bw = dev.copy_bandwidth(1 << 30, 5)?;
    let scratch = tempfile::tempdir().map_err(|e| SolverError::io(std::env::temp_dir(), e))?;
    let device = format!("{} ({})", dev.name, dev.arch);
    println!(
        "device: {device}; measured copy bandwidth {:.1} GB/s; CPU: {}",
        copy_bw / 1e9,
        crate::backend::cpu_name()
    );
    print_header();
    let mut rows = vec![];
    for family in families {
        let wanted = |spec: &&BenchSpec| opts.only.as_ref().is_none_or(|o| spec.name.contains(o.as_str()));
        for spec in family.benches().iter().filter(wanted) {
            for (label, sets, mesh) in sizes(spec, opts, scratch.path())? {
                for &p in &opts.precisions {
                    let doc = specs::spec_doc(&[family], spec.template, &sets, mesh.as_deref(), p)?;
                    let row = measure(family, spec, &label, &doc, &dev, copy_bw * opts.gpus as f64, opts)?;
                    print_row(&row);
                    rows.push(row);
                }
            }
        }
    }
    if let Some(path) = &opts.json {
        let j = serde_json::json!({"device": device, "copy_bandwidth": copy_bw, "rows": rows});
        crate::output::write_text(path, &serde_json::to_string_pretty(&j).unwrap())?;
    }
    Ok(())
}

/// A spec at one size: (label, overrides, mesh).
type SizedSpec = (String, Vec<String>, Option<PathBuf>);

/// The spec at each size it runs at.
fn sizes(spec: &BenchSpec, opts: &BenchOptions, dir: &Path) -> Result<Vec<SizedSpec>> {
    let sets = |extra: Option<String>| {
        let mut s: Vec<String> = spec.sets.iter().map(|s| s.to_string()).collect();
        s.extend(extra);
        if opts.gpus > 1 {
            s.push(format!("run.gpus={}", opts.gpus));
        }
        s.extend(opts.sets.iter().cloned());
        s
    };
    Ok(match spec.sizes {
        Sizes::GridCubes(default) | Sizes::GridSquares(default) => {
            let cube = matches!(spec.sizes, Sizes::GridCubes(_));
            let dims = |n: usize| {
                if cube {
                    format!("[{n},{n},{n}]")
                } else {
                    format!("[{n},{n},1]")
                }
            };
            let label = |n: usize| if cube { format!("{n}^3") } else { format!("{n}^2") };
            let sizes = opts.sizes.as_deref().unwrap_or(default);
            sizes
                .iter()
                .map(|&n| (label(n), sets(Some(format!("grid.dims={}", dims(n)))), None))
                .collect()
        }
        Sizes::Meshes([]) if opts.meshes.is_empty() => {
            let own: Vec<String> = sets(None).into_iter().filter(|s| !s.contains("{mesh}")).collect();
            vec![("template mesh".to_string(), own, None)]
        }
        Sizes::Meshes(default) => {
            let meshes = if opts.meshes.is_empty() {
                default
                    .iter()
                    .map(|&n| specs::box_mesh(dir, n))
                    .collect::<Result<Vec<_>>>()?
            } else {
                opts.meshes.clone()
            };
            meshes
                .into_iter()
                .map(|m| {
                    let label = m
                        .file_name()
                        .map_or(m.display().to_string(), |f| f.to_string_lossy().into());
                    (label, sets(None), Some(m))
                })
                .collect()
        }
    })
}

/// What `time_steps` measures: seconds per step (best run), values updated per step, bytes a
/// step must move, and the linear solves' work over the best run (where the family has any).
type Timed = (f64, usize, f64, Option<(SolverWork, SolverWork)>);

/// Seconds per step of a case of `family` on a target: one warm-up step, then the best of `reps` runs of
/// `steps` steps; and the values updated per step and the bytes a step must move.
fn time_steps(doc: &CaseDoc, family: &'static dyn Family, target: Target, steps: u64, reps: usize) -> Result<Timed> {
    let mut case = Case::prepare(doc, &[family], target)?;
    let mut clock = case.advance(&Clock::default())?;
    case.sim.sync()?;
    let mut best = f64::INFINITY;
    let mut work = None;
    for _ in 0..reps {
        let before = case.sim.solver_work();
        let t = Instant::now();
        let end = clock.step + steps;
        while clock.step < end {
            if case.schedule.done(&clock) {
                return Err(SolverError::Other(format!(
                    "{}: the case ends after {} steps; ask for fewer (--steps, --reps)",
                    doc.case_name(),
                    clock.step
                )));
            }
            clock = case.advance_batch(&clock, end - clock.step)?;
        }
        case.sim.sync()?;
        let secs = t.elapsed().as_secs_f64() / steps as f64;
        if secs < best {
            best = secs;
            work = before.zip(case.sim.solver_work());
        }
    }
    // Not from the fields: gathering them would hold the whole grid on the host (105 GB at 1024^3).
    let updated = case.geometry.size(case.setup.centring());
    Ok((best, updated, case.sim.bytes_per_step(), work))
}

fn measure(
    family: &'static dyn Family,
    spec: &BenchSpec,
    size: &str,
    doc: &CaseDoc,
    dev: &std::sync::Arc<Device>,
    copy_bw: f64,
    opts: &BenchOptions,
) -> Result<BenchRow> {
    let (t, n, bytes, work) = time_steps(doc, family, Target::Cuda(dev.clone()), opts.steps, opts.reps)?;
    let solver = work.and_then(|(a, b)| solver_row(Some(a), Some(b), b.steps - a.steps, t, copy_bw));
    let mut row = BenchRow {
        family: family.name().into(),
        // `--set run.math="fast"` shows in the variant, so rows of both arithmetics read apart.
        variant: match doc.run.math {
            crate::framework::config::Math::Exact => spec.name.into(),
            m => format!("{} {}", spec.name, m.name()),
        },
        size: size.into(),
        precision: doc.run.precision.name(),
        updates_per_step: n,
        seconds_per_step: t,
        updates_per_s: n as f64 / t,
        min_bytes_per_step: bytes,
        fraction_of_copy_bandwidth: bytes / t / copy_bw,
        cpu_updates_per_s: None,
        cpu_one_thread_updates_per_s: None,
        solver,
    };
    if opts.cpu {
        let (tc, ..) = time_steps(doc, family, Target::Cpu, 1, 1)?;
        row.cpu_updates_per_s = Some(n as f64 / tc);
        if n <= opts.one_thread_max {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .map_err(|e| SolverError::Other(e.to_string()))?;
            let (t1, ..) = pool.install(|| time_steps(doc, family, Target::Cpu, 1, 1))?;
            row.cpu_one_thread_updates_per_s = Some(n as f64 / t1);
        }
    }
    Ok(row)
}

fn print_header() {
    println!(
        "{:<8} {:<16} {:<22} {:>5} {:>11} {:>11} {:>12} {:>9} {:>8} {:>11} {:>11} {:>8}",
        "family",
        "variant",
        "size",
        "prec",
        "updates",
        "s/step",
        "updates/s",
        "GB/s min",
        "of copy",
        "cpu all/s",
        "cpu 1t/s",
        "gpu/1t"
    );
}

fn print_row(r: &BenchRow) {
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.3e}"));
    let speedup = r
        .cpu_one_thread_updates_per_s
        .map_or("-".to_string(), |c| format!("{:.0}x", r.updates_per_s / c));
    println!(
        "{:<8} {:<16} {:<22} {:>5} {:>11} {:>11.4e} {:>12.4e} {:>9.1} {:>7.1}% {:>11} {:>11} {:>8}",
        r.family,
        r.variant,
        r.size,
        r.precision,
        r.updates_per_step,
        r.seconds_per_step,
        r.updates_per_s,
        r.min_bytes_per_step / r.seconds_per_step / 1e9,
        100.0 * r.fraction_of_copy_bandwidth,
        opt(r.cpu_updates_per_s),
        opt(r.cpu_one_thread_updates_per_s),
        speedup
    );
    if let Some(s) = &r.solver {
        println!(
            "{:<8} linear solves: {:.1} CG iterations/step, {:.3e} s/iteration ({:.0}% of the step), {:.1} MB/iteration = {:.1} GB/s, {:.1}% of copy",
            "",
            s.iterations_per_step,
            s.seconds_per_iteration,
            100.0 * s.fraction_of_step,
            s.bytes_per_iteration / 1e6,
            s.bytes_per_iteration / s.seconds_per_iteration / 1e9,
            100.0 * s.fraction_of_copy_bandwidth
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The solver line of a row: the work between two readings, per step and per iteration.
    #[test]
    fn solver_rows_divide_the_work_between_two_readings() {
        let a = SolverWork {
            steps: 1,
            iterations: 100,
            seconds: 1.0,
            bytes: 1e9,
        };
        let b = SolverWork {
            steps: 11,
            iterations: 1100,
            seconds: 3.0,
            bytes: 11e9,
        };
        let r = solver_row(Some(a), Some(b), 10, 0.25, 1e12).unwrap();
        assert_eq!(r.iterations_per_step, 100.0);
        assert!((r.seconds_per_iteration - 2e-3).abs() < 1e-15);
        assert!((r.fraction_of_step - 0.8).abs() < 1e-12);
        assert!((r.bytes_per_iteration - 1e7).abs() < 1e-6);
        assert!((r.fraction_of_copy_bandwidth - 5e-3).abs() < 1e-15);
        // No iterations (or a family without solves): no line.
        assert!(solver_row(Some(a), Some(a), 10, 0.25, 1e12).is_none());
        assert!(solver_row(None, Some(b), 10, 0.25, 1e12).is_none());
    }
}
