//! Shallow water on the CPU: per step the point sources, the halo fill and the open sides
//! (`forcing.rs`, at the time the step starts), then every interior cell takes the Roe
//! contributions of its edges (`roe.rs`; rayon over rows), an explicit Euler update, and the dry
//! cells are brought to rest (depths that a draining cell would take below zero are clipped to
//! zero, and counted).

use super::roe::{edge, State};
use super::{slab, Ledger, SweSetup};
use crate::error::Result;
use crate::framework::ranks::{Ranks, Slab};
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::grid::halo;
use crate::output::Field;
use crate::real::{from_bytes, Real};
use rayon::prelude::*;

pub struct CpuSwe<R: Real> {
    /// The setup of this rank's slab (the whole grid's when there is one rank).
    pub setup: SweSetup,
    ranks: &'static dyn Ranks,
    slab: Slab,
    /// The whole grid's cells along x and y.
    whole: [usize; 2],
    /// (h, q_x, q_y, hC), padded, one component after another.
    w: Vec<R>,
    /// The bed's depth H, padded, ghosts filled once, and its one-component grid.
    bed: Vec<R>,
    bed_grid: crate::grid::StructuredGrid,
    /// Water added by clipping and by the sources, the water at the start.
    pub ledger: Ledger,
    /// Steps since the start or the restart (the ghost rows arrive every `ghost_rows` steps).
    steps: usize,
}

impl<R: Real> CpuSwe<R> {
    /// The simulation of `slab` of a grid of `whole` cells: its setup, interior initial state
    /// and padded bed (`slab::local_setup`, `slab::local_fields`).
    pub fn new(setup: SweSetup, ranks: &'static dyn Ranks, slab: Slab, whole: [usize; 2], initial: &[f64], bed: &[f64]) -> Self {
        let g = &setup.grid;
        let w = g.pad(&initial.iter().map(|&v| R::of(v)).collect::<Vec<_>>());
        let bed_grid = crate::grid::StructuredGrid { components: 1, ..g.clone() };
        let bed = bed.iter().map(|&v| R::of(v)).collect();
        let ledger = Ledger {
            start_water: super::water(&setup, &initial_rounded::<R>(initial)),
            ..Ledger::default()
        };
        CpuSwe { setup, ranks, slab, whole, w, bed, bed_grid, ledger, steps: 0 }
    }

    /// The state at padded index p in the frame of axis a.
    fn state(&self, p: usize, a: usize) -> State<R> {
        let len = self.setup.grid.padded_len();
        [self.w[p], self.w[(1 + a) * len + p], self.w[(2 - a) * len + p], self.w[3 * len + p]]
    }

    fn interior(&self) -> Vec<R> {
        self.setup.grid.unpad(&self.w)
    }

    /// Manning friction, semi-implicit: q / (1 + dt g n^2 |u| / h^(4/3)) in wet cells.
    fn friction(&mut self, dt: f64, cells: &[usize]) {
        let s = &self.setup;
        let len = s.grid.padded_len();
        let k = dt * s.gravity * s.manning * s.manning;
        // k = dt g n^2
        for &p in cells {
            let h = self.w[p].f64();
            if h <= s.dry {
                continue;
            }
            let (qx, qy) = (self.w[len + p].f64(), self.w[2 * len + p].f64());
            let factor = R::of(manning_factor(k, h, (qx * qx + qy * qy).sqrt() / h));
            self.w[len + p] = self.w[len + p] * factor;
            self.w[2 * len + p] = self.w[2 * len + p] * factor;
        }
    }
}

