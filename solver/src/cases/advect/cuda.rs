//! CUDA execution of the advection (kernels/cuda/advect.cu): the shared device operations of
//! `numerics::sl::cuda` plus the departure kernel, which evaluates the case's velocity. The
//! mesh and the fields stay on the device for the whole run; only outputs come back.

use super::frames::Window;
use super::sim::Engine;
use super::velocity::{Velocity, VelocitySpec};
use crate::backend::cuda::{Device, EarlyFunction};
use crate::error::Result;
use crate::mesh::cuda::{launch_cfg, DeviceMesh};
use crate::mesh::TetGeometry;
use crate::numerics::sl::cuda::{function, DeviceDeps, DeviceSl};
use crate::numerics::sl::{quadratic, Interpolated, Interpolation, SlOps, Span, Weighting};
use crate::real::Real;
use cudarc::driver::{CudaSlice, DeviceRepr, PushKernelArg};
use std::sync::Arc;

/// Mirrors `struct Vel` in advect.cu.
#[repr(C)]
#[derive(Clone, Copy)]
struct VelC<R> {
    kind: i32,
    speed: R,
    omega: R,
    period: R,
    lo: [R; 3],
    len: [R; 3],
    reverse_after: i64,
    fu: u64,
    fj: u64,
    su: [[u64; 2]; 2],
    sj: [[u64; 2]; 2],
    sw: [R; 2],
}
// SAFETY: plain-old-data with the C layout.
unsafe impl<R: Real> DeviceRepr for VelC<R> {}

pub struct AdvectCuda<R: Real> {
    sl: DeviceSl<R>,
    vel: VelC<R>,
    /// Owners of the cell velocity and its Jacobian whose addresses `vel` holds.
    _vel_buffers: [CudaSlice<R>; 2],
    /// A series' frames on the device (index, velocity, Jacobian), uploaded once each, and
    /// the window they belong to.
    slots: Vec<(usize, CudaSlice<R>, CudaSlice<R>)>,
    window: Option<Arc<Window<R>>>,
    departures: EarlyFunction,
    max_walk: u32,
}

impl<R: Real> AdvectCuda<R> {
    pub fn new(
        dev: Arc<Device>,
        geo: &TetGeometry<R>,
        vel: &Velocity<R>,
        (interpolation, weighting): (Interpolation, Weighting),
        max_walk: u32,
        bc: &[R],
    ) -> Result<Self> {
        let mesh = Arc::new(DeviceMesh::upload(&dev, geo)?);
        let fit = (interpolation == Interpolation::Quadratic).then(|| quadratic::build_weighted(geo, bc, weighting));
        let field = vel.cells.as_ref();
        let fu = dev.upload(&field.map_or(vec![R::zero()], |c| c.v.as_flattened().to_vec()))?;
        let fj = dev.upload(&field.map_or(vec![R::zero()], |c| c.jac.as_flattened().as_flattened().to_vec()))?;
        let (kind, speed, omega, period, reverse_after) = match vel.spec {
            VelocitySpec::Constant { speed, reverse_after } => {
                (0, speed, 0.0, 1.0, reverse_after.map_or(-1, |n| n as i64))
            }
            VelocitySpec::Rotation { omega } => (1, 0.0, omega, 1.0, -1),
            VelocitySpec::Deformation { period } => (2, 0.0, 0.0, period, -1),
            VelocitySpec::Field { .. } => (3, 0.0, 0.0, 1.0, -1),
            VelocitySpec::Series { .. } => (4, 0.0, 0.0, 1.0, -1),
        };
        let velc = VelC {
            kind,
            speed: R::of(speed),
            omega: R::of(omega),
            period: R::of(period),
            lo: vel.lo.map(R::of),
            len: vel.len.map(R::of),
            reverse_after,
            fu: dev.ptr(&fu),
            fj: dev.ptr(&fj),
            su: [[0; 2]; 2],
            sj: [[0; 2]; 2],
            sw: [R::zero(); 2],
        };
        Ok(AdvectCuda {
            departures: function::<R>(&dev, kernels::advect::DEPARTURES)?,
            sl: DeviceSl::new(dev, mesh, interpolation, fit.as_ref(), bc)?,
            vel: velc,
            _vel_buffers: [fu, fj],
            slots: Vec::new(),
            window: None,
            max_walk,
        })
    }

