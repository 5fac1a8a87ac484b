//! Incompressible Navier-Stokes on tetrahedra (Evstigneev, section V): a fractional step with
//! semi-Lagrangian BFECC advection of the velocity components (`numerics::sl`), implicit (or
//! explicit) viscosity and an incremental pressure correction by preconditioned CG
//! (`numerics::linalg`), on collocated cell-centred unknowns with Rhie-Chow face fluxes that
//! the projection makes divergence-free. This folder holds its case-file section (`section`),
//! the finite-volume faces with their boundary roles (`faces`), the step written once over
//! the backend's operations (`step`), the CPU operations (`cpu`), the simulation (`sim`),
//! the parsed case (`setup`) and its templates; forces, probes and derived fields come from
//! `mesh` (`forces`, `probes`, `derived`).

pub mod cpu;
pub mod faces;
pub mod section;
pub mod setup;
pub mod sim;
pub mod step;

use crate::framework::{FamilyInfo, Template};

static TEMPLATES: &[Template] = &[Template::new(
    "dfg-3d-1z",
    "Schaefer & Turek's 3D-1Z: steady flow past a cylinder in a channel at Re 20 (cd, cl, dp against the reference)",
    include_str!("templates/dfg-3d-1z.toml"),
)];

/// The family: incompressible flow on a tetrahedral mesh.
pub static FAMILY: FamilyInfo = FamilyInfo::new("navier-stokes", &["mesh"], TEMPLATES, &[], &[], |doc| {
    Ok(Box::new(setup::NsSetup::parse(doc)?))
});
