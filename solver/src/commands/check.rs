//! `solver check [FAMILY|all]`: every family's CPU-vs-CUDA agreement specs on the device,
//! both precisions, one table; exit 1 if any row is beyond its tolerance.

use super::specs::{self, Stepped};
use crate::backend::{cuda::Device, Target};
use crate::error::{Result, SolverError};
use crate::framework::config::Precision;
use crate::framework::family::{CheckSpec, Family, SpecContext};
use crate::output::max_relative_difference;
use std::path::PathBuf;

/// The rows every family relies on: two streams ordered by an event, and the shared
/// structured-grid halo fill for every condition (the families use a few of them). The failures.
fn shared_rows(dev: &std::sync::Arc<Device>) -> Result<usize> {
    let mut failed = 0;
    let ordered = dev.streams_ordered()?;
    failed += !ordered as usize;
    let status = if ordered { "PASS" } else { "FAIL" };
    println!(
        "{:<34} {:>5} {:>6} {:>14} {:>10} {:>10} {:>10} {status:>6}",
        "backend: event orders two streams", "f64", "-", "-", "-", "-", "-"
    );
    for (name, diff) in crate::grid::cuda::agreement(dev)? {
        let ok = diff == 0.0;
        failed += !ok as usize;
        let status = if ok { "PASS" } else { "FAIL" };
        println!(
            "{:<34} {:>5} {:>6} {diff:>14.3e} {:>10} {:>10} {:>10} {status:>6}",
            format!("grid halo: {name}"),
            "f64",
            "-",
            0,
            "-",
            "-"
        );
    }
    Ok(failed)
}

/// CG with each preconditioner on CPU and CUDA (`linalg::cuda::agreement`): one row each, the
/// failures counted.
fn linear_solver_rows(dev: &std::sync::Arc<Device>) -> Result<usize> {
    use crate::numerics::linalg::amg::CyclePrecision;
    use crate::numerics::linalg::cuda::{agreement, Agreement};
    use crate::numerics::linalg::{AmgSettings, CgPreconditioner};
    let (a, b) = super::bench_cg::box_matrix(16)?;
    let amg = |precision| {
        let settings = AmgSettings {
            max_coarse: 100,
            precision,
            ..Default::default()
        };
        CgPreconditioner::amg(&a, &settings).map_err(|e| SolverError::Other(e.to_string()))
    };
    let pres = [
        CgPreconditioner::Jacobi,
        CgPreconditioner::chebyshev(&a, 4),
        amg(CyclePrecision::F64)?,
        amg(CyclePrecision::Mixed)?,
    ];
    let mut failed = 0;
    for pre in &pres {
        let r = agreement(dev, &a, &b, pre)?;
        failed += !r.pass as usize;
        println!(
            "{:<34} {:>5} {:>6} {:>14.3e} {:>10.0e} {:>10} {:>10} {:>6}",
            format!(
                "cg {}: box16 ({} / {} its)",
                r.name, r.cpu_iterations, r.cuda_iterations
            ),
            "f64",
            "-",
            r.difference,
            Agreement::AGREE,
            "-",
            "-",
            if r.pass { "PASS" } else { "FAIL" }
        );
    }
    Ok(failed)
}

#[derive(clap::Args)]
pub struct CheckOptions {
    /// A family's name [default: all].
    pub family: Option<String>,
    /// The mesh of the unstructured families (default: a generated 16^3 Kuhn box).
    #[arg(long)]
    pub mesh: Option<PathBuf>,
    /// Steps instead of each check's own.
    #[arg(long)]
    pub steps: Option<u64>,
}

