//! CUDA execution of the heat step (kernels/cuda/heat.cu): the naive variant (one 1D stencil
//! kernel per axis, then an update) or the register-queue variant (one fused kernel per stage).

use super::section::HeatKernel;
use super::setup::HeatSetup;
use super::step::{RADIUS, STAGES};
use crate::backend::cuda::{Device, EarlyFunction, EarlyLaunch};
use crate::error::Result;
use crate::grid::cuda::DeviceHalo;
use crate::grid::FaceBc;
use crate::real::Real;
use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Mirrors `struct Grid` in heat.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct GridC<T> {
    nx: i32,
    ny: i32,
    nz: i32,
    px: i32,
    py: i32,
    xo: i32,
    ax: T,
    ay: T,
    az: T,
}

// SAFETY: plain-old-data with the same layout as the C struct.
unsafe impl<T: DeviceRepr> DeviceRepr for GridC<T> {}

/// Threads of the register-queue kernel's block (TX x TY), the rows each thread computes (RY)
/// and its consecutive columns (VX, 1 or 2), compiled into the kernel by NVRTC: the block
/// covers (TX VX) x (TY RY) points. Defaults, the fastest of a sweep at 512^3 on an H100
/// (BENCHMARKS.md): f64 32x4, one row and one column per thread, 8 blocks per SM (75.3 and 75.7 %
/// of copy in two runs, 64x4 73.9 and 74.5 %; 16-byte vector loads were 10 points slower);
/// f32 16x4, two rows of two columns per thread (8-byte vector loads, so
/// twice the bytes per load instruction; half the y rims per point). CFD_HEAT_TILE=32x8 (say),
/// CFD_HEAT_RY=2 and CFD_HEAT_VX=2 override them for tuning. TX, TY >= RADIUS: the rim loads
/// assume it. VX = 2 needs an even nx (aligned vector accesses), so an odd nx falls back to 1.
fn tile(real_bytes: usize, nx: usize) -> (u32, u32, u32, u32) {
    let (tx, ty, ry, vx) = if real_bytes == 4 { (16, 4, 2, 2) } else { (32, 4, 1, 1) };
    let (tx, ty) = std::env::var("CFD_HEAT_TILE")
        .ok()
        .and_then(|t| {
            t.split_once('x')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        })
        .filter(|&(x, y): &(u32, u32)| x >= RADIUS as u32 && y >= RADIUS as u32 && x * y <= 1024)
        .unwrap_or((tx, ty));
    let knob = |name: &str, range: std::ops::RangeInclusive<u32>, default: u32| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|r| range.contains(r))
            .unwrap_or(default)
    };
    let ry = knob("CFD_HEAT_RY", 1..=8, ry);
    let vx = if nx.is_multiple_of(2) { knob("CFD_HEAT_VX", 1..=2, vx) } else { 1 };
    (tx, ty, ry, vx)
}

struct Stage<T> {
    out: u64,
    ca: T,
    a: u64,
    cb: T,
    b: u64,
    cs: T,
    s: u64,
    cl: T,
}

impl<T: Real> Stage<T> {
    /// The arguments every stage kernel starts with: the grid, then the stage.
    fn push<'a, 'b>(&'a self, launch: &'b mut EarlyLaunch<'a>, g: &'a GridC<T>) -> &'b mut EarlyLaunch<'a> {
        launch
            .arg(g)
            .arg(&self.out)
            .arg(&self.ca)
            .arg(&self.a)
            .arg(&self.cb)
            .arg(&self.b)
            .arg(&self.cs)
            .arg(&self.s)
            .arg(&self.cl)
    }
}

