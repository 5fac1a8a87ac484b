//! A parsed advection case: the section, the mesh (read and checked once), the patches'
//! boundary values and the velocity; `build` makes the simulation on a backend and precision.

use super::section::{AdvectSection, PatchBc};
use super::series::{FrameCache, Frames};
use super::sim::{AdvectSim, BoundaryFace, Common};
use super::velocity::{load_cell_velocity, CellVelocity, Velocity, VelocitySpec};
use super::{cpu, cuda};
use crate::backend::Target;
use crate::error::Result;
use crate::framework::{build_in_precision, BuildIn, CaseDoc, Clock, DtPolicy, Precision, Setup, Simulation};
use crate::mesh::{length_scale, TetGeometry};
use crate::numerics::sl::{Interpolation, Scheme};
use crate::output::{Centring, Field, Geometry};
use crate::real::Real;
use meshtool::PreparedMesh;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The sections an advection case reads.
#[derive(Deserialize, Serialize)]
struct View {
    mesh: Option<PathBuf>,
    advect: Option<AdvectSection>,
}

pub struct AdvectSetup {
    section: AdvectSection,
    /// The mesh as the case file names it, and resolved.
    mesh_file: PathBuf,
    mesh_path: PathBuf,
    /// The mesh for output (its large tables moved into `geometry`).
    mesh: Arc<PreparedMesh>,
    /// The simulation's arrays, until the first `build` takes them.
    geometry: Mutex<Option<TetGeometry<f64>>>,
    /// Dirichlet value per patch, NaN for Neumann.
    bc: Vec<f64>,
    /// The mesh's bounding box (the profiles and the analytic velocities are placed in it).
    lo: [f64; 3],
    len: [f64; 3],
    cells: Option<Arc<CellVelocity<f64>>>,
    /// The frames of a `series` velocity (checked, none held yet).
    frames: Option<Arc<Frames>>,
    /// CFL length scale.
    h: f64,
    /// Range of the initial field in the run's precision.
    initial: (f64, f64),
}

impl AdvectSetup {
    pub fn parse(doc: &CaseDoc) -> Result<Self> {
        let view: View = doc.section()?;
        let Some(section) = view.advect else {
            let msg = "an advect case needs an [advect] section (see `solver cases advect-step`)";
            return Err(doc.error("advect", msg));
        };
        let name = section.name.as_str();
        if name.is_empty() || name == "velocity" || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            let msg = format!("`{name}`: give a name of letters, digits and _ other than `velocity`");
            return Err(doc.error("advect.name", msg));
        }
        let Some(mesh_file) = view.mesh else {
            let msg = "missing: set mesh = \"NAME.pmesh\" (made by `meshtool prepare` or `meshtool generate`)";
            return Err(doc.error("mesh", msg));
        };
        let mesh_path = doc.resolve(&mesh_file);
        if !mesh_path.exists() {
            return Err(doc.error(
                "mesh",
                format!(
                    "{} does not exist; create it with `meshtool prepare` or `meshtool generate box`",
                    mesh_path.display()
                ),
            ));
        }
        let mut mesh = PreparedMesh::read(&mesh_path)?;
        // Periodic faces would pass for interior faces without their shift: refuse them.
        mesh.refuse_periodic("family advect")?;
        let bc = patch_values(doc, &section, &mesh)?;
        let (lo, hi) = mesh.bounding_box();
        let len: [f64; 3] = std::array::from_fn(|k| hi[k] - lo[k]);
        let cells = cell_velocity(doc, &section.velocity, &mesh)?.map(Arc::new);
        let h = length_scale(&mesh);
        let initial = match doc.run.precision {
            Precision::F32 => initial_range::<f32>(&section, &mesh, lo, len),
            Precision::F64 => initial_range::<f64>(&section, &mesh, lo, len),
        };
        let geometry = TetGeometry::<f64>::take(&mut mesh, &bc);
        let mesh = Arc::new(mesh);
        let frames = Frames::open(doc, &section.velocity, mesh.clone(), [lo, len])?.map(Arc::new);
        Ok(AdvectSetup {
            section,
            mesh_file,
            mesh_path,
            mesh,
            geometry: Mutex::new(Some(geometry)),
            bc,
            lo,
            len,
            cells,
            frames,
            h,
            initial,
        })
    }

    /// The simulation's arrays in f64: taken from the parse, or, for a second build of the
    /// same setup, read again (rather than keep a copy of the large tables for every run).
    fn geometry_f64(&self) -> Result<TetGeometry<f64>> {
        if let Some(g) = self.geometry.lock().unwrap().take() {
            return Ok(g);
        }
        let mut mesh = PreparedMesh::read(&self.mesh_path)?;
        Ok(TetGeometry::take(&mut mesh, &self.bc))
    }

    fn velocity<R: Real>(&self) -> Velocity<R> {
        Velocity {
            spec: self.section.velocity.clone(),
            lo: self.lo,
            len: self.len,
            cells: self.cells.as_ref().map(|c| Arc::new(c.in_precision())),
            frames: None,
        }
    }

}

