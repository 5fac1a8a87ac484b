//! The fractional step, written once over the operations a backend provides (`NsOps`; the CPU
//! in `cpu.rs`, CUDA in `cuda.rs`): Evstigneev's section V with an incremental pressure
//! correction on collocated cell-centred unknowns.
//!
//! 1. Advection: u^a = SL-BFECC(q) per component, departure points traced once along u^n
//!    (its least-squares Jacobian for the second-order departure formula), with
//!    q = u^n + (1 - theta) dt F(u^n, p^n), F = nu lap(u) - grad(p) / rho: that share of the
//!    forcing is taken at the departure point (theta = 1: q = u^n, the paper's scheme).
//!    With `rest_correction` = beta > 0 plus beta (q - SL_0(q)), SL_0 the transport over a
//!    step of zero length: the quadratic fits do not reproduce the cell values at the
//!    centroids, so SL_0 smooths the grid-scale part of q by a fixed fraction a step, which
//!    through the projection took a fixed fraction of the Taylor-Green vortex every step (the
//!    loss grew as dt fell; VALIDATION.md). That smoothing is also what keeps the
//!    collocated projection's grid-scale modes down: beta = 1 diverges on DFG 2D-2.
//! 2. Predictor: (V/s + nu K) u* = V u^a / s - V grad(p^n) / rho (+ boundary and deferred
//!    non-orthogonal terms) with s = theta dt; implicit by CG (or explicit). Steps 3-5 take
//!    the same s for dt.
//! 3. Face fluxes of u* by linear interpolation with the Rhie-Chow term
//!    (dt/rho) a [d . grad(p^n)_f - (p^n_N - p^n_P)]; with `flux_memory` (time-accurate runs
//!    only) plus F^n - A n . (u^n)_f, so that they are the previous divergence-free fluxes plus
//!    the interpolated change (Choi's transient correction at full weight).
//! 4. Pressure correction: sum_f D_f(p') = (rho/dt) sum_f F*_f with D_f the two-point
//!    gradient plus its deferred non-orthogonal part (re-solved `nonorth_correctors` times).
//! 5. Projection: F = F* - (dt/rho) D_f(p') with the same D_f (so sum_f F = 0 per cell to the
//!    CG tolerance), u = u* - (dt/rho) grad(p'), p = p^n + p' (steady runs) or, in a
//!    time-accurate run, p = p^n + theta p': the pressure whose gradient over the whole step
//!    is the step's impulse, its mid-step value (no two-step mode; see `step`).
//!
//! At a steady state p' = 0. With theta = 1 the steady balance is u - u(X) = dt F(x): the
//! forcing at the arrival point stands for its mean along the trajectory, an O(dt) error that
//! acts as a streamwise viscosity |u|^2 dt / 2 (on the DFG 3D-1Z meshes Cd rose 1.8 % per unit
//! of cfl). With theta it is u - u(X) = dt ((1 - theta) F(X) + theta F(x)): 0.5 is the
//! trapezoidal rule along the trajectory (second order; the two-time-level scheme of weather
//! models), and above it the O(dt) error is (2 theta - 1) times the paper's. Off-centring
//! damps what 0.5 leaves undamped: on a Kuhn box at 2e4 times the explicit viscous limit
//! theta = 0.55 blew up, 0.6 did not (`tests/ns.rs`), hence the default 0.6. q keeps u's
//! boundary values: F = 0 on a no-slip wall (the wall's momentum balance) and on a fully
//! developed inlet.

use super::faces::Role;
use crate::error::Result;
use crate::numerics::linalg::CgReport;
use crate::numerics::sl::Span;

/// Which boundary values a cell gradient sees: a velocity component (given on walls and
/// inlets), the pressure (given on outlets) or the pressure correction (zero on outlets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Var {
    U(usize),
    P,
    Correction,
}

impl Var {
    /// Whether the variable is given (Dirichlet) on a face of this role.
    pub fn fixed_on(self, role: Role) -> bool {
        match self {
            Var::U(_) => role.fixed_velocity(),
            Var::P | Var::Correction => role == Role::Outlet,
        }
    }
}