pub struct CudaHeat<T: Real> {
    pub setup: HeatSetup,
    pub dev: Arc<Device>,
    pub phi: CudaSlice<T>,
    u1: CudaSlice<T>,
    u2: CudaSlice<T>,
    rhs: Option<CudaSlice<T>>,
    g: GridC<T>,
    tile: (u32, u32),
    /// Rows (RY) and columns (VX) per thread: the block's tile is (tile.0 VX) x (tile.1 RY) points.
    ry: u32,
    vx: u32,
    /// Chunks along z the register-queue kernel's tiles are cut into, at most (each thread
    /// marches through one chunk's planes).
    chunks: u32,
    f_stage: EarlyFunction,
    f_d2: EarlyFunction,
    f_update: EarlyFunction,
    halo: DeviceHalo<T>,
    /// Axes periodic on both faces: the register-queue stage reads their ghosts' values from
    /// the interior (`wrap` in heat.cu), so their ghosts are filled once, not after every stage.
    periodic: [bool; 3],
    /// The step's input has not been through an exchange since it was set (a part of a
    /// decomposed grid; every part's flag is the same, see `refresh_neighbours`).
    stale: bool,
}

/// The z-planes one launch of the register-queue stage updates: `count` chunks of up to
/// `chunk` planes, the first from `start`, each `stride` after the last, none from `end`.
#[derive(Clone, Copy, Debug)]
struct Planes {
    start: u32,
    end: u32,
    chunk: u32,
    stride: u32,
    count: u32,
}

impl Planes {
    /// `start..end` in chunks: enough for `chunks` of them, of at least 16 planes each (each
    /// chunk reloads 2 RADIUS planes of the stencil input).
    fn run(start: u32, end: u32, chunks: u32) -> Planes {
        let n = end - start;
        let chunk = n.div_ceil(chunks.min((n / 16).max(1)));
        Planes {
            start,
            end,
            chunk,
            stride: chunk,
            count: n.div_ceil(chunk),
        }
    }

    /// The `depth` planes at each end of `0..nz`, the planes the neighbours of a part read.
    fn ends(nz: u32, depth: u32) -> Planes {
        Planes {
            start: 0,
            end: nz,
            chunk: depth,
            stride: nz - depth,
            count: 2,
        }
    }
}

impl<T: Real> CudaHeat<T> {
    pub fn new(mut setup: HeatSetup, dev: Arc<Device>, initial: &[f64]) -> Result<Self> {
        setup.grid = setup.grid.aligned_for(std::mem::size_of::<T>());
        let grid = &setup.grid;
        let [px, py, _] = grid.padded();
        let f = setup.axis_factors().map(T::of);
        let g = GridC {
            nx: grid.n[0] as i32,
            ny: grid.n[1] as i32,
            nz: grid.n[2] as i32,
            px: px as i32,
            py: py as i32,
            xo: grid.xoff as i32,
            ax: f[0],
            ay: f[1],
            az: f[2],
        };
        let host: Vec<T> = grid.pad(&initial.iter().map(|&v| T::of(v)).collect::<Vec<_>>());
        let n = host.len();
        let (tx, ty, ry, vx) = tile(std::mem::size_of::<T>(), grid.n[0]);
        let tile = (tx, ty);
        let (tx, ty, rys, vxs) = (tile.0.to_string(), tile.1.to_string(), ry.to_string(), vx.to_string());
        let minb =
            // Up to 1024 threads in 8 blocks per SM: 512 of 16x4 (f32), 1024 of 32x4 (f64).
            std::env::var("CFD_HEAT_MINB").unwrap_or_else(|_| (1024 / (tile.0 * tile.1)).clamp(1, 8).to_string());
        let defs = [
            ("TX", tx.as_str()),
            ("TY", ty.as_str()),
            ("RY", rys.as_str()),
            ("VX", vxs.as_str()),
            ("MINB", minb.as_str()),
        ];
        // Enough blocks for about eight per SM (`Planes::run`).
        let blocks_xy = (grid.n[0] as u32).div_ceil(tile.0 * vx) * (grid.n[1] as u32).div_ceil(tile.1 * ry);
        let chunks = (8 * dev.sm_count).div_ceil(blocks_xy).max(1);
        let phi = dev.upload(&host)?;
        let u1 = dev.zeros(n)?;
        let u2 = dev.zeros(n)?;
        let rhs = if setup.kernel == HeatKernel::Naive {
            Some(dev.zeros(n)?)
        } else {
            None
        };
        let s = CudaHeat {
            f_stage: dev.function::<T>(kernels::heat::RQ_STAGE, &defs)?,
            f_d2: dev.function::<T>(kernels::heat::NAIVE_D2, &defs)?,
            f_update: dev.function::<T>(kernels::heat::NAIVE_UPDATE, &defs)?,
            halo: DeviceHalo::new(dev.clone(), &setup.grid, &setup.bc)?.linked(setup.link.as_ref()),
            periodic: setup.bc.faces.each_ref().map(|f| f.iter().all(|f| matches!(f, FaceBc::Periodic))),
            setup,
            dev,
            phi,
            u1,
            u2,
            rhs,
            g,
            tile,
            ry,
            vx,
            chunks,
            stale: true,
        };
        s.halo(s.dev.ptr(&s.phi))?;
        Ok(s)
    }

