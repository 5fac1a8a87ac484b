//! The geometry on a CUDA device: one upload at start, then kernels read it through `MeshC`
//! (`struct Mesh` of the kernel sources), which holds the buffers' device addresses.

use super::centroid_grid::CentroidGrid;
use super::geometry::TetGeometry;
use crate::backend::cuda::Device;
use crate::error::Result;
use crate::real::Real;
use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig};

/// Mirrors `struct Mesh` of kernels/cuda/tet.cuh: device addresses of the geometry's arrays,
/// in the order of `DeviceMesh::upload`, then the cell and node counts, whether the periodic
/// tables are there, and the centroid grid's shape (`CentroidGrid`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MeshC {
    p: [u64; 17],
    pub ncells: u32,
    pub nnodes: u32,
    pub periodic: u32,
    grid_dims: [u32; 3],
    grid_lo: [f64; 3],
    grid_inv_edge: [f64; 3],
}
// SAFETY: plain-old-data with the C layout.
unsafe impl DeviceRepr for MeshC {}

/// The device copy of a `TetGeometry`: owns the buffers whose addresses `c` holds.
pub struct DeviceMesh<R> {
    /// The kernel argument.
    pub c: MeshC,
    /// Host copies of the dual and virtual-cell CSR offsets (nodes + 1 each), to partition
    /// work by vertex.
    pub dual_offsets: Vec<u32>,
    pub virt_offsets: Vec<u32>,
    _buffers: Vec<Buffer<R>>,
}

/// A geometry array on the device: reals or indices.
enum Buffer<R> {
    Real(CudaSlice<R>),
    Index(CudaSlice<u32>),
}

/// Threads per block of every mesh kernel (their `__launch_bounds__(128, ..)`).
const BLOCK: u32 = 128;

/// One thread per item (cell or node) in blocks of `BLOCK`.
pub fn launch_cfg(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n as u32).div_ceil(BLOCK), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// cudarc refuses empty allocations: an empty table gets one unused 16-value entry.
pub fn pad<R: Real>(mut v: Vec<R>) -> Vec<R> {
    if v.is_empty() {
        v.resize(16, R::zero());
    }
    v
}

impl<R: Real> DeviceMesh<R> {
    pub fn upload(dev: &Device, g: &TetGeometry<R>) -> Result<Self> {
        use Host::{Index, Real};
        let flat = |v: &[[R; 3]]| v.as_flattened().to_vec();
        let grid = CentroidGrid::new(&g.centroids);
        // In the order of `struct Mesh`.
        let arrays = [
            Real(flat(&g.nodes)),
            Index(g.cells.as_flattened().to_vec()),
            Index(g.neighbours.as_flattened().to_vec()),
            Real(g.locate.as_flattened().to_vec()),
            Real(flat(&g.centroids)),
            Real(g.volumes.clone()),
            Index(g.dual.offsets.clone()),
            Index(g.dual.cells.clone()),
            Real(pack(&g.dual)),
            Index(g.virt.offsets.clone()),
            Index(g.virt.cells.clone()),
            Real(pack(&g.virt)),
            Real(g.node_bc.clone()),
            Index(g.periodic.code.clone()),
            Real(flat(&g.periodic.table)),
            Index(grid.start),
            Index(grid.cells),
        ];
        let buffers: Vec<Buffer<R>> = arrays.into_iter().map(|a| a.upload(dev)).collect::<Result<_>>()?;
        let p = std::array::from_fn(|i| match &buffers[i] {
            Buffer::Real(b) => dev.ptr(b),
            Buffer::Index(b) => dev.ptr(b),
        });
        Ok(DeviceMesh {
            c: MeshC {
                p,
                ncells: g.num_cells() as u32,
                nnodes: g.nodes.len() as u32,
                periodic: g.periodic.is_periodic() as u32,
                grid_dims: grid.dims,
                grid_lo: grid.lo,
                grid_inv_edge: grid.inv_edge,
            },
            _buffers: buffers,
            dual_offsets: g.dual.offsets.clone(),
            virt_offsets: g.virt.offsets.clone(),
        })
    }

    pub fn ncells(&self) -> usize {
        self.c.ncells as usize
    }

    pub fn nnodes(&self) -> usize {
        self.c.nnodes as usize
    }
}

/// A geometry array on the host, before upload.
enum Host<R> {
    Real(Vec<R>),
    Index(Vec<u32>),
}

impl<R: Real> Host<R> {
    fn upload(self, dev: &Device) -> Result<Buffer<R>> {
        Ok(match self {
            Host::Real(v) => Buffer::Real(dev.upload(&pad(v))?),
            Host::Index(mut v) => {
                if v.is_empty() {
                    v.push(0);
                }
                Buffer::Index(dev.stream.clone_htod(&v)?)
            }
        })
    }
}

/// A dual table as the kernels read it: per entry the three normals, the three plane offsets,
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
