//! The forcing of a shallow-water case: open sides whose ghosts follow a prescribed level
//! and/or discharge in time (a tide, a river), and point sources of water and pollutant
//! (section.rs says what each does). The CPU applies them here; the device does the same
//! arithmetic (swe.cu, `swe_open`, `swe_sources`) on the series packed by [`Packed`].

use super::section::SweSection;
use super::series::Series;
use crate::error::Result;
use crate::framework::CaseDoc;
use crate::grid::{BoundarySet, FaceBc, StructuredGrid};
use crate::real::Real;

/// An open side, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenSide {
    pub axis: usize,
    /// 0: the low side (x-, y-), 1: the high side.
    pub side: usize,
    pub level: Option<Series>,
    /// Discharge per unit width into the domain.
    pub discharge: Option<Series>,
    pub concentration: Option<f64>,
}

/// A point source, checked: its cell (i, j) and discharge. In a slab, j counts from the slab's
/// first row and may lie in its ghost rows (which other slabs own: `owned` false).
#[derive(Clone, Debug, PartialEq)]
pub struct PointSource {
    pub cell: [isize; 2],
    pub owned: bool,
    pub discharge: Series,
    pub concentration: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Forcing {
    pub open: Vec<OpenSide>,
    pub sources: Vec<PointSource>,
    /// Whether the whole case has sources / open sides (the totals report them on every slab,
    /// whatever its share).
    pub any_sources: bool,
    pub any_open: bool,
}

impl Forcing {
    /// The open sides and sources of the section on this grid; errors name the key, and the
    /// file and line of a bad series.
    pub fn parse(doc: &CaseDoc, s: &SweSection, grid: &StructuredGrid, bc: &BoundarySet) -> Result<Forcing> {
        let mut forcing = Forcing {
            open: open_sides(doc, s, grid, bc)?,
            sources: sources(doc, s, grid)?,
            ..Forcing::default()
        };
        forcing.any_sources = !forcing.sources.is_empty();
        forcing.any_open = !forcing.open.is_empty();
        Ok(forcing)
    }

    /// The forcing of the slab of rows `start..end` with `ghost` ghost rows: its sources (rows
    /// counted from the slab's first; those in the ghost rows too, which the slab updates again),
    /// the open sides along x, and those along y where the slab has the grid's side (`below` /
    /// `above`: other slabs are there).
    pub fn for_rows(&self, start: usize, end: usize, ghost: usize, below: bool, above: bool) -> Forcing {
        let open = self
            .open
            .iter()
            .filter(|o| o.axis == 0 || (o.side == 0 && !below) || (o.side == 1 && !above))
            .cloned()
            .collect();
        let sources = self
            .sources
            .iter()
            .filter(|s| (start as isize - ghost as isize..(end + ghost) as isize).contains(&s.cell[1]))
            .map(|s| PointSource {
                cell: [s.cell[0], s.cell[1] - start as isize],
                owned: (start as isize..end as isize).contains(&s.cell[1]),
                ..s.clone()
            })
            .collect();
        Forcing { open, sources, ..self.clone() }
    }

    /// The ghosts of the open sides at time t (after the halo fill), from the interior cells
    /// beside them and the bed's ghosts; the x sides in rows `rows` (a slab's ghost rows too).
    pub fn fill_open<R: Real>(&self, g: &StructuredGrid, bed: &[R], w: &mut [R], dry: R, t: f64, rows: std::ops::Range<isize>) {
        let len = g.padded_len();
        for o in &self.open {
            let a = o.axis;
            let level = o.level.as_ref().map(|s| s.at(t));
            // Positive discharges flow into the domain: along +axis on the low side.
            let sign = if o.side == 0 { 1.0 } else { -1.0 };
            let q = o.discharge.as_ref().map(|s| R::of(sign * s.at(t)));
            let along = if a == 0 { rows.clone() } else { 0..g.n[0] as isize };
            for r in along {
                let (edge, ghost) = if o.side == 0 { (0, -1) } else { (g.n[a] as isize - 1, g.n[a] as isize) };
                let idx = |v: isize| if a == 0 { g.at(v, r, 0) } else { g.at(r, v, 0) };
                let (p, gp) = (idx(edge), idx(ghost));
                let v = open_ghost(
                    [w[p], w[(1 + a) * len + p], w[(2 - a) * len + p], w[3 * len + p]],
                    bed[gp],
                    level,
                    q,
                    o.concentration,
                    dry,
                );
                for (k, comp) in [0, 1 + a, 2 - a, 3].into_iter().enumerate() {
                    w[comp * len + gp] = v[k];
                }
            }
        }
    }

