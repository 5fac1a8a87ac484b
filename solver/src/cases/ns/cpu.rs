//! The CPU execution of the fractional step (rayon over cells and faces; CSR matrices and
//! Jacobi-preconditioned CG from `numerics::linalg`, Chebyshev-Jacobi for the pressure where
//! the case asks): the reference for the CUDA execution
//! (`cuda.rs`), which implements the same `NsOps` with the same arithmetic per cell and face.

use super::faces::{FaceValues, Faces, InletProfile, Role};
use super::les::{self, LesTables};
use meshtool::topology::FACE_VERTS;
use super::step::{NsOps, Predict, SolveStats, Var};
use crate::error::{Result, SolverError};
use crate::mesh::linalg3::solve3_or_zero;
use crate::mesh::{Location, TetGeometry};
use crate::numerics::linalg::cg::spmv;
use crate::numerics::linalg::{solve_cg, CgPreconditioner, CgReport, CgSettings, CsMat, Jacobi, Preconditioner};
use crate::numerics::sl::cpu::HostSl;
use crate::numerics::sl::quadratic::{self, QuadFit};
use crate::numerics::sl::{self, Method, Span, VelocityField};
use rayon::prelude::*;
use sprs::TriMat;
use std::sync::Arc;

/// The flow's own velocity for the departure points: the cell value and its gradient.
#[derive(Default)]
pub struct FlowVel {
    pub u: Vec<[f64; 3]>,
    pub j: Vec<[[f64; 3]; 3]>,
}

impl VelocityField<f64> for FlowVel {
    fn eval(&self, _x: [f64; 3], cell: usize, _t: f64, _step: u64) -> ([f64; 3], [[f64; 3]; 3]) {
        (self.u[cell], self.j[cell])
    }
}

/// The physical and numerical constants the operations need.
#[derive(Clone, Debug)]
pub struct Constants {
    pub rho: f64,
    pub nu: f64,
    pub explicit: bool,
    pub method: Method,
    pub pressure: CgSettings,
    pub momentum: CgSettings,
}

/// The viscous face gradients from vertex fits (`face_gradients = "fits"` or "wall-fits"):
/// the fits' stencils and each face's three vertices.
pub struct FaceFits {
    pub fit: Arc<QuadFit<f64>>,
    pub verts: Vec<[u32; 3]>,
    /// "wall-fits": the fits on wall faces only, the cells' gradients on the others.
    pub walls_only: bool,
    /// "fits-full": the fits' whole flux on interior faces too (else their k . g_f there).
    pub whole_flux: bool,
}

impl FaceFits {
    /// `fit`: the quadratic's tables (the semi-Lagrangian interpolation's, shared).
    pub fn new(geo: &TetGeometry<f64>, faces: &Faces, fit: Arc<QuadFit<f64>>, walls_only: bool, whole_flux: bool) -> FaceFits {
        FaceFits {
            fit,
            verts: face_vertices(geo, faces),
            walls_only,
            whole_flux,
        }
    }
}

/// The three vertices of every face (as its owner's local face lists them).
pub fn face_vertices(geo: &TetGeometry<f64>, faces: &Faces) -> Vec<[u32; 3]> {
    (0..faces.len())
        .map(|i| {
            let c = faces.owner[i] as usize;
            let l = (0..4).find(|&l| faces.of_cell[c][l] == (i as u32, true)).expect("a face's owner holds it");
            FACE_VERTS[l].map(|lv| geo.cells[c][lv])
        })
        .collect()
}

