//! `solver bench cg`: the linear-solver micro-benchmark. The finite-volume
//! two-point Poisson matrix of a tetrahedral mesh (a Kuhn box of n³ × 6 tetrahedra in Hilbert
//! order, `--sizes n`, default 119: 10.1 M unknowns; or each `--mesh`), Dirichlet on one patch
//! (`outlet`, else `xmin`, else the first), right-hand side the cell volumes (a unit source).
//! Preconditioners by `--precond` (default `jacobi,amg,amg-f64`; also `chebyshevN`): `amg`
//! is smoothed aggregation with f32 V-cycles on the device, `amg-f64` with f64 cycles.
//!
//! With a device: first a CPU-vs-CUDA check of every preconditioner on a small box (and on
//! every benchmark matrix with `--cpu`); then, per matrix and preconditioner, the host set-up
//! (AMG's hierarchy) and the upload, and a solve from x = 0 to 1e-8 (the best of `--reps`):
//! iterations, seconds per solve and per iteration, the bytes an iteration must move
//! (`CudaCg::bytes_per_iteration`) and their fraction of the copy bandwidth measured in the
//! same run; the plain SpMV alone too. Without a device (or with `--cpu`) the same rows on
//! the CPU. `--matrix-out DIR` writes each matrix and b for the peers
//! (benchmarks/peers/cupy_cg.py, pyamg_cg.py; `poisson::write_csr`).

use crate::backend::cuda::{self, Device};
use crate::error::{Result, SolverError};
use crate::numerics::linalg::amg::{CyclePrecision, HierarchyStats};
use crate::numerics::linalg::cuda::{agreement, Agreement};
use crate::numerics::linalg::poisson::{permute, two_point_laplacian, write_csr};
use crate::numerics::linalg::{solve_cg, AmgSettings, CgPreconditioner, CgReport, CgSettings, CsMat, CudaCg};
use meshtool::topology::Topology;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What `solver bench cg` takes of the bench options.
pub struct CgBenchOptions<'a> {
    pub sizes: Option<&'a [usize]>,
    pub meshes: &'a [PathBuf],
    pub reps: usize,
    pub cpu: bool,
    pub json: Option<&'a Path>,
    pub matrix_out: Option<&'a Path>,
    pub preconds: &'a [String],
}

/// A preconditioner of the benchmark, by name.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Choice {
    Jacobi,
    Chebyshev(usize),
    Amg(CyclePrecision),
}

impl Choice {
    fn parse(s: &str) -> Result<Choice> {
        match s {
            "jacobi" => Ok(Choice::Jacobi),
            "amg" => Ok(Choice::Amg(CyclePrecision::Mixed)),
            "amg-f64" => Ok(Choice::Amg(CyclePrecision::F64)),
            _ => match s.strip_prefix("chebyshev").and_then(|d| d.parse::<usize>().ok()) {
                Some(d) if d >= 1 => Ok(Choice::Chebyshev(d)),
                _ => Err(SolverError::config(
                    Path::new("solver bench cg"),
                    "--precond",
                    format!(
                        "{s}: unknown; give jacobi, amg (f32 cycles on the device), amg-f64 or chebyshevN (N >= 1)"
                    ),
                )),
            },
        }
    }

    /// The preconditioner of `a`, and its host set-up time.
    fn build(self, a: &CsMat<f64>) -> Result<(CgPreconditioner, f64)> {
        let t = Instant::now();
        let pre = match self {
            Choice::Jacobi => CgPreconditioner::Jacobi,
            Choice::Chebyshev(d) => CgPreconditioner::chebyshev(a, d),
            Choice::Amg(precision) => {
                let settings = AmgSettings {
                    precision,
                    ..Default::default()
                };
                CgPreconditioner::amg(a, &settings).map_err(|e| SolverError::Other(e.to_string()))?
            }
        };
        Ok((pre, t.elapsed().as_secs_f64()))
    }
}

