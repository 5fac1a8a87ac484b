//! The semi-Lagrangian operations on a CUDA device (kernels/cuda/sl.cu): interpolation,
//! BFECC's correction and limiter, and a pool of cell-field buffers that the step's
//! temporaries come from and go back to. Departure points need the family's velocity, so the
//! family launches that kernel itself into a `DeviceDeps` from `DeviceSl::deps`.

use super::interp::{Interpolated, Interpolation};
use super::quadratic::{Bounds, QuadFit, FAC, REC};
use crate::backend::cuda::{Device, EarlyFunction};
use crate::error::Result;
use crate::mesh::cuda::{launch_cfg, pad, DeviceMesh, MeshC};
use crate::real::Real;
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use kernels::Kernel;
use std::sync::Arc;

/// A kernel of the semi-Lagrangian module, with the occupancy hint of its gather kernels,
/// `__launch_bounds__(128, N)`: none for f64 and 8 for f32 were best on an H100 (N = 6..16
/// tried: f64 loses up to 2.4x at 16, f32 gains 2-6 % at 6..10; BENCHMARKS.md).
/// CFD_SL_MIN_BLOCKS=N overrides it (0: none) for tuning.
pub fn function<R: Real>(dev: &Device, kernel: Kernel) -> Result<EarlyFunction> {
    let min_blocks = match std::env::var("CFD_SL_MIN_BLOCKS") {
        Ok(v) => v
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=32).contains(n))
            .map(|n| n.to_string()),
        Err(_) => (std::mem::size_of::<R>() == 4).then(|| "8".to_string()),
    };
    let defines: Vec<(&str, &str)> = min_blocks.iter().map(|v| ("MIN_BLOCKS", v.as_str())).collect();
    dev.function::<R>(kernel, &defines)
}

/// The group interpolation kernel, with the occupancy hint `__launch_bounds__(256, N)`: 8 for
/// f32 (32 registers, up to 16 blocks of 128 per SM: 1.17e9 -> 1.36e9 tet-steps/s for BFECC
/// on the 1M-tet box, H100), none for f64 (where 6 and 8 spill: 6.6e8 -> 5.7e8 and 5.1e8).
/// CFD_SL_GROUP_MIN_BLOCKS=N overrides it for tuning (0: none).
fn group_interp<R: Real>(dev: &Device) -> Result<EarlyFunction> {
    let min_blocks = match std::env::var("CFD_SL_GROUP_MIN_BLOCKS") {
        Ok(v) => v.parse::<u32>().ok().filter(|n| (1..=8).contains(n)),
        Err(_) => (std::mem::size_of::<R>() == 4).then_some(8),
    }
    .map(|n| n.to_string());
    let defines: Vec<(&str, &str)> = min_blocks.iter().map(|v| ("GROUP_MIN_BLOCKS", v.as_str())).collect();
    dev.function::<R>(kernels::sl::GROUP_INTERP, &defines)
}

/// Departure points of every cell and where they are: the cell holding each, and the
/// boundary patch it left through (-1 inside).
pub struct DeviceDeps<R> {
    pub px: CudaSlice<R>,
    pub cell: CudaSlice<u32>,
    pub patch: CudaSlice<i32>,
    /// Which departure points these are: a new number each time `DeviceSl::deps` hands the
    /// buffers out (for their writer to fill), so an interpolation can reuse what it derived
    /// from the same points (BFECC interpolates twice from the forward departures).
    stamp: u64,
    /// With the Voronoi interpolation by groups: each point's nearest vertex and the groups'
    /// bucket sizes (zeroed when handed out), which the departure kernel handed
    /// `DeviceSl::group_sink` fills as it locates the points.
    grouping: Option<DepsGroups>,
}

struct DepsGroups {
    near: CudaSlice<u32>,
    gcount: CudaSlice<u32>,
    /// Whether a departure kernel was handed them (the interpolation refuses departures
    /// that were not: their buckets would be empty).
    counted: bool,
}

/// Mirrors `struct GroupSink` of kernels/cuda/tet.cuh: where a departure kernel records each
/// point's nearest vertex and counts its group's bucket (all zero: it does not).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct GroupSink {
    vgroup: u64,
    near: u64,
    gcount: u64,
}
// SAFETY: plain-old-data with the C layout.
unsafe impl cudarc::driver::DeviceRepr for GroupSink {}