impl<R: Real> Simulation for CpuSwe<R> {
    /// cfl / max over cells of sum_a (|u_a| + sqrt(g h)) / h_a; dry cells do not count.
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        let s = &self.setup;
        let (len, dry) = (s.grid.padded_len(), s.dry);
        let rate = s
            .cells()
            .par_iter()
            .map(|&p| {
                let h = self.w[p].f64();
                if h <= dry {
                    return 0.0;
                }
                let c = (s.gravity * h).sqrt();
                s.axes()
                    .iter()
                    .map(|&a| ((self.w[(1 + a) * len + p].f64() / h).abs() + c) / s.grid.h[a])
                    .sum::<f64>()
            })
            .reduce(|| 0.0, f64::max);
        let rate = self.ranks.max(rate);
        Ok(if rate > 0.0 { cfl / rate } else { f64::INFINITY })
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        let s = &self.setup;
        let (len, g, dry) = (s.grid.padded_len(), R::of(s.gravity), R::of(s.dry));
        // Ghost-cell expansion: the ghost rows arrive every `ghost_rows` steps, and in between
        // this slab updates them again as their owner does, one row fewer each step.
        let ny = s.grid.n[1] as isize;
        let (rows, arrive) = slab::updated_rows(self.steps, s.ghost_rows, s.grid.n[1], &self.slab);
        let (lo, hi) = (rows.start, rows.end);
        // The sources change the state the updated rows read: theirs, and the row beyond each end.
        let read = slab::read_rows(&rows, &self.slab);
        s.forcing.add_sources(&s.grid, &mut self.w, clock.time, dt, &mut self.ledger.sources, read);
        halo::fill(&s.grid, &s.bc, &mut self.w);
        let ghost_rows: Vec<isize> = (lo..0).chain(ny..hi).collect();
        halo::fill_x_of_rows(&s.grid, &s.bc, &mut self.w, &ghost_rows);
        s.forcing.fill_open(&s.grid, &self.bed, &mut self.w, dry, clock.time, lo..hi);
        if arrive {
            slab::exchange_ghost_rows(self.ranks, &s.grid, &self.slab, &mut self.w);
        }
        self.steps += 1;
        let strides = [1, s.grid.padded()[0]];
        let axes = s.axes();
        let cells = s.cells_in_rows(lo..hi);
        let updated: Vec<[R; 4]> = cells
            .par_iter()
            .map(|&p| {
                let mut w: [R; 4] = std::array::from_fn(|k| self.w[k * len + p]);
                for &a in &axes {
                    let (below, above) = (p - strides[a], p + strides[a]);
                    let lower = edge(self.state(below, a), self.bed[below], self.state(p, a), self.bed[p], g, dry).1;
                    let upper = edge(self.state(p, a), self.bed[p], self.state(above, a), self.bed[above], g, dry).0;
                    let ratio = R::of(dt / s.grid.h[a]);
                    // Frame components (h, q_n, q_t, hC) back to (h, q_x, q_y, hC).
                    let comp = [0, 1 + a, 2 - a, 3];
                    for k in 0..4 {
                        w[comp[k]] = w[comp[k]] - ratio * (lower[k] + upper[k]);
                    }
                }
                w
            })
            .collect();
        let mut clipped = 0.0;
        let area = s.grid.h[0] * s.grid.h[1];
        let thin = R::of(s.thin);
        let thin4 = thin * thin * thin * thin;
        let owned = |p: usize| (0..ny).contains(&s.grid.row_of(p));
        for (&p, mut w) in cells.iter().zip(updated) {
            if w[0] < R::zero() && owned(p) {
                clipped -= w[0].f64() * area;
            }
            if w[0] <= dry {
                // Dry: no depth below zero, no velocity, no pollutant carried.
                w = [w[0].max(R::zero()), R::zero(), R::zero(), R::zero()];
            } else if w[0] < thin {
                // Nearly dry: q / h would blow up; Kurganov & Petrova's desingularization,
                // u = sqrt(2) h q / sqrt(h^4 + max(h^4, eps^4)), which is q / h from eps up.
                let h4 = w[0] * w[0] * w[0] * w[0];
                let scale = R::of(std::f64::consts::SQRT_2) * w[0] * w[0] / (h4 + thin4).sqrt();
                for k in 1..4 {
                    w[k] = w[k] * scale;
                }
            }
            for k in 0..4 {
                self.w[k * len + p] = w[k];
            }
        }
        self.ledger.clipped += clipped;
        if s.manning > 0.0 {
            self.friction(dt, &cells);
        }
        Ok(())
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let values = self.interior();
        let n = self.setup.grid.points();
        let bad = (0..n).find(|&i| values[i] < R::zero() || (0..4).any(|k| !values[k * n + i].is_finite()));
        let offset = self.slab.start * self.whole[0];
        let mine = bad.map(|i| (offset + i, std::array::from_fn(|k| values[k * n + i].f64())));
        Ok(slab::first_bad(self.ranks, mine).map(super::unhealthy))
    }

    fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
        let values: Vec<f64> = self.interior().iter().map(|v| v.f64()).collect();
        let bed: Vec<f64> = self.bed_grid.unpad(&self.bed).iter().map(|v| v.f64()).collect();
        Ok(slab::gather_fields(self.ranks, super::fields(&values, &bed, self.setup.dry)))
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(slab::gather_state(self.ranks, &self.interior()))
    }

    /// The depth of cell `cell` of the whole grid (x fastest) becomes NaN on the rank whose
    /// slab holds it.
    fn inject_nan(&mut self, cell: usize) -> Result<bool> {
        let [nx, ny] = self.whole;
        let (i, j) = (cell % nx, cell / nx);
        if j >= ny || j < self.slab.start || j >= self.slab.end {
            return Ok(false);
        }
        let p = self.setup.grid.at(i as isize, (j - self.slab.start) as isize, 0);
        self.w[p] = R::nan();
        Ok(true)
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let [nx, ny] = self.whole;
        let values = slab::cut_state(nx, ny, &self.slab, &from_bytes::<R>(bytes));
        self.ledger.start_water = super::water(&self.setup, &values.iter().map(|v| v.f64()).collect::<Vec<_>>());
        self.w = self.setup.grid.pad(&values);
        self.steps = 0;
        Ok(())
    }

    fn bytes_per_step(&self) -> f64 {
        super::min_bytes_per_step(&self.setup, std::mem::size_of::<R>())
    }

    fn variant(&self) -> String {
        "roe-path-conservative".into()
    }

    fn totals(&mut self) -> Result<Vec<(String, f64)>> {
        let values: Vec<f64> = self.interior().iter().map(|v| v.f64()).collect();
        Ok(slab::sum_totals(self.ranks, super::totals(&self.setup, &values, &self.ledger)))
    }
}

