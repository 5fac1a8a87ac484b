//! Shallow water with a passive pollutant on a cell-centred Cartesian grid (the paper
//! `shallow-water-pollutant-multi-gpu.md`, Viñas et al.): unknowns (h, q_x, q_y, hC), the bed's
//! depth H below the reference level, the first-order path-conservative Roe scheme with its
//! well-balanced bed term (`roe.rs`), wet/dry fronts that keep h >= 0 and a lake at rest at rest
//! across emerged banks, walls, outflow or periodic faces, open sides with a prescribed level or
//! discharge in time (a tide, `forcing.rs`, `series.rs`), point sources, a CFL step.
//!
//! The family's files: its case-file section (`section`), the parsed case and how it splits
//! into parts (`setup`), what both executions share (`totals`: fields, totals, health), the simulation on a backend (`sim`), the CPU
//! (`cpu`) and CUDA (`cuda`) executions, its templates, and its CPU-vs-CUDA checks and
//! benchmark as data (here). Several ranks and devices are the grid layer's parts
//! (`grid::parts`): slabs of rows along y, each a simulation of its own, with a halo of
//! `setup::REACH` rows a ghost row exchanged every `shallow-water.ghost_rows` steps.

pub mod bathymetry;
pub mod cpu;
pub mod cuda;
pub mod forcing;
pub mod initial;
pub mod roe;
pub mod section;
pub mod series;
pub mod setup;
pub mod sim;
pub mod totals;

use crate::framework::{BenchSpec, CheckSpec, FamilyInfo, Sizes, Template};
pub use setup::SweSetup;

const TEMPLATES: &[Template] = &[
    Template::new("swe-lake-at-rest", "still water over a bump that emerges (SWASHES 3.1.2): must stay at rest", include_str!("templates/swe-lake-at-rest.toml")),
    Template::new("swe-dam-break-dry", "Ritter's dam break onto a dry bed (SWASHES 4.1.2), exact solution", include_str!("templates/swe-dam-break-dry.toml")),
    Template::new("swe-dam-break-wet", "Stoker's dam break onto a wet bed (SWASHES 4.1.1), exact solution", include_str!("templates/swe-dam-break-wet.toml")),
    Template::new("swe-thacker", "Thacker's planar surface oscillating in a paraboloid (SWASHES 4.2.2), exact solution", include_str!("templates/swe-thacker.toml")),
    Template::new("swe-column", "a water column falling into a tank, with a pollutant (the paper's sec. 6.4)", include_str!("templates/swe-column.toml")),
    Template::new("swe-estuary", "a pollutant spill in a tidal estuary with drying flats and a river (the paper's week in miniature)", include_str!("templates/swe-estuary.toml")),
];

/// A CPU-vs-CUDA check of `template` for `steps` steps: the same arithmetic in the same order on
/// both backends (fused multiply-adds off), so the same adaptive steps and the same fields; only
/// Manning's `pow` may round differently on the device.
const fn check(name: &'static str, template: &'static str, sets: &'static [&'static str], steps: u64) -> CheckSpec {
    CheckSpec::new(name, template, sets, steps, [1e-12, 1e-6])
}

/// Every template, the wet/dry fronts of Ritter and Thacker, the emerged island, friction, the
/// other boundaries (outflow, periodic) around a pollutant, open sides (constant levels and
/// discharge; the estuary's tide from a CSV), point sources (the estuary's river from a CSV).
const CHECKS: &[CheckSpec] = &[
    check("lake-at-rest", "swe-lake-at-rest", &[], 200),
    check("lake-at-rest island", "swe-lake-at-rest", &["shallow-water.initial.island=true", "grid.dims=[64,64,1]"], 200),
    check("dam-break dry", "swe-dam-break-dry", &[], 300),
    check("dam-break wet", "swe-dam-break-wet", &[], 300),
    check("thacker", "swe-thacker", &[], 300),
    check("column", "swe-column", &[], 200),
    check("column manning", "swe-column", &["shallow-water.manning=0.03"], 200),
    check("column outflow", "swe-column", &["shallow-water.boundary={x=\"outflow\",y=\"outflow\"}"], 300),
    check("column periodic", "swe-column", &["shallow-water.boundary={x=\"periodic\",y=\"reflect\"}", "grid.dims=[128,96,1]"], 300),
    check("column open sides", "swe-column", &[OPEN_SIDES], 300),
    check("column sources", "swe-column", &[SOURCES], 300),
    check("estuary", "swe-estuary", &[], 1000),
];

/// A level above the tank's (inflow, clean water), an inflowing discharge, a level below it.
const OPEN_SIDES: &str = "shallow-water.open=[{side=\"x-\",level=0.3,concentration=0.0},{side=\"x+\",discharge=0.5},{side=\"y+\",level=-0.2}]";
/// Two sources in one cell (in order), one in another.
const SOURCES: &str = "shallow-water.sources=[{at=[2.0,2.0],discharge=0.5,concentration=2.0},{at=[2.05,2.02],discharge=0.25},{at=[8.0,3.0],discharge=0.1,concentration=1.0}]";

/// The paper's tank at the sizes of its scaling tables, run long (no end within a benchmark).
const BENCHES: &[BenchSpec] = &[BenchSpec {
    name: "column",
    template: "swe-column",
    sets: &["time.end_time=1e9", "output.interval=0"],
    sizes: Sizes::GridSquares(&[1000, 2000, 4000, 8000]),
}];

/// The family: shallow water with a pollutant on a structured grid.
pub static FAMILY: FamilyInfo = FamilyInfo::new("shallow-water", &["grid"], TEMPLATES, CHECKS, BENCHES, |doc| {
    Ok(Box::new(SweSetup::parse(doc)?))
});
