//! The running advection, written once over its two executions (`Engine`: `cpu.rs`, `cuda.rs`).
//! The state is the scalar F alone; the time and the step come from the framework's clock.

use super::frames::Window;
use super::series::FrameCache;
use super::velocity::Velocity;
use crate::error::{Result, SolverError};
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::numerics::sl::{self, Method, SlOps, Span};
use crate::output::{Centring, Field};
use crate::real::{from_bytes, to_bytes, Real};
use rayon::prelude::*;
use std::sync::Arc;

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
    /// The frames of a time-dependent velocity (`series`) the next departures read.
    fn set_frames(&mut self, w: &Arc<Window<R>>) -> Result<()>;
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
    /// Cell volumes, for the total of F.
    pub volumes: Vec<f64>,
    /// Boundary faces, for the flux of F through them.
    pub faces: Vec<BoundaryFace>,
    /// Keep the total (`AdvectSection::conserve`) within [lo, hi], the initial range and the
    /// Dirichlet values.
    pub conserve: Option<(f64, f64)>,
    /// The scalar's name (`AdvectSection::name`).
    pub name: String,
    /// The frames of a `series` velocity held between steps.
    pub frames: Option<FrameCache<R>>,
}

impl<R: Real> Common<R> {
    /// Load the frames of a `series` velocity around the run times `times` (rounded to R as
    /// the evaluation rounds them) for the host's evaluations, and give them to `engine` too
    /// where it is set.
    fn frames_at<E: Engine<R>>(&mut self, times: &[R], engine: Option<&mut E>) -> Result<()> {
        let Some(cache) = &mut self.frames else {
            return Ok(());
        };
        let times: Vec<f64> = times.iter().map(|t| t.f64()).collect();
        let w = cache.window(&times)?;
        if let Some(e) = engine {
            e.set_frames(&w)?;
        }
        self.vel.frames = Some(w);
        Ok(())
    }
}

/// A boundary face: its cell, centroid, outward normal times area, and the Dirichlet value of
/// its patch (NaN: zero gradient, the cell's value).
pub struct BoundaryFace {
    pub cell: usize,
    pub x: [f64; 3],
    pub na: [f64; 3],
    pub bc: f64,
}

/// Net inflow rate of F through the boundary at time t: minus the sum of (v . n) A F_upwind,
/// F_upwind being the cell's value where the flow leaves and the patch's value (Dirichlet) or
/// the cell's where it enters.
fn inflow_rate<R: Real>(c: &Common<R>, f: &[R], t: f64, step: u64) -> f64 {
    c.faces
        .par_iter()
        .map(|b| {
            let (v, _) = c.vel.eval(b.x.map(R::of), b.cell, R::of(t), step);
            let un: f64 = (0..3).map(|k| v[k].f64() * b.na[k]).sum();
            let fc = f[b.cell].f64();
            let up = if un < 0.0 && !b.bc.is_nan() { b.bc } else { fc };
            -un * up
        })
        .sum()
}

/// sum(V f), compensated (Neumaier) so that a total of many cells is exact to a few ulps and
/// the kept total does not drift by the sums' round-off.
pub fn total(f: impl Iterator<Item = f64>, vol: &[f64]) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for (f, v) in f.zip(vol) {
        let x = f * v;
        let t = s + x;
        c += if s.abs() >= x.abs() { (s - t) + x } else { (x - t) + s };
        s = t;
    }
    s + c
}

/// Moves f by `target - sum(V f)` within [lo, hi] per cell, so that no value leaves its range.
/// A gain is taken from the cells nearest their lower bound and a loss given to those nearest
/// their upper one: the first pass moves each cell towards the bound on the side of the
/// difference in proportion to its room there times the square of its place in its range
/// seen from that bound (V (f - lo) ((hi - f) / (hi - lo))^2 for a gain), which pushes a
/// smeared front's tails back towards the plateaus it came from instead of lowering the
/// plateau; the second pass takes the rest in proportion to the plain room (V (f - lo)). What
/// the local room cannot take goes to the global bounds the same way. Returns what is left
/// (zero unless neither has room enough).
///
/// On the paper's duct step (40k tets, 30 + 30 steps) the plain room alone (the first rule)
/// gave L1 52.8 %, the place to the power 1, 2, 4: 49.1, 48.0, 46.9 % (50.9 % not conserving);
/// the rotation's order on Kuhn boxes fell 1.91 -> 1.86 -> 1.82 with the power (VALIDATION.md).
pub fn conserve_within(f: &mut [f64], lo: &[f64], hi: &[f64], vol: &[f64], target: f64, global: (f64, f64)) -> f64 {
    let total = |f: &[f64]| total(f.iter().copied(), vol);
    let mut d = target - total(f);
    for pass in 0..4 {
        if d == 0.0 {
            break;
        }
        let room = |i: usize| -> f64 {
            let (l, h) = if pass < 2 { (lo[i], hi[i]) } else { global };
            let (towards, from) = if d > 0.0 { (h - f[i], f[i] - l) } else { (f[i] - l, h - f[i]) };
            let room = towards.max(0.0);
            if pass % 2 == 1 || h <= l {
                return room;
            }
            let place = (from.max(0.0) / (h - l)).min(1.0);
            room * place * place
        };
        let r: Vec<f64> = (0..f.len()).map(room).collect();
        // In cell order (rayon's float sum depends on its work-stealing splits, and a restart
        // must give the same bits).
        let sum = total(&r);
        if sum > 0.0 {
            let a = (d.abs() / sum).min(1.0) * d.signum();
            f.par_iter_mut().zip(&r).for_each(|(f, r)| *f += a * r);
        }
        d = target - total(f);
    }
    d
}

