//! The `[navier-stokes]` section of a case file: the fluid, the boundary conditions by patch
//! name, the initial state, steady or transient stepping, the linear solvers, the forces and
//! probes, and the reference values of a benchmark.

use crate::numerics::linalg::AmgSettings;
use crate::numerics::sl::quadratic::Bounds;
use crate::numerics::sl::{Interpolation, Scheme, Weighting};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NsSection {
    /// Boundary condition per patch name (patches not listed are no-slip walls).
    #[serde(default)]
    pub boundary: BTreeMap<String, Bc>,
    /// Density rho [1].
    #[serde(default = "one")]
    pub density: f64,
    /// Kinematic viscosity nu (m^2/s) [1e-3]; the dynamic viscosity is rho nu.
    #[serde(default = "milli")]
    pub viscosity: f64,
    /// "steady" [default]: pseudo-time steps until `steady` says converged (or the step
    /// budget is spent); "transient": time-accurate steps to the end time.
    #[serde(default)]
    pub mode: Mode,
    #[serde(default)]
    pub steady: SteadySettings,
    #[serde(default)]
    pub initial: Initial,
    /// The fraction theta of the forcing (viscosity and pressure gradient) taken at the
    /// arrival point, the rest at the departure point of the semi-Lagrangian step, in
    /// [0.5, 1] [steady 0.6, transient 0.5]: 1 is the paper's scheme, whose steady answer
    /// carries an O(dt) streamwise viscosity |u|^2 dt / 2; 0.5 the trapezoidal rule along the
    /// trajectory (second order in time, the transient default); slightly above 0.5 damps the
    /// modes 0.5 leaves undamped at the steady runs' large pseudo-steps, leaving 2 theta - 1 of
    /// the paper's O(dt) error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theta: Option<f64>,
    /// The weight beta in [0, 1] [0] of the semi-Lagrangian transport's error at zero
    /// displacement taken off the advected field: SL_dt(q) + beta (q - SL_0(q)), SL_0 the same
    /// transport with every departure point at its own centroid (one more transport a step).
    /// The quadratic vertex fits do not pass through the cell values, so SL_0 is not the
    /// identity: it smooths the velocity's grid-scale part by a fixed fraction every step,
    /// whatever the step; with the projection that took about 5e-4 of the Taylor-Green
    /// vortex's amplitude a step (-4.1 % at t = 1 in 80 steps on 24^2, -0.26 % with beta = 1).
    /// But that smoothing is also what holds the collocated projection's grid-scale modes:
    /// beta = 1 (and 0.75) diverges on DFG 2D-2, at theta 0.5 within 50 steps, at theta 1
    /// more slowly (VALIDATION.md). A diagnostic, off by default; both backends (it
    /// is written over their operations).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rest_correction: f64,
    /// What a time-accurate step's predicted face fluxes start from: "none" [default] the
    /// interpolated cell velocity, A n . u*_f with the Rhie-Chow term; "full" the previous
    /// step's divergence-free fluxes plus the interpolated change of the cell velocity,
    /// F^n + A n . (u* - u^n)_f (the transient correction of Choi 1999, OpenFOAM's ddtCorr, at
    /// full weight). With "none" the pressure correction also answers the interpolated
    /// divergence of u^n, which collocated cell velocities keep (their cell pressure gradient
    /// is not the face one): the incremental pressure's grid-scale modes then neither decay nor
    /// reach the velocity's projection, and they sum what every step feeds them. "full" takes
    /// that away: on the Taylor-Green vortex no loss per step and a second-order error at a
    /// fixed Courant number (24^2: 2.0e-3 at every dt against 1.1e-2 ... 4.5e-2); but F^n - u^n_f
    /// then sums the Rhie-Chow differences of every step's pressure, and on DFG 2D-2 the drag
    /// drifts up (Cd 3.18 -> 3.97 from t = 1 to 4 on the 26k slab) unless `flux_memory_time`
    /// relaxes it. Refused in steady runs (no fixed point). VALIDATION.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flux_memory: Option<FluxMemory>,
    /// With flux_memory = "full": the memory's relaxation time tau, its weight tau / (tau + dt)
    /// instead of 1 [none: 1], so that F^n - A n . (u^n)_f settles at tau + dt times the
    /// Rhie-Chow difference instead of summing it. A time scale of the flow: D / U behind a
    /// bluff body (the dfg-2d-2 template's 0.1 puts all four DFG 2D-2 quantities inside their
    /// intervals on the 72.5k slab; 0.2 D/U damps the lift, 10 D/U drifts), L / U for a
    /// vortex (the Taylor-Green vortex keeps order 1.77 / 1.87 at tau = L/U, 2.1 with no
    /// relaxation). VALIDATION.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flux_memory_time: Option<f64>,
    /// Running time averages and RMS of velocity and pressure (fields `velocity_mean`,
    /// `velocity_rms`, `pressure_mean`, `pressure_rms`) from time `start`, and the force
    /// signals' statistics over the same window (summary.json `signals`): `{ start = 5.0 }`.
    /// Without it a transient run's signals cover the second half of the run and no field
    /// averages are kept.
    #[serde(default)]
    pub statistics: Option<Statistics>,
    /// The mean wake's base pressure coefficient and recirculation length L / D (summary.json
    /// `wake`, from the running averages): `{ base = [x, y, z], reference = [x, y, z] }`, the
    /// base point just behind the body on its axis, the reference in the free stream (also
    /// `axis` [x], `search` in D [10], `points` [400]). Needs `statistics` and `forces` with
    /// `length` (U, D). See `cases::ns::wake`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake: Option<super::wake::WakeSection>,
    /// Large-eddy simulation's subgrid model: "none" [default], "smagorinsky" or "dynamic".
    /// Both add the divergence of the subgrid stress 2 nu_t S (S the strain rate of the cell
    /// velocity gradients) explicitly, from u^n, with the deferred viscous parts; the eddy
    /// viscosity nu_t is zero on walls, inlets and outlets (the subgrid stress vanishes at a
    /// no-slip wall, so the wall shear stays the molecular one; no van Driest damping) and
    /// mirrored on symmetry planes. "smagorinsky": nu_t = (Cs Delta)^2 |S|, |S| = sqrt(2 S:S)
    /// of the trace-free S, Delta = V^(1/3) per cell, Cs = `smagorinsky_constant`. "dynamic":
    /// Germano et al. (1991) with Lilly's (1992) least squares, nu_t = (C Delta^2) |S| with
    /// C Delta^2 = <L:M> / <M:M> >= 0 (clipped), L = <u u> - <u><u>, M = 2 (<|S| S> -
    /// alpha^2 |<S>| <S>); <.> the test filter, the volume-weighted mean over the cell and its
    /// face neighbours; alpha per cell from the mesh, the second-moment width of that union of
    /// cells over the cell's own (1.61 on Kuhn boxes); <L:M> and <M:M> averaged over the same
    /// stencil (there is no homogeneous direction to average over in general). Both backends;
    /// field `eddy_viscosity` and summary.json `les` (VALIDATION.md).
    #[serde(default, skip_serializing_if = "Les::is_none")]
    pub les: Les,
    /// The Smagorinsky constant Cs [0.17], with les = "smagorinsky": Lilly's (1967) value for
    /// isotropic turbulence with a sharp cut-off; wall-bounded flows take about 0.1 (Deardorff
    /// 1970's channel). At least 0.
    #[serde(default = "smagorinsky_constant", skip_serializing_if = "is_default_cs")]
    pub smagorinsky_constant: f64,
    /// The largest explicit diffusion number dt nu_t sum(a) / V a cell's eddy viscosity may
    /// reach [0.5, the explicit viscous limit]: above it nu_t is capped there. The subgrid
    /// stress is explicit, and an impulsive start's strain at the wall (|S| ~ U / the first
    /// cell) gives the dynamic model nu_t far beyond it for a few steps: the Re 3900 cylinder
    /// on a 2.0 M-tet mesh diverged at step 12 without the cap and ran with it (VALIDATION.md).
    /// Settled turbulence stays under it (0.11-0.41 measured), where the cap does
    /// nothing; summary.json `les.limited_cells` counts the cells at it at the last output.
    #[serde(default = "half", skip_serializing_if = "is_half")]
    pub les_diffusion_limit: f64,
    /// Viscous term: "implicit" [default, CG, unconditionally stable] or "explicit" (stable
    /// for nu dt sum(a_f) / V < 1/2 per cell: the CFL step is cut to that; a larger fixed
    /// `time.dt` diverges and the health check stops the run).
    #[serde(default)]
    pub viscous: Viscous,
    /// Non-orthogonal correction of the face-normal gradients: "over-relaxed" [default],
    /// "minimum" or "none".
    #[serde(default)]
    pub nonorthogonal: NonOrthogonal,
    /// Extra pressure solves per step that update the deferred non-orthogonal correction [1].
    #[serde(default = "one_u")]
    pub nonorth_correctors: usize,
    /// Advection of the velocity components: "bfecc" [default] or "sl1".
    #[serde(default)]
    pub scheme: Scheme,
    /// Interpolation of the semi-Lagrangian step: "quadratic" [default] or "voronoi".
    #[serde(default)]
    pub interpolation: Interpolation,
    /// The range the quadratic interpolation and BFECC's limiter clamp to: "blended" [default],
    /// the four vertex stencils' ranges blended by the departure point's barycentric weights,
    /// continuous in the point, so that a steady run's iteration converges; "union", their
    /// union (the advection family's), which jumps where a departure point crosses a face and
    /// on the DFG 3D-1Z meshes kept the velocity change from falling below ~1e-5; or "none"
    /// (no clamp at all: for smooth flows, where clipping the extrema every step damps them).
    #[serde(default = "blended")]
    pub bounds: Bounds,
    /// How the quadratic's fits weigh their stencil points: "wide" [default] (1/|r|^2 over at
    /// least 30 points) or "local" (1/|r|^8 over at least 40, the advection family's default).
    #[serde(default = "wide")]
    pub fit: Weighting,
    /// The face gradients of the viscous term: "cells" [default] interpolates the cells'
    /// least-squares gradients to the face for the deferred non-orthogonal part and takes the
    /// two-point difference (u_wall - u_P) / d on walls (first order there); "fits" takes the
    /// gradient at the face centre from the quadratic fits of the face's three vertices (exact
    /// for quadratic velocities) for that part and for the whole wall flux; "fits-full" takes
    /// the fits' whole flux on every face, interior too (the two-point part implicit, the rest
    /// deferred: the only choice whose Laplacian is consistent cell by cell on skewed
    /// tetrahedra, where the two-point difference between centroids is not taken at the face
    /// centre; for time-accurate runs: with a strong viscosity, nu dt / h^2 >> 1, the deferred
    /// part no longer converges, e.g. steady Poiseuille at nu = 10 stalls); "wall-fits" takes
    /// the fits' gradient for the wall flux only and the cells' elsewhere (as exact on plane
    /// Poiseuille, and steady on the DFG meshes where "fits" ends in a two-step cycle). Both
    /// backends.
    #[serde(default)]
    pub face_gradients: FaceGradients,
    #[serde(default = "walk_steps")]
    pub max_walk: u32,
    #[serde(default = "pressure_cg")]
    pub pressure_solver: Solver,
    #[serde(default = "momentum_cg")]
    pub momentum_solver: Solver,
    /// Fix the pressure in the cell nearest this point to 0 (meshes without a pressure outlet).
    #[serde(default)]
    pub pressure_reference: Option<[f64; 3]>,
    #[serde(default)]
    pub forces: Option<Forces>,
    /// Pressure difference p(a) - p(b) between two points (summary.json `dp`).
    #[serde(default)]
    pub dp_probes: Option<[[f64; 3]; 2]>,
    /// Reference values of cd, cl and dp (and, for a transient run, cd_max, cl_max, cd_mean
    /// and st): summary.json `errors` gives our relative errors.
    #[serde(default)]
    pub reference: BTreeMap<String, f64>,
    /// Reference intervals of the same quantities, e.g. a benchmark's bounds: summary.json
    /// `bounds` says for each whether ours lies inside, and by how much it misses.
    #[serde(default)]
    pub reference_bounds: BTreeMap<String, [f64; 2]>,
    /// Print the residuals every this many steps [10] (and the first and last).
    #[serde(default = "ten")]
    pub log_every: u64,
}

