//! The halo fill on the device: `grid_halo` (kernels/cuda/grid.cu), one launch per axis on the
//! compute stream, the same rule value by value as the CPU fill (`halo.rs`).

use super::parts::{self, Link, Split};
use super::peer::{Begun, Planes};
use super::{BoundarySet, FaceBc, StructuredGrid};
use crate::backend::cuda::{Device, EarlyFunction};
use crate::backend::nccl::Comms;
use crate::error::{Result, SolverError};
use crate::output::Centring;
use crate::real::Real;
use cudarc::driver::{CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

const MAX_COMPONENTS: usize = 8;

/// Timing knobs (wrong results): `CFD_PARTS_EXCHANGE=off`: parts skip the exchange, so the
/// step time with it against without is the exchange's exposed cost; `=hollow`: the same, but a
/// family that hides the exchange still splits its work around it (the split's own cost);
/// `=nowait`: the exchange runs but nothing waits for it (what waiting for it costs).
fn exchange_knob() -> &'static str {
    static KNOB: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KNOB.get_or_init(|| std::env::var("CFD_PARTS_EXCHANGE").unwrap_or_default())
}

fn exchange_off() -> bool {
    matches!(exchange_knob(), "off" | "hollow")
}

/// Mirrors `struct Layout` in grid.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LayoutC {
    n: [i32; 3],
    halo: [i32; 3],
    xo: i32,
    px: i32,
    py: i32,
    vertex: i32,
    cstride: u64,
}
// SAFETY: plain-old-data with the C layout.
unsafe impl DeviceRepr for LayoutC {}

/// Mirrors `struct Face` in grid.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct FaceC<T> {
    kind: i32,
    negate: i32,
    value: [T; MAX_COMPONENTS],
}
// SAFETY: plain-old-data with the C layout.
unsafe impl<T: DeviceRepr> DeviceRepr for FaceC<T> {}

impl LayoutC {
    pub fn of(g: &StructuredGrid) -> Self {
        let p = g.padded();
        LayoutC {
            n: g.n.map(|v| v as i32),
            halo: g.halo.map(|v| v as i32),
            xo: g.xoff as i32,
            px: p[0] as i32,
            py: p[1] as i32,
            vertex: (g.centring == Centring::Point) as i32,
            cstride: g.padded_len() as u64,
        }
    }
}

/// The maximum over every part of the run of the u64 at device address `ptr` of the part
/// `link` names, in place, on `stream` (after the work that wrote it): a value each part folds
/// on its device (the bits of a non-negative rate, say) reduced with no round trip to the
/// host. A no-op on a whole grid (`link` None) or where the plan asked for no reductions.
///
/// # Safety
/// `ptr` must be one u64 on the part's device; every part of the run must make the same calls
/// in the same order, each from its own thread.
pub unsafe fn max_u64_over_parts(link: Option<&Link>, ptr: u64, stream: &CudaStream) -> Result<()> {
    match link.and_then(|l| l.reduce.as_ref()) {
        // SAFETY: the caller's.
        Some((comms, k)) => unsafe { comms.max_u64(*k, ptr, stream) },
        None => Ok(()),
    }
}

/// The halo fill of one grid and boundary set, ready to launch on any padded array of it, and
/// for a part of a decomposed grid the exchange of its neighbour faces (`parts`).
pub struct DeviceHalo<T: Real> {
    dev: Arc<Device>,
    layout: LayoutC,
    grid: StructuredGrid,
    faces: [[FaceC<T>; 2]; 3],
    f: EarlyFunction,
    link: Option<Link>,
}

