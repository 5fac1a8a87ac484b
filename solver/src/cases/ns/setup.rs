//! A parsed Navier-Stokes case: the section, the mesh (a file, or the shipped coarse DFG
//! channel), the role of every patch and its boundary values, the initial velocity, the force
//! patch and the probes, all checked once; `build` makes the simulation.

use super::cpu::{laplacian, Constants, CpuNs, FaceFits, FlowVel};
use super::cuda::{CudaNs, Inputs};
use super::faces::{patch_box, Faces, InletProfile, Role};
use super::les::LesTables;
use super::wake::Wake;
use super::section::{Bc, FaceGradients, FluxMemory, Initial, Les, Mode, NsSection, Preconditioner, Profile, Viscous, WallShear};
use super::history::{Signals, PROBE_NAMES};
use super::sim::{Common, ForceSpec, LesSpec, NsSim, Report};
use crate::backend::cuda::Device;
use crate::backend::Target;
use crate::error::{Result, SolverError};
use crate::framework::{CaseDoc, DtPolicy, Precision, Setup, Simulation};
use crate::diagnostics::{Normalisation, PatchForce, Probe, Probes};
use crate::mesh::cell_field::read_cell_field;
use crate::mesh::{length_scale, TetGeometry};
use crate::numerics::linalg::{CgPreconditioner, CgSettings, CsMat};
use crate::numerics::sl::cpu::HostSl;
use crate::numerics::sl::quadratic::{self, QuadFit};
use crate::numerics::sl::{Interpolation, Method, Scheme};
use crate::output::Geometry;
use meshtool::PreparedMesh;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// Why f32 is refused: on both backends the step's fields, its face data and its linear solves
/// are f64 (the CUDA CG works in f64 whatever the precision).
const PRECISION_REFUSAL: &str = "navier-stokes runs in f64 only (CPU and CUDA): set run.precision = \"f64\"";

/// The sections a Navier-Stokes case reads.
#[derive(Deserialize, Serialize)]
struct View {
    mesh: Option<String>,
    #[serde(rename = "navier-stokes")]
    ns: Option<NsSection>,
}

/// The coarse DFG channels shipped with the solver (`mesh = "builtin:NAME"`): the 3D one
/// (`gmsh -3 meshes/channel.geo -setnumber size 0.2`, 3269 tetrahedra) and the 2D slab
/// (`gmsh -3 meshes/channel2d.geo -setnumber size 0.05`, 4383 tetrahedra).
/// The cylinder in a periodic span (`gmsh -3 meshes/cylinder-span.geo -setnumber size 0.2
/// -setnumber far 1.5 -setnumber layers 8 -format msh41 -bin`, 34,368 tetrahedra, gzipped).
const BUILTIN: &[(&str, &[u8])] = &[
    ("dfg-3d-1z-coarse", include_bytes!("data/dfg-3d-1z-coarse.msh")),
    ("dfg-2d-coarse", include_bytes!("data/dfg-2d-coarse.msh")),
    ("cylinder-span-coarse", include_bytes!("data/cylinder-span-coarse.msh.gz")),
];

pub struct NsSetup {
    section: NsSection,
    mesh_file: String,
    mesh: Arc<PreparedMesh>,
    geo: Arc<TetGeometry<f64>>,
    faces: Arc<Faces>,
    sl_bc: [Vec<f64>; 3],
    inlets: Vec<Option<InletProfile>>,
    /// The quadratic's tables, built once where the interpolation, the face gradients or the
    /// wall shear use them (all the same fits: same stencils, weights and Dirichlet patches).
    quad_fit: Option<Arc<QuadFit<f64>>>,
    /// The vertex fits of the viscous face gradients (`face_gradients = "fits"` or "wall-fits").
    face_fits: Option<Arc<FaceFits>>,
    /// The LES model's tables (`les`), built once for both backends.
    les: Option<Arc<LesTables>>,
    u0: [Vec<f64>; 3],
    /// The initial pressure (0, or the Taylor-Green vortex's).
    p0: Vec<f64>,
    h: f64,
    u_ref: f64,
    force: Option<(u32, Normalisation)>,
    probes: Option<Probes>,
    wake: Option<Wake>,
    ref_cell: Option<usize>,
    /// The pressure preconditioner, built at the first `build` (`pressure_preconditioner`).
    pressure_pre: OnceLock<CgPreconditioner>,
    report: Arc<Mutex<Report>>,
}

/// `builtin:pi-box-N`: the cube [0, pi]^3 as N^3 Kuhn cubes of 6 tetrahedra (patches xmin ..
/// zmax), N from 2 to 128: the Taylor-Green octant (template `tgv-3d-les`), made on the spot.
fn pi_box(doc: &CaseDoc, name: &str, n: &str) -> Result<PreparedMesh> {
    let n: usize = match n.parse() {
        Ok(n) if (2..=128).contains(&n) => n,
        _ => return Err(doc.error("mesh", format!("`{name}`: give builtin:pi-box-N with N from 2 to 128"))),
    };
    let pi = std::f64::consts::PI;
    let spec = meshtool::generate::cartesian_box::BoxSpec { dims: [n; 3], lo: [0.0; 3], hi: [pi; 3] };
    let raw = meshtool::generate::cartesian_box::generate(&spec)?;
    Ok(meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Hilbert)?.0)
}