/// `solver check`: the checks of the families of `all` (the registry) that `opts` selects.
pub fn check(opts: &CheckOptions, all: &[&'static dyn Family]) -> Result<()> {
    let families = specs::select(opts.family.as_deref().unwrap_or("all"), all)?;
    let dev = Device::open(0)?;
    let scratch = tempfile::tempdir().map_err(|e| SolverError::io(std::env::temp_dir(), e))?;
    let mesh = match &opts.mesh {
        Some(m) => m.clone(),
        None => specs::box_mesh(scratch.path(), 16)?,
    };
    let ctx = SpecContext {
        dir: scratch.path(),
        mesh: Some(&mesh),
    };
    println!(
        "CPU vs CUDA on {} ({}); mesh for unstructured families: {}",
        dev.name,
        dev.arch,
        mesh.display()
    );
    println!(
        "{:<34} {:>5} {:>6} {:>14} {:>10} {:>10} {:>10} {:>6}",
        "family: check", "prec", "steps", "max rel diff", "tolerance", "L1 cpu", "L1 cuda", ""
    );
    let mut failed = shared_rows(&dev)?;
    // The linear solvers the implicit families use, every preconditioner, on a 16^3 x 6 box.
    if opts.family.as_deref().is_none_or(|f| f == "all") {
        failed += linear_solver_rows(&dev)?;
    }
    for family in families {
        for spec in family.checks() {
            for (precision, tol) in [(Precision::F64, spec.tolerance[0]), (Precision::F32, spec.tolerance[1])] {
                if tol.is_nan() {
                    println!(
                        "{:<34} {:>5} {:>6} {:>14} {:>10} {:>10} {:>10} {:>6}",
                        format!("{}: {}", family.name(), spec.name),
                        precision.name(),
                        "-",
                        "refused",
                        "-",
                        "-",
                        "-",
                        "n/a"
                    );
                    continue;
                }
                failed += !row(family, spec, precision, tol, &ctx, &dev, opts)? as usize;
            }
            if spec.restart {
                failed += !restart_row(family, spec, &ctx, &dev, opts)? as usize;
            }
        }
    }
    if failed > 0 {
        return Err(SolverError::Other(format!(
            "{failed} CPU-vs-CUDA checks beyond tolerance"
        )));
    }
    Ok(())
}

/// One row: the spec in one precision on both backends; whether it passed.
fn row(
    family: &'static dyn Family,
    spec: &CheckSpec,
    precision: Precision,
    tol: f64,
    ctx: &SpecContext,
    dev: &std::sync::Arc<Device>,
    opts: &CheckOptions,
) -> Result<bool> {
    let mut sets: Vec<String> = spec.sets.iter().map(|s| s.to_string()).collect();
    if let Some(extra) = spec.extra {
        sets.extend(extra(ctx)?);
    }
    let steps = opts.steps.unwrap_or(spec.steps);
    let doc = specs::spec_doc(&[family], spec.template, &sets, ctx.mesh, precision)?;
    let mut cpu = Stepped::run(&doc, &[family], Target::Cpu, steps)?;
    let mut gpu = Stepped::run(&doc, &[family], Target::Cuda(dev.clone()), steps)?;
    let diff = fields_difference(&mut cpu, &mut gpu)?;
    let (sc, sg) = (cpu.case.setup.summary(), gpu.case.setup.summary());
    let mut ok = diff <= tol;
    for key in spec.scalars {
        let (a, b) = (sc[*key].as_f64(), sg[*key].as_f64());
        let d = match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() / a.abs().max(f64::MIN_POSITIVE),
            _ => f64::NAN,
        };
        let pass = d <= tol;
        ok &= pass;
        println!(
            "{:<34} {:>5} {:>6} {d:>14.3e} {tol:>10.0e} {:>10} {:>10} {:>6}",
            format!("{}: {} {key}", family.name(), spec.name),
            precision.name(),
            cpu.clock.step,
            a.map_or("-".into(), |v| format!("{v:.5}")),
            b.map_or("-".into(), |v| format!("{v:.5}")),
            if pass { "PASS" } else { "FAIL" }
        );
    }
    ok &= diff <= tol;
    let l1 = |v: Option<f64>| v.map_or("-".to_string(), |e| format!("{e:.4}"));
    let ran = cpu.clock.step;
    println!(
        "{:<34} {:>5} {:>6} {:>14.3e} {:>10.0e} {:>10} {:>10} {:>6}",
        format!("{}: {}", family.name(), spec.name),
        precision.name(),
        ran,
        diff,
        tol,
        l1(cpu.l1()?),
        l1(gpu.l1()?),
        if diff <= tol { "PASS" } else { "FAIL" }
    );
    Ok(ok)
}

/// The largest max |a - b| / max |a| over the fields of two runs.
fn fields_difference(a: &mut Stepped, b: &mut Stepped) -> Result<f64> {
    let (a, b) = (a.fields()?, b.fields()?);
    Ok(a.iter()
        .zip(&b)
        .map(|(x, y)| max_relative_difference(&x.values, &y.values))
        .fold(0.0f64, f64::max))
}

/// CUDA, the spec's steps at once and in two halves with the state saved and loaded into a
/// new case between them: the fields must be the same bits. Whether it passed.
fn restart_row(
    family: &'static dyn Family,
    spec: &CheckSpec,
    ctx: &SpecContext,
    dev: &std::sync::Arc<Device>,
    opts: &CheckOptions,
) -> Result<bool> {
    let precision = if spec.tolerance[0].is_nan() {
        Precision::F32
    } else {
        Precision::F64
    };
    let mut sets: Vec<String> = spec.sets.iter().map(|s| s.to_string()).collect();
    if let Some(extra) = spec.extra {
        sets.extend(extra(ctx)?);
    }
    let steps = opts.steps.unwrap_or(spec.steps);
    let doc = specs::spec_doc(&[family], spec.template, &sets, ctx.mesh, precision)?;
    let target = Target::Cuda(dev.clone());
    let mut whole = Stepped::run(&doc, &[family], target.clone(), steps)?;
    let mut half = Stepped::run(&doc, &[family], target.clone(), steps / 2)?;
    let state = half.case.sim.save_state()?;
    let mut resumed = Stepped {
        case: crate::framework::case::Case::prepare(&doc, &[family], target)?,
        clock: half.clock,
    };
    resumed.case.sim.load_state(&state)?;
    resumed.advance_to(whole.clock.step)?;
    let (a, b) = (whole.fields()?, resumed.fields()?);
    let same = a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| x.values.iter().zip(&y.values).all(|(u, v)| u.to_bits() == v.to_bits()));
    let diff = fields_difference(&mut whole, &mut resumed)?;
    println!(
        "{:<34} {:>5} {:>6} {diff:>14.3e} {:>10} {:>10} {:>10} {:>6}",
        format!("{}: {} restart (cuda)", family.name(), spec.name),
        precision.name(),
        format!("{}+{}", half.clock.step, whole.clock.step - half.clock.step),
        "bits",
        "-",
        "-",
        if same { "PASS" } else { "FAIL" }
    );
    Ok(same)
}
