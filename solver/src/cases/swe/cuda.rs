//! Shallow water on CUDA devices (kernels/cuda/swe.cu): one device or several, each holding a
//! slab of rows (`slab.rs`; several devices of this process, or one per MPI rank, or both).
//! Per step, on each device: the point sources, the halo fill of the physical faces, the open
//! sides (their series read at the device clock's time), and the tiled step kernel from `w`
//! into `w2` (swapped after), the dry-cell rules and friction fused in; the same arithmetic
//! in the same order as the CPU (`cpu.rs`, `roe.rs`), so every backend and decomposition takes
//! the same adaptive steps. The step size is found on the devices: each step folds the wave-speed
//! rate of the state it wrote into one atomic maximum per device, NCCL reduces it across devices,
//! and a one-thread clock kernel turns it into the next step; a batch of steps (`advance_batch`)
//! needs one round trip to the host, not one per step.
//!
//! Between devices, the ghost rows travel by NCCL on each device's second stream while the
//! compute stream updates the tile rows that do not need them; the rows beside other devices
//! follow once they have arrived (`CFD_SWE_EXCHANGE=serial` runs the exchange on the compute
//! stream instead, `off` skips it: timing diagnostics only, the results are then wrong).
//! Ghost-cell expansion (`shallow-water.ghost_rows = k`): k rows travel every k steps, and in
//! between each part updates the ghost rows still valid again (`slab::updated_rows`, the step
//! kernel's row range), as the CPU does, so the results stay those of one device.

use super::forcing::Packed;
use super::{slab, Ledger, SweSetup};
use crate::backend::cuda::{Device, DeviceClock, EarlyFunction};
use crate::backend::nccl::{self, Comms};
use crate::error::{Result, SolverError};
use crate::framework::ranks::{Ranks, Slab};
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::grid::cuda::{DeviceHalo, LayoutC};
use crate::grid::{FaceBc, StructuredGrid};
use crate::output::Field;
use crate::real::{from_bytes, Real};
use cudarc::driver::{CudaEvent, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Threads per block of the rate kernel (its reduction assumes a multiple of 32).
const THREADS: u32 = 256;
/// Steps queued ahead on each device when one process drives several (a few hundred launches).
const QUEUED_STEPS: u64 = 16;

/// `CFD_SWE_DEFINES` (e.g. "SWE_TX=16 SWE_TY=8 SWE_MINB=7 SWE_EDGE_LOOPS_BY_AXIS=0"): defines
/// of the step kernel, its tile, the blocks an SM should hold and its edge loops (a timing knob:
/// the results do not depend on them).
fn step_defines() -> &'static [(String, String)] {
    static SET: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    SET.get_or_init(|| {
        let v = std::env::var("CFD_SWE_DEFINES").unwrap_or_default();
        v.split_whitespace().filter_map(|d| d.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
    })
}

fn define_set(name: &str) -> Option<u32> {
    step_defines().iter().find(|(k, _)| k == name).and_then(|(_, v)| v.parse().ok())
}


/// Mirrors `struct SweParams` in swe.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct ParamsC<R> {
    layout: LayoutC,
    gravity: f64,
    dry_d: f64,
    h: [f64; 2],
    manning: f64,
    area: f64,
    grav: R,
    dry: R,
    thin: R,
    active: i32,
    faces: [i32; 4],
}

// SAFETY: plain-old-data with the same layout as the C struct.
unsafe impl<R: DeviceRepr> DeviceRepr for ParamsC<R> {}

/// Mirrors `struct SweOpen` in swe.cu: an open side, its series as (offset, length).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct OpenC {
    conc: f64,
    axis: i32,
    side: i32,
    level: [i32; 2],
    discharge: [i32; 2],
    has_conc: i32,
}

/// Mirrors `struct SweOpenSides` in swe.cu (at most one open side per face).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct OpenSidesC {
    side: [OpenC; 4],
    count: i32,
}

// SAFETY: plain-old-data with the same layout as the C structs.
unsafe impl DeviceRepr for OpenSidesC {}

/// The forcing on the device: the packed series, the open sides (and the most cells one has),
/// the sources' cells (padded indices; those in the ghost rows too), series and concentrations,
/// and the water and pollutant the slab's own sources added.
struct DeviceForcing {
    series: CudaSlice<f64>,
    open: OpenSidesC,
    open_cells: i32,
    cells: CudaSlice<u64>,
    desc: CudaSlice<i32>,
    conc: CudaSlice<f64>,
    count: i32,
    added: CudaSlice<f64>,
    f_open: EarlyFunction,
    f_sources: EarlyFunction,
}

