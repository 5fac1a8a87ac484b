//! Shallow water on a CUDA device (kernels/cuda/swe.cu): per step the point sources, the device
//! halo fill, the open sides (their series read at the device clock's time), and one step kernel
//! from `w` into `w2` (swapped after), the dry-cell rules and friction fused in; the same
//! arithmetic in the same order as the CPU (`cpu.rs`, `roe.rs`, `forcing.rs`), so both take the
//! same adaptive steps. The step size is found on the device: each step folds the wave-speed
//! rate of the state it wrote into one atomic maximum, and a one-thread clock kernel turns it
//! into the next step, so a batch of steps (`advance_batch`) needs one round trip to the host,
//! not one per step.

use super::forcing::Packed;
use super::{Ledger, SweSetup};
use crate::backend::cuda::Device;
use crate::error::{Result, SolverError};
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::grid::cuda::{DeviceHalo, LayoutC};
use crate::grid::{halo, StructuredGrid};
use crate::output::Field;
use crate::real::{from_bytes, to_bytes, Real};
use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Threads per block of the step and rate kernels (their reduction assumes a multiple of 32).
const THREADS: u32 = 256;

/// The device clock's slots (`CLOCK_*` in swe.cu).
const CLOCK_TIME: usize = 0;
const CLOCK_DT: usize = 1;
const CLOCK_STEPS: usize = 2;
const CLOCK_BAD: usize = 3;
const CLOCK_BAD_DT: usize = 4;
const CLOCK_LEN: usize = 5;

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
    rows: i32,
}

// SAFETY: plain-old-data with the same layout as the C structs.
unsafe impl DeviceRepr for OpenSidesC {}

/// The forcing on the device: the packed series, the open sides, the sources' cells (padded
/// indices), series and concentrations, and the water and pollutant they added.
struct DeviceForcing {
    series: CudaSlice<f64>,
    open: OpenSidesC,
    cells: CudaSlice<u64>,
    desc: CudaSlice<i32>,
    conc: CudaSlice<f64>,
    count: i32,
    added: CudaSlice<f64>,
    f_open: CudaFunction,
    f_sources: CudaFunction,
}

impl DeviceForcing {
    fn new<R: Real>(dev: &Arc<Device>, setup: &SweSetup) -> Result<Self> {
        let (f, g) = (&setup.forcing, &setup.grid);
        let mut packed = Packed::default();
        let mut open = OpenSidesC::default();
        for (k, o) in f.open.iter().enumerate() {
            open.side[k] = OpenC {
                conc: o.concentration.unwrap_or(0.0),
                axis: o.axis as i32,
                side: o.side as i32,
                level: packed.add(o.level.as_ref()),
                discharge: packed.add(o.discharge.as_ref()),
                has_conc: i32::from(o.concentration.is_some()),
            };
            open.rows = open.rows.max(g.n[1 - o.axis] as i32);
        }
        open.count = f.open.len() as i32;
        let cells: Vec<u64> = f.sources.iter().map(|s| g.at(s.cell[0] as isize, s.cell[1] as isize, 0) as u64).collect();
        let desc: Vec<i32> = f.sources.iter().flat_map(|s| packed.add(Some(&s.discharge))).collect();
        let conc: Vec<f64> = f.sources.iter().map(|s| s.concentration).collect();
        // No buffer is empty (a zero-length allocation is refused).
        let nonempty = |v: Vec<f64>| if v.is_empty() { vec![0.0] } else { v };
        let stream = &dev.stream;
        Ok(DeviceForcing {
            series: stream.clone_htod(&nonempty(packed.series))?,
            open,
            cells: stream.clone_htod(&[cells, vec![0]].concat())?,
            desc: stream.clone_htod(&[desc, vec![0, 0]].concat())?,
            conc: stream.clone_htod(&nonempty(conc))?,
            count: f.sources.len() as i32,
            added: stream.alloc_zeros::<f64>(2)?,
            f_open: dev.function::<R>(kernels::swe::OPEN, &[])?,
            f_sources: dev.function::<R>(kernels::swe::SOURCES, &[])?,
        })
    }
}