/// A boundary condition.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Bc {
    /// No-slip wall (u = 0, zero normal pressure gradient).
    Wall,
    /// Velocity inlet: `velocity = [u, v, w]` (uniform) or `profile = "parabolic"` with
    /// `u_max`: u_max times the product of 4 s (1 - s) over the patch's extent across the
    /// flow (the axes `across`, default both axes other than the patch normal), along the
    /// inward normal (the DFG channel's profile).
    Inlet {
        #[serde(default)]
        velocity: Option<[f64; 3]>,
        #[serde(default)]
        profile: Option<Profile>,
        #[serde(default)]
        u_max: Option<f64>,
        #[serde(default)]
        across: Option<String>,
    },
    /// Pressure outlet: p = `pressure` [0], zero velocity gradient.
    Outlet {
        #[serde(default)]
        pressure: f64,
    },
    /// Symmetry plane: no flux, zero gradient of the velocity and the pressure.
    Symmetry,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    Parabolic,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    #[default]
    Steady,
    Transient,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Viscous {
    #[default]
    Implicit,
    Explicit,
}

/// The subgrid model (`NsSection::les`); read from a string so that a wrong value's message
/// names the key and the choices.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case", try_from = "String")]
pub enum Les {
    #[default]
    None,
    Smagorinsky,
    Dynamic,
}

