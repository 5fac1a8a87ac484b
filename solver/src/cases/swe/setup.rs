//! A parsed shallow-water case: the section checked, the grid with its halo (`REACH` rows a
//! ghost row), boundaries, forcing and bed; how it splits into the grid layer's parts (slabs of
//! rows along y: `part`, `part_bed`); `build` makes the simulation of the whole grid or of this
//! process's parts on a backend and precision.

use super::section::{Initial, SweSection};
use super::{bathymetry, forcing, initial, series};
use crate::backend::Target;
use crate::error::Result;
use crate::framework::ranks;
use crate::framework::{build_in_precision, CaseDoc, Clock, DtPolicy, Precision, Setup, Simulation};
use crate::grid::parts::{self, Cadence, Link, Split};
use crate::grid::{halo, BoundarySet, FaceBc, GridSection, StructuredGrid};
use crate::output::{Centring, Field, Geometry};
use serde::{Deserialize, Serialize};

/// How far beyond the rows it updates a step reads: two rows (a cell's water and pollutant
/// come from its neighbours at their donors' shares, and a share depends on the donor's
/// neighbours: `cpu::transport`). A part holds `REACH` halo rows a ghost row beside another
/// (`shallow-water.ghost_rows` = steps between exchanges: the halo's `Cadence`).
pub const REACH: usize = 2;

/// The state's components: (h, q_x, q_y, hC).
pub(super) const COMPONENTS: usize = 4;

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
    /// Ghost rows beside other parts (`shallow-water.ghost_rows`).
    pub ghost_rows: usize,
    /// The rows this setup's simulation holds: the whole grid's, or a part's of a decomposed
    /// run, with `link` its neighbours (`grid::parts`).
    pub split: Split,
    pub link: Option<Link>,
    /// Bed elevations per cell (x fastest) read from a bathymetry file.
    pub bed_file: Option<Vec<f64>>,
    pub initial: Initial,
    section: SweSection,
    doc: SweDoc,
}

impl SweSetup {
    pub fn parse(doc: &CaseDoc) -> Result<Self> {
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
        // Every rank, and every device of each, takes a part (devices only on CUDA).
        let ranks = ranks::world();
        let gpus = if doc.run.backend == crate::framework::config::Backend::Cpu { 1 } else { doc.run.gpus };
        if let Some(msg) = ghost_rows_problem(s.ghost_rows, spec.cells[1], ranks.size() * gpus) {
            return Err(doc.error("shallow-water.ghost_rows", msg));
        }
        let halo = [1, if spec.cells[1] > 1 { REACH * s.ghost_rows } else { 0 }, 0];
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
            split: Split::whole(1, spec.cells[1], Cadence { reach: REACH, every: s.ghost_rows }),
            link: None,
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
        if let Some(e) = setup.split_problem(ranks.size() * gpus) {
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

    /// Why `parts` parts (ranks and devices) cannot share the grid, if they cannot: slabs of
    /// rows along y (not periodic), each owning at least its halo's rows.
    fn split_problem(&self, parts: usize) -> Option<String> {
        if parts < 2 {
            return None;
        }
        if self.bc.is_periodic(1) {
            return Some(format!(
                "{parts} ranks split the grid along y, which is periodic here: periodic y is not decomposed; make y walls or outflow, or run one rank"
            ));
        }
        if self.grid.cells[1] == 1 {
            return Some(format!(
                "{parts} parts cannot share the grid's one row along y (along which shallow water splits): run one rank and one GPU, or a grid with rows"
            ));
        }
        parts::split_with(&self.grid, &self.bc, 0, parts, self.cadence()).err()
    }

    /// The halo beside other parts: `REACH` rows a step, exchanged every `ghost_rows` steps.
    pub fn cadence(&self) -> Cadence {
        Cadence {
            reach: REACH,
            every: self.ghost_rows,
        }
    }

    /// The setup of a part (`link`): its rows of the grid, neighbour faces where other parts
    /// are, its open sides and the sources in its rows and halo rows.
    pub(super) fn part(&self, link: Link) -> SweSetup {
        let (split, g) = (link.split, &self.grid);
        let s = &split.slab;
        SweSetup {
            grid: g.part(&split),
            bc: parts::part_bc(&self.bc, &split),
            bed_bc: parts::part_bc(&self.bed_bc, &split),
            forcing: self.forcing.for_rows(s.start, s.end, g.halo[1], s.has_below(), s.has_above()),
            split,
            link: Some(link),
            ..self.clone()
        }
    }

    /// The padded bed of `part` (this setup's or one of its parts'), its halo rows included,
    /// from the whole grid's bed `bed` (interior cells).
    pub(super) fn part_bed(&self, part: &SweSetup, bed: &[f64]) -> Vec<f64> {
        let g = &self.grid;
        let whole_bed_grid = StructuredGrid { components: 1, ..g.clone() };
        let mut padded = whole_bed_grid.pad(bed);
        halo::fill(&whole_bed_grid, &self.bed_bc, &mut padded);
        // Padded rows start..end + 2 halo of the whole grid are the part's padded rows (the
        // same cells along x).
        let (px, hy, s) = (whole_bed_grid.padded()[0], g.halo[1], &part.split.slab);
        let local = padded[s.start * px..(s.end + 2 * hy) * px].to_vec();
        debug_assert_eq!(local.len(), part.grid.padded_len());
        local
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
/// at all, or halo rows (`REACH` a ghost row) beyond what the smallest slab owns (its
/// neighbours' ghost rows are its own rows; fewer than 2 rows a slab is the grid's problem,
/// which `Slab::of` reports).
fn ghost_rows_problem(ghost: usize, rows: usize, slabs: usize) -> Option<String> {
    let least = rows / slabs;
    if ghost == 0 {
        Some("must be at least 1".into())
    } else if slabs > 1 && (2..REACH * ghost).contains(&least) {
        Some(format!(
            "{ghost} ghost rows reach beyond a slab: {slabs} slabs of the grid's {rows} rows own {least} rows at the least, and each step reads {} rows beyond a slab; set at most {} (or use fewer ranks or devices)",
            REACH,
            (least / REACH).max(1)
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


impl Setup for SweSetup {
    fn build(&self, target: &Target, precision: Precision) -> Result<Box<dyn Simulation>> {
        build_in_precision(self, target, precision)
    }
    /// Slabs of rows, one a device or a rank (`grid::parts`).
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
    use crate::cases::FAMILIES;
    use crate::commands::specs::spec_doc;

    fn parse(sets: &[&str]) -> Result<SweSetup> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        SweSetup::parse(&spec_doc(FAMILIES, "swe-column", &sets, None, Precision::F64)?)
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
