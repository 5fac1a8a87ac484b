//! `meshtool`: prepare, generate, inspect, check and export meshes for the solver.
//! Exit codes: 0 success, 2 bad input (the message names file, line and fix), 1 other failure.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use meshtool::generate::cartesian_box::{self, BoxSpec};
use meshtool::generate::grid::{self, GridSpec};
use meshtool::pmesh::{self, PreparedMesh};
use meshtool::reorder::Reorder;
use meshtool::{quality, MeshError, RawMesh};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "meshtool",
    version,
    about = "Mesh preprocessor for the solver: Gmsh import, generation, topology, quality, reordering"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Import a Gmsh .msh (2.2 or 4.1, ASCII or binary) and write a prepared mesh (.pmesh).
    Prepare {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// Cell order: none (input order), rcm (reverse Cuthill-McKee), hilbert (space-filling
        /// curve; the default: fastest on the device, see the README).
        #[arg(long, value_enum, default_value = "hilbert")]
        reorder: Reorder,
    },
    /// Generate a mesh: a tetrahedralised box, a Cartesian grid description, or CAD geometry.
    Generate {
        #[command(subcommand)]
        what: Generate,
    },
    /// Counts, bounding box, total volume and patches of a .msh or .pmesh.
    Info {
        file: PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Quality report (checkMesh-like) of a .msh or .pmesh.
    Check {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Write a VTU for ParaView with quality fields, boundary patch, order index.
    Export {
        file: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
    },
}

#[derive(Subcommand)]
enum Generate {
    /// N×M×K cubes, each split into 6 tetrahedra (Kuhn); patches xmin..zmax. Writes a .pmesh.
    Box {
        /// Cells per direction, e.g. 20,20,20.
        #[arg(long, value_parser = triple::<usize>, default_value = "10,10,10")]
        dims: [usize; 3],
        /// Lower corner.
        #[arg(long, value_parser = triple::<f64>, default_value = "0,0,0", allow_hyphen_values = true)]
        lo: [f64; 3],
        /// Upper corner.
        #[arg(long, value_parser = triple::<f64>, default_value = "1,1,1", allow_hyphen_values = true)]
        hi: [f64; 3],
        #[arg(long, value_enum, default_value = "hilbert")]
        reorder: Reorder,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// A Cartesian grid description (TOML) for the structured solvers.
    Grid {
        #[arg(long, value_parser = triple::<usize>)]
        dims: [usize; 3],
        #[arg(long, value_parser = triple::<f64>, default_value = "0,0,0", allow_hyphen_values = true)]
        origin: [f64; 3],
        #[arg(long, value_parser = triple::<f64>)]
        extent: [f64; 3],
        /// ESRI ASCII grid (.asc) with bed elevation, sampled at the cell centres.
        #[arg(long)]
        bathymetry: Option<PathBuf>,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// DFG 3D benchmark channel 2.5 × 0.41 × 0.41 with a cylinder (d = 0.1, axis z through
    /// (0.5, 0.2)); patches inlet, outlet, walls, cylinder. Needs the `gmsh` feature.
    Cylinder(CadArgs),
    /// The same channel with a sphere (d = 0.1) at (0.5, 0.2, 0.205); patch `sphere`.
    Sphere(CadArgs),
}

#[derive(clap::Args)]
struct CadArgs {
    /// Target element size.
    #[arg(long, default_value_t = 0.04)]
    size: f64,
    #[arg(long, value_enum, default_value = "hilbert")]
    reorder: Reorder,
    /// Also save Gmsh's mesh here as MSH 2.2 ASCII (for OpenFOAM's gmshToFoam).
    #[arg(long)]
    msh: Option<PathBuf>,
    #[arg(short, long)]
    output: PathBuf,
}

fn main() {
    meshtool::process::restore_default_sigpipe();
    let cli = Cli::parse();
    // A failed run leaves every output as it was: writes go to a temporary file that is renamed
    // over the output only when complete, and the paths are checked before any work.
    if let Err(e) = check_paths(&cli).map_err(anyhow::Error::from).and_then(|()| run(cli)) {
        eprintln!("error: {}", message(&e));
        let bad_input = e.chain().any(|c| {
            c.downcast_ref::<MeshError>()
                .is_some_and(|m| !matches!(m, MeshError::Io { .. }))
        });
        std::process::exit(if bad_input { 2 } else { 1 });
    }
}

/// The error and its causes joined by ": ", each cause once: one that the text before it
/// already quotes (an I/O error names its OS error, which is also its source) is left out.
fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.contains(&c) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&c);
    }
    text
}