pub struct CudaSwe<R: Real> {
    /// The setup, its grid's rows aligned for the device.
    pub setup: SweSetup,
    dev: Arc<Device>,
    /// (h, q_x, q_y, hC), padded, one component after another; the step's output (swapped).
    w: CudaSlice<R>,
    w2: CudaSlice<R>,
    /// The bed's depth H, padded, ghosts filled once on the host.
    bed: CudaSlice<R>,
    bed_grid: StructuredGrid,
    /// The device clock (`CLOCK_*`), the folded rate, the clipped water volume.
    clock: CudaSlice<f64>,
    rate: CudaSlice<u64>,
    clipped: CudaSlice<f64>,
    params: ParamsC<R>,
    halo: DeviceHalo<R>,
    f_rate: CudaFunction,
    f_step: CudaFunction,
    f_clock: CudaFunction,
    f_bad: CudaFunction,
    forcing: DeviceForcing,
    /// The water at the start of the run (the totals' open-side inflow).
    start_water: f64,
}

impl<R: Real> CudaSwe<R> {
    pub fn new(mut setup: SweSetup, dev: Arc<Device>, initial: &[f64], bed: &[f64]) -> Result<Self> {
        setup.grid = setup.grid.aligned_for(std::mem::size_of::<R>());
        let g = &setup.grid;
        let host = g.pad(&initial.iter().map(|&v| R::of(v)).collect::<Vec<_>>());
        let bed_grid = StructuredGrid { components: 1, ..g.clone() };
        let mut b = bed_grid.pad(&bed.iter().map(|&v| R::of(v)).collect::<Vec<_>>());
        halo::fill(&bed_grid, &setup.bed_bc, &mut b);
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
        };
        let stream = &dev.stream;
        let start_water = super::water(&setup, &super::cpu::initial_rounded::<R>(initial));
        Ok(CudaSwe {
            forcing: DeviceForcing::new::<R>(&dev, &setup)?,
            start_water,
            w: dev.upload(&host)?,
            w2: dev.upload(&host)?,
            bed: dev.upload(&b)?,
            bed_grid,
            clock: stream.alloc_zeros::<f64>(CLOCK_LEN)?,
            rate: stream.alloc_zeros::<u64>(1)?,
            clipped: stream.alloc_zeros::<f64>(1)?,
            params,
            halo: DeviceHalo::new(dev.clone(), g, &setup.bc)?,
            f_rate: dev.function::<R>(kernels::swe::RATE, &[])?,
            f_step: dev.function::<R>(kernels::swe::STEP, &[])?,
            f_clock: dev.function::<R>(kernels::swe::CLOCK, &[])?,
            f_bad: dev.function::<R>(kernels::swe::FIRST_BAD, &[])?,
            setup,
            dev,
        })
    }

    /// The step kernel's tiles: 32 x 8 cells (32 x 4 in double precision), a thread each
    /// (`TX`, `TY` in swe.cu).
    fn tiles_config(&self) -> LaunchConfig {
        let ty = if std::mem::size_of::<R>() == 4 { 8 } else { 4 };
        let n = self.setup.grid.cells;
        LaunchConfig {
            grid_dim: ((n[0] as u32).div_ceil(32), (n[1] as u32).div_ceil(ty), 1),
            block_dim: (32 * ty, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// One thread per interior cell.
    fn cells_config(&self) -> LaunchConfig {
        let points = self.setup.grid.points() as u32;
        LaunchConfig {
            grid_dim: (points.div_ceil(THREADS), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// The rate of the current state folded into `rate` (which must be 0).
    fn fold_rate(&self) -> Result<()> {
        let (w, rate) = (self.dev.ptr(&self.w), self.dev.ptr(&self.rate));
        // SAFETY: w is this grid's padded 4-component state, rate one u64; one thread per cell.
        unsafe {
            self.dev
                .stream
                .launch_builder(&self.f_rate)
                .arg(&self.params)
                .arg(&w)
                .arg(&rate)
                .launch(self.cells_config())?
        };
        Ok(())
    }

    /// The point sources, the halo fill, the open sides, then one step of the device clock's dt
    /// from `w` into `w2`, swapped after.
    fn queue_step(&mut self) -> Result<()> {
        self.queue_sources()?;
        self.halo.fill(self.dev.ptr(&self.w))?;
        self.queue_open()?;
        let d = &self.dev;
        let (w, bed, out) = (d.ptr(&self.w), d.ptr(&self.bed), d.ptr(&self.w2));
        let (clock, rate, clipped) = (d.ptr(&self.clock), d.ptr(&self.rate), d.ptr(&self.clipped));
        // SAFETY: w and out are distinct padded 4-component arrays of this grid, bed its padded
        // bed, clock CLOCK_LEN doubles, rate one u64, clipped one double; the tiles swe.cu expects.
        unsafe {
            d.stream
                .launch_builder(&self.f_step)
                .arg(&self.params)
                .arg(&w)
                .arg(&bed)
                .arg(&out)
                .arg(&clock)
                .arg(&rate)
                .arg(&clipped)
                .launch(self.tiles_config())?
        };
        std::mem::swap(&mut self.w, &mut self.w2);
        Ok(())
    }

    /// The sources' water and pollutant over the clock's step, where there are any.
    fn queue_sources(&self) -> Result<()> {
        let f = &self.forcing;
        if f.count == 0 {
            return Ok(());
        }
        let d = &self.dev;
        let (w, clock, series) = (d.ptr(&self.w), d.ptr(&self.clock), d.ptr(&f.series));
        let (cells, desc, conc, added) = (d.ptr(&f.cells), d.ptr(&f.desc), d.ptr(&f.conc), d.ptr(&f.added));
        // SAFETY: w is this grid's padded state, clock CLOCK_LEN doubles, series the packed
        // series that desc (2 ints a source) points into, cells and conc one entry a source,
        // added two doubles; one thread.
        unsafe {
            d.stream
                .launch_builder(&f.f_sources)
                .arg(&self.params)
                .arg(&w)
                .arg(&clock)
                .arg(&series)
                .arg(&cells)
                .arg(&desc)
                .arg(&conc)
                .arg(&f.count)
                .arg(&added)
                .launch(LaunchConfig {
                    grid_dim: (1, 1, 1),
                    block_dim: (1, 1, 1),
                    shared_mem_bytes: 0,
                })?
        };
        Ok(())
    }

    /// The ghosts of the open sides at the clock's time (after the halo fill), if any.
    fn queue_open(&self) -> Result<()> {
        let f = &self.forcing;
        if f.open.count == 0 {
            return Ok(());
        }
        let d = &self.dev;
        let (w, bed, series, clock) = (d.ptr(&self.w), d.ptr(&self.bed), d.ptr(&f.series), d.ptr(&self.clock));
        let threads = (f.open.count * f.open.rows) as u32;
        // SAFETY: w and bed are this grid's padded state and bed, series the packed series the
        // sides point into, clock CLOCK_LEN doubles; one thread per side and row.
        unsafe {
            d.stream
                .launch_builder(&f.f_open)
                .arg(&self.params)
                .arg(&f.open)
                .arg(&w)
                .arg(&bed)
                .arg(&series)
                .arg(&clock)
                .launch(LaunchConfig {
                    grid_dim: (threads.div_ceil(THREADS), 1, 1),
                    block_dim: (THREADS, 1, 1),
                    shared_mem_bytes: 0,
                })?
        };
        Ok(())
    }

    /// The clock kernel: advance by the step taken, the next step from the folded rate.
    fn queue_clock(&self, cfl: f64, until: f64) -> Result<()> {
        let (clock, rate) = (self.dev.ptr(&self.clock), self.dev.ptr(&self.rate));
        // SAFETY: clock is CLOCK_LEN doubles, rate one u64; one thread.
        unsafe {
            self.dev
                .stream
                .launch_builder(&self.f_clock)
                .arg(&clock)
                .arg(&rate)
                .arg(&cfl)
                .arg(&until)
                .launch(LaunchConfig {
                    grid_dim: (1, 1, 1),
                    block_dim: (1, 1, 1),
                    shared_mem_bytes: 0,
                })?
        };
        Ok(())
    }

    fn set_clock(&mut self, time: f64, dt: f64, steps: u64) -> Result<()> {
        let mut c = [0.0; CLOCK_LEN];
        (c[CLOCK_TIME], c[CLOCK_DT], c[CLOCK_STEPS]) = (time, dt, steps as f64);
        self.dev.stream.memcpy_htod(&c, &mut self.clock)?;
        Ok(())
    }

    fn interior(&self) -> Result<Vec<R>> {
        Ok(self.setup.grid.unpad(&self.dev.download(&self.w)?))
    }
}

impl<R: Real> Simulation for CudaSwe<R> {
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        self.dev.stream.memset_zeros(&mut self.rate)?;
        self.fold_rate()?;
        let rate = f64::from_bits(self.dev.stream.clone_dtoh(&self.rate)?[0]);
        Ok(if rate > 0.0 { cfl / rate } else { f64::INFINITY })
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        self.set_clock(clock.time, dt, clock.step)?;
        self.queue_step()
    }

    /// Up to `max_steps` steps, each found on the device, none past `until`; one round trip.
    fn advance_batch(&mut self, clock: &Clock, cfl: f64, until: f64, max_steps: u64) -> Result<Option<Clock>> {
        self.set_clock(clock.time, 0.0, clock.step)?;
        self.dev.stream.memset_zeros(&mut self.rate)?;
        self.fold_rate()?;
        self.queue_clock(cfl, until)?;
        for _ in 0..max_steps {
            self.queue_step()?;
            self.queue_clock(cfl, until)?;
        }
        let c = self.dev.stream.clone_dtoh(&self.clock)?;
        let reached = Clock {
            step: c[CLOCK_STEPS] as u64,
            time: c[CLOCK_TIME],
        };
        if c[CLOCK_BAD] != 0.0 {
            return Err(SolverError::Other(format!(
                "the step size became {:e} at step {} (t = {:.6e}): the state is no longer sound",
                c[CLOCK_BAD_DT], reached.step, reached.time
            )));
        }
        Ok(Some(reached))
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let first = self.dev.stream.clone_htod(&[u64::MAX])?;
        let (w, out) = (self.dev.ptr(&self.w), self.dev.ptr(&first));
        let cfg = LaunchConfig {
            grid_dim: (8 * self.dev.sm_count.max(1), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: w is this grid's padded state, out one u64; a grid-stride loop over cells.
        unsafe {
            self.dev
                .stream
                .launch_builder(&self.f_bad)
                .arg(&self.params)
                .arg(&w)
                .arg(&out)
                .launch(cfg)?
        };
        let cell = self.dev.stream.clone_dtoh(&first)?[0];
        if cell == u64::MAX {
            return Ok(None);
        }
        let depth = self.interior()?[cell as usize].f64();
        Ok(Some(super::unhealthy(cell as usize, depth)))
    }

    fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
        let values: Vec<f64> = self.interior()?.iter().map(|v| v.f64()).collect();
        let bed = self.bed_grid.unpad(&self.dev.download(&self.bed)?);
        let bed: Vec<f64> = bed.iter().map(|v| v.f64()).collect();
        Ok(super::fields(&values, &bed, self.setup.dry))
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(to_bytes(&self.interior()?))
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let values = from_bytes::<R>(bytes);
        self.start_water = super::water(&self.setup, &values.iter().map(|v| v.f64()).collect::<Vec<_>>());
        self.w = self.dev.upload(&self.setup.grid.pad(&values))?;
        Ok(())
    }

    fn bytes_per_step(&self) -> f64 {
        super::min_bytes_per_step(&self.setup, std::mem::size_of::<R>())
    }

    fn variant(&self) -> String {
        "roe-path-conservative".into()
    }

    fn sync(&mut self) -> Result<()> {
        self.dev.sync()
    }

    fn totals(&mut self) -> Result<Vec<(String, f64)>> {
        let added = self.dev.stream.clone_dtoh(&self.forcing.added)?;
        let ledger = Ledger {
            clipped: self.dev.stream.clone_dtoh(&self.clipped)?[0],
            sources: [added[0], added[1]],
            start_water: self.start_water,
        };
        let values: Vec<f64> = self.interior()?.iter().map(|v| v.f64()).collect();
        Ok(super::totals(&self.setup, &values, &ledger))
    }
}