/// The quadratic's stencils and Cholesky factors on the device (`QuadFit`), with the kernel
/// that fits a field to them: shared by the interpolation and by any family that wants a
/// field's vertex fits for itself (Navier-Stokes' viscous face gradients).
pub struct QuadTables<R: Real> {
    dev: Arc<Device>,
    nnodes: u32,
    /// The stencils in the layout of `WarpSlices`: where each slice starts, each vertex's
    /// entry count, then the entries.
    qslice: CudaSlice<u32>,
    qcount: CudaSlice<u32>,
    qsrc: CudaSlice<u32>,
    qpts: CudaSlice<R>,
    qfac: CudaSlice<R>,
    quad_fit: EarlyFunction,
}

impl<R: Real> QuadTables<R> {
    pub fn upload(dev: &Arc<Device>, fit: &QuadFit<R>) -> Result<Self> {
        let index = |v: &[u32]| dev.stream.clone_htod(if v.is_empty() { &[0][..] } else { v });
        let slices = WarpSlices::new(&fit.offsets);
        // The factors are rows of FAC values each: the same layout, every slice FAC wide.
        let fac_offsets: Vec<u32> = (0..fit.offsets.len()).map(|v| (FAC * v) as u32).collect();
        Ok(QuadTables {
            nnodes: (fit.offsets.len() - 1) as u32,
            qslice: index(&slices.start)?,
            qcount: index(&slices.count)?,
            qsrc: index(&slices.lay_out(&fit.offsets, &fit.src))?,
            qpts: dev.upload(&pad(slices.lay_out(&fit.offsets, &fit.pts).as_flattened().to_vec()))?,
            qfac: dev.upload(&pad(WarpSlices::new(&fac_offsets).lay_out(&fac_offsets, &fit.fac)))?,
            quad_fit: function::<R>(dev, kernels::sl::QUAD_FIT)?,
            dev: dev.clone(),
        })
    }

    /// The fit records of field f (ncells values) with the Dirichlet patch values bc into rec
    /// (`REC` values per node): `quadratic::fit_field` on the device.
    pub fn fit(&self, f: u64, bc: u64, rec: u64) -> Result<()> {
        let p = |b: &CudaSlice<R>| self.dev.ptr(b);
        let u = |b: &CudaSlice<u32>| self.dev.ptr(b);
        let (slice, count, src) = (u(&self.qslice), u(&self.qcount), u(&self.qsrc));
        let (pts, fac) = (p(&self.qpts), p(&self.qfac));
        let mut b = self.quad_fit.builder(&self.dev.stream);
        b.arg(&self.nnodes)
            .arg(&slice)
            .arg(&count)
            .arg(&src)
            .arg(&pts)
            .arg(&fac)
            .arg(&f)
            .arg(&bc)
            .arg(&rec);
        // SAFETY: the stencil tables cover every node; the caller passes f with ncells values,
        // bc with one per patch and rec with REC per node.
        unsafe { b.launch(launch_cfg(self.nnodes as usize))? };
        Ok(())
    }
}

/// CSR rows (a vertex's stencil entries) laid out by slices of 32 rows, one per warp: entry k
/// of the slice's row `lane` at `start[slice] + 32 k + lane`, each slice as wide as its longest
/// row. A warp's threads, each summing its own row in order, then read consecutive addresses
/// at every step; in CSR each streamed its own block and the fit read 2.7x its tables' bytes
/// from DRAM (ncu, 1M-tet box, f32: 840 MB per launch).
struct WarpSlices {
    start: Vec<u32>,
    count: Vec<u32>,
}

impl WarpSlices {
    fn new(offsets: &[u32]) -> Self {
        let count: Vec<u32> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
        let mut start = vec![0u32];
        for rows in count.chunks(32) {
            let width = rows.iter().copied().max().unwrap_or(0);
            start.push(start.last().unwrap() + 32 * width);
        }
        WarpSlices { start, count }
    }

    /// `values` (CSR, by `offsets`) in this layout, padding with defaults.
    fn lay_out<T: Copy + Default>(&self, offsets: &[u32], values: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); *self.start.last().unwrap() as usize];
        for (row, w) in offsets.windows(2).enumerate() {
            let base = self.start[row / 32] as usize + row % 32;
            for (k, e) in (w[0]..w[1]).enumerate() {
                out[base + 32 * k] = values[e as usize];
            }
        }
        out
    }
}

