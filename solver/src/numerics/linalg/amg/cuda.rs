//! The V-cycle on the device (kernels/cuda/amg.cu), the preconditioner of `CudaCg`: the host's
//! hierarchy (`setup`) uploaded as SELL-32 matrices in the cycle's precision (f32 in the mixed
//! mode, f64 otherwise), and the cycle queued as kernels on the compute stream between CG's
//! own, with nothing read back.
//!
//! CG works on the Jacobi-scaled A_s = D^-1/2 A D^-1/2 (`linalg::cuda`). PCG on A with the
//! cycle M is PCG on A_s with D^1/2 M D^1/2, and that is what the device applies: the finest
//! level keeps the scaled matrix (unit diagonal), and its transfers are scaled instead,
//! P_s = D^1/2 P and R_s = P_sᵀ, so that every coarser level is the host's own
//! (A_1 = Pᵀ A P = P_sᵀ A_s P_s) and the Chebyshev polynomial in D⁻¹A is the same one in A_s.
//! The two backends then run one algorithm, up to rounding.

use super::{Hierarchy, Level};
use crate::backend::cuda::{Device, EarlyFunction};
use crate::error::{Result, SolverError};
use crate::numerics::linalg::cg::diagonal;
use crate::real::Real;
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use kernels::amg as k;
use rayon::prelude::*;
use sprs::CsMat;
use std::sync::Arc;

/// Threads of every AMG kernel's block (amg.cu's AMG_BLOCK, a multiple of the slice height).
const BLOCK: u32 = 256;
const SLICE: usize = 32;

/// Mirrors amg.cu's `struct Sell`: slice pointers, columns, values.
#[repr(C)]
#[derive(Clone, Copy)]
struct SellC {
    ptr: u64,
    cols: u64,
    vals: u64,
}
// SAFETY: plain-old-data with the C layout.
unsafe impl DeviceRepr for SellC {}

/// A SELL-32 matrix on the device (it owns the buffers `c` points into).
struct DeviceSell<T> {
    c: SellC,
    _ptr: CudaSlice<u32>,
    _cols: CudaSlice<u32>,
    _vals: CudaSlice<T>,
}

/// Where a padded entry of SELL points: the row itself (square matrices, off-diagonal part)
/// or column 0 (the transfers); its value is 0 either way.
#[derive(Clone, Copy)]
enum Pad {
    OwnRow,
    First,
}

