//! The Rayleigh-Taylor initial state (the PLM paper, `euler-3d-rayleigh-taylor-hll-rk3-gpu.md`,
//! sec. VI): heavy fluid over light under gravity along one axis, pressure in hydrostatic
//! equilibrium, the vertical velocity perturbed by one mode or by random numbers.

use super::section::{conservative, Perturbation, RayleighTaylor};
use crate::grid::StructuredGrid;
use rand::{RngExt, SeedableRng};
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
        let mut rng = rand_pcg::Pcg64::seed_from_u64(self.seed);
        let mut out = vec![0.0; 5 * grid.points()];
        let points = grid.points();
        for (cell, x) in positions(grid).enumerate() {
            let above = (x[z] - centre[z]) * gravity[z] < 0.0;
            let rho = self.densities[above as usize];
            let p = self.pressure + rho * gravity[z] * (x[z] - centre[z]);
            let v = match self.perturbation {
                Perturbation::SingleMode => {
                    let shape: f64 = active.iter().map(|&a| bump(x, a) / 2.0).product();
                    self.amplitude * shape
                }
                Perturbation::MultiMode => {
                    let r: f64 = rng.random();
                    self.amplitude * (r - 0.5) * bump(x, z) / 2.0
                }
            };
            let mut velocity = [0.0; 3];
            velocity[z] = v;
            for (c, value) in conservative(rho, velocity, p, gamma).into_iter().enumerate() {
                out[c * points + cell] = value;
            }
        }
        out
    }
}

/// Cell centres, x fastest.
fn positions(grid: &StructuredGrid) -> impl Iterator<Item = [f64; 3]> + '_ {
    let [nx, ny, nz] = grid.n;
    (0..nz).flat_map(move |k| (0..ny).flat_map(move |j| (0..nx).map(move |i| grid.coord(i, j, k))))
}
