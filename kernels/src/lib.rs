//! CUDA C kernel sources (`kernels/cuda/*.cu`, `*.cuh`), embedded in the binary, and their
//! compilation by NVRTC at run time for the device's own architecture, with `-DREAL=float`
//! or `double`. Compiled modules are cached on disk between runs, keyed by a checksum of the
//! resolved source and the options: the PTX, and the CUBIN for the device's architecture
//! (keyed also by the driver version), which the driver loads without NVRTC or JIT.
//!
//! Each `.cu` file is a [`Module`], compiled by itself into one PTX module: one line of the
//! module table below (its file, its NVRTC options, the submodule of its kernels). Headers
//! (`*.cuh`) are embedded too, one line each in `HEADERS`, and resolved by a tiny
//! preprocessor of this crate ([`source()`]), not by NVRTC's include search: the binary needs no
//! files at run time, and the cache key covers every header a module uses. The kernel functions
//! the host may load are typed constants, one submodule per module ([`reduce`], [`grid`],
//! [`sl`], [`heat`], [`advect`], [`euler`], [`swe`], [`cg`], [`amg`], [`ns`]); a test checks
//! them against the `.entry` points of the compiled PTX both ways, so a misspelt or missing
//! kernel fails in CI (which has NVRTC but no GPU) rather than at load time on a device.
//!
//! The crate's parts: the table's machinery (`registry`), the include resolution (`source`),
//! and the NVRTC compile with its cache (`compile`: [`compile()`], [`image()`]).

#[macro_use]
mod registry;
mod compile;
mod source;

pub use compile::{cache_folder, compile, compile_in, image, image_in, nvrtc_available, Image, FAST_MATH};
pub use registry::Kernel;
pub use source::source;

// The module table: adding a kernel module is one line here (and the submodule of its kernels
// below). Options: what the module needs besides the architecture, `REAL` and the caller's
// defines.
modules! {
    /// Reductions and copies shared by every case (`reduce.cu`).
    Reduce = "reduce", options [], kernels reduce;
    /// The structured-grid layer shared by the structured families: halo fill (`grid.cu`).
    Grid = "grid", options [], kernels grid;
    /// The semi-Lagrangian pieces shared by the families on tetrahedra (`sl.cu`). Location and
    /// interpolation make discrete choices from rounded values: no fused multiply-adds, so the
    /// GPU rounds as the CPU does and both choose alike.
    Sl = "sl", options ["--fmad=false"], kernels sl;
    /// The structured-grid heat equation (`heat.cu`).
    Heat = "heat", options [], kernels heat;
    /// Semi-Lagrangian advection on tetrahedral meshes: departure points (`advect.cu`); no
    /// fused multiply-adds, as `sl.cu`.
    Advect = "advect", options ["--fmad=false"], kernels advect;
    /// The compressible Euler equations on the structured grid: MUSCL-Hancock sweeps and
    /// PLM + SSP-RK3 stages (`euler.cu`). The sweeps repeat the CPU's arithmetic operation by
    /// operation (CPU vs CUDA to rounding): no fused multiply-adds.
    Euler = "euler", options ["--fmad=false"], kernels euler;
    /// Shallow water with a pollutant on the structured grid: the Roe step and the device
    /// clock (`swe.cu`). No fused multiply-adds: both backends must take the same adaptive
    /// steps.
    Swe = "swe", options ["--fmad=false"], kernels swe;
    /// Preconditioned conjugate gradients on a Jacobi-scaled sparse matrix: fused SpMV,
    /// vector updates and reductions with the scalars kept on the device (`cg.cu`). Its
    /// iterates need not match the CPU's bit for bit (the check compares solutions).
    Cg = "cg", options [], kernels cg;
    /// The smoothed-aggregation V-cycle as CG's preconditioner: Chebyshev smoothing, transfers
    /// and the dense coarsest solve on SELL-32 matrices, in the cycle's precision (`amg.cu`).
    Amg = "amg", options [], kernels amg;
    /// Incompressible Navier-Stokes on tetrahedra: gradients, departure points along the
    /// flow, predictor and pressure right-hand sides, Rhie-Chow fluxes, the projection and
    /// the step's fixed-order reductions (`ns.cu`). Cell and face operations as the CPU's, bit
    /// for bit, and the walk's discrete choices: no fused multiply-adds.
    Ns = "ns", options ["--fmad=false"], kernels ns;
}

/// Every header of kernels/cuda/, by the name that `#include "NAME"` gives it.
pub(crate) const HEADERS: &[(&str, &str)] = &[
    header!("common.cuh"),
    header!("reduce.cuh"),
    header!("grid.cuh"),
    header!("clock.cuh"),
    header!("tet.cuh"),
    header!("riemann.cuh"),
    header!("hll.cuh"),
    header!("krylov.cuh"),
];

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{directive, Directive};
    use std::path::Path;

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
}