impl TryFrom<String> for Les {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.as_str() {
            "none" => Ok(Les::None),
            "smagorinsky" => Ok(Les::Smagorinsky),
            "dynamic" => Ok(Les::Dynamic),
            _ => Err(format!("les = \"{s}\": unknown; give \"none\", \"smagorinsky\" or \"dynamic\"")),
        }
    }
}

impl Les {
    pub fn is_none(&self) -> bool {
        *self == Les::None
    }

    /// The name as the case file spells it.
    pub fn name(self) -> &'static str {
        match self {
            Les::None => "none",
            Les::Smagorinsky => "smagorinsky",
            Les::Dynamic => "dynamic",
        }
    }
}

/// What the predicted face fluxes start from (`NsSection::flux_memory`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FluxMemory {
    None,
    Full,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FaceGradients {
    #[default]
    Cells,
    Fits,
    WallFits,
    FitsFull,
}

/// The wall shear of the viscous force (`forces.wall_shear`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WallShear {
    Distance,
    Fits,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum NonOrthogonal {
    #[default]
    OverRelaxed,
    Minimum,
    None,
}

/// When a steady run has converged: the relative change of the velocity per step,
/// |u^(n+1) - u^n|_2 / |u^(n+1)|_2, and that of the force on the `forces` patch,
/// |F^(n+1) - F^n| / |F^(n+1)|, both at or below their tolerance for `window` steps in a row.
/// A run whose velocity change stops falling above its tolerance (a floor of the discrete
/// iteration) while the force is steady to `force_tol` stops after `stall_window` steps of it,
/// saying so (summary.json `stalled_at_step`, `stop_reason`; `converged_at_step` stays null),
/// instead of running to its step cap.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SteadySettings {
    #[serde(default = "velocity_tol")]
    pub velocity_tol: f64,
    #[serde(default = "force_tol")]
    pub force_tol: f64,
    #[serde(default = "window")]
    pub window: u64,
    /// Steps the floor must last [200]: the smallest velocity change of its last half no less
    /// than half that of its first half, the force steady over the last half. 0: never stop so.
    #[serde(default = "stall_window")]
    pub stall_window: u64,
}

