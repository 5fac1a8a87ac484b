//! The Euler equations on a CUDA device (kernels/cuda/euler.cu): MUSCL-Hancock as, per active
//! axis, the device halo fill and one fused sweep kernel (the Riemann solver by a parameter)
//! from `u` into `u2` (swapped after); PLM + SSP-RK3 as, per stage, the halo fill (and the
//! hydrostatic walls' ghosts) and one fused stage kernel over all axes; the stable step and
//! the positivity check as device reductions. The same arithmetic in the same order as the
//! CPU (`cpu.rs`, `plm.rs`); output fields and health messages come from the same conversion
//! (`gas.rs`).

use super::step::{min_bytes_per_step, stage_params, sweep_order, variant};
use super::gas;
use super::plm::RK3_WEIGHTS;
use super::section::{Riemann, Scheme};
use super::setup::EulerSetup;
use crate::backend::cuda::{Device, DeviceClock, EarlyFunction};
use crate::error::{Result, SolverError};
use crate::framework::config::Math;
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::grid::cuda::{DeviceHalo, LayoutC};
use crate::numerics::fv::limiters::Limiter;
use crate::output::Field;
use crate::real::{from_bytes, to_bytes, Real};
use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Threads per block of the reductions (whole warps: reduce.cuh, block_max_bits_into).
const REDUCE_THREADS: u32 = 256;

/// Mirrors `struct Params` in euler.cu: what every kernel of the module takes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct ParamsC<R> {
    layout: LayoutC,
    gamma: R,
    axis: i32,
    limiter: i32,
    riemann: i32,
    /// The sweep's tile: P cells along the axis times W lines.
    p: i32,
    w: i32,
    /// Bit a set: axis a has more than one cell.
    active: i32,
    h: [f64; 3],
    /// The stable step of all axes at once (PLM + RK3).
    unsplit: i32,
    /// The RK3 stage: out = wa u0 + wb (u + dt L(u)), dt the device clock's.
    wa: R,
    wb: R,
    inv_h: [R; 3],
    grav: [R; 3],
    /// The RK3 stage's tile of cells.
    tile: [i32; 3],
}

// SAFETY: plain-old-data with the same layout as the C struct.
unsafe impl<R: DeviceRepr> DeviceRepr for ParamsC<R> {}

pub struct CudaEuler<R: Real> {
    /// The setup, its grid's rows aligned for the device.
    pub setup: EulerSetup,
    dev: Arc<Device>,
    /// Conservative variables (rho, rho u, rho v, rho w, E), padded, one component after another.
    u: CudaSlice<R>,
    /// The sweep's (stage's) output, swapped with `u` after each sweep (stage).
    u2: CudaSlice<R>,
    /// PLM + RK3: the state at the start of the step (empty for MUSCL-Hancock).
    u0: CudaSlice<R>,
    /// The stable step's fold (euler.cu, stable_from_rates): the bits of the maxima over cells
    /// of the wave speed along each axis (split), or of the summed rate (unsplit, the first);
    /// 0 before a fold.
    rates: CudaSlice<u64>,
    /// `rates` holds the fold of the current state, made by the last step's last sweep
    /// (`step`): `stable_dt` reads it instead of folding again.
    folded: bool,
    /// `stable_dt` was asked since the last step: the steps are adaptive, so `step` folds for
    /// the next one (a constant step asks once, and its steps then fold nothing).
    asked: bool,
    /// The momentum component the sweeps take as +0 (`zero_momentum`), compiled in.
    zero_momentum: Option<usize>,
    /// Blocks of the reductions.
    reduce_blocks: u32,
    /// Where the run is and the step the kernels take (set by the host, or advanced on the
    /// device through a batch of steps).
    clock: DeviceClock,
    /// The kernels' parameters, but the sweep's own (axis, tile) and the stage's (weights).
    params: ParamsC<R>,
    halo: DeviceHalo<R>,
    f_sweep: EarlyFunction,
    f_sweep_fold: EarlyFunction,
    stage: StageKernel,
    f_hydrostatic: EarlyFunction,
    f_dt: EarlyFunction,
    f_clock: EarlyFunction,
    f_unsound: EarlyFunction,
}

/// The storage component of a 2D MUSCL-Hancock grid's momentum across its plane where every value
/// of it in `state` (unpadded, components one after another) is +0: it stays +0, and the sweeps
/// are compiled to neither read nor write it (euler.cu, EULER_ZERO_MOMENTUM). None otherwise, on
/// a part of a decomposed grid (its neighbours' ghosts must be +0 too, and a part sees only its
/// own cells), or with `CFD_EULER_ZERO_MOMENTUM=0` (carried as any other, for comparison; the
/// same bytes).
fn zero_momentum(setup: &EulerSetup, state: &[f64]) -> Option<usize> {
    let axes = setup.active_axes();
    let knob_off = std::env::var("CFD_EULER_ZERO_MOMENTUM").is_ok_and(|v| v == "0");
    if setup.scheme != Scheme::MusclHancock || axes.len() != 2 || setup.link.is_some() || knob_off {
        return None;
    }
    let across = (0..3).find(|a| !axes.contains(a))?;
    let (c, points) = (1 + across, setup.grid.points());
    state[c * points..(c + 1) * points].iter().all(|v| v.to_bits() == 0).then_some(c)
}

