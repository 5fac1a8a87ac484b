//! CUDA execution of the advection step (kernels/cuda/advect.cu). The mesh and all fields
//! stay on the device for the whole run; only summaries and outputs come back.

use super::geometry::Geometry;
use super::interp::Interpolation;
use super::velocity::{Velocity, VelocitySpec};
use super::{AdvectSection, Scheme};
use crate::backend::cuda::Device;
use crate::cases::Simulation;
use crate::error::Result;
use crate::real::Real;
use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Mirrors `struct Mesh` in advect.cu: device addresses of the geometry's arrays.
#[repr(C)]
#[derive(Clone, Copy)]
struct MeshC {
    p: [u64; 13],
    ncells: u32,
    nnodes: u32,
}
// SAFETY: plain-old-data with the C layout.
unsafe impl DeviceRepr for MeshC {}

/// A dual table as the kernel reads it: per entry the three normals, the three plane offsets,
/// the three half edge lengths and |det N|, 16 values in one aligned block.
fn pack<R: Real>(t: &meshtool::dual::DualTables<R>) -> Vec<R> {
    let mut out = Vec::with_capacity(16 * t.cells.len());
    for e in 0..t.cells.len() {
        out.extend(t.normals[e].as_flattened());
        out.extend(&t.plane_d[e]);
        out.extend(&t.half_len[e]);
        out.push(t.det[e]);
    }
    out
}

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
}
// SAFETY: plain-old-data with the C layout.
unsafe impl<R: Real> DeviceRepr for VelC<R> {}

/// Departure points and their locations for one direction of the velocity.
struct Departures<R> {
    px: CudaSlice<R>,
    cell: CudaSlice<u32>,
    patch: CudaSlice<i32>,
}

pub struct AdvectCuda<R: Real> {
    dev: Arc<Device>,
    /// Owners of the device arrays whose addresses `mesh` and `vel` hold.
    _buffers: (Vec<CudaSlice<R>>, Vec<CudaSlice<u32>>),
    mesh: MeshC,
    vel: VelC<R>,
    /// The host-side velocity (for the `velocity` output field).
    host_vel: Velocity<R>,
    centroids: Vec<[R; 3]>,
    section: AdvectSection,
    n: usize,
    f: CudaSlice<R>,
    /// Scratch fields.
    s: [CudaSlice<R>; 6],
    fv: CudaSlice<R>,
    grad: CudaSlice<R>,
    rlo: CudaSlice<R>,
    rhi: CudaSlice<R>,
    bc: CudaSlice<R>,
    fwd: Departures<R>,
    bwd: Departures<R>,
    fns: [CudaFunction; 6],
    step: u64,
    t: f64,
}

