//! Semi-Lagrangian advection of a cell-centred scalar on tetrahedra with BFECC and a limiter
//! (Evstigneev, sections II-IV), on the shared unstructured layer (`mesh`) and semi-Lagrangian
//! pieces (`numerics::sl`). This folder holds what is the family's own: its case-file section
//! (`section`), initial profiles (`profile`), velocity fields (`velocity`), the parsed case
//! (`setup`), the simulation written once over its two executions (`sim`, `cpu`, `cuda`), its
//! templates, and its CPU-vs-CUDA checks and benchmark as data.

pub mod cpu;
pub mod cuda;
pub mod frames;
pub mod profile;
pub mod section;
pub mod series;
pub mod setup;
pub mod sim;
pub mod velocity;

use crate::backend::Target;
use crate::error::{Result, SolverError};
use crate::framework::{
    BenchSpec, Case, CaseDoc, CheckSpec, Clock, FamilyInfo, Sizes, SpecContext, Template,
};
use crate::output;
use meshtool::PreparedMesh;
pub use profile::Profile;
pub use section::{AdvectSection, PatchBc};
use std::path::{Path, PathBuf};

const ADVECT_STEP: &str = include_str!("templates/advect-step.toml");

static TEMPLATES: &[Template] = &[
    Template {
        name: "advect-step",
        about: "paper's test: step function 30 steps forward and 30 back at CFL 3 (needs duct.pmesh)",
        text: ADVECT_STEP,
    },
    Template {
        name: "advect-sine-ellipse",
        about: "the same with the sine / half-ellipse profile",
        text: include_str!("templates/advect-sine-ellipse.toml"),
    },
    Template {
        name: "advect-rotation",
        about: "solid-body rotation of a smooth bump (convergence; needs box.pmesh)",
        text: include_str!("templates/advect-rotation.toml"),
    },
    Template {
        name: "advect-deformation",
        about: "LeVeque's reversing deformation field (needs box.pmesh)",
        text: include_str!("templates/advect-deformation.toml"),
    },
    Template {
        name: "advect-unsteady",
        about: "a scalar through an unsteady flow given as a time series of velocity frames (needs box.pmesh)",
        text: include_str!("templates/advect-unsteady.toml"),
    },
];

const ROTATION: &str = "advect.velocity={kind=\"rotation\"}";