/// `CFD_EULER_FOLD=kernel` (`queue_step`).
fn fold_knob_off() -> bool {
    static KNOB: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KNOB.get_or_init(|| std::env::var("CFD_EULER_FOLD").is_ok_and(|v| v == "kernel"))
}

/// The stable step from the folded maxima `rates` (the bits of doubles), as euler.cu's
/// stable_from_rates does on the device: split, min over the active `axes` of h_a / rates[a];
/// unsplit, 1 / rates[0]. The same double as the minimum over cells of h / speed (or 1 / sum)
/// that the CPU takes, for rounded division is monotone (`tests` below).
fn stable_from_rates(h: [f64; 3], axes: &[usize], unsplit: bool, rates: &[u64]) -> f64 {
    let rate = |a: usize| f64::from_bits(rates[a]);
    if unsplit {
        return 1.0 / rate(0);
    }
    axes.iter().map(|&a| h[a] / rate(a)).fold(f64::INFINITY, f64::min)
}

/// The limiter's code in euler.cu (`LIMITER_*`).
fn limiter_code(l: Limiter) -> i32 {
    match l {
        Limiter::FirstOrder => 0,
        Limiter::Minbee => 1,
        Limiter::VanLeer => 2,
        Limiter::Superbee => 3,
        Limiter::Minmod => 4,
    }
}

/// The Riemann solver's code in euler.cu (`RIEMANN_*`).
fn riemann_code(r: Riemann) -> i32 {
    match r {
        Riemann::Exact => 0,
        Riemann::Hllc => 1,
        Riemann::Hll => 2,
    }
}

/// The sweep's tile along `axis`: P cells along the axis (P - 2 updated) times W lines.
/// Along x the cells are consecutive threads; along y and z the lines are: 16 consecutive x,
/// a whole 128-byte line of doubles.
/// `CFD_EULER_SWEEP=P,W` sets the tile of the y and z sweeps instead, `CFD_EULER_SWEEP_X=P,W`
/// that of the x sweep (tuning knobs; P >= 3, P W a multiple of 32 up to 256: the kernel's
/// launch bound and its warp-wide fold).
fn tile(n: [usize; 3], axis: usize) -> (u32, u32) {
    let knob = |var: &str| -> Option<(u32, u32)> {
        let v = std::env::var(var).ok()?;
        let (p, w) = v.split_once(',')?;
        let (p, w) = (p.trim().parse().ok()?, w.trim().parse().ok()?);
        (p >= 3 && w >= 1 && p * w <= 256 && (p * w) % 32 == 0).then_some((p, w))
    };
    match axis {
        0 => knob("CFD_EULER_SWEEP_X").unwrap_or(if n[1] > 1 { (128, 2) } else { (128, 1) }),
        _ => knob("CFD_EULER_SWEEP").unwrap_or((16, 16)),
    }
}

/// The RK3 stage's tile of cells: 32 along the first active axis (16 in 3D double precision,
/// for shared memory), 4 along the others in 3D, 16 in 2D; 256 in 1D; 1 on inactive axes.
/// (8 x 8 x 4 measured 8 % faster at 256^3 on the H100, `benchmarks/euler-tiles-h100-2026-11-23.txt`,
/// but has not been through `solver check` yet: try it with the knob below.)
/// `CFD_EULER_TILE=a,b,c` sets the tile along the active axes instead (a tuning knob; at most
/// 640 faces along an axis, the kernel's launch bound).
fn stage_tile(cells: [usize; 3], real_bytes: usize) -> [u32; 3] {
    let active: Vec<usize> = (0..3).filter(|&a| cells[a] > 1).collect();
    let mut t = [1; 3];
    if let Some(k) = tile_knob().filter(|k| k.len() >= active.len()) {
        for (rank, &a) in active.iter().enumerate() {
            t[a] = k[rank];
        }
        if stage_threads(t, cells) <= 640 {
            return t;
        }
        t = [1; 3];
    }
    for (rank, &a) in active.iter().enumerate() {
        t[a] = match (active.len(), rank) {
            (1, _) => 256,
            (3, 0) if real_bytes == 8 => 16,
            (_, 0) => 32,
            (3, _) => 4,
            _ => 16,
        };
    }
    t
}

/// The most faces of `tile` along one active axis: the RK3 stage kernel's threads per block.
fn stage_threads(tile: [u32; 3], cells: [usize; 3]) -> u32 {
    (0..3)
        .filter(|&a| cells[a] > 1)
        .map(|a| (0..3).map(|b| tile[b] + u32::from(a == b)).product::<u32>())
        .max()
        .unwrap_or(1)
}