/// What one vertex group stages in shared memory: at most `cap` dual entries, `vcap` virtual
/// ones and `vmax` vertices, in `bytes` (per entry a row of its 16 values and its cell's value;
/// 16 bytes of padding per vertex).
#[derive(Clone, Copy, Debug, PartialEq)]
struct GroupCaps {
    cap: u32,
    vcap: u32,
    vmax: u32,
    bytes: u32,
}

/// The fastest on an H100 (BFECC on the 1M-tet Hilbert box): 128 entries in f32 (about 5
/// vertices of a Kuhn box, 32 points; 1.39e9 tet-steps/s against 1.36e9 at 176) and 176 in f64
/// (about 7 vertices; 6.6e8 against 6.3e8 at 128 and 6.1e8 at 224): bigger groups leave fewer
/// blocks per SM, smaller ones spend more of each block on staging and its barrier per point.
/// Virtual entries and vertices get an eighth as many. CFD_SL_GROUP_ENTRIES=N overrides it for
/// tuning (from 32 up to what fits in 48 KiB).
fn group_caps<R>() -> GroupCaps {
    let real = std::mem::size_of::<R>();
    let bytes = |cap: usize| 17 * real * (cap + cap / 8) + 16 * (cap / 8);
    let cap = std::env::var("CFD_SL_GROUP_ENTRIES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&k| k >= 32 && bytes(k) <= 48 * 1024)
        .unwrap_or(if real == 4 { 128 } else { 176 });
    GroupCaps {
        cap: cap as u32,
        vcap: (cap / 8) as u32,
        vmax: (cap / 8) as u32,
        bytes: bytes(cap) as u32,
    }
}

/// Consecutive vertices in groups of at most `cap` dual and `vcap` virtual entries and `vmax`
/// vertices (a vertex with more entries is a group of its own, which the kernel reads from
/// global memory): the first vertex of each group, then the number of vertices.
pub fn vertex_groups(doff: &[u32], voff: &[u32], cap: usize, vcap: usize, vmax: usize) -> Vec<u32> {
    let nnodes = doff.len().saturating_sub(1);
    let mut starts = vec![];
    let mut v = 0;
    while v < nnodes {
        starts.push(v as u32);
        let (v0, e0, w0) = (v, doff[v], voff[v]);
        v += 1;
        while v < nnodes && v - v0 < vmax && (doff[v + 1] - e0) as usize <= cap && (voff[v + 1] - w0) as usize <= vcap {
            v += 1;
        }
    }
    starts.push(nnodes as u32);
    starts
}

/// The Voronoi-dual interpolation by vertex groups (`sl_group_*` in sl.cu): every departure
/// point is bucketed by the group of its nearest vertex, and one block per group evaluates
/// its bucket from the group's dual entries staged in shared memory. Bit-identical to
/// `sl_interp`, whose per-point gathers are bound by L1 tag lookups.
struct VoronoiGroups {
    ngroups: u32,
    /// First vertex of each group, then nnodes.
    groups: CudaSlice<u32>,
    /// Group of each vertex.
    vgroup: CudaSlice<u32>,
    /// The buckets of the last two sets of departure points (BFECC's forward and backward).
    buckets: [Buckets; 2],
    /// The set used last (the other is replaced first).
    last: usize,
    gcursor: CudaSlice<u32>,
    caps: GroupCaps,
    /// Threads of the interpolation kernel's blocks (128 were the fastest of 64-256;
    /// CFD_SL_GROUP_THREADS overrides them for tuning).
    threads: u32,
    /// Totals, then starts, of the scan's tiles of 1024 groups.
    tile_sum: CudaSlice<u32>,
    outside: EarlyFunction,
    scan_tiles: EarlyFunction,
    scan_top: EarlyFunction,
    scan: EarlyFunction,
    fill: EarlyFunction,
    interp: EarlyFunction,
}

/// Device addresses of one interpolation's inputs and outputs (value, low, high).
struct GroupArgs {
    px: u64,
    cell: u64,
    patch: u64,
    f: u64,
    bc: u64,
    out: [u64; 3],
}

impl GroupArgs {
    /// What `outside_point` (sl.cu) needs, in the kernels' order: where each point is, the
    /// field, the patch values and the three outputs.
    fn push_outside<'a>(&'a self, b: &mut crate::backend::cuda::EarlyLaunch<'a>) {
        b.arg(&self.cell).arg(&self.patch).arg(&self.f).arg(&self.bc);
        for o in &self.out {
            b.arg(o);
        }
    }
}