/// A built-in mesh's bytes, inflated when they are gzipped (their first two bytes 1f 8b).
fn gunzipped(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes.into());
    }
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out)
        .map_err(|e| SolverError::Other(format!("internal: a built-in mesh does not inflate: {e}")))?;
    Ok(out.into())
}

/// The mesh a case names: `builtin:NAME` or a .pmesh relative to the case file.
fn load_mesh(doc: &CaseDoc, name: &str) -> Result<PreparedMesh> {
    if let Some(n) = name.strip_prefix("builtin:pi-box-") {
        return pi_box(doc, name, n);
    }
    if let Some(m) = super::periodic::builtin(doc, name) {
        return m;
    }
    if let Some(b) = name.strip_prefix("builtin:") {
        let Some((_, bytes)) = BUILTIN.iter().find(|(n, _)| *n == b) else {
            let mut names: Vec<String> = BUILTIN.iter().map(|(n, _)| format!("builtin:{n}")).collect();
            names.push("builtin:pi-box-N (N = 2..128)".into());
            names.push("builtin:periodic-box-N, builtin:periodic-slab-N (N = 2..128)".into());
            return Err(doc.error("mesh", format!("no built-in mesh `{name}` (there are: {})", names.join(", "))));
        };
        let raw = meshtool::msh::parse_msh(&gunzipped(bytes)?, Path::new(name))?;
        return Ok(meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Hilbert)?.0);
    }
    let path = doc.resolve(Path::new(name));
    if !path.exists() {
        let msg = format!(
            "{} does not exist; make it with `meshtool generate cylinder` or `meshtool prepare`",
            path.display()
        );
        return Err(doc.error("mesh", msg));
    }
    // Periodic faces are interior faces with a shift (mesh::periodic).
    Ok(PreparedMesh::read(&path)?)
}

/// The mesh's patch names, for messages.
fn patch_list(mesh: &PreparedMesh) -> String {
    let names: Vec<&str> = mesh.patches.iter().map(|p| p.name.as_str()).collect();
    names.join(", ")
}

fn patch_of(doc: &CaseDoc, mesh: &PreparedMesh, key: &str, name: &str) -> Result<usize> {
    mesh.patch_index(name).ok_or_else(|| {
        let msg = format!("the mesh has no patch '{name}' (it has: {})", patch_list(mesh));
        doc.error(key, msg)
    })
}

/// The role of each patch (unlisted: wall), and the semi-Lagrangian boundary value of each
/// patch per component: 0 on walls, a uniform inlet's velocity, NaN (zero gradient) elsewhere.
fn roles(doc: &CaseDoc, s: &NsSection, mesh: &PreparedMesh) -> Result<(Vec<Role>, [Vec<f64>; 3])> {
    let np = mesh.patches.len();
    let mut roles = vec![Role::Wall; np];
    let mut sl_bc: [Vec<f64>; 3] = std::array::from_fn(|_| vec![0.0; np]);
    for (name, bc) in &s.boundary {
        let key = format!("navier-stokes.boundary.{name}");
        let i = patch_of(doc, mesh, &key, name)?;
        let (role, value) = match bc {
            Bc::Wall => (Role::Wall, Some([0.0; 3])),
            Bc::Inlet { velocity, profile, u_max, .. } => {
                match (velocity, profile, u_max) {
                    (Some(_), None, None) | (None, Some(Profile::Parabolic), Some(_)) => {}
                    _ => {
                        let msg = "give either `velocity = [u, v, w]` or `profile = \"parabolic\"` with `u_max`";
                        return Err(doc.error(&key, msg));
                    }
                }
                (Role::Inlet, *velocity)
            }
            Bc::Outlet { .. } => (Role::Outlet, None),
            Bc::Symmetry => (Role::Symmetry, None),
        };
        roles[i] = role;
        for k in 0..3 {
            sl_bc[k][i] = value.map_or(f64::NAN, |v| v[k]);
        }
    }
    if !roles.contains(&Role::Outlet) && s.pressure_reference.is_none() {
        let msg = format!(
            "no patch is a pressure outlet, so the pressure is fixed only up to a constant (a singular system). Make a patch `{{ kind = \"outlet\" }}` (the mesh has: {}) or set navier-stokes.pressure_reference = [x, y, z]",
            patch_list(mesh)
        );
        return Err(doc.error("navier-stokes.boundary", msg));
    }
    Ok((roles, sl_bc))
}