/// Dynamic shared memory of the RK3 stage kernel for `tile`: primitives of the tile and two
/// ghost layers per active axis, and the fluxes of the most faces along one axis.
fn stage_shared_bytes(tile: [u32; 3], cells: [usize; 3], real_bytes: usize) -> u32 {
    let ext: u32 = (0..3).map(|a| tile[a] + if cells[a] > 1 { 4 } else { 0 }).product();
    5 * (ext + stage_threads(tile, cells)) * real_bytes as u32
}

/// The z march's tile (`euler_rk_march`): 32 x 8 columns, its planes a block (0: chosen for the
/// device's occupancy once the kernel is compiled, [`march_planes`]).
/// `CFD_EULER_TILE=a,b,c` sets it instead (at most 288 threads, the kernel's launch bound).
fn march_tile() -> [u32; 3] {
    if let Some(k) = tile_knob().filter(|k| k.len() == 3 && march_threads([k[0], k[1], k[2]]) <= 288) {
        return [k[0], k[1], k[2]];
    }
    [32, 8, 0]
}

/// The planes a block of the z march climbs on a grid of `n` cells with `tile`'s columns, when
/// `resident` blocks run at once. As many as keep every resident block busy, from 8 (small
/// grids: more blocks) to 32: each block first reads four planes and solves one face below its
/// first plane, but at 512^3 on an H100 31-43 planes were 0.5-0.7 % faster than 64.
/// Within the top quarter of that range, the count whose blocks end nearest below a whole
/// number of waves of `resident` (the last wave's idle slots), the most planes among equals:
/// 31 at 512^3 on 132 SMs (17 blocks a column, 32.97 waves), measured 0.2 % faster than 32
/// (31.03 waves).
fn march_planes(n: [usize; 3], tile: [u32; 2], resident: u32) -> u32 {
    let columns = (n[0] as u64).div_ceil(tile[0] as u64) * (n[1] as u64).div_ceil(tile[1] as u64);
    let resident = resident.max(1) as u64;
    let most = (columns * n[2] as u64 / resident).clamp(8, 32) as u32;
    let fill = |planes: u32| {
        let waves = (columns * (n[2] as u64).div_ceil(planes as u64)) as f64 / resident as f64;
        waves / waves.ceil()
    };
    // max_by keeps the last of equals: the most planes.
    (8.max(most - most / 4)..=most).max_by(|&a, &b| fill(a).total_cmp(&fill(b))).unwrap_or(most)
}

/// Threads of the z march for `tile`: the most x or y faces of a plane.
fn march_threads(tile: [u32; 3]) -> u32 {
    ((tile[0] + 1) * tile[1]).max(tile[0] * (tile[1] + 1))
}

/// Dynamic shared memory of the z march (euler.cu, euler_rk_march).
fn march_shared_bytes(tile: [u32; 3], real_bytes: usize) -> u32 {
    let [tx, ty, _] = tile;
    let values = 5 * (tx + 4) * (ty + 4) + 20 * tx * ty + 5 * (tx + 1) * ty + 5 * tx * (ty + 1) + 10 * tx * ty;
    values * real_bytes as u32
}

/// The tuning knob `CFD_EULER_TILE=a,b,c`, if set and all positive.
fn tile_knob() -> Option<Vec<u32>> {
    let k: Vec<u32> = std::env::var("CFD_EULER_TILE")
        .ok()?
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    k.iter().all(|&x| x > 0).then_some(k)
}

/// The RK3 stage's kernel and its launch: the z march on 3D grids (`CFD_EULER_MARCH=0` takes the
/// general tile there too, for comparison), the general tile (`euler_rk_stage`) elsewhere.
struct StageKernel {
    f: EarlyFunction,
    tile: [u32; 3],
    cfg: LaunchConfig,
}

impl StageKernel {
    /// The z march's tile where a grid of `cells` takes the march (every axis active), compiled
    /// into the module as EULER_MARCH_TX, EULER_MARCH_TY ([`StageKernel::tile_defines`]).
    fn march_plan(cells: [usize; 3]) -> Option<[u32; 3]> {
        let march = cells.iter().all(|&c| c > 1) && std::env::var("CFD_EULER_MARCH").map_or(true, |v| v != "0");
        march.then(march_tile)
    }

    /// The march's tile (`march_plan`'s) as the module's defines (names and values), none
    /// without the march.
    fn tile_defines(march: Option<[u32; 3]>) -> Vec<(&'static str, String)> {
        march
            .map(|t| vec![("EULER_MARCH_TX", t[0].to_string()), ("EULER_MARCH_TY", t[1].to_string())])
            .unwrap_or_default()
    }