impl DeviceForcing {
    fn new<R: Real>(dev: &Arc<Device>, setup: &SweSetup) -> Result<Self> {
        let (f, g) = (&setup.forcing, &setup.grid);
        let mut packed = Packed::default();
        let mut open = OpenSidesC::default();
        let mut open_cells = 0;
        for (k, o) in f.open.iter().enumerate() {
            open.side[k] = OpenC {
                conc: o.concentration.unwrap_or(0.0),
                axis: o.axis as i32,
                side: o.side as i32,
                level: packed.add(o.level.as_ref()),
                discharge: packed.add(o.discharge.as_ref()),
                has_conc: i32::from(o.concentration.is_some()),
            };
            open_cells = open_cells.max(g.n[1 - o.axis] as i32);
        }
        open.count = f.open.len() as i32;
        // The sources in the slab's rows and its ghost rows (`Forcing::for_rows`), in order.
        let cells: Vec<u64> = f.sources.iter().map(|s| g.at(s.cell[0], s.cell[1], 0) as u64).collect();
        let desc: Vec<i32> = f.sources.iter().flat_map(|s| packed.add(Some(&s.discharge))).collect();
        let conc: Vec<f64> = f.sources.iter().map(|s| s.concentration).collect();
        // No buffer is empty (a zero-length allocation is refused).
        let nonempty = |v: Vec<f64>| if v.is_empty() { vec![0.0] } else { v };
        let stream = &dev.stream;
        Ok(DeviceForcing {
            series: stream.clone_htod(&nonempty(packed.series))?,
            open,
            open_cells,
            count: cells.len() as i32,
            cells: stream.clone_htod(&[cells, vec![0]].concat())?,
            desc: stream.clone_htod(&[desc, vec![0, 0]].concat())?,
            conc: stream.clone_htod(&nonempty(conc))?,
            added: stream.alloc_zeros::<f64>(2)?,
            f_open: dev.function::<R>(kernels::swe::OPEN, &[])?,
            f_sources: dev.function::<R>(kernels::swe::SOURCES, &[])?,
        })
    }
}

/// One device's slab: its state, bed, clock and kernels.
struct Part<R: Real> {
    /// The slab's setup, its grid's rows aligned for the device.
    setup: SweSetup,
    slab: Slab,
    dev: Arc<Device>,
    /// (h, q_x, q_y, hC), padded, one component after another; the step's output (swapped).
    w: CudaSlice<R>,
    w2: CudaSlice<R>,
    /// The bed's depth H, padded, ghosts included.
    bed: CudaSlice<R>,
    /// The slab's bed in the run's precision, interior cells (the `bed` output field).
    bed_interior: Vec<f64>,
    /// The device clock, the folded rate, the clipped water volume.
    clock: DeviceClock,
    rate: CudaSlice<u64>,
    clipped: CudaSlice<f64>,
    /// What crossed the grid's faces (water in, out, pollutant in, out).
    ledger: CudaSlice<f64>,
    /// The largest hC / h and -hC / h seen after any step (bits of non-negative doubles), and
    /// at the start (`Ledger::conc_bounds`).
    bounds: CudaSlice<u64>,
    start_bounds: [f64; 2],
    params: ParamsC<R>,
    halo: DeviceHalo<R>,
    f_rate: EarlyFunction,
    f_step: EarlyFunction,
    f_clock: EarlyFunction,
    f_bad: EarlyFunction,
    forcing: DeviceForcing,
    /// The slab's water at the start of the run (the totals' open-side inflow), its pollutant.
    start_water: f64,
    start_pollutant: f64,
    /// The state is complete (compute stream) / the ghost rows have arrived (second stream).
    ready: CudaEvent,
    arrived: CudaEvent,
}

impl<R: Real> Part<R> {
    /// The part of `slab` on `dev`: its setup (`slab::local_setup`), interior initial state
    /// and padded bed in the CPU's layout (`slab::local_fields`).
    fn new(mut setup: SweSetup, slab: Slab, dev: Arc<Device>, initial: &[f64], bed: &[f64]) -> Result<Self> {
        let cpu_bed_grid = StructuredGrid { components: 1, ..setup.grid.clone() };
        setup.grid = setup.grid.aligned_for(std::mem::size_of::<R>());
        let g = &setup.grid;
        let host = g.pad(&initial.iter().map(|&v| R::of(v)).collect::<Vec<_>>());
        let bed_grid = StructuredGrid { components: 1, ..g.clone() };
        let b: Vec<R> = bed.iter().map(|&v| R::of(v)).collect();
        let b = cpu_bed_grid.relayout(&bed_grid, &b);
        let bed_interior = bed_grid.unpad(&b).iter().map(|v| v.f64()).collect();
        let params = ParamsC {
            layout: LayoutC::of(g),
            gravity: setup.gravity,
            dry_d: setup.dry,
            h: [g.h[0], g.h[1]],
            manning: setup.manning,
            area: g.h[0] * g.h[1],
            grav: R::of(setup.gravity),
            dry: R::of(setup.dry),
            thin: R::of(setup.thin),
            active: setup.axes().iter().map(|&a| 1 << a).sum(),
            faces: std::array::from_fn(|f| match setup.bc.faces[f / 2][f % 2] {
                FaceBc::Periodic => 1,
                FaceBc::Neighbour => 2,
                _ => 0,
            }),
        };
        let stream = &dev.stream;
        let rounded = super::cpu::initial_rounded::<R>(initial);
        let (start_water, start_pollutant) = (super::water(&setup, &rounded), super::pollutant(&setup, &rounded));
        Ok(Part {
            start_pollutant,
            start_bounds: super::conc_bounds(&setup, &rounded),
            bounds: stream.alloc_zeros::<u64>(2)?,
            ledger: stream.alloc_zeros::<f64>(4)?,
            forcing: DeviceForcing::new::<R>(&dev, &setup)?,
            start_water,
            w: dev.upload(&host)?,
            w2: dev.upload(&host)?,
            bed: dev.upload(&b)?,
            bed_interior,
            clock: DeviceClock::new(stream)?,
            rate: stream.alloc_zeros::<u64>(1)?,
            clipped: stream.alloc_zeros::<f64>(1)?,
            params,
            halo: DeviceHalo::new(dev.clone(), g, &setup.bc)?,
            f_rate: dev.function::<R>(kernels::swe::RATE, &[])?,
            f_step: {
                let owned = Self::step_kernel_defines();
                let d: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                let f = dev.function::<R>(kernels::swe::STEP, &d)?;
                // Above 48 KiB a kernel must opt in to its dynamic shared memory.
                f.function().set_attribute(
                    cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    Self::step_shared_bytes() as i32,
                )?;
                f
            },
            f_clock: dev.function::<R>(kernels::swe::CLOCK, &[])?,
            f_bad: dev.function::<R>(kernels::swe::FIRST_BAD, &[])?,
            ready: dev.ctx.new_event(None)?,
            arrived: dev.ctx.new_event(None)?,
            setup,
            slab,
            dev,
        })
    }