/// The velocity on inlet faces and the pressure on outlet faces; the profile of each inlet
/// patch (None for the other patches).
fn boundary_values(
    doc: &CaseDoc,
    s: &NsSection,
    mesh: &PreparedMesh,
    g: &TetGeometry<f64>,
    f: &mut Faces,
) -> Result<Vec<Option<InletProfile>>> {
    let mut inlets = vec![None; mesh.patches.len()];
    for (name, bc) in &s.boundary {
        let patch = mesh.patch_index(name).expect("checked by roles") as u32;
        let faces: Vec<usize> = f.of_patch(patch).collect();
        match bc {
            Bc::Inlet { velocity: Some(v), .. } => {
                faces.iter().for_each(|&i| f.ub[i] = *v);
                inlets[patch as usize] = Some(InletProfile::Uniform(*v));
            }
            Bc::Inlet { u_max: Some(um), across, .. } => {
                let (lo, hi, dir) = patch_box(g, patch);
                let normal_axis = (0..3).max_by(|&a, &b| dir[a].abs().total_cmp(&dir[b].abs())).unwrap();
                let axes: Vec<usize> = match across {
                    Some(a) => a.chars().filter_map(|c| "xyz".find(c)).collect(),
                    None => (0..3).filter(|&a| a != normal_axis).collect(),
                };
                if axes.is_empty() || axes.contains(&normal_axis) {
                    let msg = "`across` names the axes across the flow, e.g. \"yz\" or \"y\"";
                    return Err(doc.error(&format!("navier-stokes.boundary.{name}.across"), msg));
                }
                let profile = InletProfile::Parabolic {
                    lo,
                    hi,
                    axes,
                    u_max: *um,
                    dir,
                };
                for &i in &faces {
                    f.ub[i] = profile.at(f.centre[i]);
                }
                inlets[patch as usize] = Some(profile);
            }
            Bc::Outlet { pressure } => faces.iter().for_each(|&i| f.pb[i] = *pressure),
            _ => {}
        }
    }
    Ok(inlets)
}

/// The initial velocity: rest, or a previous run's `velocity` field on this mesh.
fn initial_velocity(doc: &CaseDoc, s: &NsSection, mesh: &PreparedMesh) -> Result<[Vec<f64>; 3]> {
    let n = mesh.num_cells();
    match &s.initial {
        Initial::Rest => Ok(std::array::from_fn(|_| vec![0.0; n])),
        Initial::TaylorGreen { velocity, length } => {
            let x = &mesh.topo.centroids;
            Ok(std::array::from_fn(|k| {
                x.iter()
                    .map(|c| {
                        let (sx, cx) = (c[0] / length).sin_cos();
                        let (sy, cy) = (c[1] / length).sin_cos();
                        match k {
                            0 => velocity * sx * cy,
                            1 => -velocity * cx * sy,
                            _ => 0.0,
                        }
                    })
                    .collect()
            }))
        }
        Initial::TaylorGreen3d { velocity, length } => Ok(std::array::from_fn(|k| {
            x_cells(mesh).map(|c| taylor_green_3d(c, *velocity, *length)[k]).collect()
        })),
        Initial::Uniform { velocity } => Ok(std::array::from_fn(|k| vec![velocity[k]; n])),
        Initial::File { file } => {
            let path = doc.resolve(Path::new(file));
            let key = "navier-stokes.initial.file";
            let v = read_cell_field(&path, "velocity", mesh, &|m| doc.error(key, m))?;
            Ok(std::array::from_fn(|k| v.iter().map(|x| x[k]).collect()))
        }
    }
}

/// The cell centroids.
fn x_cells(mesh: &PreparedMesh) -> impl Iterator<Item = [f64; 3]> + '_ {
    mesh.topo.centroids.iter().copied()
}

/// The 3D Taylor-Green vortex's velocity at x (`Initial::TaylorGreen3d`).
pub fn taylor_green_3d(x: [f64; 3], u: f64, l: f64) -> [f64; 3] {
    let (sx, cx) = (x[0] / l).sin_cos();
    let (sy, cy) = (x[1] / l).sin_cos();
    let cz = (x[2] / l).cos();
    [u * sx * cy * cz, -u * cx * sy * cz, 0.0]
}

/// The initial pressure: the Taylor-Green vortex's rho U^2 / 4 (cos 2x/L + cos 2y/L), the 3D
/// one's rho U^2 / 16 (cos 2x/L + cos 2y/L) (cos 2z/L + 2), else 0.
fn initial_pressure(s: &NsSection, mesh: &PreparedMesh) -> Vec<f64> {
    let x = &mesh.topo.centroids;
    match s.initial {
        Initial::TaylorGreen3d { velocity, length } => x_cells(mesh)
            .map(|c| {
                let cos2 = |k: usize| (2.0 * c[k] / length).cos();
                s.density * velocity * velocity / 16.0 * (cos2(0) + cos2(1)) * (cos2(2) + 2.0)
            })
            .collect(),
        Initial::TaylorGreen { velocity, length } => x
            .iter()
            .map(|c| 0.25 * s.density * velocity * velocity * ((2.0 * c[0] / length).cos() + (2.0 * c[1] / length).cos()))
            .collect(),
        _ => vec![0.0; x.len()],
    }
}

/// What `reference` and `reference_bounds` may name: the steady run's force coefficients and
/// pressure difference, and a transient run's signal statistics.
const REFERENCE_KEYS: [&str; 7] = ["cd", "cl", "dp", "cd_max", "cl_max", "cd_mean", "st"];