/// Every path of the command, before any work: inputs exist and are files, outputs are file
/// names in folders that exist and take a new file (`meshtool::paths`).
fn check_paths(cli: &Cli) -> meshtool::Result<()> {
    use meshtool::paths::{check_input, check_output};
    let named = |input: &Path, ext: &str| {
        let stem = input.file_stem().map_or("mesh".into(), |s| s.to_string_lossy());
        format!("{stem}.{ext}")
    };
    match &cli.command {
        Command::Prepare { input, output, .. } => {
            check_input(input)?;
            check_output(output, "-o", &named(input, "pmesh"))
        }
        Command::Info { file, .. } | Command::Check { file, .. } => check_input(file),
        Command::Export { file, output } => {
            check_input(file)?;
            check_output(output, "-o", &named(file, "vtu"))
        }
        Command::Generate { what } => match what {
            Generate::Box { output, .. } => check_output(output, "-o", "box.pmesh"),
            Generate::Grid { bathymetry, output, .. } => {
                if let Some(b) = bathymetry {
                    check_input(b)?;
                }
                check_output(output, "-o", "domain.grid.toml")
            }
            Generate::Cylinder(a) | Generate::Sphere(a) => {
                let kind = if matches!(what, Generate::Cylinder(_)) {
                    "cylinder"
                } else {
                    "sphere"
                };
                check_output(&a.output, "-o", &format!("{kind}.pmesh"))?;
                match &a.msh {
                    Some(msh) => check_output(msh, "--msh", &format!("{kind}.msh")),
                    None => Ok(()),
                }
            }
        },
    }
}

/// "a,b,c" -> [a, b, c]
fn triple<T: std::str::FromStr>(s: &str) -> std::result::Result<[T; 3], String> {
    let v: Vec<T> = s
        .split(',')
        .map(|x| x.trim().parse().map_err(|_| format!("'{x}' is not a number")))
        .collect::<std::result::Result<_, _>>()?;
    <[T; 3]>::try_from(v).map_err(|_| format!("expected three comma-separated values, got '{s}'"))
}

