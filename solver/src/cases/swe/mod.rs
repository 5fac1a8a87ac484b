//! Shallow water with a passive pollutant on a cell-centred Cartesian grid (the paper
//! `shallow-water-pollutant-multi-gpu.md`, Viñas et al.): unknowns (h, q_x, q_y, hC), the bed's
//! depth H below the reference level, the first-order path-conservative Roe scheme with its
//! well-balanced bed term (`roe.rs`), wet/dry fronts that keep h >= 0 and a lake at rest at rest
//! across emerged banks, walls, outflow or periodic faces, open sides with a prescribed level or
//! discharge in time (a tide, `forcing.rs`, `series.rs`), point sources, a CFL step. CPU
//! (`cpu.rs`) and CUDA (`cuda.rs`) backends; several GPUs are the rest of issues 13 and 14.

pub mod bathymetry;
pub mod cpu;
pub mod cuda;
pub mod forcing;
pub mod initial;
pub mod roe;
pub mod section;
pub mod series;
pub mod slab;

use crate::backend::Target;
use crate::error::{Result, SolverError};
use crate::framework::ranks::{self, Slab};
use crate::framework::{
    build_in_precision, BenchSpec, BuildIn, CaseDoc, CheckSpec, Clock, DtPolicy, FamilyInfo, Precision, Setup, Simulation,
    Sizes, Template, Unhealthy,
};
use crate::grid::{BoundarySet, FaceBc, GridSection, StructuredGrid};
use crate::output::{Centring, Field, Geometry};
use crate::real::Real;
use section::{Initial, SweSection};
use serde::{Deserialize, Serialize};

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

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
struct SweDoc {
    #[serde(rename = "shallow-water")]
    swe: SweSection,
    grid: GridSection,
}

#[derive(Clone, Debug)]
pub struct SweSetup {
    pub grid: StructuredGrid,
    /// Open sides and point sources.
    pub forcing: forcing::Forcing,
    pub bc: BoundarySet,
    /// The bed's ghosts: copies of the cells beside them (periodic where the state is).
    pub bed_bc: BoundarySet,
    pub gravity: f64,
    pub dry: f64,
    /// Below this depth velocities are desingularized (Kurganov & Petrova 2007). Set when the
    /// simulation is built ([`SweSetup::with_thin_depth`]): it needs the initial state, which
    /// is sampled only after the memory estimate has accepted the grid.
    pub thin: f64,
    pub manning: f64,
    /// Devices this process drives (`run.gpus`), each a slab of rows.
    pub gpus: usize,
    /// Ghost rows beside other slabs (`shallow-water.ghost_rows`).
    pub ghost_rows: usize,
    /// Bed elevations per cell (x fastest) read from a bathymetry file.
    pub bed_file: Option<Vec<f64>>,
    pub initial: Initial,
    section: SweSection,
    doc: SweDoc,
}

