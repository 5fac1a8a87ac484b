//! A rank's part of a decomposed shallow-water run: a slab of rows along y (`ranks::Slab`),
//! its setup (neighbour faces where other ranks are), its share of the initial state and of the
//! bed (ghost rows included, cut from the whole bed), and the moves between the slab and the
//! whole grid: the ghost rows exchanged each step, fields and state gathered for output and
//! checkpoints, the state of a checkpoint cut back into slabs.

use super::SweSetup;
use crate::framework::ranks::{Ranks, Slab};
use crate::grid::{halo, parts, FaceBc, GridSpec, StructuredGrid};
use crate::output::Centring;
use crate::real::{to_bytes, Real};

/// The state's components: (h, q_x, q_y, hC).
const COMPONENTS: usize = 4;

/// How far beyond the rows it updates a step reads: two rows (a cell's water and pollutant
/// come from its neighbours at their donors' shares, and a share depends on the donor's
/// neighbours: `cpu::transport`). A slab holds `REACH` halo rows a ghost row (`ghost_rows` =
/// steps between exchanges).
pub const REACH: usize = 2;

/// The setup of `slab`'s rows: its grid (the whole grid's rows start..end), neighbour faces
/// on the sides where other ranks are.
pub fn local_setup(setup: &SweSetup, slab: &Slab) -> SweSetup {
    let mut local = setup.clone();
    if slab.size == 1 {
        return local;
    }
    let g = &setup.grid;
    let spec = GridSpec {
        cells: [g.cells[0], slab.rows(), 1],
        origin: [g.origin[0], g.origin[1] + slab.start as f64 * g.h[1], g.origin[2]],
        extent: [g.extent[0], slab.rows() as f64 * g.h[1], g.extent[2]],
    };
    for bc in [&mut local.bc, &mut local.bed_bc] {
        if slab.has_below() {
            bc.faces[1][0] = FaceBc::Neighbour;
        }
        if slab.has_above() {
            bc.faces[1][1] = FaceBc::Neighbour;
        }
    }
    local.grid = StructuredGrid::new(&spec, Centring::Cell, &local.bc, g.halo, COMPONENTS);
    local.forcing = setup.forcing.for_rows(slab.start, slab.end, g.halo[1], slab.has_below(), slab.has_above());
    local
}

/// The rank's interior initial state and its padded bed (ghost rows from the whole bed), from
/// the whole grid's initial state `w` and bed `bed`.
pub fn local_fields(setup: &SweSetup, local: &SweSetup, slab: &Slab, w: &[f64], bed: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let g = &setup.grid;
    let whole_bed_grid = StructuredGrid { components: 1, ..g.clone() };
    let mut padded = whole_bed_grid.pad(bed);
    halo::fill(&whole_bed_grid, &setup.bed_bc, &mut padded);
    // Padded rows start..end + 2 halo of the whole grid are the slab's padded rows (same x
    // layout: the same cells along x).
    let (px, hy) = (whole_bed_grid.padded()[0], g.halo[1]);
    let local_bed = padded[slab.start * px..(slab.end + 2 * hy) * px].to_vec();
    debug_assert_eq!(local_bed.len(), local.grid.padded_len());
    (parts::cut(w, COMPONENTS, g.cells[0], slab), local_bed)
}

/// Ghost-cell expansion, the same on every backend: at step `step` (counted from the start or
/// a restart) of a slab of `ny` rows with `depth` ghost rows beside other slabs (`REACH * depth`
/// halo rows), the rows it updates (its own, and `REACH * (depth - 1 - step % depth)` halo rows
/// beyond each side that has a neighbour) and whether the halo rows arrive before the update
/// (every `depth` steps). The halo rows updated are those whose neighbours within `REACH` the
/// previous update (or the exchange) left equal to their owner's: each update reads `REACH`
/// rows beyond the rows it updates.
pub fn updated_rows(step: usize, depth: usize, ny: usize, slab: &Slab) -> (std::ops::Range<isize>, bool) {
    let extra = (REACH * (depth - 1 - step % depth)) as isize;
    let lo = if slab.has_below() { -extra } else { 0 };
    let hi = ny as isize + if slab.has_above() { extra } else { 0 };
    (lo..hi, step.is_multiple_of(depth))
}

/// The rows that an update of rows `rows` reads: `REACH` more beside each other slab (the
/// sources must change all of them, as their owners do).
pub fn read_rows(rows: &std::ops::Range<isize>, slab: &Slab) -> std::ops::Range<isize> {
    let reach = REACH as isize;
    rows.start - reach * isize::from(slab.has_below())..rows.end + reach * isize::from(slab.has_above())
}