    fn halo(&self, f: u64) -> Result<()> {
        self.halo.fill(f)
    }

    /// One stage, out = ca*A + cb*B + cs*S + cl*L(S), by the chosen kernel.
    fn stage(&self, st: &Stage<T>) -> Result<()> {
        let n = self.setup.grid.n;
        let stream = &self.dev.stream;
        match &self.rhs {
            None => self.stage_planes(st, Planes::run(0, n[2] as u32, self.chunks))?,
            Some(rhs) => {
                let r = self.dev.ptr(rhs);
                let bx = 128u32;
                let cfg = LaunchConfig {
                    grid_dim: ((n[0] as u32).div_ceil(bx), n[1] as u32, n[2] as u32),
                    block_dim: (bx, 1, 1),
                    shared_mem_bytes: 0,
                };
                for axis in 0..3i32 {
                    let acc = (axis > 0) as i32;
                    let mut launch = self.f_d2.builder(stream);
                    launch.arg(&self.g).arg(&st.s).arg(&r).arg(&axis).arg(&acc);
                    // SAFETY: s and rhs are padded fields of this grid and do not alias.
                    unsafe { launch.launch(cfg)? };
                }
                let mut launch = self.f_update.builder(stream);
                st.push(&mut launch, &self.g).arg(&r);
                // SAFETY: pointwise update over padded fields of this grid.
                unsafe { launch.launch(cfg)? };
            }
        }
        Ok(())
    }

    /// The register-queue stage on `planes` only.
    fn stage_planes(&self, st: &Stage<T>, planes: Planes) -> Result<()> {
        let n = self.setup.grid.n;
        let (tx, ty) = self.tile;
        let cfg = LaunchConfig {
            grid_dim: (
                (n[0] as u32).div_ceil(tx * self.vx),
                (n[1] as u32).div_ceil(ty * self.ry),
                planes.count,
            ),
            block_dim: (tx, ty, 1),
            shared_mem_bytes: 0,
        };
        let [start, end, chunk, stride] = [planes.start, planes.end, planes.chunk, planes.stride].map(|v| v as i32);
        let wrap = (0..3).filter(|&a| self.periodic[a]).map(|a| 1i32 << a).sum::<i32>();
        let mut launch = self.f_stage.builder(&self.dev.stream);
        st.push(&mut launch, &self.g)
            .arg(&start)
            .arg(&end)
            .arg(&chunk)
            .arg(&stride)
            .arg(&wrap);
        // SAFETY: all pointers are padded fields of this grid; `out` never aliases `s`; the
        // chunks lie in 0..nz.
        unsafe { launch.launch(cfg)? };
        Ok(())
    }

    /// Whether a stage can update the planes beside the neighbours first and hide their
    /// exchange behind the inner planes: a part split along z whose devices copy by copy
    /// engine, the register-queue kernel, and inner planes to update.
    fn hides_exchange(&self) -> bool {
        self.rhs.is_none()
            && self.halo.overlaps()
            && self.setup.link.as_ref().is_some_and(|l| l.split.axis == 2)
            && self.setup.grid.n[2] >= 3 * RADIUS
    }