    /// The stage's kernel for a grid of `cells`: the z march with the tile `march` (compiled
    /// into `defines`, [`StageKernel::tile_defines`]) or, without it, the general tile.
    fn new<R: Real>(dev: &Device, cells: [usize; 3], march: Option<[u32; 3]>, defines: &[(&str, &str)]) -> Result<Self> {
        let rb = std::mem::size_of::<R>();
        let (f, mut tile, threads, shared) = if let Some(t) = march {
            let f = dev.function::<R>(kernels::euler::RK_MARCH, defines)?;
            (f, t, march_threads(t), march_shared_bytes(t, rb))
        } else {
            let t = stage_tile(cells, rb);
            let f = dev.function::<R>(kernels::euler::RK_STAGE, defines)?;
            (f, t, stage_threads(t, cells), stage_shared_bytes(t, cells, rb))
        };
        // Above 48 KiB a kernel must opt in to its dynamic shared memory.
        f.function().set_attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared as i32,
        )?;
        if march.is_some() && tile[2] == 0 {
            // The blocks an SM holds, asked once the opt-in above is made (before it, none fit).
            let per_sm = f.function().occupancy_max_active_blocks_per_multiprocessor(threads, shared as usize, None)?;
            tile[2] = march_planes(cells, [tile[0], tile[1]], per_sm * dev.sm_count);
        }
        let cfg = LaunchConfig {
            grid_dim: (
                (cells[0] as u32).div_ceil(tile[0]),
                (cells[1] as u32).div_ceil(tile[1]),
                (cells[2] as u32).div_ceil(tile[2]),
            ),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: shared,
        };
        Ok(StageKernel { f, tile, cfg })
    }
}

impl<R: Real> CudaEuler<R> {
    pub fn new(mut setup: EulerSetup, dev: Arc<Device>, initial: &[f64]) -> Result<Self> {
        setup.grid = setup.grid.aligned_for(std::mem::size_of::<R>());
        let host = setup.grid.pad(&initial.iter().map(|&v| R::of(v)).collect::<Vec<_>>());
        let blocks = Self::reduce_blocks(&setup, &dev);
        let (limiter, riemann) = (
            limiter_code(setup.limiter).to_string(),
            riemann_code(setup.riemann).to_string(),
        );
        let zero = zero_momentum(&setup, initial);
        let zero_define = zero.map(|c| c.to_string());
        let mut defines = vec![];
        if let Some(c) = zero_define.as_deref() {
            defines.push(("EULER_ZERO_MOMENTUM", c));
        }
        // The scheme compiled in (`CFD_EULER_GENERIC=1`: by the parameters, for comparison).
        if std::env::var("CFD_EULER_GENERIC").map_or(true, |v| v != "1") {
            defines.extend([("EULER_LIMITER", limiter.as_str()), ("EULER_RIEMANN", riemann.as_str())]);
        }
        if setup.math == Math::Fast {
            defines.push(kernels::FAST_MATH);
        }
        // `CFD_EULER_SWEEP_MINB=k`, `CFD_EULER_MARCH_MINB=k`: the sweep's and the z march's
        // blocks an SM (their register caps), timing knobs.
        let knobs = [("CFD_EULER_SWEEP_MINB", "EULER_SWEEP_MINB"), ("CFD_EULER_MARCH_MINB", "EULER_MARCH_MINB")];
        let minb: Vec<(&str, String)> = knobs
            .iter()
            .filter_map(|&(var, define)| {
                let v = std::env::var(var).ok()?;
                v.parse::<u32>().is_ok_and(|k| (1..=8).contains(&k)).then_some((define, v))
            })
            .collect();
        defines.extend(minb.iter().map(|(d, v)| (*d, v.as_str())));
        // The march's tile is compiled in: one plan for the defines and the launch.
        let march = StageKernel::march_plan(setup.grid.cells);
        let tile = StageKernel::tile_defines(march);
        defines.extend(tile.iter().map(|(d, v)| (*d, v.as_str())));
        let defines = defines.as_slice();
        let stage = StageKernel::new::<R>(&dev, setup.grid.cells, march, defines)?;
        let rk = setup.scheme == Scheme::PlmRk3;
        Ok(CudaEuler {
            u0: if rk { dev.zeros(host.len())? } else { dev.zeros(1)? },
            u: dev.upload(&host)?,
            u2: dev.zeros(host.len())?,
            rates: dev.stream.alloc_zeros::<u64>(3)?,
            folded: false,
            asked: false,
            zero_momentum: zero,
            reduce_blocks: blocks,
            clock: DeviceClock::new(&dev.stream)?,
            params: ParamsC {
                layout: LayoutC::of(&setup.grid),
                gamma: R::of(setup.gamma),
                axis: 0,
                limiter: limiter_code(setup.limiter),
                riemann: riemann_code(setup.riemann),
                p: 0,
                w: 0,
                active: setup.active_axes().iter().map(|&a| 1 << a).sum(),
                h: setup.grid.h,
                unsplit: i32::from(rk),
                wa: R::zero(),
                wb: R::zero(),
                inv_h: [R::zero(); 3],
                grav: [R::zero(); 3],
                tile: stage.tile.map(|t| t as i32),
            },
            halo: DeviceHalo::new(dev.clone(), &setup.grid, &setup.bc)?.linked(setup.link.as_ref()),
            f_sweep: dev.function::<R>(kernels::euler::SWEEP, defines)?,
            f_sweep_fold: dev.function::<R>(kernels::euler::SWEEP_FOLD, defines)?,
            stage,
            f_hydrostatic: dev.function::<R>(kernels::euler::HYDROSTATIC_GHOSTS, defines)?,
            f_dt: dev.function::<R>(kernels::euler::STABLE_DT, defines)?,
            f_clock: dev.function::<R>(kernels::euler::CLOCK, defines)?,
            f_unsound: dev.function::<R>(kernels::euler::FIRST_UNSOUND, defines)?,
            setup,
            dev,
        })
    }

