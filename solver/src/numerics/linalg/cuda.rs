//! Preconditioned CG on the device (kernels/cuda/cg.cu), built once per matrix and called
//! with device slices, e.g. every step of a Navier-Stokes run. Same settings and report as
//! the CPU solver (`cg`), same criterion: ‖b − A x‖₂ ≤ rel_tol ‖b‖₂.
//!
//! The matrix is held Jacobi-scaled, A_s = D^-1/2 A D^-1/2 with its unit diagonal implicit,
//! as ELL (u32 columns, f64 values, slot-major) when its rows are short and even (the
//! two-point FV matrix of tetrahedra: at most 4 off-diagonal entries), else CSR. CG on A_s
//! is Jacobi-PCG on A, so Jacobi costs no pass of its own. One iteration is two fused kernels:
//! `cg_dir_spmv` (p = z + βp and q = A p, with p·q) and `cg_update` (x, r, r·z and, on check
//! iterations, ‖b − Ax‖); Chebyshev adds degree − 1 fused steps. α, β and the residual stay
//! on the device; the kernels stop themselves once converged, so the host queues iterations in
//! batches and reads the status of the previous batch asynchronously (pinned memory) while
//! the current one runs: no host round trip per iteration.

use super::amg::cuda::{CgIo, DeviceAmg, DeviceCycle};
use super::amg::CyclePrecision;
use super::cg::{diagonal, CgReport, CgSettings};
use super::preconditioner::CgPreconditioner;
use crate::backend::cuda::{Device, EarlyFunction};
use crate::error::{Result, SolverError};
use cudarc::driver::{sys, CudaEvent, CudaGraph, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use kernels::cg as k;
use rayon::prelude::*;
use sprs::CsMat;
use std::sync::Arc;

const BLOCK: u32 = 256;
// The scalars' layout (cg.cu's SC_*).
const SC_LEN: usize = 8;
const SC_BB: usize = 0;
const SC_RES: usize = 4;
const SC_IT: usize = 5;
const SC_DONE: usize = 6;
// cg.cu's flags.
const F_CHEB_FIRST: u32 = 1;
const F_Z_DONE: u32 = 2;
const F_CHECK: u32 = 4;

/// What a captured batch depends on besides the solver's fixed buffers: the check pattern, the
/// batch length, the history buffer and the tolerance the kernels test.
#[derive(Clone, Copy, PartialEq)]
struct GraphKey {
    every: usize,
    batch: usize,
    hist: u64,
    tol: u64,
}

/// The scaled off-diagonal part of the matrix on the device.
struct DeviceMatrix {
    n: usize,
    /// ELL width, 0 for CSR.
    ell: u32,
    rowptr: CudaSlice<u32>,
    cols: CudaSlice<u32>,
    vals: CudaSlice<f64>,
    /// sqrt(a_ii)
    sqd: CudaSlice<f64>,
    /// Bytes of the matrix one SpMV reads (values, columns, row pointers).
    bytes: f64,
}

impl DeviceMatrix {
    fn upload(dev: &Device, a: &CsMat<f64>, allow_ell: bool) -> Result<Self> {
        let n = a.rows();
        if !a.is_csr() || a.cols() != n || n == 0 || n >= u32::MAX as usize {
            return Err(SolverError::Other(format!(
                "CUDA CG needs a square CSR matrix with 1 to 2^32 - 1 rows, got {}x{}",
                a.rows(),
                a.cols()
            )));
        }
        let d = diagonal(a);
        if let Some(i) = d.iter().position(|&v| !(v > 0.0 && v.is_finite())) {
            return Err(SolverError::Other(format!(
                "CUDA CG: diagonal entry {i} is {}; an SPD matrix has a positive diagonal",
                d[i]
            )));
        }
        let sqd: Vec<f64> = d.iter().map(|v| v.sqrt()).collect();
        // Scaled off-diagonal entries, row by row.
        let rows: Vec<Vec<(u32, f64)>> = (0..n)
            .into_par_iter()
            .map(|i| {
                let row = a.outer_view(i).unwrap();
                row.iter()
                    .filter(|&(j, _)| j != i)
                    .map(|(j, &v)| (j as u32, v / (sqd[i] * sqd[j])))
                    .collect()
            })
            .collect();
        let off: usize = rows.iter().map(|r| r.len()).sum();
        let width = rows.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
        let ell = allow_ell && width <= 8 && (width * n) as f64 <= 1.25 * off.max(1) as f64;
        let s = &dev.stream;
        let (rowptr, cols, vals, ell_w, bytes) = if ell {
            let mut cols = vec![0u32; width * n];
            let mut vals = vec![0.0f64; width * n];
            // Slot k of every row is the contiguous range k n .. (k + 1) n.
            cols.par_chunks_mut(n)
                .zip(vals.par_chunks_mut(n))
                .enumerate()
                .for_each(|(k, (c, v))| {
                    for (i, r) in rows.iter().enumerate() {
                        (c[i], v[i]) = r.get(k).copied().unwrap_or((i as u32, 0.0));
                    }
                });
            let bytes = 12.0 * (width * n) as f64;
            (vec![0u32], cols, vals, width as u32, bytes)
        } else {
            let mut rowptr = Vec::with_capacity(n + 1);
            rowptr.push(0u32);
            for r in &rows {
                rowptr.push(rowptr.last().unwrap() + r.len() as u32);
            }
            let cols = rows.iter().flat_map(|r| r.iter().map(|e| e.0)).collect();
            let vals = rows.iter().flat_map(|r| r.iter().map(|e| e.1)).collect();
            (rowptr, cols, vals, 0, 12.0 * off as f64 + 4.0 * (n + 1) as f64)
        };
        Ok(DeviceMatrix {
            n,
            ell: ell_w,
            rowptr: s.clone_htod(&rowptr)?,
            cols: s.clone_htod(&cols)?,
            vals: s.clone_htod(&vals)?,
            sqd: s.clone_htod(&sqd)?,
            bytes,
        })
    }
}

struct Funcs {
    init: EarlyFunction,
    dir_spmv: EarlyFunction,
    update: EarlyFunction,
    cheb_step: EarlyFunction,
    finish: EarlyFunction,
}

impl Funcs {
    fn load(dev: &Device) -> Result<Funcs> {
        let f = |kernel| dev.function::<f64>(kernel, &[]);
        Ok(Funcs {
            init: f(k::INIT)?,
            dir_spmv: f(k::DIR_SPMV)?,
            update: f(k::UPDATE)?,
            cheb_step: f(k::CHEB_STEP)?,
            finish: f(k::FINISH)?,
        })
    }
}

/// The V-cycle on the device for AMG (in its precision), None for the other preconditioners.
fn device_cycle(dev: &Arc<Device>, precond: &CgPreconditioner, n: usize) -> Result<Option<Box<dyn DeviceCycle>>> {
    let CgPreconditioner::Amg(h) = precond else {
        return Ok(None);
    };
    if h.rows() != n {
        return Err(SolverError::Other(format!(
            "CUDA CG: the AMG hierarchy has {} rows, the matrix {n}",
            h.rows()
        )));
    }
    Ok(Some(match h.settings.precision {
        CyclePrecision::Mixed => Box::new(DeviceAmg::<f32>::new(dev, h)?),
        CyclePrecision::F64 => Box::new(DeviceAmg::<f64>::new(dev, h)?),
    }))
}

/// Raw device addresses of the matrix and the work vectors (fixed for the solver's life).
#[derive(Clone, Copy)]
struct Ptrs {
    rowptr: u64,
    cols: u64,
    vals: u64,
    sqd: u64,
    y: u64,
    r: u64,
    q: u64,
    d: u64,
    z: [u64; 2],
    p: [u64; 2],
    sc: u64,
    partial: u64,
    counter: u64,
    hist: u64,
}

/// CG on the device for one matrix.
pub struct CudaCg {
    dev: Arc<Device>,
    /// CG's own stream (a graph is captured from a stream other than the legacy default):
    /// `solve` orders it after the work queued on the device's compute stream.
    stream: Arc<CudaStream>,
    /// A batch of iterations captured as a CUDA graph (and what it was captured for), replayed
    /// instead of launching each kernel: an AMG iteration is ~20 launches, whose host cost
    /// would otherwise bound small meshes. `CFD_CG_GRAPHS=0` launches directly.
    graph: Option<(GraphKey, CudaGraph)>,
    pub use_graphs: bool,
    m: DeviceMatrix,
    pub precond: CgPreconditioner,
    /// The V-cycle on the device (AMG only).
    cycle: Option<Box<dyn DeviceCycle>>,
    pub settings: CgSettings,
    /// ‖b − Ax‖ is computed and tested every `check_every` iterations (every iteration when
    /// `settings.keep_history`): one more read of the diagonal on those iterations.
    pub check_every: usize,
    /// The host reads the status every `batch` iterations (of the batch before).
    pub batch: usize,
    grid: u32,
    funcs: Funcs,
    _bufs: Vec<CudaSlice<f64>>,
    sc: CudaSlice<f64>,
    hist: CudaSlice<f64>,
    _counter: CudaSlice<u32>,
    pinned: [PinnedHostSlice<f64>; 2],
    /// Recorded after each status copy into `pinned[k]`: the host waits on it before reading.
    /// (`Device::open` turns cudarc's event tracking off, so `PinnedHostSlice::as_slice`
    /// does not wait for the copy by itself and would read the previous solve's status.)
    copied: [CudaEvent; 2],
    ptr: Ptrs,
    /// Which of the two p (and z) buffers holds the current one.
    pi: usize,
    zi: usize,
}

impl CudaCg {
    /// Uploads `a` (SPD, CSR) scaled, allocates the work vectors and loads the kernels.
    pub fn new(dev: &Arc<Device>, a: &CsMat<f64>, precond: CgPreconditioner, settings: CgSettings) -> Result<Self> {
        // CFD_CG_LAYOUT=csr keeps CSR where ELL would do (to compare the two).
        let allow_ell = !std::env::var("CFD_CG_LAYOUT").is_ok_and(|v| v == "csr");
        let m = DeviceMatrix::upload(dev, a, allow_ell)?;
        let n = m.n;
        let grid = (n.div_ceil(BLOCK as usize) as u32).clamp(1, 8 * dev.sm_count.max(1));
        let funcs = Funcs::load(dev)?;
        let cheb = matches!(precond, CgPreconditioner::Chebyshev(_));
        let cycle = device_cycle(dev, &precond, n)?;
        // y, r, q, p0, p1, then d, z0, z1 for Chebyshev (z0 the cycle's output for AMG).
        let nbufs = if cheb || cycle.is_some() { 8 } else { 5 };
        let bufs = (0..nbufs).map(|_| dev.zeros::<f64>(n)).collect::<Result<Vec<_>>>()?;
        let partial = dev.zeros::<f64>(3 * grid as usize)?;
        let sc = dev.zeros::<f64>(SC_LEN)?;
        let hist = dev.zeros::<f64>(settings.max_iter.max(1))?;
        let counter = dev.stream.alloc_zeros::<u32>(1)?;
        // SAFETY: pinned buffers are written by the device before they are read (the host
        // waits on `copied` first).
        let pinned = unsafe {
            [
                dev.ctx.alloc_pinned::<f64>(SC_LEN)?,
                dev.ctx.alloc_pinned::<f64>(SC_LEN)?,
            ]
        };
        let copied = [dev.ctx.new_event(None)?, dev.ctx.new_event(None)?];
        let p = |s: &CudaSlice<f64>| dev.ptr(s);
        let z = if cheb || cycle.is_some() {
            [p(&bufs[6]), p(&bufs[7])]
        } else {
            [p(&bufs[1]); 2]
        };
        let ptr = Ptrs {
            rowptr: dev.ptr(&m.rowptr),
            cols: dev.ptr(&m.cols),
            vals: p(&m.vals),
            sqd: p(&m.sqd),
            y: p(&bufs[0]),
            r: p(&bufs[1]),
            q: p(&bufs[2]),
            p: [p(&bufs[3]), p(&bufs[4])],
            d: if cheb { p(&bufs[5]) } else { 0 },
            z,
            sc: p(&sc),
            partial: p(&partial),
            counter: dev.ptr(&counter),
            hist: p(&hist),
        };
        let mut bufs = bufs;
        bufs.push(partial);
        Ok(CudaCg {
            stream: dev.ctx.new_stream()?,
            graph: None,
            use_graphs: std::env::var("CFD_CG_GRAPHS").as_deref() != Ok("0"),
            dev: dev.clone(),
            m,
            precond,
            cycle,
            settings,
            check_every: 4,
            batch: 8,
            grid,
            funcs,
            _bufs: bufs,
            sc,
            hist,
            _counter: counter,
            pinned,
            copied,
            ptr,
            pi: 0,
            zi: 0,
        })
    }

    pub fn rows(&self) -> usize {
        self.m.n
    }

    /// The preconditioner's name, with the device cycle's precision ("amg-f32").
    pub fn name(&self) -> String {
        match &self.cycle {
            Some(c) => format!("{}-{}", self.precond.name(), c.precision()),
            None => self.precond.name(),
        }
    }

    /// "ell4", "csr", ...: the layout the matrix was stored in.
    pub fn layout(&self) -> String {
        if self.m.ell > 0 {
            format!("ell{}", self.m.ell)
        } else {
            "csr".into()
        }
    }

    /// The bytes one iteration must move at the least (no check iteration): the matrix once per
    /// SpMV (values, u32 columns, row pointers for CSR) and each vector a kernel reads or writes
    /// once (8 B per value): `cg_dir_spmv` reads z, p and writes p, q; `cg_update` reads x, p,
    /// r, q and writes x, r (and z, d for Chebyshev); each Chebyshev step reads r, z, d and
    /// writes d, z.
    pub fn bytes_per_iteration(&self) -> f64 {
        let n = self.m.n as f64;
        match &self.precond {
            CgPreconditioner::Jacobi => self.m.bytes + 80.0 * n,
            CgPreconditioner::Chebyshev(b) => {
                let steps = (b.degree - 1) as f64;
                (1.0 + steps) * self.m.bytes + 96.0 * n + 40.0 * steps * n
            }
            // CG's own kernels as with Jacobi, plus the cycle (which reads r and writes z).
            CgPreconditioner::Amg(_) => self.m.bytes + 80.0 * n + self.cycle.as_ref().map_or(0.0, |c| c.bytes()),
        }
    }

    /// The launch shape of every kernel: a fixed grid (the reductions' partials).
    fn cfg(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.grid, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}

impl CudaCg {
    /// Solves A x = b from the initial guess in `x` (both on the device, `rows()` long).
    pub fn solve(&mut self, b: &CudaSlice<f64>, x: &mut CudaSlice<f64>) -> Result<CgReport> {
        let n = self.m.n;
        if b.len() != n || x.len() != n {
            return Err(SolverError::Other(format!(
                "CUDA CG: the matrix has {n} rows but b has {} and x {} values",
                b.len(),
                x.len()
            )));
        }
        let s = self.settings.clone();
        if self.hist.len() < s.max_iter {
            self.hist = self.dev.zeros::<f64>(s.max_iter)?;
            self.ptr.hist = self.dev.ptr(&self.hist);
        }
        let (bp, xp) = (self.dev.ptr(b), self.dev.ptr(x));
        // b and x come from the compute stream's work.
        self.stream.wait(&self.dev.record(&self.dev.stream)?)?;
        self.init(bp, xp)?;
        let every = if s.keep_history { 1 } else { self.check_every.max(1) };
        let batch = self.batch.max(1);
        let key = GraphKey {
            every,
            batch,
            hist: self.ptr.hist,
            tol: s.rel_tol.to_bits(),
        };
        // A batch's check pattern repeats when it starts at a multiple of both lengths.
        let graphs = self.use_graphs && batch.is_multiple_of(every) && batch.is_multiple_of(2);
        let mut prev: Option<usize> = None;
        let mut it = 0;
        while it < s.max_iter {
            if graphs && it + batch < s.max_iter {
                self.batch_graph(key)?;
                it += batch;
            } else {
                self.iteration((it + 1) % every == 0 || it + 1 == s.max_iter)?;
                it += 1;
            }
            if it % batch == 0 {
                let slot = (it / batch - 1) % 2;
                self.stream.memcpy_dtoh(&self.sc, &mut self.pinned[slot])?;
                self.copied[slot].record(&self.stream)?;
                if let Some(p) = prev {
                    // The copy of the batch before must have landed: without this wait the
                    // host reads what the buffer held before (the last solve's `done`).
                    self.copied[p].synchronize()?;
                    if self.pinned[p].as_slice()?[SC_DONE] != 0.0 {
                        break;
                    }
                }
                prev = Some(slot);
            }
        }
        self.finish(xp)?;
        let sc = self.stream.clone_dtoh(&self.sc)?;
        let iterations = sc[SC_IT] as usize;
        let mut history = vec![];
        if s.keep_history && iterations > 0 {
            history = self.stream.clone_dtoh(&self.hist.slice(0..iterations))?;
        }
        Ok(CgReport {
            iterations,
            rhs_norm: sc[SC_BB].sqrt(),
            rel_residual: sc[SC_RES],
            converged: sc[SC_DONE] == 1.0,
            history,
        })
    }

    /// θ⁻¹ and the flags of the kernel that computes the first preconditioned residual.
    fn first_stage(&self) -> (f64, u32) {
        match &self.precond {
            CgPreconditioner::Jacobi => (0.0, F_Z_DONE),
            CgPreconditioner::Chebyshev(b) => {
                let done = if b.degree <= 1 { F_Z_DONE } else { 0 };
                (1.0 / b.theta(), F_CHEB_FIRST | done)
            }
            // The cycle writes z and finishes r.z after CG's kernel.
            CgPreconditioner::Amg(_) => (0.0, 0),
        }
    }

    fn init(&mut self, bp: u64, xp: u64) -> Result<()> {
        let (theta_inv, flags) = self.first_stage();
        let p = self.ptr;
        let (ell, n, tol) = (self.m.ell, self.m.n as u64, self.settings.rel_tol);
        // The first iteration has beta = 0 and reads no old direction: start from p[0].
        (self.pi, self.zi) = (0, 0);
        let cfg = self.cfg();
        // SAFETY: every pointer is a live buffer of n values (b, x the caller's, checked), the
        // scalars SC_LEN, partials 3 x grid, the counter one u32; the grid is the one the
        // partials were sized for.
        unsafe {
            self.funcs
                .init
                .builder(&self.stream)
                .arg(&p.rowptr)
                .arg(&p.cols)
                .arg(&p.vals)
                .arg(&ell)
                .arg(&n)
                .arg(&bp)
                .arg(&xp)
                .arg(&p.sqd)
                .arg(&p.y)
                .arg(&p.r)
                .arg(&p.z[0])
                .arg(&p.d)
                .arg(&theta_inv)
                .arg(&flags)
                .arg(&tol)
                .arg(&p.sc)
                .arg(&p.partial)
                .arg(&p.counter)
                .launch(cfg)?
        };
        self.precondition()
    }

    /// One batch of iterations (checks every `key.every`) by the captured graph, captured at the
    /// first call (or when what it depends on changed). The pointers p and z alternate within
    /// an iteration and return to where they started after an even batch (`init` resets them).
    fn batch_graph(&mut self, key: GraphKey) -> Result<()> {
        if self.graph.as_ref().is_none_or(|(k, _)| *k != key) {
            self.graph = None;
            let (pi, zi) = (self.pi, self.zi);
            self.stream
                .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)?;
            let mut launched = Ok(());
            for it in 0..key.batch {
                launched = self.iteration((it + 1) % key.every == 0);
                if launched.is_err() {
                    break;
                }
            }
            let graph = self.stream.end_capture(sys::CUgraphInstantiate_flags(0))?;
            launched?;
            (self.pi, self.zi) = (pi, zi);
            let Some(graph) = graph else {
                return Err(SolverError::Cuda(
                    "CG: capturing a batch of iterations gave no graph".into(),
                ));
            };
            self.graph = Some((key, graph));
        }
        let (_, graph) = self.graph.as_ref().expect("captured above");
        graph.launch()?;
        Ok(())
    }

    /// One CG iteration; `check`: compute and test ‖b − Ax‖.
    fn iteration(&mut self, check: bool) -> Result<()> {
        let p = self.ptr;
        let (ell, n) = (self.m.ell, self.m.n as u64);
        let (p_old, p_new) = (p.p[self.pi], p.p[1 - self.pi]);
        self.pi = 1 - self.pi;
        let cfg = self.cfg();
        // SAFETY: as in `init`; p_old and p_new are distinct buffers (neighbours read p_old).
        unsafe {
            self.funcs
                .dir_spmv
                .builder(&self.stream)
                .arg(&p.rowptr)
                .arg(&p.cols)
                .arg(&p.vals)
                .arg(&ell)
                .arg(&n)
                .arg(&p.z[self.zi])
                .arg(&p_old)
                .arg(&p_new)
                .arg(&p.q)
                .arg(&p.sc)
                .arg(&p.partial)
                .arg(&p.counter)
                .launch(cfg)?
        };
        let (theta_inv, mut flags) = self.first_stage();
        if check {
            flags |= F_CHECK;
        }
        self.zi = 0;
        let tol = self.settings.rel_tol;
        // SAFETY: as in `init`; hist holds at least max_iter values.
        unsafe {
            self.funcs
                .update
                .builder(&self.stream)
                .arg(&n)
                .arg(&p.y)
                .arg(&p_new)
                .arg(&p.r)
                .arg(&p.q)
                .arg(&p.sqd)
                .arg(&p.z[0])
                .arg(&p.d)
                .arg(&theta_inv)
                .arg(&flags)
                .arg(&tol)
                .arg(&p.sc)
                .arg(&p.hist)
                .arg(&p.partial)
                .arg(&p.counter)
                .launch(cfg)?
        };
        self.precondition()
    }

    /// z from r after CG's kernels: the V-cycle, or steps 1 .. degree − 1 of Chebyshev (none
    /// for Jacobi, whose z is r).
    fn precondition(&mut self) -> Result<()> {
        if let Some(cycle) = &self.cycle {
            let p = self.ptr;
            return cycle.launch(
                &self.stream,
                CgIo {
                    r: p.r,
                    z: p.z[0],
                    sc: p.sc,
                    partial: p.partial,
                    counter: p.counter,
                    grid: self.grid,
                },
            );
        }
        let CgPreconditioner::Chebyshev(b) = self.precond else {
            return Ok(());
        };
        let p = self.ptr;
        let (ell, n) = (self.m.ell, self.m.n as u64);
        let coeffs = b.coefficients();
        let cfg = self.cfg();
        for (i, &(c1, c2)) in coeffs.iter().enumerate() {
            let flags = if i + 1 == coeffs.len() { F_Z_DONE } else { 0 };
            let (z_old, z_new) = (p.z[self.zi], p.z[1 - self.zi]);
            self.zi = 1 - self.zi;
            // SAFETY: as in `init`; z_old and z_new are distinct buffers.
            unsafe {
                self.funcs
                    .cheb_step
                    .builder(&self.stream)
                    .arg(&p.rowptr)
                    .arg(&p.cols)
                    .arg(&p.vals)
                    .arg(&ell)
                    .arg(&n)
                    .arg(&p.r)
                    .arg(&z_old)
                    .arg(&z_new)
                    .arg(&p.d)
                    .arg(&c1)
                    .arg(&c2)
                    .arg(&flags)
                    .arg(&p.sc)
                    .arg(&p.partial)
                    .arg(&p.counter)
                    .launch(cfg)?
            };
        }
        Ok(())
    }

    /// x = D^-1/2 y, then wait for the stream.
    fn finish(&mut self, xp: u64) -> Result<()> {
        let p = self.ptr;
        let n = self.m.n as u64;
        // SAFETY: y, sqd and x hold n values, sc SC_LEN.
        unsafe {
            self.funcs
                .finish
                .builder(&self.stream)
                .arg(&n)
                .arg(&p.y)
                .arg(&p.sqd)
                .arg(&xp)
                .arg(&p.sc)
                .launch(self.cfg())?
        };
        Ok(self.stream.synchronize()?)
    }
}

impl CudaCg {
    /// Seconds of one plain SpMV q = A_s p by `cg_spmv` (best of `reps`): the matrix-vector
    /// product alone, to set beside cuSPARSE's.
    pub fn spmv_seconds(&self, reps: usize) -> Result<f64> {
        let f = self.dev.function::<f64>(k::SPMV, &[])?;
        let p = self.ptr;
        let (ell, n) = (self.m.ell, self.m.n as u64);
        let mut best = f64::INFINITY;
        for _ in 0..reps.max(1) + 1 {
            self.dev.stream.synchronize()?;
            let t = std::time::Instant::now();
            // SAFETY: p[0] and q hold n values each; the matrix is the solver's.
            unsafe {
                f.builder(&self.dev.stream)
                    .arg(&p.rowptr)
                    .arg(&p.cols)
                    .arg(&p.vals)
                    .arg(&ell)
                    .arg(&n)
                    .arg(&p.p[0])
                    .arg(&p.q)
                    .launch(self.cfg())?
            };
            self.dev.stream.synchronize()?;
            best = best.min(t.elapsed().as_secs_f64());
        }
        Ok(best)
    }

    /// The bytes of one plain SpMV: the matrix, x read and y written once.
    pub fn spmv_bytes(&self) -> f64 {
        self.m.bytes + 16.0 * self.m.n as f64
    }
}

/// CPU against CUDA for one preconditioner on one matrix: both solved to `CHECK_TOL` from 0.
#[derive(Clone, Debug)]
pub struct Agreement {
    pub name: String,
    pub cpu_iterations: usize,
    pub cuda_iterations: usize,
    /// max |x_cuda - x_cpu| / max |x_cpu|.
    pub difference: f64,
    pub cpu_seconds_per_iteration: f64,
    pub pass: bool,
}

impl Agreement {
    /// Both solves' relative tolerance.
    pub const CHECK_TOL: f64 = 1e-10;
    /// The solutions' agreement, relative to max |x_cpu|.
    pub const AGREE: f64 = 1e-6;
}

/// The CPU and the CUDA solver on A x = b with `pre`: both converge to 1e-10, the solutions
/// agree within 1e-6 of max |x_cpu| and the iteration counts within 2 + 2 % (f32 cycles:
/// 2 + 20 %, their rounding is not the CPU's).
pub fn agreement(dev: &Arc<Device>, a: &CsMat<f64>, b: &[f64], pre: &CgPreconditioner) -> Result<Agreement> {
    let s = CgSettings {
        rel_tol: Agreement::CHECK_TOL,
        max_iter: 50_000,
        keep_history: true,
    };
    let mut x_cpu = vec![0.0; a.rows()];
    let t = std::time::Instant::now();
    let cpu = super::cg::solve_cg(a, b, &mut x_cpu, &*pre.on_cpu(a), &s);
    let t_cpu = t.elapsed().as_secs_f64();
    let mut cg = CudaCg::new(dev, a, pre.clone(), s)?;
    let bd = dev.upload(b)?;
    let mut x = dev.zeros::<f64>(a.rows())?;
    let gpu = cg.solve(&bd, &mut x)?;
    let x = dev.download(&x)?;
    let max = x_cpu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let difference = x.iter().zip(&x_cpu).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())) / max;
    let name = cg.name();
    let slack = if name.ends_with("f32") {
        2 + cpu.iterations / 5
    } else {
        2 + cpu.iterations / 50
    };
    let pass = cpu.converged
        && gpu.converged
        && difference <= Agreement::AGREE
        && gpu.iterations.abs_diff(cpu.iterations) <= slack;
    Ok(Agreement {
        name,
        cpu_iterations: cpu.iterations,
        cuda_iterations: gpu.iterations,
        difference,
        cpu_seconds_per_iteration: t_cpu / cpu.iterations.max(1) as f64,
        pass,
    })
}

