//! Incompressible Navier-Stokes on tetrahedra (Evstigneev, section V): a fractional step with
//! semi-Lagrangian BFECC advection of the velocity components (`numerics::sl`), implicit (or
//! explicit) viscosity and an incremental pressure correction by preconditioned CG
//! (`numerics::linalg`), on collocated cell-centred unknowns with Rhie-Chow face fluxes that
//! the projection makes divergence-free. This folder holds its case-file section (`section`),
//! the parsed case (`setup`), the simulation (`sim`), the step written once over the backend's
//! operations (`step`), the CPU and CUDA operations (`cpu`, `cuda`), the finite-volume faces
//! with their boundary roles (`faces`), the LES models (`les`), the periodic meshes' case
//! checks and built-in boxes (`periodic`), the running averages (`averages`), the force and
//! energy history (`history`), the wake's measurements (`wake`) and its templates; forces,
//! probes, vorticity and the force signals' statistics are `diagnostics`' services.

pub mod averages;
pub mod cpu;
pub mod cuda;
pub mod faces;
pub mod history;
pub mod les;
pub mod periodic;
pub mod section;
pub mod setup;
pub mod sim;
pub mod step;
pub mod wake;

use crate::framework::{BenchSpec, CheckSpec, FamilyInfo, Sizes, Template};

static TEMPLATES: &[Template] = &[
    Template::new(
        "dfg-3d-1z",
        "Schaefer & Turek's 3D-1Z: steady flow past a cylinder in a channel at Re 20 (cd, cl, dp against the reference)",
        include_str!("templates/dfg-3d-1z.toml"),
    ),
    Template::new(
        "dfg-2d-2",
        "Schaefer & Turek's 2D-2: periodic shedding behind a cylinder at Re 100, a one-cell slab (cd max, cl max, St, dp against the bounds)",
        include_str!("templates/dfg-2d-2.toml"),
    ),
    Template::new(
        "dfg-3d-2z",
        "Schaefer & Turek's 3D-2Z: periodic shedding behind a cylinder in the 3D channel at Re 100 (cd max, cl max, St against the quoted intervals)",
        include_str!("templates/dfg-3d-2z.toml"),
    ),
    Template::new(
        "cylinder-re3900-les",
        "Flow past a cylinder at Re 3900 with the dynamic LES model in a periodic span (mean Cd, St, recirculation length and base pressure against experiment)",
        include_str!("templates/cylinder-re3900-les.toml"),
    ),
    Template::new(
        "tgv-3d-les",
        "The 3D Taylor-Green vortex at Re 1600 on its symmetric octant with the dynamic LES model (kinetic energy and its dissipation rate against the DNS)",
        include_str!("templates/tgv-3d-les.toml"),
    ),
];

/// The linear solves of the check, to 1e-14 (pressure) and 1e-15 (momentum): both backends'
/// CG then stop near rounding of the exact solve, so what is compared is the step's
/// arithmetic, not where each CG stopped (the CPU tests the recursive residual every
/// iteration, the device the true one every fourth). A CPU test (`tests/ns.rs`) bounds what
/// the stopping point alone changes against solves to 1e-16: 5.3e-12 with "cells" face
/// gradients, 1.2e-11 with the template's "wall-fits" over its 10 check steps, 4.5e-11 with
/// "fits" (4.6e-9 at 1e-12, velocity being the sensitive field).
pub const CHECK_SOLVES: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
];

/// `CHECK_SOLVES` with the AMG pressure preconditioner cycling in f64 on the device (the
/// default cycles in f32 there; the CPU always in f64).
pub const CHECK_SOLVES_AMG_F64: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.pressure_solver.amg.precision=\"f64\"",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
];

/// `CHECK_SOLVES` with the pressure solve preconditioned by Jacobi.
pub const CHECK_SOLVES_JACOBI: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.pressure_solver.preconditioner=\"jacobi\"",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
];

/// `CHECK_SOLVES` with the pressure solve preconditioned by Chebyshev-Jacobi (degree 4).
pub const CHECK_SOLVES_CHEBYSHEV: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.pressure_solver.preconditioner=\"chebyshev\"",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
];

/// `CHECK_SOLVES` with the family's default viscous face gradients (the template's are the
/// vertex fits' at walls).
pub const CHECK_SOLVES_CELLS: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
    "navier-stokes.face_gradients=\"cells\"",
];

/// `CHECK_SOLVES` with the vertex fits' face gradients on every face.
pub const CHECK_SOLVES_FITS: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
    "navier-stokes.face_gradients=\"fits\"",
];

