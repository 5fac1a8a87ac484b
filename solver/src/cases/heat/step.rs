//! The step both executions take (`cpu.rs`, `cuda.rs`): the 8th-order central second
//! derivative and Kutta's third-order Runge-Kutta scheme.
//!
//! Each RK3 step is three stages of the form  out = ca*A + cb*B + cs*S + cl*L(S):
//!   u1   = phi + dt/2 L(phi)
//!   u2   = 3 phi - 2 u1 + 2 dt L(u1)
//!   phi' = -phi/3 + u1 + u2/3 + dt/6 L(u2)
//! which is Kutta's k1, k2, k3 (y' = y + dt/6 (k1 + 4 k2 + k3)) rewritten to need three arrays.

/// Coefficients of the 8th-order second derivative: centre, then the symmetric pairs 1..4.
pub const FD8: [f64; 5] = [-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0];

/// The stencil's reach: the halo width on every axis.
pub const RADIUS: usize = 4;

/// The stencil's symbol: D2 exp(i theta x) = -sigma(theta)/h^2 exp(i theta x).
pub fn fd8_symbol(theta: f64) -> f64 {
    -(FD8[0] + 2.0 * (1..5).map(|m| FD8[m] * (m as f64 * theta).cos()).sum::<f64>())
}

/// The three stages: (ca, cb, cs, cl/dt) with A = phi, B = u1.
pub const STAGES: [[f64; 4]; 3] = [
    [0.0, 0.0, 1.0, 0.5],
    [3.0, 0.0, -2.0, 2.0],
    [-1.0 / 3.0, 1.0, 1.0 / 3.0, 1.0 / 6.0],
];