impl<T: Real> DeviceHalo<T> {
    pub fn new(dev: Arc<Device>, g: &StructuredGrid, bc: &BoundarySet) -> Result<Self> {
        if g.components > MAX_COMPONENTS {
            return Err(SolverError::Other(format!(
                "the device halo fill takes at most {MAX_COMPONENTS} components, not {}",
                g.components
            )));
        }
        let faces = std::array::from_fn(|axis| {
            std::array::from_fn(|side| {
                let face = &bc.faces[axis][side];
                let mut value = [T::zero(); MAX_COMPONENTS];
                if let FaceBc::Dirichlet(v) = face {
                    for (d, s) in value.iter_mut().zip(v) {
                        *d = T::of(*s);
                    }
                }
                FaceC {
                    kind: face.code(),
                    negate: bc.normal_component[axis].map_or(-1, |c| c as i32),
                    value,
                }
            })
        });
        Ok(DeviceHalo {
            f: dev.function::<T>(kernels::grid::HALO, &[])?,
            dev,
            layout: LayoutC::of(g),
            grid: g.clone(),
            faces,
            link: None,
        })
    }

    /// The same fill for a part of a decomposed grid (`link`: its planes and communicators;
    /// None: the whole grid, nothing to exchange).
    pub fn linked(mut self, link: Option<&Link>) -> Self {
        self.set_link(link.cloned());
        self
    }

    /// Join this fill to its neighbours after it was made (their communicators came later).
    pub fn set_link(&mut self, link: Option<Link>) {
        self.link = link;
    }

    /// The ghost planes of the neighbour faces of the padded array at `ptr` (every component)
    /// from the parts beside this one, on the compute stream (after what wrote the owned
    /// planes, before what reads the ghosts). A no-op on a whole grid. Every part of the run
    /// must call it at the same point of its step, each from its own thread.
    pub fn exchange(&self, ptr: u64) -> Result<()> {
        self.exchange_on(ptr, &self.dev.stream)
    }

    /// As [`exchange`](Self::exchange), queued on `stream` (e.g. the device's second stream,
    /// while the compute stream updates the planes that do not need the ghosts).
    pub fn exchange_on(&self, ptr: u64, stream: &CudaStream) -> Result<()> {
        let begun = self.begin_exchange_on(ptr, stream)?;
        self.end_exchange_on(begun, stream)
    }

    /// Whether work queued between [`begin_exchange_on`](Self::begin_exchange_on) and
    /// [`end_exchange_on`](Self::end_exchange_on) overlaps the exchange: the parts are
    /// devices of this process joined by copy engines (`peer`); NCCL's exchange is done when
    /// it begins.
    pub fn overlaps(&self) -> bool {
        exchange_knob() != "off" && self.link.as_ref().is_some_and(|l| l.peer.is_some())
    }

    /// The first half of an exchange on `stream`: after the work queued so far (which wrote
    /// the owned planes beside other parts); the ghost planes are not to be read before
    /// [`end_exchange_on`](Self::end_exchange_on), nor those owned planes written before the
    /// next exchange has ended.
    pub fn begin_exchange_on(&self, ptr: u64, stream: &CudaStream) -> Result<Option<Begun>> {
        let Some(link) = &self.link else { return Ok(None) };
        if exchange_off() {
            return Ok(None);
        }
        match (&link.peer, &link.device) {
            (Some((group, k)), _) => {
                let peers = link.split.slab.peers(link.split.ring);
                let planes = Planes {
                    neighbours: (peers.below, peers.above),
                    ranges: parts::plane_ranges(&self.grid, &link.split),
                    stride: self.grid.padded_len(),
                    components: self.grid.components,
                };
                Ok(Some(group.begin(*k, &planes, std::mem::size_of::<T>(), ptr, stream)?))
            }
            (None, Some((comms, k))) => {
                self.nccl_exchange(comms, *k, &link.split, ptr, stream)?;
                Ok(None)
            }
            (None, None) => Ok(None),
        }
    }

    /// The second half: `stream` waits until the ghost planes have arrived. (The owned planes
    /// may be overwritten once the next exchange has ended: `grid::peer`.)
    pub fn end_exchange_on(&self, begun: Option<Begun>, stream: &CudaStream) -> Result<()> {
        if exchange_knob() == "nowait" {
            return Ok(());
        }
        match (begun, &self.link) {
            (
                Some(begun),
                Some(Link {
                    peer: Some((group, _)), ..
                }),
            ) => group.end(begun, stream),
            _ => Ok(()),
        }
    }