/// Checks of the section's numbers and choices.
fn validate(doc: &CaseDoc, s: &NsSection) -> Result<()> {
    for (key, v) in [("density", s.density), ("viscosity", s.viscosity)] {
        if !(v > 0.0 && v.is_finite()) {
            return Err(doc.error(&format!("navier-stokes.{key}"), format!("{v}: must be positive")));
        }
    }
    if !(0.5..=1.0).contains(&s.theta()) {
        let msg = format!("{}: must lie in [0.5, 1] (1 the paper's scheme, 0.5 the trapezoidal rule)", s.theta());
        return Err(doc.error("navier-stokes.theta", msg));
    }
    if !(0.0..=1.0).contains(&s.rest_correction) {
        let msg = format!("{}: must lie in [0, 1] (0 none, 1 the whole rest error)", s.rest_correction);
        return Err(doc.error("navier-stokes.rest_correction", msg));
    }
    if s.mode == Mode::Steady && s.flux_memory() == FluxMemory::Full {
        let msg = "\"full\" is for mode = \"transient\" (a steady run's fixed point needs \"none\")";
        return Err(doc.error("navier-stokes.flux_memory", msg.to_string()));
    }
    if let Some(tau) = s.flux_memory_time {
        if tau.is_nan() || tau <= 0.0 || s.flux_memory() != FluxMemory::Full {
            let msg = format!("{tau}: a positive time, with flux_memory = \"full\"");
            return Err(doc.error("navier-stokes.flux_memory_time", msg));
        }
    }
    if !(s.smagorinsky_constant >= 0.0 && s.smagorinsky_constant.is_finite()) {
        let msg = format!("{}: must be a finite number >= 0 (0.17 is the default, about 0.1 for channels)", s.smagorinsky_constant);
        return Err(doc.error("navier-stokes.smagorinsky_constant", msg));
    }
    if !(s.les_diffusion_limit > 0.0 && s.les_diffusion_limit.is_finite()) {
        let msg = format!("{}: must be a finite number > 0 (0.5 is the default, the explicit viscous limit)", s.les_diffusion_limit);
        return Err(doc.error("navier-stokes.les_diffusion_limit", msg));
    }
    if let Initial::TaylorGreen { velocity, length } | Initial::TaylorGreen3d { velocity, length } = s.initial {
        if !(velocity.is_finite() && length > 0.0 && length.is_finite()) {
            let msg = format!("velocity {velocity}, length {length}: give a finite velocity and a positive length");
            return Err(doc.error("navier-stokes.initial", msg));
        }
    }
    if let Some(st) = &s.statistics {
        if !(st.start >= 0.0 && st.start.is_finite()) {
            return Err(doc.error("navier-stokes.statistics.start", format!("{}: must be a time >= 0", st.start)));
        }
    }
    if s.interpolation == Interpolation::Linear {
        let msg = "\"linear\" pins wall vertices to one value for all components; use \"quadratic\" or \"voronoi\"";
        return Err(doc.error("navier-stokes.interpolation", msg));
    }
    let keys = s.reference.keys().map(|k| ("reference", k)).chain(s.reference_bounds.keys().map(|k| ("reference_bounds", k)));
    for (table, k) in keys {
        if !REFERENCE_KEYS.contains(&k.as_str()) {
            let msg = format!("unknown reference `{k}` (give any of {})", REFERENCE_KEYS.join(", "));
            return Err(doc.error(&format!("navier-stokes.{table}"), msg));
        }
    }
    for (k, [lo, hi]) in &s.reference_bounds {
        if lo > hi || lo.is_nan() || hi.is_nan() {
            let msg = format!("[{lo}, {hi}]: the lower bound must not exceed the upper");
            return Err(doc.error(&format!("navier-stokes.reference_bounds.{k}"), msg));
        }
    }
    if doc.run.precision == Precision::F32 {
        return Err(doc.error("run.precision", PRECISION_REFUSAL));
    }
    Ok(())
}

/// The linear solvers' preconditioners: chebyshev for the pressure only, of degree at least 1.
fn validate_solvers(doc: &CaseDoc, s: &NsSection) -> Result<()> {
    if s.momentum_solver.preconditioner.is_some_and(|p| p != Preconditioner::Jacobi) {
        let msg = "only pressure_solver takes \"amg\" or \"chebyshev\": the momentum matrix V/dt + nu K is diagonally dominant and Jacobi-CG solves it in a few iterations; leave it \"jacobi\"";
        return Err(doc.error("navier-stokes.momentum_solver.preconditioner", msg));
    }
    if let Err((key, msg)) = s.pressure_solver.amg.validate() {
        return Err(doc.error(&format!("navier-stokes.pressure_solver.amg.{key}"), msg));
    }
    if s.pressure_solver.degree == 0 {
        let msg = "0: the Chebyshev polynomial's degree must be at least 1 (4 is the default)";
        return Err(doc.error("navier-stokes.pressure_solver.degree", msg));
    }
    Ok(())
}

/// The located wake samples (`navier-stokes.wake`), which need the running averages and the
/// force's reference speed and length.
fn wake(doc: &CaseDoc, s: &NsSection, g: &TetGeometry<f64>) -> Result<Option<Wake>> {
    let Some(w) = &s.wake else { return Ok(None) };
    let Some((d, u)) = s.forces.as_ref().and_then(|f| f.length.map(|d| (d, f.velocity))) else {
        let msg = "needs [navier-stokes.forces] with `length` (the body's D) and `velocity` (U)";
        return Err(doc.error("navier-stokes.wake", msg));
    };
    if s.statistics.is_none() {
        let msg = "needs `statistics = { start = ... }`: the wake is measured on the running averages";
        return Err(doc.error("navier-stokes.wake", msg));
    }
    Wake::new(g, w, s.density, u, d).map(Some).map_err(|(key, msg)| doc.error(key, msg))
}

