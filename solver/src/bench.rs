//! `solver bench heat` and `solver check heat`: throughput against the measured copy
//! bandwidth, and CPU-vs-CUDA agreement, on the thesis' benchmark cube.

use crate::backend::cuda::Device;
use crate::cases::heat::{cpu::CpuHeat, cuda::CudaHeat, HeatSetup};
use crate::config::{AxisBoundary, HeatInitial, HeatKernel};
use crate::error::Result;
use crate::real::Real;
use crate::structured::Grid3;
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

/// The benchmark cube at n^3 with the given kernel variant.
pub fn benchmark_setup(n: usize, kernel: HeatKernel) -> HeatSetup {
    let bc = [
        AxisBoundary::Periodic,
        AxisBoundary::Dirichlet([1.0, 1.0]),
        AxisBoundary::Periodic,
    ];
    HeatSetup {
        grid: Grid3::new([n; 3], [0.0; 3], [1.0; 3], &bc),
        alpha: 0.1,
        bc,
        initial: HeatInitial::SineProduct { modes: [1.0; 3] },
        kernel,
    }
}

pub struct BenchRow {
    pub variant: String,
    pub precision: &'static str,
    pub n: usize,
    pub steps: u64,
    pub seconds: f64,
    pub throughput: f64,
    pub bytes_per_step: f64,
    pub bandwidth: f64,
    pub fraction: f64,
}

impl BenchRow {
    pub fn json(&self) -> serde_json::Value {
        json!({"variant": self.variant, "precision": self.precision, "n": self.n, "steps": self.steps, "seconds": self.seconds,
               "point_updates_per_s": self.throughput, "min_bytes_per_step": self.bytes_per_step,
               "achieved_bytes_per_s": self.bandwidth, "fraction_of_copy_bandwidth": self.fraction})
    }
}

fn row(
    variant: &str,
    precision: &'static str,
    s: &HeatSetup,
    steps: u64,
    secs: f64,
    bytes: usize,
    copy_bw: f64,
) -> BenchRow {
    let bps = s.min_bytes_per_step(bytes);
    let bw = bps * steps as f64 / secs;
    BenchRow {
        variant: variant.into(),
        precision,
        n: s.grid.n[0],
        steps,
        seconds: secs,
        throughput: s.grid.points() as f64 * steps as f64 / secs,
        bytes_per_step: bps,
        bandwidth: bw,
        fraction: bw / copy_bw,
    }
}

/// Time `steps` RK3 steps of one CUDA variant (after a warm-up step), best of `reps`.
pub fn bench_cuda<T: Real>(
    dev: &Arc<Device>,
    n: usize,
    kernel: HeatKernel,
    steps: u64,
    reps: usize,
    copy_bw: f64,
) -> Result<BenchRow> {
    let s = benchmark_setup(n, kernel);
    let init = s.initial_field();
    let dt = s.dt_for_cfl(0.4);
    let mut sim = CudaHeat::<T>::new(s.clone(), dev.clone(), &init)?;
    sim.step(dt)?;
    dev.sync()?;
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..steps {
            sim.step(dt)?;
        }
        dev.sync()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    let variant = match kernel {
        HeatKernel::RegisterQueue => "cuda register-queue",
        HeatKernel::Naive => "cuda naive",
    };
    Ok(row(
        variant,
        precision_name::<T>(),
        &s,
        steps,
        best,
        std::mem::size_of::<T>(),
        copy_bw,
    ))
}

/// Time the CPU path (all rayon threads) for comparison.
pub fn bench_cpu<T: Real>(n: usize, steps: u64, copy_bw: f64) -> BenchRow {
    let s = benchmark_setup(n, HeatKernel::RegisterQueue);
    let dt = s.dt_for_cfl(0.4);
    let mut sim = CpuHeat::<T>::new(s.clone(), &s.initial_field());
    sim.step(dt);
    let t = Instant::now();
    for _ in 0..steps {
        sim.step(dt);
    }
    let label = format!("cpu {} threads", rayon::current_num_threads());
    let mut r = row(
        &label,
        precision_name::<T>(),
        &s,
        steps,
        t.elapsed().as_secs_f64(),
        std::mem::size_of::<T>(),
        copy_bw,
    );
    r.variant = label;
    r
}

