//! Structured grids with a ghost layer of `HALO` points on every side, x fastest. Both
//! backends use this layout, so CPU and CUDA index the same memory the same way.

use crate::config::AxisBoundary;

pub const HALO: usize = 4;

#[derive(Clone, Debug, PartialEq)]
pub struct Grid3 {
    /// Interior points per axis.
    pub n: [usize; 3],
    /// Spacing per axis.
    pub h: [f64; 3],
    pub origin: [f64; 3],
    pub extent: [f64; 3],
    /// Offset of interior point i = 0 within a padded row (>= HALO), and the row pitch: rows
    /// start on 128-byte boundaries after `aligned_for`, so a warp's loads hit whole sectors.
    pub xoff: usize,
    pub pitch: usize,
}

impl Grid3 {
    /// Periodic axes: n points with spacing L/n; Dirichlet axes: n points including both
    /// boundary points, spacing L/(n-1).
    pub fn new(n: [usize; 3], origin: [f64; 3], extent: [f64; 3], bc: &[AxisBoundary; 3]) -> Self {
        let h = std::array::from_fn(|k| match bc[k] {
            AxisBoundary::Periodic => extent[k] / n[k] as f64,
            AxisBoundary::Dirichlet(_) => extent[k] / (n[k] - 1) as f64,
        });
        Grid3 {
            n,
            h,
            origin,
            extent,
            xoff: HALO,
            pitch: n[0] + 2 * HALO,
        }
    }

    /// The same grid with rows aligned to 128 bytes for elements of `elem_bytes`.
    pub fn aligned_for(&self, elem_bytes: usize) -> Self {
        let per_line = (128 / elem_bytes).max(1);
        let xoff = HALO.max(per_line);
        let pitch = (xoff + self.n[0] + HALO).div_ceil(per_line) * per_line;
        Grid3 {
            xoff,
            pitch,
            ..self.clone()
        }
    }

    pub fn points(&self) -> usize {
        self.n.iter().product()
    }

    /// Padded extents: [row pitch, ny + 2 HALO, nz + 2 HALO].
    pub fn padded(&self) -> [usize; 3] {
        [self.pitch, self.n[1] + 2 * HALO, self.n[2] + 2 * HALO]
    }

    pub fn padded_len(&self) -> usize {
        self.padded().iter().product()
    }

    /// Index in the padded array of interior point (i, j, k); ghosts are -HALO..0 and n..n+HALO.
    #[inline]
    pub fn at(&self, i: isize, j: isize, k: isize) -> usize {
        let p = self.padded();
        let h = HALO as isize;
        ((i + self.xoff as isize) + p[0] as isize * ((j + h) + p[1] as isize * (k + h))) as usize
    }

    pub fn coord(&self, i: usize, j: usize, k: usize) -> [f64; 3] {
        let idx = [i, j, k];
        std::array::from_fn(|a| self.origin[a] + idx[a] as f64 * self.h[a])
    }

    /// `f` at every interior point, x fastest.
    pub fn sample(&self, f: impl Fn([f64; 3]) -> f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.points());
        for k in 0..self.n[2] {
            for j in 0..self.n[1] {
                for i in 0..self.n[0] {
                    out.push(f(self.coord(i, j, k)));
                }
            }
        }
        out
    }

    /// Interior values (x fastest) into a zeroed padded array.
    pub fn pad<T: Copy + Default>(&self, interior: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); self.padded_len()];
        let [nx, ny, nz] = self.n;
        for k in 0..nz {
            for j in 0..ny {
                let src = &interior[nx * (j + ny * k)..][..nx];
                let dst = self.at(0, j as isize, k as isize);
                out[dst..dst + nx].copy_from_slice(src);
            }
        }
        out
    }

    /// The interior of a padded array, x fastest.
    pub fn unpad<T: Copy>(&self, padded: &[T]) -> Vec<T> {
        let [nx, ny, nz] = self.n;
        let mut out = Vec::with_capacity(self.points());
        for k in 0..nz {
            for j in 0..ny {
                let s = self.at(0, j as isize, k as isize);
                out.extend_from_slice(&padded[s..s + nx]);
            }
        }
        out
    }
}
