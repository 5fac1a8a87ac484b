//! Shallow water on a CUDA device (kernels/cuda/swe.cu): the whole grid, or a part of a
//! decomposed run (`grid::parts`: several devices of this process, or one per MPI rank, or
//! both, each part a `CudaSwe` driven on its own thread). Per step: the point sources, the halo
//! fill of the physical faces, the open sides (their series read at the device clock's time),
//! and the tiled step kernel from `w` into `w2` (swapped after), the dry-cell rules and
//! friction fused in; the same arithmetic in the same order as the CPU (`cpu.rs`, `roe.rs`), so
//! every backend and decomposition takes the same adaptive steps. The step size is found on
//! the device: each step folds the wave-speed rate of the state it wrote into one atomic
//! maximum, the grid layer reduces it over every part on the devices
//! (`grid::cuda::max_u64_over_parts`), and a one-thread clock kernel turns it into the next
//! step; a batch of steps (`advance_batch`) needs one round trip to the host, not one per step.
//!
//! Between parts, the ghost rows travel by the grid layer's exchange (`DeviceHalo`) on the
//! device's second stream, after the sources, while the compute stream waits for them
//! (`CFD_SWE_EXCHANGE=serial` runs the exchange on the compute stream instead, `off` skips it:
//! timing diagnostics only, the results are then wrong). Ghost-cell expansion
//! (`shallow-water.ghost_rows = k`, the halo's `Cadence`): `REACH` k rows travel every k steps,
//! and in between each part updates the ghost rows still valid again (`Split::updated`, the
//! step kernel's row range), as the CPU does, so the results stay those of one device.