    /// The exchange by NCCL on `stream`: part `k`'s sends and receives, done (on the device)
    /// when the stream passes them.
    fn nccl_exchange(&self, comms: &Comms, k: usize, split: &Split, ptr: u64, stream: &CudaStream) -> Result<()> {
        let k = &k;
        let peers = split.slab.peers(split.ring);
        let [(low, low_ghost), (high, high_ghost)] = parts::plane_ranges(&self.grid, split);
        let (bytes, stride) = (std::mem::size_of::<T>(), self.grid.padded_len());
        let at =
            |c: usize, r: &std::ops::Range<usize>| (ptr + ((c * stride + r.start) * bytes) as u64, r.len() * bytes);
        // Sends down then up, receives from above then from below: NCCL matches the messages
        // between two parts in the order they were issued, which pairs them correctly also
        // in a ring of two (each part both the other's below and above).
        crate::backend::nccl::group(|| {
            for c in 0..self.grid.components {
                // SAFETY: owned and ghost planes of component c of this part's padded array
                // (`parts::split` gives every part at least a halo's depth of planes).
                unsafe {
                    if let Some(b) = peers.below {
                        let (p, n) = at(c, &low);
                        comms.send(*k, p, n, b, stream)?;
                    }
                    if let Some(a) = peers.above {
                        let (p, n) = at(c, &high);
                        comms.send(*k, p, n, a, stream)?;
                    }
                    if let Some(a) = peers.above {
                        let (p, n) = at(c, &high_ghost);
                        comms.recv(*k, p, n, a, stream)?;
                    }
                    if let Some(b) = peers.below {
                        let (p, n) = at(c, &low_ghost);
                        comms.recv(*k, p, n, b, stream)?;
                    }
                }
            }
            Ok(())
        })
    }

    /// Fill the ghosts of the padded array at device address `ptr` (every component).
    pub fn fill(&self, ptr: u64) -> Result<()> {
        self.fill_axes(ptr, [true; 3])
    }

    /// As [`fill`](Self::fill), on the axes marked (in axis order, as the fill's rules assume).
    pub fn fill_axes(&self, ptr: u64, axes: [bool; 3]) -> Result<()> {
        for axis in 0..3 {
            if axes[axis] && self.grid.halo[axis] > 0 {
                self.launch(&self.layout, ptr, axis)?;
            }
        }
        Ok(())
    }

    /// As [`fill_axes`](Self::fill_axes) on z-planes `planes` only (the x and y ghosts of a
    /// part's planes, updated apart from its other planes): the fill over the same storage seen
    /// as a grid of those planes (its halo along z shifted by their start). The z ghosts need
    /// every plane: `axes[2]` must be false.
    pub fn fill_axes_of_planes(&self, ptr: u64, axes: [bool; 3], planes: std::ops::Range<usize>) -> Result<()> {
        assert!(!axes[2], "the z ghosts are filled from the whole grid's planes");
        assert!(
            planes.end <= self.grid.n[2],
            "planes {planes:?} past the grid's {}",
            self.grid.n[2]
        );
        if planes.is_empty() {
            return Ok(());
        }
        let mut layout = self.layout;
        layout.n[2] = planes.len() as i32;
        layout.halo[2] += planes.start as i32;
        for axis in 0..2 {
            if axes[axis] && self.grid.halo[axis] > 0 {
                self.launch(&layout, ptr, axis)?;
            }
        }
        Ok(())
    }

    /// The x ghosts of rows `rows` (ghost rows along y included) of every component of the
    /// padded array at `ptr`, as `halo::fill_x_of_rows`: the x fill over the same storage seen
    /// as a grid whose rows are `rows` (its halo along y shifted by their start).
    pub fn fill_x_of_rows(&self, ptr: u64, rows: std::ops::Range<isize>) -> Result<()> {
        let g = &self.grid;
        if rows.is_empty() || g.halo[0] == 0 {
            return Ok(());
        }
        let (hy, ny) = (g.halo[1] as isize, g.n[1] as isize);
        assert!(
            rows.start >= -hy && rows.end <= ny + hy,
            "rows {rows:?} outside the halo of {hy} rows"
        );
        let mut layout = self.layout;
        layout.n[1] = rows.len() as i32;
        layout.halo[1] = (hy + rows.start) as i32;
        self.launch(&layout, ptr, 0)
    }

