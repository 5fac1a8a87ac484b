//! CPU execution of the advection step (rayon over cells), the reference for the CUDA kernels.

use super::geometry::Geometry;
use super::interp::{self, Donors, Interpolation};
use super::locate::{Location, Locator};
use super::velocity::{departure, Velocity};
use super::{AdvectSection, Scheme};
use crate::cases::Simulation;
use crate::error::Result;
use crate::real::Real;
use rayon::prelude::*;

/// A departure point and where it is.
#[derive(Clone, Copy, Debug)]
struct Departure<R> {
    point: [R; 3],
    loc: Location,
}

pub struct AdvectCpu<R: Real> {
    geo: Geometry<R>,
    locator: Locator,
    vel: Velocity<R>,
    section: AdvectSection,
    /// Dirichlet value per patch, NaN for Neumann.
    bc: Vec<R>,
    f: Vec<R>,
    step: u64,
    t: f64,
}

impl<R: Real> AdvectCpu<R> {
    pub fn new(geo: Geometry<R>, vel: Velocity<R>, section: AdvectSection, bc: Vec<R>, f: Vec<R>) -> Self {
        AdvectCpu {
            locator: Locator::new(&geo, section.max_walk),
            geo,
            vel,
            section,
            bc,
            f,
            step: 0,
            t: 0.0,
        }
    }

    fn departures(&self, dt: f64, sign: f64) -> Vec<Departure<R>> {
        let m = &self.geo;
        let (t, dt, sign) = (R::of(self.t), R::of(dt), R::of(sign));
        (0..m.num_cells())
            .into_par_iter()
            .map(|c| {
                let point = departure(&self.vel, m.centroids[c], c, t, dt, self.step, sign);
                Departure {
                    point,
                    loc: self.locator.locate(m, c as u32, point),
                }
            })
            .collect()
    }

    /// I(V, f) at the departure points, with the donors' range.
    fn interpolate(&self, deps: &[Departure<R>], f: &[R]) -> Vec<(R, R, R)> {
        let m = &self.geo;
        let mut fv = Vec::new();
        let mut grad = None;
        match self.section.interpolation {
            Interpolation::Linear => interp::vertex_values(m, f, &mut fv),
            Interpolation::VoronoiGrad => grad = Some(interp::lsq_gradients(m, f)),
            Interpolation::Voronoi => {}
        }
        let donors = Donors {
            f,
            grad: grad.as_ref(),
            bc: &self.bc,
        };
        deps.par_iter()
            .map(|d| match d.loc {
                Location::Inside(c) => match self.section.interpolation {
                    Interpolation::Linear => interp::linear(m, c as usize, d.point, &fv),
                    _ => interp::voronoi(m, c as usize, d.point, &donors),
                },
                Location::Outside { cell, patch } => {
                    let b = self.bc[patch as usize];
                    let v = if b.is_nan() { f[cell as usize] } else { b };
                    (v, v, v)
                }
            })
            .collect()
    }
}

impl<R: Real> Simulation for AdvectCpu<R> {
    fn step(&mut self, dt: f64) -> Result<()> {
        let fwd = self.departures(dt, 1.0);
        let first = self.interpolate(&fwd, &self.f);
        self.f = match self.section.scheme {
            Scheme::Sl1 => first.iter().map(|r| r.0).collect(),
            Scheme::Bfecc => {
                let f1: Vec<R> = first.iter().map(|r| r.0).collect();
                let bwd = self.departures(dt, -1.0);
                let f2 = self.interpolate(&bwd, &f1);
                let half = R::of(0.5);
                let g: Vec<R> = self.f.iter().zip(&f2).map(|(&f, b)| f + half * (f - b.0)).collect();
                let corrected = self.interpolate(&fwd, &g);
                corrected
                    .iter()
                    .zip(&first)
                    .map(|(c, r)| {
                        if self.section.limiter {
                            c.0.max(r.1).min(r.2)
                        } else {
                            c.0
                        }
                    })
                    .collect()
            }
        };
        self.step += 1;
        self.t += dt;
        Ok(())
    }

    fn max_abs(&mut self) -> Result<f64> {
        Ok(self.f.iter().fold(0.0f64, |m, v| {
            let v = v.f64();
            if v.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(v.abs())
            }
        }))
    }

    fn fields(&mut self) -> Result<Vec<(String, Vec<f64>)>> {
        let vel = super::cell_velocities(&self.vel, &self.geo.centroids, self.t, self.step);
        Ok(vec![
            ("F".into(), self.f.iter().map(|v| v.f64()).collect()),
            ("velocity".into(), vel),
        ])
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(super::state_bytes(self.step, self.t, &self.f))
    }

    fn load_state(&mut self, b: &[u8]) -> Result<()> {
        (self.step, self.t, self.f) = super::state_from_bytes(b);
        Ok(())
    }
}