#[derive(Serialize)]
struct CgRow {
    backend: &'static str,
    matrix: String,
    unknowns: usize,
    nnz: usize,
    preconditioner: String,
    layout: String,
    /// Host set-up of the preconditioner (AMG's hierarchy, Chebyshev's bounds), seconds.
    setup_seconds: f64,
    /// The device solver's construction (upload of the matrix and the hierarchy), seconds.
    upload_seconds: f64,
    iterations: usize,
    rel_residual: f64,
    seconds_per_solve: f64,
    seconds_per_iteration: f64,
    bytes_per_iteration: f64,
    fraction_of_copy_bandwidth: f64,
    spmv_seconds: f64,
    spmv_fraction_of_copy_bandwidth: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    hierarchy: Option<HierarchyStats>,
}

/// Relative tolerance of the benchmark's solves.
const BENCH_TOL: f64 = 1e-8;

pub fn bench_cg(opts: &CgBenchOptions) -> Result<()> {
    let choices = opts
        .preconds
        .iter()
        .map(|s| Choice::parse(s))
        .collect::<Result<Vec<_>>>()?;
    let dev = match cuda::list() {
        Ok(_) => Some(Device::open(0)?),
        Err(why) => {
            println!("no CUDA device ({why}): CPU rows only");
            None
        }
    };
    let mut copy_bw = f64::NAN;
    let mut device = "cpu".to_string();
    let mut ok = true;
    if let Some(dev) = &dev {
        copy_bw = dev.copy_bandwidth(1 << 30, 5)?;
        device = format!("{} ({})", dev.name, dev.arch);
        println!("device: {device}; measured copy bandwidth {:.1} GB/s", copy_bw / 1e9);
        let (a, b) = box_matrix(20)?;
        ok &= check(dev, &a, &b, "box20", &choices)?;
    }
    let mut rows = vec![];
    for (label, a, b) in matrices(opts)? {
        println!("matrix {label}: {} unknowns, {} nonzeros", a.rows(), a.nnz());
        if let Some(dir) = opts.matrix_out {
            let path = dir.join(format!("{label}.csr"));
            std::fs::create_dir_all(dir).map_err(|e| SolverError::io(dir, e))?;
            write_csr(&path, &a, &b).map_err(|e| SolverError::io(&path, e))?;
            println!("wrote {}", path.display());
        }
        if let (Some(dev), true) = (&dev, opts.cpu) {
            ok &= check(dev, &a, &b, &label, &choices)?;
        }
        print_header();
        for &choice in &choices {
            let (pre, setup) = choice.build(&a)?;
            if let Some(h) = pre.hierarchy() {
                println!("  amg hierarchy: {}", h.stats().line());
            }
            if let Some(dev) = &dev {
                let row = measure(dev, &label, &a, &b, &pre, setup, opts.reps, copy_bw)?;
                print_row(&row);
                rows.push(row);
            }
            if dev.is_none() || opts.cpu {
                let row = measure_cpu(&label, &a, &b, &pre, setup, opts.reps)?;
                print_row(&row);
                rows.push(row);
            }
        }
    }
    if let Some(path) = opts.json {
        let j = serde_json::json!({"device": device, "copy_bandwidth": copy_bw, "rows": rows});
        crate::output::write_text(path, &serde_json::to_string_pretty(&j).unwrap())?;
    }
    if !ok {
        return Err(SolverError::Other(
            "CG check: CPU and CUDA disagree (FAIL lines above)".into(),
        ));
    }
    Ok(())
}

/// A benchmark matrix: (label, A, b).
type Labelled = (String, CsMat<f64>, Vec<f64>);

