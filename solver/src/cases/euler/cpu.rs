//! The Euler equations on the CPU: dimensionally split MUSCL-Hancock sweeps over the lines of
//! the grid (rayon over lines) or PLM + SSP-RK3 stages (`plm.rs`), the CFL step from the
//! fastest signal, health checks.

use super::gas::{self, Cons};
use super::muscl::update_line;
use super::plm::{self, RK3_WEIGHTS};
use super::section::Scheme;
use super::setup::EulerSetup;
use super::step::{min_bytes_per_step, stage_params, sweep_order, variant};
use crate::error::Result;
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::grid::{halo, parts};
use crate::output::Field;
use crate::real::{from_bytes, to_bytes, Real};
use rayon::prelude::*;

pub struct CpuEuler<R: Real> {
    pub setup: EulerSetup,
    /// Conservative variables (rho, rho u, rho v, rho w, E), padded, one component after another.
    u: Vec<R>,
    /// PLM + RK3: the state at the start of the step and a stage's output.
    u0: Vec<R>,
    spare: Vec<R>,
}

impl<R: Real> CpuEuler<R> {
    pub fn new(setup: EulerSetup, initial: &[f64]) -> Self {
        let u = setup.grid.pad(&initial.iter().map(|&v| R::of(v)).collect::<Vec<_>>());
        let (u0, spare) = match setup.scheme {
            Scheme::MusclHancock => (vec![], vec![]),
            Scheme::PlmRk3 => (u.clone(), u.clone()),
        };
        CpuEuler { setup, u, u0, spare }
    }

    /// The ghosts of the state: the halo fill, the neighbours' planes (a part of a decomposed
    /// grid), then the hydrostatic walls' energy.
    fn fill_ghosts(&mut self) {
        halo::fill(&self.setup.grid, &self.setup.bc, &mut self.u);
        parts::exchange(self.setup.link.as_ref(), &self.setup.grid, &mut self.u);
        for &(axis, side, per_density) in &self.setup.hydrostatic_walls {
            plm::hydrostatic_ghosts(&self.setup.grid, axis, side, per_density, &mut self.u);
        }
    }

    /// One PLM + SSP-RK3 step.
    fn rk3_step(&mut self, dt: f64) {
        self.u0.copy_from_slice(&self.u);
        for (a, b) in RK3_WEIGHTS {
            self.fill_ghosts();
            let params = stage_params::<R>(&self.setup, a, b, dt);
            plm::stage(&self.setup.grid, &params, &self.u, &self.u0, &mut self.spare);
            std::mem::swap(&mut self.u, &mut self.spare);
        }
    }

    /// The padded index of value (i, j, k) with `at(v)` moving `v` cells along `axis` from a
    /// line's start.
    fn line_index(&self, axis: usize, r1: usize, r2: usize, v: isize) -> usize {
        let mut idx = [0isize; 3];
        idx[axis] = v;
        idx[(axis + 1) % 3] = r1 as isize;
        idx[(axis + 2) % 3] = r2 as isize;
        self.setup.grid.at(idx[0], idx[1], idx[2])
    }

    /// One MUSCL-Hancock sweep along `axis` over every line.
    fn sweep(&mut self, axis: usize, dt: f64) {
        let g = &self.setup.grid;
        let (n, halo) = (g.n[axis] as isize, g.halo[axis] as isize);
        let (n1, n2) = (g.n[(axis + 1) % 3], g.n[(axis + 2) % 3]);
        let (stride, comps) = (g.padded_len(), gas::frame(axis));
        let lambda = R::of(dt / g.h[axis]);
        let gamma = R::of(self.setup.gamma);
        let scheme = (self.setup.limiter, self.setup.riemann);
        let u = &self.u;
        let lines: Vec<Vec<Cons<R>>> = (0..n1 * n2)
            .into_par_iter()
            .map(|l| {
                let (r1, r2) = (l % n1, l / n1);
                let line: Vec<Cons<R>> = (-halo..n + halo)
                    .map(|v| {
                        let p = self.line_index(axis, r1, r2, v);
                        comps.map(|c| u[c * stride + p])
                    })
                    .collect();
                let mut out = vec![[R::zero(); 5]; n as usize];
                update_line(&line, lambda, gamma, scheme, &mut out);
                out
            })
            .collect();
        for (l, out) in lines.iter().enumerate() {
            let (r1, r2) = (l % n1, l / n1);
            for (v, state) in out.iter().enumerate() {
                let p = self.line_index(axis, r1, r2, v as isize);
                for (k, &c) in comps.iter().enumerate() {
                    self.u[c * stride + p] = state[k];
                }
            }
        }
    }

    fn interior(&self) -> Vec<R> {
        self.setup.grid.unpad(&self.u)
    }
}

impl<R: Real> Simulation for CpuEuler<R> {
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        // Read the padded state in place: this runs every step.
        let g = &self.setup.grid;
        let (u, stride, gamma) = (&self.u, g.padded_len(), R::of(self.setup.gamma));
        let [nx, ny, _] = g.n;
        let axes = self.setup.active_axes();
        let unsplit = self.setup.scheme == Scheme::PlmRk3;
        let min_dt = (0..g.points())
            .into_par_iter()
            .map(|cell| {
                let (i, j, k) = (cell % nx, (cell / nx) % ny, cell / (nx * ny));
                let at = g.at(i as isize, j as isize, k as isize);
                let speed = |a: usize| gas::max_speed(&gas::state(u, stride, at, a), gamma).f64();
                if unsplit {
                    // All axes at once: 1 / sum_a (|u_a| + c) / h_a.
                    1.0 / axes.iter().fold(0.0, |s, &a| s + speed(a) / g.h[a])
                } else {
                    axes.iter().map(|&a| g.h[a] / speed(a)).fold(f64::INFINITY, f64::min)
                }
            })
            .reduce(|| f64::INFINITY, f64::min);
        Ok(cfl * min_dt)
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        match self.setup.scheme {
            Scheme::MusclHancock => {
                for a in sweep_order(&self.setup, clock.step) {
                    self.fill_ghosts();
                    self.sweep(a, dt);
                }
            }
            Scheme::PlmRk3 => self.rk3_step(dt),
        }
        Ok(())
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let g = &self.setup.grid;
        let (values, points, gamma) = (self.interior(), g.points(), R::of(self.setup.gamma));
        let bad = (0..points)
            .into_par_iter()
            .find_first(|&cell| !gas::is_sound(&gas::state(&values, points, cell, 0), gamma));
        Ok(bad.map(|cell| gas::unsound(g, gamma, &values, cell)))
    }

    fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
        Ok(gas::fields(&self.setup.grid, R::of(self.setup.gamma), &self.interior()))
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(to_bytes(&self.interior()))
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        self.u = self.setup.grid.pad(&from_bytes::<R>(bytes));
        Ok(())
    }

    /// The density of interior cell `cell` (x fastest) becomes NaN.
    fn inject_nan(&mut self, cell: usize) -> Result<bool> {
        let mut v = self.interior();
        if cell >= self.setup.grid.points() {
            return Ok(false);
        }
        v[cell] = R::nan();
        self.u = self.setup.grid.pad(&v);
        Ok(true)
    }

    fn bytes_per_step(&self) -> f64 {
        min_bytes_per_step(&self.setup, std::mem::size_of::<R>())
    }

    fn variant(&self) -> String {
        variant(&self.setup)
    }
}
