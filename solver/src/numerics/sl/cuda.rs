//! The semi-Lagrangian operations on a CUDA device (kernels/cuda/sl.cu): interpolation,
//! BFECC's correction and limiter, and a pool of cell-field buffers that the step's
//! temporaries come from and go back to. Departure points need the family's velocity, so the
//! family launches that kernel itself into a `DeviceDeps` from `DeviceSl::deps`.

use super::interp::{Interpolated, Interpolation};
use super::quadratic::{QuadFit, REC};
use crate::backend::cuda::Device;
use crate::error::Result;
use crate::mesh::cuda::{launch_cfg, pad, DeviceMesh};
use crate::real::Real;
use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};
use kernels::Kernel;
use std::sync::Arc;

/// A kernel of the semi-Lagrangian module, with the occupancy hint of its gather kernels,
/// `__launch_bounds__(128, N)`: none for f64 and 8 for f32 were best on an H100 (N = 6..16
/// tried: f64 loses up to 2.4x at 16, f32 gains 2-6 % at 6..10; BENCHMARKS.md).
/// CFD_SL_MIN_BLOCKS=N overrides it (0: none) for tuning.
pub fn function<R: Real>(dev: &Device, kernel: Kernel) -> Result<CudaFunction> {
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

/// Departure points of every cell and where they are: the cell holding each, and the
/// boundary patch it left through (-1 inside).
pub struct DeviceDeps<R> {
    pub px: CudaSlice<R>,
    pub cell: CudaSlice<u32>,
    pub patch: CudaSlice<i32>,
}

/// The quadratic's stencils and Cholesky factors on the device (`QuadFit`), with the kernel
/// that fits a field to them: shared by the interpolation and by any family that wants a
/// field's vertex fits for itself (Navier-Stokes' viscous face gradients).
pub struct QuadTables<R: Real> {
    dev: Arc<Device>,
    nnodes: u32,
    qoff: CudaSlice<u32>,
    qsrc: CudaSlice<u32>,
    qpts: CudaSlice<R>,
    qfac: CudaSlice<R>,
    quad_fit: CudaFunction,
}

impl<R: Real> QuadTables<R> {
    pub fn upload(dev: &Arc<Device>, fit: &QuadFit<R>) -> Result<Self> {
        let index = |v: &[u32]| dev.stream.clone_htod(if v.is_empty() { &[0][..] } else { v });
        Ok(QuadTables {
            nnodes: (fit.offsets.len() - 1) as u32,
            qoff: index(&fit.offsets)?,
            qsrc: index(&fit.src)?,
            qpts: dev.upload(&pad(fit.pts.as_flattened().to_vec()))?,
            qfac: dev.upload(&pad(fit.fac.clone()))?,
            quad_fit: function::<R>(dev, kernels::sl::QUAD_FIT)?,
            dev: dev.clone(),
        })
    }

    /// The fit records of field f (ncells values) with the Dirichlet patch values bc into rec
    /// (`REC` values per node): `quadratic::fit_field` on the device.
    pub fn fit(&self, f: u64, bc: u64, rec: u64) -> Result<()> {
        let p = |b: &CudaSlice<R>| self.dev.ptr(b);
        let (off, src) = (self.dev.ptr(&self.qoff), self.dev.ptr(&self.qsrc));
        let (pts, fac) = (p(&self.qpts), p(&self.qfac));
        let mut b = self.dev.stream.launch_builder(&self.quad_fit);
        b.arg(&self.nnodes)
            .arg(&off)
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

struct Functions {
    interp: CudaFunction,
    vertex_values: CudaFunction,
    gradients: CudaFunction,
    correct: CudaFunction,
    limit: CudaFunction,
}

pub struct DeviceSl<R: Real> {
    pub dev: Arc<Device>,
    pub mesh: Arc<DeviceMesh<R>>,
    interpolation: Interpolation,
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
    fields: Vec<CudaSlice<R>>,
    deps: Vec<DeviceDeps<R>>,
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
        Ok(DeviceSl {
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
        if let Some(d) = self.deps.pop() {
            return Ok(d);
        }
        let n = self.mesh.ncells();
        Ok(DeviceDeps {
            px: self.dev.zeros(3 * n)?,
            cell: self.dev.stream.alloc_zeros(n)?,
            patch: self.dev.stream.alloc_zeros(n)?,
        })
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
                    s.launch_builder(&self.fns.vertex_values)
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
                    s.launch_builder(&self.fns.gradients)
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
        let p = |b: &CudaSlice<R>| self.dev.ptr(b);
        let fp = p(f);
        self.prepare(fp)?;
        let how: i32 = match self.interpolation {
            Interpolation::Voronoi => 0,
            Interpolation::VoronoiGrad => 1,
            Interpolation::Linear => 2,
            Interpolation::Quadratic => 3,
        };
        let (px, cell, patch) = (p(&deps.px), self.dev.ptr(&deps.cell), self.dev.ptr(&deps.patch));
        let scratch = [p(&self.fv), p(&self.grad), p(&self.rlo), p(&self.rhi), p(&self.bc)];
        let (v, lo, hi) = (p(&out.value), p(&out.lo), p(&out.hi));
        let mut b = self.dev.stream.launch_builder(&self.fns.interp);
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

    /// f + (f - f2) / 2, into a buffer of the pool.
    pub fn correct(&mut self, f: &CudaSlice<R>, f2: &CudaSlice<R>) -> Result<CudaSlice<R>> {
        let g = self.field()?;
        let n = self.mesh.c.ncells;
        let (fp, f2p, gp) = (self.dev.ptr(f), self.dev.ptr(f2), self.dev.ptr(&g));
        let s = &self.dev.stream;
        // SAFETY: the three buffers hold ncells values.
        unsafe {
            s.launch_builder(&self.fns.correct)
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
        let mut b = self.dev.stream.launch_builder(&self.fns.limit);
        b.arg(&n).arg(&xp).arg(&lp).arg(&hp).arg(&on).arg(&xp);
        // SAFETY: the buffers hold ncells values; each thread reads x[i] before writing it.
        unsafe { b.launch(launch_cfg(n as usize))? };
        Ok(x)
    }
}
