//! The padded memory layout of a structured grid: x fastest, `halo[a]` ghost layers on each
//! side of axis a, rows starting on 128-byte boundaries (so a warp's loads hit whole sectors),
//! components one after another (structure of arrays). Both backends index it the same way.

use super::{BoundarySet, GridSpec};
use crate::output::{Centring, Geometry};

#[derive(Clone, Debug, PartialEq)]
pub struct StructuredGrid {
    pub cells: [usize; 3],
    pub origin: [f64; 3],
    pub extent: [f64; 3],
    /// Values sit at cell centres, or on the vertices.
    pub centring: Centring,
    /// Values stored per axis: the cells (cell-centred, or vertex-centred and periodic, where
    /// the last vertex is the first one's image), else cells + 1.
    pub n: [usize; 3],
    /// Cell size per axis.
    pub h: [f64; 3],
    /// Ghost layers per side, per axis (0 on an unused axis).
    pub halo: [usize; 3],
    pub components: usize,
    /// Offset of i = 0 within a padded row (>= halo[0]) and the row pitch.
    pub xoff: usize,
    pub pitch: usize,
    /// The whole grid's index of this grid's first value per axis: zero, but on a part of a
    /// decomposed grid (`parts`), so that messages name cells as the whole grid counts them.
    pub first: [usize; 3],
}

impl StructuredGrid {
    pub fn new(spec: &GridSpec, centring: Centring, bc: &BoundarySet, halo: [usize; 3], components: usize) -> Self {
        let n = std::array::from_fn(|a| match centring {
            Centring::Point if !bc.is_periodic(a) => spec.cells[a] + 1,
            _ => spec.cells[a],
        });
        StructuredGrid {
            cells: spec.cells,
            origin: spec.origin,
            extent: spec.extent,
            centring,
            n,
            h: std::array::from_fn(|a| spec.extent[a] / spec.cells[a] as f64),
            halo,
            components,
            xoff: halo[0],
            pitch: n[0] + 2 * halo[0],
            first: [0; 3],
        }
    }

    /// The same grid with rows aligned to 128 bytes for elements of `elem_bytes`.
    pub fn aligned_for(&self, elem_bytes: usize) -> Self {
        let per_line = (128 / elem_bytes).max(1);
        let xoff = self.halo[0].max(per_line);
        let pitch = (xoff + self.n[0] + self.halo[0]).div_ceil(per_line) * per_line;
        StructuredGrid {
            xoff,
            pitch,
            ..self.clone()
        }
    }