impl SweSetup {
    fn parse(doc: &CaseDoc) -> Result<Self> {
        let view: SweDoc = doc.section()?;
        let s = &view.swe;
        if !(s.gravity > 0.0 && s.gravity.is_finite()) {
            return Err(doc.error("shallow-water.gravity", format!("must be positive, got {}", s.gravity)));
        }
        if doc.time.cfl > 1.0 {
            return Err(doc.error("time.cfl", format!("{} is above 1, the scheme's stable limit", doc.time.cfl)));
        }
        let spec = view.grid.spec(doc)?;
        if spec.cells[2] != 1 {
            return Err(doc.error("grid.dims", "shallow water is 2D: the third entry must be 1"));
        }
        if let Some((key, msg)) = problem(&s.initial) {
            return Err(doc.error(&key, msg));
        }
        if !(s.manning >= 0.0 && s.manning.is_finite()) {
            return Err(doc.error("shallow-water.manning", format!("must be 0 or positive, got {}", s.manning)));
        }
        let bc = s.boundary.set(1);
        if let Some(p) = bc.problem(4) {
            return Err(doc.error("shallow-water.boundary", p));
        }
        let mut bed_bc = bc.clone();
        for faces in bed_bc.faces.iter_mut() {
            for f in faces.iter_mut().filter(|f| **f != FaceBc::Periodic) {
                *f = FaceBc::Outflow;
            }
        }
        bed_bc.normal_component = [None; 3];
        // Every rank, and every device of each, takes a slab (devices only on CUDA).
        let ranks = ranks::world();
        let gpus = if doc.run.backend == crate::framework::config::Backend::Cpu { 1 } else { doc.run.gpus };
        if let Some(msg) = ghost_rows_problem(s.ghost_rows, spec.cells[1], ranks.size() * gpus) {
            return Err(doc.error("shallow-water.ghost_rows", msg));
        }
        let halo = [1, if spec.cells[1] > 1 { slab::REACH * s.ghost_rows } else { 0 }, 0];
        let grid = StructuredGrid::new(&spec, Centring::Cell, &bc, halo, 4);
        let dry = s.dry_depth.unwrap_or(match doc.run.precision {
            Precision::F64 => 1e-6,
            Precision::F32 => 1e-5,
        });
        let forcing = forcing::Forcing::parse(doc, s, &grid, &bc)?;
        let mut setup = SweSetup {
            grid,
            forcing,
            bc,
            bed_bc,
            gravity: s.gravity,
            dry,
            thin: 0.0,
            manning: s.manning,
            gpus: doc.run.gpus,
            ghost_rows: s.ghost_rows,
            bed_file: None,
            initial: s.initial.clone(),
            section: s.clone(),
            doc: view,
        };
        if let Initial::StillWater { bathymetry, .. } = &setup.initial {
            setup.bed_file = Some(match bathymetry {
                Some(file) => bed_from_esri(doc, file, setup.grid.cells)?,
                None => bed_from_grid_file(doc, &setup.doc.grid)?,
            });
        }
        if let Err(e) = setup.slab_of(ranks.rank(), ranks.size() * gpus) {
            return Err(doc.error("grid.dims", e));
        }
        Ok(setup)
    }

    /// This setup with its thin-layer depth: `shallow-water.thin_depth`, else a thousandth of
    /// the deepest initial water `depth` (never below dry).
    pub fn with_thin_depth(&self, depth: &[f64]) -> SweSetup {
        let deepest = depth.iter().fold(0.0f64, |m, &h| m.max(h));
        SweSetup {
            thin: self.section.thin_depth.unwrap_or((1e-3 * deepest).max(self.dry)),
            ..self.clone()
        }
    }

    /// Rank `rank`'s slab of rows when `size` ranks share the grid, or why they cannot.
    pub fn slab_of(&self, rank: usize, size: usize) -> std::result::Result<Slab, String> {
        if size > 1 && self.bc.is_periodic(1) {
            return Err(format!(
                "{size} ranks split the grid along y, which is periodic here: periodic y is not decomposed; make y walls or outflow, or run one rank"
            ));
        }
        Slab::of(self.grid.cells[1], rank, size, slab::REACH * self.ghost_rows)
    }

    /// The axes with more than one cell.
    pub fn axes(&self) -> Vec<usize> {
        (0..2).filter(|&a| self.grid.cells[a] > 1).collect()
    }

    /// Interior cells as padded indices, x fastest.
    pub fn cells(&self) -> Vec<usize> {
        self.cells_in_rows(0..self.grid.n[1] as isize)
    }

    /// The cells of rows `rows` (ghost rows included) as padded indices, x fastest.
    pub fn cells_in_rows(&self, rows: std::ops::Range<isize>) -> Vec<usize> {
        let nx = self.grid.n[0] as isize;
        rows.flat_map(|j| (0..nx).map(move |i| self.grid.at(i, j, 0))).collect()
    }

    fn centre(&self) -> [f64; 2] {
        [0, 1].map(|a| self.grid.origin[a] + 0.5 * self.grid.extent[a])
    }