/// The Dirichlet value of each patch (NaN for Neumann), every named patch checked.
fn patch_values(doc: &CaseDoc, section: &AdvectSection, mesh: &PreparedMesh) -> Result<Vec<f64>> {
    let mut bc = vec![f64::NAN; mesh.patches.len()];
    for (name, b) in &section.boundary {
        let i = mesh.patch_index(name).ok_or_else(|| {
            let names: Vec<&str> = mesh.patches.iter().map(|p| p.name.as_str()).collect();
            doc.error(
                &format!("advect.boundary.{name}"),
                format!("the mesh has no patch '{name}' (it has: {})", names.join(", ")),
            )
        })?;
        if let PatchBc::Dirichlet(v) = b {
            bc[i] = *v;
        }
    }
    Ok(bc)
}

/// The cell velocity of `velocity = { kind = "field" }`, read and checked.
fn cell_velocity(doc: &CaseDoc, spec: &VelocitySpec, mesh: &PreparedMesh) -> Result<Option<CellVelocity<f64>>> {
    let VelocitySpec::Field { file, array } = spec else {
        return Ok(None);
    };
    let key = "advect.velocity.file";
    let path = doc.resolve(Path::new(file));
    let field = load_cell_velocity(&path, array, mesh, &|m| doc.error(key, m))?;
    if field.max_speed == 0.0 {
        let msg = format!(
            "the velocity in {} is zero everywhere: nothing to advect",
            path.display()
        );
        return Err(doc.error(key, msg));
    }
    Ok(Some(field))
}

/// The initial profile at the centroids, in precision R.
fn initial_field<R: Real>(s: &AdvectSection, mesh: &PreparedMesh, lo: [f64; 3], len: [f64; 3]) -> Vec<R> {
    let p = &s.profile;
    mesh.topo
        .centroids
        .iter()
        .map(|&x| R::of(p.value(x, lo, len)))
        .collect()
}

fn initial_range<R: Real>(s: &AdvectSection, mesh: &PreparedMesh, lo: [f64; 3], len: [f64; 3]) -> (f64, f64) {
    initial_field::<R>(s, mesh, lo, len)
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v.f64()), b.max(v.f64()))
        })
}

/// Bytes one step must move at the least: every array each kernel reads or writes, touched
/// once (the gathers through the walk and the dual tables re-read far more, mostly from
/// cache). The fraction of the copy bandwidth this reaches says how close to the memory
/// roofline an unstructured gather kernel gets.
fn min_bytes_per_step<R: Real>(g: &TetGeometry<R>, section: &AdvectSection) -> f64 {
    let (r, i) = (std::mem::size_of::<R>() as f64, 4.0);
    let (n, nodes) = (g.num_cells() as f64, g.nodes.len() as f64);
    let tables = |t: &meshtool::dual::DualTables<R>| t.cells.len() as f64 * (16.0 * r + i) + (nodes + 1.0) * i;
    // Barycentric coordinates read one 16-value record per cell (`TetGeometry::locate`).
    let locate_records = n * 16.0 * r;
    // centroid in, point and location out, the records and face neighbours the walk tests.
    let departures = n * (6.0 * r + 2.0 * i) + locate_records + n * 4.0 * i;
    // point and location in, value and range out, the field, the located cells' vertices.
    let base = n * (7.0 * r + 6.0 * i) + nodes * 3.0 * r;
    let interpolation = match section.interpolation {
        Interpolation::Voronoi => base + tables(&g.dual) + tables(&g.virt),
        // + the gradient pass, and the donors' gradients, ranges and centroids.
        Interpolation::VoronoiGrad => {
            base + tables(&g.dual) + tables(&g.virt) + n * (4.0 * r + 4.0 * i + 5.0 * r) + n * 8.0 * r
        }
        // the fit pass (stencil entries, about the dual's, with their field values; the factor in,
        // the fit records out), then the nearest vertex's record.
        Interpolation::Quadratic => {
            base + g.dual.cells.len() as f64 * (i + 5.0 * r) + nodes * (64.0 + 16.0 + 16.0) * r
        }
        // vertex values (dual cells and volumes in, node values out), then barycentric.
        Interpolation::Linear => base + nodes * (2.0 * i + r) + g.dual.cells.len() as f64 * i + n * r + locate_records,
    };
    match section.scheme {
        Scheme::Sl1 => departures + interpolation + n * 2.0 * r,
        Scheme::Bfecc => 2.0 * departures + 3.0 * interpolation + n * 7.0 * r,
    }
}

