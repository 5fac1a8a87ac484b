//! CPU execution of the advection: the shared semi-Lagrangian operations (rayon over cells)
//! with the case's velocity; the reference for the CUDA kernels.

use super::frames::Window;
use super::sim::Engine;
use super::velocity::Velocity;
use crate::backend::max_abs_host;
use crate::error::Result;
use crate::mesh::TetGeometry;
use crate::numerics::sl::cpu::HostSl;
use crate::numerics::sl::{Interpolation, Weighting};
use crate::real::Real;
use std::sync::Arc;

pub fn engine<R: Real>(
    geo: TetGeometry<R>,
    vel: Velocity<R>,
    interpolation: Interpolation,
    fit: Weighting,
    max_walk: u32,
    bc: Vec<R>,
) -> HostSl<R, Velocity<R>> {
    HostSl::weighted(Arc::new(geo), max_walk, vel, interpolation, fit, bc)
}

impl<R: Real> Engine<R> for HostSl<R, Velocity<R>> {
    fn upload(&mut self, host: &[R]) -> Result<Vec<R>> {
        Ok(host.to_vec())
    }

    fn download(&mut self, f: &Vec<R>) -> Result<Vec<R>> {
        Ok(f.clone())
    }

    fn max_abs(&mut self, f: &Vec<R>) -> Result<f64> {
        Ok(max_abs_host(f))
    }

    fn set_frames(&mut self, w: &Arc<Window<R>>) -> Result<()> {
        self.vel.frames = Some(w.clone());
        Ok(())
    }
}