/// The force patch (its id) with its normalisation; the located dp probes.
type Measures = (Option<(u32, Normalisation)>, Option<Probes>);

fn measures(doc: &CaseDoc, s: &NsSection, mesh: &PreparedMesh, g: &TetGeometry<f64>) -> Result<Measures> {
    let force = match &s.forces {
        None => None,
        Some(fs) => {
            let patch = patch_of(doc, mesh, "navier-stokes.forces.patch", &fs.patch)? as u32;
            if !(fs.velocity > 0.0 && fs.area > 0.0) {
                let msg = "velocity and area must be positive";
                return Err(doc.error("navier-stokes.forces", msg));
            }
            // The pressure is p (not p / rho): the density is the run's.
            let norm = Normalisation {
                density: s.density,
                velocity: fs.velocity,
                area: fs.area,
            };
            PatchForce::new(g, &[patch]).map_err(|e| doc.error("navier-stokes.forces.patch", e.to_string()))?;
            Some((patch, norm))
        }
    };
    let probes = match s.dp_probes {
        None => None,
        Some([a, b]) => {
            let probes = vec![Probe::new(PROBE_NAMES[0], a), Probe::new(PROBE_NAMES[1], b)];
            Some(Probes::new(g, probes).map_err(|e| doc.error("navier-stokes.dp_probes", e.to_string()))?)
        }
    };
    Ok((force, probes))
}

