//! The Rayleigh-Taylor initial state (the PLM paper, `euler-3d-rayleigh-taylor-hll-rk3-gpu.md`,
//! sec. VI): heavy fluid over light under gravity along one axis, pressure in hydrostatic
//! equilibrium, the vertical velocity perturbed by one mode or by random numbers.

use super::section::{conservative, Perturbation, RayleighTaylor};
use crate::grid::StructuredGrid;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::f64::consts::PI;

impl RayleighTaylor {
    /// The vertical axis: the one axis along which `gravity` acts, if there is exactly one.
    pub fn vertical(gravity: [f64; 3]) -> Option<usize> {
        let axes: Vec<usize> = (0..3).filter(|&a| gravity[a] != 0.0).collect();
        (axes.len() == 1).then(|| axes[0])
    }

    /// The lowest pressure of the hydrostatic column on `grid` (at its top or bottom face).
    pub fn min_pressure(&self, grid: &StructuredGrid, gravity: [f64; 3]) -> f64 {
        let z = Self::vertical(gravity).unwrap_or(0);
        let half = 0.5 * grid.extent[z];
        let [below, above] = self.densities;
        // p = p0 + rho g (x - x_interface): both ends of the column.
        (self.pressure - below * gravity[z] * half).min(self.pressure + above * gravity[z] * half)
    }

    /// The conservative initial values (components one after another, x fastest).
    pub fn field(&self, grid: &StructuredGrid, gamma: f64, gravity: [f64; 3], cells: std::ops::Range<usize>) -> Vec<f64> {
        let z = Self::vertical(gravity).expect("checked by the setup");
        let centre: [f64; 3] = std::array::from_fn(|a| grid.origin[a] + 0.5 * grid.extent[a]);
        let active: Vec<usize> = (0..3).filter(|&a| grid.cells[a] > 1).collect();
        // 1 + cos(2 pi (x - c) / L): 2 at the centre, 0 at the walls of the box.
        let bump = |x: [f64; 3], a: usize| 1.0 + (2.0 * PI * (x[a] - centre[a]) / grid.extent[a]).cos();
        let state = |x: [f64; 3], r: f64| {
            let above = (x[z] - centre[z]) * gravity[z] < 0.0;
            let rho = self.densities[above as usize];
            let p = self.pressure + rho * gravity[z] * (x[z] - centre[z]);
            let v = match self.perturbation {
                Perturbation::SingleMode => {
                    let shape: f64 = active.iter().map(|&a| bump(x, a) / 2.0).product();
                    self.amplitude * shape
                }
                Perturbation::MultiMode => self.amplitude * (r - 0.5) * bump(x, z) / 2.0,
            };
            let mut velocity = [0.0; 3];
            velocity[z] = v;
            conservative(rho, velocity, p, gamma)
        };
        // The random numbers in cell order (the seed fixes the field): the stream skipped to
        // the first of `cells` (one draw a cell), so a part draws what the whole grid draws
        // there; the rest per cell in parallel.
        let random: Vec<f64> = match self.perturbation {
            Perturbation::MultiMode => {
                let mut rng = rand_pcg::Pcg64::seed_from_u64(self.seed);
                rng.advance(cells.start as u128);
                cells.clone().map(|_| rng.random()).collect()
            }
            Perturbation::SingleMode => Vec::new(),
        };
        let [nx, ny, _] = grid.n;
        let first = cells.start;
        let cells: Vec<[f64; 5]> = cells
            .into_par_iter()
            .map(|c| {
                let r = random.get(c - first).copied().unwrap_or(0.0);
                state(grid.coord(c % nx, (c / nx) % ny, c / (nx * ny)), r)
            })
            .collect();
        (0..5).flat_map(|k| cells.iter().map(move |s| s[k])).collect()
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};

    /// The multimode field's parts skip the random stream to their first cell: one draw per
    /// value, so a stream advanced by k draws what the whole stream draws k-th.
    #[test]
    fn an_advanced_stream_draws_what_the_whole_stream_draws_there() {
        let mut whole = rand_pcg::Pcg64::seed_from_u64(7);
        let all: Vec<f64> = (0..1000).map(|_| whole.random()).collect();
        for k in [0usize, 1, 17, 999] {
            let mut part = rand_pcg::Pcg64::seed_from_u64(7);
            part.advance(k as u128);
            let v: f64 = part.random();
            assert_eq!(v.to_bits(), all[k].to_bits(), "draw {k}");
        }
    }
}
