//! CUDA C kernel sources (`kernels/cuda/*.cu`, `*.cuh`), embedded in the binary, and their
//! compilation by NVRTC at run time for the device's own architecture, with `-DREAL=float`
//! or `double`. Compiled modules are cached on disk between runs, keyed by a checksum of the
//! resolved source and the options: the PTX, and the CUBIN for the device's architecture
//! (keyed also by the driver version), which the driver loads without NVRTC or JIT.
//!
//! Each `.cu` file is a [`Module`], compiled by itself into one PTX module. Headers (`*.cuh`)
//! are embedded too and resolved by a tiny preprocessor of this crate (see [`source`]), not by
//! NVRTC's include search: the binary needs no files at run time, and the cache key covers
//! every header a module uses. The kernel functions the host may load are typed constants,
//! one submodule per module ([`reduce`], [`grid`], [`sl`], [`heat`], [`advect`], [`euler`], [`swe`], [`cg`], [`amg`], [`ns`]); a test checks them against the
//! `.entry` points of the compiled PTX both ways, so a misspelt or missing kernel fails in CI
//! (which has NVRTC but no GPU) rather than at load time on a device.

use cudarc::nvrtc::Ptx;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Every header of kernels/cuda/, by the name that `#include "NAME"` gives it.
const HEADERS: &[(&str, &str)] = &[
    ("common.cuh", include_str!("../cuda/common.cuh")),
    ("reduce.cuh", include_str!("../cuda/reduce.cuh")),
    ("grid.cuh", include_str!("../cuda/grid.cuh")),
    ("clock.cuh", include_str!("../cuda/clock.cuh")),
    ("tet.cuh", include_str!("../cuda/tet.cuh")),
    ("riemann.cuh", include_str!("../cuda/riemann.cuh")),
    ("hll.cuh", include_str!("../cuda/hll.cuh")),
    ("krylov.cuh", include_str!("../cuda/krylov.cuh")),
];

/// A kernel module: one `.cu` file of kernels/cuda/, compiled by itself into one PTX module
/// (what the driver loads at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Module {
    /// Reductions and copies shared by every case (`reduce.cu`).
    Reduce,
    /// The structured-grid layer shared by the structured families: halo fill (`grid.cu`).
    Grid,
    /// The structured-grid heat equation (`heat.cu`).
    Heat,
    /// The semi-Lagrangian pieces shared by the families on tetrahedra (`sl.cu`).
    Sl,
    /// Semi-Lagrangian advection on tetrahedral meshes: departure points (`advect.cu`).
    Advect,
    /// The compressible Euler equations on the structured grid: MUSCL-Hancock sweeps and
    /// PLM + SSP-RK3 stages (`euler.cu`).
    Euler,
    /// Shallow water with a pollutant on the structured grid: the Roe step and the device
    /// clock (`swe.cu`).
    Swe,
    /// Preconditioned conjugate gradients on a Jacobi-scaled sparse matrix: fused SpMV,
    /// vector updates and reductions with the scalars kept on the device (`cg.cu`).
    Cg,
    /// The smoothed-aggregation V-cycle as CG's preconditioner: Chebyshev smoothing, transfers
    /// and the dense coarsest solve on SELL-32 matrices, in the cycle's precision (`amg.cu`).
    Amg,
    /// Incompressible Navier-Stokes on tetrahedra: gradients, departure points along the
    /// flow, predictor and pressure right-hand sides, Rhie-Chow fluxes, the projection and
    /// the step's fixed-order reductions (`ns.cu`).
    Ns,
}

impl Module {
    /// Every module, e.g. to compile them all ahead of a run.
    pub const ALL: [Module; 10] = [
        Module::Reduce,
        Module::Grid,
        Module::Sl,
        Module::Heat,
        Module::Advect,
        Module::Euler,
        Module::Swe,
        Module::Cg,
        Module::Amg,
        Module::Ns,
    ];

    /// The stem of its `.cu` file; it also names the module in errors and cache files.
    pub fn name(self) -> &'static str {
        match self {
            Module::Reduce => "reduce",
            Module::Grid => "grid",
            Module::Heat => "heat",
            Module::Sl => "sl",
            Module::Advect => "advect",
            Module::Euler => "euler",
            Module::Swe => "swe",
            Module::Cg => "cg",
            Module::Amg => "amg",
            Module::Ns => "ns",
        }
    }

    /// Its file name, as NVRTC's logs and the `#line` directives name it.
    fn file(self) -> &'static str {
        match self {
            Module::Reduce => "reduce.cu",
            Module::Grid => "grid.cu",
            Module::Heat => "heat.cu",
            Module::Sl => "sl.cu",
            Module::Advect => "advect.cu",
            Module::Euler => "euler.cu",
            Module::Swe => "swe.cu",
            Module::Cg => "cg.cu",
            Module::Amg => "amg.cu",
            Module::Ns => "ns.cu",
        }
    }

    /// Its embedded source, headers not yet resolved.
    fn text(self) -> &'static str {
        match self {
            Module::Reduce => include_str!("../cuda/reduce.cu"),
            Module::Grid => include_str!("../cuda/grid.cu"),
            Module::Heat => include_str!("../cuda/heat.cu"),
            Module::Sl => include_str!("../cuda/sl.cu"),
            Module::Advect => include_str!("../cuda/advect.cu"),
            Module::Euler => include_str!("../cuda/euler.cu"),
            Module::Swe => include_str!("../cuda/swe.cu"),
            Module::Cg => include_str!("../cuda/cg.cu"),
            Module::Amg => include_str!("../cuda/amg.cu"),
            Module::Ns => include_str!("../cuda/ns.cu"),
        }
    }

    /// NVRTC options this module needs besides the architecture, `REAL` and the caller's defines.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            // CG's iterates need not match the CPU's bit for bit (the check compares solutions).
            Module::Reduce | Module::Grid | Module::Heat | Module::Cg | Module::Amg => &[],
            // Location and interpolation make discrete choices from rounded values: no fused
            // multiply-adds, so the GPU rounds as the CPU does and both choose alike.
            Module::Sl | Module::Advect => &["--fmad=false"],
            // The Euler sweeps repeat the CPU's arithmetic operation by operation (CPU vs CUDA
            // to rounding): no fused multiply-adds.
            Module::Euler => &["--fmad=false"],
            // The same: both backends must take the same adaptive steps.
            Module::Swe => &["--fmad=false"],
            // Cell and face operations as the CPU's, bit for bit; the walk's discrete choices.
            Module::Ns => &["--fmad=false"],
        }
    }

    /// The kernel functions the host may load from this module.
    pub fn kernels(self) -> &'static [Kernel] {
        match self {
            Module::Reduce => reduce::ALL,
            Module::Grid => grid::ALL,
            Module::Heat => heat::ALL,
            Module::Sl => sl::ALL,
            Module::Advect => advect::ALL,
            Module::Euler => euler::ALL,
            Module::Swe => swe::ALL,
            Module::Cg => cg::ALL,
            Module::Amg => amg::ALL,
            Module::Ns => ns::ALL,
        }
    }

    /// The names of [`Module::kernels`]: exactly the `extern "C" __global__` functions of the
    /// module (a test checks this against the PTX both ways).
    pub fn entries(self) -> &'static [&'static str] {
        match self {
            Module::Reduce => reduce::NAMES,
            Module::Grid => grid::NAMES,
            Module::Heat => heat::NAMES,
            Module::Sl => sl::NAMES,
            Module::Advect => advect::NAMES,
            Module::Euler => euler::NAMES,
            Module::Swe => swe::NAMES,
            Module::Cg => cg::NAMES,
            Module::Amg => amg::NAMES,
            Module::Ns => ns::NAMES,
        }
    }
}