/// One set of departure points bucketed by vertex group.
struct Buckets {
    /// The departures' `stamp` (0: none yet).
    stamp: u64,
    /// The points, bucket after bucket, and where each bucket starts (ngroups + 1).
    order: CudaSlice<u32>,
    gstart: CudaSlice<u32>,
}

impl VoronoiGroups {
    fn new<R: Real>(dev: &Arc<Device>, mesh: &DeviceMesh<R>) -> Result<Self> {
        use kernels::sl as k;
        let caps = group_caps::<R>();
        let (cap, vcap, vmax) = (caps.cap as usize, caps.vcap as usize, caps.vmax as usize);
        let starts = vertex_groups(&mesh.dual_offsets, &mesh.virt_offsets, cap, vcap, vmax);
        let ngroups = starts.len() - 1;
        let mut vgroup = vec![0u32; mesh.nnodes().max(1)];
        for (g, w) in starts.windows(2).enumerate() {
            vgroup[w[0] as usize..w[1] as usize].fill(g as u32);
        }
        let n = mesh.ncells().max(1);
        let s = &dev.stream;
        let bucket = || -> Result<Buckets> {
            Ok(Buckets {
                stamp: 0,
                order: s.alloc_zeros(n)?,
                gstart: s.alloc_zeros(ngroups + 1)?,
            })
        };
        Ok(VoronoiGroups {
            ngroups: ngroups as u32,
            groups: s.clone_htod(&starts)?,
            vgroup: s.clone_htod(&vgroup)?,
            buckets: [bucket()?, bucket()?],
            last: 0,
            gcursor: s.alloc_zeros(ngroups.max(1))?,
            outside: function::<R>(dev, k::GROUP_OUTSIDE)?,
            tile_sum: s.alloc_zeros(ngroups.div_ceil(1024).max(1))?,
            scan_tiles: function::<R>(dev, k::GROUP_SCAN_TILES)?,
            scan_top: function::<R>(dev, k::GROUP_SCAN_TOP)?,
            scan: function::<R>(dev, k::GROUP_SCAN)?,
            fill: function::<R>(dev, k::GROUP_FILL)?,
            interp: group_interp::<R>(dev)?,
            caps,
            threads: std::env::var("CFD_SL_GROUP_THREADS")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|t| [32, 64, 128, 256].contains(t))
                .unwrap_or(128),
        })
    }

    /// The boundary values of the points outside the domain, the others already bucketed.
    fn boundary_values(&self, dev: &Device, n: u32, a: &GroupArgs) -> Result<()> {
        let mut b = self.outside.builder(&dev.stream);
        b.arg(&n);
        a.push_outside(&mut b);
        // SAFETY: the departures, f and the outputs hold n entries, bc one per patch.
        unsafe { b.launch(launch_cfg(n as usize))? };
        Ok(())
    }

    /// The points, whose nearest vertices and bucket sizes their departure kernel recorded,
    /// into bucket set `slot`: the sizes' prefix sum, the buckets (and the boundary values of
    /// the points outside).
    fn bucket(&mut self, dev: &Device, m: &MeshC, slot: usize, dg: &DepsGroups, a: &GroupArgs) -> Result<()> {
        let s = &dev.stream;
        let u = |b: &CudaSlice<u32>| dev.ptr(b);
        let bk = &self.buckets[slot];
        let (near, gcount, order, gstart) = (u(&dg.near), u(&dg.gcount), u(&bk.order), u(&bk.gstart));
        let (vgroup, gcursor, tile_sum) = (u(&self.vgroup), u(&self.gcursor), u(&self.tile_sum));
        let (n, ngroups) = (m.ncells, self.ngroups);
        let ntiles = ngroups.div_ceil(1024);
        let tiles = |n: u32| LaunchConfig {
            grid_dim: (n, 1, 1),
            block_dim: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY (all): the departures, f and the outputs hold ncells entries (px 3 per cell),
        // bc one per patch; near and order ncells, vgroup nnodes, gstart ngroups + 1, gcount
        // (zeroed when the departures were handed out) and gcursor ngroups, tile_sum one per
        // 1024 groups; the mesh buffers live in `mesh`.
        if !dg.counted {
            return Err(crate::error::SolverError::Other(
                "internal: departures interpolated by vertex groups must be located with `DeviceSl::group_sink`".into(),
            ));
        }
        unsafe {
            let mut b = self.scan_tiles.builder(s);
            b.arg(&ngroups).arg(&gcount).arg(&tile_sum);
            b.launch(tiles(ntiles))?;
            let mut b = self.scan_top.builder(s);
            b.arg(&ntiles).arg(&tile_sum);
            b.launch(tiles(1))?;
            let mut b = self.scan.builder(s);
            b.arg(&ngroups).arg(&gcount).arg(&tile_sum).arg(&gstart).arg(&gcursor);
            b.launch(tiles(ntiles))?;
            let mut b = self.fill.builder(s);
            b.arg(&n).arg(&near).arg(&vgroup).arg(&gcursor).arg(&order);
            a.push_outside(&mut b);
            b.launch(launch_cfg(n as usize))?;
        }
        Ok(())
    }
}

