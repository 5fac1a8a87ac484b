//! `solver`: run cases on the GPU or CPU, list templates and devices, benchmark.
//! Exit codes: 0 success, 1 failed run, 2 bad input, 130 interrupted (checkpoint written).

use clap::{Parser, Subcommand};
use solver::bench;
use solver::config::{self, Backend, HeatKernel};
use solver::error::SolverError;
use solver::run::{self, RunOptions};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "solver", version, about = "GPU/CPU CFD solver: run cases, write VTK")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a case file.
    Run {
        case: PathBuf,
        /// cpu | cuda | auto (CUDA if a device is usable, else CPU); overrides run.backend.
        #[arg(long, value_enum)]
        backend: Option<Backend>,
        /// Override any key: --set time.cfl=0.5 --set run.precision=f32
        #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
        set: Vec<String>,
        /// Output folder (default: output.dir, else out/<case name>).
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Continue from the checkpoint in the output folder.
        #[arg(long)]
        restart: bool,
        /// No progress bar or backend message.
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the built-in case templates, or print one (`solver cases heat-decay > my.toml`).
    Cases { name: Option<String> },
    /// List CUDA devices, or say why there are none.
    Devices,
    /// Benchmark a case's kernels on the device.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
    /// CPU-vs-CUDA agreement checks (exit 1 if any fails).
    Check {
        #[command(subcommand)]
        what: CheckWhat,
    },
}