/// The benchmark's matrices.
fn matrices(opts: &CgBenchOptions) -> Result<Vec<Labelled>> {
    if !opts.meshes.is_empty() {
        return opts
            .meshes
            .iter()
            .map(|m| {
                let mesh = meshtool::pmesh::PreparedMesh::read(m)?;
                mesh.refuse_periodic("the CG benchmark")?;
                let patch = ["outlet", "xmin"].iter().find_map(|p| mesh.patch_index(p)).unwrap_or(0);
                let (a, b) = mesh_matrix(&mesh.nodes, &mesh.topo, patch);
                let label = m
                    .file_stem()
                    .map_or("mesh".into(), |s| s.to_string_lossy().into_owned());
                Ok((label, a, b))
            })
            .collect();
    }
    opts.sizes
        .unwrap_or(&[119])
        .iter()
        .map(|&n| {
            let (a, b) = box_matrix(n)?;
            Ok((format!("box{n}"), a, b))
        })
        .collect()
}

/// The two-point matrix with Dirichlet on `patch`, and b = the cell volumes.
fn mesh_matrix(nodes: &[[f64; 3]], topo: &Topology, patch: usize) -> (CsMat<f64>, Vec<f64>) {
    let mut dirichlet = vec![false; patch + 1];
    dirichlet[patch] = true;
    (two_point_laplacian(nodes, topo, &dirichlet), topo.volumes.clone())
}

/// The Kuhn box of n³ × 6 tetrahedra on the unit cube, in Hilbert order (as `meshtool
/// generate box` orders it), Dirichlet on xmin; built in memory (no dual tables).
pub fn box_matrix(n: usize) -> Result<(CsMat<f64>, Vec<f64>)> {
    use meshtool::generate::cartesian_box::{generate, BoxSpec};
    let raw = generate(&BoxSpec {
        dims: [n; 3],
        lo: [0.0; 3],
        hi: [1.0; 3],
    })?;
    let topo = meshtool::topology::build(&raw)?;
    let (a, b) = mesh_matrix(&raw.nodes, &topo, 0);
    let order = meshtool::reorder::cell_order(meshtool::reorder::Reorder::Hilbert, &topo.neighbours, &topo.centroids);
    let b = order.iter().map(|&o| b[o as usize]).collect();
    Ok((permute(&a, &order), b))
}

fn bench_settings() -> CgSettings {
    CgSettings {
        rel_tol: BENCH_TOL,
        max_iter: 50_000,
        keep_history: false,
    }
}

