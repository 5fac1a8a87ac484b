//! CPU execution of the heat step: rayon over z-planes, the same arithmetic and order as
//! `heat_rq_stage` in kernels/cuda/heat.cu.

use super::setup::HeatSetup;
use super::step::{FD8, STAGES};
use crate::grid::parts::{self, Link};
use crate::grid::{halo::fill, StructuredGrid};
use crate::real::Real;
use rayon::prelude::*;

pub struct CpuHeat<T: Real> {
    pub setup: HeatSetup,
    pub phi: Vec<T>,
    u1: Vec<T>,
    u2: Vec<T>,
    next: Vec<T>,
}

impl<T: Real> CpuHeat<T> {
    pub fn new(mut setup: HeatSetup, initial: &[f64]) -> Self {
        setup.grid = setup.grid.aligned_for(std::mem::size_of::<T>());
        let g = &setup.grid;
        let phi: Vec<T> = g.pad(&initial.iter().map(|&v| T::of(v)).collect::<Vec<_>>());
        let n = phi.len();
        let mut s = CpuHeat {
            setup,
            phi,
            u1: vec![T::zero(); n],
            u2: vec![T::zero(); n],
            next: vec![T::zero(); n],
        };
        fill(&s.setup.grid, &s.setup.bc, &mut s.phi);
        s
    }

    pub fn step(&mut self, dt: f64) {
        let st = STAGES.map(|s| s.map(T::of));
        let dt = T::of(dt);
        let f = self.setup.axis_factors().map(T::of);
        let g = &self.setup.grid;
        let (bc, link) = (&self.setup.bc, self.setup.link.as_ref());
        // The neighbours' planes of the step's input (its other ghosts were filled at the end
        // of the last step or when it was set): every part has finished its last step.
        parts::exchange(link, g, &mut self.phi);
        // u1 = phi + dt/2 L(phi)
        stage(g, f, &mut self.u1, None, None, st[0][2], &self.phi, st[0][3] * dt);
        ghosts(g, bc, link, &mut self.u1);
        // u2 = 3 phi - 2 u1 + 2 dt L(u1)
        stage(
            g,
            f,
            &mut self.u2,
            Some((st[1][0], &self.phi)),
            None,
            st[1][2],
            &self.u1,
            st[1][3] * dt,
        );
        ghosts(g, bc, link, &mut self.u2);
        // phi' = -phi/3 + u1 + u2/3 + dt/6 L(u2)
        stage(
            g,
            f,
            &mut self.next,
            Some((st[2][0], &self.phi)),
            Some((st[2][1], &self.u1)),
            st[2][2],
            &self.u2,
            st[2][3] * dt,
        );
        std::mem::swap(&mut self.phi, &mut self.next);
        // Also resets the Dirichlet points of a vertex-centred grid, which the stage updated.
        fill(g, bc, &mut self.phi);
    }

    pub fn interior(&self) -> Vec<T> {
        self.setup.grid.unpad(&self.phi)
    }

    pub fn set_interior(&mut self, values: &[T]) {
        self.phi = self.setup.grid.pad(values);
        fill(&self.setup.grid, &self.setup.bc, &mut self.phi);
    }
}

/// The ghosts of a stage's input: the halo fill, then the neighbours' planes where the grid is
/// a part of a decomposed one.
fn ghosts<T: Real>(g: &StructuredGrid, bc: &crate::grid::BoundarySet, link: Option<&Link>, f: &mut [T]) {
    fill(g, bc, f);
    parts::exchange(link, g, f);
}

/// out = ca*A + cb*B + cs*S + cl*L(S) on the interior points.
#[allow(clippy::too_many_arguments)]
fn stage<T: Real>(
    g: &StructuredGrid,
    f: [T; 3],
    out: &mut [T],
    a: Option<(T, &[T])>,
    b: Option<(T, &[T])>,
    cs: T,
    s: &[T],
    cl: T,
) {
    let [px, py, _] = g.padded();
    let plane = px * py;
    let c = FD8.map(T::of);
    let (sx, sy, sz) = (1usize, px, plane);
    out.par_chunks_mut(plane).enumerate().for_each(|(kp, out_plane)| {
        let (hy, hz) = (g.halo[1], g.halo[2]);
        if kp < hz || kp >= g.n[2] + hz {
            return;
        }
        for j in 0..g.n[1] {
            let row = px * (j + hy) + g.xoff;
            for i in 0..g.n[0] {
                let p = kp * plane + row + i;
                let d = |st: usize| {
                    c[0] * s[p]
                        + c[1] * (s[p - st] + s[p + st])
                        + c[2] * (s[p - 2 * st] + s[p + 2 * st])
                        + c[3] * (s[p - 3 * st] + s[p + 3 * st])
                        + c[4] * (s[p - 4 * st] + s[p + 4 * st])
                };
                let lap = f[0] * d(sx) + f[1] * d(sy) + f[2] * d(sz);
                let mut v = cs * s[p];
                if let Some((ca, a)) = a {
                    v = v + ca * a[p];
                }
                if let Some((cb, b)) = b {
                    v = v + cb * b[p];
                }
                out_plane[row + i] = v + cl * lap;
            }
        }
    });
}