    /// A padded array of this grid laid out for `to`, the same grid with other row offsets
    /// (e.g. `aligned_for`): every stored value, ghosts included, moves to its place in `to`.
    pub fn relayout<T: Copy + Default>(&self, to: &StructuredGrid, padded: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); to.padded_len() * self.components];
        let (h, row) = (self.halo[0], self.n[0] + 2 * self.halo[0]);
        let rows = self.padded_len() / self.pitch;
        for c in 0..self.components {
            for r in 0..rows {
                let src = c * self.padded_len() + r * self.pitch + self.xoff - h;
                let dst = c * to.padded_len() + r * to.pitch + to.xoff - h;
                out[dst..dst + row].copy_from_slice(&padded[src..src + row]);
            }
        }
        out
    }

    /// The row (j, ghosts negative or from n) of padded index p.
    pub fn row_of(&self, p: usize) -> isize {
        let py = self.n[1] + 2 * self.halo[1];
        ((p / self.pitch) % py) as isize - self.halo[1] as isize
    }

    /// Interior values per component.
    pub fn points(&self) -> usize {
        self.n.iter().product()
    }

    /// Padded extents: [row pitch, ny + 2 halo, nz + 2 halo].
    pub fn padded(&self) -> [usize; 3] {
        [self.pitch, self.n[1] + 2 * self.halo[1], self.n[2] + 2 * self.halo[2]]
    }

    /// Padded values per component (the stride between components).
    pub fn padded_len(&self) -> usize {
        self.padded().iter().product()
    }

    /// Index in a padded component of interior value (i, j, k); ghosts are -halo..0 and n..n+halo.
    #[inline]
    pub fn at(&self, i: isize, j: isize, k: isize) -> usize {
        let p = self.padded();
        let (hy, hz) = (self.halo[1] as isize, self.halo[2] as isize);
        ((i + self.xoff as isize) + p[0] as isize * ((j + hy) + p[1] as isize * (k + hz))) as usize
    }

    /// Interior value `p` (x fastest) as the whole grid counts it: (i, j, k).
    pub fn whole_index(&self, p: usize) -> (usize, usize, usize) {
        let [nx, ny, _] = self.n;
        let f = self.first;
        (p % nx + f[0], (p / nx) % ny + f[1], p / (nx * ny) + f[2])
    }

    /// Position of value (i, j, k): a vertex, or a cell centre.
    pub fn coord(&self, i: usize, j: usize, k: usize) -> [f64; 3] {
        let idx = [i, j, k];
        let shift = if self.centring == Centring::Cell { 0.5 } else { 0.0 };
        std::array::from_fn(|a| self.origin[a] + (idx[a] as f64 + shift) * self.h[a])
    }

    /// `f` at every interior position, x fastest (in parallel: a large grid's initial state
    /// is sampled once per run, before anything else can start).
    pub fn sample(&self, f: impl Fn([f64; 3]) -> f64 + Sync) -> Vec<f64> {
        self.sample_range(0..self.points(), f)
    }

    /// `f` at the interior positions numbered `points` (x fastest): a part's planes of the
    /// whole grid, at the very coordinates the whole grid's sample takes.
    pub fn sample_range(&self, points: std::ops::Range<usize>, f: impl Fn([f64; 3]) -> f64 + Sync) -> Vec<f64> {
        use rayon::prelude::*;
        let [nx, ny, _] = self.n;
        points
            .into_par_iter()
            .map(|p| f(self.coord(p % nx, (p / nx) % ny, p / (nx * ny))))
            .collect()
    }

    /// Interior values (components one after another, x fastest) into a zeroed padded array
    /// (row by row in parallel: a large grid's state is padded when a run starts or restarts).
    pub fn pad<T: Copy + Default + Send + Sync>(&self, interior: &[T]) -> Vec<T> {
        use rayon::prelude::*;
        let mut out = vec![T::default(); self.padded_len() * self.components];
        let [nx, ny, nz] = self.n;
        let [px, py, pz] = self.padded();
        let (hy, hz, points) = (self.halo[1], self.halo[2], self.points());
        out.par_chunks_mut(px).enumerate().for_each(|(r, row)| {
            let (c, jp, kp) = (r / (py * pz), r % py, (r / py) % pz);
            if jp < hy || jp >= ny + hy || kp < hz || kp >= nz + hz {
                return;
            }
            let src = c * points + nx * ((jp - hy) + ny * (kp - hz));
            row[self.xoff..self.xoff + nx].copy_from_slice(&interior[src..src + nx]);
        });
        out
    }

    /// The interior of a padded array, components one after another, x fastest (row by row in
    /// parallel).
    pub fn unpad<T: Copy + Default + Send + Sync>(&self, padded: &[T]) -> Vec<T> {
        use rayon::prelude::*;
        let [nx, ny, nz] = self.n;
        let mut out = vec![T::default(); self.points() * self.components];
        out.par_chunks_mut(nx).enumerate().for_each(|(r, row)| {
            let (c, j, k) = (r / (ny * nz), r % ny, (r / ny) % nz);
            let s = c * self.padded_len() + self.at(0, j as isize, k as isize);
            row.copy_from_slice(&padded[s..s + nx]);
        });
        out
    }

    /// The output geometry: vertex values as point data on the stored vertices; cell values as
    /// cell data on an image one point larger on every axis that has more than one cell.
    pub fn geometry(&self) -> Geometry {
        let points = match self.centring {
            Centring::Point => self.n,
            Centring::Cell => self.cells.map(|c| if c > 1 { c + 1 } else { 1 }),
        };
        Geometry::Image {
            points,
            origin: self.origin,
            spacing: self.h,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(cells: [usize; 3]) -> GridSpec {
        GridSpec {
            cells,
            origin: [0.0; 3],
            extent: [1.0; 3],
        }
    }

    #[test]
    fn dims_count_cells_on_both_centrings() {
        let mut bc = BoundarySet::periodic();
        bc.faces[1] = [super::super::FaceBc::Outflow, super::super::FaceBc::Outflow];
        let v = StructuredGrid::new(&spec([8, 8, 8]), Centring::Point, &bc, [4; 3], 1);
        assert_eq!(v.n, [8, 9, 8]);
        assert_eq!(v.h, [0.125; 3]);
        let c = StructuredGrid::new(&spec([8, 8, 1]), Centring::Cell, &bc, [2, 2, 0], 4);
        assert_eq!(c.n, [8, 8, 1]);
        assert_eq!(c.padded(), [12, 12, 1]);
        assert_eq!(c.coord(0, 0, 0), [0.0625, 0.0625, 0.5]);
        match c.geometry() {
            Geometry::Image { points, .. } => assert_eq!(points, [9, 9, 1]),
            _ => unreachable!(),
        }
    }

    #[test]
    fn pad_and_unpad_are_inverse_for_several_components() {
        let g = StructuredGrid::new(&spec([5, 3, 1]), Centring::Cell, &BoundarySet::periodic(), [2, 2, 0], 3)
            .aligned_for(8);
        assert_eq!(g.xoff % 16, 0);
        assert_eq!(g.pitch % 16, 0);
        let v: Vec<f64> = (0..g.points() * 3).map(|i| i as f64).collect();
        let padded = g.pad(&v);
        assert_eq!(g.unpad(&padded), v);
        // Each value where `at` says, the ghosts and the padding zero.
        let [nx, ny, _] = g.n;
        for (p, &x) in v.iter().enumerate() {
            let (c, cell) = (p / g.points(), p % g.points());
            let at = g.at(
                (cell % nx) as isize,
                ((cell / nx) % ny) as isize,
                (cell / (nx * ny)) as isize,
            );
            assert_eq!(padded[c * g.padded_len() + at], x);
        }
        assert_eq!(padded.iter().filter(|&&x| x != 0.0).count(), v.len() - 1);
    }
}
