//! Semi-Lagrangian advection of a cell-centred scalar on tetrahedra with BFECC and a limiter
//! (Evstigneev, sections II-IV): departure points by the explicit second-order formula
//! (`velocity::departure`), element location by walking (`locate`), Voronoi-dual or linear
//! interpolation (`interp`), and
//!   F1 = I(V, F), F2 = I(-V, F1), F' = I(V, F + (F - F2)/2) limited to the donors' range
//! (eq. 16-18), or first-order SL F' = I(V, F). Both backends (`cpu`, `cuda`) read the same
//! `geometry` in the run's precision and do the same arithmetic in the same order. This module
//! holds the case-file section and `prepare`, which builds either backend.

pub mod cpu;
pub mod cuda;
pub mod geometry;
pub mod interp;
pub mod locate;
pub mod profile;
pub mod velocity;

use crate::cases::{Layout, Prepared, Simulation, Target};
use crate::config::CaseFile;
use crate::error::{Result, SolverError};
use crate::real::Real;
use geometry::Geometry;
use interp::Interpolation;
use meshtool::PreparedMesh;
pub use profile::Profile;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use velocity::{Velocity, VelocitySpec};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdvectSection {
    /// "bfecc" (with the limiter, eq. 16-18) or "sl1" (first-order semi-Lagrangian).
    #[serde(default)]
    pub scheme: Scheme,
    /// "voronoi" (eq. 11-14) or "linear".
    #[serde(default)]
    pub interpolation: Interpolation,
    /// Clamp the corrected BFECC value to the donors' range (no new extrema).
    #[serde(default = "yes")]
    pub limiter: bool,
    pub profile: Profile,
    pub velocity: VelocitySpec,
    /// Boundary condition per patch name: `{ dirichlet = value }` or `"neumann"` (zero
    /// gradient, the default for patches not listed). Applied to departure points outside, and
    /// inside the interpolation (section II.C): Dirichlet patches add virtual cells carrying
    /// the value to the Voronoi weights and pin their vertices in the linear interpolation.
    #[serde(default)]
    pub boundary: BTreeMap<String, PatchBc>,
    /// Step budget of the walk before the kd-tree restart.
    #[serde(default = "walk_steps")]
    pub max_walk: u32,
}