struct Functions {
    interp: EarlyFunction,
    vertex_values: EarlyFunction,
    gradients: EarlyFunction,
    correct: EarlyFunction,
    limit: EarlyFunction,
}

pub struct DeviceSl<R: Real> {
    pub dev: Arc<Device>,
    pub mesh: Arc<DeviceMesh<R>>,
    interpolation: Interpolation,
    /// The quadratic's clamp range (its fit tables').
    bounds: Bounds,
    fns: Functions,
    /// The quadratic's stencils and factors (the quadratic interpolation only).
    quad: Option<Arc<QuadTables<R>>>,
    /// Scratch of the interpolation: vertex values or fit records, gradients and neighbour
    /// ranges.
    fv: CudaSlice<R>,
    grad: CudaSlice<R>,
    rlo: CudaSlice<R>,
    rhi: CudaSlice<R>,
    /// Dirichlet value per patch, NaN for the others.
    bc: CudaSlice<R>,
    /// The Voronoi interpolation's vertex groups (`CFD_SL_GROUPS=0`: the per-point kernel).
    groups: Option<VoronoiGroups>,
    fields: Vec<CudaSlice<R>>,
    deps: Vec<DeviceDeps<R>>,
    /// The last `DeviceDeps::stamp` handed out.
    stamps: u64,
}

impl<R: Real> DeviceSl<R> {
    /// `fit`: the quadratic's tables, which that interpolation needs (`quadratic::build`).
    pub fn new(
        dev: Arc<Device>,
        mesh: Arc<DeviceMesh<R>>,
        interpolation: Interpolation,
        fit: Option<&QuadFit<R>>,
        bc: &[R],
    ) -> Result<Self> {
        use kernels::sl as k;
        let n = mesh.ncells();
        let fit = match (interpolation, fit) {
            (Interpolation::Quadratic, None) => {
                return Err(crate::error::SolverError::Other(
                    "internal: the quadratic interpolation needs its fit tables".into(),
                ))
            }
            (Interpolation::Quadratic, f) => f,
            _ => None,
        };
        let nrec = if fit.is_some() { REC } else { 1 };
        let groups = (interpolation == Interpolation::Voronoi && std::env::var("CFD_SL_GROUPS").as_deref() != Ok("0"))
            .then(|| VoronoiGroups::new(&dev, &mesh))
            .transpose()?;
        Ok(DeviceSl {
            bounds: fit.map_or(Bounds::Union, |f| f.bounds),
            groups,
            quad: fit.map(|f| QuadTables::upload(&dev, f).map(Arc::new)).transpose()?,
            fns: Functions {
                interp: function::<R>(&dev, k::INTERP)?,
                vertex_values: function::<R>(&dev, k::VERTEX_VALUES)?,
                gradients: function::<R>(&dev, k::GRADIENTS)?,
                correct: function::<R>(&dev, k::CORRECT)?,
                limit: function::<R>(&dev, k::LIMIT)?,
            },
            fv: dev.zeros(nrec * mesh.nnodes().max(1))?,
            grad: dev.zeros(3 * n)?,
            rlo: dev.zeros(n)?,
            rhi: dev.zeros(n)?,
            bc: dev.upload(&pad(bc.to_vec()))?,
            fields: Vec::new(),
            deps: Vec::new(),
            stamps: 0,
            interpolation,
            mesh,
            dev,
        })
    }