    /// A stage of a part whose exchange hides behind its inner planes: the `RADIUS` planes at
    /// each end (the ones the neighbours read) and their x and y ghosts, the exchange begun,
    /// the inner planes and their ghosts, the other z ghosts, the exchange ended. The same
    /// values as `stage` and `stage_ghosts` then `exchange`. The ends go first on the compute
    /// stream: beside the inner planes on the second stream (high priority) they waited for
    /// SMs the inner planes' blocks hold for the whole stage, and the step took 1.42x as long
    /// (BENCHMARKS.md).
    fn stage_hiding_exchange(&self, st: &Stage<T>) -> Result<()> {
        let nz = self.setup.grid.n[2];
        let (r, stream) = (RADIUS, &self.dev.stream);
        let xy = [!self.periodic[0], !self.periodic[1], false];
        self.stage_planes(st, Planes::ends(nz as u32, r as u32))?;
        self.halo.fill_axes_of_planes(st.out, xy, 0..r)?;
        self.halo.fill_axes_of_planes(st.out, xy, nz - r..nz)?;
        let begun = self.halo.begin_exchange_on(st.out, stream)?;
        self.stage_planes(st, Planes::run(r as u32, (nz - r) as u32, self.chunks))?;
        self.halo.fill_axes_of_planes(st.out, xy, r..nz - r)?;
        self.halo.fill_axes(st.out, [false, false, true])?;
        self.halo.end_exchange_on(begun, stream)
    }

    pub fn step(&mut self, dt: f64) -> Result<()> {
        let st = STAGES.map(|s| s.map(T::of));
        let dt = T::of(dt);
        let (phi, u1, u2) = (self.dev.ptr(&self.phi), self.dev.ptr(&self.u1), self.dev.ptr(&self.u2));
        let z = T::zero();
        let stage = |out, ca, a, cb, b, cs, s, cl| Stage { out, ca, a, cb, b, cs, s, cl };
        let stages = [
            stage(u1, z, phi, z, phi, st[0][2], phi, st[0][3] * dt),
            stage(u2, st[1][0], phi, z, phi, st[1][2], u1, st[1][3] * dt),
            // In place: each point reads its own phi before writing it.
            stage(phi, st[2][0], phi, st[2][1], u1, st[2][2], u2, st[2][3] * dt),
        ];
        // The neighbours' planes of the step's input where the last step did not bring them
        // (its other ghosts were filled at the end of the last step or when it was set).
        if self.stale {
            self.halo.exchange(phi)?;
        }
        let hide = self.hides_exchange();
        for s in &stages {
            if hide {
                self.stage_hiding_exchange(s)?;
            } else {
                self.stage(s)?;
                self.stage_ghosts(s.out)?;
                self.halo.exchange(s.out)?;
            }
        }
        // The last stage's exchange brought the next step's input planes.
        self.stale = false;
        Ok(())
    }

    /// The state was changed from outside on some part (a fault injected): every part takes
    /// its neighbours' planes again at its next step (all parts are told at once, so they
    /// still meet at the same exchanges).
    pub fn refresh_neighbours(&mut self) {
        self.stale = true;
    }

    /// The ghosts the next stage reads from a stage's output: every axis for the naive
    /// kernel; for the register-queue stage only the axes it does not wrap (a periodic
    /// axis's ghosts keep the values of the last full fill: no stencil reads them, and the
    /// health check's max |phi| over the padded array still sees every interior value).
    fn stage_ghosts(&self, f: u64) -> Result<()> {
        match self.rhs {
            Some(_) => self.halo(f),
            None => self.halo.fill_axes(f, self.periodic.map(|p| !p)),
        }
    }

    pub fn interior(&self) -> Result<Vec<T>> {
        Ok(self.setup.grid.unpad(&self.dev.download(&self.phi)?))
    }

    /// A new state (every part at once: a checkpoint, or `refresh_neighbours` follows).
    pub fn set_interior(&mut self, values: &[T]) -> Result<()> {
        self.stale = true;
        self.phi = self.dev.upload(&self.setup.grid.pad(values))?;
        self.halo(self.dev.ptr(&self.phi))
    }

    pub fn max_abs(&self) -> Result<f64> {
        self.dev.max_abs(&self.phi)
    }
}
