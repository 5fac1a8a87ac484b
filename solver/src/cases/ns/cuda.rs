//! The CUDA execution of the fractional step (kernels/cuda/ns.cu): the same `NsOps` as the
//! CPU's on device buffers, each cell and face computed with the CPU's arithmetic in its order
//! (no fused multiply-adds). The semi-Lagrangian pieces are `numerics::sl::cuda::DeviceSl`'s
//! with a departure kernel that follows the flow's own velocity; the linear solves are
//! `numerics::linalg::CudaCg` (Jacobi-scaled, fused kernels; Chebyshev-Jacobi for the pressure
//! where the case asks) on the matrices the host
//! assembled once (the momentum matrix once per dt).
//!
//! What crosses to the host per step: the CG status words (in batches, `CudaCg`), the
//! reductions' block partials (2 x 128 values for the velocity change, 128 for the divergence,
//! summed on the host in a fixed order: restarts are bit-identical; in a transient run 2 x 128
//! more for the kinetic energy) and, in `sim.rs`, u and p
//! at the cells the forces and probes read (`gather`: the force patch's cells and their
//! gradient stencils, with `forces.wall_shear = "fits"` the stencils of its vertices' fits, the
//! probes' cells and theirs; 4 values per such cell).

use super::cpu::{momentum_matrix, Constants, FaceFits};
use super::faces::{Faces, InletProfile, Role};
use super::les::{LesTables, FILTERED};
use super::section::Les;
use super::step::{NsOps, Predict, SolveStats, Var};
use crate::backend::cuda::{Device, EarlyFunction};
use crate::error::{Result, SolverError};
use crate::mesh::cuda::{launch_cfg, pad, DeviceMesh};
use crate::mesh::TetGeometry;
use crate::numerics::linalg::{CgPreconditioner, CgReport, CsMat, CudaCg};
use crate::numerics::sl::cuda::{DeviceDeps, DeviceSl, QuadTables};
use crate::numerics::sl::{self, quadratic, Interpolated, Interpolation, SlOps, Span};
use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use kernels::ns as k;
use std::sync::Arc;
use std::time::Instant;

/// ns.cu's NOT_OWN: of_cell's mark of a face the cell does not own.
const NOT_OWN: u32 = 0x8000_0000;
/// The reductions' fixed launch: RED_GRID blocks of ns.cu's RED_BLOCK threads.
const RED_GRID: u32 = 128;
const RED_BLOCK: u32 = 256;

/// Mirrors `struct Faces` of ns.cu: the device addresses of the face arrays (owner, neigh,
/// role, area, normal, centre, d, w, a, k, ub, pb, of_cell), then the face and cell counts.
#[repr(C)]
#[derive(Clone, Copy)]
struct FacesC {
    p: [u64; 13],
    nfaces: u32,
    ncells: u32,
}
// SAFETY: plain-old-data with the C layout.
unsafe impl DeviceRepr for FacesC {}

/// The faces on the device: owns the buffers whose addresses `c` holds.
struct DeviceFaces {
    c: FacesC,
    _index: Vec<CudaSlice<u32>>,
    _role: CudaSlice<i32>,
    _real: Vec<CudaSlice<f64>>,
}

impl DeviceFaces {
    fn upload(dev: &Device, f: &Faces) -> Result<Self> {
        if f.len() >= NOT_OWN as usize || f.of_cell.len() >= u32::MAX as usize {
            return Err(SolverError::Other(format!(
                "the CUDA backend indexes faces with 31 bits; this mesh has {} faces",
                f.len()
            )));
        }
        let s = &dev.stream;
        let role: Vec<i32> = f.role.iter().map(|r| role_code(*r)).collect();
        let of_cell: Vec<u32> = f
            .of_cell
            .iter()
            .flat_map(|c| c.map(|(i, own)| if own { i } else { i | NOT_OWN }))
            .collect();
        let index = vec![s.clone_htod(&f.owner)?, s.clone_htod(&f.neigh)?, s.clone_htod(&of_cell)?];
        let role = s.clone_htod(&role)?;
        let flat = |v: &[[f64; 3]]| v.as_flattened().to_vec();
        let arrays = [
            f.area.clone(),
            flat(&f.normal),
            flat(&f.centre),
            flat(&f.d),
            f.w.clone(),
            f.a.clone(),
            flat(&f.k),
            flat(&f.ub),
            f.pb.clone(),
        ];
        let real = arrays.into_iter().map(|v| dev.upload(&pad(v))).collect::<Result<Vec<_>>>()?;
        let r = |i: usize| dev.ptr(&real[i]);
        let p = [
            dev.ptr(&index[0]),
            dev.ptr(&index[1]),
            dev.ptr(&role),
            r(0),
            r(1),
            r(2),
            r(3),
            r(4),
            r(5),
            r(6),
            r(7),
            r(8),
            dev.ptr(&index[2]),
        ];
        Ok(DeviceFaces {
            c: FacesC {
                p,
                nfaces: f.len() as u32,
                ncells: f.of_cell.len() as u32,
            },
            _index: index,
            _role: role,
            _real: real,
        })
    }
}

/// ns.cu's R_* codes.
fn role_code(r: Role) -> i32 {
    match r {
        Role::Interior => 0,
        Role::Wall => 1,
        Role::Inlet => 2,
        Role::Outlet => 3,
        Role::Symmetry => 4,
    }
}

