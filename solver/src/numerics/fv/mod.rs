//! Finite-volume building blocks: `riemann_exact`, the exact Riemann solver of the 1D Euler
//! equations for an ideal gas (Toro, chapter 4), whose sample at x/t = 0 is the Godunov state;
//! `riemann_hll`, the approximate HLL and HLLC fluxes (Toro, chapter 10) with pressure-based
//! wave-speed estimates; `limiters`, the slope limiters of MUSCL-Hancock.

pub mod limiters;
pub mod riemann_exact;
pub mod riemann_hll;