use super::forcing::Packed;
use super::setup::{SweSetup, REACH};
use super::totals::{self, Ledger};
use crate::backend::cuda::{Device, DeviceClock, EarlyFunction};
use crate::error::Result;
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::grid::cuda::{max_u64_over_parts, DeviceHalo, LayoutC};
use crate::grid::{FaceBc, StructuredGrid};
use crate::output::Field;
use crate::real::{from_bytes, to_bytes, Real};
use cudarc::driver::{CudaEvent, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Threads per block of the rate kernel (its reduction assumes a multiple of 32).
const THREADS: u32 = 256;

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

/// The whole grid or a part on one device: its state, bed, clock and kernels.
pub struct CudaSwe<R: Real> {
    /// The setup of its rows (`setup.split`, `setup.link`), the grid's rows aligned for the
    /// device.
    setup: SweSetup,
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
    /// Its water at the start of the run (the totals' open-side inflow), its pollutant.
    start_water: f64,
    start_pollutant: f64,
    /// The state is complete (compute stream) / the ghost rows have arrived (second stream).
    ready: CudaEvent,
    arrived: CudaEvent,
    exchange: Exchange,
    /// Steps queued since the start or a restart (the ghost rows arrive at the halo's cadence).
    steps: usize,
}

impl<R: Real> CudaSwe<R> {
    /// The simulation of `setup`'s rows on `dev`: its interior initial state and padded bed in
    /// the CPU's layout.
    pub fn new(mut setup: SweSetup, dev: Arc<Device>, initial: &[f64], bed: &[f64]) -> Result<Self> {
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
        let (start_water, start_pollutant) = (totals::water(&setup, &rounded), totals::pollutant(&setup, &rounded));
        let exchange = match std::env::var("CFD_SWE_EXCHANGE").as_deref() {
            Ok("serial") => Exchange::Serial,
            Ok("off") => Exchange::Off,
            _ => Exchange::Overlap,
        };
        Ok(CudaSwe {
            start_pollutant,
            start_bounds: totals::conc_bounds(&setup, &rounded),
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
            halo: DeviceHalo::new(dev.clone(), g, &setup.bc)?.linked(setup.link.as_ref()),
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
            exchange,
            steps: 0,
            setup,
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

    /// The rate of the current state folded into `rate` (zeroed first), then reduced over every
    /// part of a decomposed run.
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
        self.reduce_rate()
    }

    /// The folded rate, reduced to its maximum over every part of a decomposed run (on the
    /// compute stream, after the work that folded it).
    fn reduce_rate(&self) -> Result<()> {
        // SAFETY: `rate` is one u64 on this part's device; every part queues the same steps,
        // each from its own thread (`grid::parts::Decomposed`).
        unsafe { max_u64_over_parts(self.setup.link.as_ref(), self.dev.ptr(&self.rate), &self.dev.stream) }
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
        // `REACH` rows around them lie inside the halo (`Split::updated`).
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

/// How the ghost rows travel between parts (`CFD_SWE_EXCHANGE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exchange {
    /// On the second stream, after the sources (the compute stream waits for them).
    Overlap,
    /// On the compute stream, before the step.
    Serial,
    /// Not at all (timing only: wrong results).
    Off,
}

impl<R: Real> CudaSwe<R> {
    /// One step (queued, not waited for). With ghost-cell expansion the ghost rows travel at
    /// the halo's cadence; each step updates the rows `Split::updated` gives, as the CPU does.
    fn queue_step(&mut self, cfl: f64, until: f64) -> Result<()> {
        let step = self.steps;
        self.steps += 1;
        let split = self.setup.split;
        let ny = self.setup.grid.cells[1];
        let (rows, arrive) = split.updated(step, ny);
        let arrive = arrive && split.slab.size > 1;
        // The sources change the cells the update reads: before the owned rows travel.
        self.queue_sources(&split.widened(&rows, REACH as isize))?;
        if arrive {
            self.queue_exchange()?;
        }
        self.halo.fill(self.dev.ptr(&self.w))?;
        self.queue_open(&(0..ny as isize), true)?;
        // The x ghosts of the updated rows and of the row beyond them.
        self.queue_ghost_fill(&split.widened(&rows, 1))?;
        // A step reads `REACH` rows beyond those it updates (the donors' shares), so every tile
        // row waits for the ghost rows.
        self.queue_tiles(&Tiles::all(rows, Self::tile_rows()))?;
        self.reduce_rate()?;
        self.queue_clock(cfl, until)?;
        std::mem::swap(&mut self.w, &mut self.w2);
        Ok(())
    }

    /// The ghost rows from the parts beside this one (`DeviceHalo`'s exchange of `w`), on the
    /// second stream after the work queued so far, the compute stream waiting for them; or on
    /// the compute stream (`Exchange::Serial`).
    fn queue_exchange(&self) -> Result<()> {
        let (d, w) = (&self.dev, self.dev.ptr(&self.w));
        match self.exchange {
            Exchange::Overlap => {
                self.ready.record(&d.stream)?;
                d.aux.wait(&self.ready)?;
                self.halo.exchange_on(w, &d.aux)?;
                self.arrived.record(&d.aux)?;
                Ok(d.stream.wait(&self.arrived)?)
            }
            Exchange::Serial => self.halo.exchange_on(w, &d.stream),
            Exchange::Off => Ok(()),
        }
    }
}

impl<R: Real> Simulation for CudaSwe<R> {
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        self.fold_rate()?;
        let rate = f64::from_bits(self.dev.stream.clone_dtoh(&self.rate)?[0]);
        Ok(if rate > 0.0 { cfl / rate } else { f64::INFINITY })
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        self.set_clock(clock, dt)?;
        // The clock kernel that follows the step finds dt = 0 for want of an end: no harm.
        self.queue_step(1.0, clock.time)
    }

    /// Up to `max_steps` steps, each found on the device, none past `until`; one round trip.
    /// Every part of a decomposed run holds the same clock, so all queue the same steps.
    fn advance_batch(&mut self, clock: &Clock, cfl: f64, until: f64, max_steps: u64) -> Result<Option<Clock>> {
        self.set_clock(clock, 0.0)?;
        self.fold_rate()?;
        self.queue_clock(cfl, until)?;
        for _ in 0..self.clock.batch_steps(clock, until, max_steps) {
            self.queue_step(cfl, until)?;
        }
        Ok(Some(self.clock.reached(&self.dev.stream, clock)?))
    }

    /// The first unsound interior cell, numbered in the whole grid.
    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let offset = self.setup.split.slab.start * self.setup.grid.n[0];
        Ok(self.first_bad()?.map(|(cell, state)| totals::unhealthy(offset + cell, state)))
    }

    fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
        let values: Vec<f64> = self.interior()?.iter().map(|v| v.f64()).collect();
        Ok(totals::fields(&values, &self.bed_interior, self.setup.dry))
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(to_bytes(&self.interior()?))
    }

    /// Its rows' interior state (component after component), the ghost rows to arrive at the
    /// next step.
    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let local = from_bytes::<R>(bytes);
        let local64: Vec<f64> = local.iter().map(|v| v.f64()).collect();
        self.start_water = totals::water(&self.setup, &local64);
        self.start_pollutant = totals::pollutant(&self.setup, &local64);
        self.start_bounds = totals::conc_bounds(&self.setup, &local64);
        self.dev.stream.memset_zeros(&mut self.ledger)?;
        self.dev.stream.memset_zeros(&mut self.bounds)?;
        self.w = self.dev.upload(&self.setup.grid.pad(&local))?;
        self.steps = 0;
        Ok(())
    }

    fn bytes_per_step(&self) -> f64 {
        totals::min_bytes_per_step(&self.setup, std::mem::size_of::<R>())
    }

    fn variant(&self) -> String {
        match (self.setup.split.slab.size, self.setup.ghost_rows) {
            (1, _) => "roe-path-conservative".into(),
            (n, 1) => format!("roe-path-conservative, {n} devices"),
            (n, k) => format!("roe-path-conservative, {n} devices, {k} ghost rows"),
        }
    }

    fn sync(&mut self) -> Result<()> {
        self.dev.sync()
    }

    /// Its rows' totals (its own start, clipping, sources; `totals::TOTALS` reduces a decomposed
    /// run's).
    fn totals(&mut self) -> Result<Vec<(String, f64)>> {
        let stream = &self.dev.stream;
        let b = stream.clone_dtoh(&self.bounds)?;
        let seen: [f64; 2] = std::array::from_fn(|k| self.start_bounds[k].max(f64::from_bits(b[k])));
        let added = stream.clone_dtoh(&self.forcing.added)?;
        let crossed = stream.clone_dtoh(&self.ledger)?;
        let ledger = Ledger {
            clipped: stream.clone_dtoh(&self.clipped)?[0],
            sources: [added[0], added[1]],
            start_water: self.start_water,
            start_pollutant: self.start_pollutant,
            boundary: [crossed[0], crossed[1], crossed[2], crossed[3]],
            conc_bounds: seen,
        };
        let values: Vec<f64> = self.interior()?.iter().map(|v| v.f64()).collect();
        Ok(totals::with_bounds(totals::totals(&self.setup, &values, &ledger), seen))
    }
}