/// Per cell, what ns_inlet needs of its profiled inlet face (cpu::inlet_face_of_cell), 11
/// values: the patch (-1 none), the face's normal and centre, the centroid's depth below the
/// face and the profile at the centroid, computed here as the CPU computes them.
fn near_inlet_table(geo: &TetGeometry<f64>, faces: &Faces, inlets: &[Option<InletProfile>]) -> Vec<f64> {
    let n = geo.num_cells();
    let mut t = vec![0.0; 11 * n.max(1)];
    for (c, f) in super::cpu::inlet_face_of_cell(faces, inlets, n).into_iter().enumerate() {
        let row = &mut t[11 * c..11 * c + 11];
        row[0] = -1.0;
        let Some(profile) = (f != u32::MAX).then(|| inlets[faces.patch[f as usize] as usize].as_ref()).flatten() else {
            continue;
        };
        let f = f as usize;
        let (nv, xf, xc) = (faces.normal[f], faces.centre[f], geo.centroids[c]);
        row[0] = faces.patch[f] as f64;
        row[1..4].copy_from_slice(&nv);
        row[4..7].copy_from_slice(&xf);
        row[7] = (0..3).map(|k| nv[k] * (xf[k] - xc[k])).sum::<f64>();
        row[8..11].copy_from_slice(&profile.at(xc));
    }
    t
}

/// The inlet profiles as ns_inlet reads them: 16 values per patch (see ns.cu).
fn profile_table(inlets: &[Option<InletProfile>]) -> Vec<f64> {
    let mut v = vec![0.0; 16 * inlets.len().max(1)];
    for (p, prof) in inlets.iter().enumerate() {
        let q = &mut v[16 * p..16 * p + 16];
        match prof {
            None => {}
            Some(InletProfile::Uniform(u)) => {
                q[0] = 1.0;
                q[1..4].copy_from_slice(u);
            }
            Some(InletProfile::Parabolic { lo, hi, axes, u_max, dir }) => {
                q[0] = 2.0;
                q[1..4].copy_from_slice(dir);
                q[4..7].copy_from_slice(lo);
                q[7..10].copy_from_slice(hi);
                q[10] = *u_max;
                q[11] = axes.len().min(3) as f64;
                for (j, &a) in axes.iter().take(3).enumerate() {
                    q[12 + j] = a as f64;
                }
            }
        }
    }
    v
}

/// The semi-Lagrangian operations with departure points along the flow: the velocity's and
/// its gradients' addresses are set before each trace.
struct FlowSl {
    sl: DeviceSl<f64>,
    departures: EarlyFunction,
    max_walk: u32,
    /// u0, u1, u2, grad u0, grad u1, grad u2.
    vel: [u64; 6],
}

impl SlOps for FlowSl {
    type Deps = DeviceDeps<f64>;
    type Field = CudaSlice<f64>;

    fn departures(&mut self, span: Span, sign: f64) -> Result<DeviceDeps<f64>> {
        let mut out = self.sl.deps()?;
        let sink = self.sl.group_sink(&mut out);
        let dev = &self.sl.dev;
        let (px, cell, patch) = (dev.ptr(&out.px), dev.ptr(&out.cell), dev.ptr(&out.patch));
        let mut b = self.departures.builder(&dev.stream);
        b.arg(&self.sl.mesh.c);
        for v in &self.vel {
            b.arg(v);
        }
        b.arg(&span.dt).arg(&sign).arg(&self.max_walk);
        b.arg(&px).arg(&cell).arg(&patch).arg(&sink);
        // SAFETY: the velocity components hold ncells values and the gradients 3 per cell (set
        // by `advect` from live buffers), the outputs ncells entries (px 3 per cell), the sink's
        // arrays one per cell and per vertex group (`DeviceSl::group_sink`).
        unsafe { b.launch(launch_cfg(self.sl.mesh.ncells()))? };
        Ok(out)
    }

    fn interpolate(&mut self, deps: &DeviceDeps<f64>, f: &CudaSlice<f64>) -> Result<Interpolated<CudaSlice<f64>>> {
        self.sl.interpolate(deps, f)
    }

    fn correct(&mut self, f: &CudaSlice<f64>, f2: &CudaSlice<f64>) -> Result<CudaSlice<f64>> {
        self.sl.correct(f, f2)
    }

    fn limit(&mut self, x: CudaSlice<f64>, lo: &CudaSlice<f64>, hi: &CudaSlice<f64>) -> Result<CudaSlice<f64>> {
        self.sl.limit(x, lo, hi)
    }

    fn recycle(&mut self, f: CudaSlice<f64>) {
        self.sl.recycle(f)
    }

    fn recycle_deps(&mut self, d: DeviceDeps<f64>) {
        self.sl.recycle_deps(d)
    }
}

/// The viscous face gradients from vertex fits (`face_gradients = "fits"` or "wall-fits";
/// cpu::FaceFits): the fits' tables (the interpolation's where it is quadratic), each face's
/// three vertices, and scratch for one component's fit records and its faces' deferred parts.
struct DeviceFits {
    quad: Arc<QuadTables<f64>>,
    verts: CudaSlice<u32>,
    /// The semi-Lagrangian patch values of each component: the fits' Dirichlet values.
    bc: [CudaSlice<f64>; 3],
    rec: CudaSlice<f64>,
    def: CudaSlice<f64>,
    /// ns_fit_deferred's scope: 0 "fits", 1 "wall-fits", 2 "fits-full".
    scope: i32,
}