    /// The step kernel's tile (`TX`, `TY` in swe.cu): 32 x 8 cells (16 x 8 in double
    /// precision, chosen while its shared memory was static), or `CFD_SWE_DEFINES`'s SWE_TX,
    /// SWE_TY (a timing knob).
    fn tile_cols() -> u32 {
        define_set("SWE_TX").unwrap_or(if std::mem::size_of::<R>() == 4 { 32 } else { 16 })
    }

    fn tile_rows() -> u32 {
        define_set("SWE_TY").unwrap_or(8)
    }

    /// The step kernel's defines: `CFD_SWE_DEFINES`'s, the size of its shared memory (which the
    /// kernel checks against its struct) and, in single precision, its edges in one loop an
    /// axis (measured faster there, slower in double: swe.cu), unless `CFD_SWE_DEFINES` says.
    fn step_kernel_defines() -> Vec<(String, String)> {
        let mut d = step_defines().to_vec();
        d.push(("SWE_STEP_SHARED_BYTES".into(), Self::step_shared_bytes().to_string()));
        if std::mem::size_of::<R>() == 4 && define_set("SWE_EDGE_LOOPS_BY_AXIS").is_none() {
            d.push(("SWE_EDGE_LOOPS_BY_AXIS".into(), "1".into()));
        }
        d
    }

    /// The step kernel's dynamic shared memory (swe.cu, `StepShared`).
    fn step_shared_bytes() -> u32 {
        kernels::swe::step_shared_bytes(Self::tile_cols(), Self::tile_rows(), std::mem::size_of::<R>())
    }