impl<R: Real> AdvectCuda<R> {
    pub fn new(
        dev: Arc<Device>,
        g: Geometry<R>,
        vel: Velocity<R>,
        section: &AdvectSection,
        bc: Vec<R>,
        f: &[R],
    ) -> Result<Self> {
        let flat = |v: &[[R; 3]]| v.as_flattened().to_vec();
        let (d, vt) = (&g.dual, &g.virt);
        let mut reals: Vec<Vec<R>> = vec![
            flat(&g.nodes),
            g.face_normals
                .iter()
                .zip(&g.face_areas)
                .flat_map(|(n, a)| n.as_flattened().iter().chain(a).copied())
                .collect(),
            flat(&g.centroids),
            g.volumes.clone(),
            pack(d),
            pack(vt),
            g.node_bc.clone(),
        ];
        let cell_field = vel.cells.as_ref();
        reals.push(cell_field.map_or(vec![R::zero()], |c| flat(&c.v)));
        reals.push(cell_field.map_or(vec![R::zero()], |c| c.jac.as_flattened().as_flattened().to_vec()));
        let u32s: Vec<Vec<u32>> = vec![
            g.cells.as_flattened().to_vec(),
            g.neighbours.as_flattened().to_vec(),
            d.offsets.clone(),
            d.cells.clone(),
            vt.offsets.clone(),
            vt.cells.clone(),
        ];
        // cudarc refuses empty allocations: give empty tables one unused entry.
        let pad = |mut v: Vec<R>| {
            if v.is_empty() {
                v.resize(16, R::zero());
            }
            v
        };
        let rb: Vec<CudaSlice<R>> = reals.into_iter().map(|v| dev.upload(&pad(v))).collect::<Result<_>>()?;
        let ub: Vec<CudaSlice<u32>> = u32s
            .into_iter()
            .map(|mut v| {
                if v.is_empty() {
                    v.push(0);
                }
                Ok(dev.stream.clone_htod(&v)?)
            })
            .collect::<Result<_>>()?;
        let pr = |i: usize| dev.ptr(&rb[i]);
        let pu = |i: usize| dev.ptr(&ub[i]);
        // Order of `struct Mesh`.
        let mesh = MeshC {
            p: [
                pr(0),
                pu(0),
                pu(1),
                pr(1),
                pr(2),
                pr(3),
                pu(2),
                pu(3),
                pr(4),
                pu(4),
                pu(5),
                pr(5),
                pr(6),
            ],
            ncells: g.num_cells() as u32,
            nnodes: g.nodes.len() as u32,
        };
        let (kind, speed, omega, period, reverse_after) = match vel.spec {
            VelocitySpec::Constant { speed, reverse_after } => {
                (0, speed, 0.0, 1.0, reverse_after.map_or(-1, |n| n as i64))
            }
            VelocitySpec::Rotation { omega } => (1, 0.0, omega, 1.0, -1),
            VelocitySpec::Deformation { period } => (2, 0.0, 0.0, period, -1),
            VelocitySpec::Field { .. } => (3, 0.0, 0.0, 1.0, -1),
        };
        let velc = VelC {
            kind,
            speed: R::of(speed),
            omega: R::of(omega),
            period: R::of(period),
            lo: vel.lo.map(R::of),
            len: vel.len.map(R::of),
            reverse_after,
            fu: pr(7),
            fj: pr(8),
        };
        let n = g.num_cells();
        let deps = |dev: &Device| -> Result<Departures<R>> {
            Ok(Departures {
                px: dev.zeros(3 * n)?,
                cell: dev.stream.alloc_zeros(n)?,
                patch: dev.stream.alloc_zeros(n)?,
            })
        };
        let names = [
            "advect_departures",
            "advect_interp",
            "advect_vertex_values",
            "advect_gradients",
            "advect_correct",
            "advect_limit",
        ];
        // The gather kernels' occupancy hint, __launch_bounds__(128, N): none for f64 and 8 for
        // f32 were best on an H100 (N = 6..16 tried: f64 loses up to 2.4x at 16, f32 gains 2-6 %
        // at 6..10; BENCHMARKS.md). CFD_ADVECT_MIN_BLOCKS=N overrides it (0: none) for tuning.
        let min_blocks = match std::env::var("CFD_ADVECT_MIN_BLOCKS") {
            Ok(v) => v
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=32).contains(n))
                .map(|n| n.to_string()),
            Err(_) => (std::mem::size_of::<R>() == 4).then(|| "8".to_string()),
        };
        let defines: Vec<(&str, &str)> = min_blocks.iter().map(|v| ("MIN_BLOCKS", v.as_str())).collect();
        let fns = names.map(|k| dev.function::<R>("advect", k, &defines));
        let fns = fns.into_iter().collect::<Result<Vec<_>>>()?.try_into().ok().unwrap();
        Ok(AdvectCuda {
            f: dev.upload(f)?,
            s: [
                dev.zeros(n)?,
                dev.zeros(n)?,
                dev.zeros(n)?,
                dev.zeros(n)?,
                dev.zeros(n)?,
                dev.zeros(n)?,
            ],
            fv: dev.zeros(g.nodes.len().max(1))?,
            grad: dev.zeros(3 * n)?,
            rlo: dev.zeros(n)?,
            rhi: dev.zeros(n)?,
            bc: dev.upload(&pad(bc))?,
            fwd: deps(&dev)?,
            bwd: deps(&dev)?,
            _buffers: (rb, ub),
            mesh,
            vel: velc,
            host_vel: vel,
            centroids: g.centroids,
            section: section.clone(),
            n,
            fns,
            dev,
            step: 0,
            t: 0.0,
        })
    }

    fn cfg(&self, n: usize) -> LaunchConfig {
        LaunchConfig {
            grid_dim: ((n as u32).div_ceil(128), 1, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    fn departures(&self, dt: f64, sign: f64, out: &Departures<R>) -> Result<()> {
        let (px, cell, patch) = (self.dev.ptr(&out.px), self.dev.ptr(&out.cell), self.dev.ptr(&out.patch));
        let max_walk = self.section.max_walk;
        let (t, dt, sign) = (R::of(self.t), R::of(dt), R::of(sign));
        // SAFETY: the mesh arrays and outputs hold ncells entries (px: 3 per cell).
        unsafe {
            self.dev
                .stream
                .launch_builder(&self.fns[0])
                .arg(&self.mesh)
                .arg(&self.vel)
                .arg(&t)
                .arg(&dt)
                .arg(&self.step)
                .arg(&sign)
                .arg(&max_walk)
                .arg(&px)
                .arg(&cell)
                .arg(&patch)
                .launch(self.cfg(self.n))?
        };
        Ok(())
    }

    /// out, lo, hi = I(deps, f)
    fn interpolate(&self, deps: &Departures<R>, f: u64, out: u64, lo: u64, hi: u64) -> Result<()> {
        let p = |s: &CudaSlice<R>| self.dev.ptr(s);
        let (fv, grad, rlo, rhi) = (p(&self.fv), p(&self.grad), p(&self.rlo), p(&self.rhi));
        let interp: i32 = match self.section.interpolation {
            Interpolation::Voronoi => 0,
            Interpolation::VoronoiGrad => 1,
            Interpolation::Linear => 2,
        };
        // SAFETY (all launches): buffers sized for the mesh's cells / nodes.
        unsafe {
            match interp {
                2 => {
                    self.dev
                        .stream
                        .launch_builder(&self.fns[2])
                        .arg(&self.mesh)
                        .arg(&f)
                        .arg(&fv)
                        .launch(self.cfg(self.mesh.nnodes as usize))?;
                }
                1 => {
                    self.dev
                        .stream
                        .launch_builder(&self.fns[3])
                        .arg(&self.mesh)
                        .arg(&f)
                        .arg(&grad)
                        .arg(&rlo)
                        .arg(&rhi)
                        .launch(self.cfg(self.n))?;
                }
                _ => {}
            }
            let (px, cell, patch, bc) = (
                self.dev.ptr(&deps.px),
                self.dev.ptr(&deps.cell),
                self.dev.ptr(&deps.patch),
                p(&self.bc),
            );
            self.dev
                .stream
                .launch_builder(&self.fns[1])
                .arg(&self.mesh)
                .arg(&interp)
                .arg(&px)
                .arg(&cell)
                .arg(&patch)
                .arg(&f)
                .arg(&fv)
                .arg(&grad)
                .arg(&rlo)
                .arg(&rhi)
                .arg(&bc)
                .arg(&out)
                .arg(&lo)
                .arg(&hi)
                .launch(self.cfg(self.n))?;
        }
        Ok(())
    }
}

impl<R: Real> Simulation for AdvectCuda<R> {
    fn step(&mut self, dt: f64) -> Result<()> {
        let n = self.n as u32;
        let p = |s: &CudaSlice<R>| self.dev.ptr(s);
        let [f1, lo1, hi1, f2, g, scratch] = [
            p(&self.s[0]),
            p(&self.s[1]),
            p(&self.s[2]),
            p(&self.s[3]),
            p(&self.s[4]),
            p(&self.s[5]),
        ];
        let f = p(&self.f);
        self.departures(dt, 1.0, &self.fwd)?;
        self.interpolate(&self.fwd, f, f1, lo1, hi1)?;
        match self.section.scheme {
            Scheme::Sl1 => self.dev.stream.memcpy_dtod(&self.s[0], &mut self.f)?,
            Scheme::Bfecc => {
                self.departures(dt, -1.0, &self.bwd)?;
                self.interpolate(&self.bwd, f1, f2, scratch, scratch)?;
                let limit = self.section.limiter as i32;
                // SAFETY: all buffers hold n values.
                unsafe {
                    self.dev
                        .stream
                        .launch_builder(&self.fns[4])
                        .arg(&n)
                        .arg(&f)
                        .arg(&f2)
                        .arg(&g)
                        .launch(self.cfg(self.n))?;
                }
                self.interpolate(&self.fwd, g, f2, scratch, scratch)?;
                unsafe {
                    self.dev
                        .stream
                        .launch_builder(&self.fns[5])
                        .arg(&n)
                        .arg(&f2)
                        .arg(&lo1)
                        .arg(&hi1)
                        .arg(&limit)
                        .arg(&f)
                        .launch(self.cfg(self.n))?;
                }
            }
        }
        self.step += 1;
        self.t += dt;
        Ok(())
    }

    fn max_abs(&mut self) -> Result<f64> {
        self.dev.max_abs(&self.f)
    }

    fn fields(&mut self) -> Result<Vec<(String, Vec<f64>)>> {
        let f = self.dev.download(&self.f)?;
        let vel = super::cell_velocities(&self.host_vel, &self.centroids, self.t, self.step);
        Ok(vec![
            ("F".into(), f.iter().map(|v| v.f64()).collect()),
            ("velocity".into(), vel),
        ])
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(super::state_bytes(self.step, self.t, &self.dev.download(&self.f)?))
    }

    fn load_state(&mut self, b: &[u8]) -> Result<()> {
        let f: Vec<R>;
        (self.step, self.t, f) = super::state_from_bytes(b);
        self.f = self.dev.upload(&f)?;
        Ok(())
    }
}
