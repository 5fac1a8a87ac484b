//! The semi-Lagrangian step, written once over the operations a backend provides (`SlOps`):
//! first order, F' = I(V, F), or BFECC with the limiter (Evstigneev eq. 16-18),
//!   F1 = I(V, F), F2 = I(-V, F1), F' = I(V, F + (F - F2)/2) clamped to the donors' range of F1.
//! The departure points depend only on the velocity, so a family that advects several fields
//! by the same velocity (the components of a momentum) traces them once (`trace`) and calls
//! `advect` for each field.

use super::departure::Span;
use super::interp::Interpolated;
use crate::error::{Result, SolverError};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Back and forth error compensation and correction (with the limiter when set).
    #[default]
    Bfecc,
    /// First-order semi-Lagrangian.
    Sl1,
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Bfecc => "bfecc",
            Scheme::Sl1 => "sl1",
        }
    }
}

/// The scheme and whether BFECC's corrected value is clamped to the donors' range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Method {
    pub scheme: Scheme,
    pub limiter: bool,
}

/// What a backend provides: departure points, interpolation at them, and the two pointwise
/// combinations of BFECC. `Field` is a cell field where the backend keeps it (host vector,
/// device buffer); the step hands temporaries back through `recycle` so that a device backend
/// reuses its buffers instead of allocating every step.
pub trait SlOps {
    type Deps;
    type Field;
    /// Departure points of every cell centroid over `span`, the velocity times `sign`.
    fn departures(&mut self, span: Span, sign: f64) -> Result<Self::Deps>;
    /// I(deps, f) with the donors' range.
    fn interpolate(&mut self, deps: &Self::Deps, f: &Self::Field) -> Result<Interpolated<Self::Field>>;
    /// f + (f - f2) / 2
    fn correct(&mut self, f: &Self::Field, f2: &Self::Field) -> Result<Self::Field>;
    /// x clamped to [lo, hi]
    fn limit(&mut self, x: Self::Field, lo: &Self::Field, hi: &Self::Field) -> Result<Self::Field>;
    fn recycle(&mut self, _f: Self::Field) {}
    fn recycle_deps(&mut self, _d: Self::Deps) {}
}

/// The departure points a step needs: forward, and backward for BFECC.
pub struct Traced<D> {
    pub fwd: D,
    pub bwd: Option<D>,
}

/// Trace the departure points of one step of `method`.
pub fn trace<O: SlOps>(ops: &mut O, method: Method, span: Span) -> Result<Traced<O::Deps>> {
    let fwd = ops.departures(span, 1.0)?;
    let bwd = match method.scheme {
        Scheme::Bfecc => Some(ops.departures(span, -1.0)?),
        Scheme::Sl1 => None,
    };
    Ok(Traced { fwd, bwd })
}

/// One step of `method` for the field f on departure points traced by `trace`.
pub fn transport<O: SlOps>(ops: &mut O, method: Method, deps: &Traced<O::Deps>, f: &O::Field) -> Result<O::Field> {
    let out = transport_bounded(ops, method, deps, f)?;
    ops.recycle(out.lo);
    ops.recycle(out.hi);
    Ok(out.value)
}

/// `transport` with the donors' range of each value (that of the first interpolation, which
/// the limiter clamps to): a correction that must create no new extrema stays within it.
pub fn transport_bounded<O: SlOps>(
    ops: &mut O,
    method: Method,
    deps: &Traced<O::Deps>,
    f: &O::Field,
) -> Result<Interpolated<O::Field>> {
    let first = ops.interpolate(&deps.fwd, f)?;
    let bwd = match (method.scheme, &deps.bwd) {
        (Scheme::Sl1, _) => return Ok(first),
        (Scheme::Bfecc, Some(bwd)) => bwd,
        (Scheme::Bfecc, None) => {
            return Err(SolverError::Other(
                "internal: BFECC needs the backward departures of `trace`".into(),
            ))
        }
    };
    let back = ops.interpolate(bwd, &first.value)?;
    let g = ops.correct(f, &back.value)?;
    recycle_all(ops, back);
    ops.recycle(first.value);
    let corrected = ops.interpolate(&deps.fwd, &g)?;
    ops.recycle(g);
    ops.recycle(corrected.lo);
    ops.recycle(corrected.hi);
    let value = if method.limiter {
        ops.limit(corrected.value, &first.lo, &first.hi)?
    } else {
        corrected.value
    };
    Ok(Interpolated {
        value,
        lo: first.lo,
        hi: first.hi,
    })
}

/// One step of `method` for one field: `trace`, then `transport`.
pub fn step<O: SlOps>(ops: &mut O, method: Method, span: Span, f: &O::Field) -> Result<O::Field> {
    let out = step_bounded(ops, method, span, f)?;
    ops.recycle(out.lo);
    ops.recycle(out.hi);
    Ok(out.value)
}

/// `step` with the donors' range of each value (`transport_bounded`).
pub fn step_bounded<O: SlOps>(ops: &mut O, method: Method, span: Span, f: &O::Field) -> Result<Interpolated<O::Field>> {
    let deps = trace(ops, method, span)?;
    let out = transport_bounded(ops, method, &deps, f)?;
    ops.recycle_deps(deps.fwd);
    if let Some(b) = deps.bwd {
        ops.recycle_deps(b);
    }
    Ok(out)
}

fn recycle_all<O: SlOps>(ops: &mut O, i: Interpolated<O::Field>) {
    ops.recycle(i.value);
    ops.recycle(i.lo);
    ops.recycle(i.hi);
}