fn yes() -> bool {
    true
}
fn walk_steps() -> u32 {
    200
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    #[default]
    Bfecc,
    Sl1,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum PatchBc {
    Neumann,
    Dirichlet(f64),
}

/// The CFL length scale of the paper: mean cell volume / mean face area.
pub fn length_scale(m: &PreparedMesh) -> f64 {
    let n = m.num_cells() as f64;
    let vol = m.total_volume() / n;
    let area: f64 = m.topo.face_areas.iter().map(|a| a.iter().sum::<f64>()).sum::<f64>() / (4.0 * n);
    vol / area
}

/// Bytes one step must move at the least: every array each kernel reads or writes, touched
/// once (the gathers through the walk and the dual tables re-read far more, mostly from
/// cache). The fraction of the copy bandwidth this reaches says how close to the memory
/// roofline an unstructured gather kernel gets.
fn min_bytes_per_step<R: Real>(g: &Geometry<R>, section: &AdvectSection) -> f64 {
    let (r, i) = (std::mem::size_of::<R>() as f64, 4.0);
    let (n, nodes) = (g.num_cells() as f64, g.nodes.len() as f64);
    let tables = |t: &meshtool::dual::DualTables<R>| t.cells.len() as f64 * (16.0 * r + i) + (nodes + 1.0) * i;
    let cell_geometry = n * (17.0 * r + 8.0 * i) + nodes * 3.0 * r;
    // centroid in, point and location out, the cell geometry the walk tests.
    let departures = n * (6.0 * r + 2.0 * i) + cell_geometry;
    // point and location in, value and range out, the field, the located cells' vertices.
    let base = n * (7.0 * r + 6.0 * i) + nodes * 3.0 * r;
    let interpolation = match section.interpolation {
        Interpolation::Voronoi => base + tables(&g.dual) + tables(&g.virt),
        // + the gradient pass, and the donors' gradients, ranges and centroids.
        Interpolation::VoronoiGrad => {
            base + tables(&g.dual) + tables(&g.virt) + n * (4.0 * r + 4.0 * i + 5.0 * r) + n * 8.0 * r
        }
        // vertex values (dual cells and volumes in, node values out), then barycentric.
        Interpolation::Linear => base + nodes * (2.0 * i + r) + g.dual.cells.len() as f64 * i + n * r + cell_geometry,
    };
    match section.scheme {
        Scheme::Sl1 => departures + interpolation + n * 2.0 * r,
        Scheme::Bfecc => 2.0 * departures + 3.0 * interpolation + n * 7.0 * r,
    }
}

/// The velocity at every centroid at time t, three values per cell (an output field, and the
/// input of a later run's `velocity = { kind = "field" }`).
pub(crate) fn cell_velocities<R: Real>(vel: &Velocity<R>, centroids: &[[R; 3]], t: f64, step: u64) -> Vec<f64> {
    centroids
        .par_iter()
        .enumerate()
        .flat_map_iter(|(c, &x)| vel.eval(x, c, R::of(t), step).0.map(|v| v.f64()))
        .collect()
}

/// Checkpoint layout: step, time, field.
pub(crate) fn state_bytes<R: Real>(step: u64, t: f64, f: &[R]) -> Vec<u8> {
    let mut b = Vec::with_capacity(16 + std::mem::size_of_val(f));
    b.extend_from_slice(&step.to_le_bytes());
    b.extend_from_slice(&t.to_le_bytes());
    b.extend(crate::cases::to_bytes(f));
    b
}

pub(crate) fn state_from_bytes<R: Real>(b: &[u8]) -> (u64, f64, Vec<R>) {
    (
        u64::from_le_bytes(b[..8].try_into().unwrap()),
        f64::from_le_bytes(b[8..16].try_into().unwrap()),
        crate::cases::from_bytes(&b[16..]),
    )
}

pub fn prepare<R: Real>(case: &CaseFile, case_path: &Path, target: &Target) -> Result<Prepared> {
    let section = case.advect.clone().expect("validated");
    let mesh_path = crate::config::resolve(case_path, case.mesh.as_ref().expect("validated"));
    let mut mesh = PreparedMesh::read(&mesh_path)?;
    let mut bc = vec![f64::NAN; mesh.patches.len()];
    for (name, b) in &section.boundary {
        let i = mesh.patch_index(name).ok_or_else(|| {
            let names: Vec<&str> = mesh.patches.iter().map(|p| p.name.as_str()).collect();
            SolverError::config(
                case_path,
                &format!("advect.boundary.{name}"),
                format!("the mesh has no patch '{name}' (it has: {})", names.join(", ")),
            )
        })?;
        if let PatchBc::Dirichlet(v) = b {
            bc[i] = *v;
        }
    }
    let (lo, hi) = mesh.bounding_box();
    let len: [f64; 3] = std::array::from_fn(|k| hi[k] - lo[k]);
    let cells = match &section.velocity {
        VelocitySpec::Field { file, array } => {
            let path = crate::config::resolve(case_path, Path::new(file));
            let field = velocity::load_cell_velocity::<R>(&path, array, &mesh, case_path, "advect.velocity.file")?;
            if field.max_speed == 0.0 {
                return Err(SolverError::config(
                    case_path,
                    "advect.velocity.file",
                    format!(
                        "the velocity in {} is zero everywhere: nothing to advect",
                        path.display()
                    ),
                ));
            }
            Some(Arc::new(field))
        }
        _ => None,
    };
    let vel = Velocity {
        spec: section.velocity.clone(),
        lo,
        len,
        cells,
    };
    let h = length_scale(&mesh);
    let (dt, steps) = crate::cases::time_steps(&case.time, case.time.cfl * h / vel.max_speed());
    let profile = section.profile.clone();
    let f: Vec<R> = mesh
        .topo
        .centroids
        .iter()
        .map(|&x| R::of(profile.value(x, lo, len)))
        .collect();
    let (fmin, fmax) = f.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
        (a.min(v.f64()), b.max(v.f64()))
    });
    let geo = Geometry::<R>::take(&mut mesh, &bc);
    let mesh = Arc::new(mesh);
    let reference_mesh = mesh.clone();
    let reference_vel = vel.clone();
    let reference: crate::cases::ReferenceFn = Box::new(move |t| {
        reference_mesh
            .topo
            .centroids
            .iter()
            .map(|&x| reference_vel.origin(x, t, steps).map(|x0| profile.value(x0, lo, len)))
            .collect()
    });
    let variant = format!(
        "{}+{}{}",
        match section.scheme {
            Scheme::Bfecc => "bfecc",
            Scheme::Sl1 => "sl1",
        },
        match section.interpolation {
            Interpolation::Voronoi => "voronoi",
            Interpolation::VoronoiGrad => "voronoi-grad",
            Interpolation::Linear => "linear",
        },
        if section.scheme == Scheme::Bfecc && section.limiter {
            "+limiter"
        } else {
            ""
        }
    );
    let (backend, device) = target.describe();
    let bc: Vec<R> = bc.iter().map(|&v| R::of(v)).collect();
    let min_bytes = min_bytes_per_step(&geo, &section);
    let sim: Box<dyn Simulation> = match target {
        Target::Cpu => Box::new(cpu::AdvectCpu::new(geo, vel, section, bc, f)),
        Target::Cuda(dev) => Box::new(cuda::AdvectCuda::new(dev.clone(), geo, vel, &section, bc, &f)?),
    };
    Ok(Prepared {
        sim,
        layout: Layout::Tets(mesh.clone()),
        dt,
        steps,
        reference: Some(reference),
        backend,
        device,
        variant,
        min_bytes_per_step: min_bytes,
        extra: serde_json::json!({"initial_min": fmin, "initial_max": fmax, "cfl_length_scale": h, "mesh": mesh_path}),
        weights: Some(mesh.topo.volumes.clone()),
    })
}
