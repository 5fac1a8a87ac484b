//! Initial conditions and closed-form solutions of the heat cases.

use super::section::{AxisBoundary, HeatInitial};
use crate::grid::StructuredGrid;
use std::f64::consts::PI;

/// What the initial conditions and the closed forms read of a case (`HeatSetup::problem`).
#[derive(Clone, Copy)]
pub struct Problem<'a> {
    pub grid: &'a StructuredGrid,
    pub alpha: f64,
    pub axes: [AxisBoundary; 3],
    pub initial: &'a HeatInitial,
}

/// The initial value at x.
pub fn initial_value(s: Problem, x: [f64; 3]) -> f64 {
    let g = s.grid;
    match *s.initial {
        HeatInitial::SineProduct { modes } => (0..3)
            .map(|a| (modes[a] * PI * (x[a] - g.origin[a]) / g.extent[a]).sin())
            .product(),
        HeatInitial::Gaussian(ref gs) => gs.at(x[gs.axis] - g.origin[gs.axis]),
        HeatInitial::Constant { value } => value,
    }
}

/// The exact solution at time t where one exists:
/// - sine-product with even modes on periodic axes and integer modes on Dirichlet [0, 0] axes:
///   the product decays as exp(-alpha sum (k pi / L)^2 t);
/// - Gaussian on a periodic axis: the heat kernel summed over periodic images;
/// - constant initial value with Dirichlet values on one axis (others periodic): the slab
///   series of erfc terms (Carslaw & Jaeger; the thesis' eq. 5.7 with the image term's sign
///   of eta as in the original: erfc(2(n+1) eta1 - eta)).
pub fn exact(s: Problem, t: f64) -> Option<Vec<f64>> {
    let value = exact_fn(s, t)?;
    Some(s.grid.sample(value))
}

/// The exact solution as a function of position at time t, where one exists.
pub fn exact_fn(s: Problem<'_>, t: f64) -> Option<Box<dyn Fn([f64; 3]) -> f64 + Sync + '_>> {
    let g = s.grid;
    let value: Box<dyn Fn([f64; 3]) -> f64 + Sync> = match *s.initial {
        HeatInitial::SineProduct { modes } => {
            for a in 0..3 {
                let ok = match s.axes[a] {
                    AxisBoundary::Periodic => modes[a] % 2.0 == 0.0,
                    AxisBoundary::Dirichlet([v0, v1]) => v0 == 0.0 && v1 == 0.0 && modes[a].fract() == 0.0,
                };
                if !ok {
                    return None;
                }
            }
            let rate: f64 = (0..3).map(|a| (modes[a] * PI / g.extent[a]).powi(2)).sum::<f64>() * s.alpha;
            let decay = (-rate * t).exp();
            Box::new(move |x| decay * initial_value(s, x))
        }
        HeatInitial::Gaussian(ref gs) => {
            let (amplitude, center, width, axis) = (gs.amplitude, gs.center, gs.width, gs.axis);
            if s.axes[axis] != AxisBoundary::Periodic {
                return None;
            }
            let l = g.extent[axis];
            let var = width * width + 2.0 * s.alpha * t;
            let scale = amplitude * width / var.sqrt();
            Box::new(move |x| {
                let y = x[axis] - g.origin[axis];
                (-20..=20)
                    .map(|m| (-(y - center - m as f64 * l).powi(2) / (2.0 * var)).exp())
                    .sum::<f64>()
                    * scale
            })
        }
        HeatInitial::Constant { value } => {
            let dirichlet: Vec<usize> = (0..3).filter(|&a| s.axes[a] != AxisBoundary::Periodic).collect();
            if dirichlet.len() != 1 || t <= 0.0 {
                return None;
            }
            let axis = dirichlet[0];
            let AxisBoundary::Dirichlet([v0, v1]) = s.axes[axis] else {
                unreachable!()
            };
            let l = g.extent[axis];
            let root = 2.0 * (s.alpha * t).sqrt();
            let slab = move |y: f64| -> f64 {
                (0..200)
                    .map(|n| {
                        libm::erfc((2.0 * n as f64 * l + y) / root) - libm::erfc((2.0 * (n + 1) as f64 * l - y) / root)
                    })
                    .sum()
            };
            Box::new(move |x| {
                let y = x[axis] - g.origin[axis];
                value + (v0 - value) * slab(y) + (v1 - value) * slab(l - y)
            })
        }
    };
    Some(value)
}