pub fn precision_name<T: Real>() -> &'static str {
    if std::mem::size_of::<T>() == 4 {
        "f32"
    } else {
        "f64"
    }
}

/// CPU and CUDA after `steps` steps of the benchmark cube: max |cpu - cuda| / max |cpu|.
pub fn agreement<T: Real>(dev: &Arc<Device>, n: usize, kernel: HeatKernel, steps: u64) -> Result<f64> {
    let s = benchmark_setup(n, kernel);
    let init = s.initial_field();
    let dt = s.dt_for_cfl(0.4);
    let mut cpu = CpuHeat::<T>::new(s.clone(), &init);
    let mut gpu = CudaHeat::<T>::new(s, dev.clone(), &init)?;
    for _ in 0..steps {
        cpu.step(dt);
        gpu.step(dt)?;
    }
    let a = cpu.interior();
    let b = gpu.interior()?;
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.f64().abs()));
    let diff = a
        .iter()
        .zip(&b)
        .fold(0.0f64, |m, (x, y)| m.max((x.f64() - y.f64()).abs()));
    Ok(diff / scale)
}

pub fn print_table(copy_bw: f64, device: &str, rows: &[BenchRow]) {
    println!("device: {device}; measured copy bandwidth {:.1} GB/s", copy_bw / 1e9);
    println!(
        "{:<24} {:>5} {:>6} {:>6} {:>10} {:>16} {:>12} {:>10}",
        "variant", "prec", "n", "steps", "s", "points*steps/s", "GB/s (min)", "of copy"
    );
    for r in rows {
        println!(
            "{:<24} {:>5} {:>6} {:>6} {:>10.4} {:>16.4e} {:>12.1} {:>9.1}%",
            r.variant,
            r.precision,
            r.n,
            r.steps,
            r.seconds,
            r.throughput,
            r.bandwidth / 1e9,
            100.0 * r.fraction
        );
    }
}

// ---- Advection ------------------------------------------------------------------------------

use crate::cases::{self, Target};
use crate::config::CaseFile;
use std::path::Path;

/// The `advect-step` template on `mesh` with overrides (e.g. "advect.interpolation=linear").
pub fn advect_case(mesh: &Path, sets: &[String]) -> Result<CaseFile> {
    let mut all = vec![format!("mesh=\"{}\"", mesh.display())];
    all.extend_from_slice(sets);
    let text = crate::templates::get("advect-step").expect("template");
    crate::config::parse(text, Path::new("advect-step.toml"), &all)
}

/// Run `steps` steps of a case on a backend; the final field.
pub fn advect_run(case: &CaseFile, target: &Target, steps: u64) -> Result<Vec<f64>> {
    let mut p = cases::prepare(case, Path::new("advect-step.toml"), target)?;
    for _ in 0..steps {
        p.sim.step(p.dt)?;
    }
    Ok(p.sim.fields()?.remove(0).1)
}

/// Seconds per step of a case on a backend (after one warm-up step), the cell count and the
/// bytes a step must move at the least (the case's traffic model).
pub fn advect_time(
    case: &CaseFile,
    target: &Target,
    steps: u64,
    dev: Option<&Arc<Device>>,
) -> Result<(f64, usize, f64)> {
    let mut p = cases::prepare(case, Path::new("advect-step.toml"), target)?;
    p.sim.step(p.dt)?;
    if let Some(d) = dev {
        d.sync()?;
    }
    let t = Instant::now();
    for _ in 0..steps {
        p.sim.step(p.dt)?;
    }
    if let Some(d) = dev {
        d.sync()?;
    }
    Ok((
        t.elapsed().as_secs_f64() / steps as f64,
        p.layout.size(),
        p.min_bytes_per_step,
    ))
}