#[cfg(test)]
mod tests {
    use super::super::amg::AmgSettings;
    use super::super::cg::solve_cg;
    use super::*;
    use sprs::TriMat;

    /// On a machine with a device: the CUDA solver matches the CPU one (Jacobi, Chebyshev and
    /// AMG with f64 and f32 cycles) on an irregular SPD matrix held as CSR and as ELL. Skips
    /// without a device.
    #[test]
    fn cuda_cg_matches_the_cpu() {
        let Ok(dev) = Device::open(0) else {
            eprintln!("SKIPPED: no CUDA device");
            return;
        };
        let n = 3000;
        let mut t = TriMat::new((n, n));
        for i in 0..n {
            let w = 1.0 + (i % 7) as f64;
            t.add_triplet(i, i, 2.0 * w + 0.01);
            if i + 1 < n {
                t.add_triplet(i, i + 1, -w);
                t.add_triplet(i + 1, i, -w);
                t.add_triplet(i + 1, i + 1, w);
            }
        }
        let a: CsMat<f64> = t.to_csr();
        let b: Vec<f64> = (0..n).map(|i| ((i as f64) * 0.01).cos()).collect();
        let s = CgSettings {
            rel_tol: 1e-10,
            max_iter: 20000,
            keep_history: true,
        };
        let amg = |precision| {
            let settings = AmgSettings {
                max_coarse: 40,
                precision,
                ..Default::default()
            };
            CgPreconditioner::amg(&a, &settings).unwrap()
        };
        let pres = [
            CgPreconditioner::Jacobi,
            CgPreconditioner::chebyshev(&a, 3),
            amg(CyclePrecision::F64),
            amg(CyclePrecision::Mixed),
        ];
        for pre in pres {
            let mut x_cpu = vec![0.0; n];
            let cpu = solve_cg(&a, &b, &mut x_cpu, &*pre.on_cpu(&a), &s);
            let mut cg = CudaCg::new(&dev, &a, pre.clone(), s.clone()).unwrap();
            let bd = dev.upload(&b).unwrap();
            let mut x = dev.zeros::<f64>(n).unwrap();
            let gpu = cg.solve(&bd, &mut x).unwrap();
            let x = dev.download(&x).unwrap();
            let max = x_cpu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let diff = x.iter().zip(&x_cpu).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            let name = cg.name();
            assert!(gpu.converged && cpu.converged, "{name}: {gpu:?} {cpu:?}");
            assert!(diff <= 1e-7 * max, "{name} {diff}");
            // The f32 cycle is not the CPU's to the last bits: allow a few iterations more.
            let slack = if name.ends_with("f32") {
                2 + cpu.iterations / 5
            } else {
                2
            };
            assert!(
                gpu.iterations.abs_diff(cpu.iterations) <= slack,
                "{name}: {} {}",
                gpu.iterations,
                cpu.iterations
            );
            assert_eq!(gpu.history.len(), gpu.iterations);
            repeated_solves_converge(&dev, &a, &pre, &s, &bd, gpu.iterations, &name);
        }
    }

    /// Repeated solves on one solver, status read in batches (no history): each must run to
    /// convergence, not stop on the status the previous solve left behind, in about the
    /// `iterations` of a solve with history.
    fn repeated_solves_converge(
        dev: &Arc<Device>,
        a: &CsMat<f64>,
        pre: &CgPreconditioner,
        s: &CgSettings,
        b: &CudaSlice<f64>,
        iterations: usize,
        name: &str,
    ) {
        let quiet = CgSettings {
            keep_history: false,
            ..s.clone()
        };
        let mut cg = CudaCg::new(dev, a, pre.clone(), quiet).unwrap();
        for rep in 0..3 {
            let mut x = dev.zeros::<f64>(a.rows()).unwrap();
            let r = cg.solve(b, &mut x).unwrap();
            assert!(r.converged, "{name} solve {rep}: {r:?}");
            assert!(
                r.iterations.abs_diff(iterations) <= 4,
                "{name}: {} {}",
                r.iterations,
                iterations
            );
        }
    }
}
