//! What both executions (`cpu.rs`, `cuda.rs`) share of a step: the order of the split sweeps,
//! the parameters of a Runge-Kutta stage, the bytes a step must move and the variant's name.

use super::plm::StageParams;
use super::section::Scheme;
use super::setup::EulerSetup;
use crate::real::Real;

/// The sweeps of step `step` (counted from 0), on either backend: the active axes, their order
/// alternating (x y z, then z y x) so the splitting error cancels to second order over two steps.
pub fn sweep_order(setup: &EulerSetup, step: u64) -> Vec<usize> {
    let mut axes = setup.active_axes();
    if step % 2 == 1 {
        axes.reverse();
    }
    axes
}

/// Bytes a step must move at the least, on either backend: each MUSCL-Hancock sweep reads and
/// writes the 5 conservative values of every cell once; the RK3 stages read the stage's state,
/// (stages 2 and 3) the step's start, and write the result: 15 + 10 + 10 + 5 + 5 values... as
/// 3 reads of u_s, 2 of u_n, 3 writes.
pub fn min_bytes_per_step(setup: &EulerSetup, real_bytes: usize) -> f64 {
    let values_per_cell = match setup.scheme {
        Scheme::MusclHancock => 10.0 * setup.active_axes().len() as f64,
        Scheme::PlmRk3 => 5.0 * (3.0 + 2.0 + 3.0),
    };
    values_per_cell * real_bytes as f64 * setup.grid.points() as f64
}

/// The parameters of RK3 stage (a, b) of a step dt, on either backend.
pub fn stage_params<R: Real>(setup: &EulerSetup, a: f64, b: f64, dt: f64) -> StageParams<R> {
    StageParams {
        gamma: R::of(setup.gamma),
        scheme: (setup.limiter, setup.riemann),
        active: std::array::from_fn(|x| setup.grid.cells[x] > 1),
        inv_h: setup.grid.h.map(|h| R::of(1.0 / h)),
        gravity: setup.gravity.map(R::of),
        a: R::of(a),
        b: R::of(b),
        dt: R::of(dt),
    }
}

/// The numerical variant, on either backend.
pub fn variant(setup: &EulerSetup) -> String {
    format!("{}+{}+{}", setup.scheme.name(), setup.riemann.name(), setup.limiter.name())
}
