//! CUDA execution of the advection step (kernels/cuda/advect.cu). The mesh and all fields
//! stay on the device for the whole run; only summaries and outputs come back.

use super::interp::Interpolation;
use super::velocity::{Velocity, VelocitySpec};
use super::{AdvectSection, PatchBc, Scheme};
use crate::backend::cuda::Device;
use crate::cases::Simulation;
use crate::error::Result;
use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use meshtool::PreparedMesh;
use std::sync::Arc;

/// Mirrors `struct Mesh` in advect.cu: device addresses of the prepared mesh's arrays.
#[repr(C)]
#[derive(Clone, Copy)]
struct MeshC {
    p: [u64; 13],
    ncells: u32,
    nnodes: u32,
}
// SAFETY: plain-old-data with the C layout.
unsafe impl DeviceRepr for MeshC {}

/// Mirrors `struct Vel` in advect.cu.
#[repr(C)]
#[derive(Clone, Copy)]
struct VelC {
    kind: i32,
    speed: f64,
    omega: f64,
    period: f64,
    lo: [f64; 3],
    len: [f64; 3],
    reverse_after: i64,
}
// SAFETY: plain-old-data with the C layout.
unsafe impl DeviceRepr for VelC {}

/// Departure points and their locations for one direction of the velocity.
struct Departures {
    px: CudaSlice<f64>,
    cell: CudaSlice<u32>,
    patch: CudaSlice<i32>,
}

pub struct AdvectCuda {
    dev: Arc<Device>,
    _mesh_buffers: (Vec<CudaSlice<f64>>, Vec<CudaSlice<u32>>),
    mesh: MeshC,
    vel: VelC,
    section: AdvectSection,
    n: usize,
    f: CudaSlice<f64>,
    /// Scratch fields.
    s: [CudaSlice<f64>; 6],
    fv: CudaSlice<f64>,
    grad: CudaSlice<f64>,
    rlo: CudaSlice<f64>,
    rhi: CudaSlice<f64>,
    bc: CudaSlice<f64>,
    fwd: Departures,
    bwd: Departures,
    fns: [CudaFunction; 6],
    step: u64,
    t: f64,
}

impl AdvectCuda {
    pub fn new(
        dev: Arc<Device>,
        m: &PreparedMesh,
        vel: &Velocity,
        section: &AdvectSection,
        bc: &[PatchBc],
        f: &[f64],
    ) -> Result<Self> {
        let t = &m.topo;
        let d = &m.dual;
        let f64s: Vec<Vec<f64>> = vec![
            m.nodes.as_flattened().to_vec(),
            t.face_normals.as_flattened().as_flattened().to_vec(),
            t.face_areas.as_flattened().to_vec(),
            t.centroids.as_flattened().to_vec(),
            t.volumes.clone(),
            d.normals.as_flattened().as_flattened().to_vec(),
            d.plane_d.as_flattened().to_vec(),
            d.half_len.as_flattened().to_vec(),
            d.det.clone(),
        ];
        let u32s: Vec<Vec<u32>> = vec![
            t.cells.as_flattened().to_vec(),
            t.neighbours.as_flattened().to_vec(),
            d.offsets.clone(),
            d.cells.clone(),
        ];
        let fb: Vec<CudaSlice<f64>> = f64s.iter().map(|v| dev.upload(v)).collect::<Result<_>>()?;
        let ub: Vec<CudaSlice<u32>> = u32s
            .iter()
            .map(|v| Ok(dev.stream.clone_htod(v)?))
            .collect::<Result<_>>()?;
        let pf = |i: usize| dev.ptr(&fb[i]);
        let pu = |i: usize| dev.ptr(&ub[i]);
        let mesh = MeshC {
            p: [
                pf(0),
                pu(0),
                pu(1),
                pf(1),
                pf(2),
                pf(3),
                pf(4),
                pu(2),
                pu(3),
                pf(5),
                pf(6),
                pf(7),
                pf(8),
            ],
            ncells: m.num_cells() as u32,
            nnodes: m.nodes.len() as u32,
        };
        let (kind, speed, omega, period, reverse_after) = match vel.spec {
            VelocitySpec::Constant { speed, reverse_after } => {
                (0, speed, 0.0, 1.0, reverse_after.map_or(-1, |n| n as i64))
            }
            VelocitySpec::Rotation { omega } => (1, 0.0, omega, 1.0, -1),
            VelocitySpec::Deformation { period } => (2, 0.0, 0.0, period, -1),
        };
        let velc = VelC {
            kind,
            speed,
            omega,
            period,
            lo: vel.lo,
            len: vel.len,
            reverse_after,
        };
        let n = m.num_cells();
        let bcv: Vec<f64> = bc
            .iter()
            .map(|b| if let PatchBc::Dirichlet(v) = b { *v } else { f64::NAN })
            .collect();
        let deps = |dev: &Device| -> Result<Departures> {
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
        let fns = names.map(|k| dev.function::<f64>("advect", k, &[]));
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
            fv: dev.zeros(m.nodes.len().max(1))?,
            grad: dev.zeros(3 * n)?,
            rlo: dev.zeros(n)?,
            rhi: dev.zeros(n)?,
            bc: dev.upload(&if bcv.is_empty() { vec![f64::NAN] } else { bcv })?,
            fwd: deps(&dev)?,
            bwd: deps(&dev)?,
            _mesh_buffers: (fb, ub),
            mesh,
            vel: velc,
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

    fn departures(&self, dt: f64, sign: f64, out: &Departures) -> Result<()> {
        let (px, cell, patch) = (self.dev.ptr(&out.px), self.dev.ptr(&out.cell), self.dev.ptr(&out.patch));
        let max_walk = self.section.max_walk;
        // SAFETY: the mesh arrays and outputs hold ncells entries (px: 3 per cell).
        unsafe {
            self.dev
                .stream
                .launch_builder(&self.fns[0])
                .arg(&self.mesh)
                .arg(&self.vel)
                .arg(&self.t)
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
    fn interpolate(&self, deps: &Departures, f: u64, out: u64, lo: u64, hi: u64) -> Result<()> {
        let p = |s: &CudaSlice<f64>| self.dev.ptr(s);
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

impl Simulation for AdvectCuda {
    fn step(&mut self, dt: f64) -> Result<()> {
        let n = self.n as u32;
        let p = |s: &CudaSlice<f64>| self.dev.ptr(s);
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
        Ok(vec![("F".into(), self.dev.download(&self.f)?)])
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        let mut b = Vec::with_capacity(16 + 8 * self.n);
        b.extend_from_slice(&self.step.to_le_bytes());
        b.extend_from_slice(&self.t.to_le_bytes());
        b.extend(crate::cases::to_bytes(&self.dev.download(&self.f)?));
        Ok(b)
    }

    fn load_state(&mut self, b: &[u8]) -> Result<()> {
        self.step = u64::from_le_bytes(b[..8].try_into().unwrap());
        self.t = f64::from_le_bytes(b[8..16].try_into().unwrap());
        self.f = self.dev.upload(&crate::cases::from_bytes::<f64>(&b[16..]))?;
        Ok(())
    }
}