    /// The initial (h, q_x, q_y, hC), components one after another, and H.
    pub fn initial_fields(&self) -> (Vec<f64>, Vec<f64>) {
        let centre = self.centre();
        let at = |x: [f64; 3]| initial::at(&self.initial, x, centre, self.gravity);
        let (mut w, bed): (Vec<f64>, Vec<f64>) = match (&self.initial, &self.bed_file) {
            // `parse` reads the file before anything samples the initial state.
            (Initial::StillWater { level, .. }, Some(z)) => {
                let cells: Vec<_> = z.iter().map(|&z| initial::still_water(*level, z)).collect();
                let w = (0..3).flat_map(|k| cells.iter().map(move |c| c.0[k])).collect();
                (w, cells.iter().map(|c| c.1).collect())
            }
            _ => (
                (0..3).flat_map(|k| self.grid.sample(|x| at(x).0[k])).collect(),
                self.grid.sample(|x| at(x).1),
            ),
        };
        let depth = w[..self.grid.points()].to_vec();
        let inside = |x: [f64; 3]| {
            self.section.pollutant.iter().any(|d| {
                (x[0] - d.center[0]).powi(2) + (x[1] - d.center[1]).powi(2) < d.radius * d.radius
            })
        };
        let polluted = self.grid.sample(|x| f64::from(u8::from(inside(x))));
        w.extend(polluted.iter().zip(&depth).map(|(c, h)| c * h));
        (w, bed)
    }
}

/// Bed elevations per cell (x fastest) from an ESRI ASCII grid whose cells must be the grid's.
fn bed_from_esri(doc: &CaseDoc, file: &std::path::Path, cells: [usize; 3]) -> Result<Vec<f64>> {
    let b = series::data_file(doc, file)
        .and_then(|(name, text)| bathymetry::parse(&name, &text))
        .map_err(|e| doc.error("shallow-water.initial.bathymetry", e))?;
    if b.cells != [cells[0], cells[1]] {
        let [nx, ny] = b.cells;
        let (w, h) = (nx as f64 * b.cellsize, ny as f64 * b.cellsize);
        return Err(doc.error(
            "grid.dims",
            format!(
                "the bathymetry has {nx} x {ny} cells, the grid {cells:?}: set grid.dims = [{nx}, {ny}, 1], grid.extent = [{w}, {h}, 1.0], grid.origin = [{}, {}, 0.0]",
                b.corner[0], b.corner[1]
            ),
        ));
    }
    Ok(b.elevation)
}

/// Bed elevations per cell (x fastest) that `meshtool generate grid --bathymetry` sampled into
/// the grid file.
fn bed_from_grid_file(doc: &CaseDoc, grid: &GridSection) -> Result<Vec<f64>> {
    let missing = "missing: give an ESRI ASCII grid, or a grid.file made by `meshtool generate grid --bathymetry FILE.asc`";
    let Some(file) = &grid.file else {
        return Err(doc.error("shallow-water.initial.bathymetry", missing));
    };
    let spec = meshtool::generate::grid::GridSpec::read(&doc.resolve(file))?;
    match spec.bathymetry {
        Some(b) if b.values.len() == spec.dims[0] * spec.dims[1] => Ok(b.values),
        Some(b) => Err(doc.error(
            "grid.file",
            format!("its bathymetry has {} values for {} x {} cells: make it again with meshtool", b.values.len(), spec.dims[0], spec.dims[1]),
        )),
        None => Err(doc.error("shallow-water.initial.bathymetry", format!("{} has no bathymetry; {missing}", file.display()))),
    }
}

/// What is wrong with `ghost` ghost rows when `slabs` slabs share `rows` rows, if anything: none
/// at all, or halo rows (`slab::REACH` a ghost row) beyond what the smallest slab owns (its
/// neighbours' ghost rows are its own rows; fewer than 2 rows a slab is the grid's problem,
/// which `Slab::of` reports).
fn ghost_rows_problem(ghost: usize, rows: usize, slabs: usize) -> Option<String> {
    let least = rows / slabs;
    if ghost == 0 {
        Some("must be at least 1".into())
    } else if slabs > 1 && (2..slab::REACH * ghost).contains(&least) {
        Some(format!(
            "{ghost} ghost rows reach beyond a slab: {slabs} slabs of the grid's {rows} rows own {least} rows at the least, and each step reads {} rows beyond a slab; set at most {} (or use fewer ranks or devices)",
            slab::REACH,
            (least / slab::REACH).max(1)
        ))
    } else {
        None
    }
}