impl<T: Real> DeviceSell<T> {
    /// The matrix `a` with each value v_ij replaced by f(i, j, v_ij), its diagonal left out when
    /// `off_diagonal` (slices packed in parallel).
    fn upload(
        dev: &Device,
        a: &CsMat<f64>,
        off_diagonal: bool,
        pad: Pad,
        f: impl Fn(usize, usize, f64) -> f64 + Sync,
    ) -> Result<Self> {
        let n = a.rows();
        let (indptr, indices, data) = (a.indptr(), a.indices(), a.data());
        let indptr = indptr.raw_storage();
        let kept = |i: usize| (indptr[i]..indptr[i + 1]).filter(move |&e| !(off_diagonal && indices[e] == i));
        let slices = n.div_ceil(SLICE);
        let widths: Vec<usize> = (0..slices)
            .into_par_iter()
            .map(|s| {
                (s * SLICE..((s + 1) * SLICE).min(n))
                    .map(|i| kept(i).count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut ptr = Vec::with_capacity(slices + 1);
        ptr.push(0u64);
        for (s, w) in widths.iter().enumerate() {
            ptr.push(ptr[s] + (w * SLICE) as u64);
        }
        let total = *ptr.last().unwrap();
        if total >= u32::MAX as u64 {
            return Err(SolverError::Other(format!(
                "AMG: a level's matrix has {total} stored entries, beyond the 2^32 the device's index takes"
            )));
        }
        let (mut cols, mut vals) = (vec![0u32; total as usize], vec![T::zero(); total as usize]);
        pack(&mut cols, &mut vals, &widths, n, pad, |i, emit| {
            for e in kept(i) {
                emit(indices[e] as u32, T::of(f(i, indices[e], data[e])));
            }
        });
        let ptr32: Vec<u32> = ptr.iter().map(|&p| p as u32).collect();
        let (p, c, v) = (
            dev.stream.clone_htod(&ptr32)?,
            dev.stream.clone_htod(&cols)?,
            dev.upload(&vals)?,
        );
        Ok(DeviceSell {
            c: SellC {
                ptr: dev.ptr(&p),
                cols: dev.ptr(&c),
                vals: dev.ptr(&v),
            },
            _ptr: p,
            _cols: c,
            _vals: v,
        })
    }
}

/// Fills SELL-32 arrays: slice s (of `widths[s]` entries a row) owns the contiguous run after
/// the slices before it, entry k of its row `lane` at k 32 + lane; `row(i, emit)` emits row i's
/// entries in order; the rest of a slice's rows are padding (`pad`, value 0). In parallel
/// over slices.
fn pack<T: Real>(
    cols: &mut [u32],
    vals: &mut [T],
    widths: &[usize],
    n: usize,
    pad: Pad,
    row: impl Fn(usize, &mut dyn FnMut(u32, T)) + Sync,
) {
    let mut col_chunks: Vec<&mut [u32]> = Vec::with_capacity(widths.len());
    let mut val_chunks: Vec<&mut [T]> = Vec::with_capacity(widths.len());
    let (mut c_rest, mut v_rest) = (cols, vals);
    for w in widths {
        let (c, cr) = c_rest.split_at_mut(w * SLICE);
        let (v, vr) = v_rest.split_at_mut(w * SLICE);
        col_chunks.push(c);
        val_chunks.push(v);
        (c_rest, v_rest) = (cr, vr);
    }
    col_chunks
        .into_par_iter()
        .zip(val_chunks)
        .enumerate()
        .for_each(|(s, (c, v))| {
            for lane in 0..SLICE {
                let i = s * SLICE + lane;
                let mut k = 0;
                if i < n {
                    row(i, &mut |j, x| {
                        c[k * SLICE + lane] = j;
                        v[k * SLICE + lane] = x;
                        k += 1;
                    });
                }
                for k in k..widths[s] {
                    c[k * SLICE + lane] = match pad {
                        Pad::OwnRow => i.min(n.saturating_sub(1)) as u32,
                        Pad::First => 0,
                    };
                }
            }
        });
}

/// One level above the coarsest on the device, with its work vectors.
struct DeviceLevel<T> {
    n: usize,
    a: DeviceSell<T>,
    /// None on the finest level (unit diagonal after CG's scaling).
    diag: Option<CudaSlice<T>>,
    dinv: Option<CudaSlice<T>>,
    p: DeviceSell<T>,
    r: DeviceSell<T>,
    theta_inv: f64,
    coeffs: Vec<(f64, f64)>,
    /// The right-hand side (restricted from the level above; none on the finest: CG's r).
    b: Option<CudaSlice<T>>,
    /// Pre-smoothed x, then post-smoothed x.
    x: [CudaSlice<T>; 2],
    res: CudaSlice<T>,
    d: [CudaSlice<T>; 2],
    grid: u32,
}

struct Funcs {
    pre_first: EarlyFunction,
    pre_first_cg: EarlyFunction,
    step: EarlyFunction,
    restrict: EarlyFunction,
    prolong: EarlyFunction,
    post_first: EarlyFunction,
    post_first_cg: EarlyFunction,
    step_cg: EarlyFunction,
    finish_z: EarlyFunction,
    coarse: EarlyFunction,
    coarse_cg: EarlyFunction,
}

/// One level's launch arguments (device addresses and the launch shape).
struct At {
    fine: bool,
    cfg: LaunchConfig,
    n: u64,
    /// The right-hand side: CG's residual on the finest level.
    b: u64,
    diag: u64,
    dinv: u64,
    x: [u64; 2],
    res: u64,
    d: [u64; 2],
    theta_inv: f64,
}

impl At {
    fn new<T: Real>(amg: &DeviceAmg<T>, lv: &DeviceLevel<T>, fine: bool, io: &CgIo) -> At {
        At {
            fine,
            cfg: cfg(if fine { io.grid } else { lv.grid }),
            n: lv.n as u64,
            b: if fine { io.r } else { amg.opt(&lv.b) },
            diag: amg.opt(&lv.diag),
            dinv: amg.opt(&lv.dinv),
            x: [amg.ptr(&lv.x[0]), amg.ptr(&lv.x[1])],
            res: amg.ptr(&lv.res),
            d: [amg.ptr(&lv.d[0]), amg.ptr(&lv.d[1])],
            theta_inv: lv.theta_inv,
        }
    }

    /// Step j's Chebyshev coefficients in the cycle's precision (zeros past the last).
    fn coefficients<T: Real>(&self, lv: &DeviceLevel<T>, j: usize) -> (T, T) {
        lv.coeffs
            .get(j)
            .map_or((T::zero(), T::zero()), |&(a, b)| (T::of(a), T::of(b)))
    }
}

/// CG's side of a cycle: its residual r (double, the cycle's right-hand side), the z the
/// cycle writes, and the scalars and reduction buffers of cg.cu (launched on CG's grid).
#[derive(Clone, Copy)]
pub struct CgIo {
    pub r: u64,
    pub z: u64,
    pub sc: u64,
    pub partial: u64,
    pub counter: u64,
    pub grid: u32,
}

/// A hierarchy's V-cycle on the device, in either precision.
pub trait DeviceCycle: Send {
    /// Queues z = M r on `stream` (CG's), with r.z and CG's beta (cg.cu's scalars).
    fn launch(&self, stream: &CudaStream, io: CgIo) -> Result<()>;
    /// The bytes a cycle must move at the least (`Hierarchy::cycle_bytes` in its precision).
    fn bytes(&self) -> f64;
    /// "f32" or "f64".
    fn precision(&self) -> &'static str;
}

/// The hierarchy on the device in precision T.
pub struct DeviceAmg<T> {
    dev: Arc<Device>,
    levels: Vec<DeviceLevel<T>>,
    nc: usize,
    inverse: CudaSlice<T>,
    /// The coarsest level's right-hand side (restricted; unused without levels) and solution.
    coarse_b: CudaSlice<T>,
    coarse_x: CudaSlice<T>,
    funcs: Funcs,
    bytes: f64,
}

fn grid_for(dev: &Device, n: usize) -> u32 {
    (n.div_ceil(BLOCK as usize) as u32).clamp(1, 8 * dev.sm_count.max(1))
}

fn cfg(grid: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

impl<T: Real> DeviceAmg<T> {
    /// Uploads `h` (built on the unscaled matrix) for a CG that works on its Jacobi-scaled form.
    pub fn new(dev: &Arc<Device>, h: &Hierarchy) -> Result<Self> {
        let f = |kernel| dev.function::<T>(kernel, &[]);
        let funcs = Funcs {
            pre_first: f(k::PRE_FIRST)?,
            pre_first_cg: f(k::PRE_FIRST_CG)?,
            step: f(k::STEP)?,
            restrict: f(k::RESTRICT)?,
            prolong: f(k::PROLONG)?,
            post_first: f(k::POST_FIRST)?,
            post_first_cg: f(k::POST_FIRST_CG)?,
            step_cg: f(k::STEP_CG)?,
            finish_z: f(k::FINISH_Z)?,
            coarse: f(k::COARSE)?,
            coarse_cg: f(k::COARSE_CG)?,
        };
        let fine = h.levels.first().map_or(&h.coarse_matrix, |l| &l.a);
        let sqd: Vec<f64> = diagonal(fine).iter().map(|d| d.sqrt()).collect();
        let mut levels = Vec::with_capacity(h.levels.len());
        for (l, lv) in h.levels.iter().enumerate() {
            levels.push(Self::level(dev, lv, (l == 0).then_some(&sqd[..]))?);
        }
        let nc = h.coarse.n;
        // With no level above it the coarsest is the finest: its inverse in scaled variables.
        let inverse: Vec<T> = (0..nc * nc)
            .map(|e| {
                let v = h.coarse.inverse[e];
                T::of(if levels.is_empty() {
                    sqd[e / nc] * v * sqd[e % nc]
                } else {
                    v
                })
            })
            .collect();
        Ok(DeviceAmg {
            dev: dev.clone(),
            inverse: dev.upload(&inverse)?,
            coarse_b: dev.zeros::<T>(nc)?,
            coarse_x: dev.zeros::<T>(nc)?,
            nc,
            levels,
            funcs,
            bytes: h.cycle_bytes(std::mem::size_of::<T>() as f64),
        })
    }

    /// Level `lv` on the device; `sqd` = sqrt(diag) on the finest level (scaled to unit
    /// diagonal there, its transfers scaled by it).
    fn level(dev: &Arc<Device>, lv: &Level, sqd: Option<&[f64]>) -> Result<DeviceLevel<T>> {
        let n = lv.a.rows();
        let (a, diag, dinv, p, r) = match sqd {
            Some(s) => (
                DeviceSell::upload(dev, &lv.a, true, Pad::OwnRow, |i, j, v| v / (s[i] * s[j]))?,
                None,
                None,
                DeviceSell::upload(dev, &lv.p, false, Pad::First, |i, _, v| s[i] * v)?,
                DeviceSell::upload(dev, &lv.r, false, Pad::First, |_, j, v| s[j] * v)?,
            ),
            None => {
                let d = diagonal(&lv.a);
                let diag: Vec<T> = d.iter().map(|&v| T::of(v)).collect();
                let dinv: Vec<T> = lv.inv_diag.iter().map(|&v| T::of(v)).collect();
                let same = |_: usize, _: usize, v: f64| v;
                (
                    DeviceSell::upload(dev, &lv.a, true, Pad::OwnRow, same)?,
                    Some(dev.upload(&diag)?),
                    Some(dev.upload(&dinv)?),
                    DeviceSell::upload(dev, &lv.p, false, Pad::First, same)?,
                    DeviceSell::upload(dev, &lv.r, false, Pad::First, same)?,
                )
            }
        };
        let z = || dev.zeros::<T>(n);
        Ok(DeviceLevel {
            n,
            a,
            diag,
            dinv,
            p,
            r,
            theta_inv: 1.0 / lv.bounds.theta(),
            coeffs: lv.bounds.coefficients(),
            b: if sqd.is_some() { None } else { Some(z()?) },
            x: [z()?, z()?],
            res: z()?,
            d: [z()?, z()?],
            grid: grid_for(dev, n),
        })
    }

    fn ptr(&self, s: &CudaSlice<T>) -> u64 {
        self.dev.ptr(s)
    }

    fn opt(&self, s: &Option<CudaSlice<T>>) -> u64 {
        s.as_ref().map_or(0, |s| self.ptr(s))
    }

    /// The cycle on level `l` for the right-hand side `b` (a device address: CG's residual in
    /// double on the finest level, the level's own `b` below); the result is in x[1] (or in
    /// `coarse_x`), or in CG's z on the finest level.
    fn cycle(&self, s: &CudaStream, l: usize, io: &CgIo) -> Result<()> {
        let Some(lv) = self.levels.get(l) else {
            return self.coarsest(s, l == 0, io);
        };
        let at = At::new(self, lv, l == 0, io);
        self.pre_smooth(s, &at, lv, io)?;
        // Restrict, cycle below, prolongate.
        let (nc, bc, xc) = match self.levels.get(l + 1) {
            Some(next) => (next.n as u64, self.opt(&next.b), self.ptr(&next.x[1])),
            None => (self.nc as u64, self.ptr(&self.coarse_b), self.ptr(&self.coarse_x)),
        };
        // SAFETY (this and every launch of the cycle): every address is a live buffer of the
        // level's length (n rows, or the coarser level's for b_c and x_c), the SELL matrices are
        // the level's own, and sc is CG's scalars.
        unsafe {
            self.funcs
                .restrict
                .builder(s)
                .arg(&lv.r.c)
                .arg(&nc)
                .arg(&at.res)
                .arg(&bc)
                .arg(&io.sc)
                .launch(cfg(grid_for(&self.dev, nc as usize)))?
        };
        self.cycle(s, l + 1, io)?;
        unsafe {
            self.funcs
                .prolong
                .builder(s)
                .arg(&lv.p.c)
                .arg(&at.n)
                .arg(&xc)
                .arg(&at.x[0])
                .arg(&io.sc)
                .launch(at.cfg)?
        };
        self.post_smooth(s, &at, lv, io)
    }

    /// The coarsest level by its dense inverse (the finest as well when `fine`: then z too).
    fn coarsest(&self, s: &CudaStream, fine: bool, io: &CgIo) -> Result<()> {
        let (f, b) = if fine {
            (&self.funcs.coarse_cg, io.r)
        } else {
            (&self.funcs.coarse, self.ptr(&self.coarse_b))
        };
        let (inv, nc, x) = (self.ptr(&self.inverse), self.nc as u64, self.ptr(&self.coarse_x));
        let grid = grid_for(&self.dev, self.nc * 32);
        // SAFETY: inv holds nc² values, b and x nc; sc is CG's scalars.
        unsafe {
            f.builder(s)
                .arg(&inv)
                .arg(&nc)
                .arg(&b)
                .arg(&x)
                .arg(&io.sc)
                .launch(cfg(grid))?
        };
        if fine {
            self.finish_z(s, self.nc, x, io)?;
        }
        Ok(())
    }

    /// Pre-smoothing from x = 0: the first step (and the second's direction), then the
    /// products, the last leaving the residual in `res`.
    fn pre_smooth(&self, s: &CudaStream, at: &At, lv: &DeviceLevel<T>, io: &CgIo) -> Result<()> {
        let (c1, c2) = at.coefficients(lv, 0);
        let theta_inv = T::of(at.theta_inv);
        let more = u32::from(!lv.coeffs.is_empty());
        let f = if at.fine {
            &self.funcs.pre_first_cg
        } else {
            &self.funcs.pre_first
        };
        unsafe {
            f.builder(s)
                .arg(&lv.a.c)
                .arg(&at.diag)
                .arg(&at.dinv)
                .arg(&at.n)
                .arg(&at.b)
                .arg(&at.x[0])
                .arg(&at.res)
                .arg(&at.d[0])
                .arg(&theta_inv)
                .arg(&c1)
                .arg(&c2)
                .arg(&more)
                .arg(&io.sc)
                .launch(at.cfg)?
        };
        let mut cur = 0;
        for j in 1..=lv.coeffs.len() {
            self.step(s, at, lv, at.x[0], cur, j, j < lv.coeffs.len(), io)?;
            cur = 1 - cur;
        }
        Ok(())
    }

    /// Post-smoothing: r = b - A x and x1 = x0 + d0, then the products; on the finest level
    /// the last writes CG's z.
    fn post_smooth(&self, s: &CudaStream, at: &At, lv: &DeviceLevel<T>, io: &CgIo) -> Result<()> {
        let f = if at.fine {
            &self.funcs.post_first_cg
        } else {
            &self.funcs.post_first
        };
        let theta_inv = T::of(at.theta_inv);
        unsafe {
            f.builder(s)
                .arg(&lv.a.c)
                .arg(&at.diag)
                .arg(&at.dinv)
                .arg(&at.n)
                .arg(&at.b)
                .arg(&at.x[0])
                .arg(&at.x[1])
                .arg(&at.res)
                .arg(&at.d[0])
                .arg(&theta_inv)
                .arg(&io.sc)
                .launch(at.cfg)?
        };
        let mut cur = 0;
        for j in 0..lv.coeffs.len() {
            if at.fine && j + 1 == lv.coeffs.len() {
                let (c1, c2) = at.coefficients(lv, j);
                unsafe {
                    self.funcs
                        .step_cg
                        .builder(s)
                        .arg(&lv.a.c)
                        .arg(&at.dinv)
                        .arg(&at.n)
                        .arg(&at.x[1])
                        .arg(&at.res)
                        .arg(&at.d[cur])
                        .arg(&c1)
                        .arg(&c2)
                        .arg(&io.r)
                        .arg(&io.z)
                        .arg(&io.sc)
                        .arg(&io.partial)
                        .arg(&io.counter)
                        .launch(at.cfg)?
                };
                return Ok(());
            }
            self.step(s, at, lv, at.x[1], cur, j, true, io)?;
            cur = 1 - cur;
        }
        if at.fine {
            // One smoothing step: z = x1 as it stands.
            self.finish_z(s, lv.n, at.x[1], io)?;
        }
        Ok(())
    }

    /// One product of a sweep on x: r -= A d[cur], and with `more` the direction of step j
    /// into d[1 - cur], x += it.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        s: &CudaStream,
        at: &At,
        lv: &DeviceLevel<T>,
        x: u64,
        cur: usize,
        j: usize,
        more: bool,
        io: &CgIo,
    ) -> Result<()> {
        let (c1, c2) = at.coefficients(lv, j);
        let more = u32::from(more);
        unsafe {
            self.funcs
                .step
                .builder(s)
                .arg(&lv.a.c)
                .arg(&at.diag)
                .arg(&at.dinv)
                .arg(&at.n)
                .arg(&x)
                .arg(&at.res)
                .arg(&at.d[cur])
                .arg(&at.d[1 - cur])
                .arg(&c1)
                .arg(&c2)
                .arg(&more)
                .arg(&io.sc)
                .launch(at.cfg)?
        };
        Ok(())
    }

    /// z = x (n values) in double with r.z, on CG's grid.
    fn finish_z(&self, s: &CudaStream, n: usize, x: u64, io: &CgIo) -> Result<()> {
        let n = n as u64;
        // SAFETY: x, r and z hold n values; sc, partial and counter are CG's, sized for its grid.
        unsafe {
            self.funcs
                .finish_z
                .builder(s)
                .arg(&n)
                .arg(&x)
                .arg(&io.r)
                .arg(&io.z)
                .arg(&io.sc)
                .arg(&io.partial)
                .arg(&io.counter)
                .launch(cfg(io.grid))?
        };
        Ok(())
    }
}

impl<T: Real> DeviceCycle for DeviceAmg<T> {
    fn launch(&self, stream: &CudaStream, io: CgIo) -> Result<()> {
        self.cycle(stream, 0, &io)
    }

    fn bytes(&self) -> f64 {
        self.bytes
    }

    fn precision(&self) -> &'static str {
        if std::mem::size_of::<T>() == 4 {
            "f32"
        } else {
            "f64"
        }
    }
}