    /// The velocity with a series' frames around t (slot 0) and t + dt (slot 1), as the
    /// host evaluates them (`Window::eval`).
    fn vel_at(&self, t: R, dt: R) -> Result<VelC<R>> {
        let mut v = self.vel;
        if v.kind != 4 {
            return Ok(v);
        }
        let w = self.window.as_ref().ok_or_else(|| {
            crate::error::SolverError::Other("internal: a series' departures before its frames".into())
        })?;
        let ptrs = |k: usize| {
            let s = self.slots.iter().find(|s| s.0 == k).expect("every frame of the window uploaded");
            (self.sl.dev.ptr(&s.1), self.sl.dev.ptr(&s.2))
        };
        for (at, time) in [t, t + dt].into_iter().enumerate() {
            let ((ka, _), (kb, _), weight) = w.at(time.f64());
            let ((ua, ja), (ub, jb)) = (ptrs(ka), ptrs(kb));
            v.su[at] = [ua, ub];
            v.sj[at] = [ja, jb];
            v.sw[at] = weight;
        }
        Ok(v)
    }
}

impl<R: Real> SlOps for AdvectCuda<R> {
    type Deps = DeviceDeps<R>;
    type Field = CudaSlice<R>;

    fn departures(&mut self, span: Span, sign: f64) -> Result<DeviceDeps<R>> {
        let mut out = self.sl.deps()?;
        let sink = self.sl.group_sink(&mut out);
        let dev = &self.sl.dev;
        let (px, cell, patch) = (dev.ptr(&out.px), dev.ptr(&out.cell), dev.ptr(&out.patch));
        let (t, dt, sign) = (R::of(span.t), R::of(span.dt), R::of(sign));
        let vel = self.vel_at(t, dt)?;
        let mut b = self.departures.builder(&dev.stream);
        b.arg(&self.sl.mesh.c)
            .arg(&vel)
            .arg(&t)
            .arg(&dt)
            .arg(&span.step)
            .arg(&sign);
        b.arg(&self.max_walk).arg(&px).arg(&cell).arg(&patch).arg(&sink);
        // SAFETY: the mesh arrays and the outputs hold ncells entries (px: 3 per cell), the
        // sink's arrays one per cell and per vertex group (`DeviceSl::group_sink`); the
        // cell velocity buffers and the series' frames 3 and 9 per cell where `vel.kind` reads
        // them (the frames live in `slots` until the next `set_frames`, after this launch).
        unsafe { b.launch(launch_cfg(self.sl.mesh.ncells()))? };
        Ok(out)
    }

    fn interpolate(&mut self, deps: &DeviceDeps<R>, f: &CudaSlice<R>) -> Result<Interpolated<CudaSlice<R>>> {
        self.sl.interpolate(deps, f)
    }

    fn correct(&mut self, f: &CudaSlice<R>, f2: &CudaSlice<R>) -> Result<CudaSlice<R>> {
        self.sl.correct(f, f2)
    }

    fn limit(&mut self, x: CudaSlice<R>, lo: &CudaSlice<R>, hi: &CudaSlice<R>) -> Result<CudaSlice<R>> {
        self.sl.limit(x, lo, hi)
    }

    fn recycle(&mut self, f: CudaSlice<R>) {
        self.sl.recycle(f)
    }

    fn recycle_deps(&mut self, d: DeviceDeps<R>) {
        self.sl.recycle_deps(d)
    }
}

impl<R: Real> Engine<R> for AdvectCuda<R> {
    fn upload(&mut self, host: &[R]) -> Result<CudaSlice<R>> {
        self.sl.dev.upload(host)
    }

    fn download(&mut self, f: &CudaSlice<R>) -> Result<Vec<R>> {
        self.sl.dev.download(f)
    }

    fn max_abs(&mut self, f: &CudaSlice<R>) -> Result<f64> {
        self.sl.dev.max_abs(f)
    }

    fn sync(&mut self) -> Result<()> {
        self.sl.dev.sync()
    }

    /// Upload the frames of `w` not on the device yet; let the others go.
    fn set_frames(&mut self, w: &Arc<Window<R>>) -> Result<()> {
        let mut slots = std::mem::take(&mut self.slots);
        for (k, f) in w.loaded() {
            let slot = match slots.iter().position(|s| s.0 == *k) {
                Some(p) => slots.swap_remove(p),
                None => {
                    let dev = &self.sl.dev;
                    let v = dev.upload(f.v.as_flattened())?;
                    (*k, v, dev.upload(f.jac.as_flattened().as_flattened())?)
                }
            };
            self.slots.push(slot);
        }
        self.window = Some(w.clone());
        Ok(())
    }
}