pub struct CpuNs {
    pub geo: Arc<TetGeometry<f64>>,
    pub faces: Arc<Faces>,
    pub sl: HostSl<f64, FlowVel>,
    /// The semi-Lagrangian boundary value of each patch per component (NaN: zero gradient).
    pub sl_bc: [Vec<f64>; 3],
    /// The profile of each inlet patch: a departure point that left the domain through one
    /// takes the inlet's velocity there (the patch values of `sl_bc` are one per patch).
    pub inlets: Vec<Option<InletProfile>>,
    /// Some: the viscous face gradients from vertex fits.
    pub face_fits: Option<Arc<FaceFits>>,
    /// Per cell, one of its faces on a profiled inlet (`inlet_face_of_cell`, built once).
    pub near_inlet: Vec<u32>,
    /// The face values of the velocity, the symmetry planes' refreshed every step.
    pub values: FaceValues,
    pub c: Constants,
    /// The velocity Laplacian (walls and inlets Dirichlet) and the pressure one (outlets, and
    /// the reference cell).
    pub ku: [CsMat<f64>; 3],
    pub kp: CsMat<f64>,
    /// The pressure solve's preconditioner (`pressure_solver.preconditioner`), built once on
    /// `kp` (AMG's hierarchy, Chebyshev's bounds).
    pub pressure_pre: CgPreconditioner,
    /// Each component's momentum matrix V/dt + nu K_u,k of the last dt, with its preconditioner.
    pub m: [Option<(f64, CsMat<f64>, Jacobi)>; 3],
    pub stats: SolveStats,
    /// The LES model's tables (`navier-stokes.les`); None without one.
    pub les: Option<Arc<LesTables>>,
}

/// The momentum matrix V/dt + nu K_u (both backends assemble it on the host).
pub fn momentum_matrix(ku: &CsMat<f64>, nu: f64, vol: &[f64], dt: f64) -> CsMat<f64> {
    let mut m = ku.map(|v| nu * v);
    for (i, mut row) in m.outer_iterator_mut().enumerate() {
        if let Some(d) = row.get_mut(i) {
            *d += vol[i] / dt;
        }
    }
    m
}

/// solve_cg with Jacobi, its work added to `stats`.
fn timed_cg(a: &CsMat<f64>, b: &[f64], x: &mut [f64], j: &Jacobi, s: &CgSettings, stats: &mut SolveStats) -> CgReport {
    timed_pcg(a, b, x, j, CgPreconditioner::Jacobi.cpu_bytes_per_iteration(a), s, stats)
}

/// solve_cg preconditioned by `m`, whose iterations move `bytes`, its work added to `stats`.
fn timed_pcg(
    a: &CsMat<f64>,
    b: &[f64],
    x: &mut [f64],
    m: &dyn Preconditioner,
    bytes: f64,
    s: &CgSettings,
    stats: &mut SolveStats,
) -> CgReport {
    let t = std::time::Instant::now();
    let r = solve_cg(a, b, x, m, s);
    stats.add(r.iterations, t.elapsed().as_secs_f64(), bytes);
    r
}

/// The Laplacian's SPD matrix K (sum of a over a cell's faces on the diagonal, -a off it):
/// interior faces, boundary faces where `fixed(role)`, and `extra` diagonal entries.
pub fn laplacian(faces: &Faces, n: usize, fixed: impl Fn(Role) -> bool, extra: &[(usize, f64)]) -> CsMat<f64> {
    let mut t = TriMat::new((n, n));
    for i in 0..n {
        t.add_triplet(i, i, 0.0);
    }
    for f in 0..faces.len() {
        let (p, a) = (faces.owner[f] as usize, faces.a[f]);
        let nb = faces.neigh[f];
        if nb != u32::MAX {
            let q = nb as usize;
            t.add_triplet(p, p, a);
            t.add_triplet(q, q, a);
            t.add_triplet(p, q, -a);
            t.add_triplet(q, p, -a);
        } else if fixed(faces.role[f]) {
            t.add_triplet(p, p, a);
        }
    }
    for &(i, v) in extra {
        t.add_triplet(i, i, v);
    }
    t.to_csr()
}

/// The value of `var` on boundary face f where it is given.
fn boundary_value(faces: &Faces, f: usize, var: Var) -> f64 {
    match var {
        Var::U(k) => faces.ub[f][k],
        Var::P => faces.pb[f],
        Var::Correction => 0.0,
    }
}