fn step<T>(msg: &str, f: impl FnOnce() -> T) -> T {
    let pb = ProgressBar::new_spinner();
    pb.set_style(ProgressStyle::with_template("{spinner} {msg} {elapsed}").unwrap());
    pb.set_message(msg.to_string());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    let t = Instant::now();
    let r = f();
    pb.finish_and_clear();
    if std::env::var_os("MESHTOOL_TIMINGS").is_some() {
        eprintln!("{msg}: {:.3} s", t.elapsed().as_secs_f64());
    }
    r
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Prepare { input, output, reorder } => {
            let raw = step("reading", || meshtool::msh::read_msh(&input))?;
            prepare_and_write(&raw, reorder, &output).with_context(|| format!("preparing {}", input.display()))
        }
        Command::Generate { what } => match what {
            Generate::Box {
                dims,
                lo,
                hi,
                reorder,
                output,
            } => {
                let spec = BoxSpec { dims, lo, hi };
                let raw = step("generating", || cartesian_box::generate(&spec))?;
                prepare_and_write(&raw, reorder, &output)
            }
            Generate::Grid {
                dims,
                origin,
                extent,
                bathymetry,
                output,
            } => {
                let mut g = GridSpec::new(origin, extent, dims)?;
                if let Some(b) = bathymetry {
                    let esri = grid::EsriGrid::read(&b)?;
                    grid::attach_bathymetry(&mut g, &esri, &b.to_string_lossy())?;
                }
                write_text_atomic(&output, &g.to_toml())?;
                println!("wrote {} ({}×{}×{} cells)", output.display(), dims[0], dims[1], dims[2]);
                Ok(())
            }
            Generate::Cylinder(a) => cad(a, "cylinder"),
            Generate::Sphere(a) => cad(a, "sphere"),
        },
        Command::Info { file, json } => info(&file, json),
        Command::Check { file, json } => check(&file, json),
        Command::Export { file, output } => {
            let mesh = load(&file)?;
            let q = step("quality", || quality::cell_quality(&mesh.nodes, &mesh.topo));
            step("writing VTU", || meshtool::vtk::export_mesh(&mesh, &q, &output))?;
            println!("wrote {} ({} cells)", output.display(), mesh.num_cells());
            Ok(())
        }
    }
}

#[cfg(feature = "gmsh")]
fn cad(a: CadArgs, kind: &str) -> Result<()> {
    use meshtool::generate::gmsh::{channel_with_obstacle, Obstacle};
    let obstacle = if kind == "cylinder" {
        Obstacle::Cylinder
    } else {
        Obstacle::Sphere
    };
    // Gmsh's MSH 2.2 file waits in a temporary folder until the .pmesh is written, so that a
    // failure leaves an earlier --msh file as it was.
    let tmp = tempfile::tempdir().map_err(|e| MeshError::io(std::env::temp_dir(), e))?;
    let legacy = a.msh.as_ref().map(|_| tmp.path().join("legacy.msh"));
    let raw = step("meshing with Gmsh", || {
        channel_with_obstacle(obstacle, a.size, legacy.as_deref())
    })?;
    prepare_and_write(&raw, a.reorder, &a.output)?;
    if let (Some(legacy), Some(msh)) = (legacy, a.msh) {
        let mut src = std::fs::File::open(&legacy).map_err(|e| MeshError::io(&legacy, e))?;
        meshtool::atomic::write_with(&msh, |w| std::io::copy(&mut src, w).map(|_| ()))?;
    }
    Ok(())
}

#[cfg(not(feature = "gmsh"))]
fn cad(_a: CadArgs, kind: &str) -> Result<()> {
    Err(MeshError::Invalid(format!(
        "`generate {kind}` needs Gmsh: this meshtool was built without the `gmsh` feature; run scripts/setup.sh (installs libgmsh-dev and builds with --features gmsh)"
    ))
    .into())
}

fn write_text_atomic(path: &Path, text: &str) -> Result<()> {
    Ok(meshtool::atomic::write_with(path, |w| w.write_all(text.as_bytes()))?)
}

fn prepare_and_write(raw: &RawMesh, reorder: Reorder, output: &Path) -> Result<()> {
    let (mesh, report) = step("topology, reordering, dual tables", || pmesh::prepare(raw, reorder))?;
    step("writing", || mesh.write(output)).with_context(|| format!("writing {}", output.display()))?;
    eprintln!(
        "wrote {}: {} nodes, {} cells, {} patches; reorder {:?}: mean neighbour index distance {:.1} -> {:.1}, bandwidth {} -> {}",
        output.display(),
        mesh.nodes.len(),
        mesh.num_cells(),
        mesh.patches.len(),
        reorder,
        report.before.mean_neighbour_distance,
        report.after.mean_neighbour_distance,
        report.before.bandwidth,
        report.after.bandwidth
    );
    for p in &mesh.topo.periodic {
        let t = p.translation;
        eprintln!(
            "periodic: '{}' -> '{}': {} face pairs joined, translation ({}, {}, {})",
            p.slave, p.master, p.faces, t[0], t[1], t[2]
        );
    }
    if mesh.topo.reoriented > 0 {
        eprintln!("note: {} inverted cells were re-oriented", mesh.topo.reoriented);
    }
    if mesh.topo.interior_patch_faces > 0 {
        eprintln!(
            "note: {} patch triangles lie inside the volume (internal surfaces) and were ignored",
            mesh.topo.interior_patch_faces
        );
    }
    Ok(())
}