/// A device solve to 1e-8 from x = 0: one to warm up, the best of `reps` timed.
#[allow(clippy::too_many_arguments)]
fn measure(
    dev: &Arc<Device>,
    label: &str,
    a: &CsMat<f64>,
    b: &[f64],
    pre: &CgPreconditioner,
    setup: f64,
    reps: usize,
    copy_bw: f64,
) -> Result<CgRow> {
    let settings = bench_settings();
    let t = Instant::now();
    let mut cg = CudaCg::new(dev, a, pre.clone(), settings.clone())?;
    dev.sync()?;
    let upload = t.elapsed().as_secs_f64();
    let bd = dev.upload(b)?;
    let mut x = dev.zeros::<f64>(a.rows())?;
    let mut best = f64::INFINITY;
    let mut rep = CgReport::default();
    for _ in 0..reps.max(1) + 1 {
        dev.stream.memset_zeros(&mut x)?;
        dev.sync()?;
        let t = Instant::now();
        rep = cg.solve(&bd, &mut x)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    if let Some(w) = rep.warning(&settings) {
        eprintln!("warning: {label} {}: {w}", cg.name());
    }
    let spmv = cg.spmv_seconds(reps.max(3))?;
    let mut row = CgRow::new("cuda", label, a, pre, cg.name(), &rep, best, cg.bytes_per_iteration());
    row.layout = cg.layout();
    row.setup_seconds = setup;
    row.upload_seconds = upload;
    row.fraction_of_copy_bandwidth = row.bytes_per_iteration / row.seconds_per_iteration / copy_bw;
    row.spmv_seconds = spmv;
    row.spmv_fraction_of_copy_bandwidth = cg.spmv_bytes() / spmv / copy_bw;
    Ok(row)
}

impl CgRow {
    /// A row of one solve: what both backends fill alike (the device's own columns NaN).
    #[allow(clippy::too_many_arguments)]
    fn new(
        backend: &'static str,
        label: &str,
        a: &CsMat<f64>,
        pre: &CgPreconditioner,
        name: String,
        rep: &CgReport,
        seconds: f64,
        bytes_per_iteration: f64,
    ) -> CgRow {
        CgRow {
            backend,
            matrix: label.into(),
            unknowns: a.rows(),
            nnz: a.nnz(),
            preconditioner: name,
            layout: "csr".into(),
            setup_seconds: 0.0,
            upload_seconds: 0.0,
            iterations: rep.iterations,
            rel_residual: rep.rel_residual,
            seconds_per_solve: seconds,
            seconds_per_iteration: seconds / rep.iterations.max(1) as f64,
            bytes_per_iteration,
            fraction_of_copy_bandwidth: f64::NAN,
            spmv_seconds: f64::NAN,
            spmv_fraction_of_copy_bandwidth: f64::NAN,
            hierarchy: pre.hierarchy().map(|h| h.stats()),
        }
    }
}

/// The same solve on the CPU (all threads), the best of `reps`.
fn measure_cpu(
    label: &str,
    a: &CsMat<f64>,
    b: &[f64],
    pre: &CgPreconditioner,
    setup: f64,
    reps: usize,
) -> Result<CgRow> {
    let settings = bench_settings();
    let m = pre.on_cpu(a);
    let mut best = f64::INFINITY;
    let mut rep = CgReport::default();
    for _ in 0..reps.max(1) {
        let mut x = vec![0.0; a.rows()];
        let t = Instant::now();
        rep = solve_cg(a, b, &mut x, &*m, &settings);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut row = CgRow::new(
        "cpu",
        label,
        a,
        pre,
        pre.name(),
        &rep,
        best,
        pre.cpu_bytes_per_iteration(a),
    );
    row.setup_seconds = setup;
    Ok(row)
}

/// CPU vs CUDA for every preconditioner (`linalg::cuda::agreement`); one line each.
fn check(dev: &Arc<Device>, a: &CsMat<f64>, b: &[f64], label: &str, choices: &[Choice]) -> Result<bool> {
    let mut ok = true;
    for &choice in choices {
        let (pre, _) = choice.build(a)?;
        let r = agreement(dev, a, b, &pre)?;
        ok &= r.pass;
        println!(
            "{} check cg {label} {}: cpu {} its ({:.3e} s/it), cuda {} its, max|x_cuda - x_cpu| / max|x_cpu| = {:.2e} (tolerance {:.0e}, both to {:.0e})",
            if r.pass { "PASS" } else { "FAIL" },
            r.name,
            r.cpu_iterations,
            r.cpu_seconds_per_iteration,
            r.cuda_iterations,
            r.difference,
            Agreement::AGREE,
            Agreement::CHECK_TOL,
        );
    }
    Ok(ok)
}

fn print_header() {
    println!(
        "{:<4} {:<10} {:>10} {:<10} {:<5} {:>8} {:>8} {:>5} {:>10} {:>11} {:>9} {:>8} {:>8} {:>11}",
        "",
        "matrix",
        "unknowns",
        "precond",
        "fmt",
        "setup s",
        "upload s",
        "its",
        "s/solve",
        "s/iter",
        "MB/iter",
        "GB/s",
        "of copy",
        "spmv s"
    );
}

fn print_row(r: &CgRow) {
    println!(
        "{:<4} {:<10} {:>10} {:<10} {:<5} {:>8.3} {:>8.3} {:>5} {:>10.4e} {:>11.4e} {:>9.1} {:>8.1} {:>7.1}% {:>11.4e}",
        r.backend,
        r.matrix,
        r.unknowns,
        r.preconditioner,
        r.layout,
        r.setup_seconds,
        r.upload_seconds,
        r.iterations,
        r.seconds_per_solve,
        r.seconds_per_iteration,
        r.bytes_per_iteration / 1e6,
        r.bytes_per_iteration / r.seconds_per_iteration / 1e9,
        100.0 * r.fraction_of_copy_bandwidth,
        r.spmv_seconds,
    );
}