pub struct AdvectSim<R: Real, E: Engine<R>> {
    engine: E,
    f: E::Field,
    common: Common<R>,
    /// Net inflow of F through the boundary so far (with `conserve`).
    inflow: f64,
}

impl<R: Real, E: Engine<R>> AdvectSim<R, E> {
    pub fn new(mut engine: E, f: &[R], common: Common<R>) -> Result<Self> {
        Ok(AdvectSim {
            f: engine.upload(f)?,
            engine,
            common,
            inflow: 0.0,
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
        // The departures read the velocity at t and t + dt, the inflow at mid-step.
        let t0 = R::of(clock.time);
        let times = [t0, t0 + R::of(dt), R::of(clock.time + 0.5 * dt)];
        self.common.frames_at(&times, Some(&mut self.engine))?;
        let Some(global) = self.common.conserve else {
            let next = sl::step(&mut self.engine, self.common.method, span, &self.f)?;
            let old = std::mem::replace(&mut self.f, next);
            self.engine.recycle(old);
            return Ok(());
        };
        let c = &self.common;
        let f0 = self.engine.download(&self.f)?;
        let before = total(f0.iter().map(|f| f.f64()), &c.volumes);
        let inflow = dt * inflow_rate(c, &f0, clock.time + 0.5 * dt, clock.step);
        let out = sl::step_bounded(&mut self.engine, c.method, span, &self.f)?;
        let host = |e: &mut E, x: &E::Field| -> Result<Vec<f64>> { Ok(e.download(x)?.iter().map(|v| v.f64()).collect()) };
        let (mut f, lo, hi) = (
            host(&mut self.engine, &out.value)?,
            host(&mut self.engine, &out.lo)?,
            host(&mut self.engine, &out.hi)?,
        );
        for b in [out.value, out.lo, out.hi] {
            self.engine.recycle(b);
        }
        conserve_within(&mut f, &lo, &hi, &self.common.volumes, before + inflow, global);
        self.inflow += inflow;
        let f: Vec<R> = f.into_iter().map(R::of).collect();
        let next = self.engine.upload(&f)?;
        let old = std::mem::replace(&mut self.f, next);
        self.engine.recycle(old);
        Ok(())
    }

    /// The total of F, sum of V F; with `conserve`, also the net inflow through the boundary
    /// so far and the total less that inflow (`conservative`: constant to round-off).
    fn totals(&mut self) -> Result<Vec<(String, f64)>> {
        let f = self.engine.download(&self.f)?;
        let total = total(f.iter().map(|f| f.f64()), &self.common.volumes);
        let name = &self.common.name;
        let mut out = vec![(name.clone(), total)];
        if self.common.conserve.is_some() {
            out.push((format!("{name}_inflow"), self.inflow));
            out.push(("conservative".into(), total - self.inflow));
        }
        Ok(out)
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let m = self.engine.max_abs(&self.f)?;
        Ok((!m.is_finite() || m > 1e100).then(|| Unhealthy {
            field: self.common.name.clone(),
            what: format!("max |{}| = {m:e}", self.common.name),
        }))
    }

    fn fields(&mut self, clock: &Clock) -> Result<Vec<Field>> {
        self.common.frames_at::<E>(&[R::of(clock.time)], None)?;
        let f = self.engine.download(&self.f)?;
        let vel = cell_velocities(&self.common.vel, &self.common.centroids, clock);
        Ok(vec![
            Field::scalar(&self.common.name, Centring::Cell, f.iter().map(|v| v.f64()).collect()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A smeared step (0 .. 1 over five cells) with 3 % too much: the total is restored to
    /// round-off, no value leaves [0, 1], and the gain comes off the low tail, not the plateau.
    #[test]
    fn a_gain_comes_off_the_low_tail_within_the_bounds() {
        let f0 = [1.0, 1.0, 0.9, 0.6, 0.3, 0.1, 0.0, 0.0];
        let vol = [1.0, 2.0, 1.0, 1.5, 1.0, 0.5, 1.0, 1.0];
        let (lo, hi) = (vec![0.0; 8], vec![1.0; 8]);
        let mut f = f0.to_vec();
        let target = 0.97 * total(f0.iter().copied(), &vol);
        let left = conserve_within(&mut f, &lo, &hi, &vol, target, (0.0, 1.0));
        assert!(left.abs() < 1e-15 && (total(f.iter().copied(), &vol) - target).abs() < 1e-14);
        assert!(f.iter().all(|&v| (0.0..=1.0).contains(&v)), "{f:?}");
        let drop: Vec<f64> = f0.iter().zip(&f).map(|(a, b)| a - b).collect();
        assert_eq!(drop[0], 0.0, "the plateau stays: {drop:?}");
        assert!(drop[5] / f0[5] > drop[2] / f0[2], "the tail loses more: {drop:?}");
        // A loss goes to the cells nearest the top, the same way.
        let mut g = f0.to_vec();
        let more = 1.02 * total(f0.iter().copied(), &vol);
        conserve_within(&mut g, &lo, &hi, &vol, more, (0.0, 1.0));
        assert!((total(g.iter().copied(), &vol) - more).abs() < 1e-14);
        assert!(g[2] - f0[2] > g[5] - f0[5] && g[6] == 0.0, "{g:?}");
    }
}