impl std::fmt::Display for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A kernel function the host may load: its module and its (unmangled, `extern "C"`) name.
/// Use the constants of the per-module submodules rather than building one, so that
/// every name the host loads is checked against the compiled PTX by this crate's tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    pub module: Module,
    pub name: &'static str,
}

/// Declares one module's kernel constants, with `ALL` and `NAMES` made from the same list so
/// that [`Module::kernels`] and [`Module::entries`] cannot drift from the constants.
macro_rules! kernels {
    ($module:ident: $($(#[$doc:meta])* $konst:ident = $name:literal,)+) => {
        use crate::{Kernel, Module};
        $(
            $(#[$doc])*
            pub const $konst: Kernel = Kernel { module: Module::$module, name: $name };
        )+
        /// Every kernel of this module, in the order declared.
        pub const ALL: &[Kernel] = &[$($konst),+];
        /// Their names, for [`Module::entries`].
        pub(crate) const NAMES: &[&str] = &[$($name),+];
    };
}

/// Kernels of [`Module::Reduce`] (`reduce.cu`).
pub mod reduce {
    kernels! { Reduce:
        /// Per-block max |x|, NaN winning; the host finishes the reduction over blocks.
        MAX_ABS = "max_abs",
        /// Streaming copy, to measure the device's copy bandwidth.
        COPY = "copy_kernel",
    }
}

/// Kernels of [`Module::Heat`] (`heat.cu`). It takes the defines `TX`, `TY` (threads of the
/// register-queue stage's block), `RY` (rows each thread computes) and `MINB` (its minimum
/// blocks per SM).
pub mod heat {
    kernels! { Heat:
        /// One RK3 stage by the register-queue solver (tiles marching along z).
        RQ_STAGE = "heat_rq_stage",
        /// The naive solver's 1D second derivative along one axis, accumulated.
        NAIVE_D2 = "heat_naive_d2",
        /// The naive solver's pointwise stage update.
        NAIVE_UPDATE = "heat_naive_update",
    }
}

/// Kernels of [`Module::Grid`] (`grid.cu`).
pub mod grid {
    kernels! { Grid:
        /// Ghost values along one axis for every boundary condition (solver/src/grid/halo.rs).
        HALO = "grid_halo",
    }
}

/// Kernels of [`Module::Sl`] (`sl.cu`): the semi-Lagrangian pieces every family on
/// tetrahedra shares, one scalar field per call. It takes the optional define `MIN_BLOCKS`
/// (occupancy hint of the gather kernels).
pub mod sl {
    kernels! { Sl:
        /// Least-squares cell gradients and neighbour ranges.
        GRADIENTS = "sl_gradients",
        /// Volume-weighted vertex values (Dirichlet vertices pinned).
        VERTEX_VALUES = "sl_vertex_values",
        /// Least-squares quadratic fits around the vertices.
        QUAD_FIT = "sl_quad_fit",
        /// Interpolation at the departure points (quadratic, Voronoi-dual, gradient-corrected
        /// or linear).
        INTERP = "sl_interp",
        /// The Voronoi-dual interpolation by vertex groups (the departure kernels count the
        /// buckets): the values of points outside the domain alone (buckets reused), the
        /// buckets' prefix sum (tiles' totals, their starts, the tiles' scans), the buckets
        /// (with those values), and the interpolation.
        GROUP_OUTSIDE = "sl_group_outside",
        GROUP_SCAN_TILES = "sl_group_scan_tiles",
        GROUP_SCAN_TOP = "sl_group_scan_top",
        GROUP_SCAN = "sl_group_scan",
        GROUP_FILL = "sl_group_fill",
        GROUP_INTERP = "sl_group_interp",
        /// BFECC correction g = f + (f - f2) / 2.
        CORRECT = "sl_correct",
        /// Optional clamp to the interpolation stencil's range.
        LIMIT = "sl_limit",
    }
}

/// Kernels of [`Module::Advect`] (`advect.cu`). It takes the optional define `MIN_BLOCKS`.
pub mod advect {
    kernels! { Advect:
        /// Departure points of the cell centroids for the case's velocity, and the cells (or
        /// boundary patches) holding them.
        DEPARTURES = "advect_departures",
    }
}

/// Kernels of [`Module::Euler`] (`euler.cu`).
pub mod euler {
    kernels! { Euler:
        /// One MUSCL-Hancock sweep along an axis with the exact Riemann solver (out of place).
        SWEEP = "euler_sweep",
        /// The same sweep, and the stable step of what it writes folded into one atomic minimum.
        SWEEP_FOLD = "euler_sweep_fold",
        /// One unsplit PLM + SSP-RK3 stage with gravity, all axes fused (out of place).
        RK_STAGE = "euler_rk_stage",
        /// The same stage on a 3D grid, each block a tile of columns marching along z.
        RK_MARCH = "euler_rk_march",
        /// The energy of the ghosts of a reflecting wall across gravity (hydrostatic pressure).
        HYDROSTATIC_GHOSTS = "euler_hydrostatic_ghosts",
        /// The min of h / (|u| + c) over cells and active axes, folded into one atomic minimum.
        STABLE_DT = "euler_stable_dt",
        /// The device clock: advance by the step taken, the next step from the minimum.
        CLOCK = "euler_clock",
        /// The first cell whose density or pressure is not positive, or not finite.
        FIRST_UNSOUND = "euler_first_unsound",
    }
}

/// Kernels of [`Module::Swe`] (`swe.cu`).
pub mod swe {
    kernels! { Swe:
        /// The wave-speed rate of the state folded into one atomic maximum.
        RATE = "swe_rate",
        /// One explicit Roe step (the donors' shares, dry cells, friction), and the rate of the
        /// new state.
        STEP = "swe_step",
        /// The device clock: advance by the step taken, the next step from the rate.
        CLOCK = "swe_clock",
        /// The first cell with a negative depth or a state that is not finite.
        FIRST_BAD = "swe_first_bad",
        /// The ghosts of the open sides from their level / discharge series at the clock's time.
        OPEN = "swe_open",
        /// The point sources' water and pollutant over the clock's step.
        SOURCES = "swe_sources",
    }

    /// The step kernel's dynamic shared memory for a tile of `tx` x `ty` cells (swe.cu,
    /// `StepShared`): the cell states of the tile and two rings (9 values each), the mass
    /// fluxes, the shares and the momentum's contributions, all REAL. Passed to the compile as
    /// SWE_STEP_SHARED_BYTES, which the kernel checks against its struct.
    pub fn step_shared_bytes(tx: u32, ty: u32, real_bytes: usize) -> u32 {
        let values = 9 * (ty + 4) * (tx + 4)
            + (ty + 2) * (tx + 3)
            + (ty + 3) * (tx + 2)
            + (ty + 2) * (tx + 2)
            + 4 * ty * (tx + 1)
            + 4 * (ty + 1) * tx;
        values * real_bytes as u32
    }
}

/// Kernels of [`Module::Cg`] (`cg.cu`): double precision whatever `REAL` is.
pub mod cg {
    kernels! { Cg:
        /// Scaled initial residual, ||b||, the first preconditioned residual.
        INIT = "cg_init",
        /// p = z + beta p and q = A p with p.q; alpha on the device.
        DIR_SPMV = "cg_dir_spmv",
        /// x += alpha p, r -= alpha q, r.z and the residual check; beta on the device.
        UPDATE = "cg_update",
        /// One step of the Chebyshev preconditioner.
        CHEB_STEP = "cg_cheb_step",
        /// Back from the scaled variables.
        FINISH = "cg_finish",
        /// y = A x alone.
        SPMV = "cg_spmv",
    }
}

/// Kernels of [`Module::Amg`] (`amg.cu`): the V-cycle's pieces; the `_CG` variants read CG's
/// residual (double) on the finest level, and `STEP_CG` / `FINISH_Z` write its z with r.z.
pub mod amg {
    kernels! { Amg:
        /// Pre-smoothing's first (and second) Chebyshev step from x = 0.
        PRE_FIRST = "amg_pre_first",
        PRE_FIRST_CG = "amg_pre_first_cg",
        /// One matrix product of a Chebyshev sweep: r -= A d, the next direction, x += d.
        STEP = "amg_step",
        /// The residual restricted to the coarser level.
        RESTRICT = "amg_restrict",
        /// The coarse correction prolongated: x += P x_c.
        PROLONG = "amg_prolong",
        /// Post-smoothing's first step: r = b - A x and the first direction.
        POST_FIRST = "amg_post_first",
        POST_FIRST_CG = "amg_post_first_cg",
        /// The finest level's last product, writing CG's z with r.z.
        STEP_CG = "amg_step_cg",
        /// z = x with r.z, where the cycle ends otherwise.
        FINISH_Z = "amg_finish_z",
        /// The coarsest solve by the dense inverse.
        COARSE = "amg_coarse",
        COARSE_CG = "amg_coarse_cg",
    }
}

/// Kernels of [`Module::Ns`] (`ns.cu`). It takes the optional define `MIN_BLOCKS`.
pub mod ns {
    kernels! { Ns:
        /// Least-squares cell gradient with a variable's boundary values.
        GRADIENT = "ns_gradient",
        /// Departure points along the flow's velocity and its Jacobian, located.
        DEPARTURES = "ns_departures",
        /// Inlet velocity for cells whose departure point left through an inlet.
        INLET = "ns_inlet",
        /// The viscous deferred part of every face from vertex quadratic fits.
        FIT_DEFERRED = "ns_fit_deferred",
        /// The predictor's right-hand side of one component (or the explicit update).
        PREDICT = "ns_predict",
        /// Rhie-Chow face fluxes of the predicted velocity.
        FLUX = "ns_flux",
        /// The pressure correction's right-hand side.
        CORRECTION_RHS = "ns_correction_rhs",
        /// The projection of the face fluxes.
        CORRECT_FLUX = "ns_correct_flux",
        /// The projection of the cell velocity, and the pressure update.
        CORRECT_CELLS = "ns_correct_cells",
        /// Per-block partial sums of the velocity change (fixed order).
        CHANGE = "ns_change",
        /// Per-block maxima of the relative flux divergence.
        DIVERGENCE = "ns_divergence",
        /// A field's values at a list of cells (what the forces and probes read).
        GATHER = "ns_gather",
        /// a x + b y over the cells.
        AXPBY = "ns_axpby",
        /// Running sums and sums of squares of a cell field.
        ACCUMULATE = "ns_accumulate",
        /// The symmetry planes' face values of the velocity.
        SYMMETRY = "ns_symmetry",
        /// Per-block partial sums of the volume-weighted kinetic energy and volume.
        KINETIC_ENERGY = "ns_kinetic_energy",
        /// The dynamic LES model's cell values to filter (u, u u, |S| S, S).
        LES_CELLS = "ns_les_cells",
        /// The LES test filter: volume-weighted means over a cell and its face neighbours.
        TEST_FILTER = "ns_test_filter",
        /// The dynamic LES model's L:M and M:M per cell.
        LES_LM = "ns_les_lm",
        /// The eddy viscosity (Smagorinsky, or the dynamic model's clipped coefficient).
        EDDY_VISCOSITY = "ns_eddy_viscosity",
        /// The subgrid stress's face fluxes of the three components.
        SGS_FLUX = "ns_sgs_flux",
    }
}

/// Floating-point precision of a compiled module (`REAL` in the CUDA sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Real {
    F32,
    F64,
}

impl Real {
    /// The C type `REAL` is defined to.
    pub fn c_type(self) -> &'static str {
        match self {
            Real::F32 => "float",
            Real::F64 => "double",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("NVRTC (libnvrtc.so) was not found: install the CUDA toolkit's NVRTC or `pip install nvidia-cuda-nvrtc` and add its lib folder to LD_LIBRARY_PATH (scripts/env.sh does this)")]
    NvrtcMissing,
    /// An `#include "NAME"` that names no embedded header (`file`:`line` is where).
    #[error("kernel module '{module}': {file}:{line} includes \"{header}\", which is no header of kernels/cuda/ (a new header must be added to HEADERS in kernels/src/lib.rs)")]
    UnknownHeader {
        module: String,
        header: String,
        file: String,
        line: usize,
    },
    /// Headers that include each other without `#pragma once` (`chain`: "a.cuh -> b.cuh -> a.cuh").
    #[error("kernel module '{module}': headers include each other without #pragma once: {chain}")]
    IncludeCycle { module: String, chain: String },
    #[error("NVRTC failed to compile kernel module '{module}' ({options}):\n{log}")]
    Compile {
        module: String,
        options: String,
        log: String,
    },
}

/// Whether NVRTC's shared library can be loaded (no GPU is needed to compile).
pub fn nvrtc_available() -> bool {
    // SAFETY: only probes for the shared library.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// The source of `module` as NVRTC gets it: each `#include "NAME"` line replaced by the
/// embedded header NAME (recursively; a header with `#pragma once` only the first time), with
/// `#line` directives so that NVRTC's errors name the original file and line.
///
/// The preprocessor is deliberately tiny: it does not evaluate `#if` (an include inside a
/// conditional is inlined there, still under the conditional) nor see comments spanning lines,
/// and it leaves `#include <...>` to NVRTC's built-in headers.
pub fn source(module: Module) -> Result<String, KernelError> {
    resolve(module.name(), module.file(), module.text(), HEADERS)
}

/// What [`resolve`] acts on in a line.
enum Directive<'a> {
    Include(&'a str),
    PragmaOnce,
}

fn directive(line: &str) -> Option<Directive<'_>> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    if let Some(r) = rest.strip_prefix("include") {
        let r = r.trim_start().strip_prefix('"')?;
        return Some(Directive::Include(&r[..r.find('"')?]));
    }
    let r = rest.strip_prefix("pragma")?;
    let r = r.split("//").next().unwrap_or_default();
    (r.starts_with(char::is_whitespace) && r.trim() == "once").then_some(Directive::PragmaOnce)
}

/// Resolves the includes of `text` (file `file` of module `module`) against `headers`.
fn resolve(module: &str, file: &str, text: &str, headers: &[(&str, &str)]) -> Result<String, KernelError> {
    struct Resolver<'a> {
        module: &'a str,
        headers: &'a [(&'a str, &'a str)],
        once: HashSet<&'a str>,
        stack: Vec<&'a str>,
        out: String,
    }
    impl<'a> Resolver<'a> {
        fn file(&mut self, file: &'a str, text: &'a str) -> Result<(), KernelError> {
            self.stack.push(file);
            let _ = writeln!(self.out, "#line 1 \"{file}\"");
            for (i, line) in text.lines().enumerate() {
                match directive(line) {
                    None => {
                        self.out.push_str(line);
                        self.out.push('\n');
                    }
                    Some(Directive::PragmaOnce) => {
                        self.once.insert(file);
                        self.out.push('\n');
                    }
                    Some(Directive::Include(name)) => {
                        let &(header, htext) =
                            self.headers
                                .iter()
                                .find(|h| h.0 == name)
                                .ok_or_else(|| KernelError::UnknownHeader {
                                    module: self.module.into(),
                                    header: name.into(),
                                    file: file.into(),
                                    line: i + 1,
                                })?;
                        if self.once.contains(header) {
                            self.out.push('\n');
                            continue;
                        }
                        if self.stack.contains(&header) {
                            let mut chain = self.stack.clone();
                            chain.push(header);
                            return Err(KernelError::IncludeCycle {
                                module: self.module.into(),
                                chain: chain.join(" -> "),
                            });
                        }
                        self.file(header, htext)?;
                        // Back in this file, at the line after the include.
                        let _ = writeln!(self.out, "#line {} \"{file}\"", i + 2);
                    }
                }
            }
            self.stack.pop();
            Ok(())
        }
    }
    let mut r = Resolver {
        module,
        headers,
        once: HashSet::new(),
        stack: Vec::new(),
        out: String::with_capacity(2 * text.len()),
    };
    r.file(file, text)?;
    Ok(r.out)
}

fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CFD_KERNEL_CACHE") {
        return Some(PathBuf::from(d));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("cfd-gpu").join("kernels"))
}

/// The cache folder in use: $CFD_KERNEL_CACHE, else $XDG_CACHE_HOME/cfd-gpu/kernels, else
/// ~/.cache/cfd-gpu/kernels (None where none of these is set). Removing it only costs the next
/// run a compile.
pub fn cache_folder() -> Option<PathBuf> {
    cache_dir()
}

/// A compiled module as the driver loads it: the CUBIN (machine code for the device's
/// architecture, loaded without any JIT) where there is one, else the PTX (JIT-compiled by the
/// driver at load).
pub enum Image {
    Cubin(Vec<u8>),
    Ptx(Ptx),
}

/// The module as the driver should load it, and whether it came from the on-disk cache: the
/// cached CUBIN (keyed by the source, the options and the driver version) if there is
/// one, else a fresh compile (both the CUBIN and the PTX are cached), else — where NVRTC is
/// missing — the cached PTX. A CUBIN the driver refuses falls back to [`compile`]'s PTX. The
/// warm path reads one file and never loads NVRTC.
pub fn image(module: Module, real: Real, arch: &str, defines: &[(&str, &str)]) -> Result<(Image, bool), KernelError> {
    image_in(cache_dir().as_deref(), module, real, arch, defines)
}