/// A .pmesh as it is, or a .msh prepared in memory without reordering.
fn load(file: &Path) -> Result<PreparedMesh> {
    let is_pmesh = std::fs::File::open(file)
        .and_then(|mut f| {
            let mut magic = [0u8; 8];
            std::io::Read::read_exact(&mut f, &mut magic).map(|_| &magic == pmesh::MAGIC)
        })
        .unwrap_or(false);
    if is_pmesh {
        return Ok(step("reading", || PreparedMesh::read(file))?);
    }
    let raw = step("reading", || meshtool::msh::read_msh(file))?;
    let prepared = step("topology", || pmesh::prepare(&raw, Reorder::None))
        .with_context(|| format!("preparing {}", file.display()))?;
    Ok(prepared.0)
}

fn info(file: &Path, as_json: bool) -> Result<()> {
    let mesh = load(file)?;
    let (lo, hi) = mesh.bounding_box();
    let j = json!({
        "file": file,
        "nodes": mesh.nodes.len(),
        "cells": mesh.num_cells(),
        "volume": mesh.total_volume(),
        "bounding_box": {"min": lo, "max": hi},
        "reorder": mesh.reorder,
        "reoriented_cells": mesh.topo.reoriented,
        "patches": mesh.patches.iter().map(|p| json!({"name": p.name, "tag": p.tag, "faces": p.faces, "area": p.area})).collect::<Vec<_>>(),
        "periodic": mesh.topo.periodic,
    });
    if as_json {
        println!("{j}");
    } else {
        println!("{}", file.display());
        println!(
            "  nodes {}   cells {}   volume {:.9e}",
            mesh.nodes.len(),
            mesh.num_cells(),
            mesh.total_volume()
        );
        println!(
            "  bounding box ({:.6}, {:.6}, {:.6}) - ({:.6}, {:.6}, {:.6})",
            lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
        );
        println!("  {:<20} {:>10} {:>16}", "patch", "faces", "area");
        for p in &mesh.patches {
            println!("  {:<20} {:>10} {:>16.9e}", p.name, p.faces, p.area);
        }
        if !mesh.topo.periodic.is_empty() {
            println!(
                "  {:<20} {:<20} {:>10} {:>16}  translation (master -> slave)",
                "periodic slave", "master", "faces", "area"
            );
            for p in &mesh.topo.periodic {
                let t = p.translation;
                println!(
                    "  {:<20} {:<20} {:>10} {:>16.9e}  ({:.9e}, {:.9e}, {:.9e})",
                    p.slave, p.master, p.faces, p.area, t[0], t[1], t[2]
                );
            }
        }
    }
    Ok(())
}

fn check(file: &Path, as_json: bool) -> Result<()> {
    let mesh = load(file)?;
    let q = step("quality", || quality::cell_quality(&mesh.nodes, &mesh.topo));
    let report = quality::report(&mesh.nodes, &mesh.topo, &q);
    let locality = meshtool::reorder::locality(&mesh.topo.neighbours);
    if as_json {
        println!("{}", json!({"quality": report, "locality": locality}));
    } else {
        println!("{}: {} cells", file.display(), report.cells);
        print!("{}", report.table());
        println!(
            "  adjacency bandwidth {}   mean neighbour index distance {:.1}",
            locality.bandwidth, locality.mean_neighbour_distance
        );
    }
    Ok(())
}