/// Least-squares gradient of phi in every cell: face neighbours and the faces where `var` is
/// given (weights 1/|r|^2), and a zero normal derivative on the other boundary faces; on a
/// symmetry plane a velocity component's row is that of the cell's mirror image (the plane
/// reflects the normal velocity `values.w`): the zero normal derivative for a tangential
/// component, u . n = 0 for the normal one.
pub fn gradient(geo: &TetGeometry<f64>, faces: &Faces, values: &FaceValues, phi: &[f64], var: Var) -> Vec<[f64; 3]> {
    (0..geo.num_cells())
        .into_par_iter()
        .map(|c| {
            let (mut a, mut b) = ([[0.0; 3]; 3], [0.0; 3]);
            let xc = geo.centroids[c];
            for &(f, own) in &faces.of_cell[c] {
                let f = f as usize;
                let nb = faces.neigh[f];
                let (r, d) = if nb != u32::MAX {
                    // ±d: x_o - x_c exactly, the neighbour shifted across a periodic face.
                    let o = if own { nb as usize } else { faces.owner[f] as usize };
                    (faces.to_other(f, own), phi[o] - phi[c])
                } else if var.fixed_on(faces.role[f]) {
                    let x = faces.centre[f];
                    ([x[0] - xc[0], x[1] - xc[1], x[2] - xc[2]], boundary_value(faces, f, var) - phi[c])
                } else {
                    let n = faces.normal[f];
                    for i in 0..3 {
                        for j in 0..3 {
                            a[i][j] += n[i] * n[j];
                        }
                    }
                    if let (Var::U(k), Role::Symmetry) = (var, faces.role[f]) {
                        // The mirror row, r = 2 d_n n and a change of -2 w n_k, weighted 1/|r|^2.
                        let x = faces.centre[f];
                        let dn = (0..3).map(|i| n[i] * (x[i] - xc[i])).sum::<f64>();
                        let s = -values.w[f] * n[k] / dn;
                        (0..3).for_each(|i| b[i] += s * n[i]);
                    }
                    continue;
                };
                let w = 1.0 / (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
                for i in 0..3 {
                    for j in 0..3 {
                        a[i][j] += w * r[i] * r[j];
                    }
                    b[i] += w * r[i] * d;
                }
            }
            solve3_or_zero(a, b)
        })
        .collect()
}

/// The deferred non-orthogonal part k . grad(phi)_f of every face (the face-weighted gradient
/// inside, the cell's on boundary faces where `var` is given, zero elsewhere).
pub fn deferred(faces: &Faces, g: &[[f64; 3]], var: Var) -> Vec<f64> {
    (0..faces.len())
        .into_par_iter()
        .map(|f| deferred_face(faces, g, var, f))
        .collect()
}

/// `deferred` of face f.
fn deferred_face(faces: &Faces, g: &[[f64; 3]], var: Var, f: usize) -> f64 {
    let k = faces.k[f];
    let p = faces.owner[f] as usize;
    let nb = faces.neigh[f];
    let gf = if nb != u32::MAX {
        let w = faces.w[f];
        let (gp, gn) = (g[p], g[nb as usize]);
        std::array::from_fn(|i| w * gp[i] + (1.0 - w) * gn[i])
    } else if var.fixed_on(faces.role[f]) {
        g[p]
    } else {
        return 0.0;
    };
    k[0] * gf[0] + k[1] * gf[1] + k[2] * gf[2]
}

/// Per cell, one of its faces on a profiled inlet patch (`u32::MAX` for none).
pub fn inlet_face_of_cell(faces: &Faces, inlets: &[Option<InletProfile>], n: usize) -> Vec<u32> {
    let mut out = vec![u32::MAX; n];
    for f in 0..faces.len() {
        if faces.role[f] == Role::Inlet && inlets.get(faces.patch[f] as usize).is_some_and(|p| p.is_some()) {
            out[faces.owner[f] as usize] = f as u32;
        }
    }
    out
}

/// Per cell, the sum of a face quantity taken outward (+ where the cell owns the face).
pub fn outward_sum(faces: &Faces, x: &[f64]) -> Vec<f64> {
    faces
        .of_cell
        .par_iter()
        .map(|cf| {
            cf.iter()
                .map(|&(f, own)| if own { x[f as usize] } else { -x[f as usize] })
                .sum()
        })
        .collect()
}

impl CpuNs {
    /// The momentum matrix at dt and its preconditioner, rebuilt when dt changes.
    fn ensure_momentum(&mut self, k: usize, dt: f64) {
        if self.m[k].as_ref().is_none_or(|m| m.0 != dt) {
            let m = momentum_matrix(&self.ku[k], self.c.nu, &self.geo.volumes, dt);
            let j = Jacobi::new(&m);
            self.m[k] = Some((dt, m, j));
        }
    }

    /// The deferred part of every face from the vertex fits of u^n_k: on walls the whole flux
    /// A n . g_f less the implicit two-point part a (u_b - u_P), so that a steady state's wall
    /// flux is A n . g_f; inside k . g_f, or with `whole_flux` ("fits-full") A n . g_f less
    /// a (u_N - u_P) of u^n, so that a step applies A n . g_f + a (delta u_N - delta u_P) (k . g_f
    /// on inlets). Inside, the two-point part alone is not consistent: it
    /// differences at the midpoint of P and N, not at the face centre, and on the Kuhn slabs
    /// that left the Laplacian's pointwise error at 0.42 on every mesh and made the projection
    /// damp the Taylor-Green vortex 40 % too fast (VALIDATION.md). g_f is the mean of the three vertex fits' gradients
    /// at the face centre: the gradient is linear for a quadratic, so it is exact then. With
    /// `walls_only` the other faces take the cells' gradients gu (`deferred`).
    fn fit_deferred(&self, ff: &FaceFits, k: usize, un: &[f64], gu: &[[f64; 3]]) -> Vec<f64> {
        let f = &self.faces;
        let geo = &self.geo;
        let mut rec = vec![];
        quadratic::fit_field(&ff.fit, &self.sl_bc[k], un, &mut rec);
        (0..f.len())
            .into_par_iter()
            .map(|i| {
                let outside = f.neigh[i] == u32::MAX;
                if outside && !Var::U(k).fixed_on(f.role[i]) {
                    return 0.0;
                }
                let wall = outside && f.role[i] == Role::Wall;
                if ff.walls_only && !wall {
                    return deferred_face(f, gu, Var::U(k), i);
                }
                let xf = f.centre[i];
                let mut g = [0.0; 3];
                for &v in &ff.verts[i] {
                    let dg = quadratic::gradient_at(geo, v as usize, xf, &rec);
                    (0..3).for_each(|d| g[d] += dg[d] / 3.0);
                }
                let dot = |a: [f64; 3]| a[0] * g[0] + a[1] * g[1] + a[2] * g[2];
                let o = f.owner[i] as usize;
                if wall {
                    f.area[i] * dot(f.normal[i]) - f.a[i] * (f.ub[i][k] - un[o])
                } else if !outside && ff.whole_flux {
                    f.area[i] * dot(f.normal[i]) - f.a[i] * (un[f.neigh[i] as usize] - un[o])
                } else {
                    dot(f.k[i])
                }
            })
            .collect()
    }

    /// nu (sum over Dirichlet faces of a u_b + outward sum of the deferred part) per cell, plus
    /// the outward sum of the subgrid stress's fluxes `sgs`.
    fn viscous_sources(&self, k: usize, gu: &[[f64; 3]], un: &[f64], sgs: Option<&Vec<f64>>) -> Vec<f64> {
        let f = &self.faces;
        let def = match &self.face_fits {
            Some(ff) => self.fit_deferred(ff, k, un, gu),
            None => deferred(f, gu, Var::U(k)),
        };
        let mut s = outward_sum(f, &def);
        for i in 0..f.len() {
            if f.neigh[i] != u32::MAX {
                continue;
            }
            let o = f.owner[i] as usize;
            if f.role[i].fixed_velocity() {
                s[o] += f.a[i] * f.ub[i][k];
            } else if f.role[i] == Role::Symmetry {
                // The explicit part of -a n_k (u_P . n): the other components' share.
                let nk = f.normal[i][k];
                s[o] -= f.a[i] * nk * (self.values.w[i] - nk * un[o]);
            }
        }
        s.iter_mut().for_each(|v| *v *= self.c.nu);
        if let Some(x) = sgs {
            s.iter_mut().zip(outward_sum(f, x)).for_each(|(v, t)| *v += t);
        }
        s
    }

    /// A departure point in a cell with a face on an inlet, between that face and the cell's
    /// centroid: the inlet profile there plus the cell's departure from the profile, scaled
    /// linearly with the distance from the inlet (zero on it). The semi-Lagrangian fit has
    /// no value on a profiled inlet (one Dirichlet value per patch), so without this it
    /// extrapolates from the cells, and at cfl 1 (departure points a quarter cell from the
    /// inlet) it eroded the DFG inflow: axis velocity 0.30 in the first cells and 0.36 at
    /// x = 0.2 instead of 0.45 and 0.435 (28k tets); cfl 2 and up send those points out
    /// through the inlet, where they already took the profile.
    fn between_inlet_and_centroid(&self, cell: usize, x: [f64; 3], u: &[Vec<f64>; 3]) -> Option<[f64; 3]> {
        let f = self.near_inlet[cell];
        if f == u32::MAX {
            return None;
        }
        let fa = &self.faces;
        let f = f as usize;
        let profile = self.inlets[fa.patch[f] as usize].as_ref()?;
        let (n, xf, xc) = (fa.normal[f], fa.centre[f], self.geo.centroids[cell]);
        let depth = |p: [f64; 3]| (0..3).map(|k| n[k] * (xf[k] - p[k])).sum::<f64>();
        let (sd, sc) = (depth(x), depth(xc));
        if !(sc > 0.0 && sd < sc) {
            return None;
        }
        let (vd, vc) = (profile.at(x), profile.at(xc));
        let t = sd.max(0.0) / sc;
        Some(std::array::from_fn(|k| vd[k] + t * (u[k][cell] - vc[k])))
    }

    fn explicit_predict(&self, p: &Predict<'_, Self>, src: &[f64], x: &mut [f64]) -> CgReport {
        let mut ku = vec![0.0; x.len()];
        spmv(&self.ku[p.k], p.un, &mut ku);
        let (dt, nu, rho, k) = (p.dt, self.c.nu, self.c.rho, p.k);
        let vol = &self.geo.volumes;
        x.par_iter_mut().enumerate().for_each(|(c, x)| {
            *x = p.ua[c] + dt / vol[c] * (src[c] - nu * ku[c]) - dt / rho * p.gp[c][k];
        });
        CgReport {
            converged: true,
            ..CgReport::default()
        }
    }
}

impl NsOps for CpuNs {
    type Cells = Vec<f64>;
    type Vectors = Vec<[f64; 3]>;
    type Faces = Vec<f64>;
    type Index = Vec<u32>;

    fn upload(&mut self, host: &[f64]) -> Result<Vec<f64>> {
        Ok(host.to_vec())
    }
    fn download(&mut self, x: &Vec<f64>) -> Result<Vec<f64>> {
        Ok(x.clone())
    }
    fn upload_faces(&mut self, host: &[f64]) -> Result<Vec<f64>> {
        Ok(host.to_vec())
    }
    fn download_faces(&mut self, x: &Vec<f64>) -> Result<Vec<f64>> {
        Ok(x.clone())
    }
    fn upload_index(&mut self, cells: &[u32]) -> Result<Vec<u32>> {
        Ok(cells.to_vec())
    }
    fn gather(&mut self, fields: &[&Vec<f64>], idx: &Vec<u32>) -> Result<Vec<f64>> {
        Ok(fields.iter().flat_map(|f| idx.iter().map(|&c| f[c as usize])).collect())
    }
    fn copy(&mut self, x: &Vec<f64>) -> Result<Vec<f64>> {
        Ok(x.clone())
    }
    fn zeros(&mut self) -> Result<Vec<f64>> {
        Ok(vec![0.0; self.geo.num_cells()])
    }
    fn axpby(&mut self, a: f64, x: &Vec<f64>, b: f64, y: &Vec<f64>) -> Result<Vec<f64>> {
        Ok(x.par_iter().zip(y).map(|(x, y)| a * x + b * y).collect())
    }
    fn accumulate(&mut self, w: f64, x: &Vec<f64>, sum: &mut Vec<f64>, squares: &mut Vec<f64>) -> Result<()> {
        sum.par_iter_mut().zip(squares.par_iter_mut()).zip(x).for_each(|((s, q), x)| {
            *s += w * x;
            *q += w * (x * x);
        });
        Ok(())
    }

    fn symmetry(&mut self, u: &[Vec<f64>; 3]) -> Result<()> {
        self.values.refresh(&self.faces, [&u[0], &u[1], &u[2]]);
        Ok(())
    }

    fn gradient(&mut self, phi: &Vec<f64>, var: Var) -> Result<Vec<[f64; 3]>> {
        Ok(gradient(&self.geo, &self.faces, &self.values, phi, var))
    }

    fn advect(
        &mut self,
        span: Span,
        u: &[Vec<f64>; 3],
        gu: &[Vec<[f64; 3]>; 3],
        q: &[Vec<f64>; 3],
    ) -> Result<[Vec<f64>; 3]> {
        let n = self.geo.num_cells();
        self.sl.vel = FlowVel {
            u: (0..n).into_par_iter().map(|c| [u[0][c], u[1][c], u[2][c]]).collect(),
            j: (0..n).into_par_iter().map(|c| [gu[0][c], gu[1][c], gu[2][c]]).collect(),
        };
        let deps = sl::trace(&mut self.sl, self.c.method, span)?;
        let mut out: [Vec<f64>; 3] = Default::default();
        for (k, o) in out.iter_mut().enumerate() {
            self.sl.bc = self.sl_bc[k].clone();
            *o = sl::transport(&mut self.sl, self.c.method, &deps, &q[k])?;
        }
        for (c, d) in deps.fwd.iter().enumerate() {
            match d.loc {
                Location::Outside { patch, .. } => {
                    if let Some(profile) = &self.inlets[patch as usize] {
                        let v = profile.at(d.point);
                        (0..3).for_each(|k| out[k][c] = v[k]);
                    }
                }
                Location::Inside(cd) => {
                    if let Some(v) = self.between_inlet_and_centroid(cd as usize, d.point, q) {
                        (0..3).for_each(|k| out[k][c] = v[k]);
                    }
                }
            }
        }
        Ok(out)
    }

    fn eddy_viscosity(&mut self, u: &[Vec<f64>; 3], gu: &[Vec<[f64; 3]>; 3], dt: f64) -> Result<Vec<f64>> {
        let t = self.les.as_ref().ok_or_else(|| SolverError::Other("internal: no LES model".into()))?;
        Ok(les::eddy_viscosity(t, &self.geo, &self.faces, u, gu, dt))
    }

    fn sgs_flux(&mut self, u: &[Vec<f64>; 3], gu: &[Vec<[f64; 3]>; 3], nut: &Vec<f64>) -> Result<[Vec<f64>; 3]> {
        Ok(les::sgs_flux(&self.faces, u, gu, nut, &self.values.w))
    }

    fn kinetic_energy(&mut self, u: &[Vec<f64>; 3]) -> Result<f64> {
        Ok(kinetic_energy(&self.geo.volumes, |k, c| u[k][c]))
    }

    fn forcing(&mut self, p: Predict<'_, Self>) -> Result<Vec<f64>> {
        let src = self.viscous_sources(p.k, p.gu, p.un, p.sgs);
        let mut x = vec![0.0; p.ua.len()];
        self.explicit_predict(&p, &src, &mut x);
        Ok(x)
    }

    fn predict(&mut self, p: Predict<'_, Self>, x: &mut Vec<f64>) -> Result<CgReport> {
        let src = self.viscous_sources(p.k, p.gu, p.un, p.sgs);
        if self.c.explicit {
            return Ok(self.explicit_predict(&p, &src, x));
        }
        let (dt, rho, k) = (p.dt, self.c.rho, p.k);
        let vol = &self.geo.volumes;
        let b: Vec<f64> = (0..x.len())
            .into_par_iter()
            .map(|c| vol[c] / dt * p.ua[c] - vol[c] / rho * p.gp[c][k] + src[c])
            .collect();
        let settings = self.c.momentum.clone();
        self.ensure_momentum(k, dt);
        let (_, m, j) = self.m[k].as_ref().unwrap();
        Ok(timed_cg(m, &b, x, j, &settings, &mut self.stats))
    }

    fn predicted_flux(
        &mut self,
        dt: f64,
        u: &[Vec<f64>; 3],
        p: &Vec<f64>,
        gp: &Vec<[f64; 3]>,
        memory: Option<(f64, &Vec<f64>, &[Vec<f64>; 3])>,
    ) -> Result<Vec<f64>> {
        let f = &self.faces;
        let s = dt / self.c.rho;
        Ok((0..f.len())
            .into_par_iter()
            .map(|i| {
                let x = predicted_face_flux(f, i, u, p, gp, s);
                match memory.and_then(|(c, old, un)| Some(c * (old[i] - face_velocity_flux(f, i, un)?))) {
                    Some(m) => x + m,
                    None => x,
                }
            })
            .collect())
    }

    fn solve_correction(&mut self, dt: f64, flux: &Vec<f64>, gc: Option<&Vec<[f64; 3]>>, pc: &mut Vec<f64>) -> Result<CgReport> {
        let f = &self.faces;
        let div = outward_sum(f, flux);
        let def = gc.map(|g| outward_sum(f, &deferred(f, g, Var::Correction)));
        let s = self.c.rho / dt;
        let b: Vec<f64> = (0..div.len())
            .map(|c| def.as_ref().map_or(0.0, |d| d[c]) - s * div[c])
            .collect();
        let m = self.pressure_pre.on_cpu(&self.kp);
        let bytes = self.pressure_pre.cpu_bytes_per_iteration(&self.kp);
        Ok(timed_pcg(&self.kp, &b, pc, &*m, bytes, &self.c.pressure, &mut self.stats))
    }

    fn correct_flux(&mut self, dt: f64, flux: &mut Vec<f64>, pc: &Vec<f64>, gc: Option<&Vec<[f64; 3]>>) -> Result<()> {
        let f = &self.faces;
        let def = gc.map(|g| deferred(f, g, Var::Correction));
        let s = dt / self.c.rho;
        flux.par_iter_mut().enumerate().for_each(|(i, x)| {
            let p = f.owner[i] as usize;
            let nb = f.neigh[i];
            let two_point = if nb != u32::MAX {
                f.a[i] * (pc[nb as usize] - pc[p])
            } else if f.role[i] == Role::Outlet {
                -f.a[i] * pc[p]
            } else {
                return;
            };
            *x -= s * (two_point + def.as_ref().map_or(0.0, |d| d[i]));
        });
        Ok(())
    }

    fn correct_cells(
        &mut self,
        dt: f64,
        u: &mut [Vec<f64>; 3],
        p: &mut Vec<f64>,
        pc: &Vec<f64>,
        gc: &Vec<[f64; 3]>,
    ) -> Result<()> {
        let s = dt / self.c.rho;
        for (k, uk) in u.iter_mut().enumerate() {
            uk.par_iter_mut().zip(gc).for_each(|(u, g)| *u -= s * g[k]);
        }
        p.par_iter_mut().zip(pc).for_each(|(p, c)| *p += c);
        Ok(())
    }

    fn change(&mut self, a: &[Vec<f64>; 3], b: &[Vec<f64>; 3]) -> Result<(f64, f64)> {
        // Sequential sums: the same bits on every run (the steady criterion is restarted).
        let mut out = (0.0, 0.0);
        for k in 0..3 {
            out.0 += a[k].iter().zip(&b[k]).map(|(x, y)| (x - y) * (x - y)).sum::<f64>();
            out.1 += a[k].iter().map(|x| x * x).sum::<f64>();
        }
        Ok(out)
    }

    fn solve_stats(&self) -> SolveStats {
        self.stats
    }

    fn divergence(&mut self, flux: &Vec<f64>) -> Result<f64> {
        let f = &self.faces;
        Ok(f.of_cell
            .par_iter()
            .map(|cf| {
                let (mut s, mut t) = (0.0, 0.0);
                for &(i, own) in cf {
                    let x = flux[i as usize];
                    s += if own { x } else { -x };
                    t += x.abs();
                }
                if t > 0.0 {
                    s.abs() / t
                } else {
                    0.0
                }
            })
            .reduce(|| 0.0, f64::max))
    }
}

/// The part of face i's predicted flux that the cell velocity gives, A n . u_f: interpolated
/// inside, the owner's on outlets; None on the faces whose flux is given (inlets, walls,
/// symmetry planes), which the flux memory leaves alone.
fn face_velocity_flux(f: &Faces, i: usize, u: &[Vec<f64>; 3]) -> Option<f64> {
    let (n, area) = (f.normal[i], f.area[i]);
    let o = f.owner[i] as usize;
    let nb = f.neigh[i];
    let uf: [f64; 3] = if nb != u32::MAX {
        let (q, w) = (nb as usize, f.w[i]);
        std::array::from_fn(|k| w * u[k][o] + (1.0 - w) * u[k][q])
    } else if f.role[i] == Role::Outlet {
        std::array::from_fn(|k| u[k][o])
    } else {
        return None;
    };
    Some(area * (n[0] * uf[0] + n[1] * uf[1] + n[2] * uf[2]))
}

/// The Rhie-Chow flux of face i: A n . u_f + s a (d . grad(p)_f - (p_N - p_P)) inside, the
/// given flux on inlets, none through walls and symmetry planes, the owner's velocity (with
/// the same pressure term against the outlet pressure) on outlets; s = dt / rho.
fn predicted_face_flux(f: &Faces, i: usize, u: &[Vec<f64>; 3], p: &[f64], gp: &[[f64; 3]], s: f64) -> f64 {
    let (n, area, d) = (f.normal[i], f.area[i], f.d[i]);
    let o = f.owner[i] as usize;
    let nb = f.neigh[i];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    if nb != u32::MAX {
        let q = nb as usize;
        let w = f.w[i];
        let uf: [f64; 3] = std::array::from_fn(|k| w * u[k][o] + (1.0 - w) * u[k][q]);
        let gf: [f64; 3] = std::array::from_fn(|k| w * gp[o][k] + (1.0 - w) * gp[q][k]);
        return area * dot(n, uf) + s * f.a[i] * (dot(d, gf) - (p[q] - p[o]));
    }
    match f.role[i] {
        Role::Inlet => area * dot(n, f.ub[i]),
        Role::Outlet => {
            let uo = [u[0][o], u[1][o], u[2][o]];
            area * dot(n, uo) + s * f.a[i] * (dot(d, gp[o]) - (f.pb[i] - p[o]))
        }
        _ => 0.0,
    }
}

/// sum V |u|^2 / 2 / sum V over the cells, u(k, c) component k in cell c (sequential: the same
/// bits every run).
pub fn kinetic_energy(vol: &[f64], u: impl Fn(usize, usize) -> f64) -> f64 {
    let (mut e, mut v) = (0.0, 0.0);
    for (c, &vc) in vol.iter().enumerate() {
        let (a, b, d) = (u(0, c), u(1, c), u(2, c));
        e += vc * (a * a + b * b + d * d);
        v += vc;
    }
    0.5 * e / v
}