/// As [`image`], with an explicit cache folder (`None`: no cache).
pub fn image_in(
    cache: Option<&Path>,
    module: Module,
    real: Real,
    arch: &str,
    defines: &[(&str, &str)],
) -> Result<(Image, bool), KernelError> {
    let src = source(module)?;
    let options = options(module, real, arch, defines);
    let key = cache_key(module.name(), arch, real, &src, &options);
    let cubin_path = cache.map(|d| d.join(format!("{key}-{}.cubin", versions())));
    if let Some(bytes) = cubin_path.as_ref().and_then(|p| std::fs::read(p).ok()) {
        if bytes.starts_with(b"\x7fELF") {
            return Ok((Image::Cubin(bytes), true));
        }
    }
    let ptx_path = cache.map(|d| d.join(format!("{key}.ptx")));
    if !nvrtc_available() {
        if let Some(text) = ptx_path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
            return Ok((Image::Ptx(Ptx::from_src(text)), true));
        }
    }
    let (ptx, cubin) = nvrtc(module.name(), module.file(), &src, &options)?;
    if let Some(path) = ptx_path {
        store(&path, ptx.to_src().as_bytes());
    }
    match cubin {
        Some(bytes) => {
            if let Some(path) = cubin_path {
                store(&path, &bytes);
            }
            Ok((Image::Cubin(bytes), false))
        }
        None => Ok((Image::Ptx(ptx), false)),
    }
}

