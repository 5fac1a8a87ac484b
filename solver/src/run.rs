//! The one time loop every case uses: fixed dt (from CFL or given), output cadence,
//! progress bar, NaN/Inf guard, checkpoints (every N steps and on Ctrl-C), restart.

use crate::cases::{self, Prepared, Target};
use crate::config::CaseFile;
use crate::error::{Result, SolverError};
use crate::output::{self, checkpoint, pvd::Series};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Install the Ctrl-C handler once: the loop then checkpoints and stops cleanly.
pub fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    });
}

pub struct RunOptions {
    pub output: Option<PathBuf>,
    pub restart: bool,
    pub quiet: bool,
}

pub fn case_name(case: &CaseFile, case_path: &Path) -> String {
    case.case.name.clone().unwrap_or_else(|| {
        case_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or("case".into())
    })
}

/// What must match between a checkpoint and the run that continues it.
fn fingerprint(case: &CaseFile, p: &Prepared) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(
        format!(
            "{:?}{:?}{:?}{:?}{:?}{:?}",
            case.case.kind, case.grid, case.heat, case.advect, case.mesh, case.run.precision
        )
        .as_bytes(),
    );
    h.update(&p.dt.to_le_bytes());
    h.update(p.backend.as_bytes());
    h.finalize()
}

pub fn run(case: &CaseFile, case_path: &Path, opts: &RunOptions) -> Result<serde_json::Value> {
    let target = Target::resolve(case.run.backend, case.run.device, opts.quiet)?;
    let mut p = cases::prepare(case, case_path, &target)?;
    let name = case_name(case, case_path);
    let dir = opts
        .output
        .clone()
        .or_else(|| case.output.dir.clone())
        .unwrap_or_else(|| PathBuf::from("out").join(&name));
    std::fs::create_dir_all(&dir).map_err(|e| SolverError::io(&dir, e))?;
    let ckpt_path = dir.join("checkpoint.bin");
    let pvd_path = dir.join(format!("{name}.pvd"));
    let fp = fingerprint(case, &p);
    let dt = p.dt;

    let mut first_step = 0;
    let mut series = Series::new(&pvd_path);
    if opts.restart {
        let c = checkpoint::read(&ckpt_path)?;
        if c.fingerprint != fp {
            return Err(SolverError::config(case_path, "", format!(
                "{} belongs to a different run (grid, physics, precision, dt or backend differ); remove it or run without --restart",
                ckpt_path.display()
            )));
        }
        p.sim.load_state(&c.state)?;
        first_step = c.step;
        series = Series::reopen(&pvd_path, c.time);
        if !opts.quiet {
            eprintln!("restart: from step {} (t = {:.6e})", c.step, c.time);
        }
    }
    install_interrupt_handler();

    let every = case.output.every;
    let mut last_output = None;
    let layout = &p.layout;
    let write_output = |sim: &mut Box<dyn cases::Simulation>, step: u64, series: &mut Series| -> Result<()> {
        let file = output::write_fields(&dir.join(format!("step_{step:07}")), layout, &sim.fields()?)?;
        series.add(step as f64 * dt, &file)
    };
    let mut output_seconds = 0.0;
    if first_step == 0 {
        let t = Instant::now();
        write_output(&mut p.sim, 0, &mut series)?;
        last_output = Some(0);
        output_seconds += t.elapsed().as_secs_f64();
    }

    let bar = if opts.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(p.steps)
    };
    bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {per_sec}  ETA {eta}  {msg}").unwrap());
    bar.set_position(first_step);
    let loop_start = Instant::now();
    for step in first_step + 1..=p.steps {
        p.sim.step(dt)?;
        let is_output = step == p.steps || (every > 0 && step % every == 0);
        if is_output || step % case.time.check_every == 0 {
            let m = p.sim.max_abs()?;
            if !m.is_finite() || m > 1e100 {
                bar.abandon();
                let kept = match last_output {
                    Some(s) => format!(" (step {s} in {})", pvd_path.display()),
                    None => String::new(),
                };
                let field = p
                    .sim
                    .fields()
                    .ok()
                    .and_then(|f| f.into_iter().next())
                    .map_or("field".into(), |f| f.0);
                return Err(SolverError::Diverged {
                    step,
                    time: step as f64 * dt,
                    field,
                    value: m,
                    kept,
                });
            }
        }
        if is_output {
            let t = Instant::now();
            write_output(&mut p.sim, step, &mut series)?;
            last_output = Some(step);
            output_seconds += t.elapsed().as_secs_f64();
        }
        let interrupted = INTERRUPTED.load(Ordering::SeqCst);
        if interrupted || (case.output.checkpoint_every > 0 && step % case.output.checkpoint_every == 0) {
            let state = p.sim.save_state()?;
            checkpoint::write(
                &ckpt_path,
                &checkpoint::Checkpoint {
                    step,
                    time: step as f64 * dt,
                    fingerprint: fp,
                    state,
                },
            )?;
            if interrupted {
                bar.abandon();
                return Err(SolverError::Interrupted {
                    step,
                    checkpoint: ckpt_path,
                });
            }
        }
        bar.set_position(step);
    }
    bar.finish_and_clear();
    let wall = loop_start.elapsed().as_secs_f64();
    let compute = (wall - output_seconds).max(1e-12);
    let steps_run = p.steps - first_step;
    let points = p.layout.size();
    let t_end = p.steps as f64 * dt;

    let mut summary = json!({
        "case": name,
        "kind": case.case.kind,
        "backend": p.backend,
        "device": p.device,
        "precision": case.run.precision.name(),
        "kernel": p.variant,
        "cells": points,
        "grid": match &p.layout { cases::Layout::Structured(g) => json!(g.n), cases::Layout::Tets(_) => json!(null) },
        "steps": p.steps,
        "steps_this_run": steps_run,
        "dt": dt,
        "end_time": t_end,
        "wall_seconds": wall,
        "output_seconds": output_seconds,
        "throughput": points as f64 * steps_run as f64 / compute,
        "throughput_unit": match &p.layout { cases::Layout::Structured(_) => "point-updates/s", cases::Layout::Tets(_) => "cell-updates/s" },
        "bytes_per_step_min": p.min_bytes_per_step,
        "restarted_from": if opts.restart { json!(first_step) } else { json!(null) },
    });
    let fields = p.sim.fields()?;
    let (lo, hi) = fields[0]
        .1
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    summary["final_min"] = json!(lo);
    summary["final_max"] = json!(hi);
    if let Some(exact) = p.reference.as_ref().and_then(|r| r(t_end)) {
        summary["errors"] = output::relative_errors(&fields[0].1, &exact, p.weights.as_deref());
    }
    if let (Some(s), Some(extra)) = (summary.as_object_mut(), p.extra.as_object()) {
        s.extend(extra.clone());
    }
    output::write_text(
        &dir.join("summary.json"),
        &serde_json::to_string_pretty(&summary).unwrap(),
    )?;
    Ok(summary)
}