/// The flux memory's weight c, the previous fluxes F^n and the velocity u^n
/// (`NsOps::predicted_flux`).
pub type MemoryArgs<'a, F, C> = Option<(f64, &'a F, &'a [C; 3])>;

/// What a backend provides. `Cells` is a cell scalar field where the backend keeps it,
/// `Vectors` a cell 3-vector field (gradients), `Faces` a face scalar field (fluxes).
pub trait NsOps {
    type Cells;
    type Vectors;
    type Faces;
    /// A list of cell indices where the backend keeps it (`gather`'s).
    type Index;
    fn upload(&mut self, host: &[f64]) -> Result<Self::Cells>;
    fn download(&mut self, x: &Self::Cells) -> Result<Vec<f64>>;
    fn upload_faces(&mut self, host: &[f64]) -> Result<Self::Faces>;
    fn download_faces(&mut self, x: &Self::Faces) -> Result<Vec<f64>>;
    fn upload_index(&mut self, cells: &[u32]) -> Result<Self::Index>;
    /// The values of each of `fields` at the cells `idx`, field after field: what the
    /// per-step measurement reads, instead of downloading whole fields.
    fn gather(&mut self, fields: &[&Self::Cells], idx: &Self::Index) -> Result<Vec<f64>>;
    fn copy(&mut self, x: &Self::Cells) -> Result<Self::Cells>;
    fn zeros(&mut self) -> Result<Self::Cells>;
    /// a x + b y.
    fn axpby(&mut self, a: f64, x: &Self::Cells, b: f64, y: &Self::Cells) -> Result<Self::Cells>;
    /// The running sums of a field: sum += w x, squares += w x^2.
    fn accumulate(&mut self, w: f64, x: &Self::Cells, sum: &mut Self::Cells, squares: &mut Self::Cells) -> Result<()>;
    /// Least-squares cell gradient with the variable's boundary values.
    fn gradient(&mut self, phi: &Self::Cells, var: Var) -> Result<Self::Vectors>;
    /// The symmetry planes' normal velocity u_P . n from u (`FaceValues::refresh`), for the
    /// step's velocity gradients and viscous fluxes; nothing without symmetry faces.
    fn symmetry(&mut self, u: &[Self::Cells; 3]) -> Result<()>;
    /// Semi-Lagrangian transport of the three fields q along the velocity u (gradients gu).
    fn advect(
        &mut self,
        span: Span,
        u: &[Self::Cells; 3],
        gu: &[Self::Vectors; 3],
        q: &[Self::Cells; 3],
    ) -> Result<[Self::Cells; 3]>;
    /// The eddy viscosity nu_t per cell of u with gradients gu (`les::eddy_viscosity`, the
    /// backend's model and tables; symmetry planes from the last `symmetry` call).
    fn eddy_viscosity(&mut self, u: &[Self::Cells; 3], gu: &[Self::Vectors; 3], dt: f64) -> Result<Self::Cells>;
    /// The subgrid stress's face fluxes of each component (`les::sgs_flux`).
    fn sgs_flux(&mut self, u: &[Self::Cells; 3], gu: &[Self::Vectors; 3], nut: &Self::Cells) -> Result<[Self::Faces; 3]>;
    /// The volume-averaged kinetic energy sum V |u|^2 / 2 / sum V.
    fn kinetic_energy(&mut self, u: &[Self::Cells; 3]) -> Result<f64>;
    /// The explicit update of component k: u^a_k + dt (nu lap(u^n_k) - grad(p^n)_k / rho)
    /// (the explicit predictor, whatever the viscous setting).
    fn forcing(&mut self, p: Predict<'_, Self>) -> Result<Self::Cells>;
    /// Component k of the predictor into x (which holds u^n_k as the initial guess).
    fn predict(&mut self, p: Predict<'_, Self>, x: &mut Self::Cells) -> Result<CgReport>;
    /// Rhie-Chow face fluxes of u*; with `memory` = (c, F^n, u^n) plus c (F^n - A n . (u^n)_f)
    /// (the previous fluxes and the interpolated cell velocity they came from,
    /// `Stepping::flux_memory`).
    fn predicted_flux(
        &mut self,
        dt: f64,
        u: &[Self::Cells; 3],
        p: &Self::Cells,
        gp: &Self::Vectors,
        memory: MemoryArgs<'_, Self::Faces, Self::Cells>,
    ) -> Result<Self::Faces>;
    /// Solves for the pressure correction (initial guess in pc), the deferred part from gc.
    fn solve_correction(
        &mut self,
        dt: f64,
        flux: &Self::Faces,
        gc: Option<&Self::Vectors>,
        pc: &mut Self::Cells,
    ) -> Result<CgReport>;
    /// F -= dt/rho D_f(p') with the deferred part from gc (the one the last solve used).
    fn correct_flux(&mut self, dt: f64, flux: &mut Self::Faces, pc: &Self::Cells, gc: Option<&Self::Vectors>) -> Result<()>;
    /// u -= dt/rho grad(p'), p += p'.
    fn correct_cells(
        &mut self,
        dt: f64,
        u: &mut [Self::Cells; 3],
        p: &mut Self::Cells,
        pc: &Self::Cells,
        gc: &Self::Vectors,
    ) -> Result<()>;
    /// (sum |a - b|^2, sum |a|^2) over the three components.
    fn change(&mut self, a: &[Self::Cells; 3], b: &[Self::Cells; 3]) -> Result<(f64, f64)>;
    /// max over cells of |sum_f F| / (sum_f |F|) (0 where no flux passes).
    fn divergence(&mut self, flux: &Self::Faces) -> Result<f64>;
    /// What the linear solves have done so far (benchmark rows).
    fn solve_stats(&self) -> SolveStats {
        SolveStats::default()
    }
    /// Wait for the queued work (benchmark timing).
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The linear solves' work so far: CG iterations, their seconds (queued work before a solve
/// excluded) and the bytes they moved at the least (the solver's traffic model).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveStats {
    pub solves: u64,
    pub iterations: u64,
    pub seconds: f64,
    pub bytes: f64,
}

impl SolveStats {
    /// One more solve of `iterations` taking `seconds`, at `bytes_per_iteration`.
    pub fn add(&mut self, iterations: usize, seconds: f64, bytes_per_iteration: f64) {
        self.solves += 1;
        self.iterations += iterations as u64;
        self.seconds += seconds;
        self.bytes += iterations as f64 * bytes_per_iteration;
    }
}

/// The inputs of one component's predictor.
pub struct Predict<'a, O: NsOps + ?Sized> {
    pub k: usize,
    pub dt: f64,
    /// The advected component u^a_k.
    pub ua: &'a O::Cells,
    /// grad(p^n), and grad(u^n_k) for the deferred non-orthogonal viscous part.
    pub gp: &'a O::Vectors,
    pub gu: &'a O::Vectors,
    /// u^n_k (explicit viscosity).
    pub un: &'a O::Cells,
    /// The subgrid stress's face fluxes of component k (`les`), added to the viscous sources.
    pub sgs: Option<&'a O::Faces>,
}

/// The state: velocity components, pressure, face fluxes; in a transient run also the previous
/// step's velocity, from which the departure points take the velocity at the half step.
pub struct State<O: NsOps> {
    pub u: [O::Cells; 3],
    pub p: O::Cells,
    pub flux: O::Faces,
    pub u_prev: Option<[O::Cells; 3]>,
}

/// What a step's linear solves did.
#[derive(Clone, Debug, Default)]
pub struct StepReport {
    pub momentum: Vec<CgReport>,
    pub pressure: Vec<CgReport>,
    /// (sum |u^(n+1) - u^n|^2, sum |u^(n+1)|^2).
    pub change: (f64, f64),
}

/// How a step is taken: the non-orthogonal correctors, theta, and whether it is one step of a
/// time-accurate run (the departure points then follow the velocity extrapolated to the half
/// step, 3/2 u^n - 1/2 u^(n-1), and u^n is kept for the next step).
#[derive(Clone, Copy, Debug)]
pub struct Stepping {
    pub nonorth: usize,
    pub theta: f64,
    pub transient: bool,
    /// The weight beta of the transport's error at zero displacement taken off the advected
    /// field (`NsSection::rest_correction`): u^a = SL_dt(q) + beta (q - SL_0(q)); 0: none.
    pub rest_correction: f64,
    /// The predicted fluxes start from the previous step's divergence-free fluxes:
    /// F* = F^n + A n . (u* - u^n)_f + Rhie-Chow, from the second step of a time-accurate run
    /// on (the first has no F^n). The pressure then answers the step's change alone; without
    /// it, it also answers the interpolated divergence of u^n, which collocated cell velocities
    /// always have (their cell pressure gradient is not the face one). F^n - (u^n)_f then sums
    /// every step's Rhie-Chow difference: it drifts (`NsSection::flux_memory`). Some(tau): the
    /// memory's weight is tau / (tau + dt) (1 for an infinite tau), which bounds the drift.
    pub flux_memory: Option<f64>,
    /// The subgrid stress of the backend's LES model is added (`NsSection::les`).
    pub les: bool,
}

/// The velocity at the half step and its gradients.
type HalfStep<O> = ([<O as NsOps>::Cells; 3], [<O as NsOps>::Vectors; 3]);

/// The velocity the departure points follow over a step, and its gradients: u^n (steady runs,
/// and the first step), or u^(n+1/2) = 3/2 u^n - 1/2 u^(n-1) (second order in time).
fn departure_velocity<O: NsOps>(ops: &mut O, st: &State<O>) -> Result<Option<HalfStep<O>>> {
    let Some(prev) = &st.u_prev else {
        return Ok(None);
    };
    let half = [
        ops.axpby(1.5, &st.u[0], -0.5, &prev[0])?,
        ops.axpby(1.5, &st.u[1], -0.5, &prev[1])?,
        ops.axpby(1.5, &st.u[2], -0.5, &prev[2])?,
    ];
    let grads = [
        ops.gradient(&half[0], Var::U(0))?,
        ops.gradient(&half[1], Var::U(1))?,
        ops.gradient(&half[2], Var::U(2))?,
    ];
    Ok(Some((half, grads)))
}

/// `q` carried along the velocity `uv` (its gradients `gv`) over `span`, plus `rest` times the
/// transport's own error where nothing moves (`rest_correction`): q less its transport over
/// dt = 0 (departure points at the centroids).
fn transport<O: NsOps>(
    ops: &mut O,
    span: Span,
    (uv, gv): (&[O::Cells; 3], &[O::Vectors; 3]),
    q: &[O::Cells; 3],
    rest: f64,
) -> Result<[O::Cells; 3]> {
    let mut ua = ops.advect(span, uv, gv, q)?;
    if rest > 0.0 {
        let still = ops.advect(Span { dt: 0.0, ..span }, uv, gv, q)?;
        for k in 0..3 {
            let defect = ops.axpby(1.0, &q[k], -1.0, &still[k])?;
            ua[k] = ops.axpby(1.0, &ua[k], rest, &defect)?;
        }
    }
    Ok(ua)
}

/// The subgrid stress's face fluxes of u^n (gradients gu): explicit, like the deferred viscous
/// parts, and split with them by theta. Its diffusion number nu_t dt / Delta^2 is Cs^2 |S| dt,
/// Cs^2 = 0.03 times about the Courant number of the grid-scale motions (summary.json
/// `les.max_diffusion_number` reports the cells' worst of dt nu_t sum(a) / V: 0.11-0.24 on the
/// Taylor-Green octant at Courant 0.25-0.5, 0.20-0.41 behind the cylinder); an impulsive start
/// drives it far higher at the wall for a few steps, so nu_t is capped at
/// `les_diffusion_limit`. Implicit, it would change the momentum matrices every step, which are
/// built once with their preconditioners.
fn subgrid<O: NsOps>(ops: &mut O, u: &[O::Cells; 3], gu: &[O::Vectors; 3], dt: f64) -> Result<[O::Faces; 3]> {
    let nut = ops.eddy_viscosity(u, gu, dt)?;
    ops.sgs_flux(u, gu, &nut)
}

/// One step of the fractional-step scheme from `st` over `span`.
pub fn step<O: NsOps>(ops: &mut O, st: &mut State<O>, span: Span, how: Stepping) -> Result<StepReport> {
    let theta = how.theta;
    // The symmetry planes' normal velocity, for the step's velocity gradients and viscous fluxes.
    ops.symmetry(&st.u)?;
    let gu = [
        ops.gradient(&st.u[0], Var::U(0))?,
        ops.gradient(&st.u[1], Var::U(1))?,
        ops.gradient(&st.u[2], Var::U(2))?,
    ];
    let gp = ops.gradient(&st.p, Var::P)?;
    let sgs = if how.les { Some(subgrid(ops, &st.u, &gu, span.dt)?) } else { None };
    let half = if how.transient { departure_velocity(ops, st)? } else { None };
    let (uv, gv) = match &half {
        Some((u, g)) => (u, g),
        None => (&st.u, &gu),
    };
    let q = if theta == 1.0 {
        None
    } else {
        let departure_part = (1.0 - theta) * span.dt;
        let mut forcing = |k: usize| {
            ops.forcing(Predict {
                k,
                dt: departure_part,
                ua: &st.u[k],
                gp: &gp,
                gu: &gu[k],
                un: &st.u[k],
                sgs: sgs.as_ref().map(|f| &f[k]),
            })
        };
        Some([forcing(0)?, forcing(1)?, forcing(2)?])
    };
    let q = q.as_ref().unwrap_or(&st.u);
    let ua = transport(ops, span, (uv, gv), q, how.rest_correction)?;
    // The arrival point's share: predictor, Rhie-Chow and projection all take theta dt.
    let dt = theta * span.dt;
    let mut us = [ops.copy(&st.u[0])?, ops.copy(&st.u[1])?, ops.copy(&st.u[2])?];
    let mut report = StepReport::default();
    for k in 0..3 {
        let p = Predict {
            k,
            dt,
            ua: &ua[k],
            gp: &gp,
            gu: &gu[k],
            un: &st.u[k],
            sgs: sgs.as_ref().map(|f| &f[k]),
        };
        report.momentum.push(ops.predict(p, &mut us[k])?);
    }
    let flux = project(ops, st, &mut us, &gp, span, how, &mut report)?;
    report.change = ops.change(&us, &st.u)?;
    let un = std::mem::replace(&mut st.u, us);
    if how.transient {
        st.u_prev = Some(un);
    }
    st.flux = flux;
    Ok(report)
}

/// Steps 3-5: the predicted face fluxes of u*, the pressure correction, and the projection of
/// u* (in place) and of the fluxes (returned); st.p advanced by the correction.
fn project<O: NsOps>(
    ops: &mut O,
    st: &mut State<O>,
    us: &mut [O::Cells; 3],
    gp: &O::Vectors,
    span: Span,
    how: Stepping,
    report: &mut StepReport,
) -> Result<O::Faces> {
    let (nonorth, theta) = (how.nonorth, how.theta);
    let dt = theta * span.dt;
    let memory = match (&st.u_prev, how.flux_memory) {
        (Some(_), Some(tau)) => {
            let c = if tau.is_finite() { tau / (tau + span.dt) } else { 1.0 };
            Some((c, &st.flux, &st.u))
        }
        _ => None,
    };
    let mut flux = ops.predicted_flux(dt, us, &st.p, gp, memory)?;
    let mut pc = ops.zeros()?;
    let mut gc = None;
    for pass in 0..=nonorth {
        report.pressure.push(ops.solve_correction(dt, &flux, gc.as_ref(), &mut pc)?);
        if pass < nonorth {
            gc = Some(ops.gradient(&pc, Var::Correction)?);
        }
    }
    ops.correct_flux(dt, &mut flux, &pc, gc.as_ref())?;
    let gcell = ops.gradient(&pc, Var::Correction)?;
    ops.correct_cells(dt, us, &mut st.p, &pc, &gcell)?;
    if how.transient && theta < 1.0 {
        // The step's pressure impulse is (1 - theta) dt grad(p^n) at the departure point plus
        // theta dt grad(p^n + p') at the arrival: the pressure the step needed is
        // p^n + theta p', its mid-step value. Keeping p^n + p' instead makes the next
        // pressure -(1 - theta) / theta times the last plus a source: at theta = 0.5 an
        // undamped two-step mode, which only the departure interpolation's smoothing held
        // down (a 2 dt wobble in the forces on a fine Re 3900 mesh, VALIDATION.md).
        st.p = ops.axpby(1.0, &st.p, theta - 1.0, &pc)?;
    }
    Ok(flux)
}