    /// grid_halo over `layout` (this grid's storage) for one axis.
    fn launch(&self, layout: &LayoutC, ptr: u64, axis: usize) -> Result<()> {
        // Both faces another part's: the exchange fills them, the kernel would do nothing (a
        // launch a stage saved on a part between two neighbours).
        if self.faces[axis].iter().all(|f| f.kind == FaceBc::Neighbour.code()) {
            return Ok(());
        }
        let n = layout.n.map(|v| v as u64);
        // A thread per component, ghost layer and row (grid.cu).
        let threads = n[(axis + 1) % 3] * n[(axis + 2) % 3] * layout.halo[axis] as u64 * self.grid.components as u64;
        let cfg = LaunchConfig {
            grid_dim: (threads.div_ceil(256) as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let (ax, comps) = (axis as i32, self.grid.components as i32);
        let [lo, hi] = &self.faces[axis];
        // SAFETY: ptr is a padded array of this grid with `components` components, which
        // `layout` addresses (its rows, pitch and component stride); the threads cover the halo
        // layers of one face pair.
        unsafe {
            self.f
                .builder(&self.dev.stream)
                .arg(layout)
                .arg(&ptr)
                .arg(&ax)
                .arg(&comps)
                .arg(lo)
                .arg(hi)
                .launch(cfg)?
        };
        Ok(())
    }
}

/// The device fill against the CPU fill on random data, for every face condition and both
/// centrings on a 2-component 3D grid (component 1 is the wall-normal one), then the x ghosts of
/// the ghost rows along y (`fill_x_of_rows`): the largest difference per case, which must be 0
/// (the same rule value by value).
pub fn agreement(dev: &Arc<Device>) -> Result<Vec<(String, f64)>> {
    use super::{GridSpec, StructuredGrid};
    let spec = GridSpec {
        cells: [13, 7, 5],
        origin: [0.0; 3],
        extent: [1.0; 3],
    };
    let faces = [
        FaceBc::Periodic,
        FaceBc::Dirichlet(vec![0.5, -2.0]),
        FaceBc::Reflect,
        FaceBc::Outflow,
        FaceBc::Neighbour,
    ];
    let mut rows = vec![];
    for centring in [Centring::Point, Centring::Cell] {
        for face in &faces {
            let mut bc = BoundarySet::periodic();
            for axis in 0..3 {
                bc.faces[axis] = [face.clone(), face.clone()];
                bc.normal_component[axis] = Some(1);
            }
            let g = StructuredGrid::new(&spec, centring, &bc, [3, 2, 1], 2).aligned_for(8);
            // A fixed pseudo-random field (no two values alike), ghosts included.
            let host: Vec<f64> = (0..g.padded_len() * 2)
                .map(|i| ((i * 7919) % 10007) as f64 / 101.0)
                .collect();
            let mut cpu = host.clone();
            super::halo::fill(&g, &bc, &mut cpu);
            // And the x ghosts of the ghost rows along y (a slab's ghost-cell expansion).
            super::halo::fill_x_of_rows(&g, &bc, &mut cpu, &[-2, -1, 7, 8]);
            let d = dev.upload(&host)?;
            let halo = DeviceHalo::<f64>::new(dev.clone(), &g, &bc)?;
            halo.fill(dev.ptr(&d))?;
            halo.fill_x_of_rows(dev.ptr(&d), -2..0)?;
            halo.fill_x_of_rows(dev.ptr(&d), 7..9)?;
            let gpu = dev.download(&d)?;
            let diff = cpu.iter().zip(&gpu).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            rows.push((
                format!("{face:?} {centring:?}").replace("(", " ").replace(")", ""),
                diff,
            ));
        }
    }
    Ok(rows)
}