impl NsSetup {
    pub fn parse(doc: &CaseDoc) -> Result<Self> {
        let view: View = doc.section()?;
        let Some(section) = view.ns else {
            let msg = "a navier-stokes case needs a [navier-stokes] section (see `solver cases dfg-3d-1z`)";
            return Err(doc.error("navier-stokes", msg));
        };
        let mut section = section;
        validate(doc, &section)?;
        validate_solvers(doc, &section)?;
        // Unset preconditioners are the solvers' defaults, written out (summary, fingerprint).
        section.pressure_solver.preconditioner.get_or_insert(Preconditioner::Amg);
        section.momentum_solver.preconditioner.get_or_insert(Preconditioner::Jacobi);
        let Some(mesh_file) = view.mesh else {
            let msg = "missing: set mesh = \"NAME.pmesh\" (e.g. from `meshtool generate cylinder`)";
            return Err(doc.error("mesh", msg));
        };
        let mut mesh = load_mesh(doc, &mesh_file)?;
        super::periodic::check_boundary_names(doc, &mesh, section.boundary.keys())?;
        super::periodic::check_case(doc, &mesh, section.interpolation)?;
        let (roles, sl_bc) = roles(doc, &section, &mesh)?;
        let u0 = initial_velocity(doc, &section, &mesh)?;
        let p0 = initial_pressure(&section, &mesh);
        let h = length_scale(&mesh);
        let geo = TetGeometry::<f64>::take(&mut mesh, &sl_bc[0]);
        let mut faces = Faces::build(&geo, &roles, section.nonorthogonal);
        let inlets = boundary_values(doc, &section, &mesh, &geo, &mut faces)?;
        let (force, probes) = measures(doc, &section, &mesh, &geo)?;
        let wake = wake(doc, &section, &geo)?;
        let speed = |u: [f64; 3]| (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
        let u_in = faces.ub.iter().map(|&u| speed(u)).fold(0.0, f64::max);
        let u_init = (0..geo.num_cells()).map(|c| speed([u0[0][c], u0[1][c], u0[2][c]])).fold(0.0, f64::max);
        let u_ref = u_in.max(u_init);
        if u_ref == 0.0 && doc.time.dt.is_none() {
            let msg = "nothing moves (no inlet velocity, fluid at rest): the CFL step is undefined; set time.dt";
            return Err(doc.error("time.cfl", msg));
        }
        let ref_cell = section.pressure_reference.map(|x| nearest_cell(&geo, x));
        let needs_fit = section.interpolation == Interpolation::Quadratic
            || section.face_gradients != FaceGradients::Cells
            || wall_shear(&section) == Some(WallShear::Fits);
        let quad_fit = needs_fit.then(|| {
            let mut fit = quadratic::build_weighted(&geo, &sl_bc[0], section.fit);
            fit.bounds = section.bounds;
            Arc::new(fit)
        });
        let face_fits = match (&quad_fit, section.face_gradients) {
            (Some(fit), FaceGradients::Fits | FaceGradients::WallFits | FaceGradients::FitsFull) => {
                let walls_only = section.face_gradients == FaceGradients::WallFits;
                let whole = section.face_gradients == FaceGradients::FitsFull;
                Some(Arc::new(FaceFits::new(&geo, &faces, fit.clone(), walls_only, whole)))
            }
            _ => None,
        };
        let les = (section.les != Les::None).then(|| Arc::new(LesTables::new(&geo, &faces, section.les, section.smagorinsky_constant, section.les_diffusion_limit)));
        Ok(NsSetup {
            les,
            section,
            mesh_file,
            mesh: Arc::new(mesh),
            geo: Arc::new(geo),
            faces: Arc::new(faces),
            sl_bc,
            inlets,
            quad_fit,
            face_fits,
            u0,
            p0,
            h,
            u_ref: if u_ref > 0.0 { u_ref } else { 1.0 },
            force,
            probes,
            wake,
            ref_cell,
            pressure_pre: OnceLock::new(),
            report: Arc::new(Mutex::new(Report::default())),
        })
    }

    fn constants(&self) -> Constants {
        let s = &self.section;
        let cg = |x: &super::section::Solver| CgSettings {
            rel_tol: x.tolerance,
            max_iter: x.max_iter,
            keep_history: false,
        };
        Constants {
            rho: s.density,
            nu: s.viscosity,
            explicit: s.viscous == Viscous::Explicit,
            method: Method {
                scheme: s.scheme,
                limiter: s.scheme == Scheme::Bfecc,
            },
            pressure: cg(&s.pressure_solver),
            momentum: cg(&s.momentum_solver),
        }
    }

    /// The mass residual's volume flow: the inflow through inlet faces, or without one
    /// u_ref V^(2/3) of the domain's volume V.
    fn flow_scale(&self) -> f64 {
        let f = &self.faces;
        let inflow: f64 = (0..f.len())
            .filter(|&i| f.role[i] == Role::Inlet)
            .map(|i| f.area[i] * (0..3).map(|k| f.normal[i][k] * f.ub[i][k]).sum::<f64>().abs())
            .sum();
        if inflow > 0.0 {
            return inflow;
        }
        let volume: f64 = self.geo.volumes.iter().sum();
        self.u_ref * volume.powf(2.0 / 3.0)
    }

    /// What the simulation reports of the LES model: its name, Cs, nu, the diffusion limit and
    /// each cell's sum of its faces' a over its volume (the explicit diffusion number's, `LesSpec`).
    fn les_spec(&self) -> LesSpec {
        let s = &self.section;
        let t = self.les.as_ref().expect("with a model");
        LesSpec {
            model: s.les,
            cs: (s.les == Les::Smagorinsky).then_some(s.smagorinsky_constant),
            nu: s.viscosity,
            limit: s.les_diffusion_limit,
            a_over_v: t.a_over_v.clone(),
            volumes: self.geo.volumes.clone(),
        }
    }

    /// The explicit viscous step limit, 0.5 min V / (nu sum a) (infinite when implicit).
    fn dt_max(&self) -> f64 {
        if self.section.viscous == Viscous::Implicit {
            return f64::INFINITY;
        }
        let f = &self.faces;
        let mut sum = vec![0.0; self.geo.num_cells()];
        for i in 0..f.len() {
            if f.neigh[i] != u32::MAX {
                sum[f.neigh[i] as usize] += f.a[i];
            }
            if f.neigh[i] != u32::MAX || f.role[i].fixed_velocity() || f.role[i] == Role::Symmetry {
                sum[f.owner[i] as usize] += f.a[i];
            }
        }
        let v = &self.geo.volumes;
        (0..sum.len()).map(|c| 0.5 * v[c] / (self.section.viscosity * sum[c])).fold(f64::INFINITY, f64::min)
    }

    fn variant(&self) -> String {
        let s = &self.section;
        let names = toml::Value::try_from((s.viscous, s.nonorthogonal)).ok();
        let names = names.and_then(|v| v.as_array().cloned()).unwrap_or_default();
        let name = |i: usize| names.get(i).and_then(|v| v.as_str()).unwrap_or("?").to_string();
        let theta = s.theta();
        let fit = if s.interpolation == Interpolation::Quadratic { format!("-{}", s.fit.name()) } else { String::new() };
        let les = if s.les == Les::None { String::new() } else { format!("+les-{}", s.les.name()) };
        format!("{}+{}{fit}+{}+{}+theta{theta}{les}", s.scheme.name(), s.interpolation.name(), name(0), name(1))
    }

    /// The force patch with its wall shear (`forces.wall_shear`, by default the viscous face
    /// gradients' own).
    fn patch_force(&self, patch: u32) -> Result<PatchForce> {
        let force = PatchForce::new(&*self.geo, &[patch])?;
        match (wall_shear(&self.section), &self.quad_fit) {
            (Some(WallShear::Fits), Some(fit)) => Ok(force.with_fits(fit.clone(), self.sl_bc.clone())),
            (Some(WallShear::Fits), None) => Err(SolverError::Other("internal: the wall shear's fits were not built".into())),
            _ => Ok(force),
        }
    }

    /// The force patch by the wall-shear measure the case did not choose, where the fits exist
    /// (both measures can be taken): reported beside the case's.
    fn other_patch_force(&self, patch: u32) -> Result<Option<(&'static str, PatchForce)>> {
        let Some(fit) = &self.quad_fit else {
            return Ok(None);
        };
        let force = PatchForce::new(&*self.geo, &[patch])?;
        Ok(match wall_shear(&self.section) {
            Some(WallShear::Fits) => Some(("distance", force)),
            Some(WallShear::Distance) => Some(("fits", force.with_fits(fit.clone(), self.sl_bc.clone()))),
            None => None,
        })
    }

    /// The velocity matrix of each component (they differ on symmetry planes) and the pressure
    /// one (with its reference cell).
    fn matrices(&self) -> ([CsMat<f64>; 3], CsMat<f64>) {
        let f = &self.faces;
        let n = self.geo.num_cells();
        let ku = std::array::from_fn(|k| laplacian(f, n, Role::fixed_velocity, &super::faces::symmetry_diagonal(f, k)));
        let mut kp = laplacian(f, n, |r| r == Role::Outlet, &[]);
        if let Some(c) = self.ref_cell {
            let diag = crate::numerics::linalg::cg::diagonal(&kp)[c].max(1e-300);
            kp = laplacian(f, n, |r| r == Role::Outlet, &[(c, diag)]);
        }
        (ku, kp)
    }

    /// The pressure solve's preconditioner, built on `kp` once for both backends (AMG's
    /// hierarchy, Chebyshev's bounds) and kept: a second build (the check's other backend, a
    /// restart) reuses it.
    fn pressure_preconditioner(&self, kp: &CsMat<f64>) -> Result<CgPreconditioner> {
        let pre = match self.pressure_pre.get() {
            Some(p) => p.clone(),
            None => {
                let s = &self.section.pressure_solver;
                let pre = match s.preconditioner.unwrap_or(Preconditioner::Amg) {
                    Preconditioner::Jacobi => CgPreconditioner::Jacobi,
                    Preconditioner::Chebyshev => CgPreconditioner::chebyshev(kp, s.degree),
                    Preconditioner::Amg => CgPreconditioner::amg(kp, &s.amg)
                        .map_err(|e| SolverError::Other(format!("navier-stokes.pressure_solver: {e}")))?,
                };
                if let Some(h) = pre.hierarchy() {
                    eprintln!("pressure AMG: {}", h.stats().line());
                }
                self.pressure_pre.get_or_init(|| pre).clone()
            }
        };
        self.report.lock().unwrap().pressure_amg = pre.hierarchy().map(|h| h.stats());
        Ok(pre)
    }

    fn ops(&self) -> Result<CpuNs> {
        let (ku, kp) = self.matrices();
        let s = &self.section;
        Ok(CpuNs {
            sl: HostSl::with_fit(
                self.geo.clone(),
                s.max_walk,
                FlowVel::default(),
                s.interpolation,
                self.quad_fit.clone(),
                self.sl_bc[0].clone(),
            ),
            geo: self.geo.clone(),
            faces: self.faces.clone(),
            sl_bc: self.sl_bc.clone(),
            inlets: self.inlets.clone(),
            face_fits: self.face_fits.clone(),
            near_inlet: super::cpu::inlet_face_of_cell(&self.faces, &self.inlets, self.geo.num_cells()),
            values: super::faces::FaceValues::new(&self.faces),
            c: self.constants(),
            ku,
            pressure_pre: self.pressure_preconditioner(&kp)?,
            kp,
            m: Default::default(),
            stats: Default::default(),
            les: self.les.clone(),
        })
    }

    fn cuda_ops(&self, dev: &Arc<Device>) -> Result<CudaNs> {
        let (ku, kp) = self.matrices();
        let s = &self.section;
        let inputs = Inputs {
            geo: &self.geo,
            faces: &self.faces,
            sl_bc: &self.sl_bc,
            inlets: &self.inlets,
            interpolation: s.interpolation,
            quad_fit: self.quad_fit.as_deref(),
            face_fits: self.face_fits.as_deref(),
            max_walk: s.max_walk,
            c: self.constants(),
            ku,
            pressure_pre: self.pressure_preconditioner(&kp)?,
            kp,
            les: self.les.as_deref(),
        };
        CudaNs::new(dev, inputs)
    }
}

/// The force's wall shear (`forces.wall_shear`, by default the face gradients'); None
/// without forces.
fn wall_shear(s: &NsSection) -> Option<WallShear> {
    let default = match s.face_gradients {
        FaceGradients::Fits | FaceGradients::WallFits | FaceGradients::FitsFull => WallShear::Fits,
        FaceGradients::Cells => WallShear::Distance,
    };
    s.forces.as_ref().map(|f| f.wall_shear.unwrap_or(default))
}

fn nearest_cell(g: &TetGeometry<f64>, x: [f64; 3]) -> usize {
    let d = |c: usize| (0..3).map(|k| (g.centroids[c][k] - x[k]).powi(2)).sum::<f64>();
    (0..g.num_cells()).min_by(|&a, &b| d(a).total_cmp(&d(b))).unwrap_or(0)
}

/// Bytes a step moves at the least, outside the CG iterations (each of which reads the matrix
/// and five vectors): the cell fields the stages read and write, the face arrays twice, and
/// the advection's departure points and interpolations (about 40 reals per cell).
fn min_bytes_per_step(n: usize, nf: usize) -> f64 {
    (n as f64) * 8.0 * 70.0 + (nf as f64) * (8.0 * 14.0 + 8.0) * 2.0
}

impl Setup for NsSetup {
    fn physics(&self) -> toml::Table {
        let view = View {
            mesh: Some(self.mesh_file.clone()),
            ns: Some(self.section.clone()),
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
        if precision != Precision::F64 {
            return Err(SolverError::Other(PRECISION_REFUSAL.into()));
        }
        let s = &self.section;
        let common = Common {
            geo: self.geo.clone(),
            faces: self.faces.clone(),
            mu: s.density * s.viscosity,
            rho: s.density,
            flow_scale: self.flow_scale(),
            force: match &self.force {
                None => None,
                Some((patch, norm)) => {
                    let fs = s.forces.as_ref().expect("parsed with the patch");
                    Some(ForceSpec {
                        patch: self.patch_force(*patch)?,
                        drag: fs.drag,
                        lift: fs.lift,
                        norm: *norm,
                        other: self.other_patch_force(*patch)?,
                    })
                }
            },
            probes: self.probes.clone(),
            wake: self.wake.clone(),
            mode: s.mode,
            steady: s.steady.clone(),
            nonorth: s.nonorth_correctors,
            theta: s.theta(),
            transient: s.mode == Mode::Transient,
            rest_correction: s.rest_correction,
            flux_memory: (s.flux_memory() == FluxMemory::Full).then(|| s.flux_memory_time.unwrap_or(f64::INFINITY)),
            statistics_start: s.statistics.as_ref().map(|st| st.start),
            les: self.les.as_ref().map(|_| self.les_spec()),
            strouhal: s.forces.as_ref().and_then(|f| f.length.map(|d| (d, f.velocity))),
            log_every: s.log_every,
            fail: [s.pressure_solver.fail_residual, s.momentum_solver.fail_residual],
            h: self.h,
            u_ref: self.u_ref,
            dt_max: self.dt_max(),
            variant: self.variant(),
            bytes_per_step: min_bytes_per_step(self.geo.num_cells(), self.faces.len()),
            report: self.report.clone(),
        };
        *self.report.lock().unwrap() = Report::default();
        Ok(match target {
            Target::Cpu => Box::new(NsSim::new(self.ops()?, self.u0.clone(), &self.p0, common)?),
            Target::Cuda(dev) => Box::new(NsSim::new(self.cuda_ops(dev)?, self.u0.clone(), &self.p0, common)?),
        })
    }

    fn summary(&self) -> serde_json::Value {
        let r = self.report.lock().unwrap();
        let mut out = json!({
            "mesh": self.mesh_file,
            "cfl_length_scale": self.h,
            "reference_speed": self.u_ref,
            "converged_at_step": r.converged_at,
            "stalled_at_step": r.stalled_at,
            "stop_reason": r.stop_reason,
            "cg_warnings": r.cg_warnings,
            "max_relative_divergence": r.max_divergence,
            "last_step": r.last_step,
            "solves": {"pressure": r.pressure_solves, "momentum": r.momentum_solves},
            "pressure_amg": r.pressure_amg,
            "other_wall_shear": r.other_wall_shear,
            "signals": r.signals,
        });
        if let Some(l) = &r.les {
            out["les"] = json!(l);
        }
        if let Some(e) = &r.energy {
            out["kinetic_energy"] = json!(e);
        }
        if let Some(w) = &r.wake {
            out["wake"] = json!(w);
        }
        let mut ours = vec![("cd", r.cd), ("cl", r.cl), ("dp", r.dp)];
        if let Some(warning) = r.signals.as_ref().and_then(Signals::warmup_warning) {
            eprintln!("warning: {warning}");
        }
        if let Some(sig) = &r.signals {
            // A transient benchmark's dp is the one half a period after the lift maximum.
            if let Some(dp) = sig.dp_half_period_after_cl_max {
                out["dp_last"] = json!(r.dp);
                ours[2].1 = Some(dp);
            }
            ours.extend([
                ("cd_max", sig.cd.map(|s| s.max)),
                ("cl_max", sig.cl.map(|s| s.max)),
                ("cd_mean", sig.cd.map(|s| s.mean)),
                ("st", sig.st),
            ]);
        }
        let mut errors = serde_json::Map::new();
        let mut bounds = serde_json::Map::new();
        for (k, v) in ours {
            let Some(v) = v else { continue };
            out[k] = json!(v);
            if let Some(&want) = self.section.reference.get(k) {
                errors.insert(k.into(), json!((v - want) / want));
            }
            if let Some(&[lo, hi]) = self.section.reference_bounds.get(k) {
                let miss = if v < lo { (v - lo) / lo } else if v > hi { (v - hi) / hi } else { 0.0 };
                bounds.insert(k.into(), json!({"value": v, "bounds": [lo, hi], "inside": miss == 0.0, "relative_miss": miss}));
            }
        }
        if !bounds.is_empty() {
            out["bounds"] = serde_json::Value::Object(bounds);
        }
        if let Some(f) = r.force {
            out["force"] = json!(f);
        }
        if !errors.is_empty() {
            out["errors"] = serde_json::Value::Object(errors);
            out["reference"] = json!(self.section.reference);
        }
        out
    }
    /// Measured on the CPU backend (DFG meshes of 90k and 353k tets, 2-core CI machine): 3.5 kB
    /// a cell (mesh tables, the fits, the AMG hierarchy, the solvers' vectors) and 1.25e-5 core-
    /// seconds a cell-step (1.3-1.9e5 cell-steps/s).
    fn footprint(&self, _precision: Precision) -> Option<crate::framework::Footprint> {
        Some(crate::framework::Footprint::per_cell(self.mesh.num_cells(), 3500.0, 1.25e-5))
    }
}