impl NsSection {
    /// theta as set, else the mode's default: 0.6 steady (damping at large pseudo-steps), 0.5
    /// transient (second order in time).
    pub fn theta(&self) -> f64 {
        self.theta.unwrap_or(match self.mode {
            Mode::Steady => 0.6,
            Mode::Transient => 0.5,
        })
    }

    /// flux_memory as set, else "none".
    pub fn flux_memory(&self) -> FluxMemory {
        self.flux_memory.unwrap_or(FluxMemory::None)
    }
}

impl Default for SteadySettings {
    fn default() -> Self {
        SteadySettings {
            velocity_tol: velocity_tol(),
            force_tol: force_tol(),
            window: window(),
            stall_window: stall_window(),
        }
    }
}

/// When the running statistics start (`NsSection::statistics`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Statistics {
    pub start: f64,
}

/// The initial state.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Initial {
    /// u = 0, p = 0 [default].
    #[default]
    Rest,
    /// The Taylor-Green vortex in the (x, y) plane: u = U sin(x/L) cos(y/L), v = -U cos(x/L)
    /// sin(y/L), w = 0, with p = rho U^2 / 4 (cos(2x/L) + cos(2y/L)). An exact solution that
    /// decays as exp(-2 nu t / L^2) (the pressure as its square): on [0, pi L]^2 with symmetry
    /// planes all round (slip walls, no flux) it is one cell of the periodic vortex array.
    TaylorGreen { velocity: f64, length: f64 },
    /// The 3D Taylor-Green vortex: u = U sin(x/L) cos(y/L) cos(z/L), v = -U cos(x/L) sin(y/L)
    /// cos(z/L), w = 0, p = rho U^2 / 16 (cos(2x/L) + cos(2y/L)) (cos(2z/L) + 2) (Brachet et al.
    /// 1983; the International Workshop on High-Order CFD Methods' case C3.5 at Re = U L / nu =
    /// 1600). The planes x, y, z = 0 and pi L are planes of mirror symmetry of the flow at all
    /// times, so the octant [0, pi L]^3 with symmetry planes all round is exact for it.
    #[serde(rename = "taylor-green-3d")]
    TaylorGreen3d { velocity: f64, length: f64 },
    /// A uniform velocity (p = 0): on a fully periodic box an exact steady solution, which the
    /// periodic faces must keep to round-off (the periodic tests of `tests/ns.rs`).
    Uniform { velocity: [f64; 3] },
    /// The `velocity` cell field of a previous run's output on the same .pmesh (a .vtu, or a
    /// .pvd for its latest file); the pressure starts at 0 and is rebuilt by the first steps.
    File { file: String },
}