/// The key and what is wrong with the initial data, if anything.
fn problem(initial: &Initial) -> Option<(String, String)> {
    let positive = |v: f64| v > 0.0 && v.is_finite();
    match *initial {
        Initial::DamBreak { left, right, .. } if !(positive(left) && right >= 0.0 && right.is_finite()) => Some((
            "shallow-water.initial".into(),
            format!("depths must be positive (left) and not negative (right), got {left}, {right}"),
        )),
        Initial::Thacker { a, h0, eta } if !(positive(a) && positive(h0) && eta.is_finite()) => {
            Some(("shallow-water.initial".into(), "a and h0 must be positive".into()))
        }
        Initial::Column { depth, height, radius, .. } if !(depth >= 0.0 && depth + height >= 0.0 && positive(radius)) => {
            Some(("shallow-water.initial".into(), format!("negative initial depth: depth {depth}, height {height}")))
        }
        Initial::LakeAtRest { level, .. } if !level.is_finite() => {
            Some(("shallow-water.initial.level".into(), "must be finite".into()))
        }
        _ => None,
    }
}

/// The output fields of interior (h, q_x, q_y, hC) and H: depth, velocity, free surface, bed
/// elevation, pollutant concentration.
pub fn fields(values: &[f64], bed: &[f64], dry: f64) -> Vec<Field> {
    let n = bed.len();
    let wet = |i: usize| values[i] > dry;
    let velocity = (0..n)
        .flat_map(|i| {
            let h = values[i];
            if wet(i) {
                [values[n + i] / h, values[2 * n + i] / h]
            } else {
                [0.0, 0.0]
            }
        })
        .collect();
    let conc = (0..n).map(|i| if wet(i) { values[3 * n + i] / values[i] } else { 0.0 }).collect();
    vec![
        Field::scalar("depth", Centring::Cell, values[..n].to_vec()),
        Field::vector("velocity", 2, Centring::Cell, velocity),
        Field::scalar("surface", Centring::Cell, (0..n).map(|i| values[i] - bed[i]).collect()),
        Field::scalar("bed", Centring::Cell, bed.iter().map(|b| -b).collect()),
        Field::scalar("concentration", Centring::Cell, conc),
    ]
}

/// What stops a run: a negative depth or a state that is not finite in an interior cell (x
/// fastest), named by the output field it feeds (depth, velocity, concentration) and, in a
/// decomposed run, the rank that holds it.
pub fn unhealthy(bad: slab::BadCell) -> Unhealthy {
    let [h, qx, qy, hc] = bad.state;
    let (field, value) = if !(h >= 0.0 && h.is_finite()) {
        ("depth", format!("depth {h:e}"))
    } else if !(qx.is_finite() && qy.is_finite()) {
        ("velocity", format!("velocity (discharge {qx:e}, {qy:e})"))
    } else {
        ("concentration", format!("concentration (pollutant hC {hc:e})"))
    };
    let rank = bad.rank.map_or(String::new(), |r| format!(" on rank {r}"));
    Unhealthy {
        field: field.into(),
        what: format!("{value} in cell {} (x fastest){rank}", bad.cell),
    }
}

/// The roofline's bytes of a step: read (h, q_x, q_y, hC) and H, write the state, 9 values a
/// cell at the least.
pub fn min_bytes_per_step(setup: &SweSetup, real_bytes: usize) -> f64 {
    9.0 * real_bytes as f64 * setup.grid.points() as f64
}