impl DeviceFits {
    fn new(dev: &Arc<Device>, inp: &Inputs<'_>, ff: &FaceFits, sl: &DeviceSl<f64>) -> Result<Self> {
        let quad = match sl.quad_tables() {
            Some(q) => q,
            None => Arc::new(QuadTables::upload(dev, &ff.fit)?),
        };
        let bc = |k: usize| dev.upload(&pad(inp.sl_bc[k].clone()));
        Ok(DeviceFits {
            quad,
            verts: dev.stream.clone_htod(ff.verts.as_flattened())?,
            bc: [bc(0)?, bc(1)?, bc(2)?],
            rec: dev.zeros(quadratic::REC * inp.geo.nodes.len().max(1))?,
            def: dev.zeros(inp.faces.len().max(1))?,
            scope: if ff.walls_only { 1 } else if ff.whole_flux { 2 } else { 0 },
        })
    }
}

struct Functions {
    gradient: EarlyFunction,
    inlet: EarlyFunction,
    fit_deferred: EarlyFunction,
    predict: EarlyFunction,
    flux: EarlyFunction,
    correction_rhs: EarlyFunction,
    correct_flux: EarlyFunction,
    correct_cells: EarlyFunction,
    change: EarlyFunction,
    divergence: EarlyFunction,
    gather: EarlyFunction,
    axpby: EarlyFunction,
    accumulate: EarlyFunction,
    symmetry: EarlyFunction,
    kinetic_energy: EarlyFunction,
    les_cells: EarlyFunction,
    test_filter: EarlyFunction,
    les_lm: EarlyFunction,
    eddy_viscosity: EarlyFunction,
    sgs_flux: EarlyFunction,
}

impl Functions {
    fn load(dev: &Device) -> Result<Self> {
        let f = |kernel| dev.function::<f64>(kernel, &[]);
        Ok(Functions {
            gradient: f(k::GRADIENT)?,
            inlet: f(k::INLET)?,
            fit_deferred: f(k::FIT_DEFERRED)?,
            predict: f(k::PREDICT)?,
            flux: f(k::FLUX)?,
            correction_rhs: f(k::CORRECTION_RHS)?,
            correct_flux: f(k::CORRECT_FLUX)?,
            correct_cells: f(k::CORRECT_CELLS)?,
            change: f(k::CHANGE)?,
            divergence: f(k::DIVERGENCE)?,
            gather: f(k::GATHER)?,
            axpby: f(k::AXPBY)?,
            accumulate: f(k::ACCUMULATE)?,
            symmetry: f(k::SYMMETRY)?,
            kinetic_energy: f(k::KINETIC_ENERGY)?,
            les_cells: f(k::LES_CELLS)?,
            test_filter: f(k::TEST_FILTER)?,
            les_lm: f(k::LES_LM)?,
            eddy_viscosity: f(k::EDDY_VISCOSITY)?,
            sgs_flux: f(k::SGS_FLUX)?,
        })
    }
}

/// What the device operations are built from (the setup's parsed case).
pub struct Inputs<'a> {
    pub geo: &'a TetGeometry<f64>,
    pub faces: &'a Faces,
    /// The semi-Lagrangian patch values per component (NaN: zero gradient).
    pub sl_bc: &'a [Vec<f64>; 3],
    pub inlets: &'a [Option<InletProfile>],
    pub interpolation: Interpolation,
    /// The quadratic's tables (the setup's, shared with the face gradients' fits).
    pub quad_fit: Option<&'a quadratic::QuadFit<f64>>,
    /// The viscous face gradients from vertex fits (`face_gradients = "fits"` or "wall-fits").
    pub face_fits: Option<&'a FaceFits>,
    pub max_walk: u32,
    pub c: Constants,
    /// The velocity matrix of each component and the pressure one (`cpu::laplacian`).
    pub ku: [CsMat<f64>; 3],
    pub kp: CsMat<f64>,
    /// The pressure solve's preconditioner, the CPU's (`NsSetup::pressure_preconditioner`).
    pub pressure_pre: CgPreconditioner,
    /// The LES model's tables (`navier-stokes.les`), the CPU's.
    pub les: Option<&'a LesTables>,
}

/// The LES model's tables on the device (`les::LesTables`): (Cs Delta)^2 per cell (the dynamic
/// model's bound), the diffusion limit's cap on nu_t dt, and alpha^2 per cell for the dynamic
/// model.
struct DeviceLes {
    cs_delta2: CudaSlice<f64>,
    nut_dt_cap: CudaSlice<f64>,
    alpha2: Option<CudaSlice<f64>>,
}

impl DeviceLes {
    fn new(dev: &Device, t: &LesTables) -> Result<Self> {
        Ok(DeviceLes {
            cs_delta2: dev.upload(&t.cs_delta2)?,
            nut_dt_cap: dev.upload(&t.nut_dt_cap)?,
            alpha2: (t.model == Les::Dynamic).then(|| dev.upload(&t.alpha2)).transpose()?,
        })
    }
}

/// A list of cells on the device (`NsOps::gather`); None when empty (cudarc refuses empty
/// allocations).
pub struct CellIndex(Option<CudaSlice<u32>>);