/// `CHECK_SOLVES` with the vertex fits' whole flux on every face (`face_gradients = "fits-full"`).
pub const CHECK_SOLVES_FITS_FULL: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
    "navier-stokes.face_gradients=\"fits-full\"",
];

/// `CHECK_SOLVES` with the two diagnostics of the per-step damping: the predicted
/// fluxes from the previous step's (`flux_memory`, a device kernel's extra term) and half the
/// transport's rest error taken off (`rest_correction`, written over the operations).
pub const CHECK_SOLVES_MEMORY: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
    "navier-stokes.flux_memory=\"full\"",
    "navier-stokes.flux_memory_time=0.05",
    "navier-stokes.rest_correction=0.5",
];

/// `CHECK_SOLVES` on the Taylor-Green template's 8^3 octant (3072 tets) with the Smagorinsky
/// model.
pub const CHECK_SOLVES_SMAGORINSKY: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
    "mesh=\"builtin:pi-box-8\"",
    "navier-stokes.les=\"smagorinsky\"",
];

/// The same with the dynamic model (the template's), its diffusion limit at 0.02, under the
/// octant's 0.11-0.24, so that the cap acts in many cells (`les_diffusion_limit`).
pub const CHECK_SOLVES_DYNAMIC: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
    "mesh=\"builtin:pi-box-8\"",
    "navier-stokes.les=\"dynamic\"",
    "navier-stokes.les_diffusion_limit=0.02",
];

/// The Taylor-Green template on the fully periodic box [0, 2 pi]^3 (builtin:periodic-box-8,
/// 3072 tets; its boundary table emptied, the joined patches having no condition) at dt 0.2, so
/// that departure points cross the periodic faces: the face shifts, the walk
/// across the seams and the vertex fits over the periodic images on the device.
pub const CHECK_SOLVES_PERIODIC: &[&str] = &[
    "navier-stokes.pressure_solver.tolerance=1e-14",
    "navier-stokes.pressure_solver.max_iter=5000",
    "navier-stokes.momentum_solver.tolerance=1e-15",
    "navier-stokes.momentum_solver.max_iter=1000",
    "mesh=\"builtin:periodic-box-8\"",
    "navier-stokes.boundary={}",
    "time.dt=0.2",
];