    /// The rate of the current state folded into `rate` (zeroed first).
    fn fold_rate(&mut self) -> Result<()> {
        self.dev.stream.memset_zeros(&mut self.rate)?;
        let (w, rate) = (self.dev.ptr(&self.w), self.dev.ptr(&self.rate));
        let points = self.setup.grid.points() as u32;
        let cfg = LaunchConfig {
            grid_dim: (points.div_ceil(THREADS), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: w is this grid's padded 4-component state, rate one u64; one thread per cell.
        unsafe { self.f_rate.builder(&self.dev.stream).arg(&self.params).arg(&w).arg(&rate).launch(cfg)? };
        Ok(())
    }

    /// The step of the device clock's dt from `w` into `w2` over the tile rows of `t`.
    fn queue_tiles(&self, t: &Tiles) -> Result<()> {
        if t.count == 0 {
            return Ok(());
        }
        let d = &self.dev;
        let (w, bed, out) = (d.ptr(&self.w), d.ptr(&self.bed), d.ptr(&self.w2));
        let (clock, rate, clipped) = (d.ptr(&self.clock.buf), d.ptr(&self.rate), d.ptr(&self.clipped));
        let (ledger, bounds) = (d.ptr(&self.ledger), d.ptr(&self.bounds));
        let ty = Self::tile_rows();
        let cfg = LaunchConfig {
            grid_dim: ((self.setup.grid.cells[0] as u32).div_ceil(Self::tile_cols()), t.count, 1),
            block_dim: (Self::tile_cols() * ty, 1, 1),
            shared_mem_bytes: Self::step_shared_bytes(),
        };
        let (first, step) = (t.first as i32, t.step as i32);
        let (row0, row_end) = (t.rows.start as i32, t.rows.end as i32);
        // SAFETY: w and out are distinct padded 4-component arrays of this grid, bed its padded
        // bed, the clock 5 doubles, rate one u64, clipped one double, ledger 4 doubles,
        // bounds 2 u64; tiles of TX x TY cells (TY the kernel's: `tile_rows`); the rows and the
        // `slab::REACH` rows around them lie inside the halo (`tile_plan`).
        unsafe {
            self.f_step
                .builder(&d.stream)
                .arg(&self.params)
                .arg(&w)
                .arg(&bed)
                .arg(&out)
                .arg(&clock)
                .arg(&rate)
                .arg(&clipped)
                .arg(&ledger)
                .arg(&bounds)
                .arg(&first)
                .arg(&step)
                .arg(&row0)
                .arg(&row_end)
                .launch(cfg)?
        };
        Ok(())
    }

    /// The water and pollutant over the clock's step of the sources in rows `rows`, if any.
    fn queue_sources(&self, rows: &std::ops::Range<isize>) -> Result<()> {
        let f = &self.forcing;
        if f.count == 0 {
            return Ok(());
        }
        let d = &self.dev;
        let (w, clock, series) = (d.ptr(&self.w), d.ptr(&self.clock.buf), d.ptr(&f.series));
        let (cells, desc, conc, added) = (d.ptr(&f.cells), d.ptr(&f.desc), d.ptr(&f.conc), d.ptr(&f.added));
        let (lo, hi) = (rows.start as i32, rows.end as i32);
        // SAFETY: w is this grid's padded state, the clock 5 doubles, series the packed
        // series that desc (2 ints a source) points into, cells and conc one entry a source,
        // added two doubles; one thread.
        unsafe {
            f.f_sources
                .builder(&d.stream)
                .arg(&self.params)
                .arg(&w)
                .arg(&clock)
                .arg(&series)
                .arg(&cells)
                .arg(&desc)
                .arg(&conc)
                .arg(&f.count)
                .arg(&added)
                .arg(&lo)
                .arg(&hi)
                .launch(LaunchConfig {
                    grid_dim: (1, 1, 1),
                    block_dim: (1, 1, 1),
                    shared_mem_bytes: 0,
                })?
        };
        Ok(())
    }

    /// The ghosts of the open sides at the clock's time (after the halo fill), if any: the x
    /// sides in rows `x_rows`, the y sides too if `y_sides`.
    fn queue_open(&self, x_rows: &std::ops::Range<isize>, y_sides: bool) -> Result<()> {
        let f = &self.forcing;
        if f.open.count == 0 {
            return Ok(());
        }
        let d = &self.dev;
        let (w, bed, series, clock) = (d.ptr(&self.w), d.ptr(&self.bed), d.ptr(&f.series), d.ptr(&self.clock.buf));
        let (x_row0, x_count) = (x_rows.start as i32, x_rows.len() as i32);
        let per_side = if y_sides { f.open_cells.max(x_count) } else { x_count };
        let y_sides = i32::from(y_sides);
        let threads = (f.open.count * per_side) as u32;
        if threads == 0 {
            return Ok(());
        }
        // SAFETY: w and bed are this grid's padded state and bed, series the packed series the
        // sides point into, the clock 5 doubles; per_side threads a side; the x rows lie
        // inside the halo.
        unsafe {
            f.f_open
                .builder(&d.stream)
                .arg(&self.params)
                .arg(&f.open)
                .arg(&w)
                .arg(&bed)
                .arg(&series)
                .arg(&clock)
                .arg(&per_side)
                .arg(&x_row0)
                .arg(&x_count)
                .arg(&y_sides)
                .launch(LaunchConfig {
                    grid_dim: (threads.div_ceil(THREADS), 1, 1),
                    block_dim: (THREADS, 1, 1),
                    shared_mem_bytes: 0,
                })?
        };
        Ok(())
    }

    /// The clock kernel: advance by the step taken, the next step from the (reduced) rate.
    fn queue_clock(&self, cfl: f64, until: f64) -> Result<()> {
        let rate = self.dev.ptr(&self.rate);
        self.clock.queue_tick(&self.dev.stream, &self.f_clock, rate, cfl, until)
    }

    fn set_clock(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        self.clock.set(&self.dev.stream, clock, dt)
    }

    /// The x ghosts and the open x sides of the rows `rows` updates beyond the slab's own (its
    /// ghost rows updated again, once they hold their values), as the owner fills them; the
    /// slab's own rows are filled again to the same values (one launch each).
    fn queue_ghost_fill(&self, rows: &std::ops::Range<isize>) -> Result<()> {
        if *rows == (0..self.setup.grid.n[1] as isize) {
            return Ok(());
        }
        self.halo.fill_x_of_rows(self.dev.ptr(&self.w), rows.clone())?;
        self.queue_open(rows, false)
    }

    /// The step kernel's launches `plan` (half of a `tile_plan`).
    fn queue_plan(&self, plan: &[Tiles]) -> Result<()> {
        plan.iter().try_for_each(|t| self.queue_tiles(t))
    }

    fn interior(&self) -> Result<Vec<R>> {
        Ok(self.setup.grid.unpad(&self.dev.download(&self.w)?))
    }

    /// The first interior cell whose state is not sound (x fastest) and its (h, q_x, q_y, hC).
    fn first_bad(&self) -> Result<Option<(usize, [f64; 4])>> {
        let first = self.dev.stream.clone_htod(&[u64::MAX])?;
        let (w, out) = (self.dev.ptr(&self.w), self.dev.ptr(&first));
        let cfg = LaunchConfig {
            grid_dim: (8 * self.dev.sm_count.max(1), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: w is this grid's padded state, out one u64; a grid-stride loop over cells.
        unsafe { self.f_bad.builder(&self.dev.stream).arg(&self.params).arg(&w).arg(&out).launch(cfg)? };
        let cell = self.dev.stream.clone_dtoh(&first)?[0];
        if cell == u64::MAX {
            return Ok(None);
        }
        let (values, n) = (self.interior()?, self.setup.grid.points());
        Ok(Some((cell as usize, std::array::from_fn(|k| values[k * n + cell as usize].f64()))))
    }
}

/// One launch of the step kernel: rows `rows` tiled from their first, `TY` rows a tile row, of
/// which tile rows first, first + step, ... (`count` of them).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tiles {
    rows: std::ops::Range<isize>,
    first: u32,
    count: u32,
    step: u32,
}

impl Tiles {
    /// Every tile row of `rows`.
    fn all(rows: std::ops::Range<isize>, ty: u32) -> Tiles {
        let count = (rows.len() as u32).div_ceil(ty);
        Tiles { rows, first: 0, count, step: 1 }
    }
}

/// The step kernel's launches over `rows` (`slab::updated_rows`) of a slab of `ny` rows, `ty`
/// rows a tile row: before the ghost rows arrive, and after. Without `split` (nothing arrives
/// this step, or it arrived before the step) one launch over all, before. With `split`
/// ([below, above]: where other slabs are), the tile rows of the owned rows that read no ghost
/// row go first; once the ghost rows have arrived, the ghost rows updated again below and above,
/// then the owned tile rows beside other slabs (the first and the last, in one launch).
fn tile_plan(rows: std::ops::Range<isize>, ny: usize, ty: u32, split: Option<[bool; 2]>) -> [Vec<Tiles>; 2] {
    let Some([lo, hi]) = split else {
        return [vec![Tiles::all(rows, ty)], vec![]];
    };
    let own = 0..ny as isize;
    let tiles = (ny as u32).div_ceil(ty);
    let inner = tiles.saturating_sub(u32::from(lo) + u32::from(hi));
    let before = vec![Tiles { rows: own.clone(), first: u32::from(lo).min(tiles), count: inner, step: 1 }];
    let mut after = vec![];
    for ghost in [rows.start..0, ny as isize..rows.end] {
        if !ghost.is_empty() {
            after.push(Tiles::all(ghost, ty));
        }
    }
    let edge = |first, count, step| Tiles { rows: own.clone(), first, count, step };
    match (lo, hi) {
        (true, true) if tiles > 1 => after.push(edge(0, 2, tiles - 1)),
        (true, _) => after.push(edge(0, 1, 1)),
        (false, true) => after.push(edge(tiles - 1, 1, 1)),
        (false, false) => {}
    }
    [before, after]
}

/// How the ghost rows travel between devices (`CFD_SWE_EXCHANGE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exchange {
    /// On the second stream, overlapped with the tile rows that do not need them.
    Overlap,
    /// On the compute stream, before the step.
    Serial,
    /// Not at all, the tile rows still split as for the overlap (timing only: wrong results).
    Off,
}

pub struct CudaSwe<R: Real> {
    parts: Vec<Part<R>>,
    /// The processes of the run, and the communicators of the ghost rows (second streams) and
    /// of the rate (compute streams) when there is more than one part in all.
    ranks: &'static dyn Ranks,
    halo_comms: Option<Arc<Comms>>,
    rate_comms: Option<Comms>,
    /// The parts in all, the whole grid's cells along x and y.
    total: usize,
    whole: [usize; 2],
    exchange: Exchange,
    /// Ghost rows beside other parts (`shallow-water.ghost_rows`), and the steps queued since the
    /// start or a restart (they arrive every `ghost_rows` steps: `slab::updated_rows`).
    ghost_rows: usize,
    steps: usize,
}

impl<R: Real> CudaSwe<R> {
    /// The run on `gpus` devices of this process from `dev`'s ordinal (and as many on each other
    /// rank): the whole setup, its initial state and bed.
    pub fn new(setup: &SweSetup, ranks: &'static dyn Ranks, dev: Arc<Device>, gpus: usize, w: &[f64], bed: &[f64]) -> Result<Self> {
        let total = ranks.size() * gpus;
        let first = ranks.rank() * gpus;
        let mut parts = Vec::with_capacity(gpus);
        for g in 0..gpus {
            let slab = setup.slab_of(first + g, total).map_err(SolverError::Other)?;
            let local = slab::local_setup(setup, &slab);
            let (lw, lbed) = slab::local_fields(setup, &local, &slab, w, bed);
            let d = if g == 0 { dev.clone() } else { Device::open(dev.ctx.ordinal() + g)? };
            parts.push(Part::new(local, slab, d, &lw, &lbed)?);
        }
        let devices: Vec<Arc<Device>> = parts.iter().map(|p| p.dev.clone()).collect();
        let (halo_comms, rate_comms) = if total > 1 {
            (Some(Arc::new(Comms::new(ranks, &devices, first, total)?)), Some(Comms::new(ranks, &devices, first, total)?))
        } else {
            (None, None)
        };
        // The ghost rows travel by the grid layer's exchange: slabs along y, not a ring.
        for (k, p) in parts.iter_mut().enumerate() {
            let split = crate::grid::parts::Split {
                axis: 1,
                slab: p.slab,
                ring: false,
            };
            let device = halo_comms.as_ref().map(|c| (c.clone(), k));
            // Its parts are driven from one thread: NCCL's grouped calls, not the peer group's meetings.
            p.halo.set_link(Some(crate::grid::parts::Link { split, device, peer: None }));
        }
        let exchange = match std::env::var("CFD_SWE_EXCHANGE").as_deref() {
            Ok("serial") => Exchange::Serial,
            Ok("off") => Exchange::Off,
            _ => Exchange::Overlap,
        };
        Ok(CudaSwe {
            parts,
            ranks,
            halo_comms,
            rate_comms,
            total,
            whole: [setup.grid.cells[0], setup.grid.cells[1]],
            exchange,
            ghost_rows: setup.ghost_rows,
            steps: 0,
        })
    }

    /// Each part sends its first and last `ghost_rows` owned rows to the parts below and above
    /// and receives theirs into its ghost rows (`DeviceHalo::exchange_on`: one message a
    /// component and side), on the aux or the compute stream; one NCCL group for all.
    fn send_ghost_rows(&self, on_aux: bool) -> Result<()> {
        if self.halo_comms.is_none() {
            return Ok(());
        }
        nccl::group(|| {
            for p in &self.parts {
                let stream = if on_aux { &p.dev.aux } else { &p.dev.stream };
                // The stream orders the exchange after the step that wrote the owned rows and
                // before the one that reads the ghosts.
                p.halo.exchange_on(p.dev.ptr(&p.w), stream)?;
            }
            Ok(())
        })
    }

    /// The rate folded on each part, reduced to its maximum over all parts.
    fn reduce_rates(&self) -> Result<()> {
        let Some(comms) = &self.rate_comms else { return Ok(()) };
        nccl::group(|| {
            for (k, p) in self.parts.iter().enumerate() {
                // SAFETY: `rate` is one u64 on the part's device, written by the compute stream.
                unsafe { comms.max_u64(k, p.dev.ptr(&p.rate), &p.dev.stream)? };
            }
            Ok(())
        })
    }

    /// One step on every part (queued, not waited for). With ghost-cell expansion the ghost
    /// rows travel every `ghost_rows` steps; each step updates the rows `slab::updated_rows`
    /// gives, as the CPU does.
    fn queue_step(&mut self, cfl: f64, until: f64) -> Result<()> {
        let step = self.steps;
        self.steps += 1;
        let ny = |p: &Part<R>| p.setup.grid.cells[1];
        let arrive = self.total > 1 && step.is_multiple_of(self.ghost_rows);
        // A step reads two rows beyond those it updates (`slab::REACH`: the donors' shares), so
        // every tile row waits for the ghost rows (they still travel on the second stream; the
        // split plan of `tile_plan` assumes one row and is not used).
        let split = false;
        // The sources change the cells the update reads: before the owned rows travel.
        for p in &self.parts {
            let (rows, _) = slab::updated_rows(step, self.ghost_rows, ny(p), &p.slab);
            p.queue_sources(&slab::read_rows(&rows, &p.slab))?;
        }
        if arrive && self.exchange == Exchange::Overlap {
            for p in &self.parts {
                p.ready.record(&p.dev.stream)?;
                p.dev.aux.wait(&p.ready)?;
            }
            self.send_ghost_rows(true)?;
            for p in &self.parts {
                p.arrived.record(&p.dev.aux)?;
            }
        } else if arrive && self.exchange == Exchange::Serial {
            self.send_ghost_rows(false)?;
        }
        for p in &self.parts {
            if arrive && self.exchange == Exchange::Overlap {
                p.dev.stream.wait(&p.arrived)?;
            }
            p.halo.fill(p.dev.ptr(&p.w))?;
            p.queue_open(&(0..ny(p) as isize), true)?;
            let (rows, _) = slab::updated_rows(step, self.ghost_rows, ny(p), &p.slab);
            let beside = split.then(|| [p.slab.has_below(), p.slab.has_above()]);
            let [before, after] = tile_plan(rows.clone(), ny(p), Part::<R>::tile_rows(), beside);
            // The x ghosts of the updated rows and of the row beyond them (`slab::filled_rows`).
            let filled = slab::filled_rows(&rows, &p.slab);
            if !split {
                p.queue_ghost_fill(&filled)?;
            }
            // Tile rows beside other parts wait for the ghost rows; the rest go first.
            p.queue_plan(&before)?;
            if split && self.exchange == Exchange::Overlap {
                p.dev.stream.wait(&p.arrived)?;
            }
            if split {
                p.queue_ghost_fill(&filled)?;
            }
            p.queue_plan(&after)?;
        }
        self.reduce_rates()?;
        for p in &mut self.parts {
            p.queue_clock(cfl, until)?;
            std::mem::swap(&mut p.w, &mut p.w2);
        }
        Ok(())
    }

    /// The process's parts' interiors as one component-major array of its rows.
    fn interior(&self) -> Result<Vec<R>> {
        let locals: Vec<Vec<R>> = self.parts.iter().map(|p| p.interior()).collect::<Result<_>>()?;
        Ok((0..4)
            .flat_map(|k| {
                locals.iter().flat_map(move |v| {
                    let n = v.len() / 4;
                    v[k * n..(k + 1) * n].to_vec()
                })
            })
            .collect())
    }
}

impl<R: Real> Simulation for CudaSwe<R> {
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        for p in &mut self.parts {
            p.fold_rate()?;
        }
        self.reduce_rates()?;
        let p = &self.parts[0];
        let rate = f64::from_bits(p.dev.stream.clone_dtoh(&p.rate)?[0]);
        Ok(if rate > 0.0 { cfl / rate } else { f64::INFINITY })
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        for p in &mut self.parts {
            p.set_clock(clock, dt)?;
        }
        // The clock kernel that follows the step finds dt = 0 for want of an end: no harm.
        self.queue_step(1.0, clock.time)
    }

    /// Up to `max_steps` steps, each found on the devices, none past `until`; one round trip.
    fn advance_batch(&mut self, clock: &Clock, cfl: f64, until: f64, max_steps: u64) -> Result<Option<Clock>> {
        for p in &mut self.parts {
            p.set_clock(clock, 0.0)?;
            p.fold_rate()?;
        }
        self.reduce_rates()?;
        for p in &self.parts {
            p.queue_clock(cfl, until)?;
        }
        let mut previous: Vec<CudaEvent> = Vec::new();
        // Every part and rank holds the same clock, so all queue the same steps.
        for i in 0..self.parts[0].clock.batch_steps(clock, until, max_steps) {
            self.queue_step(cfl, until)?;
            // One thread driving several devices keeps their launch queues short: a full queue on
            // one device blocks the host before it has queued the other's half of an NCCL
            // exchange, and both wait forever. Wait for the chunk before the last one.
            if self.parts.len() > 1 && (i + 1) % QUEUED_STEPS == 0 {
                for e in previous.drain(..) {
                    e.synchronize()?;
                }
                for p in &self.parts {
                    previous.push(p.dev.stream.record_event(None)?);
                }
            }
        }
        let p = &mut self.parts[0];
        let reached = p.clock.reached(&p.dev.stream, clock)?;
        Ok(Some(reached))
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let mut mine = None;
        for p in &self.parts {
            if let Some((cell, state)) = p.first_bad()? {
                mine = Some((p.slab.start * self.whole[0] + cell, state));
                break;
            }
        }
        Ok(slab::first_bad(self.ranks, mine).map(super::unhealthy))
    }

    fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
        let values: Vec<f64> = self.interior()?.iter().map(|v| v.f64()).collect();
        let mut bed = Vec::new();
        for p in &self.parts {
            bed.extend_from_slice(&p.bed_interior);
        }
        let fields = super::fields(&values, &bed, self.parts[0].setup.dry);
        Ok(slab::gather_fields(self.ranks, fields))
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(slab::gather_state(self.ranks, &self.interior()?))
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let nx = self.whole[0];
        let whole = from_bytes::<R>(bytes);
        for p in &mut self.parts {
            let local = slab::cut_state(nx, &p.slab, &whole);
            let local64: Vec<f64> = local.iter().map(|v| v.f64()).collect();
            p.start_water = super::water(&p.setup, &local64);
            p.start_pollutant = super::pollutant(&p.setup, &local64);
            p.start_bounds = super::conc_bounds(&p.setup, &local64);
            p.dev.stream.memset_zeros(&mut p.ledger)?;
            p.dev.stream.memset_zeros(&mut p.bounds)?;
            p.w = p.dev.upload(&p.setup.grid.pad(&local))?;
        }
        // The ghost rows travel at the next step.
        self.steps = 0;
        Ok(())
    }