pub struct CudaNs {
    dev: Arc<Device>,
    n: usize,
    nf: usize,
    mesh: Arc<DeviceMesh<f64>>,
    faces: DeviceFaces,
    sl: FlowSl,
    /// The semi-Lagrangian patch values of each component but the one `sl` holds (`active`).
    bc: [Option<CudaSlice<f64>>; 3],
    active: usize,
    profiles: CudaSlice<f64>,
    /// Per cell, its profiled inlet face's data for ns_inlet (`near_inlet_table`).
    near_inlet: CudaSlice<f64>,
    /// Some: the viscous face gradients from vertex fits.
    fits: Option<DeviceFits>,
    fns: Functions,
    c: Constants,
    ku: [CsMat<f64>; 3],
    vol: Vec<f64>,
    pressure: CudaCg,
    /// Each component's momentum solver of the last dt (their matrices differ on symmetry planes).
    momentum: [Option<(f64, CudaCg)>; 3],
    partial: CudaSlice<f64>,
    stats: SolveStats,
    /// The symmetry faces' normal velocity (`FaceValues::w`); whether there are any.
    wsym: CudaSlice<f64>,
    symmetry: bool,
    /// The LES model's tables; None without one.
    les: Option<DeviceLes>,
}

impl CudaNs {
    pub fn new(dev: &Arc<Device>, inp: Inputs<'_>) -> Result<Self> {
        let mesh = Arc::new(DeviceMesh::upload(dev, inp.geo)?);
        let sl = DeviceSl::new(dev.clone(), mesh.clone(), inp.interpolation, inp.quad_fit, &inp.sl_bc[0])?;
        let bc = [
            None,
            Some(dev.upload(&pad(inp.sl_bc[1].clone()))?),
            Some(dev.upload(&pad(inp.sl_bc[2].clone()))?),
        ];
        let pressure = CudaCg::new(dev, &inp.kp, inp.pressure_pre.clone(), inp.c.pressure.clone())?;
        let fits = inp.face_fits.map(|ff| DeviceFits::new(dev, &inp, ff, &sl)).transpose()?;
        Ok(CudaNs {
            n: inp.geo.num_cells(),
            nf: inp.faces.len(),
            faces: DeviceFaces::upload(dev, inp.faces)?,
            sl: FlowSl {
                sl,
                departures: dev.function::<f64>(k::DEPARTURES, &[])?,
                max_walk: inp.max_walk,
                vel: [0; 6],
            },
            bc,
            active: 0,
            profiles: dev.upload(&profile_table(inp.inlets))?,
            near_inlet: dev.upload(&near_inlet_table(inp.geo, inp.faces, inp.inlets))?,
            fits,
            fns: Functions::load(dev)?,
            c: inp.c,
            ku: inp.ku,
            vol: inp.geo.volumes.clone(),
            pressure,
            momentum: Default::default(),
            partial: dev.zeros(2 * RED_GRID as usize)?,
            stats: SolveStats::default(),
            wsym: dev.zeros(inp.faces.len().max(1))?,
            symmetry: inp.faces.role.contains(&Role::Symmetry),
            les: inp.les.map(|t| DeviceLes::new(dev, t)).transpose()?,
            mesh,
            dev: dev.clone(),
        })
    }

    fn cells(&self) -> LaunchConfig {
        launch_cfg(self.n)
    }

    fn face_cfg(&self) -> LaunchConfig {
        launch_cfg(self.nf)
    }