/// The boundary faces of the mesh with their patch's Dirichlet value (`bc`, NaN for none).
fn boundary_faces<R: Real>(g: &TetGeometry<R>, bc: &[f64]) -> Vec<BoundaryFace> {
    let mut out = Vec::new();
    for c in 0..g.num_cells() {
        for f in 0..4 {
            let nb = g.neighbours[c][f];
            if nb & 0x8000_0000 == 0 {
                continue;
            }
            let patch = (nb & 0x7fff_ffff) as usize;
            let mut x = [0.0; 3];
            for k in (0..4).filter(|&k| k != f) {
                let n = g.nodes[g.cells[c][k] as usize];
                for d in 0..3 {
                    x[d] += n[d].f64() / 3.0;
                }
            }
            let a = g.face_areas[c][f].f64();
            out.push(BoundaryFace {
                cell: c,
                x,
                na: g.face_normals[c][f].map(|n| n.f64() * a),
                bc: bc.get(patch).copied().unwrap_or(f64::NAN),
            });
        }
    }
    out
}

impl BuildIn for AdvectSetup {
    fn build_in<R: Real>(&self, target: &Target) -> Result<Box<dyn Simulation>> {
        let geo = self.geometry_f64()?.into_precision::<R>();
        let vel = self.velocity::<R>();
        let s = &self.section;
        let f = initial_field::<R>(s, &self.mesh, self.lo, self.len);
        let bc: Vec<R> = self.bc.iter().map(|&v| R::of(v)).collect();
        let common = Common {
            vel: vel.clone(),
            centroids: geo.centroids.clone(),
            method: s.method(),
            h: self.h,
            max_speed: self.frames.as_ref().map_or_else(|| vel.max_speed(), |f| f.max_speed),
            bytes_per_step: min_bytes_per_step(&geo, s),
            variant: s.variant(),
            volumes: geo.volumes.iter().map(|v| v.f64()).collect(),
            faces: boundary_faces(&geo, &self.bc),
            conserve: s.conserve.then(|| {
                self.bc
                    .iter()
                    .filter(|v| !v.is_nan())
                    .fold(self.initial, |(a, b), &v| (a.min(v), b.max(v)))
            }),
            name: s.name.clone(),
            frames: self.frames.clone().map(FrameCache::new),
        };
        Ok(match target {
            Target::Cpu => {
                let engine = cpu::engine(geo, vel, s.interpolation, s.fit, s.max_walk, bc);
                Box::new(AdvectSim::new(engine, &f, common)?)
            }
            Target::Cuda(dev) => {
                let engine = cuda::AdvectCuda::new(dev.clone(), &geo, &vel, (s.interpolation, s.fit), s.max_walk, &bc)?;
                Box::new(AdvectSim::new(engine, &f, common)?)
            }
        })
    }
}

impl Setup for AdvectSetup {
    fn physics(&self) -> toml::Table {
        let view = View {
            mesh: Some(self.mesh_file.clone()),
            advect: Some(self.section.clone()),
        };
        toml::Table::try_from(&view).expect("a parsed section serializes")
    }

    fn dt_policy(&self) -> DtPolicy {
        DtPolicy::Constant
    }

    fn geometry(&self) -> Geometry {
        Geometry::Tets(self.mesh.clone())
    }

    fn build(&self, target: &Target, precision: Precision) -> Result<Box<dyn Simulation>> {
        build_in_precision(self, target, precision)
    }

    /// The initial profile at the origin of each centroid, where the velocity says in closed
    /// form where the material came from.
    fn exact(&self, clock: &Clock) -> Option<Field> {
        // `origin` needs no cell field: it has no closed form there.
        let vel = Velocity::<f64> {
            spec: self.section.velocity.clone(),
            lo: self.lo,
            len: self.len,
            cells: None,
            frames: None,
        };
        let p = &self.section.profile;
        let values = self
            .mesh
            .topo
            .centroids
            .iter()
            .map(|&x| {
                vel.origin(x, clock.time, clock.step)
                    .map(|x0| p.value(x0, self.lo, self.len))
            })
            .collect::<Option<Vec<f64>>>()?;
        Some(Field::scalar(&self.section.name, Centring::Cell, values))
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "initial_min": self.initial.0,
            "initial_max": self.initial.1,
            "cfl_length_scale": self.h,
            "mesh": self.mesh_path,
        })
    }
    /// Measured on the CPU backend (Kuhn boxes of 24,576 and 196,608 tets, 2-core CI machine):
    /// 1.9 kB a cell (geometry, dual and locate tables, the quadratic's fits, the fields) and
    /// 8.2e-7 core-seconds a cell-step (2.4-2.7e6 cell-steps/s).
    fn footprint(&self, _precision: Precision) -> Option<crate::framework::Footprint> {
        Some(crate::framework::Footprint::per_cell(self.mesh.num_cells(), 1900.0, 8.2e-7))
    }
}
