//! Semi-Lagrangian advection of a cell-centred scalar on tetrahedra with BFECC and a limiter
//! (Evstigneev, sections II-IV): departure points by the explicit second-order formula
//! (`velocity::departure`), element location by walking (`locate`), Voronoi-dual or linear
//! interpolation (`interp`), and
//!   F1 = I(V, F), F2 = I(-V, F1), F' = I(V, F + (F - F2)/2) limited to the donors' range
//! (eq. 16-18), or first-order SL F' = I(V, F). CPU execution (rayon) here.

pub mod cuda;
pub mod interp;
pub mod locate;
pub mod velocity;

use crate::cases::{Layout, Prepared, Simulation, Target};
use crate::config::CaseFile;
use crate::error::{Result, SolverError};
use interp::Interpolation;
use locate::{Location, Locator};
use meshtool::PreparedMesh;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use velocity::{departure, Velocity, VelocitySpec};

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
    /// gradient, the default for patches not listed). Applied to departure points outside.
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

/// Initial profiles, placed relative to the mesh's bounding box (lo, L = hi - lo).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Profile {
    /// 1 inside x in [lo.x + 0.08 Lx, + 0.5 Ly], y and z in the middle half; 0 elsewhere.
    Step,
    /// A half sine period along x over the same span, times a half ellipse sqrt(1 - r^2) over
    /// the middle half of the y-z section.
    SineEllipse,
    /// A smooth Gaussian bump of standard deviation `width` (fraction of the smallest box
    /// edge) at `center` (fractions of the box).
    Bump {
        #[serde(default = "bump_width")]
        width: f64,
        #[serde(default = "bump_center")]
        center: [f64; 3],
    },
}

fn bump_width() -> f64 {
    0.08
}
fn bump_center() -> [f64; 3] {
    [0.75, 0.5, 0.5]
}

impl Profile {
    pub fn value(&self, x: [f64; 3], lo: [f64; 3], len: [f64; 3]) -> f64 {
        let x0 = lo[0] + 0.08 * len[0];
        let span = 0.5 * len[1];
        let mid = |k: usize| ((x[k] - lo[k]) / len[k] - 0.5) / 0.25; // -1..1 over the middle half
        match self {
            Profile::Step => {
                let inside = x[0] >= x0 && x[0] <= x0 + span && mid(1).abs() <= 1.0 && mid(2).abs() <= 1.0;
                inside as i32 as f64
            }
            Profile::SineEllipse => {
                let s = (x[0] - x0) / span;
                let r2 = mid(1).powi(2) + mid(2).powi(2);
                if (0.0..=1.0).contains(&s) && r2 <= 1.0 {
                    (std::f64::consts::PI * s).sin() * (1.0 - r2).sqrt()
                } else {
                    0.0
                }
            }
            Profile::Bump { width, center } => {
                let sigma = width * len.iter().cloned().fold(f64::INFINITY, f64::min);
                let r2: f64 = (0..3).map(|k| (x[k] - lo[k] - center[k] * len[k]).powi(2)).sum();
                (-r2 / (2.0 * sigma * sigma)).exp()
            }
        }
    }
}

/// The CFL length scale of the paper: mean cell volume / mean face area.
pub fn length_scale(m: &PreparedMesh) -> f64 {
    let n = m.num_cells() as f64;
    let vol = m.total_volume() / n;
    let area: f64 = m.topo.face_areas.iter().map(|a| a.iter().sum::<f64>()).sum::<f64>() / (4.0 * n);
    vol / area
}

/// A departure point and where it is.
#[derive(Clone, Copy, Debug)]
struct Departure {
    point: [f64; 3],
    loc: Location,
}

struct AdvectCpu {
    mesh: Arc<PreparedMesh>,
    locator: Locator,
    vel: Velocity,
    section: AdvectSection,
    /// Per patch.
    bc: Vec<PatchBc>,
    f: Vec<f64>,
    step: u64,
    t: f64,
}

impl AdvectCpu {
    fn departures(&self, dt: f64, sign: f64) -> Vec<Departure> {
        let m = &*self.mesh;
        (0..m.num_cells())
            .into_par_iter()
            .map(|c| {
                let point = departure(&self.vel, m.topo.centroids[c], self.t, dt, self.step, sign);
                Departure {
                    point,
                    loc: self.locator.locate(m, c as u32, point),
                }
            })
            .collect()
    }