#[derive(Subcommand)]
enum BenchWhat {
    /// Advection: tetrahedron updates per second of a BFECC step, CUDA vs CPU (one thread and
    /// all threads), on each given mesh (e.g. the same box in none / rcm / hilbert order).
    Advect {
        #[arg(long, value_delimiter = ',', required = true)]
        meshes: Vec<PathBuf>,
        #[arg(long, default_value_t = 5)]
        steps: u64,
        /// Skip the single-thread CPU timing on meshes larger than this many cells.
        #[arg(long, default_value_t = 2_000_000)]
        one_thread_max: usize,
    },
    /// Heat: points*steps/s per variant and precision, against the measured copy bandwidth.
    Heat {
        #[arg(long, value_delimiter = ',', default_values_t = [128usize, 256, 512])]
        sizes: Vec<usize>,
        /// Also run 1024^3 in f32 when the device has the memory.
        #[arg(long)]
        with_1024: bool,
        #[arg(long, default_value_t = 20)]
        steps: u64,
        /// Also time the CPU path at the smallest size.
        #[arg(long)]
        cpu: bool,
        /// Write the rows as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum CheckWhat {
    /// The paper's advection test (advect-step template) on a mesh: CPU vs CUDA after the
    /// 30 + 30 steps for each scheme and interpolation, and each one's L1 against the initial.
    Advect {
        #[arg(long)]
        mesh: PathBuf,
        #[arg(long, default_value_t = 60)]
        steps: u64,
    },
    /// Benchmark cube after N steps, both kernel variants and precisions.
    Heat {
        #[arg(long, default_value_t = 64)]
        n: usize,
        #[arg(long, default_value_t = 100)]
        steps: u64,
    },
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = dispatch(cli) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}

fn dispatch(cli: Cli) -> Result<(), SolverError> {
    match cli.command {
        Command::Run {
            case,
            backend,
            set,
            output,
            restart,
            quiet,
        } => {
            let mut cfg = config::load(&case, &set)?;
            if let Some(b) = backend {
                cfg.run.backend = b;
            }
            let summary = run::run(&cfg, &case, &RunOptions { output, restart, quiet })?;
            if !quiet {
                let errors = summary
                    .get("errors")
                    .map(|e| format!("  errors {e}"))
                    .unwrap_or_default();
                eprintln!(
                    "done: {} steps on {} ({}), {:.3} s, {:.3e} {}{errors}",
                    summary["steps"],
                    summary["backend"].as_str().unwrap_or(""),
                    summary["device"].as_str().unwrap_or(""),
                    summary["wall_seconds"].as_f64().unwrap_or(0.0),
                    summary["throughput"].as_f64().unwrap_or(0.0),
                    summary["throughput_unit"].as_str().unwrap_or("")
                );
            }
            Ok(())
        }
        Command::Cases { name: None } => {
            for (n, about, _) in solver::templates::TEMPLATES {
                println!("{n:<18} {about}");
            }
            Ok(())
        }
        Command::Cases { name: Some(n) } => match solver::templates::get(&n) {
            Some(t) => {
                print!("{t}");
                Ok(())
            }
            None => Err(SolverError::config(
                std::path::Path::new("<templates>"),
                &n,
                "no such template; `solver cases` lists them",
            )),
        },
        Command::Devices => {
            match solver::backend::cuda::list() {
                Ok(list) => {
                    for (i, name, arch, mem) in list {
                        println!("{i}: {name} ({arch}, {:.1} GiB)", mem as f64 / (1u64 << 30) as f64);
                    }
                }
                Err(why) => println!("no CUDA devices: {why}"),
            }
            Ok(())
        }
        Command::Bench {
            what:
                BenchWhat::Heat {
                    sizes,
                    with_1024,
                    steps,
                    cpu,
                    json,
                },
        } => {
            let dev = solver::backend::cuda::Device::open(0)?;
            let copy_bw = dev.copy_bandwidth(1 << 30, 5)?;
            let mut rows = vec![];
            for &n in &sizes {
                for kernel in [HeatKernel::Naive, HeatKernel::RegisterQueue] {
                    rows.push(bench::bench_cuda::<f64>(&dev, n, kernel, steps, 3, copy_bw)?);
                    rows.push(bench::bench_cuda::<f32>(&dev, n, kernel, steps, 3, copy_bw)?);
                }
            }
            if with_1024 {
                let need = 4 * 4 * 1032usize.pow(3);
                if dev.total_mem > need + (2 << 30) {
                    for kernel in [HeatKernel::Naive, HeatKernel::RegisterQueue] {
                        rows.push(bench::bench_cuda::<f32>(&dev, 1024, kernel, steps.min(10), 2, copy_bw)?);
                    }
                } else {
                    println!(
                        "skipping 1024^3 f32: needs {:.1} GiB",
                        need as f64 / (1u64 << 30) as f64
                    );
                }
            }
            if cpu {
                let n = sizes.iter().copied().min().unwrap_or(128);
                rows.push(bench::bench_cpu::<f64>(n, steps.min(10), copy_bw));
            }
            bench::print_table(copy_bw, &format!("{} ({})", dev.name, dev.arch), &rows);
            if let Some(path) = json {
                let j = serde_json::json!({"device": dev.name, "arch": dev.arch, "copy_bandwidth": copy_bw, "rows": rows.iter().map(|r| r.json()).collect::<Vec<_>>()});
                solver::output::write_text(&path, &serde_json::to_string_pretty(&j).unwrap())?;
            }
            Ok(())
        }
        Command::Check {
            what: CheckWhat::Advect { mesh, steps },
        } => {
            let dev = solver::backend::cuda::Device::open(0)?;
            let cuda = solver::cases::Target::Cuda(dev.clone());
            println!(
                "CPU vs CUDA, advect-step on {} after {steps} steps on {} ({})",
                mesh.display(),
                dev.name,
                dev.arch
            );
            println!(
                "{:<26} {:>5} {:>14} {:>10} {:>10} {:>10} {:>6}",
                "scheme", "prec", "max rel diff", "tolerance", "L1 cpu", "L1 cuda", ""
            );
            let pm = meshtool::PreparedMesh::read(&mesh)?;
            let mut failed = false;
            // The rotation's velocity as a cell field in a VTU, as a previous run writes it.
            let tmp = tempfile::tempdir().map_err(|e| SolverError::io(std::env::temp_dir(), e))?;
            let rotation = "advect.velocity={kind=\"rotation\"}".to_string();
            let velocity_file = {
                let case = bench::advect_case(&mesh, std::slice::from_ref(&rotation))?;
                let mut p = solver::cases::prepare(&case, Path::new("advect-step.toml"), &solver::cases::Target::Cpu)?;
                let fields: Vec<_> = p.sim.fields()?.into_iter().filter(|f| f.0 == "velocity").collect();
                tmp.path().join(solver::output::write_fields(
                    &tmp.path().join("velocity"),
                    &p.layout,
                    &fields,
                )?)
            };
            let field = format!(
                "advect.velocity={{kind=\"field\",file=\"{}\"}}",
                velocity_file.display()
            );
            // f64 to the 1e-10; f32 to 1e-5 (both run the same arithmetic in the same
            // order, so any difference is a rounding the two sides do differently).
            for (prec, tol) in [("f64", 1e-10), ("f32", 1e-5)] {
                for (scheme, interp, velocity) in [
                    ("bfecc", "voronoi", None),
                    ("bfecc", "voronoi-grad", None),
                    ("bfecc", "linear", None),
                    ("sl1", "voronoi", None),
                    ("sl1", "linear", None),
                    ("bfecc", "voronoi", Some(("rotation", &rotation))),
                    ("bfecc", "voronoi", Some(("field", &field))),
                ] {
                    let mut sets = vec![
                        format!("advect.scheme={scheme}"),
                        format!("advect.interpolation={interp}"),
                        format!("time.steps={steps}"),
                        format!("run.precision=\"{prec}\""),
                    ];
                    let mut label = format!("{scheme}+{interp}");
                    if let Some((name, set)) = velocity {
                        sets.push(set.clone());
                        label = format!("{label} ({name})");
                    }
                    let case = bench::advect_case(&mesh, &sets)?;
                    let a = bench::advect_run(&case, &solver::cases::Target::Cpu, steps)?;
                    let b = bench::advect_run(&case, &cuda, steps)?;
                    let init = bench::advect_run(&case, &solver::cases::Target::Cpu, 0)?;
                    let l1 = |x: &[f64]| {
                        solver::output::relative_errors(x, &init, Some(&pm.topo.volumes))["l1"]
                            .as_f64()
                            .unwrap()
                    };
                    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
                    let d = a.iter().zip(&b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs())) / scale;
                    let ok = d <= tol;
                    failed |= !ok;
                    println!(
                        "{:<26} {:>5} {:>14.3e} {:>10.0e} {:>10.4} {:>10.4} {:>6}",
                        label,
                        prec,
                        d,
                        tol,
                        l1(&a),
                        l1(&b),
                        if ok { "PASS" } else { "FAIL" }
                    );
                }
            }
            if failed {
                Err(SolverError::Other(
                    "CPU and CUDA advection disagree beyond tolerance".into(),
                ))
            } else {
                Ok(())
            }
        }
        Command::Bench {
            what:
                BenchWhat::Advect {
                    meshes,
                    steps,
                    one_thread_max,
                },
        } => {
            let dev = solver::backend::cuda::Device::open(0)?;
            let cuda = solver::cases::Target::Cuda(dev.clone());
            let threads = rayon::current_num_threads();
            let copy_bw = dev.copy_bandwidth(1 << 30, 5)?;
            println!(
                "advection, one BFECC+voronoi step, on {} ({}); CPU: {}; measured copy bandwidth {:.1} GB/s",
                dev.name,
                dev.arch,
                solver::cases::cpu_name(),
                copy_bw / 1e9
            );
            println!(
                "{:<24} {:>9} {:>5} {:>11} {:>8} {:>12} {:>12} {:>9}",
                "mesh",
                "cells",
                "prec",
                "cuda tet/s",
                "of copy",
                format!("cpu {threads}t"),
                "cpu 1t",
                "cuda/1t"
            );
            for mesh in &meshes {
                for prec in ["f64", "f32"] {
                    let case = bench::advect_case(
                        mesh,
                        &[
                            "advect.velocity.reverse_after=1000000".into(),
                            "advect.boundary={}".into(),
                            format!("run.precision=\"{prec}\""),
                        ],
                    )?;
                    let (tg, n, bytes) = bench::advect_time(&case, &cuda, steps, Some(&dev))?;
                    let (tc, _, _) = bench::advect_time(&case, &solver::cases::Target::Cpu, 1, None)?;
                    let t1 = if n <= one_thread_max {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(1)
                            .build()
                            .map_err(|e| SolverError::Other(e.to_string()))?;
                        Some(
                            pool.install(|| bench::advect_time(&case, &solver::cases::Target::Cpu, 1, None))?
                                .0,
                        )
                    } else {
                        None
                    };
                    println!(
                        "{:<24} {:>9} {:>5} {:>11.4e} {:>7.1}% {:>12.4e} {:>12} {:>9}",
                        mesh.file_name()
                            .map_or(mesh.display().to_string(), |f| f.to_string_lossy().into()),
                        n,
                        prec,
                        n as f64 / tg,
                        100.0 * bytes / tg / copy_bw,
                        n as f64 / tc,
                        t1.map_or("-".into(), |t| format!("{:.4e}", n as f64 / t)),
                        t1.map_or("-".into(), |t| format!("{:.0}x", t / tg))
                    );
                }
            }
            Ok(())
        }
        Command::Check {
            what: CheckWhat::Heat { n, steps },
        } => {
            let dev = solver::backend::cuda::Device::open(0)?;
            println!(
                "CPU vs CUDA, benchmark cube {n}^3 after {steps} steps on {} ({})",
                dev.name, dev.arch
            );
            println!(
                "{:<16} {:>5} {:>14} {:>10} {:>6}",
                "kernel", "prec", "max rel diff", "tolerance", ""
            );
            let mut failed = false;
            for kernel in [HeatKernel::Naive, HeatKernel::RegisterQueue] {
                for (prec, tol) in [("f64", 1e-12), ("f32", 1e-5)] {
                    let d = if prec == "f64" {
                        bench::agreement::<f64>(&dev, n, kernel, steps)?
                    } else {
                        bench::agreement::<f32>(&dev, n, kernel, steps)?
                    };
                    let ok = d <= tol;
                    failed |= !ok;
                    println!(
                        "{:<16} {:>5} {:>14.3e} {:>10.0e} {:>6}",
                        format!("{kernel:?}"),
                        prec,
                        d,
                        tol,
                        if ok { "PASS" } else { "FAIL" }
                    );
                }
            }
            if failed {
                Err(SolverError::Other("CPU and CUDA disagree beyond tolerance".into()))
            } else {
                Ok(())
            }
        }
    }
}
