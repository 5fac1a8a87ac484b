//! Semi-Lagrangian transport of cell fields on tetrahedra (Evstigneev, sections II-IV): the
//! departure point of each cell centroid by the explicit second-order formula (`departure`),
//! located by walking (`mesh::locate`), the field interpolated there by a limited
//! least-squares quadratic (`quadratic`), Voronoi-dual or linear weights (`interp`), and the step, first order or BFECC with a limiter, written once
//! over the operations of a backend (`bfecc`, implemented by `cpu::HostSl` and, with a family's
//! departure kernel, over `cuda::DeviceSl`). Every piece takes one scalar field, so a family
//! with several (the components of a velocity) traces once and calls them per component.

pub mod bfecc;
pub mod cpu;
pub mod cuda;
pub mod departure;
pub mod interp;
pub mod quadratic;

pub use bfecc::{step, step_bounded, trace, transport, transport_bounded, Method, Scheme, SlOps, Traced};
pub use departure::{departure, Departure, Span, VelocityField};
pub use interp::{Interpolated, Interpolation};
pub use quadratic::Weighting;

#[cfg(test)]
mod tests;