/// What the totals count besides the state: the water added by clipping negative depths at
/// dry fronts, the water and pollutant added by the sources, the water at the start of the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ledger {
    pub clipped: f64,
    pub sources: [f64; 2],
    pub start_water: f64,
    /// The pollutant at the start of the run.
    pub start_pollutant: f64,
    /// Through the grid's faces so far (`cpu::crossing`): water in, water out, pollutant in,
    /// pollutant out.
    pub boundary: [f64; 4],
    /// The largest concentration hC / h of a cell with water at the start and after any step
    /// since, owned cells, and the largest of -hC / h (0 if none was negative).
    pub conc_bounds: [f64; 2],
}

/// The largest hC / h and -hC / h (at least 0) of interior (h, q_x, q_y, hC) with water.
pub fn conc_bounds(setup: &SweSetup, values: &[f64]) -> [f64; 2] {
    let n = setup.grid.points();
    (0..n).filter(|&i| values[i] > 0.0).fold([0.0f64; 2], |[hi, lo], i| {
        let c = values[3 * n + i] / values[i];
        [hi.max(c), lo.max(-c)]
    })
}

/// The water volume and the pollutant mass (sums of h and hC times the cell area) of interior
/// (h, q_x, q_y, hC), the water volume added so far by clipping negative depths at dry fronts,
/// with sources the water and pollutant they added, with open sides the net inflow of water
/// through them (what the other terms leave of the change since the start: the scheme
/// conserves water to round-off).
pub fn totals(setup: &SweSetup, values: &[f64], ledger: &Ledger) -> Vec<(String, f64)> {
    let (n, area) = (setup.grid.points(), setup.grid.h[0] * setup.grid.h[1]);
    let sum = |k: usize| values[k * n..(k + 1) * n].iter().sum::<f64>() * area;
    let water = sum(0);
    let mut t = vec![
        ("water".into(), water),
        ("pollutant".into(), sum(3)),
        ("water_clipped".into(), ledger.clipped),
    ];
    if setup.forcing.any_sources {
        t.push(("water_sources".into(), ledger.sources[0]));
        t.push(("pollutant_sources".into(), ledger.sources[1]));
    }
    if setup.forcing.any_open {
        let inflow = water - ledger.start_water - ledger.clipped - ledger.sources[0];
        t.push(("water_open_inflow".into(), inflow));
    }
    // The pollutant's ledger: what was there, what came in (sources, faces), what went out,
    // and what that leaves unexplained of what is there now.
    let [water_in, water_out, in_c, out_c] = ledger.boundary;
    let imbalance = sum(3) - ledger.start_pollutant - ledger.sources[1] - in_c + out_c;
    t.extend([
        ("water_boundary_in".into(), water_in),
        ("water_boundary_out".into(), water_out),
        ("pollutant_start".into(), ledger.start_pollutant),
        ("pollutant_boundary_in".into(), in_c),
        ("pollutant_boundary_out".into(), out_c),
        ("pollutant_imbalance".into(), imbalance),
    ]);
    t
}

/// The totals (summed over slabs and ranks) and the pollutant's imbalance relative to all the
/// pollutant that was ever in the domain (at the start, from sources, in through faces), then
/// the concentration's bounds seen so far (`Ledger::conc_bounds`, the largest over slabs and
/// ranks): `concentration_max_seen`, `concentration_below_zero_seen` (0: never negative).
pub fn with_relative(ranks: &dyn crate::framework::ranks::Ranks, mut t: Vec<(String, f64)>, bounds: [f64; 2]) -> Vec<(String, f64)> {
    let get = |name: &str| t.iter().find(|(k, _)| k == name).map_or(0.0, |(_, v)| *v);
    let entered = get("pollutant_start") + get("pollutant_sources") + get("pollutant_boundary_in");
    let imbalance = get("pollutant_imbalance");
    let relative = if entered > 0.0 { imbalance / entered } else { imbalance };
    t.push(("pollutant_imbalance_relative".into(), relative));
    t.push(("concentration_max_seen".into(), ranks.max(bounds[0])));
    t.push(("concentration_below_zero_seen".into(), ranks.max(bounds[1])));
    t
}

