//! `solver`: run cases on the GPU or CPU, list templates and devices, check and benchmark.
//! Exit codes: 0 success, 1 failed run, 2 bad input, 130 interrupted (checkpoint written).

use clap::{Parser, Subcommand};
use solver::cases::FAMILIES;
use solver::commands::{bench, check, run, signals, specs};
use solver::SolverError;
use std::path::Path;

#[derive(Parser)]
#[command(name = "solver", version, about = "GPU/CPU CFD solver: run cases, write VTK")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a case file.
    Run(run::RunOptions),
    /// List the built-in case templates, or print one (`solver cases heat-decay > my.toml`).
    Cases { name: Option<String> },
    /// List CUDA devices, or say why there are none.
    Devices,
    /// CPU-vs-CUDA agreement of every family's checks (or one family's); exit 1 if any fails.
    Check(check::CheckOptions),
    /// Throughput of every family's benchmarks (or one family's) against the copy bandwidth.
    Bench(bench::BenchOptions),
    /// A run's force statistics (summary.json `signals`) over another window, from its
    /// forces.csv.
    Signals(signals::SignalsOptions),
}

fn main() {
    solver::framework::timing::mark_start();
    meshtool::process::restore_default_sigpipe();
    let cli = Cli::parse();
    let exit = |e: SolverError| -> ! {
        // Bad input is refused by every rank alike: rank 0 says so; other errors name their rank.
        let world = solver::framework::ranks::world();
        // One write per message, so that the ranks' lines do not interleave within a line.
        let line = if world.rank() == 0 {
            format!("error: {e}\n")
        } else if e.exit_code() != 2 {
            format!("error (rank {}): {e}\n", world.rank())
        } else {
            String::new()
        };
        eprint!("{line}");
        if world.rank() != 0 {
            // Rank 0 refuses the same input, or stops at the same collective check, and says
            // why; an abort from here first would kill it before it has written its message (a
            // loaded machine lost rank 0's line of a divergence). Its own abort ends this wait;
            // an error of this rank alone waits for nothing but this.
            std::thread::sleep(std::time::Duration::from_secs(3));
        }
        // Under mpirun, one rank's error ends them all (the others may wait in a collective).
        world.abort(e.exit_code())
    };
    // MPI (under mpirun) lives until the end of main, where the guard is dropped.
    let _guard = solver::framework::ranks::init().unwrap_or_else(|e| exit(e));
    if let Err(e) = dispatch(cli.command) {
        exit(e);
    }
}

fn dispatch(command: Command) -> Result<(), SolverError> {
    match command {
        Command::Run(opts) => run::run_command(&opts, FAMILIES),
        Command::Cases { name: None } => {
            for f in FAMILIES {
                for t in f.templates() {
                    println!("{:<22} {}", t.name, t.about);
                }
            }
            Ok(())
        }
        Command::Cases { name: Some(n) } => match specs::template(FAMILIES, &n) {
            Some((_, t)) => {
                print!("{}", t.text);
                Ok(())
            }
            None => Err(SolverError::config(
                Path::new("<templates>"),
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
        Command::Check(opts) => check::check(&opts, FAMILIES),
        Command::Bench(opts) => bench::bench(&opts, FAMILIES),
        Command::Signals(opts) => signals::signals_command(&opts),
    }
}
