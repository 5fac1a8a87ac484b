//! Finite-volume building blocks: `riemann_exact`, the exact Riemann solver of the 1D Euler
//! equations for an ideal gas (Toro, chapter 4), whose sample at x/t = 0 is the Godunov state;
//! `limiters`, the slope limiters of MUSCL-Hancock.

pub mod limiters;
pub mod riemann_exact;