/// A preconditioned CG: relative tolerance, iteration cap, the relative residual beyond which
/// a capped solve stops the run (below it, a warning), and the preconditioner.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Solver {
    pub tolerance: f64,
    pub max_iter: usize,
    #[serde(default = "fail_residual")]
    pub fail_residual: f64,
    /// pressure_solver: "amg" [default], smoothed-aggregation algebraic multigrid
    /// (`numerics::linalg::amg`, settings in `amg`): its hierarchy is built once per mesh and
    /// a V-cycle preconditions each iteration, 14-22 iterations to 1e-8 from 3k to 10 M cells
    /// (BENCHMARKS.md); "jacobi"; or "chebyshev", Chebyshev-Jacobi, a fixed polynomial of
    /// degree `degree` in D^-1 A (`numerics::linalg::chebyshev`). momentum_solver: "jacobi"
    /// (its only choice and default: V/dt + nu K is diagonally dominant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preconditioner: Option<Preconditioner>,
    /// The Chebyshev polynomial's degree [4], at least 1 (1 is Jacobi scaled); chebyshev only.
    #[serde(default = "four")]
    pub degree: usize,
    /// The AMG hierarchy and cycle (amg only): `{ smoother_steps = 2, strength = 0.0,
    /// max_coarse = 400, eig_ratio = 10, precision = "mixed" }` and the rest of
    /// `numerics::linalg::AmgSettings`; "mixed" runs the device's V-cycles in f32 inside the
    /// f64 CG, "f64" in f64 (the CPU always cycles in f64).
    #[serde(default)]
    pub amg: AmgSettings,
}