/// The pollutant mass of interior (h, q_x, q_y, hC).
pub fn pollutant(setup: &SweSetup, values: &[f64]) -> f64 {
    let n = setup.grid.points();
    values[3 * n..4 * n].iter().sum::<f64>() * setup.grid.h[0] * setup.grid.h[1]
}

/// The water volume of interior (h, q_x, q_y, hC).
pub fn water(setup: &SweSetup, values: &[f64]) -> f64 {
    values[..setup.grid.points()].iter().sum::<f64>() * setup.grid.h[0] * setup.grid.h[1]
}

impl BuildIn for SweSetup {
    fn build_in<R: Real>(&self, target: &Target) -> Result<Box<dyn Simulation>> {
        let (w, bed) = self.initial_fields();
        let setup = self.with_thin_depth(&w[..self.grid.points()]);
        match target {
            Target::Cpu => {
                let ranks = ranks::world();
                let part = setup.slab_of(ranks.rank(), ranks.size()).map_err(SolverError::Other)?;
                let local = slab::local_setup(&setup, &part);
                let (w, bed) = slab::local_fields(&setup, &local, &part, &w, &bed);
                let whole = [setup.grid.cells[0], setup.grid.cells[1]];
                Ok(Box::new(cpu::CpuSwe::<R>::new(local, ranks, part, whole, &w, &bed)))
            }
            Target::Cuda(dev) => Ok(Box::new(cuda::CudaSwe::<R>::new(
                &setup,
                ranks::world(),
                dev.clone(),
                setup.gpus,
                &w,
                &bed,
            )?)),
        }
    }
}

impl Setup for SweSetup {
    fn build(&self, target: &Target, precision: Precision) -> Result<Box<dyn Simulation>> {
        build_in_precision(self, target, precision)
    }
    /// Slabs of rows, one a device or a rank.
    fn decomposes(&self) -> bool {
        true
    }
    /// The state (h, q_x, q_y, hC) twice and the bed, padded; 1.8e-7 CPU core-seconds a
    /// cell-update (1.1e7 cell-updates/s on the 2-core CI machine, 200^2 and 400^2).
    fn footprint(&self, precision: Precision) -> Option<crate::framework::Footprint> {
        let padded = self.grid.padded_len() as f64 / self.grid.points() as f64;
        let per_cell = 9.0 * padded * precision.bytes() as f64;
        Some(crate::framework::Footprint::per_cell(self.grid.points(), per_cell, 1.8e-7))
    }
    /// The step follows the fastest wave, which changes as the flow does.
    fn dt_policy(&self) -> DtPolicy {
        DtPolicy::Adaptive
    }
    fn physics(&self) -> toml::Table {
        toml::Table::try_from(&self.doc).expect("serializable")
    }
    fn geometry(&self) -> Geometry {
        self.grid.geometry()
    }
    /// The exact depth (dam breaks, Thacker), or the velocity of still water (zero).
    fn exact(&self, clock: &Clock) -> Option<Field> {
        let centre = self.centre();
        if let Initial::LakeAtRest { level, .. } | Initial::StillWater { level, .. } = self.initial {
            // Still water stays still unless forced: by sources, a discharge, another level.
            let still = |o: &forcing::OpenSide| {
                o.discharge.is_none() && o.level.as_ref().is_some_and(|s| s.values.iter().all(|&v| v == level))
            };
            if !(self.forcing.sources.is_empty() && self.forcing.open.iter().all(still)) {
                return None;
            }
            return Some(Field::vector("velocity", 2, Centring::Cell, vec![0.0; 2 * self.grid.points()]));
        }
        initial::exact_depth(&self.initial, [0.0; 3], centre, self.gravity, clock.time)?;
        let h = self.grid.sample(|x| {
            initial::exact_depth(&self.initial, x, centre, self.gravity, clock.time).unwrap_or(f64::NAN)
        });
        Some(Field::scalar("depth", Centring::Cell, h))
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({"grid": self.grid.cells, "gravity": self.gravity, "dry_depth": self.dry})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::specs::spec_doc;
    use crate::cases::FAMILIES;
    use crate::real::Real;

    fn parse(sets: &[&str]) -> Result<SweSetup> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        SweSetup::parse(&spec_doc(FAMILIES, "swe-column", &sets, None, Precision::F64)?)
    }