/// A row of the paper's test (`advect-step`, 30 + 30 steps): f64 to 1e-10, f32 to 1e-5 (both
/// backends run the same arithmetic in the same order, so any difference is a rounding the
/// two sides do differently). Rows run the plain scheme (`advect.conserve = false`, as they
/// were measured bit-identical) unless their overrides say `advect.conserve=true`.
const fn check(name: &'static str, sets: &'static [&'static str]) -> CheckSpec {
    CheckSpec {
        name,
        template: "advect-step",
        sets,
        steps: 60,
        tolerance: [1e-10, 1e-5],
        extra: Some(inflow_outflow),
        scalars: &[],
        restart: false,
    }
}

static CHECKS: &[CheckSpec] = &[
    check(
        "bfecc+quadratic",
        &["mesh=\"{mesh}\"", "advect.conserve=false", "advect.scheme=bfecc", "advect.interpolation=quadratic"],
    ),
    check(
        "bfecc+quadratic-wide",
        &[
            "mesh=\"{mesh}\"",
            "advect.conserve=false",
            "advect.scheme=bfecc",
            "advect.interpolation=quadratic",
            "advect.fit=\"wide\"",
        ],
    ),
    check(
        "sl1+quadratic",
        &["mesh=\"{mesh}\"", "advect.conserve=false", "advect.scheme=sl1", "advect.interpolation=quadratic"],
    ),
    check(
        "bfecc+quadratic+conserve",
        &[
            "mesh=\"{mesh}\"",
            "advect.scheme=bfecc",
            "advect.interpolation=quadratic",
            "advect.conserve=true",
        ],
    ),
    check(
        "bfecc+quadratic (rotation)",
        &[
            "mesh=\"{mesh}\"",
            "advect.conserve=false",
            "advect.scheme=bfecc",
            "advect.interpolation=quadratic",
            ROTATION,
        ],
    ),
    check(
        "bfecc+voronoi",
        &["mesh=\"{mesh}\"", "advect.conserve=false", "advect.scheme=bfecc", "advect.interpolation=voronoi"],
    ),
    // Walks of two steps: most departure points restart from the nearest centroid, which the
    // CPU and the device find through the same buckets (mesh::centroid_grid).
    check(
        "bfecc+quadratic (restarts)",
        &[
            "mesh=\"{mesh}\"",
            "advect.conserve=false",
            "advect.scheme=bfecc",
            "advect.interpolation=quadratic",
            "advect.max_walk=2",
        ],
    ),
    check(
        "bfecc+voronoi-grad",
        &[
            "mesh=\"{mesh}\"",
            "advect.conserve=false",
            "advect.scheme=bfecc",
            "advect.interpolation=voronoi-grad",
        ],
    ),
    check(
        "bfecc+linear",
        &["mesh=\"{mesh}\"", "advect.conserve=false", "advect.scheme=bfecc", "advect.interpolation=linear"],
    ),
    check(
        "sl1+voronoi",
        &["mesh=\"{mesh}\"", "advect.conserve=false", "advect.scheme=sl1", "advect.interpolation=voronoi"],
    ),
    check(
        "sl1+linear",
        &["mesh=\"{mesh}\"", "advect.conserve=false", "advect.scheme=sl1", "advect.interpolation=linear"],
    ),
    check(
        "bfecc+voronoi (rotation)",
        &[
            "mesh=\"{mesh}\"",
            "advect.conserve=false",
            "advect.scheme=bfecc",
            "advect.interpolation=voronoi",
            ROTATION,
        ],
    ),
    CheckSpec {
        extra: Some(rotation_as_a_field),
        ..check(
            "bfecc+voronoi (field)",
            &["mesh=\"{mesh}\"", "advect.conserve=false", "advect.scheme=bfecc", "advect.interpolation=voronoi"],
        )
    },
    CheckSpec {
        extra: Some(unsteady_series),
        ..check(
            "bfecc+quadratic (series)",
            &["mesh=\"{mesh}\"", "advect.conserve=false", "advect.scheme=bfecc", "advect.interpolation=quadratic"],
        )
    },
];

/// The check's mesh, absolute (the overrides below name files in other folders).
fn check_mesh(ctx: &SpecContext) -> Result<PathBuf> {
    let mesh = ctx
        .mesh
        .ok_or_else(|| SolverError::Other("the advection checks need a mesh".into()))?;
    std::path::absolute(mesh).map_err(|e| SolverError::io(mesh, e))
}

/// The template's Dirichlet patches are the duct's `inlet` and `outlet`; on a mesh without them
/// (the generated box) the faces the flow enters and leaves by, x = min and max, take their
/// part, and the Courant number drops to 1 so that the profile, which 30 steps at 3 carry out
/// of a short box, comes back (partly through the outflow) with something left to compare.
fn inflow_outflow(ctx: &SpecContext) -> Result<Vec<String>> {
    let m = PreparedMesh::read(&check_mesh(ctx)?)?;
    let has = |names: [&str; 2]| names.iter().all(|n| m.patch_index(n).is_some());
    if has(["inlet", "outlet"]) {
        return Ok(vec![]);
    }
    let boundary = if has(["xmin", "xmax"]) {
        "advect.boundary={xmin={dirichlet=0.0},xmax={dirichlet=0.0}}"
    } else {
        "advect.boundary={}"
    };
    Ok(vec![boundary.into(), "time.cfl=1".into()])
}

/// `inflow_outflow`, and the rotation's velocity as a cell field in a VTU, as a previous run
/// writes it: the override that makes a case read it.
fn rotation_as_a_field(ctx: &SpecContext) -> Result<Vec<String>> {
    let mut sets = inflow_outflow(ctx)?;
    let mesh = format!("mesh=\"{}\"", check_mesh(ctx)?.display());
    let overrides: Vec<String> = [mesh, ROTATION.into()]
        .into_iter()
        .chain(sets.iter().cloned())
        .collect();
    let doc = CaseDoc::parse(ADVECT_STEP, Path::new("advect-step.toml"), &overrides)?;
    let mut case = Case::prepare(&doc, &[&FAMILY], Target::Cpu)?;
    let mut fields = case.sim.fields(&Clock::default())?;
    fields.retain(|f| f.name == "velocity");
    let dir = std::path::absolute(ctx.dir).map_err(|e| SolverError::io(ctx.dir, e))?;
    let file = dir.join(output::write_fields(&dir.join("velocity"), &case.geometry, &fields)?);
    sets.push(format!(
        "advect.velocity={{kind=\"field\",file=\"{}\"}}",
        file.display()
    ));
    Ok(sets)
}

/// `inflow_outflow`, and a time-dependent velocity: a `.pvd` series of four different frames
/// (uniform along x, slowing, a rotation, reversed) over the 60 steps at a fixed step of 2 h
/// (Courant number 2 at speed 1), written on the check's mesh as a previous run writes them.
fn unsteady_series(ctx: &SpecContext) -> Result<Vec<String>> {
    use velocity::VelocitySpec::{Constant, Rotation};
    let mut sets = inflow_outflow(ctx)?;
    sets.retain(|s| !s.starts_with("time.cfl"));
    let mesh = check_mesh(ctx)?;
    let m = PreparedMesh::read(&mesh)?;
    let dt = 2.0 * crate::mesh::length_scale(&m);
    let (lo, hi) = m.bounding_box();
    let omega = 1.0 / (0.5 * ((hi[0] - lo[0]).powi(2) + (hi[1] - lo[1]).powi(2)).sqrt());
    let constant = |speed| Constant {
        speed,
        reverse_after: None,
    };
    let frames = [constant(1.0), constant(0.3), Rotation { omega }, constant(-1.0)];
    let frames: Vec<(f64, velocity::VelocitySpec)> =
        frames.into_iter().enumerate().map(|(k, v)| (20.0 * k as f64 * dt, v)).collect();
    let dir = std::path::absolute(ctx.dir).map_err(|e| SolverError::io(ctx.dir, e))?;
    let pvd = dir.join("unsteady.pvd");
    series::write_series(&pvd, &mesh, &frames)?;
    sets.push(format!("time.dt={dt:e}"));
    sets.push(format!("advect.velocity={{kind=\"series\",file=\"{}\"}}", pvd.display()));
    Ok(sets)
}

static BENCHES: &[BenchSpec] = &[
BenchSpec {
    name: "bfecc+voronoi",
    template: "advect-step",
    sets: &[
        "mesh=\"{mesh}\"",
        // The step's own throughput, as BENCHMARKS.md measured it (the default's conservation
        // runs on the host).
        "advect.conserve=false",
        "advect.interpolation=voronoi",
        "advect.velocity.reverse_after=1000000",
        "advect.boundary={}",
    ],
    sizes: Sizes::Meshes(&[26, 55]),
},
// The default interpolation: the vertex quadratics are fitted once per pass, then interpolated.
BenchSpec {
    name: "bfecc+quadratic",
    template: "advect-step",
    sets: &[
        "mesh=\"{mesh}\"",
        // The step's own throughput, as BENCHMARKS.md measured it (the default's conservation
        // runs on the host).
        "advect.conserve=false",
        "advect.interpolation=quadratic",
        "advect.velocity.reverse_after=1000000",
        "advect.boundary={}",
    ],
    sizes: Sizes::Meshes(&[26, 55]),
}];

/// The family: semi-Lagrangian advection of a cell scalar on a tetrahedral mesh.
pub static FAMILY: FamilyInfo = FamilyInfo::new("advect", &["mesh"], TEMPLATES, CHECKS, BENCHES, |doc| {
    Ok(Box::new(setup::AdvectSetup::parse(doc)?))
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::specs::{box_mesh, spec_doc, Stepped};
    use crate::cases::FAMILIES;
    use crate::framework::Precision;

    /// Every check and benchmark is a valid case on the generated box the framework uses when
    /// no mesh is given (the template's `inlet` and `outlet` are the duct's), and steps.
    #[test]
    fn checks_and_benches_run_on_the_generated_box() {
        let dir = tempfile::tempdir().unwrap();
        let mesh = box_mesh(dir.path(), 5).unwrap();
        let ctx = SpecContext {
            dir: dir.path(),
            mesh: Some(&mesh),
        };
        for spec in CHECKS {
            let mut sets: Vec<String> = spec.sets.iter().map(|s| s.to_string()).collect();
            sets.extend((spec.extra.unwrap())(&ctx).unwrap());
            let doc = spec_doc(FAMILIES, spec.template, &sets, ctx.mesh, Precision::F32).unwrap();
            let mut s = Stepped::run(&doc, FAMILIES, Target::Cpu, 2).unwrap();
            let f = s.fields().unwrap();
            assert!(f[0].values.iter().all(|v| v.is_finite()), "{}", spec.name);
        }
        let b = &BENCHES[0];
        let sets: Vec<String> = b.sets.iter().map(|s| s.to_string()).collect();
        let doc = spec_doc(FAMILIES, b.template, &sets, ctx.mesh, Precision::F64).unwrap();
        Stepped::run(&doc, FAMILIES, Target::Cpu, 1).unwrap();
    }
}