    /// Add each source's water and pollutant over a step of dt from time t (cell by cell, in
    /// order) in rows `rows`, and the volume of water and the pollutant the slab's own sources
    /// added to `added`.
    pub fn add_sources<R: Real>(&self, g: &StructuredGrid, w: &mut [R], t: f64, dt: f64, added: &mut [f64; 2], rows: std::ops::Range<isize>) {
        let (len, area) = (g.padded_len(), g.h[0] * g.h[1]);
        for s in self.sources.iter().filter(|s| rows.contains(&s.cell[1])) {
            let p = g.at(s.cell[0], s.cell[1], 0);
            let q = s.discharge.at(t);
            let (water, pollutant) = (R::of(q * dt / area), R::of(q * s.concentration * dt / area));
            w[p] = w[p] + water;
            w[3 * len + p] = w[3 * len + p] + pollutant;
            if s.owned {
                added[0] += water.f64() * area;
                added[1] += pollutant.f64() * area;
            }
        }
    }
}

/// The checked open sides of the section.
fn open_sides(doc: &CaseDoc, s: &SweSection, grid: &StructuredGrid, bc: &BoundarySet) -> Result<Vec<OpenSide>> {
    let mut open: Vec<OpenSide> = Vec::new();
    for (k, o) in s.open.iter().enumerate() {
        let key = format!("shallow-water.open[{k}]");
        let (axis, side) = match o.side.as_str() {
            "x-" => (0, 0),
            "x+" => (0, 1),
            "y-" => (1, 0),
            "y+" => (1, 1),
            other => return Err(doc.error(&format!("{key}.side"), format!("`{other}`: give \"x-\", \"x+\", \"y-\" or \"y+\""))),
        };
        if grid.cells[axis] < 2 {
            return Err(doc.error(&format!("{key}.side"), format!("the grid has one cell along {}: no side to open", o.side)));
        }
        if bc.faces[axis][side] == FaceBc::Periodic {
            return Err(doc.error(&format!("{key}.side"), format!("{} is periodic in shallow-water.boundary; make it \"reflect\" or \"outflow\"", o.side)));
        }
        if open.iter().any(|f| (f.axis, f.side) == (axis, side)) {
            return Err(doc.error(&format!("{key}.side"), format!("{} is opened twice", o.side)));
        }
        if o.level.is_none() && o.discharge.is_none() {
            return Err(doc.error(&key, "give `level`, `discharge` or both"));
        }
        if let Some(c) = o.concentration.filter(|c| !(c.is_finite() && *c >= 0.0)) {
            return Err(doc.error(&format!("{key}.concentration"), format!("must be 0 or positive, got {c}")));
        }
        let load = |spec: &Option<super::series::SeriesSpec>, name: &str| {
            spec.as_ref()
                .map(|sp| sp.load(doc).map_err(|e| doc.error(&format!("{key}.{name}"), e)))
                .transpose()
        };
        open.push(OpenSide {
            axis,
            side,
            level: load(&o.level, "level")?,
            discharge: load(&o.discharge, "discharge")?,
            concentration: o.concentration,
        });
    }
    Ok(open)
}

/// The checked point sources of the section.
fn sources(doc: &CaseDoc, s: &SweSection, grid: &StructuredGrid) -> Result<Vec<PointSource>> {
    let mut sources = Vec::new();
    for (k, src) in s.sources.iter().enumerate() {
        let key = format!("shallow-water.sources[{k}]");
        let cell: Vec<Option<usize>> = (0..2)
            .map(|a| {
                let u = (src.at[a] - grid.origin[a]) / grid.h[a];
                (u >= 0.0 && u < grid.cells[a] as f64).then_some((u as usize).min(grid.cells[a] - 1))
            })
            .collect();
        let (Some(i), Some(j)) = (cell[0], cell[1]) else {
            let hi = |a: usize| grid.origin[a] + grid.extent[a];
            return Err(doc.error(
                &format!("{key}.at"),
                format!(
                    "{:?} is outside the grid, x in [{}, {}), y in [{}, {})",
                    src.at,
                    grid.origin[0],
                    hi(0),
                    grid.origin[1],
                    hi(1)
                ),
            ));
        };
        let discharge = src
            .discharge
            .load(doc)
            .map_err(|e| doc.error(&format!("{key}.discharge"), e))?;
        if discharge.min() < 0.0 {
            return Err(doc.error(
                &format!("{key}.discharge"),
                format!("{} is negative: sources add water, they cannot take it away", discharge.min()),
            ));
        }
        if !(src.concentration.is_finite() && src.concentration >= 0.0) {
            return Err(doc.error(&format!("{key}.concentration"), format!("must be 0 or positive, got {}", src.concentration)));
        }
        sources.push(PointSource {
            cell: [i as isize, j as isize],
            owned: true,
            discharge,
            concentration: src.concentration,
        });
    }
    Ok(sources)
}

/// An open side's ghost (h, q_n, q_t, hC) from the interior cell beside it (in the side's
/// frame), the ghost's bed depth, the level and the inflowing discharge (signed along the axis)
/// if prescribed. swe.cu's `open_ghost` is the same, line by line.
pub fn open_ghost<R: Real>(inner: [R; 4], bed: R, level: Option<f64>, q: Option<R>, conc: Option<f64>, dry: R) -> [R; 4] {
    let [h_in, qn_in, qt_in, hc_in] = inner;
    let h = match level {
        Some(eta) => R::of(eta + bed.f64()).max(R::zero()),
        None => h_in,
    };
    if h <= dry {
        return [h, R::zero(), R::zero(), R::zero()];
    }
    let hc = match (conc, level) {
        (Some(c), _) => h * R::of(c),
        (None, None) => hc_in,
        (None, Some(_)) if h_in > dry => h * (hc_in / h_in),
        (None, Some(_)) => R::zero(),
    };
    [h, q.unwrap_or(qn_in), qt_in, hc]
}

/// The series and sources as the device reads them: every series' times then values in one
/// array of doubles, each series named by (offset, length).
#[derive(Clone, Debug, Default)]
pub struct Packed {
    pub series: Vec<f64>,
}

impl Packed {
    /// Append a series; its (offset, length), or (0, 0) for none.
    pub fn add(&mut self, s: Option<&Series>) -> [i32; 2] {
        let Some(s) = s else { return [0, 0] };
        let offset = self.series.len() as i32;
        self.series.extend_from_slice(&s.times);
        self.series.extend_from_slice(&s.values);
        [offset, s.times.len() as i32]
    }
}