    /// The quadratic's tables where the interpolation is quadratic.
    pub fn quad_tables(&self) -> Option<Arc<QuadTables<R>>> {
        self.quad.clone()
    }

    /// Puts `bc` (a Dirichlet value per patch, NaN for the others, the same patches
    /// Dirichlet as the one it replaces) in place and gives back the one in use: a family
    /// that advects several components with their own wall values swaps them per component.
    pub fn replace_bc(&mut self, bc: CudaSlice<R>) -> CudaSlice<R> {
        std::mem::replace(&mut self.bc, bc)
    }

    /// A cell-field buffer (contents undefined): a recycled one, else a new one.
    pub fn field(&mut self) -> Result<CudaSlice<R>> {
        match self.fields.pop() {
            Some(f) => Ok(f),
            None => self.dev.zeros(self.mesh.ncells()),
        }
    }

    pub fn recycle(&mut self, f: CudaSlice<R>) {
        self.fields.push(f);
    }

    /// Buffers for departure points (contents undefined).
    pub fn deps(&mut self) -> Result<DeviceDeps<R>> {
        self.stamps += 1;
        let mut d = match self.deps.pop() {
            Some(d) => d,
            None => {
                let n = self.mesh.ncells();
                let s = &self.dev.stream;
                let grouping = self.groups.as_ref().map(|g| -> Result<DepsGroups> {
                    Ok(DepsGroups {
                        near: s.alloc_zeros(n.max(1))?,
                        gcount: s.alloc_zeros(g.ngroups.max(1) as usize)?,
                        counted: false,
                    })
                });
                DeviceDeps {
                    px: self.dev.zeros(3 * n)?,
                    cell: s.alloc_zeros(n)?,
                    patch: s.alloc_zeros(n)?,
                    stamp: 0,
                    grouping: grouping.transpose()?,
                }
            }
        };
        d.stamp = self.stamps;
        if let Some(g) = d.grouping.as_mut() {
            self.dev.stream.memset_zeros(&mut g.gcount)?;
            g.counted = false;
        }
        Ok(d)
    }

    /// Where the departure kernel that fills `deps` records each point's nearest vertex and
    /// counts the groups' buckets, sparing the interpolation a pass over the points (all zero,
    /// and nothing to do, unless the interpolation is Voronoi's by groups).
    pub fn group_sink(&self, deps: &mut DeviceDeps<R>) -> GroupSink {
        match (&self.groups, deps.grouping.as_mut()) {
            (Some(g), Some(dg)) => {
                dg.counted = true;
                GroupSink {
                    vgroup: self.dev.ptr(&g.vgroup),
                    near: self.dev.ptr(&dg.near),
                    gcount: self.dev.ptr(&dg.gcount),
                }
            }
            _ => GroupSink::default(),
        }
    }

    pub fn recycle_deps(&mut self, d: DeviceDeps<R>) {
        self.deps.push(d);
    }

    /// The interpolation's per-field pass: fit records (quadratic), vertex values (linear) or
    /// gradients and neighbour ranges (voronoi-grad) of f into the scratch buffers.
    fn prepare(&self, f: u64) -> Result<()> {
        let (m, s) = (&self.mesh.c, &self.dev.stream);
        let p = |b: &CudaSlice<R>| self.dev.ptr(b);
        match self.interpolation {
            Interpolation::Voronoi => {}
            Interpolation::Quadratic => {
                let q = self.quad.as_ref().expect("built with the quadratic interpolation");
                q.fit(f, p(&self.bc), p(&self.fv))?;
            }
            Interpolation::Linear => {
                let fv = p(&self.fv);
                // SAFETY: f holds ncells values, fv nnodes; the mesh buffers live in `mesh`.
                unsafe {
                    self.fns
                        .vertex_values
                        .builder(s)
                        .arg(m)
                        .arg(&f)
                        .arg(&fv)
                        .launch(launch_cfg(self.mesh.nnodes()))?
                };
            }
            Interpolation::VoronoiGrad => {
                let (g, lo, hi) = (p(&self.grad), p(&self.rlo), p(&self.rhi));
                // SAFETY: f, rlo, rhi hold ncells values, grad 3 per cell.
                unsafe {
                    self.fns
                        .gradients
                        .builder(s)
                        .arg(m)
                        .arg(&f)
                        .arg(&g)
                        .arg(&lo)
                        .arg(&hi)
                        .launch(launch_cfg(self.mesh.ncells()))?
                };
            }
        }
        Ok(())
    }