/// Compile `module` for `arch` (e.g. "sm_90") with `REAL` = `real` and extra `-D` defines,
/// caching in the default folder ($CFD_KERNEL_CACHE, else ~/.cache/cfd-gpu/kernels).
/// Returns the PTX and whether it came from the cache.
pub fn compile(module: Module, real: Real, arch: &str, defines: &[(&str, &str)]) -> Result<(Ptx, bool), KernelError> {
    compile_in(cache_dir().as_deref(), module, real, arch, defines)
}

/// As [`compile`], with an explicit cache folder (`None`: no cache).
pub fn compile_in(
    cache: Option<&Path>,
    module: Module,
    real: Real,
    arch: &str,
    defines: &[(&str, &str)],
) -> Result<(Ptx, bool), KernelError> {
    let src = source(module)?;
    let options = options(module, real, arch, defines);
    let key = cache_key(module.name(), arch, real, &src, &options);
    let cached = cache.map(|d| d.join(format!("{key}.ptx")));
    if let Some(text) = cached.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
        return Ok((Ptx::from_src(text), true));
    }
    let (ptx, cubin) = nvrtc(module.name(), module.file(), &src, &options)?;
    if let Some(path) = cached {
        store(&path, ptx.to_src().as_bytes());
        if let (Some(dir), Some(bytes)) = (cache, cubin) {
            store(&dir.join(format!("{key}-{}.cubin", versions())), &bytes);
        }
    }
    Ok((ptx, false))
}

/// The define that compiles a module with the device's fast arithmetic (`run.math = "fast"`):
/// `--use_fast_math` (multiply-adds contracted; in single precision approximate division and
/// square root, denormals flushed to zero) instead of the module's own `--fmad=false`.
pub const FAST_MATH: (&str, &str) = ("CFD_FAST_MATH", "1");

/// NVRTC's options for a module: the real architecture (so NVRTC emits a CUBIN besides the PTX),
/// `REAL`, the caller's defines, the module's own (or the fast arithmetic's, with [`FAST_MATH`]).
fn options(module: Module, real: Real, arch: &str, defines: &[(&str, &str)]) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture={arch}"),
        format!("-DREAL={}", real.c_type()),
        "-std=c++17".into(),
    ];
    options.extend(defines.iter().map(|(k, v)| format!("-D{k}={v}")));
    if defines.contains(&FAST_MATH) {
        options.push("--use_fast_math".into());
    } else {
        options.extend(module.options().iter().map(|o| o.to_string()));
    }
    options
}

/// Best effort, atomically (a temporary file renamed): a read-only cache folder only costs a
/// recompile next time, and a concurrent run never reads half a file.
fn store(path: &Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, bytes).is_ok() {
            let _ = std::fs::rename(&tmp, path);
        }
    }
}

/// The driver version a CUBIN is cached under, e.g. "driver13000" (0 without a driver). Not
/// NVRTC's: asking it loads libnvrtc (~110 MB, tens of ms at start and at exit), which a warm
/// cache must not need. A CUBIN stays valid machine code for its architecture whichever NVRTC
/// made it; one the driver refuses falls back to the PTX, and clearing the cache folder
/// recompiles everything with the NVRTC in use.
fn versions() -> String {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let mut driver = 0;
        // SAFETY: only probes for the shared library, then an out-parameter.
        if unsafe { cudarc::driver::sys::is_culib_present() } {
            unsafe {
                let _ = cudarc::driver::sys::cuDriverGetVersion(&mut driver);
            }
        }
        format!("driver{driver}")
    })
    .clone()
}

/// Cache file name stem: a checksum of the resolved source (so of every header) and the options.
fn cache_key(module: &str, arch: &str, real: Real, src: &str, options: &[String]) -> String {
    let mut h = crc32fast::Hasher::new();
    h.update(src.as_bytes());
    h.update(options.join(" ").as_bytes());
    format!("{module}-{arch}-{}-{:08x}-{}", real.c_type(), h.finalize(), src.len())
}