    /// Blocks of the grid-stride reductions: enough to fill the device, no more than the cells.
    fn reduce_blocks(setup: &EulerSetup, dev: &Device) -> u32 {
        let points = setup.grid.points() as u64;
        (points.div_ceil(REDUCE_THREADS as u64) as u32).clamp(1, 8 * dev.sm_count.max(1))
    }

    fn reduce_config(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.reduce_blocks, 1, 1),
            block_dim: (REDUCE_THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// Launch `f` of euler.cu on the state: its arguments are the parameters, `u` and `out`.
    fn launch(&self, f: &EarlyFunction, params: &ParamsC<R>, out: u64, cfg: LaunchConfig) -> Result<()> {
        let u = self.dev.ptr(&self.u);
        // SAFETY: u is a padded array of this grid with 5 components; `out` is what `f` writes
        // (the stable step's fold, three u64; the first unsound cell, one u64) and `cfg` the
        // launch it expects.
        unsafe {
            f.builder(&self.dev.stream)
                .arg(params)
                .arg(&u)
                .arg(&out)
                .launch(cfg)?
        };
        Ok(())
    }

    /// Fold the stable step of the state into `rates` (0 beforehand).
    fn fold_stable_dt(&self) -> Result<()> {
        self.launch(&self.f_dt, &self.params, self.dev.ptr(&self.rates), self.reduce_config())
    }

    /// The clock kernel: advance by the step taken, the next step from the folded rates (which
    /// it resets to 0).
    fn queue_clock(&self, cfl: f64, until: f64) -> Result<()> {
        let rates = self.dev.ptr(&self.rates);
        self.clock.queue_tick_with(&self.dev.stream, &self.f_clock, rates, cfl, until, &self.params)
    }

    /// One step of the device clock's dt (none once it is 0: the state stays), and with `fold`
    /// the stable step of its result folded into `rates` (0 beforehand: the clock kernel
    /// leaves it so). Returns whether it folded: the MUSCL-Hancock sweeps fold in their last
    /// sweep, the RK3 stage does not (`CFD_EULER_FOLD=kernel`: nor do the sweeps, for comparison;
    /// the same steps).
    fn queue_step(&mut self, step: u64, fold: bool) -> Result<bool> {
        if self.setup.scheme == Scheme::PlmRk3 {
            self.rk3_step()?;
            return Ok(false);
        }
        let fold = fold && !fold_knob_off();
        let order = sweep_order(&self.setup, step);
        for (k, &a) in order.iter().enumerate() {
            self.fill_ghosts(std::array::from_fn(|b| b == a))?;
            self.sweep(a, fold && k + 1 == order.len())?;
            std::mem::swap(&mut self.u, &mut self.u2);
        }
        Ok(fold)
    }

    /// One MUSCL-Hancock sweep along `axis` from `u` into `u2`; the ghosts of `u` are filled.
    /// `fold`: the stable step of what it writes folded into `rates`.
    fn sweep(&self, axis: usize, fold: bool) -> Result<()> {
        let g = &self.setup.grid;
        let (p, w) = tile(g.n, axis);
        let (wide, other) = (if axis == 0 { 1 } else { 0 }, if axis == 2 { 1 } else { 2 });
        let cfg = LaunchConfig {
            grid_dim: (
                (g.n[axis] as u32).div_ceil(p - 2),
                (g.n[wide] as u32).div_ceil(w),
                g.n[other] as u32,
            ),
            block_dim: (p * w, 1, 1),
            // each thread's cell's right value and the flux on its left
            shared_mem_bytes: 10 * p * w * std::mem::size_of::<R>() as u32,
        };
        let params = ParamsC {
            axis: axis as i32,
            p: p as i32,
            w: w as i32,
            ..self.params
        };
        let (u, out, clock) = (self.dev.ptr(&self.u), self.dev.ptr(&self.u2), self.dev.ptr(&self.clock.buf));
        let rates = self.dev.ptr(&self.rates);
        let mut launch = (if fold { &self.f_sweep_fold } else { &self.f_sweep }).builder(&self.dev.stream);
        launch.arg(&params).arg(&u).arg(&out).arg(&clock);
        if fold {
            launch.arg(&rates);
        }
        // SAFETY: u and out are distinct padded 5-component arrays of this grid, clock the
        // device clock's 5 doubles, rates three u64; block and shared memory as the kernel
        // indexes them (whole warps: `tile`).
        unsafe { launch.launch(cfg)? };
        Ok(())
    }

    /// The ghosts of `u`: the halo fill, the neighbours' planes (a part of a decomposed grid),
    /// then the hydrostatic walls' energy.
    /// `axes`: the ghost layers to fill; a sweep reads only those along its axis, in interior
    /// rows, which the fill of that axis alone sets to the same values.
    fn fill_ghosts(&self, axes: [bool; 3]) -> Result<()> {
        self.halo.fill_axes(self.dev.ptr(&self.u), axes)?;
        self.halo.exchange(self.dev.ptr(&self.u))?;
        let g = &self.setup.grid;
        for &(axis, side, c) in &self.setup.hydrostatic_walls {
            let a1 = (axis + 1) % 3;
            let a2 = (axis + 2) % 3;
            let n = (g.n[a1] * g.n[a2] * g.halo[axis]) as u32;
            let cfg = LaunchConfig::for_num_elems(n);
            let (u, axis, side, c1, c2) = (self.dev.ptr(&self.u), axis as i32, side as i32, R::of(c[0]), R::of(c[1]));
            // SAFETY: u is this grid's padded 5-component array; the kernel writes the energy of
            // ghost cells of one face only.
            unsafe {
                self.f_hydrostatic
                    .builder(&self.dev.stream)
                    .arg(&self.params)
                    .arg(&u)
                    .arg(&axis)
                    .arg(&side)
                    .arg(&c1)
                    .arg(&c2)
                    .launch(cfg)?
            };
        }
        Ok(())
    }

    /// One PLM + SSP-RK3 step: u0 = u, then three stages u -> u2 (swapped after each).
    fn rk3_step(&mut self) -> Result<()> {
        self.dev.stream.memcpy_dtod(&self.u, &mut self.u0)?;
        for (a, b) in RK3_WEIGHTS {
            self.fill_ghosts([true; 3])?;
            // dt comes from the device clock: the stage's own is unused here
            let sp = stage_params::<R>(&self.setup, a, b, 0.0);
            let params = ParamsC {
                wa: sp.a,
                wb: sp.b,
                inv_h: sp.inv_h,
                grav: sp.gravity,
                ..self.params
            };
            let (u, u0, out) = (self.dev.ptr(&self.u), self.dev.ptr(&self.u0), self.dev.ptr(&self.u2));
            let clock = self.dev.ptr(&self.clock.buf);
            // SAFETY: u, u0 and out are distinct padded 5-component arrays of this grid, clock
            // the device clock's 5 doubles; the block and shared memory sizes are those the
            // kernel indexes by `tile`.
            unsafe {
                self.stage
                    .f
                    .builder(&self.dev.stream)
                    .arg(&params)
                    .arg(&u)
                    .arg(&u0)
                    .arg(&out)
                    .arg(&clock)
                    .launch(self.stage.cfg)?
            };
            std::mem::swap(&mut self.u, &mut self.u2);
        }
        Ok(())
    }

    fn interior(&self) -> Result<Vec<R>> {
        Ok(self.setup.grid.unpad(&self.dev.download(&self.u)?))
    }
}

impl<R: Real> Simulation for CudaEuler<R> {
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        self.asked = true;
        if !std::mem::take(&mut self.folded) {
            self.dev.stream.memset_zeros(&mut self.rates)?;
            self.fold_stable_dt()?;
        }
        let rates = self.dev.stream.clone_dtoh(&self.rates)?;
        let unsplit = self.setup.scheme == Scheme::PlmRk3;
        Ok(cfl * stable_from_rates(self.setup.grid.h, &self.setup.active_axes(), unsplit, &rates))
    }