    fn reduction_cfg() -> LaunchConfig {
        LaunchConfig {
            grid_dim: (RED_GRID, 1, 1),
            block_dim: (RED_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// A buffer of `len` values that a kernel fills entirely.
    fn uninit(&self, len: usize) -> Result<CudaSlice<f64>> {
        // SAFETY: every caller launches a kernel that writes all `len` values before any read.
        Ok(unsafe { self.dev.stream.alloc::<f64>(len)? })
    }

    /// Component k's patch values in the semi-Lagrangian operations.
    fn use_bc(&mut self, k: usize) {
        if self.active == k {
            return;
        }
        let b = self.bc[k].take().expect("held while not in use");
        self.bc[self.active] = Some(self.sl.sl.replace_bc(b));
        self.active = k;
    }

    fn transport(&mut self, deps: &sl::Traced<DeviceDeps<f64>>, k: usize, f: &CudaSlice<f64>) -> Result<CudaSlice<f64>> {
        self.use_bc(k);
        sl::transport(&mut self.sl, self.c.method, deps, f)
    }

    /// The momentum solver at dt (the matrix assembled on the host and uploaded when dt changes).
    /// Component k's momentum solver at dt (built anew when dt changes).
    fn momentum_at(&mut self, k: usize, dt: f64) -> Result<&mut CudaCg> {
        if self.momentum[k].as_ref().is_none_or(|m| m.0 != dt) {
            self.momentum[k] = None;
            let m = momentum_matrix(&self.ku[k], self.c.nu, &self.vol, dt);
            let cg = CudaCg::new(&self.dev, &m, CgPreconditioner::Jacobi, self.c.momentum.clone())?;
            self.momentum[k] = Some((dt, cg));
        }
        Ok(&mut self.momentum[k].as_mut().unwrap().1)
    }

    /// One CG solve, timed from an idle stream, its work added to the statistics.
    fn solve(
        dev: &Device,
        cg: &mut CudaCg,
        stats: &mut SolveStats,
        b: &CudaSlice<f64>,
        x: &mut CudaSlice<f64>,
    ) -> Result<CgReport> {
        dev.stream.synchronize()?;
        let t = Instant::now();
        let r = cg.solve(b, x)?;
        stats.add(r.iterations, t.elapsed().as_secs_f64(), cg.bytes_per_iteration());
        Ok(r)
    }

    /// The faces' deferred viscous parts of component k from the vertex fits of u^n_k into
    /// `fits.def` (cpu: fit_deferred); its address, or null without fits.
    fn fit_deferred(&self, k: usize, un: &CudaSlice<f64>, gu: &CudaSlice<f64>) -> Result<u64> {
        let Some(ff) = &self.fits else {
            return Ok(0);
        };
        let d = &self.dev;
        let (rec, def, unp) = (d.ptr(&ff.rec), d.ptr(&ff.def), d.ptr(un));
        ff.quad.fit(unp, d.ptr(&ff.bc[k]), rec)?;
        let (verts, comp, gup, walls) = (d.ptr(&ff.verts), k as i32, d.ptr(gu), ff.scope);
        let mut b = self.fns.fit_deferred.builder(&d.stream);
        b.arg(&self.mesh.c).arg(&self.faces.c).arg(&verts).arg(&rec).arg(&comp).arg(&unp);
        b.arg(&gup).arg(&walls).arg(&def);
        // SAFETY: verts holds 3 node indices per face, rec REC values per node (just written),
        // un ncells values, gu 3 per cell, def nfaces.
        unsafe { b.launch(self.face_cfg())? };
        Ok(def)
    }

    /// ns_predict into out: the explicit update (`expl`) or the predictor's right-hand side.
    fn launch_predict(&self, p: &Predict<'_, Self>, expl: bool, out: &CudaSlice<f64>) -> Result<()> {
        let def = self.fit_deferred(p.k, p.un, p.gu)?;
        let d = &self.dev;
        let (kk, dt, rho, nu, expl) = (p.k as i32, p.dt, self.c.rho, self.c.nu, expl as i32);
        let sgs = p.sgs.map_or(0, |x| d.ptr(x));
        let a = [d.ptr(p.ua), d.ptr(p.gp), d.ptr(p.gu), def, d.ptr(p.un), d.ptr(&self.wsym), sgs, d.ptr(out)];
        let mut b = self.fns.predict.builder(&d.stream);
        b.arg(&self.mesh.c).arg(&self.faces.c).arg(&kk).arg(&dt).arg(&rho).arg(&nu);
        for x in &a[..7] {
            b.arg(x);
        }
        b.arg(&expl).arg(&a[7]);
        // SAFETY: ua, un and out hold ncells values, gp and gu 3 per cell, def (or null), sgs
        // (or null) and wsym nfaces; out is none of the inputs (the kernel writes it only).
        unsafe { b.launch(self.cells())? };
        Ok(())
    }

    /// The dynamic model's filtered L:M and M:M (2 per cell) of u with gradients g.
    fn dynamic_lm(&self, u: [u64; 3], g: [u64; 3], alpha2: &CudaSlice<f64>) -> Result<CudaSlice<f64>> {
        let d = &self.dev;
        let n = self.n as u32;
        let cells = self.uninit(FILTERED * self.n)?;
        let cp = d.ptr(&cells);
        let mut b = self.fns.les_cells.builder(&d.stream);
        b.arg(&n).arg(&u[0]).arg(&u[1]).arg(&u[2]).arg(&g[0]).arg(&g[1]).arg(&g[2]).arg(&cp);
        // SAFETY: u holds ncells values each, g 3 per cell each, cells FILTERED per cell.
        unsafe { b.launch(self.cells())? };
        let filtered = self.test_filter(&cells, FILTERED)?;
        let lm = self.uninit(2 * self.n)?;
        let (fp, ap, lp) = (d.ptr(&filtered), d.ptr(alpha2), d.ptr(&lm));
        let mut b = self.fns.les_lm.builder(&d.stream);
        b.arg(&n).arg(&fp).arg(&ap).arg(&lp);
        // SAFETY: filtered holds FILTERED values per cell, alpha2 one, lm 2.
        unsafe { b.launch(self.cells())? };
        self.test_filter(&lm, 2)
    }

    /// les::test_filter of `m` values per cell.
    fn test_filter(&self, x: &CudaSlice<f64>, m: usize) -> Result<CudaSlice<f64>> {
        let out = self.uninit(m * self.n)?;
        let d = &self.dev;
        let (mm, xp, op) = (m as i32, d.ptr(x), d.ptr(&out));
        let mut b = self.fns.test_filter.builder(&d.stream);
        b.arg(&self.mesh.c).arg(&self.faces.c).arg(&mm).arg(&xp).arg(&op);
        // SAFETY: x and out hold m <= FILTERED values per cell; each thread writes its own cell.
        unsafe { b.launch(self.cells())? };
        Ok(out)
    }

    /// The block partials of the last reduction, `per` values per block.
    fn partials(&self, per: usize) -> Result<Vec<f64>> {
        let p = self.dev.stream.clone_dtoh(&self.partial.slice(0..per * RED_GRID as usize))?;
        Ok(p)
    }
}

impl NsOps for CudaNs {
    type Cells = CudaSlice<f64>;
    type Vectors = CudaSlice<f64>;
    type Faces = CudaSlice<f64>;
    type Index = CellIndex;

    fn upload(&mut self, host: &[f64]) -> Result<CudaSlice<f64>> {
        self.dev.upload(host)
    }
    fn download(&mut self, x: &CudaSlice<f64>) -> Result<Vec<f64>> {
        self.dev.download(x)
    }
    fn upload_faces(&mut self, host: &[f64]) -> Result<CudaSlice<f64>> {
        self.dev.upload(host)
    }
    fn download_faces(&mut self, x: &CudaSlice<f64>) -> Result<Vec<f64>> {
        self.dev.download(x)
    }
    fn upload_index(&mut self, cells: &[u32]) -> Result<CellIndex> {
        Ok(CellIndex(if cells.is_empty() { None } else { Some(self.dev.stream.clone_htod(cells)?) }))
    }
    fn gather(&mut self, fields: &[&CudaSlice<f64>], idx: &CellIndex) -> Result<Vec<f64>> {
        let Some(idx) = &idx.0 else {
            return Ok(Vec::new());
        };
        let m = idx.len();
        if fields.is_empty() {
            return Ok(Vec::new());
        }
        let out = self.uninit(fields.len() * m)?;
        let d = &self.dev;
        let (mm, ip) = (m as u32, d.ptr(idx));
        for (k, f) in fields.iter().enumerate() {
            let (src, dst) = (d.ptr(*f), d.ptr(&out) + (k * m * std::mem::size_of::<f64>()) as u64);
            let mut b = self.fns.gather.builder(&d.stream);
            b.arg(&mm).arg(&ip).arg(&src).arg(&dst);
            // SAFETY: idx holds m cell indices below ncells, f ncells values, out m per field
            // (dst is field k's part).
            unsafe { b.launch(launch_cfg(m))? };
        }
        self.dev.download(&out)
    }
    fn copy(&mut self, x: &CudaSlice<f64>) -> Result<CudaSlice<f64>> {
        Ok(self.dev.stream.clone_dtod(x)?)
    }
    fn zeros(&mut self) -> Result<CudaSlice<f64>> {
        self.dev.zeros(self.n)
    }
    fn axpby(&mut self, a: f64, x: &CudaSlice<f64>, b: f64, y: &CudaSlice<f64>) -> Result<CudaSlice<f64>> {
        let out = self.uninit(self.n)?;
        let (n, xp, yp, op) = (self.n as u32, self.dev.ptr(x), self.dev.ptr(y), self.dev.ptr(&out));
        // SAFETY: x, y and out hold ncells values.
        unsafe {
            self.fns.axpby.builder(&self.dev.stream)
                .arg(&n)
                .arg(&a)
                .arg(&xp)
                .arg(&b)
                .arg(&yp)
                .arg(&op)
                .launch(self.cells())?
        };
        Ok(out)
    }
    fn accumulate(&mut self, w: f64, x: &CudaSlice<f64>, sum: &mut CudaSlice<f64>, squares: &mut CudaSlice<f64>) -> Result<()> {
        let (n, xp, sp, qp) = (self.n as u32, self.dev.ptr(x), self.dev.ptr(sum), self.dev.ptr(squares));
        // SAFETY: x, sum and squares hold ncells values.
        unsafe {
            self.fns.accumulate.builder(&self.dev.stream)
                .arg(&n)
                .arg(&w)
                .arg(&xp)
                .arg(&sp)
                .arg(&qp)
                .launch(self.cells())?
        };
        Ok(())
    }

    fn symmetry(&mut self, u: &[CudaSlice<f64>; 3]) -> Result<()> {
        if !self.symmetry {
            return Ok(());
        }
        let d = &self.dev;
        let (u0, u1, u2) = (d.ptr(&u[0]), d.ptr(&u[1]), d.ptr(&u[2]));
        let w = d.ptr(&self.wsym);
        // SAFETY: u holds ncells values each, wsym one per face.
        unsafe {
            self.fns.symmetry.builder(&d.stream)
                .arg(&self.faces.c)
                .arg(&u0)
                .arg(&u1)
                .arg(&u2)
                .arg(&w)
                .launch(self.face_cfg())?
        };
        Ok(())
    }

    fn gradient(&mut self, phi: &CudaSlice<f64>, var: Var) -> Result<CudaSlice<f64>> {
        let g = self.uninit(3 * self.n)?;
        let (v, comp): (i32, i32) = match var {
            Var::U(k) => (0, k as i32),
            Var::P => (1, 0),
            Var::Correction => (2, 0),
        };
        let (pp, gp, wp) = (self.dev.ptr(phi), self.dev.ptr(&g), self.dev.ptr(&self.wsym));
        let mut b = self.fns.gradient.builder(&self.dev.stream);
        b.arg(&self.mesh.c).arg(&self.faces.c).arg(&pp).arg(&v).arg(&comp).arg(&wp).arg(&gp);
        // SAFETY: phi holds ncells values, g 3 per cell, wsym one per face; the mesh and faces
        // are live.
        unsafe { b.launch(self.cells())? };
        Ok(g)
    }

    fn advect(
        &mut self,
        span: Span,
        u: &[CudaSlice<f64>; 3],
        gu: &[CudaSlice<f64>; 3],
        q: &[CudaSlice<f64>; 3],
    ) -> Result<[CudaSlice<f64>; 3]> {
        let d = &self.dev;
        self.sl.vel = [d.ptr(&u[0]), d.ptr(&u[1]), d.ptr(&u[2]), d.ptr(&gu[0]), d.ptr(&gu[1]), d.ptr(&gu[2])];
        let deps = sl::trace(&mut self.sl, self.c.method, span)?;
        let out = [
            self.transport(&deps, 0, &q[0])?,
            self.transport(&deps, 1, &q[1])?,
            self.transport(&deps, 2, &q[2])?,
        ];
        let d = &self.dev;
        let n = self.n as u32;
        let (px, patch, cell) = (d.ptr(&deps.fwd.px), d.ptr(&deps.fwd.patch), d.ptr(&deps.fwd.cell));
        let (prof, near) = (d.ptr(&self.profiles), d.ptr(&self.near_inlet));
        let qi = [d.ptr(&q[0]), d.ptr(&q[1]), d.ptr(&q[2])];
        let o = [d.ptr(&out[0]), d.ptr(&out[1]), d.ptr(&out[2])];
        let mut b = self.fns.inlet.builder(&d.stream);
        b.arg(&n).arg(&px).arg(&patch).arg(&cell).arg(&prof).arg(&near);
        b.arg(&qi[0]).arg(&qi[1]).arg(&qi[2]).arg(&o[0]).arg(&o[1]).arg(&o[2]);
        // SAFETY: the departures, q and the outputs hold ncells entries (px 3 per cell), the
        // profile table 16 values per patch (every patch id a departure names), near 11 per cell.
        unsafe { b.launch(self.cells())? };
        self.sl.recycle_deps(deps.fwd);
        if let Some(bwd) = deps.bwd {
            self.sl.recycle_deps(bwd);
        }
        Ok(out)
    }

    fn eddy_viscosity(&mut self, u: &[CudaSlice<f64>; 3], gu: &[CudaSlice<f64>; 3], dt: f64) -> Result<CudaSlice<f64>> {
        let les = self.les.as_ref().ok_or_else(|| SolverError::Other("internal: no LES model".into()))?;
        let d = &self.dev;
        let up = [d.ptr(&u[0]), d.ptr(&u[1]), d.ptr(&u[2])];
        let g = [d.ptr(&gu[0]), d.ptr(&gu[1]), d.ptr(&gu[2])];
        let lmf = les.alpha2.as_ref().map(|a| self.dynamic_lm(up, g, a)).transpose()?;
        let nut = self.uninit(self.n)?;
        let d = &self.dev;
        let n = self.n as u32;
        let (cp, lp, np) = (d.ptr(&les.cs_delta2), lmf.as_ref().map_or(0, |x| d.ptr(x)), d.ptr(&nut));
        let kp = d.ptr(&les.nut_dt_cap);
        let mut b = self.fns.eddy_viscosity.builder(&d.stream);
        b.arg(&n).arg(&g[0]).arg(&g[1]).arg(&g[2]).arg(&cp).arg(&lp).arg(&kp).arg(&dt).arg(&np);
        // SAFETY: the gradients hold 3 values per cell, cs_delta2 and nut_dt_cap one, lmf (or
        // null) 2, nut one; dt is the kernel's REAL (f64: the family runs in f64).
        unsafe { b.launch(self.cells())? };
        Ok(nut)
    }

    fn sgs_flux(&mut self, u: &[CudaSlice<f64>; 3], gu: &[CudaSlice<f64>; 3], nut: &CudaSlice<f64>) -> Result<[CudaSlice<f64>; 3]> {
        let out = [self.uninit(self.nf)?, self.uninit(self.nf)?, self.uninit(self.nf)?];
        let d = &self.dev;
        let v = [d.ptr(&u[0]), d.ptr(&u[1]), d.ptr(&u[2]), d.ptr(&gu[0]), d.ptr(&gu[1]), d.ptr(&gu[2])];
        let (np, wp) = (d.ptr(nut), d.ptr(&self.wsym));
        let o = [d.ptr(&out[0]), d.ptr(&out[1]), d.ptr(&out[2])];
        let mut b = self.fns.sgs_flux.builder(&d.stream);
        b.arg(&self.faces.c);
        for x in &v {
            b.arg(x);
        }
        b.arg(&np).arg(&wp).arg(&o[0]).arg(&o[1]).arg(&o[2]);
        // SAFETY: u and nut hold ncells values, the gradients 3 per cell, wsym and the three
        // outputs nfaces each.
        unsafe { b.launch(self.face_cfg())? };
        Ok(out)
    }

    fn kinetic_energy(&mut self, u: &[CudaSlice<f64>; 3]) -> Result<f64> {
        let d = &self.dev;
        let v = [d.ptr(&u[0]), d.ptr(&u[1]), d.ptr(&u[2]), d.ptr(&self.partial)];
        let mut b = self.fns.kinetic_energy.builder(&d.stream);
        b.arg(&self.mesh.c);
        for x in &v {
            b.arg(x);
        }
        // SAFETY: u holds ncells values each, partial 2 per block of the fixed grid.
        unsafe { b.launch(Self::reduction_cfg())? };
        let p = self.partials(2)?;
        let (e, vol) = p.chunks(2).fold((0.0, 0.0), |s, x| (s.0 + x[0], s.1 + x[1]));
        Ok(0.5 * e / vol)
    }

    fn forcing(&mut self, p: Predict<'_, Self>) -> Result<CudaSlice<f64>> {
        let out = self.uninit(self.n)?;
        self.launch_predict(&p, true, &out)?;
        Ok(out)
    }

    fn predict(&mut self, p: Predict<'_, Self>, x: &mut CudaSlice<f64>) -> Result<CgReport> {
        let rhs = if self.c.explicit { None } else { Some(self.uninit(self.n)?) };
        self.launch_predict(&p, self.c.explicit, rhs.as_ref().unwrap_or(&*x))?;
        let dt = p.dt;
        let Some(rhs) = rhs else {
            return Ok(CgReport {
                converged: true,
                ..CgReport::default()
            });
        };
        let dev = self.dev.clone();
        let mut stats = self.stats;
        let cg = self.momentum_at(p.k, dt)?;
        let r = Self::solve(&dev, cg, &mut stats, &rhs, x)?;
        self.stats = stats;
        Ok(r)
    }

    fn predicted_flux(
        &mut self,
        dt: f64,
        u: &[CudaSlice<f64>; 3],
        p: &CudaSlice<f64>,
        gp: &CudaSlice<f64>,
        memory: Option<(f64, &CudaSlice<f64>, &[CudaSlice<f64>; 3])>,
    ) -> Result<CudaSlice<f64>> {
        let flux = self.uninit(self.nf)?;
        let d = &self.dev;
        let s = dt / self.c.rho;
        let a = [d.ptr(&u[0]), d.ptr(&u[1]), d.ptr(&u[2]), d.ptr(p), d.ptr(gp)];
        // Without memory the kernel reads neither u^n nor F^n: u* stands in for their pointers.
        let (mem, old, un) = match memory {
            Some((c, old, un)) => (c, d.ptr(old), [d.ptr(&un[0]), d.ptr(&un[1]), d.ptr(&un[2])]),
            None => (0.0, a[0], [a[0], a[1], a[2]]),
        };
        let out = d.ptr(&flux);
        let mut b = self.fns.flux.builder(&d.stream);
        b.arg(&self.faces.c).arg(&s);
        for v in &a {
            b.arg(v);
        }
        b.arg(&mem);
        for v in &un {
            b.arg(v);
        }
        b.arg(&old).arg(&out);
        // SAFETY: u, u^n and p hold ncells values, gp 3 per cell, the old fluxes and flux nfaces.
        unsafe { b.launch(self.face_cfg())? };
        Ok(flux)
    }

    fn solve_correction(
        &mut self,
        dt: f64,
        flux: &CudaSlice<f64>,
        gc: Option<&CudaSlice<f64>>,
        pc: &mut CudaSlice<f64>,
    ) -> Result<CgReport> {
        let rhs = self.uninit(self.n)?;
        let d = &self.dev;
        let s = self.c.rho / dt;
        let (fp, gp, bp) = (d.ptr(flux), gc.map_or(0, |g| d.ptr(g)), d.ptr(&rhs));
        let mut b = self.fns.correction_rhs.builder(&d.stream);
        b.arg(&self.faces.c).arg(&s).arg(&fp).arg(&gp).arg(&bp);
        // SAFETY: flux holds nfaces values, gc (or null) 3 per cell, rhs ncells.
        unsafe { b.launch(self.cells())? };
        Self::solve(&self.dev, &mut self.pressure, &mut self.stats, &rhs, pc)
    }

    fn correct_flux(
        &mut self,
        dt: f64,
        flux: &mut CudaSlice<f64>,
        pc: &CudaSlice<f64>,
        gc: Option<&CudaSlice<f64>>,
    ) -> Result<()> {
        let d = &self.dev;
        let s = dt / self.c.rho;
        let (pp, gp, fp) = (d.ptr(pc), gc.map_or(0, |g| d.ptr(g)), d.ptr(flux));
        let mut b = self.fns.correct_flux.builder(&d.stream);
        b.arg(&self.faces.c).arg(&s).arg(&pp).arg(&gp).arg(&fp);
        // SAFETY: pc holds ncells values, gc (or null) 3 per cell, flux nfaces (each thread
        // reads and writes its own face only).
        unsafe { b.launch(self.face_cfg())? };
        Ok(())
    }

    fn correct_cells(
        &mut self,
        dt: f64,
        u: &mut [CudaSlice<f64>; 3],
        p: &mut CudaSlice<f64>,
        pc: &CudaSlice<f64>,
        gc: &CudaSlice<f64>,
    ) -> Result<()> {
        let d = &self.dev;
        let (n, s) = (self.n as u32, dt / self.c.rho);
        let a = [d.ptr(&u[0]), d.ptr(&u[1]), d.ptr(&u[2]), d.ptr(p), d.ptr(pc), d.ptr(gc)];
        let mut b = self.fns.correct_cells.builder(&d.stream);
        b.arg(&n).arg(&s);
        for v in &a {
            b.arg(v);
        }
        // SAFETY: u, p and pc hold ncells values, gc 3 per cell; each thread its own cell.
        unsafe { b.launch(self.cells())? };
        Ok(())
    }

    fn change(&mut self, a: &[CudaSlice<f64>; 3], bb: &[CudaSlice<f64>; 3]) -> Result<(f64, f64)> {
        let d = &self.dev;
        let n = self.n as u32;
        let v = [d.ptr(&a[0]), d.ptr(&a[1]), d.ptr(&a[2]), d.ptr(&bb[0]), d.ptr(&bb[1]), d.ptr(&bb[2])];
        let out = d.ptr(&self.partial);
        let mut b = self.fns.change.builder(&d.stream);
        b.arg(&n);
        for x in &v {
            b.arg(x);
        }
        b.arg(&out);
        // SAFETY: the six fields hold ncells values, partial 2 per block of the fixed grid.
        unsafe { b.launch(Self::reduction_cfg())? };
        let p = self.partials(2)?;
        Ok(p.chunks(2).fold((0.0, 0.0), |s, x| (s.0 + x[0], s.1 + x[1])))
    }

    fn divergence(&mut self, flux: &CudaSlice<f64>) -> Result<f64> {
        let d = &self.dev;
        let (fp, out) = (d.ptr(flux), d.ptr(&self.partial));
        let mut b = self.fns.divergence.builder(&d.stream);
        b.arg(&self.faces.c).arg(&fp).arg(&out);
        // SAFETY: flux holds nfaces values, partial one per block of the fixed grid.
        unsafe { b.launch(Self::reduction_cfg())? };
        Ok(self.partials(1)?.into_iter().fold(0.0, f64::max))
    }

    fn solve_stats(&self) -> SolveStats {
        self.stats
    }

    fn sync(&mut self) -> Result<()> {
        self.dev.sync()
    }
}