    /// I(deps, f) with the donors' range, into buffers of the pool.
    pub fn interpolate(&mut self, deps: &DeviceDeps<R>, f: &CudaSlice<R>) -> Result<Interpolated<CudaSlice<R>>> {
        let out = Interpolated {
            value: self.field()?,
            lo: self.field()?,
            hi: self.field()?,
        };
        if self.groups.is_some() {
            self.interpolate_by_groups(deps, f, &out)?;
            return Ok(out);
        }
        let p = |b: &CudaSlice<R>| self.dev.ptr(b);
        let fp = p(f);
        self.prepare(fp)?;
        let how: i32 = match self.interpolation {
            Interpolation::Voronoi => 0,
            Interpolation::VoronoiGrad => 1,
            Interpolation::Linear => 2,
            Interpolation::Quadratic if self.bounds == Bounds::Blended => 4,
            Interpolation::Quadratic if self.bounds == Bounds::None => 5,
            Interpolation::Quadratic => 3,
        };
        let (px, cell, patch) = (p(&deps.px), self.dev.ptr(&deps.cell), self.dev.ptr(&deps.patch));
        let scratch = [p(&self.fv), p(&self.grad), p(&self.rlo), p(&self.rhi), p(&self.bc)];
        let (v, lo, hi) = (p(&out.value), p(&out.lo), p(&out.hi));
        let mut b = self.fns.interp.builder(&self.dev.stream);
        b.arg(&self.mesh.c).arg(&how).arg(&px).arg(&cell).arg(&patch).arg(&fp);
        for s in &scratch {
            b.arg(s);
        }
        b.arg(&v).arg(&lo).arg(&hi);
        // SAFETY: the departures, f and the outputs hold ncells entries (px 3 per cell), the
        // scratch buffers are sized for the mesh, bc for every patch.
        unsafe { b.launch(launch_cfg(self.mesh.ncells()))? };
        Ok(out)
    }

    /// The Voronoi interpolation by vertex groups (see `VoronoiGroups`) into `out`: the
    /// departures bucketed (or their buckets from an earlier call on the same departures, and
    /// only the boundary values anew), then one block per group.
    fn interpolate_by_groups(
        &mut self,
        deps: &DeviceDeps<R>,
        f: &CudaSlice<R>,
        out: &Interpolated<CudaSlice<R>>,
    ) -> Result<()> {
        let gr = self.groups.as_mut().expect("called with groups");
        let (dev, m) = (&self.dev, &self.mesh.c);
        if m.ncells == 0 || gr.ngroups == 0 {
            return Ok(());
        }
        let p = |b: &CudaSlice<R>| dev.ptr(b);
        let u = |b: &CudaSlice<u32>| dev.ptr(b);
        let a = GroupArgs {
            px: p(&deps.px),
            cell: u(&deps.cell),
            patch: dev.ptr(&deps.patch),
            f: p(f),
            bc: p(&self.bc),
            out: [p(&out.value), p(&out.lo), p(&out.hi)],
        };
        let known = gr.buckets.iter().position(|b| b.stamp == deps.stamp);
        let slot = known.unwrap_or(1 - gr.last);
        gr.last = slot;
        let dg = deps.grouping.as_ref().expect("departures handed out with groups");
        match known {
            Some(_) => gr.boundary_values(dev, m.ncells, &a)?,
            None => {
                gr.bucket(dev, m, slot, dg, &a)?;
                gr.buckets[slot].stamp = deps.stamp;
            }
        }
        let bk = &gr.buckets[slot];
        let (groups, gstart, order, near) = (u(&gr.groups), u(&bk.gstart), u(&bk.order), u(&dg.near));
        let [v, lo, hi] = a.out;
        let mut b = gr.interp.builder(&dev.stream);
        b.arg(m)
            .arg(&gr.caps.cap)
            .arg(&gr.caps.vcap)
            .arg(&gr.caps.vmax)
            .arg(&groups)
            .arg(&gstart)
            .arg(&order)
            .arg(&near);
        b.arg(&a.px).arg(&a.f).arg(&a.bc).arg(&v).arg(&lo).arg(&hi);
        // SAFETY: the departures, f and the outputs hold ncells entries (px 3 per cell), bc one
        // per patch; the buckets cover every point inside; the mesh buffers live in `mesh`.
        unsafe {
            b.launch(LaunchConfig {
                grid_dim: (gr.ngroups, 1, 1),
                block_dim: (gr.threads, 1, 1),
                shared_mem_bytes: gr.caps.bytes,
            })?
        };
        Ok(())
    }