    /// Steps a CPU run of `template` with `sets` in precision R for `steps` steps (or to its
    /// end), checking after every step that no depth is negative and that every cell holds
    /// 0 <= hC <= C_max h, C_max = 1 the largest initial or inflowing concentration: hC / h within
    /// [0, 1] wherever there is water, to the last bit (no tolerance). Returns the totals at the
    /// start and the end, and the steps taken.
    fn bounded_run<R: Real>(template: &str, sets: &[&str], precision: Precision, steps: usize) -> (Totals, Totals, usize) {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let setup = SweSetup::parse(&spec_doc(FAMILIES, template, &sets, None, precision).unwrap()).unwrap();
        let mut sim = setup.build_in::<R>(&Target::Cpu).unwrap();
        let start = sim.totals().unwrap();
        let n = setup.grid.points();
        let mut clock = Clock { step: 0, time: 0.0 };
        let cfl = 0.9;
        let (mut wet_polluted, mut dry_polluted) = (0usize, 0usize);
        while (clock.step as usize) < steps {
            let dt = sim.stable_dt(cfl).unwrap();
            sim.step(&clock, dt).unwrap();
            clock = Clock { step: clock.step + 1, time: clock.time + dt };
            let w: Vec<R> = crate::real::from_bytes(&sim.save_state().unwrap());
            for i in 0..n {
                let (h, hc) = (w[i], w[3 * n + i]);
                assert!(h >= R::zero() && hc >= R::zero() && hc <= h, "step {}, cell {i}: h {h:?}, hC {hc:?}", clock.step);
                if h > R::zero() {
                    assert!(hc / h <= R::one(), "step {}, cell {i}: C = {:?}", clock.step, hc / h);
                }
                if hc > R::zero() {
                    if h.f64() > setup.dry {
                        wet_polluted += 1;
                    } else {
                        dry_polluted += 1;
                    }
                }
            }
        }
        assert!(wet_polluted > 0, "no polluted water");
        let t = sim.totals().unwrap();
        assert!(total(&t, "concentration_max_seen") <= 1.0 && total(&t, "concentration_below_zero_seen") == 0.0);
        println!("{template}: {} steps, polluted cell-steps {wet_polluted} wet, {dry_polluted} at or below the dry depth", clock.step);
        (start, sim.totals().unwrap(), clock.step as usize)
    }

    type Totals = Vec<(String, f64)>;

    fn total(t: &[(String, f64)], name: &str) -> f64 {
        t.iter().find(|(k, _)| k == name).unwrap_or_else(|| panic!("no total {name}")).1
    }

    /// A discrete maximum principle on wetting and drying at the f64 default dry depth 1e-6:
    /// Thacker's oscillation in a closed paraboloid (its shore moves across 100 x 100 cells,
    /// every cell it leaves drains to a film), a disc of pollutant (C = 1) across the shore;
    /// every step, every cell: 0 <= hC <= h (`bounded_run`). Closed basin: water and pollutant
    /// totals conserved to round-off (relative change below 1e-13), nothing clipped, the
    /// pollutant's ledger closed.
    #[test]
    fn the_pollutant_stays_within_its_bounds_and_is_conserved_while_thackers_shore_moves() {
        let sets = ["shallow-water.dry_depth=1e-6", "shallow-water.pollutant=[{center=[2.9,2.0],radius=0.6}]"];
        let (start, end, steps) = bounded_run::<f64>("swe-thacker", &sets, Precision::F64, 1200);
        let change = |name: &str| (total(&end, name) - total(&start, name)) / total(&start, name);
        println!(
            "thacker f64, {steps} steps: water {:.2e}, pollutant {:.2e} relative change; ledger {:.2e}; clipped {:e}",
            change("water"),
            change("pollutant"),
            total(&end, "pollutant_imbalance_relative"),
            total(&end, "water_clipped")
        );
        assert!(change("water").abs() < 1e-13 && change("pollutant").abs() < 1e-13);
        assert!(total(&end, "pollutant_imbalance_relative").abs() < 1e-13);
        assert_eq!(total(&end, "water_clipped"), 0.0);
        // f32 and its default dry depth 1e-5: the same bounds, bit for bit.
        let (start, end, _) = bounded_run::<f32>("swe-thacker", &sets[1..], Precision::F32, 600);
        let change = (total(&end, "pollutant") - total(&start, "pollutant")) / total(&start, "pollutant");
        println!("thacker f32: pollutant {change:.2e} relative change");
        assert!(change.abs() < 1e-5);
    }

