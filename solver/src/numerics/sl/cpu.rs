//! The semi-Lagrangian operations on the CPU (rayon over cells): the reference for the CUDA
//! kernels, which do the same arithmetic in the same order.

use super::bfecc::SlOps;
use super::departure::{departures, Departure, Span, VelocityField};
use super::interp::{interpolate, Interpolated, Interpolation};
use super::quadratic::{self, QuadFit, Weighting};
use crate::error::Result;
use crate::mesh::{Locator, TetGeometry};
use crate::real::Real;
use rayon::prelude::*;
use std::sync::Arc;

/// What the CPU operations read: the geometry, its locator, the velocity the trajectories
/// follow, the interpolation (with the quadratic's fit tables where it is that one) and the
/// Dirichlet value of each patch (NaN for the others).
pub struct HostSl<R, V> {
    pub geo: Arc<TetGeometry<R>>,
    pub locator: Arc<Locator>,
    pub vel: V,
    pub interpolation: Interpolation,
    pub fit: Option<Arc<QuadFit<R>>>,
    pub bc: Vec<R>,
}

impl<R: Real, V> HostSl<R, V> {
    /// The operations on `geo`, building what the interpolation needs (the quadratic with the
    /// `Wide` weighting).
    pub fn new(geo: Arc<TetGeometry<R>>, max_walk: u32, vel: V, interpolation: Interpolation, bc: Vec<R>) -> Self {
        Self::weighted(geo, max_walk, vel, interpolation, Weighting::Wide, bc)
    }

    /// `new` with the quadratic's weighting.
    pub fn weighted(
        geo: Arc<TetGeometry<R>>,
        max_walk: u32,
        vel: V,
        interpolation: Interpolation,
        weighting: Weighting,
        bc: Vec<R>,
    ) -> Self {
        let fit = (interpolation == Interpolation::Quadratic)
            .then(|| Arc::new(quadratic::build_weighted(&geo, &bc, weighting)));
        Self::with_fit(geo, max_walk, vel, interpolation, fit, bc)
    }

    /// `new` with the quadratic's tables built by the caller (who shares them), which the
    /// quadratic interpolation needs.
    pub fn with_fit(
        geo: Arc<TetGeometry<R>>,
        max_walk: u32,
        vel: V,
        interpolation: Interpolation,
        fit: Option<Arc<QuadFit<R>>>,
        bc: Vec<R>,
    ) -> Self {
        HostSl {
            locator: Arc::new(Locator::new(&geo, max_walk)),
            geo,
            vel,
            interpolation,
            fit,
            bc,
        }
    }
}

impl<R: Real, V: VelocityField<R>> SlOps for HostSl<R, V> {
    type Deps = Vec<Departure<R>>;
    type Field = Vec<R>;

    fn departures(&mut self, span: Span, sign: f64) -> Result<Self::Deps> {
        Ok(departures(&self.geo, &self.locator, &self.vel, span, sign))
    }

    fn interpolate(&mut self, deps: &Self::Deps, f: &Vec<R>) -> Result<Interpolated<Vec<R>>> {
        Ok(interpolate(
            &self.geo,
            self.interpolation,
            self.fit.as_deref(),
            &self.bc,
            deps,
            f,
        ))
    }

    fn correct(&mut self, f: &Vec<R>, f2: &Vec<R>) -> Result<Vec<R>> {
        let half = R::of(0.5);
        Ok(f.par_iter().zip(f2).map(|(&f, &b)| f + half * (f - b)).collect())
    }

    fn limit(&mut self, x: Vec<R>, lo: &Vec<R>, hi: &Vec<R>) -> Result<Vec<R>> {
        Ok((x, lo, hi)
            .into_par_iter()
            .map(|(x, &lo, &hi)| x.max(lo).min(hi))
            .collect())
    }
}
