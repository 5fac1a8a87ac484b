//! Slope limiters of MUSCL-Hancock (Toro, "Riemann Solvers and Numerical Methods for Fluid
//! Dynamics", 3rd ed., sec. 14.4, eqs. 14.47-14.52, with omega = 0): the limited slope is
//! xi(r) times the central slope (d_minus + d_plus) / 2, with r = d_minus / d_plus. And the
//! generalized minmod of the PLM paper (`euler-3d-rayleigh-taylor-hll-rk3-gpu.md`, eqs. 18-19).

use crate::real::Real;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Limiter {
    /// No slope: Godunov's first-order method.
    FirstOrder,
    /// The most dissipative TVD limiter (minmod-like).
    Minbee,
    #[default]
    VanLeer,
    /// The least dissipative TVD limiter.
    Superbee,
    /// minmod(theta d_minus, (d_minus + d_plus) / 2, theta d_plus) with the PLM paper's
    /// theta = 1.5 (between minmod, 1, and the monotonized central limiter, 2).
    Minmod,
}

/// The PLM paper's theta of the generalized minmod ("we usually use theta = 1.5").
pub const MINMOD_THETA: f64 = 1.5;

impl Limiter {
    pub fn name(self) -> &'static str {
        match self {
            Limiter::FirstOrder => "first-order",
            Limiter::Minbee => "minbee",
            Limiter::VanLeer => "van-leer",
            Limiter::Superbee => "superbee",
            Limiter::Minmod => "minmod",
        }
    }

    /// The limited slope of a cell from its backward and forward differences.
    #[inline]
    pub fn slope<R: Real>(self, d_minus: R, d_plus: R) -> R {
        let (zero, one, two, half) = (R::zero(), R::one(), R::of(2.0), R::of(0.5));
        if self == Limiter::FirstOrder || d_plus == zero {
            return zero;
        }
        let r = d_minus / d_plus;
        if r <= zero {
            return zero;
        }
        if self == Limiter::Minmod {
            // Same signs here: the smallest magnitude of the three, with their sign.
            let theta = R::of(MINMOD_THETA);
            let m = (theta * d_minus.abs())
                .min(theta * d_plus.abs())
                .min(half * (d_minus + d_plus).abs());
            return if d_plus > zero { m } else { -m };
        }
        // xi_R(r) = 2 / (1 + r) (eq. 14.50 with omega = 0)
        let xi_r = two / (one + r);
        let xi = match self {
            Limiter::FirstOrder | Limiter::Minmod => zero,
            Limiter::Minbee => {
                if r <= one {
                    r
                } else {
                    one.min(xi_r)
                }
            }
            Limiter::VanLeer => (two * r / (one + r)).min(xi_r),
            Limiter::Superbee => {
                if r <= half {
                    two * r
                } else if r <= one {
                    one
                } else {
                    r.min(xi_r).min(two)
                }
            }
        };
        xi * half * (d_minus + d_plus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limiters_are_tvd_and_second_order_on_smooth_data() {
        for l in [Limiter::Minbee, Limiter::VanLeer, Limiter::Superbee, Limiter::Minmod] {
            // Equal differences (a straight line): the full central slope.
            assert_eq!(l.slope(0.2f64, 0.2), 0.2, "{l:?}");
            // An extremum: no slope.
            assert_eq!(l.slope(0.2f64, -0.1), 0.0, "{l:?}");
            // Never steeper than twice the smaller difference (TVD region).
            for (a, b) in [(0.1f64, 1.0), (1.0, 0.1), (0.3, 0.5)] {
                let s = l.slope(a, b);
                assert!(s >= 0.0 && s <= 2.0 * a.min(b) + 1e-15, "{l:?} {a} {b} {s}");
            }
        }
        assert_eq!(Limiter::FirstOrder.slope(0.2f64, 0.2), 0.0);
        // Superbee is the most compressive, minbee the least.
        let (a, b) = (0.3f64, 0.5);
        assert!(Limiter::Superbee.slope(a, b) >= Limiter::VanLeer.slope(a, b));
        assert!(Limiter::VanLeer.slope(a, b) >= Limiter::Minbee.slope(a, b));
        // The generalized minmod: theta times the smaller difference where that is smallest.
        assert!((Limiter::Minmod.slope(0.1f64, 1.0) - 0.15).abs() < 1e-15);
        assert!((Limiter::Minmod.slope(-0.3f64, -0.5) + 0.4).abs() < 1e-15);
    }
}