    fn bytes_per_step(&self) -> f64 {
        self.parts.iter().map(|p| super::min_bytes_per_step(&p.setup, std::mem::size_of::<R>())).sum()
    }

    fn variant(&self) -> String {
        match (self.total, self.ghost_rows) {
            (1, _) => "roe-path-conservative".into(),
            (n, 1) => format!("roe-path-conservative, {n} devices"),
            (n, k) => format!("roe-path-conservative, {n} devices, {k} ghost rows"),
        }
    }

    fn sync(&mut self) -> Result<()> {
        self.parts.iter().try_for_each(|p| p.dev.sync())
    }

    fn decomposition(&self) -> Option<Vec<crate::grid::parts::Block>> {
        let [nx, ny] = self.whole;
        let per_rank = self.parts.len();
        (self.total > 1).then(|| crate::grid::parts::blocks([nx, ny, 1], 1, self.total, per_rank, true))
    }

    fn totals(&mut self) -> Result<Vec<(String, f64)>> {
        // Each part's totals (its own start, clipping, sources), summed over parts and ranks.
        let mut sums: Vec<(String, f64)> = Vec::new();
        let mut seen = [0.0f64; 2];
        for p in &self.parts {
            let b = p.dev.stream.clone_dtoh(&p.bounds)?;
            for k in 0..2 {
                seen[k] = seen[k].max(p.start_bounds[k]).max(f64::from_bits(b[k]));
            }
            let added = p.dev.stream.clone_dtoh(&p.forcing.added)?;
            let crossed = p.dev.stream.clone_dtoh(&p.ledger)?;
            let ledger = Ledger {
                clipped: p.dev.stream.clone_dtoh(&p.clipped)?[0],
                sources: [added[0], added[1]],
                start_water: p.start_water,
                start_pollutant: p.start_pollutant,
                boundary: [crossed[0], crossed[1], crossed[2], crossed[3]],
                conc_bounds: seen,
            };
            let values: Vec<f64> = p.interior()?.iter().map(|v| v.f64()).collect();
            let t = super::totals(&p.setup, &values, &ledger);
            if sums.is_empty() {
                sums = t;
            } else {
                sums.iter_mut().zip(t).for_each(|(s, (_, v))| s.1 += v);
            }
        }
        Ok(super::with_relative(self.ranks, slab::sum_totals(self.ranks, sums), seen))
    }
}