/// Read from a string so that a wrong value's message names the key (serde's own names only
/// the variants).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case", try_from = "String")]
pub enum Preconditioner {
    Jacobi,
    Chebyshev,
    Amg,
}

impl TryFrom<String> for Preconditioner {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.as_str() {
            "jacobi" => Ok(Preconditioner::Jacobi),
            "chebyshev" => Ok(Preconditioner::Chebyshev),
            "amg" => Ok(Preconditioner::Amg),
            _ => Err(format!(
                "preconditioner = \"{s}\": unknown; give \"amg\", \"jacobi\" or \"chebyshev\""
            )),
        }
    }
}

/// The force on a patch and its coefficients 2 F / (rho U^2 A) along `drag` and `lift`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Forces {
    pub patch: String,
    /// Reference velocity U and area A of the coefficients.
    pub velocity: f64,
    pub area: f64,
    #[serde(default = "x_axis")]
    pub drag: [f64; 3],
    #[serde(default = "y_axis")]
    pub lift: [f64; 3],
    /// The reference length D of the Strouhal number St = f D / U (summary.json `signals.st`;
    /// without it the shedding frequency is reported alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
    /// The wall shear of the viscous part: "distance" (the wall cell's tangential velocity over
    /// its wall distance, first order in that distance: OpenFOAM's snGrad) or "fits" (the
    /// face gradients of the vertex quadratic fits, second order; with face_gradients = "fits"
    /// the very wall flux the momentum equation applies). Default: "fits" with face_gradients
    /// = "fits", else "distance".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_shear: Option<WallShear>,
}

fn smagorinsky_constant() -> f64 {
    0.17
}
fn is_default_cs(x: &f64) -> bool {
    *x == smagorinsky_constant()
}
fn half() -> f64 {
    0.5
}
fn is_half(x: &f64) -> bool {
    *x == 0.5
}
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
fn blended() -> Bounds {
    Bounds::Blended
}
fn wide() -> Weighting {
    Weighting::Wide
}
fn one() -> f64 {
    1.0
}
fn one_u() -> usize {
    1
}
fn milli() -> f64 {
    1e-3
}
fn four() -> usize {
    4
}
fn ten() -> u64 {
    10
}
fn walk_steps() -> u32 {
    200
}
fn velocity_tol() -> f64 {
    1e-5
}
fn force_tol() -> f64 {
    1e-5
}
fn window() -> u64 {
    5
}
fn stall_window() -> u64 {
    200
}
fn fail_residual() -> f64 {
    1e-2
}
fn x_axis() -> [f64; 3] {
    [1.0, 0.0, 0.0]
}
fn y_axis() -> [f64; 3] {
    [0.0, 1.0, 0.0]
}
fn pressure_cg() -> Solver {
    Solver {
        tolerance: 1e-8,
        max_iter: 2000,
        fail_residual: fail_residual(),
        preconditioner: Some(Preconditioner::Amg),
        degree: four(),
        amg: AmgSettings::default(),
    }
}
fn momentum_cg() -> Solver {
    Solver {
        tolerance: 1e-8,
        max_iter: 500,
        fail_residual: fail_residual(),
        preconditioner: Some(Preconditioner::Jacobi),
        degree: four(),
        amg: AmgSettings::default(),
    }
}