    /// One step of `dt` (a decomposed run's, or the step-by-step loop's). Where the steps are
    /// adaptive its last sweep also folds the stable step of its result for the next
    /// `stable_dt` (a pass over the state fewer a step: ~0.3 ms of a part's 12 ms at 512^3).
    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        self.clock.set(&self.dev.stream, clock, dt)?;
        let fold = std::mem::take(&mut self.asked);
        if fold {
            self.dev.stream.memset_zeros(&mut self.rates)?;
        }
        self.folded = self.queue_step(clock.step, fold)?;
        Ok(())
    }

    /// Up to `max_steps` steps, each found on the device (no round trip to the host a step);
    /// not for a part of a decomposed grid, whose step is the minimum over all parts.
    fn advance_batch(&mut self, clock: &Clock, cfl: f64, until: f64, max_steps: u64) -> Result<Option<Clock>> {
        if self.setup.link.is_some() {
            return Ok(None);
        }
        self.folded = false;
        self.clock.set(&self.dev.stream, clock, 0.0)?;
        self.dev.stream.memset_zeros(&mut self.rates)?;
        self.fold_stable_dt()?;
        self.queue_clock(cfl, until)?;
        for i in 0..self.clock.batch_steps(clock, until, max_steps) {
            if !self.queue_step(clock.step + i, true)? {
                self.fold_stable_dt()?;
            }
            self.queue_clock(cfl, until)?;
        }
        Ok(Some(self.clock.reached(&self.dev.stream, clock)?))
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let first = self.dev.stream.clone_htod(&[u64::MAX])?;
        self.launch(
            &self.f_unsound,
            &self.params,
            self.dev.ptr(&first),
            self.reduce_config(),
        )?;
        let cell = self.dev.stream.clone_dtoh(&first)?[0];
        if cell == u64::MAX {
            return Ok(None);
        }
        let values = self.interior()?;
        Ok(Some(gas::unsound(
            &self.setup.grid,
            self.params.gamma,
            &values,
            cell as usize,
        )))
    }

    fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
        Ok(gas::fields(&self.setup.grid, self.params.gamma, &self.interior()?))
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(to_bytes(&self.interior()?))
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        self.folded = false;
        let state = from_bytes::<R>(bytes);
        if let Some(c) = self.zero_momentum {
            let values: Vec<f64> = state.iter().map(|v| v.f64()).collect();
            if zero_momentum(&self.setup, &values) != Some(c) {
                return Err(SolverError::Other(format!(
                    "the state to load has a nonzero momentum across the 2D grid (component {c}), but this run's \
                     kernels take it as zero (its initial state had none): restart with \
                     CFD_EULER_ZERO_MOMENTUM=0 set"
                )));
            }
        }
        self.u = self.dev.upload(&self.setup.grid.pad(&state))?;
        Ok(())
    }

    fn bytes_per_step(&self) -> f64 {
        min_bytes_per_step(&self.setup, std::mem::size_of::<R>())
    }

    fn variant(&self) -> String {
        variant(&self.setup)
    }

    fn sync(&mut self) -> Result<()> {
        self.dev.sync()
    }
}