/// Initial values as the backend holds them (rounded to R), in f64.
pub fn initial_rounded<R: Real>(initial: &[f64]) -> Vec<f64> {
    initial.iter().map(|&v| R::of(v).f64()).collect()
}

/// The semi-implicit Manning factor of the momentum, 1 / (1 + dt g n^2 |u| / h^(4/3)), with
/// k = dt g n^2.
pub fn manning_factor(k: f64, h: f64, speed: f64) -> f64 {
    1.0 / (1.0 + k * speed / h.powf(4.0 / 3.0))
}

#[cfg(test)]
mod tests {
    use super::manning_factor;

    /// Uniform flow on a flat bed slowed by friction alone: dq/dt = -g n^2 q^2 / h^(7/3), so
    /// 1/q = 1/q0 + g n^2 t / h^(7/3). The semi-implicit step adds exactly dt g n^2 / h^(7/3)
    /// to 1/q, so any number of steps lands on it to round-off.
    #[test]
    fn manning_friction_follows_its_ode() {
        let (g, n, h, q0, t) = (9.81, 0.03, 0.5f64, 0.4, 20.0);
        let exact = 1.0 / (1.0 / q0 + g * n * n * t / h.powf(7.0 / 3.0));
        let error = |steps: usize| {
            let dt = t / steps as f64;
            let q = (0..steps).fold(q0, |q, _| q * manning_factor(dt * g * n * n, h, q / h));
            (q - exact).abs() / exact
        };
        for steps in [1, 7, 200] {
            assert!(error(steps) < 1e-13, "{steps} steps: {}", error(steps));
        }
    }
}
