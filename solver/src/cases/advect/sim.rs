//! The running advection, written once over its two executions (`Engine`: `cpu.rs`, `cuda.rs`).
//! The state is the scalar F alone; the time and the step come from the framework's clock.

use super::velocity::Velocity;
use crate::error::{Result, SolverError};
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::numerics::sl::{self, Method, SlOps, Span};
use crate::output::{Centring, Field};
use crate::real::{from_bytes, to_bytes, Real};
use rayon::prelude::*;

/// What an execution provides besides the semi-Lagrangian operations: moving the field
/// between the host and where it lives, its max |F|, and waiting for queued work.
pub trait Engine<R: Real>: SlOps {
    fn upload(&mut self, host: &[R]) -> Result<Self::Field>;
    fn download(&mut self, f: &Self::Field) -> Result<Vec<R>>;
    /// max |f|, NaN if any value is NaN.
    fn max_abs(&mut self, f: &Self::Field) -> Result<f64>;
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
}

/// What the simulation reports besides the state, the same for both executions.
pub struct Common<R> {
    /// The velocity on the host, for the `velocity` output field.
    pub vel: Velocity<R>,
    pub centroids: Vec<[R; 3]>,
    pub method: Method,
    /// The CFL length scale and the largest speed: the stable step is cfl * h / max_speed.
    pub h: f64,
    pub max_speed: f64,
    pub bytes_per_step: f64,
    pub variant: String,
}

pub struct AdvectSim<R: Real, E: Engine<R>> {
    engine: E,
    f: E::Field,
    common: Common<R>,
}

impl<R: Real, E: Engine<R>> AdvectSim<R, E> {
    pub fn new(mut engine: E, f: &[R], common: Common<R>) -> Result<Self> {
        Ok(AdvectSim {
            f: engine.upload(f)?,
            engine,
            common,
        })
    }
}

/// The velocity at every centroid at the clock's time, three values per cell (an output
/// field, and the input of a later run's `velocity = { kind = "field" }`).
fn cell_velocities<R: Real>(vel: &Velocity<R>, centroids: &[[R; 3]], clock: &Clock) -> Vec<f64> {
    centroids
        .par_iter()
        .enumerate()
        .flat_map_iter(|(c, &x)| vel.eval(x, c, R::of(clock.time), clock.step).0.map(|v| v.f64()))
        .collect()
}

impl<R: Real, E: Engine<R>> Simulation for AdvectSim<R, E> {
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        Ok(cfl * self.common.h / self.common.max_speed)
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        let span = Span {
            t: clock.time,
            dt,
            step: clock.step,
        };
        let next = sl::step(&mut self.engine, self.common.method, span, &self.f)?;
        let old = std::mem::replace(&mut self.f, next);
        self.engine.recycle(old);
        Ok(())
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let m = self.engine.max_abs(&self.f)?;
        Ok((!m.is_finite() || m > 1e100).then(|| Unhealthy {
            field: "F".into(),
            what: format!("max |F| = {m:e}"),
        }))
    }

    fn fields(&mut self, clock: &Clock) -> Result<Vec<Field>> {
        let f = self.engine.download(&self.f)?;
        let vel = cell_velocities(&self.common.vel, &self.common.centroids, clock);
        Ok(vec![
            Field::scalar("F", Centring::Cell, f.iter().map(|v| v.f64()).collect()),
            Field::vector("velocity", 3, Centring::Cell, vel),
        ])
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(to_bytes(&self.engine.download(&self.f)?))
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let n = self.common.centroids.len();
        if bytes.len() != n * std::mem::size_of::<R>() {
            return Err(SolverError::Other(format!(
                "the checkpoint holds {} bytes, not the {n} values of F on this mesh",
                bytes.len()
            )));
        }
        let f: Vec<R> = from_bytes(bytes);
        let old = std::mem::replace(&mut self.f, self.engine.upload(&f)?);
        self.engine.recycle(old);
        Ok(())
    }

    fn bytes_per_step(&self) -> f64 {
        self.common.bytes_per_step
    }

    fn variant(&self) -> String {
        self.common.variant.clone()
    }

    fn sync(&mut self) -> Result<()> {
        self.engine.sync()
    }
}