#[cfg(test)]
mod tests {
    use super::CudaSwe;

    /// The step kernel is built with its shared memory's size and, in single precision only,
    /// its edges in one loop an axis (unless CFD_SWE_DEFINES says otherwise, as the test
    /// environment does not).
    #[test]
    fn the_step_kernel_gets_its_shared_size_and_single_precisions_edge_loops() {
        if std::env::var_os("CFD_SWE_DEFINES").is_some() {
            return;
        }
        let f32_defines = CudaSwe::<f32>::step_kernel_defines();
        let f64_defines = CudaSwe::<f64>::step_kernel_defines();
        let has = |d: &[(String, String)], k: &str, v: &str| d.iter().any(|(a, b)| a == k && b == v);
        assert!(has(&f32_defines, "SWE_STEP_SHARED_BYTES", &kernels::swe::step_shared_bytes(32, 8, 4).to_string()));
        assert!(has(&f64_defines, "SWE_STEP_SHARED_BYTES", &kernels::swe::step_shared_bytes(16, 8, 8).to_string()));
        assert!(has(&f32_defines, "SWE_EDGE_LOOPS_BY_AXIS", "1"));
        assert!(!f64_defines.iter().any(|(k, _)| k == "SWE_EDGE_LOOPS_BY_AXIS"));
    }
}