    /// Ritter's dam break onto a dry bed (the front races over cells that were dry, thin and
    /// fast), polluted behind the dam, and a source of cleaner water: bounds every step; the
    /// ledger (water and pollutant out through the outflow side, the source's in) closes.
    #[test]
    fn the_pollutant_stays_within_its_bounds_behind_a_dry_front_and_its_ledger_closes() {
        let sets = [
            "shallow-water.dry_depth=1e-6",
            "shallow-water.pollutant=[{center=[3.0,0.5],radius=2.5}]",
            "shallow-water.sources=[{at=[1.0,0.5],discharge=0.001,concentration=0.25}]",
            "grid.dims=[200,1,1]",
        ];
        let (_, end, steps) = bounded_run::<f64>("swe-dam-break-dry", &sets, Precision::F64, 3000);
        let relative = total(&end, "pollutant_imbalance_relative");
        println!(
            "ritter, {steps} steps: pollutant out {:.6e}, ledger {relative:.2e}",
            total(&end, "pollutant_boundary_out")
        );
        assert!(total(&end, "pollutant_boundary_out") > 0.0, "the pollutant reaches the outflow side");
        assert!(relative.abs() < 1e-12, "{relative}");
        assert_eq!(total(&end, "water_clipped"), 0.0);
    }

    /// Ghost-cell expansion on CUDA devices: halo rows (2 a ghost row: a step reads two rows
    /// beyond a slab) up to the rows of the smallest slab (12 rows over 2 devices: 6, so 3 ghost
    /// rows); more, or none, is refused naming the key.
    #[test]
    fn ghost_rows_are_refused_only_beyond_a_slab() {
        let rows = |k: usize| format!("shallow-water.ghost_rows={k}");
        let cuda = ["run.backend=\"cuda\"", "run.gpus=2", "grid.dims=[40,12,1]"];
        for k in 1..=3 {
            let s = parse(&[&cuda[..], &[rows(k).as_str()]].concat()).unwrap();
            assert_eq!((s.ghost_rows, s.grid.halo), (k, [1, 2 * k, 0]));
        }
        for (k, needle) in [(4, "own 6 rows at the least, and each step reads 2 rows beyond a slab; set at most 3"), (0, "must be at least 1")] {
            let e = parse(&[&cuda[..], &[rows(k).as_str()]].concat()).unwrap_err().to_string();
            assert!(e.contains("shallow-water.ghost_rows") && e.contains(needle), "{e}");
        }
        // One slab (the CPU backend in one process ignores run.gpus): nothing to reach beyond.
        let cpu = parse(&["run.backend=\"cpu\"", "run.gpus=2", "grid.dims=[40,12,1]", &rows(7)]);
        assert!(cpu.is_ok(), "{:?}", cpu.err());
        // Fewer than 2 rows a slab is the grid's problem, whatever the ghost rows.
        let e = parse(&["run.backend=\"cuda\"", "run.gpus=8", "grid.dims=[40,12,1]", &rows(3)]).unwrap_err();
        assert!(e.to_string().contains("grid.dims"), "{e}");
    }
}