#[cfg(test)]
mod tests {
    use super::{march_planes, march_tile, stable_from_rates, zero_momentum, StageKernel};
    use crate::cases::euler::setup::EulerSetup;
    use crate::commands::specs::spec_doc;
    use crate::cases::FAMILIES;
    use proptest::prelude::*;

    /// The march's tile is compiled into the module as the launch's (the kernel indexes its
    /// shared memory by the defines, the launch covers the grid by the tile): 3D grids only.
    #[test]
    fn the_march_tile_is_compiled_in_as_launched_on_3d_grids_only() {
        for cells in [[512, 512, 512], [37, 21, 70], [64, 64, 192]] {
            let t = march_tile();
            assert_eq!(StageKernel::march_plan(cells), Some(t));
            let defines = StageKernel::tile_defines(Some(t));
            assert_eq!(defines, vec![("EULER_MARCH_TX", t[0].to_string()), ("EULER_MARCH_TY", t[1].to_string())]);
        }
        for cells in [[1000, 1000, 1], [400, 1, 1], [1, 64, 64]] {
            assert_eq!(StageKernel::march_plan(cells), None, "{cells:?}");
        }
        assert!(StageKernel::tile_defines(None).is_empty());
    }

    /// The planes a block: 31 at 512^3 on an H100 (528 blocks at once: 32.97 waves, where 32
    /// planes make 31.03), at most 32, at least 8 on grids too small to fill the device, and
    /// never fewer than 3/4 of the most that fill it.
    #[test]
    fn the_march_planes_fill_the_device_and_end_near_a_whole_wave() {
        assert_eq!(march_planes([512, 512, 512], [32, 8], 528), 31);
        assert_eq!(march_planes([37, 21, 70], [32, 8], 528), 8);
        let fill = |n: [usize; 3], planes: u32| {
            let blocks = (n[0].div_ceil(32) * n[1].div_ceil(8) * n[2].div_ceil(planes as usize)) as f64 / 528.0;
            blocks / blocks.ceil()
        };
        for n in [[256, 256, 256], [512, 512, 512], [640, 320, 1024], [1024, 1024, 1024], [96, 96, 4096]] {
            let planes = march_planes(n, [32, 8], 528);
            assert!((24..=32).contains(&planes), "{n:?}: {planes}");
            assert!((24..=32).all(|p| fill(n, p) < fill(n, planes) || (fill(n, p) == fill(n, planes) && p <= planes)));
        }
        // Equally full: the most planes (256^3 on 528 blocks: 24 and 32 planes both 3.88 waves).
        assert_eq!(march_planes([256, 256, 256], [32, 8], 528), 32);
    }

