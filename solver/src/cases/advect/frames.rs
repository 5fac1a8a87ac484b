//! The frames of a time-dependent velocity as the evaluation reads them: cell fields with
//! their Jacobians (`CellVelocity`), where each time falls between them (`Timeline`), and the
//! frames a step holds (`Window`), blended linearly in time:
//!   v(t) = v_k + w (v_{k+1} - v_k),  w = (t - t_k) / (t_{k+1} - t_k),
//! so that a series of identical frames gives that frame exactly.

use crate::mesh::linalg3::arr;
use crate::mesh::lsq_gradient;
use crate::real::Real;
use meshtool::PreparedMesh;
use rayon::prelude::*;
use std::sync::Arc;

/// A cell velocity field and its Jacobian J[a][b] = d v_a / d x_b per cell.
pub struct CellVelocity<R> {
    pub v: Vec<[R; 3]>,
    pub jac: Vec<[[R; 3]; 3]>,
    pub max_speed: f64,
}

impl CellVelocity<f64> {
    /// A cell velocity with its least-squares Jacobian on `mesh` and its largest speed.
    pub fn with_jacobian(v: Vec<[f64; 3]>, mesh: &PreparedMesh) -> Self {
        let t = &mesh.topo;
        let jac: Vec<[[f64; 3]; 3]> = (0..v.len())
            .into_par_iter()
            .map(|c| std::array::from_fn(|a| lsq_gradient(&t.centroids, &t.neighbours, c, |d| v[d][a])))
            .collect();
        CellVelocity {
            max_speed: max_speed(&v),
            v,
            jac,
        }
    }
}

/// The largest |v| of a cell field.
pub fn max_speed(v: &[[f64; 3]]) -> f64 {
    v.iter()
        .map(|x| (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt())
        .fold(0.0, f64::max)
}

impl CellVelocity<f64> {
    /// The field in precision R (each value rounded once).
    pub fn in_precision<R: Real>(&self) -> CellVelocity<R> {
        CellVelocity {
            v: self.v.iter().map(|&x| arr(x)).collect(),
            jac: self.jac.iter().map(|j| j.map(arr)).collect(),
            max_speed: self.max_speed,
        }
    }
}

/// The frames' times: listed (a `.pvd`) or every `interval` from 0 (a sample), and the
/// offset of series time from run time.
pub struct Timeline {
    pub times: Times,
    pub offset: f64,
}

pub enum Times {
    Listed(Vec<f64>),
    Every(f64),
}

impl Timeline {
    /// The frame k and weight w of run time t: v(t) = v_k + w (v_{k+1} - v_k), clamped to the
    /// first and last frames.
    pub fn locate(&self, t: f64) -> (usize, f64) {
        let ts = t + self.offset;
        match &self.times {
            Times::Listed(times) => {
                let n = times.len();
                if ts <= times[0] {
                    return (0, 0.0);
                }
                if ts >= times[n - 1] {
                    return (n - 2, 1.0);
                }
                let k = times.partition_point(|&x| x <= ts) - 1;
                (k, (ts - times[k]) / (times[k + 1] - times[k]))
            }
            Times::Every(interval) => {
                if ts <= 0.0 {
                    return (0, 0.0);
                }
                let k = (ts / interval).floor() as usize;
                (k, ((ts - k as f64 * interval) / interval).clamp(0.0, 1.0))
            }
        }
    }
}

/// The frames a step reads, in precision R: those around each time it evaluates.
pub struct Window<R> {
    pub timeline: Arc<Timeline>,
    pub loaded: Vec<(usize, Arc<CellVelocity<R>>)>,
    pub max_speed: f64,
}

/// A frame of a window: its index in the series and its fields.
pub type Frame<'a, R> = (usize, &'a Arc<CellVelocity<R>>);

impl<R: Real> Window<R> {
    fn frame(&self, k: usize) -> &Arc<CellVelocity<R>> {
        let f = self.loaded.iter().find(|f| f.0 == k);
        &f.expect("the frames around every time a step evaluates are loaded").1
    }

    /// The frames k and k + 1 around run time t and the weight of k + 1, rounded to R.
    pub fn at(&self, t: f64) -> (Frame<'_, R>, Frame<'_, R>, R) {
        let (k, w) = self.timeline.locate(t);
        ((k, self.frame(k)), (k + 1, self.frame(k + 1)), R::of(w))
    }

    /// The velocity and its Jacobian in `cell` at time t, blended in R: a + w (b - a).
    pub fn eval(&self, cell: usize, t: R) -> ([R; 3], [[R; 3]; 3]) {
        let ((_, a), (_, b), w) = self.at(t.f64());
        let (va, vb, ja, jb) = (&a.v[cell], &b.v[cell], &a.jac[cell], &b.jac[cell]);
        let v = std::array::from_fn(|i| va[i] + w * (vb[i] - va[i]));
        let j = std::array::from_fn(|i| std::array::from_fn(|k| ja[i][k] + w * (jb[i][k] - ja[i][k])));
        (v, j)
    }

    /// The frames held, by index.
    pub fn loaded(&self) -> &[(usize, Arc<CellVelocity<R>>)] {
        &self.loaded
    }

    pub fn max_speed(&self) -> f64 {
        self.max_speed
    }
}