    /// I(V, f) at the departure points, with the donors' range.
    fn interpolate(&self, deps: &[Departure], f: &[f64]) -> Vec<(f64, f64, f64)> {
        let m = &*self.mesh;
        let mut fv = Vec::new();
        let mut grad = None;
        match self.section.interpolation {
            Interpolation::Linear => interp::vertex_values(m, f, &mut fv),
            Interpolation::VoronoiGrad => grad = Some(interp::lsq_gradients(m, f)),
            Interpolation::Voronoi => {}
        }
        deps.par_iter()
            .map(|d| match d.loc {
                Location::Inside(c) => match self.section.interpolation {
                    Interpolation::Voronoi => interp::voronoi(m, c as usize, d.point, f),
                    Interpolation::VoronoiGrad => interp::voronoi_with(m, c as usize, d.point, f, grad.as_ref()),
                    Interpolation::Linear => interp::linear(m, c as usize, d.point, &fv),
                },
                Location::Outside { cell, patch } => {
                    let v = match self.bc[patch as usize] {
                        PatchBc::Dirichlet(v) => v,
                        PatchBc::Neumann => f[cell as usize],
                    };
                    (v, v, v)
                }
            })
            .collect()
    }
}

impl Simulation for AdvectCpu {
    fn step(&mut self, dt: f64) -> Result<()> {
        let fwd = self.departures(dt, 1.0);
        let first = self.interpolate(&fwd, &self.f);
        self.f = match self.section.scheme {
            Scheme::Sl1 => first.iter().map(|r| r.0).collect(),
            Scheme::Bfecc => {
                let f1: Vec<f64> = first.iter().map(|r| r.0).collect();
                let bwd = self.departures(dt, -1.0);
                let f2 = self.interpolate(&bwd, &f1);
                let g: Vec<f64> = self.f.iter().zip(&f2).map(|(f, b)| f + 0.5 * (f - b.0)).collect();
                let corrected = self.interpolate(&fwd, &g);
                corrected
                    .iter()
                    .zip(&first)
                    .map(|(c, r)| if self.section.limiter { c.0.clamp(r.1, r.2) } else { c.0 })
                    .collect()
            }
        };
        self.step += 1;
        self.t += dt;
        Ok(())
    }

    fn max_abs(&mut self) -> Result<f64> {
        Ok(self.f.iter().fold(0.0f64, |m, v| {
            if v.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(v.abs())
            }
        }))
    }

    fn fields(&mut self) -> Result<Vec<(String, Vec<f64>)>> {
        Ok(vec![("F".into(), self.f.clone())])
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        let mut b = Vec::with_capacity(16 + 8 * self.f.len());
        b.extend_from_slice(&self.step.to_le_bytes());
        b.extend_from_slice(&self.t.to_le_bytes());
        b.extend(crate::cases::to_bytes(&self.f));
        Ok(b)
    }

    fn load_state(&mut self, b: &[u8]) -> Result<()> {
        self.step = u64::from_le_bytes(b[..8].try_into().unwrap());
        self.t = f64::from_le_bytes(b[8..16].try_into().unwrap());
        self.f = crate::cases::from_bytes(&b[16..]);
        Ok(())
    }
}

pub fn prepare(case: &CaseFile, case_path: &Path, target: &Target) -> Result<Prepared> {
    let section = case.advect.clone().expect("validated");
    let mesh_path = crate::config::resolve(case_path, case.mesh.as_ref().expect("validated"));
    let mesh = Arc::new(PreparedMesh::read(&mesh_path)?);
    let mut bc = vec![PatchBc::Neumann; mesh.patches.len()];
    for (name, b) in &section.boundary {
        let i = mesh.patch_index(name).ok_or_else(|| {
            let names: Vec<&str> = mesh.patches.iter().map(|p| p.name.as_str()).collect();
            SolverError::config(
                case_path,
                &format!("advect.boundary.{name}"),
                format!("the mesh has no patch '{name}' (it has: {})", names.join(", ")),
            )
        })?;
        bc[i] = *b;
    }
    let (lo, hi) = mesh.bounding_box();
    let len: [f64; 3] = std::array::from_fn(|k| hi[k] - lo[k]);
    let vel = Velocity {
        spec: section.velocity.clone(),
        lo,
        len,
    };
    let h = length_scale(&mesh);
    let (dt, steps) = crate::cases::time_steps(&case.time, case.time.cfl * h / vel.max_speed());
    let profile = section.profile.clone();
    let f: Vec<f64> = mesh.topo.centroids.iter().map(|&x| profile.value(x, lo, len)).collect();
    let (fmin, fmax) = f
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
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
    let sim: Box<dyn Simulation> = match target {
        Target::Cpu => Box::new(AdvectCpu {
            locator: Locator::new(&mesh, section.max_walk),
            mesh: mesh.clone(),
            vel,
            bc,
            f,
            step: 0,
            t: 0.0,
            section,
        }),
        Target::Cuda(dev) => Box::new(cuda::AdvectCuda::new(dev.clone(), &mesh, &vel, &section, &bc, &f)?),
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
        min_bytes_per_step: 0.0,
        extra: serde_json::json!({"initial_min": fmin, "initial_max": fmax, "cfl_length_scale": h, "mesh": mesh_path}),
        weights: Some(mesh.topo.volumes.clone()),
    })
}