/// The rows whose x ghosts (and open x sides) an update of rows `rows` needs: one more beside
/// each other slab (the donors' shares of the row beyond the updated ones are found).
pub fn filled_rows(rows: &std::ops::Range<isize>, slab: &Slab) -> std::ops::Range<isize> {
    rows.start - isize::from(slab.has_below())..rows.end + isize::from(slab.has_above())
}

/// Exchange the ghost rows of the padded state `w` (grid `g`, `g.halo[1]` ghost rows) with the
/// ranks below and above: each sends as many of its first and last owned rows, every component,
/// and receives the neighbours' (the grid layer's exchange of a slab along y, not a ring).
pub fn exchange_ghost_rows<R: Real>(ranks: &dyn Ranks, g: &StructuredGrid, slab: &Slab, w: &mut [R]) {
    let split = parts::Split {
        axis: 1,
        slab: *slab,
        ring: false,
    };
    parts::exchange_host(ranks, g, &split, w);
}

pub use crate::grid::parts::{gather_fields, sum_totals};

/// The whole interior state (component after component) on rank 0, from the ranks' interiors.
pub fn gather_state<R: Real>(ranks: &dyn Ranks, local: &[R]) -> Vec<u8> {
    let n = local.len() / COMPONENTS;
    parts::gather_components(ranks, local.chunks(n).map(to_bytes).collect())
}

/// The slab's rows of a whole interior state `nx` cells wide (a checkpoint's, which every
/// rank reads).
pub fn cut_state<R: Real>(nx: usize, slab: &Slab, whole: &[R]) -> Vec<R> {
    parts::cut(whole, COMPONENTS, nx, slab)
}

/// The first bad cell of the whole grid (x fastest), its state (h, q_x, q_y, hC) and the rank
/// that holds it, from each rank's first bad cell (numbered in the whole grid) and its state,
/// if any. Every rank gets the same answer.
pub fn first_bad(ranks: &dyn Ranks, mine: Option<(usize, [f64; 4])>) -> Option<BadCell> {
    let first = -ranks.max(mine.map_or(f64::NEG_INFINITY, |(cell, _)| -(cell as f64)));
    if !first.is_finite() {
        return None;
    }
    let owner = mine.filter(|&(cell, _)| cell as f64 == first);
    let mut local = owner.map_or([0.0; 4], |(_, v)| v).to_vec();
    local.push(owner.map_or(0.0, |_| ranks.rank() as f64));
    let all = ranks.sum(&local);
    Some(BadCell {
        cell: first as usize,
        state: [all[0], all[1], all[2], all[3]],
        rank: (ranks.size() > 1).then_some(all[4] as usize),
    })
}

/// A cell whose state is not sound: where, what it holds, on which rank (of several).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BadCell {
    pub cell: usize,
    pub state: [f64; 4],
    pub rank: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row a step reads was updated by the step before or has just arrived, for slabs
    /// with neighbours on either side or both, 1 to 4 ghost rows, over three cycles.
    #[test]
    fn ghost_rows_updated_again_stay_inside_what_is_valid() {
        let ny = 10;
        for (rank, size) in [(0, 2), (1, 2), (1, 3)] {
            let slab = Slab { rank, size, start: 0, end: ny };
            for depth in 1..=4 {
                // The rows holding this step's values: own rows at the start (ghosts unknown).
                let mut valid = 0..ny as isize;
                for step in 0..3 * depth {
                    let (rows, arrive) = updated_rows(step, depth, ny, &slab);
                    assert_eq!(arrive, step % depth == 0);
                    if arrive {
                        let d = (REACH * depth) as isize;
                        valid = valid.start.min(if slab.has_below() { -d } else { 0 })
                            ..valid.end.max(ny as isize + if slab.has_above() { d } else { 0 });
                    }
                    let read = read_rows(&rows, &slab);
                    assert!(valid.start <= read.start && read.end <= valid.end, "{depth} {step}: {read:?} {valid:?}");
                    assert!(read.start >= -((REACH * depth) as isize) && read.end <= (ny + REACH * depth) as isize);
                    assert!(rows.start <= 0 && rows.end >= ny as isize);
                    valid = rows;
                }
                // Just before an exchange no ghost row is updated: the cycle uses all of them.
                let (last, _) = updated_rows(depth - 1, depth, ny, &slab);
                assert_eq!(last, 0..ny as isize);
            }
        }
    }
}