/// The DFG template on its built-in coarse channel, 10 steps from rest (its flow there is
/// unsteady, and with the template's "wall-fits" the solves' last digits grow past 1e-10 by
/// step 15, tests/ns.rs): u, p (and the derived fields), cd, cl and dp within 1e-10 in f64
/// (f32 is refused); a restart row. The template's pressure solve is AMG with f32 cycles on the
/// device; again with f64 cycles, with Jacobi, with the
/// Chebyshev pressure preconditioner (the device's own Chebyshev steps against the CPU's), and
/// with the cell-gradient viscous face gradients (the family's default) and with the vertex fits
/// on every face (the template's take them at walls only), and with their whole flux on every
/// face ("fits-full", 10 steps: the flow's sensitivity carried the last digits to 6.5e-10 by
/// step 20 on an H200). The transient 2D-2 template on its
/// built-in slab, 10 steps from rest, with a restart row (u^(n-1), the averages and the force
/// history in the checkpoint), and with the diagnostics `flux_memory` and `rest_correction` (its
/// restart row carries the fluxes F^n). The Taylor-Green template on an 8^3 octant, 10 steps
/// with each LES model (eddy viscosity, its test filter and the subgrid fluxes on the device;
/// the field `eddy_viscosity` is compared with the others), the dynamic one with a restart row;
/// and again on the fully periodic box (`CHECK_SOLVES_PERIODIC`), with a restart row (the
/// dynamic rows with the LES diffusion limit acting). The Re 3900 cylinder template on its
/// built-in span (the periodic span, the dynamic model, walls and slip sides together), with
/// a restart row.
static CHECKS: &[CheckSpec] = &[
    CheckSpec::new("dfg-3d-1z coarse", "dfg-3d-1z", CHECK_SOLVES, 10, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"])
        .with_restart(),
    CheckSpec::new("dfg-3d-1z coarse amg-f64", "dfg-3d-1z", CHECK_SOLVES_AMG_F64, 10, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"]),
    CheckSpec::new("dfg-3d-1z coarse jacobi", "dfg-3d-1z", CHECK_SOLVES_JACOBI, 10, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"]),
    CheckSpec::new("dfg-3d-1z coarse chebyshev", "dfg-3d-1z", CHECK_SOLVES_CHEBYSHEV, 10, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"]),
    CheckSpec::new("dfg-3d-1z coarse cells", "dfg-3d-1z", CHECK_SOLVES_CELLS, 20, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"])
        .with_restart(),
    CheckSpec::new("dfg-3d-1z coarse fits", "dfg-3d-1z", CHECK_SOLVES_FITS, 20, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"]),
    CheckSpec::new("dfg-3d-1z coarse fits-full", "dfg-3d-1z", CHECK_SOLVES_FITS_FULL, 10, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"]),
    CheckSpec::new("dfg-2d-2 coarse", "dfg-2d-2", CHECK_SOLVES, 10, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"])
        .with_restart(),
    CheckSpec::new("dfg-2d-2 coarse memory", "dfg-2d-2", CHECK_SOLVES_MEMORY, 10, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl", "dp"])
        .with_restart(),
    CheckSpec::new("dfg-3d-2z coarse", "dfg-3d-2z", CHECK_SOLVES, 10, [1e-10, f64::NAN]).with_scalars(&["cd", "cl", "dp"]),
    CheckSpec::new("tgv-3d-les smagorinsky", "tgv-3d-les", CHECK_SOLVES_SMAGORINSKY, 10, [1e-10, f64::NAN]),
    CheckSpec::new("tgv-3d-les dynamic", "tgv-3d-les", CHECK_SOLVES_DYNAMIC, 10, [1e-10, f64::NAN]).with_restart(),
    CheckSpec::new("tgv-3d-les periodic", "tgv-3d-les", CHECK_SOLVES_PERIODIC, 10, [1e-10, f64::NAN]).with_restart(),
    CheckSpec::new("cylinder-re3900-les coarse", "cylinder-re3900-les", CHECK_SOLVES, 10, [1e-10, f64::NAN])
        .with_scalars(&["cd", "cl"])
        .with_restart(),
];

/// Steps of the DFG template: on `solver bench --mesh` meshes (with the DFG patches, e.g.
/// `meshtool generate cylinder`), else on its built-in coarse channel.
static BENCHES: &[BenchSpec] = &[BenchSpec {
    name: "dfg-3d-1z",
    template: "dfg-3d-1z",
    sets: &["mesh=\"{mesh}\"", "navier-stokes.log_every=0"],
    sizes: Sizes::Meshes(&[]),
}];

/// The family: incompressible flow on a tetrahedral mesh.
pub static FAMILY: FamilyInfo = FamilyInfo::new("navier-stokes", &["mesh"], TEMPLATES, CHECKS, BENCHES, |doc| {
    Ok(Box::new(setup::NsSetup::parse(doc)?))
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Target;
    use crate::commands::specs::{spec_doc, Stepped};
    use crate::cases::FAMILIES;
    use crate::framework::Precision;

    /// The periodic check row is a valid case and steps on the CPU, its departure points
    /// crossing the periodic faces.
    #[test]
    fn the_periodic_check_row_runs_on_the_cpu() {
        let spec = CHECKS.iter().find(|s| s.name == "tgv-3d-les periodic").unwrap();
        let sets: Vec<String> = spec.sets.iter().map(|s| s.to_string()).collect();
        let doc = spec_doc(FAMILIES, spec.template, &sets, None, Precision::F64).unwrap();
        let mut s = Stepped::run(&doc, FAMILIES, Target::Cpu, 2).unwrap();
        let f = s.fields().unwrap();
        let u = f.iter().find(|f| f.name == "velocity").unwrap();
        assert!(u.values.iter().all(|v| v.is_finite()));
    }

    /// The LES check rows are valid cases (their mesh is built in) and step on the CPU, with a
    /// non-negative eddy viscosity among their fields (what `solver check` compares on a device).
    #[test]
    fn the_les_check_rows_run_on_the_cpu() {
        for spec in CHECKS.iter().filter(|s| s.template == "tgv-3d-les") {
            let sets: Vec<String> = spec.sets.iter().map(|s| s.to_string()).collect();
            let doc = spec_doc(FAMILIES, spec.template, &sets, None, Precision::F64).unwrap();
            let mut s = Stepped::run(&doc, FAMILIES, Target::Cpu, 2).unwrap();
            let f = s.fields().unwrap();
            let nut = f.iter().find(|f| f.name == "eddy_viscosity").expect("eddy_viscosity");
            assert!(nut.values.iter().all(|v| *v >= 0.0 && v.is_finite()), "{}", spec.name);
            assert!(nut.values.iter().any(|v| *v > 0.0), "{}", spec.name);
        }
    }
}