/// Compiles resolved source `src`, named `file` in NVRTC's logs: the PTX, and the CUBIN where
/// the architecture is a real one (`sm_XX`).
fn nvrtc(module: &str, file: &str, src: &str, options: &[String]) -> Result<(Ptx, Option<Vec<u8>>), KernelError> {
    use cudarc::nvrtc::{result, sys};
    if !nvrtc_available() {
        return Err(KernelError::NvrtcMissing);
    }
    let fail = |log: String| KernelError::Compile {
        module: module.into(),
        options: options.join(" "),
        log,
    };
    let c_src = std::ffi::CString::new(src).map_err(|e| fail(e.to_string()))?;
    let c_name = std::ffi::CString::new(file).map_err(|e| fail(e.to_string()))?;
    let prog = result::create_program(&c_src, Some(&c_name)).map_err(|e| fail(format!("{e:?}")))?;
    // SAFETY: `prog` is live until destroyed below; c_src and c_name outlive it.
    let out = unsafe {
        let compiled = result::compile_program(prog, options);
        let out = match compiled {
            Err(e) => {
                let log = result::get_program_log(prog)
                    .map(|l| std::ffi::CStr::from_ptr(l.as_ptr()).to_string_lossy().into_owned())
                    .unwrap_or_else(|_| format!("{e:?}"));
                Err(fail(log))
            }
            Ok(()) => match result::get_ptx(prog) {
                Err(e) => Err(fail(format!("nvrtcGetPTX: {e:?}"))),
                Ok(ptx) => {
                    let text = std::ffi::CStr::from_ptr(ptx.as_ptr()).to_string_lossy().into_owned();
                    let mut size = 0usize;
                    let cubin = (sys::nvrtcGetCUBINSize(prog, &mut size).result().is_ok() && size > 0)
                        .then(|| {
                            let mut bytes = vec![0u8; size];
                            sys::nvrtcGetCUBIN(prog, bytes.as_mut_ptr() as *mut _)
                                .result()
                                .ok()
                                .map(|_| bytes)
                        })
                        .flatten();
                    Ok((Ptx::from_src(text), cubin))
                }
            },
        };
        let _ = result::destroy_program(prog);
        out
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeSet, HashMap};

    /// Whether NVRTC is there to test with; without it a test skips visibly, except under CI
    /// (which has no GPU but must have NVRTC), where it fails.
    fn have_nvrtc() -> bool {
        if nvrtc_available() {
            return true;
        }
        assert!(
            std::env::var_os("CI").is_none(),
            "NVRTC is required under CI (scripts/setup.sh installs it)"
        );
        eprintln!("SKIPPED: NVRTC not found; source scripts/env.sh after scripts/setup.sh");
        false
    }

    /// The names of the `.entry` points of a PTX module.
    fn ptx_entries(ptx: &str) -> BTreeSet<String> {
        ptx.lines()
            .filter_map(|l| {
                let rest = &l[l.find(".entry ")? + ".entry ".len()..];
                Some(rest[..rest.find('(').unwrap_or(rest.len())].trim().to_string())
            })
            .collect()
    }

    /// Maps each line of resolved source to (file, line) by its `#line` directives.
    fn line_map(src: &str) -> Vec<Option<(String, usize)>> {
        let mut at: Option<(String, usize)> = None;
        src.lines()
            .map(|l| {
                if let Some(d) = l.strip_prefix("#line ") {
                    let (n, f) = d.split_once(' ').unwrap();
                    at = Some((f.trim_matches('"').to_string(), n.parse().unwrap()));
                    None
                } else {
                    let here = at.clone().expect("source starts with #line");
                    at.as_mut().unwrap().1 += 1;
                    Some(here)
                }
            })
            .collect()
    }

    /// Every resolved line that is not blank is the line of the file its `#line` says.
    fn assert_lines_map_back(src: &str, files: &HashMap<&str, &str>) {
        for (line, at) in src.lines().zip(line_map(src)) {
            let Some((file, n)) = at else { continue };
            if line.is_empty() {
                continue;
            }
            let orig = files[file.as_str()].lines().nth(n - 1);
            assert_eq!(orig, Some(line), "resolved line mapped to {file}:{n}");
        }
    }

    /// CI has no GPU, but NVRTC compiles without one: every module, both precisions, for
    /// Ampere and Hopper, the second time from the cache; and every kernel the host may load is
    /// an `.entry` of its compiled module, and every `.entry` is declared as a kernel constant
    /// (so a new `__global__` must be declared). One test, so that each module is compiled once
    /// an architecture and precision (CI's time).
    #[test]
    fn every_module_compiles_with_nvrtc_and_declares_its_entries() {
        if !have_nvrtc() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = Some(dir.path());
        // One thread an architecture: the test is CI's longest, and NVRTC compiles on one core.
        std::thread::scope(|scope| {
            for arch in ["sm_80", "sm_90"] {
                scope.spawn(move || {
                    for module in Module::ALL {
                        for real in [Real::F32, Real::F64] {
                            let (ptx, cached) =
                                compile_in(cache, module, real, arch, &[]).unwrap_or_else(|e| panic!("{e}"));
                            assert!(!cached);
                            if arch == "sm_80" {
                                check_entries(module, real, &ptx.to_src());
                            }
                            let (_, cached) = compile_in(cache, module, real, arch, &[]).unwrap();
                            assert!(cached, "second compile must come from the cache");
                        }
                    }
                });
            }
        });
    }

    /// Every kernel declared in `kernels::{module}` is an `.entry` of the PTX, and every `.entry`
    /// is declared.
    fn check_entries(module: Module, real: Real, ptx: &str) {
        for name in module.entries() {
            assert!(
                ptx.contains(&format!(".entry {name}(")),
                "{module} ({real:?}): kernel {name} is declared in kernels::{module} but is no `.entry` of the PTX"
            );
        }
        let declared: BTreeSet<String> = module.entries().iter().map(|s| s.to_string()).collect();
        let found = ptx_entries(ptx);
        assert_eq!(found.len(), ptx.matches(".entry ").count());
        let undeclared: Vec<_> = found.difference(&declared).collect();
        assert!(
            undeclared.is_empty(),
            "{module} ({real:?}): PTX entries {undeclared:?} have no Kernel constant in kernels::{module}"
        );
    }

    /// Every kernel may be launched before the one ahead of it on the stream has ended
    /// (solver/src/backend/cuda.rs, `EarlyLaunch`), so each must wait for it before it reads
    /// anything: every `__global__` function of every module begins with
    /// `early_launch_entry();`, nothing before it in its body.
    #[test]
    fn every_kernel_begins_with_the_wait() {
        let mut seen = 0;
        for module in Module::ALL {
            // Each kernel: the name before its first '(' after `__global__` (past any
            // `__launch_bounds__(...)`), then the first statement of its body.
            for chunk in module.text().split("__global__").skip(1) {
                let chunk = match chunk.split_once("__launch_bounds__(") {
                    Some((before, after)) if !before.contains('(') => after.split_once(')').expect("bounds").1,
                    _ => chunk,
                };
                let head = &chunk[..chunk.find('(').expect("a parameter list")];
                let name = head.split_whitespace().last().expect("a name");
                let body = &chunk[chunk.find(") {").expect("a body") + 3..];
                let first = body.trim_start().lines().next().unwrap_or("").trim();
                assert_eq!(
                    first,
                    "early_launch_entry();",
                    "{name} ({}) must begin with the wait",
                    module.file()
                );
                seen += 1;
            }
        }
        let declared: usize = Module::ALL.iter().map(|m| m.kernels().len()).sum();
        assert_eq!(seen, declared, "every declared kernel found in its source");
    }

    /// The CUBIN cache: a real architecture gives a CUBIN (an ELF image the driver loads without
    /// JIT), cached with the PTX and read back the second time; a corrupt cached CUBIN is not
    /// handed to the driver but compiled anew.
    #[test]
    fn cubin_is_cached_for_the_real_architecture() {
        if !have_nvrtc() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = Some(dir.path());
        let is_cubin = |i: &Image| matches!(i, Image::Cubin(b) if b.starts_with(b"\x7fELF"));
        let (image, cached) = image_in(cache, Module::Reduce, Real::F32, "sm_90", &[]).unwrap();
        assert!(!cached && is_cubin(&image));
        let (image, cached) = image_in(cache, Module::Reduce, Real::F32, "sm_90", &[]).unwrap();
        assert!(cached && is_cubin(&image), "the second load must come from the cache");
        let (_, cached) = compile_in(cache, Module::Reduce, Real::F32, "sm_90", &[]).unwrap();
        assert!(cached, "the PTX of the same compile is cached too");
        let cubins: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "cubin"))
            .collect();
        assert_eq!(cubins.len(), 1, "{cubins:?}");
        let name = cubins[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.contains("-driver"), "{name}");
        std::fs::write(&cubins[0], b"not an ELF image").unwrap();
        let (image, cached) = image_in(cache, Module::Reduce, Real::F32, "sm_90", &[]).unwrap();
        assert!(!cached && is_cubin(&image));
    }

    /// The heat register-queue kernel with the launch shapes the host may compile in (vector
    /// columns VX, rows RY, tile), both precisions: the default build above uses VX = 1 only.
    #[test]
    fn heat_compiles_with_every_launch_shape() {
        if !have_nvrtc() {
            return;
        }
        for real in [Real::F32, Real::F64] {
            for (tx, ty, ry, vx) in [("32", "4", "2", "2"), ("64", "4", "1", "2"), ("32", "8", "1", "1")] {
                let defs = [("TX", tx), ("TY", ty), ("RY", ry), ("VX", vx), ("MINB", "4")];
                let (ptx, _) = compile_in(None, Module::Heat, real, "sm_90", &defs).unwrap_or_else(|e| panic!("{e}"));
                assert!(ptx.to_src().contains(".entry heat_rq_stage("), "{real:?} {defs:?}");
            }
        }
    }

    /// `run.math = "fast"` has options of its own (so a cache entry of its own): the device's
    /// fast arithmetic instead of `--fmad=false`. (The march's test below compiles it in both
    /// precisions.)
    #[test]
    fn fast_math_has_options_of_its_own() {
        assert!(options(Module::Euler, Real::F32, "sm_90", &[FAST_MATH]).contains(&"--use_fast_math".to_string()));
        assert!(!options(Module::Euler, Real::F32, "sm_90", &[FAST_MATH]).contains(&"--fmad=false".to_string()));
        assert!(options(Module::Euler, Real::F32, "sm_90", &[]).contains(&"--fmad=false".to_string()));
    }

    /// A 2D grid's zero momentum across its plane compiled out of the Euler sweeps
    /// (`EULER_ZERO_MOMENTUM`, cases/euler/cuda.rs): each inactive axis once, with fast math once
    /// (the define only names the component, so each pairing need not be compiled).
    #[test]
    fn euler_compiles_with_a_zero_momentum() {
        if !have_nvrtc() {
            return;
        }
        for (c, fast) in [("1", false), ("2", true), ("3", false)] {
            let mut defines = vec![("EULER_ZERO_MOMENTUM", c)];
            if fast {
                defines.push(FAST_MATH);
            }
            compile_in(None, Module::Euler, Real::F32, "sm_90", &defines).unwrap_or_else(|e| panic!("{c}: {e}"));
        }
    }

    /// The z march with its tile compiled in (`EULER_MARCH_TX`, `EULER_MARCH_TY`: cuda.rs passes
    /// the launch's): the default tile in single precision, exact and fast, and an odd one in
    /// double with fast math; the fast compiles keep every entry of the module. Three compiles,
    /// each ~10 s.
    #[test]
    fn euler_march_compiles_with_its_tile_compiled_in() {
        if !have_nvrtc() {
            return;
        }
        for (tx, ty, real, fast) in [
            ("32", "8", Real::F32, false),
            ("32", "8", Real::F32, true),
            ("7", "5", Real::F64, true),
        ] {
            let mut defines = vec![("EULER_MARCH_TX", tx), ("EULER_MARCH_TY", ty)];
            if fast {
                defines.push(FAST_MATH);
            }
            let (ptx, _) = compile_in(None, Module::Euler, real, "sm_90", &defines)
                .unwrap_or_else(|e| panic!("{tx} x {ty} {real:?}: {e}"));
            let src = ptx.to_src();
            let entries: &[&str] = if fast {
                Module::Euler.entries()
            } else {
                &["euler_rk_march"]
            };
            for name in entries {
                assert!(
                    src.contains(&format!(".entry {name}(")),
                    "{tx} x {ty} {real:?} fast {fast}: {name}"
                );
            }
        }
    }

    /// Shallow water's step kernel checks the host's size of its shared memory when compiled:
    /// a 32 x 16 tile compiles with `swe::step_shared_bytes`, and a size 4 bytes off does not
    /// (both with single precision's edge loops by axis, as the solver compiles it).
    #[test]
    fn swe_step_compiles_with_the_hosts_shared_memory_size_only() {
        if !have_nvrtc() {
            return;
        }
        let right = swe::step_shared_bytes(32, 16, 4);
        for (bytes, ok) in [(right, true), (right + 4, false)] {
            let b = bytes.to_string();
            let defines = [
                ("SWE_TX", "32"),
                ("SWE_TY", "16"),
                ("SWE_STEP_SHARED_BYTES", b.as_str()),
                ("SWE_EDGE_LOOPS_BY_AXIS", "1"),
            ];
            let r = compile_in(None, Module::Swe, Real::F32, "sm_90", &defines);
            assert_eq!(r.is_ok(), ok, "{bytes} bytes: {:?}", r.err());
        }
    }

    #[test]
    fn kernel_constants_are_consistent() {
        let mut all = HashSet::new();
        for module in Module::ALL {
            let names: Vec<_> = module.kernels().iter().map(|k| k.name).collect();
            assert_eq!(names, module.entries());
            for k in module.kernels() {
                assert_eq!(k.module, module, "{k:?} is listed under {module}");
                assert!(all.insert(k.name), "kernel name {} twice", k.name);
            }
        }
        assert_eq!(heat::RQ_STAGE.name, "heat_rq_stage");
        assert_eq!(reduce::COPY.module, Module::Reduce);
    }

    /// Every `.cu` of kernels/cuda/ is a module and every `.cuh` an embedded header (with
    /// `#pragma once`), the embedded text being the file's.
    #[test]
    fn every_cuda_file_is_embedded() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda");
        let mut seen = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            if name.ends_with(".cuh") {
                let h = HEADERS.iter().find(|h| h.0 == name);
                assert_eq!(h.map(|h| h.1), Some(text.as_str()), "{name} is not in HEADERS");
                assert!(text
                    .lines()
                    .any(|l| matches!(directive(l), Some(Directive::PragmaOnce))));
                seen += 1;
            } else if name.ends_with(".cu") {
                let m = Module::ALL.iter().find(|m| m.file() == name);
                assert_eq!(m.map(|m| m.text()), Some(text.as_str()), "{name} is not a Module");
                seen += 1;
            }
        }
        assert_eq!(seen, HEADERS.len() + Module::ALL.len());
    }

    #[test]
    fn module_sources_resolve_once_and_map_back() {
        let mut files: HashMap<&str, &str> = HEADERS.iter().copied().collect();
        for m in Module::ALL {
            files.insert(m.file(), m.text());
        }
        for m in Module::ALL {
            let src = source(m).unwrap();
            assert!(!src.contains("#include \""), "{m}: unresolved include");
            // reduce.cu includes common.cuh directly and through reduce.cuh.
            assert_eq!(src.matches("typedef unsigned int u32;").count(), 1, "{m}");
            assert_lines_map_back(&src, &files);
        }
        // The heat stencil's radius is heat's own.
        assert!(source(Module::Heat).unwrap().contains("#define HALO 4"));
        for m in [Module::Reduce, Module::Grid, Module::Sl, Module::Advect] {
            assert!(!source(m).unwrap().contains("HALO"), "{m}");
        }
    }

    #[test]
    fn resolver_nests_and_honours_pragma_once() {
        let headers: &[(&str, &str)] = &[
            ("base.cuh", "#pragma once\nint base;\n"),
            ("mid.cuh", "# pragma once // guard\n#include \"base.cuh\"\nint mid;\n"),
            (
                "top.cuh",
                "#pragma once\n#include \"mid.cuh\"\n  #  include \"base.cuh\"\nint top;\n",
            ),
            ("plain.cuh", "int plain;\n"),
        ];
        let root = "#include \"top.cuh\"\r\n#include\"base.cuh\"\n#include <cuda_fp16.h>\n#include \"plain.cuh\"\n#include \"plain.cuh\"\nint root;";
        let src = resolve("probe", "probe.cu", root, headers).unwrap();
        for (decl, times) in [
            ("int base;", 1),
            ("int mid;", 1),
            ("int top;", 1),
            ("int plain;", 2),
            ("int root;", 1),
        ] {
            assert_eq!(src.matches(decl).count(), times, "{decl} in\n{src}");
        }
        assert!(src.contains("#include <cuda_fp16.h>\n"));
        assert!(!src.contains("pragma"));
        // Nested, in order: base inside mid inside top, before the root's own lines.
        let pos = |s: &str| src.find(s).unwrap();
        assert!(
            pos("int base;") < pos("int mid;")
                && pos("int mid;") < pos("int top;")
                && pos("int top;") < pos("int root;")
        );
        let mut files: HashMap<&str, &str> = headers.iter().copied().collect();
        files.insert("probe.cu", root);
        assert_lines_map_back(&src, &files);
        // The root's last line is still its line 6.
        let last = line_map(&src).last().cloned().flatten();
        assert_eq!(last, Some(("probe.cu".to_string(), 6)));
    }

    #[test]
    fn resolver_errors_name_the_module_and_header() {
        let headers: &[(&str, &str)] = &[("a.cuh", "#pragma once\n\n#include \"missing.cuh\"\n")];
        let e = resolve("probe", "probe.cu", "int x;\n#include \"a.cuh\"\n", headers).unwrap_err();
        assert!(
            matches!(&e, KernelError::UnknownHeader { module, header, file, line: 3 }
                if module == "probe" && header == "missing.cuh" && file == "a.cuh"),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("probe") && msg.contains("missing.cuh") && msg.contains("a.cuh:3"),
            "{msg}"
        );

        let cyclic: &[(&str, &str)] = &[("a.cuh", "#include \"b.cuh\"\n"), ("b.cuh", "#include \"a.cuh\"\n")];
        let e = resolve("probe", "probe.cu", "#include \"a.cuh\"\n", cyclic).unwrap_err();
        assert!(e.to_string().contains("probe.cu -> a.cuh -> b.cuh -> a.cuh"), "{e}");
        // With #pragma once the same pair resolves.
        let guarded: &[(&str, &str)] = &[
            ("a.cuh", "#pragma once\n#include \"b.cuh\"\n"),
            ("b.cuh", "#pragma once\n#include \"a.cuh\"\n"),
        ];
        resolve("probe", "probe.cu", "#include \"a.cuh\"\n", guarded).unwrap();
    }

    #[test]
    fn cache_key_covers_headers() {
        let root = "#include \"h.cuh\"\nint x;\n";
        let a = resolve("probe", "probe.cu", root, &[("h.cuh", "#pragma once\nint h;\n")]).unwrap();
        let b = resolve("probe", "probe.cu", root, &[("h.cuh", "#pragma once\nint g;\n")]).unwrap();
        let opts = ["-DREAL=float".to_string()];
        assert_ne!(
            cache_key("probe", "sm_90", Real::F32, &a, &opts),
            cache_key("probe", "sm_90", Real::F32, &b, &opts)
        );
    }

    /// NVRTC's log names the file and line of an error, in a header or in the module after it.
    #[test]
    fn compile_errors_name_the_file_and_line() {
        if !have_nvrtc() {
            return;
        }
        let headers: &[(&str, &str)] = &[("bad.cuh", "#pragma once\n// line 2\nint in_header = ;\n")];
        let root = "// line 1\n#include \"bad.cuh\"\n\n\nint in_root = ;\n";
        let src = resolve("probe", "probe.cu", root, headers).unwrap();
        let e = nvrtc("probe", "probe.cu", &src, &["--gpu-architecture=sm_80".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.cuh(3)") && e.contains("probe.cu(5)"), "{e}");

        // A real module: a bad tile define fails where heat.cu uses it.
        let e = compile_in(None, Module::Heat, Real::F64, "sm_90", &[("TX", "x+")])
            .unwrap_err()
            .to_string();
        let at = e.find("heat.cu(").unwrap_or_else(|| panic!("{e}")) + "heat.cu(".len();
        let line: usize = e[at..at + e[at..].find(')').unwrap()].parse().unwrap();
        let text = Module::Heat.text().lines().nth(line - 1).unwrap();
        assert!(
            text.contains("TX") && e.contains("error"),
            "heat.cu:{line} is `{text}`:\n{e}"
        );
    }
}