    fn setup(template: &str, sets: &[&str]) -> (EulerSetup, Vec<f64>) {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let doc = spec_doc(FAMILIES, template, &sets, None, crate::framework::config::Precision::F64).unwrap();
        let setup = EulerSetup::parse(&doc).unwrap();
        let initial = setup.initial_field();
        (setup, initial)
    }

    /// The sweeps take a momentum as zero only where it is: across a 2D MUSCL-Hancock grid, every
    /// value +0 (a -0 could turn +0 on the CPU, so it does not count); never in 1D or 3D, never
    /// for PLM + RK3 (whose gravity may drive it). (A part of a decomposed grid never: its setup
    /// has a link, which needs communicators to make.)
    #[test]
    fn a_momentum_is_taken_as_zero_only_across_a_2d_sweep_grid_where_it_is() {
        let (s, mut initial) = setup("euler-riemann-2d", &["grid.dims=[20,16,1]"]);
        assert_eq!(zero_momentum(&s, &initial), Some(3));
        let points = s.grid.points();
        initial[3 * points + 7] = -0.0;
        assert_eq!(zero_momentum(&s, &initial), None);
        initial[3 * points + 7] = 1e-300;
        assert_eq!(zero_momentum(&s, &initial), None);
        let (s, initial) = setup("euler-riemann-2d", &["grid.dims=[20,1,16]"]);
        assert_eq!(zero_momentum(&s, &initial), Some(2));
        let (s, initial) = setup("euler-riemann-2d", &["grid.dims=[20,16,1]", "euler.scheme=\"plm-rk3\""]);
        assert_eq!(zero_momentum(&s, &initial), None);
        let (s, initial) = setup("euler-toro-1", &[]);
        assert_eq!(zero_momentum(&s, &initial), None);
        let (s, initial) = setup("euler-toro-1", &["grid.dims=[8,6,4]"]);
        assert_eq!(zero_momentum(&s, &initial), None);
    }

    /// The device folds the maxima of the speeds (NaN and -0 as +0, euler.cu's cell_speeds) and
    /// divides once; the CPU (cpu.rs, stable_dt) takes the minimum over cells and axes of
    /// h / speed, passing over NaN. Both must give the same double, bit for bit.
    fn speed() -> impl Strategy<Value = f32> {
        prop_oneof![
            8 => 1e-6f32..1e4f32,
            1 => Just(f32::NAN),
            1 => Just(0.0f32),
            1 => Just(f32::INFINITY),
            1 => 1e-38f32..1e-30f32,
        ]
    }

    fn folded(x: f32) -> f64 {
        f64::from(if x > 0.0 { x } else { 0.0 })
    }

    proptest! {
        #[test]
        fn split_fold_of_maxima_is_the_cpus_minimum(
            cells in prop::collection::vec((speed(), speed(), speed()), 1..200),
            h in (1e-4f64..1.0, 1e-4f64..1.0, 1e-4f64..1.0),
            axes in prop_oneof![Just(vec![0usize]), Just(vec![0, 1]), Just(vec![0, 2]), Just(vec![0, 1, 2])],
        ) {
            let h = [h.0, h.1, h.2];
            let speeds = |c: &(f32, f32, f32), a: usize| [c.0, c.1, c.2][a];
            let cpu = cells
                .iter()
                .map(|c| axes.iter().map(|&a| h[a] / f64::from(speeds(c, a))).fold(f64::INFINITY, f64::min))
                .fold(f64::INFINITY, f64::min);
            let mut rates = [0u64; 3];
            for &a in &axes {
                let top = cells.iter().map(|c| folded(speeds(c, a))).fold(0.0, f64::max);
                rates[a] = top.to_bits();
            }
            let device = stable_from_rates(h, &axes, false, &rates);
            prop_assert_eq!(device.to_bits(), cpu.to_bits(), "device {} cpu {}", device, cpu);
        }

        #[test]
        fn unsplit_fold_of_maxima_is_the_cpus_minimum(sums in prop::collection::vec(prop_oneof![
            8 => 1e-3f64..1e9, 1 => Just(f64::NAN), 1 => Just(0.0), 1 => Just(f64::INFINITY)], 1..200)) {
            let cpu = sums.iter().map(|&s| 1.0 / s).fold(f64::INFINITY, f64::min);
            let top = sums.iter().map(|&s| if s > 0.0 { s } else { 0.0 }).fold(0.0, f64::max);
            let device = stable_from_rates([1.0; 3], &[0, 1, 2], true, &[top.to_bits(), 0, 0]);
            prop_assert_eq!(device.to_bits(), cpu.to_bits(), "device {} cpu {}", device, cpu);
        }
    }
}
