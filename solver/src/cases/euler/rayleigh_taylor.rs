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
    pub fn field(&self, grid: &StructuredGrid, gamma: f64, gravity: [f64; 3]) -> Vec<f64> {
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
        // The random numbers in cell order, drawn once (the seed fixes the field); the rest per
        // cell in parallel.
        let random: Vec<f64> = match self.perturbation {
            Perturbation::MultiMode => {
                let mut rng = rand_pcg::Pcg64::seed_from_u64(self.seed);
                (0..grid.points()).map(|_| rng.random()).collect()
            }
            Perturbation::SingleMode => Vec::new(),
        };
        let [nx, ny, _] = grid.n;
        let cells: Vec<[f64; 5]> = (0..grid.points())
            .into_par_iter()
            .map(|c| state(grid.coord(c % nx, (c / nx) % ny, c / (nx * ny)), random.get(c).copied().unwrap_or(0.0)))
            .collect();
        (0..5).flat_map(|k| cells.iter().map(move |s| s[k])).collect()
    }
}