#[cfg(test)]
mod tests {
    use super::{slab, tile_plan, Part, Tiles};
    use crate::framework::ranks::Slab;

    /// The step kernel is compiled with its shared memory's size and, in single precision only,
    /// its edges in one loop an axis (unless CFD_SWE_DEFINES says otherwise, as the test
    /// environment does not).
    #[test]
    fn the_step_kernel_gets_its_shared_size_and_single_precisions_edge_loops() {
        if std::env::var_os("CFD_SWE_DEFINES").is_some() {
            return;
        }
        let f32_defines = Part::<f32>::step_kernel_defines();
        let f64_defines = Part::<f64>::step_kernel_defines();
        let has = |d: &[(String, String)], k: &str, v: &str| d.iter().any(|(a, b)| a == k && b == v);
        assert!(has(&f32_defines, "SWE_STEP_SHARED_BYTES", &kernels::swe::step_shared_bytes(32, 8, 4).to_string()));
        assert!(has(&f64_defines, "SWE_STEP_SHARED_BYTES", &kernels::swe::step_shared_bytes(16, 8, 8).to_string()));
        assert!(has(&f32_defines, "SWE_EDGE_LOOPS_BY_AXIS", "1"));
        assert!(!f64_defines.iter().any(|(k, _)| k == "SWE_EDGE_LOOPS_BY_AXIS"));
    }