    /// f + (f - f2) / 2, into a buffer of the pool.
    pub fn correct(&mut self, f: &CudaSlice<R>, f2: &CudaSlice<R>) -> Result<CudaSlice<R>> {
        let g = self.field()?;
        let n = self.mesh.c.ncells;
        let (fp, f2p, gp) = (self.dev.ptr(f), self.dev.ptr(f2), self.dev.ptr(&g));
        let s = &self.dev.stream;
        // SAFETY: the three buffers hold ncells values.
        unsafe {
            self.fns
                .correct
                .builder(s)
                .arg(&n)
                .arg(&fp)
                .arg(&f2p)
                .arg(&gp)
                .launch(launch_cfg(n as usize))?
        };
        Ok(g)
    }

    /// x clamped to [lo, hi], in place.
    pub fn limit(&mut self, x: CudaSlice<R>, lo: &CudaSlice<R>, hi: &CudaSlice<R>) -> Result<CudaSlice<R>> {
        let n = self.mesh.c.ncells;
        let (xp, lp, hp, on) = (self.dev.ptr(&x), self.dev.ptr(lo), self.dev.ptr(hi), 1i32);
        let mut b = self.fns.limit.builder(&self.dev.stream);
        b.arg(&n).arg(&xp).arg(&lp).arg(&hp).arg(&on).arg(&xp);
        // SAFETY: the buffers hold ncells values; each thread reads x[i] before writing it.
        unsafe { b.launch(launch_cfg(n as usize))? };
        Ok(x)
    }
}

#[cfg(test)]
mod tests {
    use super::vertex_groups;

    #[test]
    fn warp_slices_put_entry_k_of_a_row_32_apart() {
        // 33 rows: row r has r % 3 entries valued 100 r + k; the second slice holds row 32 alone.
        let mut offsets = vec![0u32];
        let mut values = vec![];
        for r in 0..33u32 {
            for k in 0..r % 3 {
                values.push(100 * r + k);
            }
            offsets.push(values.len() as u32);
        }
        let s = super::WarpSlices::new(&offsets);
        assert_eq!(s.start, vec![0, 64, 128]);
        // Rows of 2 values each (the factors' case), 33 rows: value j of row r at
        // 64 (r / 32) + 32 j + r % 32, the last slice padded to 32 rows.
        let two: Vec<u32> = (0..34).map(|r| 2 * r).collect();
        let f = super::WarpSlices::new(&two).lay_out(&two, &(0..66).collect::<Vec<u32>>());
        assert_eq!(f.len(), 128);
        assert_eq!((f[0], f[32], f[1], f[33], f[64], f[96]), (0, 1, 2, 3, 64, 65));
        let laid = s.lay_out(&offsets, &values);
        for r in 0..33usize {
            assert_eq!(s.count[r], (r % 3) as u32);
            for k in 0..r % 3 {
                assert_eq!(laid[s.start[r / 32] as usize + r % 32 + 32 * k], (100 * r + k) as u32);
            }
        }
    }

    #[test]
    fn vertex_groups_cover_every_vertex_within_the_caps() {
        // Dual entries per vertex 3, 5, 9 (over the cap of 8: a group alone), 2, 2, 4; virtual
        // entries only on vertex 4 (2, over the virtual cap of 1).
        let doff = [0, 3, 8, 17, 19, 21, 25];
        let voff = [0, 0, 0, 0, 0, 2, 2];
        let g = vertex_groups(&doff, &voff, 8, 1, 4);
        assert_eq!(g, vec![0, 2, 3, 4, 5, 6]);
        for w in g.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let alone = b - a == 1;
            assert!(alone || (doff[b] - doff[a] <= 8 && voff[b] - voff[a] <= 1), "{w:?}");
        }
        assert_eq!(vertex_groups(&[0], &[0], 8, 1, 4), vec![0]);
        // At most vmax vertices: six vertices of one entry each, in threes.
        let one = [0, 1, 2, 3, 4, 5, 6];
        assert_eq!(vertex_groups(&one, &[0; 7], 8, 1, 3), vec![0, 3, 6]);
    }
}