    /// The rows a launch updates.
    fn updated(t: &Tiles, ty: u32) -> Vec<isize> {
        (0..t.count)
            .flat_map(|b| {
                let first = t.rows.start + ((t.first + b * t.step) * ty) as isize;
                (first..first + ty as isize).filter(|j| t.rows.contains(j))
            })
            .collect()
    }

    /// For every slab position, ghost depth 1 to 4, step of the cycle, tile height and slab size
    /// (fewer rows than a tile too): the launches update each row of `slab::updated_rows` once,
    /// read (`slab::REACH` rows beyond beside another slab) only rows inside the halo, and in the
    /// split plan (one row's reach; unused since a step reads two) before the ghost rows arrive
    /// only owned rows.
    #[test]
    fn the_tile_plan_updates_each_row_once_and_waits_for_what_it_reads() {
        for ty in [4, 8] {
            for ny in 2..=27 {
                for depth in (1..=4).filter(|&d| d <= ny) {
                    for (rank, size) in [(0, 1), (0, 2), (1, 2), (1, 3)] {
                        let s = Slab { rank, size, start: 0, end: ny };
                        for step in 0..depth {
                            let (rows, arrive) = slab::updated_rows(step, depth, ny, &s);
                            let splits = if arrive && size > 1 { vec![None, Some([s.has_below(), s.has_above()])] } else { vec![None] };
                            for split in splits {
                                let [before, after] = tile_plan(rows.clone(), ny, ty, split);
                                let mut all: Vec<isize> = before.iter().chain(&after).flat_map(|t| updated(t, ty)).collect();
                                all.sort();
                                assert_eq!(all, rows.clone().collect::<Vec<_>>(), "{ty} {ny} {depth} {rank}/{size} {step} {split:?}");
                                // Halo rows: REACH a ghost row beside another slab; one ghost row at a grid's face.
                                let halo = |beside: bool| if beside { (slab::REACH * depth) as isize } else { 1 };
                                let (lo, hi) = (-halo(s.has_below()), ny as isize + halo(s.has_above()));
                                let reach = |beside: bool| if beside { slab::REACH as isize } else { 1 };
                                let inside = |j: &isize| j - reach(s.has_below()) >= lo && j + reach(s.has_above()) < hi;
                                assert!(all.iter().all(inside), "reads below row {lo} or from row {hi}");
                                if split.is_some() {
                                    let own = |j: &isize| (!s.has_below() || *j > 0) && (!s.has_above() || j + 1 < ny as isize);
                                    assert!(before.iter().flat_map(|t| updated(t, ty)).all(|j| own(&j)), "{ty} {ny} {depth} {rank}/{size}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
