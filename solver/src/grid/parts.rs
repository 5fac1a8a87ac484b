//! A structured grid split into parts, one per device and MPI rank: slabs of whole planes along
//! the grid's outermost axis with more than one value (z in 3D, y in 2D, x in 1D), so that a
//! part's values are contiguous in every component, padded or not, and the whole grid's
//! values are the parts' one after another. Each part is a family's own simulation of its
//! planes, whose faces towards other parts are `Neighbour` faces: the family fills its halo as
//! on one device, then exchanges the neighbour faces' ghost planes (`exchange_host` between
//! MPI ranks on the CPU, `DeviceHalo::exchange` by NCCL between devices). A periodic split
//! axis joins the first part and the last (a ring). [`Decomposed`] drives the parts of this
//! process as one `Simulation`: the step and its CFL limit, batches of steps found on the
//! devices, fields, checkpoints, health, totals.
//!
//! A part's halo beside other parts has a depth and a cadence ([`Cadence`]): a halo exchanged
//! every step, as deep as a step reads, or a deeper one exchanged every few steps and updated
//! again in between (ghost-cell expansion). What a part is to the exchange and the reductions
//! is the [`Part`] trait; the slab ([`Split`]) is its first kind.
//!
//! Every part does the arithmetic the whole grid's cells do, in the same order, so the
//! decomposed run writes the single run's bytes (as long as a family's reductions are exact,
//! e.g. the minimum of the stable step).

use super::peer::PeerGroup;
use super::{BoundarySet, FaceBc, StructuredGrid};
use crate::backend::cuda::Device;
use crate::backend::nccl::Comms;
use crate::backend::Target;
use crate::error::{Result, SolverError};
use crate::framework::ranks::{self, Peers, Ranks, Slab};
pub use crate::framework::Block;
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::output::pieces::Piece;
use crate::output::{Centring, Field};
use crate::real::{from_bytes, to_bytes, Real};
use std::ops::Range;
use std::sync::Arc;

/// How a part keeps its halo beside other parts: a step reads `reach` layers (planes of a
/// slab) beyond the values it updates, and the halo, `reach * every` layers deep, arrives every
/// `every` steps. In between, the part updates the halo layers still valid again, as their
/// owner does, `reach` layers fewer each step (ghost-cell expansion: fewer, larger messages).
/// A halo exchanged every step has `every = 1` and `reach` its depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cadence {
    pub reach: usize,
    pub every: usize,
}

impl Cadence {
    /// A halo `depth` layers deep exchanged every step.
    pub fn every_step(depth: usize) -> Cadence {
        Cadence { reach: depth, every: 1 }
    }

    /// The layers of the halo beside another part.
    pub fn depth(&self) -> usize {
        self.reach * self.every
    }

    /// Whether the halo arrives before step `step` (counted from the start or a restart).
    pub fn due(&self, step: usize) -> bool {
        step.is_multiple_of(self.every)
    }

    /// The halo layers beside another part that step `step` updates again (none on the step
    /// before the next exchange: the cycle uses the whole halo).
    pub fn expanded(&self, step: usize) -> usize {
        self.reach * (self.every - 1 - step % self.every)
    }
}

/// A part of a decomposed domain as its exchange and the reductions over parts see it: its
/// number among the run's parts, the parts it exchanges halo values with, and its halo's depth
/// and cadence. The values it owns are the domain's in its own numbering; its halo holds copies
/// of its neighbours' values beside it, refreshed by the exchange.
///
/// The slab of planes of a structured grid ([`Split`]) is the first kind: its owned and halo
/// values are ranges of planes (`plane_ranges`), so the exchange moves contiguous blocks. A
/// set of cells with a halo (a partitioned unstructured mesh) is meant to be another kind, its
/// exchange lists of owned cells to send each neighbour and of halo cells to receive into;
/// [`Decomposed`] then drives its parts as it drives slabs.
pub trait Part {
    /// This part's number among the run's parts (every rank's), and their count.
    fn index(&self) -> usize;
    fn count(&self) -> usize;
    /// The parts this one exchanges halo values with (below and above, for a slab).
    fn neighbours(&self) -> Peers;
    /// The depth of its halo beside other parts and how often it arrives.
    fn cadence(&self) -> Cadence;
}

/// One part's planes: `slab` of the split axis's values, among `slab.size` parts in all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Split {
    pub axis: usize,
    pub slab: Slab,
    /// The split axis is periodic: the first and last parts are neighbours.
    pub ring: bool,
    /// The halo beside other parts: its depth (the grid's halo along `axis`) and cadence.
    pub cadence: Cadence,
}

impl Part for Split {
    fn index(&self) -> usize {
        self.slab.rank
    }
    fn count(&self) -> usize {
        self.slab.size
    }
    fn neighbours(&self) -> Peers {
        self.slab.peers(self.ring)
    }
    fn cadence(&self) -> Cadence {
        self.cadence
    }
}

impl Split {
    /// The whole grid as one part along `axis` of `n` values (nothing beside it).
    pub fn whole(axis: usize, n: usize, cadence: Cadence) -> Split {
        Split {
            axis,
            slab: Slab {
                rank: 0,
                size: 1,
                start: 0,
                end: n,
            },
            ring: false,
            cadence,
        }
    }

    /// The planes (indices along the split axis, ghosts negative or from `n`) that step `step`
    /// updates of a part of `n` planes: its own, and beside each neighbour the halo planes its
    /// cadence updates again (`Cadence::expanded`); and whether the halo arrives before the
    /// update. The halo planes updated are those whose neighbours within `reach` the previous
    /// update (or the exchange) left equal to their owner's.
    pub fn updated(&self, step: usize, n: usize) -> (Range<isize>, bool) {
        let extra = self.cadence.expanded(step) as isize;
        (self.widened(&(0..n as isize), extra), self.cadence.due(step))
    }

    /// `planes` with `by` more on each side where a neighbour is (e.g. the planes an update of
    /// `planes` reads: `reach` more).
    pub fn widened(&self, planes: &Range<isize>, by: isize) -> Range<isize> {
        let peers = self.neighbours();
        let below = if peers.below.is_some() { by } else { 0 };
        let above = if peers.above.is_some() { by } else { 0 };
        planes.start - below..planes.end + above
    }
}

/// What a part needs to reach its neighbours: its planes, and on a device the communicators
/// of this process's parts with its index among them.
#[derive(Clone)]
pub struct Link {
    pub split: Split,
    pub device: Option<(Arc<Comms>, usize)>,
    /// The devices of this process joined by copy engines (`peer`) with this part's index
    /// among them: they carry the exchange instead of NCCL (every part of the run is in this
    /// process; `device` is then None).
    pub peer: Option<(Arc<PeerGroup>, usize)>,
    /// Communicators for reductions over every part on the devices (`cuda::max_u64_over_parts`),
    /// apart from the exchange's (which may run on another stream), where the family asks
    /// ([`Plan::device_reductions`]).
    pub reduce: Option<(Arc<Comms>, usize)>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Link({:?}, NCCL part {:?}, peer-copy part {:?})",
            self.split,
            self.device.as_ref().map(|d| d.1),
            self.peer.as_ref().map(|p| p.1)
        )
    }
}

/// The axis a grid splits along: the outermost one with more than one value.
pub fn split_axis(g: &StructuredGrid) -> usize {
    (0..3).rev().find(|&a| g.n[a] > 1).unwrap_or(0)
}

/// Part `part` of `parts`, or why the grid cannot be split so: every part must own at least as
/// many planes as it exchanges (its halo along the axis, exchanged every step).
pub fn split(g: &StructuredGrid, bc: &BoundarySet, part: usize, parts: usize) -> std::result::Result<Split, String> {
    split_with(g, bc, part, parts, Cadence::every_step(g.halo[split_axis(g)]))
}

/// As [`split`], the halo kept at `cadence` (its depth the grid's halo along the split axis).
pub fn split_with(
    g: &StructuredGrid,
    bc: &BoundarySet,
    part: usize,
    parts: usize,
    cadence: Cadence,
) -> std::result::Result<Split, String> {
    let axis = split_axis(g);
    let name = ["x", "y", "z"][axis];
    let depth = cadence.depth();
    debug_assert_eq!(depth, g.halo[axis], "the halo beside other parts is the grid's");
    let least = depth.max(2);
    if parts > 1 && g.n[axis] / parts < least {
        return Err(format!(
            "{parts} parts cannot share the {} planes along {name} (the outermost axis, along which the grid splits): each needs at least {least}; use at most {} GPUs and ranks in all, or a larger grid",
            g.n[axis],
            (g.n[axis] / least).max(1)
        ));
    }
    let slab = Slab::of(g.n[axis], part, parts, depth)?;
    Ok(Split {
        axis,
        slab,
        ring: bc.is_periodic(axis),
        cadence,
    })
}

/// The devices each rank drives for case `doc` (`run.gpus` on CUDA, one part a rank on the
/// CPU), after checking that grid `g` with boundaries `bc` splits over all of them; the error
/// names `grid.dims`.
pub fn devices_per_rank(doc: &crate::framework::CaseDoc, g: &StructuredGrid, bc: &BoundarySet) -> Result<usize> {
    let gpus = if doc.run.backend == crate::framework::config::Backend::Cpu {
        1
    } else {
        doc.run.gpus
    };
    let world = ranks::world();
    split(g, bc, world.rank() * gpus, world.size() * gpus).map_err(|m| doc.error("grid.dims", m))?;
    Ok(gpus)
}

/// Whether a run on `target` with `gpus` devices a rank splits its grid.
pub fn is_split(target: &Target, gpus: usize) -> bool {
    ranks::world().size() > 1 || (matches!(target, Target::Cuda(_)) && gpus > 1)
}

impl StructuredGrid {
    /// The planes of `split`: the same cells along the other axes, origin moved to its first
    /// plane. (`cells` along the split axis counts the part's planes.)
    pub fn part(&self, split: &Split) -> StructuredGrid {
        let (a, s) = (split.axis, &split.slab);
        let mut g = self.clone();
        g.n[a] = s.rows();
        g.cells[a] = s.rows();
        g.first[a] += s.start;
        g.origin[a] += s.start as f64 * self.h[a];
        g.extent[a] = s.rows() as f64 * self.h[a];
        g
    }

    /// Values of one plane across the split axis `axis`, padded, and the padded index where
    /// plane `v` (ghosts negative or from n) starts; planes are contiguous because every axis
    /// beyond `axis` has one value and no halo.
    fn plane(&self, axis: usize, v: isize) -> (usize, usize) {
        let p = self.padded();
        match axis {
            0 => (1, (self.xoff as isize + v) as usize),
            1 => (p[0], ((v + self.halo[1] as isize) as usize) * p[0]),
            _ => (p[0] * p[1], ((v + self.halo[2] as isize) as usize) * p[0] * p[1]),
        }
    }
}

/// The boundary set of `split`'s part: neighbour faces where other parts are.
pub fn part_bc(bc: &BoundarySet, split: &Split) -> BoundarySet {
    let mut bc = bc.clone();
    let peers = split.slab.peers(split.ring);
    if peers.below.is_some() {
        bc.faces[split.axis][0] = FaceBc::Neighbour;
    }
    if peers.above.is_some() {
        bc.faces[split.axis][1] = FaceBc::Neighbour;
    }
    bc
}

/// The ghost planes and the owned planes that fill the neighbours' of a padded array of part
/// grid `g` (every component): (owned, ghost) index ranges per side, [below, above].
pub fn plane_ranges(g: &StructuredGrid, split: &Split) -> [(std::ops::Range<usize>, std::ops::Range<usize>); 2] {
    let (a, depth) = (split.axis, g.halo[split.axis] as isize);
    let n = g.n[a] as isize;
    let range = |first: isize| {
        let (len, start) = g.plane(a, first);
        start..start + depth as usize * len
    };
    [(range(0), range(-depth)), (range(n - depth), range(n))]
}

/// Exchange the ghost planes of the padded array `f` of part grid `g` with the ranks beside it
/// (CPU ranks: part = rank): each sends its first and last owned planes, every component.
pub fn exchange_host<R: Real>(ranks: &dyn Ranks, g: &StructuredGrid, split: &Split, f: &mut [R]) {
    if split.slab.size == 1 {
        return;
    }
    let len = g.padded_len();
    let [(low, low_ghost), (high, high_ghost)] = plane_ranges(g, split);
    let pack = |r: &std::ops::Range<usize>| -> Vec<u8> {
        let values: Vec<R> = (0..g.components)
            .flat_map(|c| f[c * len + r.start..c * len + r.end].to_vec())
            .collect();
        to_bytes(&values)
    };
    let (down, up) = (pack(&low), pack(&high));
    let (mut below, mut above) = (vec![0u8; down.len()], vec![0u8; up.len()]);
    let peers = split.slab.peers(split.ring);
    ranks.exchange(peers, &down, &up, &mut below, &mut above);
    let mut unpack = |bytes: &[u8], r: &std::ops::Range<usize>| {
        for (c, values) in from_bytes::<R>(bytes).chunks(r.len()).enumerate() {
            f[c * len + r.start..c * len + r.end].copy_from_slice(values);
        }
    };
    if peers.below.is_some() {
        unpack(&below, &low_ghost);
    }
    if peers.above.is_some() {
        unpack(&above, &high_ghost);
    }
}

/// The CPU part's exchange, if it is one (a no-op on the whole grid).
pub fn exchange<R: Real>(link: Option<&Link>, g: &StructuredGrid, f: &mut [R]) {
    if let Some(l) = link {
        exchange_host(ranks::world(), g, &l.split, f);
    }
}

/// The planes of `slab` of whole-grid interior values stored component after component
/// (`components` equal pieces, `plane` values a plane).
pub fn cut<T: Copy>(values: &[T], components: usize, plane: usize, s: &Slab) -> Vec<T> {
    let n = values.len() / components;
    (0..components)
        .flat_map(|c| values[c * n + s.start * plane..c * n + s.end * plane].iter().copied())
        .collect()
}

/// The whole grid's fields on rank 0 from each rank's (each field's values are its points in
/// grid order, so the ranks' parts follow one another); the rank's own fields elsewhere.
pub fn gather_fields(ranks: &dyn Ranks, fields: Vec<Field>) -> Vec<Field> {
    if ranks.size() == 1 {
        return fields;
    }
    fields
        .into_iter()
        .map(|f| {
            let all = ranks.gather(&to_bytes(&f.values));
            if ranks.rank() == 0 {
                Field {
                    values: from_bytes(&all),
                    ..f
                }
            } else {
                f
            }
        })
        .collect()
}

/// A state's components gathered on rank 0 from each rank's share of each (given as bytes,
/// component after component), joined component after component: the whole grid's state.
pub fn gather_components(ranks: &dyn Ranks, components: Vec<Vec<u8>>) -> Vec<u8> {
    if ranks.size() == 1 {
        return components.concat();
    }
    components.iter().flat_map(|c| ranks.gather(c)).collect()
}

/// Named totals summed over the ranks.
pub fn sum_totals(ranks: &dyn Ranks, local: Vec<(String, f64)>) -> Vec<(String, f64)> {
    let sums = ranks.sum(&local.iter().map(|t| t.1).collect::<Vec<_>>());
    local.into_iter().zip(sums).map(|((name, _), v)| (name, v)).collect()
}

/// Every part's block when a grid of `whole` values per axis splits into `total` slabs along
/// `axis`, `per_rank` parts a rank (one a device where `devices`).
pub fn blocks(whole: [usize; 3], axis: usize, total: usize, per_rank: usize, devices: bool) -> Vec<Block> {
    let plane: usize = (0..3).filter(|&a| a != axis).map(|a| whole[a]).product();
    (0..total)
        .map(|p| {
            let s = Slab::of(whole[axis], p, total, 0).expect("a split that was made");
            let (mut lo, mut hi) = ([0; 3], whole);
            lo[axis] = s.start;
            hi[axis] = s.end;
            Block {
                rank: p / per_rank,
                device: devices.then_some(p % per_rank),
                lo,
                hi,
                cells: s.rows() * plane,
            }
        })
        .collect()
}

/// A part of this process: the family's simulation of its planes, and the device it runs on.
struct Member {
    sim: Box<dyn Simulation + Send>,
    split: Split,
    dev: Option<Arc<Device>>,
}

/// How the devices of one process exchange planes: by NCCL (its copy kernels, the same path
/// as between processes), or by the devices' copy engines (`peer`), which take no SMs, so a
/// family can hide the exchange behind its inner planes (heat: 1.83x on 2 H200s against 1.70x
/// by NCCL). A family that does not hide it keeps NCCL: Euler's five components per plane went
/// 4-7 % slower by copy engine (BENCHMARKS.md). `CFD_PARTS_TRANSPORT=nccl|copy`
/// overrides the family's choice, to compare them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Nccl,
    CopyEngine,
}

impl Transport {
    fn resolve(self) -> Transport {
        match std::env::var("CFD_PARTS_TRANSPORT").as_deref() {
            Ok("nccl") => Transport::Nccl,
            Ok("copy") => Transport::CopyEngine,
            _ => self,
        }
    }
}

/// Builds one part from its link (its planes and neighbours), its initial values and its
/// target.
pub type BuildPart<'a> = dyn Fn(Link, &[f64], &Target) -> Result<Box<dyn Simulation + Send>> + Sync + 'a;

/// A part's initial interior values (its components one after another) from its planes: the
/// values the whole grid's initial state has there, computed for those planes only, so that no
/// rank holds the whole grid's state (a 1024^3 Euler state is 43 GB in f64).
pub type InitialPart<'a> = dyn Fn(&Split) -> Vec<f64> + Sync + 'a;

/// The points of `split`'s planes in the whole grid `g`'s numbering (x fastest).
pub fn point_range(g: &StructuredGrid, split: &Split) -> std::ops::Range<usize> {
    let plane: usize = (0..split.axis).map(|a| g.n[a]).product();
    split.slab.start * plane..split.slab.end * plane
}

/// What a family asks of its decomposition besides the split: how the devices exchange, the
/// halo's cadence, communicators for reductions on the devices, how totals reduce over parts,
/// how an unsound value is located.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub transport: Transport,
    /// None: the grid's halo along the split axis, exchanged every step.
    pub cadence: Option<Cadence>,
    /// Communicators for reductions over parts on the devices (`Link::reduce`), on CUDA.
    pub device_reductions: bool,
    /// The parts find their steps themselves (`Simulation::advance_batch`, every part's step
    /// reduced on the devices): batches go to them, side by side. Otherwise a batch is one
    /// step, and asking the parts would cost a meeting of their threads a step.
    pub batches: bool,
    pub totals: TotalsRule,
    pub naming: Naming,
}

impl Plan {
    /// A halo exchanged every step by `transport`; totals summed; unsound values named with
    /// their part's planes.
    pub fn new(transport: Transport) -> Plan {
        Plan {
            transport,
            cadence: None,
            device_reductions: false,
            batches: false,
            totals: TotalsRule::SUMS,
            naming: Naming::Planes,
        }
    }
}

/// Named totals (`Simulation::totals`).
pub type Totals = Vec<(String, f64)>;

/// How a simulation's named totals reduce over the parts and ranks: sums, but for the
/// `maxima`; the `derived` ones are dropped from the parts' and `finish` adds them to the
/// reduced totals (a ratio of sums, say).
#[derive(Clone, Copy, Debug)]
pub struct TotalsRule {
    pub maxima: &'static [&'static str],
    pub derived: &'static [&'static str],
    pub finish: fn(Totals) -> Totals,
}

impl TotalsRule {
    /// Every total a sum.
    pub const SUMS: TotalsRule = TotalsRule {
        maxima: &[],
        derived: &[],
        finish: |t| t,
    };
}

/// Where a decomposed run says an unsound value is, after what its part says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// The part's planes and its rank.
    Planes,
    /// Its rank alone, where there are several (the part names the cell as the whole grid
    /// counts it).
    Rank,
}

/// The parts of this process of a grid `g` with boundaries `bc` split over every rank and
/// `gpus` devices per rank (one part per rank on the CPU), built by `build` from their initial
/// values (`initial`).
pub fn decompose(
    g: &StructuredGrid,
    bc: &BoundarySet,
    target: &Target,
    gpus: usize,
    transport: Transport,
    initial: &InitialPart,
    build: &BuildPart,
) -> Result<Box<dyn Simulation>> {
    decompose_with(g, bc, target, gpus, &Plan::new(transport), initial, build)
}

/// As [`decompose`], as `plan` asks.
pub fn decompose_with(
    g: &StructuredGrid,
    bc: &BoundarySet,
    target: &Target,
    gpus: usize,
    plan: &Plan,
    initial: &InitialPart,
    build: &BuildPart,
) -> Result<Box<dyn Simulation>> {
    let world = ranks::world();
    let per_rank = if matches!(target, Target::Cpu) { 1 } else { gpus };
    let total = world.size() * per_rank;
    let first = world.rank() * per_rank;
    let cadence = plan.cadence.unwrap_or(Cadence::every_step(g.halo[split_axis(g)]));
    let splits: Vec<Split> = (0..per_rank)
        .map(|k| split_with(g, bc, first + k, total, cadence).map_err(SolverError::Other))
        .collect::<Result<_>>()?;
    let axis = splits[0].axis;
    let plane: usize = (0..axis).map(|a| g.n[a]).product();
    let devices = open_devices(target, per_rank)?;
    let links = link_parts(&splits, &devices, plan, first, total)?;
    let built = build_parts(&links, &devices, initial, build);
    let mut parts = Vec::with_capacity(built.len());
    for ((sim, split), dev) in built.into_iter().zip(splits).zip(devices) {
        parts.push(Member { sim: sim?, split, dev });
    }
    let workers = match parts.len() {
        1 => None,
        n => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|k| format!("part-{k}"))
                .build()
                .map_err(|e| SolverError::Other(format!("cannot start a thread per part: {e}")))?,
        ),
    };
    Ok(Box::new(Decomposed {
        parts,
        workers,
        ranks: world,
        components: g.components,
        plane,
        whole: g.n,
        per_rank,
        target_is_cuda: matches!(target, Target::Cuda(_)),
        totals: plan.totals,
        naming: plan.naming,
        batches: plan.batches,
    }))
}

/// Each part's link: its planes and, on devices, the communicators or the copy engines that
/// carry its exchange, and the communicators of its reductions where `plan` asks.
fn link_parts(
    splits: &[Split],
    devices: &[Option<Arc<Device>>],
    plan: &Plan,
    first: usize,
    total: usize,
) -> Result<Vec<Link>> {
    let world = ranks::world();
    let devs: Vec<Arc<Device>> = devices.iter().flatten().cloned().collect();
    let cuda = !devs.is_empty();
    // One process drives every part: its devices' copy engines carry the exchange where the
    // family asks and they reach each other; else NCCL.
    let peer = match cuda && world.size() == 1 && plan.transport.resolve() == Transport::CopyEngine {
        true => PeerGroup::new(&devs)?,
        false => None,
    };
    let comms = match cuda && total > 1 && peer.is_none() {
        true => Some(Arc::new(Comms::new(world, &devs, first, total)?)),
        false => None,
    };
    let reduce = match cuda && total > 1 && plan.device_reductions {
        true => Some(Arc::new(Comms::new(world, &devs, first, total)?)),
        false => None,
    };
    Ok(splits
        .iter()
        .enumerate()
        .map(|(k, &split)| Link {
            split,
            device: comms.as_ref().map(|c| (c.clone(), k)),
            peer: peer.as_ref().map(|p| (p.clone(), k)),
            reduce: reduce.as_ref().map(|c| (c.clone(), k)),
        })
        .collect())
}

/// The devices of this process's parts: the run's device and the next ones (None on the CPU).
fn open_devices(target: &Target, per_rank: usize) -> Result<Vec<Option<Arc<Device>>>> {
    match target {
        Target::Cpu => Ok(vec![None]),
        Target::Cuda(dev) => (0..per_rank)
            .map(|k| {
                if k == 0 {
                    Ok(dev.clone())
                } else {
                    Device::open(dev.ctx.ordinal() + k)
                }
            })
            .map(|d| d.map(Some))
            .collect(),
    }
}

/// Each part's initial values, and the part built from them and its link, side by side (a
/// device's part uploads while the next builds).
fn build_parts(
    links: &[Link],
    devices: &[Option<Arc<Device>>],
    initial: &InitialPart,
    build: &BuildPart,
) -> Vec<Result<Box<dyn Simulation + Send>>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = links
            .iter()
            .zip(devices)
            .map(|(link, dev)| {
                scope.spawn(move || {
                    let values = initial(&link.split);
                    let target = match dev {
                        Some(d) => {
                            d.ctx.bind_to_thread()?;
                            Target::Cuda(d.clone())
                        }
                        None => Target::Cpu,
                    };
                    build(link.clone(), &values, &target)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a part's build panicked"))
            .collect()
    })
}

/// The parts of this process of a decomposed grid, stepped together as one simulation.
pub struct Decomposed {
    parts: Vec<Member>,
    /// One thread per part when there are several (`side_by_side`).
    workers: Option<rayon::ThreadPool>,
    ranks: &'static dyn Ranks,
    /// Components of the state, values per plane of the split axis, the whole grid's values
    /// per axis, parts per rank.
    components: usize,
    plane: usize,
    whole: [usize; 3],
    per_rank: usize,
    target_is_cuda: bool,
    totals: TotalsRule,
    naming: Naming,
    batches: bool,
}

impl Decomposed {
    /// `f` on every part in turn, from this thread (each part's device bound first): for
    /// what exchanges nothing between parts (the stable step, fields, state).
    fn each<T>(&mut self, f: impl Fn(usize, &mut (dyn Simulation + Send)) -> Result<T>) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.parts.len());
        for (k, p) in self.parts.iter_mut().enumerate() {
            if let Some(d) = &p.dev {
                d.ctx.bind_to_thread()?;
            }
            out.push(f(k, p.sim.as_mut())?);
        }
        Ok(out)
    }

    /// `f` on every part side by side, each on a thread of its own: a step's exchanges need
    /// every part to take part at once (NCCL, or the copy engines' meetings, would wait
    /// forever for a part queued behind another on the same thread). The threads are the
    /// run's pool of one per part: a part's job blocks only its own thread, and a job not yet
    /// started is taken by an idle one (there are as many as jobs), so every part runs at
    /// once. A new thread per part each step cost about 35 us a thread (BENCHMARKS.md).
    fn side_by_side<T: Send>(
        &mut self,
        f: impl Fn(&mut (dyn Simulation + Send)) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let Some(pool) = &self.workers else {
            return self.parts.iter_mut().map(|p| f(p.sim.as_mut())).collect();
        };
        let f = &f;
        let mut out: Vec<Option<Result<T>>> = self.parts.iter().map(|_| None).collect();
        pool.scope(|scope| {
            for (p, slot) in self.parts.iter_mut().zip(out.iter_mut()) {
                scope.spawn(move |_| {
                    *slot = Some((|| {
                        if let Some(d) = &p.dev {
                            d.ctx.bind_to_thread()?;
                        }
                        f(p.sim.as_mut())
                    })());
                });
            }
        });
        out.into_iter().map(|r| r.expect("every part's job ran")).collect()
    }

    /// What part `split` says is unsound (`what`), with where the part is (`Naming`).
    fn located(&self, what: String, split: &Split) -> String {
        let rank = self.ranks.rank();
        match self.naming {
            Naming::Rank if self.ranks.size() == 1 => what,
            Naming::Rank => format!("{what} on rank {rank}"),
            Naming::Planes => {
                let s = &split.slab;
                let axis = ["x", "y", "z"][split.axis];
                format!(
                    "{what} (in the part of planes {}..{} along {axis}, on rank {rank})",
                    s.start, s.end
                )
            }
        }
    }

    /// Byte buffers per part of `components` equal pieces each, joined piece by piece: the
    /// process's values of each component, one after another.
    fn join_components(&self, per_part: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        (0..self.components)
            .map(|c| {
                per_part
                    .iter()
                    .flat_map(|b| {
                        let n = b.len() / self.components;
                        b[c * n..(c + 1) * n].to_vec()
                    })
                    .collect()
            })
            .collect()
    }
}

impl Simulation for Decomposed {
    /// The parts' steps found side by side: each waits for its own device's reduction, so
    /// one after another they cost the sum of those waits (about 0.3 ms a part for Euler).
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        let mine = self
            .side_by_side(|s| s.stable_dt(cfl))?
            .into_iter()
            .fold(f64::INFINITY, f64::min);
        Ok(-self.ranks.max(-mine))
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        self.side_by_side(|s| s.step(clock, dt)).map(|_| ())
    }

    /// The first unsound part (in grid order), named with its planes or its rank
    /// (`Naming`); every rank stops, and says what rank 0 says.
    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let found = self.each(|_, s| s.health())?;
        let mine = found
            .into_iter()
            .zip(&self.parts)
            .find_map(|(h, p)| h.map(|h| (h.field, self.located(h.what, &p.split))));
        if self.ranks.size() == 1 {
            return Ok(mine.map(|(field, what)| Unhealthy { field, what }));
        }
        // Every rank learns whether any is unsound, then what the first one says.
        let text = mine.map(|(f, w)| format!("{f}\n{w}")).unwrap_or_default();
        let mut fixed = text.into_bytes();
        fixed.resize(1024, 0);
        let any = self.ranks.max(f64::from(u8::from(fixed[0] != 0)));
        if any == 0.0 {
            return Ok(None);
        }
        let all = self.ranks.gather(&fixed);
        let mut first = all
            .chunks(1024)
            .find(|c| c[0] != 0)
            .map_or_else(|| vec![0u8; 1024], <[u8]>::to_vec);
        self.ranks.broadcast(&mut first);
        let t = String::from_utf8_lossy(&first).trim_end_matches('\0').to_string();
        let (f, w) = t.split_once('\n').unwrap_or(("state", &t));
        Ok(Some(Unhealthy {
            field: f.into(),
            what: w.into(),
        }))
    }

    /// The whole grid's fields on rank 0 (the parts' values one after another), each rank's own
    /// elsewhere.
    fn fields(&mut self, clock: &Clock) -> Result<Vec<Field>> {
        let mut per_part = self.each(|_, s| s.fields(clock))?;
        // Joined by one copy of each part's values into a vector of the whole size: a frame of
        // RT 3D at 224 x 224 x 672 on 2 GPUs is 1.6 GB of values, and cloning the first part's
        // then collecting them one by one (the vector growing as it went) held the steps back
        // 0.4 s a frame more (2 H200s, BENCHMARKS.md).
        let mut fields = std::mem::take(&mut per_part[0]);
        for (i, f) in fields.iter_mut().enumerate() {
            let joined = {
                let others = per_part[1..].iter().map(|p| p[i].values.as_slice());
                std::iter::once(f.values.as_slice())
                    .chain(others)
                    .collect::<Vec<_>>()
                    .concat()
            };
            f.values = joined;
        }
        Ok(gather_fields(self.ranks, fields))
    }

    /// Each part's own fields, each point field followed by the first plane of the part after
    /// it (from the next part of this process, or the first part of the rank above).
    fn pieces(&mut self, clock: &Clock) -> Result<Option<Vec<Piece>>> {
        let mut per_part = self.each(|_, s| s.fields(clock))?;
        let plane = self.plane;
        let first_planes = |fields: &[Field]| -> Vec<f64> {
            fields
                .iter()
                .filter(|f| f.centring == Centring::Point)
                .flat_map(|f| f.values[..plane * f.components].iter().copied())
                .collect()
        };
        let (rank, size) = (self.ranks.rank(), self.ranks.size());
        let down = to_bytes(&first_planes(&per_part[0]));
        let mut from_above = vec![0u8; down.len()];
        let peers = ranks::Peers {
            below: rank.checked_sub(1),
            above: (rank + 1 < size).then_some(rank + 1),
        };
        self.ranks.exchange(peers, &down, &[], &mut [], &mut from_above);
        let n = per_part.len();
        for k in 0..n {
            let next = match (k + 1 < n, peers.above) {
                (true, _) => first_planes(&per_part[k + 1]),
                (false, Some(_)) => from_bytes(&from_above),
                (false, None) => continue,
            };
            let mut at = 0;
            for f in per_part[k].iter_mut().filter(|f| f.centring == Centring::Point) {
                let len = plane * f.components;
                f.values.extend_from_slice(&next[at..at + len]);
                at += len;
            }
        }
        let first = rank * self.per_rank;
        Ok(Some(
            per_part
                .into_iter()
                .enumerate()
                .map(|(k, fields)| Piece {
                    index: first + k,
                    fields,
                })
                .collect(),
        ))
    }

    /// The whole interior state on rank 0 (component after component), as one run's.
    fn save_state(&mut self) -> Result<Vec<u8>> {
        let per_part = self.each(|_, s| s.save_state())?;
        Ok(gather_components(self.ranks, self.join_components(per_part)))
    }

    /// Each part's planes of the whole state (every rank reads the whole checkpoint): a state
    /// saved on any number of parts loads on any other.
    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let values = self.components * self.plane * self.whole[self.parts[0].split.axis];
        let per_plane = self.plane * bytes.len() / values.max(1);
        let mine: Vec<Vec<u8>> = self
            .parts
            .iter()
            .map(|p| cut(bytes, self.components, per_plane, &p.split.slab))
            .collect();
        let mine = &mine;
        self.each(|k, s| s.load_state(&mine[k])).map(|_| ())
    }

    /// `cell` of the whole grid (x fastest) on the part that holds it.
    fn inject_nan(&mut self, cell: usize) -> Result<bool> {
        let at = cell / self.plane;
        let mut injected = false;
        for p in &mut self.parts {
            let s = &p.split.slab;
            if (s.start..s.end).contains(&at) {
                injected = p.sim.inject_nan(cell - s.start * self.plane)?;
            }
            // Every part of every rank (each calls this at the same step) then takes its
            // neighbours' planes again, together.
            p.sim.refresh_neighbours();
        }
        Ok(injected)
    }

    fn bytes_per_step(&self) -> f64 {
        self.parts.iter().map(|p| p.sim.bytes_per_step()).sum()
    }

    fn variant(&self) -> String {
        self.parts[0].sim.variant()
    }

    fn sync(&mut self) -> Result<()> {
        self.each(|_, s| s.sync()).map(|_| ())
    }

    /// Each named total summed over the parts and the ranks, or its maximum (`TotalsRule`).
    fn totals(&mut self) -> Result<Vec<(String, f64)>> {
        let rule = self.totals;
        let per_part: Vec<Vec<(String, f64)>> = self
            .each(|_, s| s.totals())?
            .into_iter()
            .map(|t| {
                t.into_iter()
                    .filter(|(n, _)| !rule.derived.contains(&n.as_str()))
                    .collect()
            })
            .collect();
        let is_max = |name: &str| rule.maxima.contains(&name);
        let mut sums = per_part[0].clone();
        for (i, t) in sums.iter_mut().enumerate() {
            t.1 = match is_max(&t.0) {
                true => per_part.iter().map(|p| p[i].1).fold(f64::NEG_INFINITY, f64::max),
                false => per_part.iter().map(|p| p[i].1).sum(),
            };
        }
        let (maxima, sums): (Vec<_>, Vec<_>) = sums.into_iter().enumerate().partition(|(_, t)| is_max(&t.0));
        let mut reduced: Vec<(usize, (String, f64))> = maxima
            .into_iter()
            .map(|(i, (n, v))| (i, (n, self.ranks.max(v))))
            .collect();
        let (at, sums): (Vec<usize>, Vec<_>) = sums.into_iter().unzip();
        reduced.extend(at.into_iter().zip(sum_totals(self.ranks, sums)));
        reduced.sort_by_key(|(i, _)| *i);
        Ok((rule.finish)(reduced.into_iter().map(|(_, t)| t).collect()))
    }

    /// Up to `max_steps` steps found on the devices, every part side by side (each holds the
    /// same clock: the step is reduced over every part on the devices); None where the parts
    /// take one step at a time.
    fn advance_batch(&mut self, clock: &Clock, cfl: f64, until: f64, max_steps: u64) -> Result<Option<Clock>> {
        if !self.batches {
            return Ok(None);
        }
        let reached = self.side_by_side(|s| s.advance_batch(clock, cfl, until, max_steps))?;
        Ok(reached.into_iter().next().flatten())
    }

    fn decomposition(&self) -> Option<Vec<Block>> {
        let axis = self.parts[0].split.axis;
        Some(blocks(
            self.whole,
            axis,
            self.parts[0].split.slab.size,
            self.per_rank,
            self.target_is_cuda,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::GridSpec;
    use crate::output::Centring;

    fn grid(cells: [usize; 3], halo: [usize; 3], bc: &BoundarySet) -> StructuredGrid {
        let spec = GridSpec {
            cells,
            origin: [1.0, 2.0, 3.0],
            extent: [1.0, 2.0, 4.0],
        };
        StructuredGrid::new(&spec, Centring::Cell, bc, halo, 2).aligned_for(8)
    }

    /// The outermost axis with values splits; parts cover it once and are refused when thinner
    /// than their halo; a part's cells sit where the whole grid's do; the owned and ghost planes
    /// are the ones the stencils read.
    #[test]
    fn parts_split_the_outermost_axis_into_planes_the_halo_can_reach() {
        let bc = BoundarySet::periodic();
        let g = grid([6, 5, 10], [2, 2, 2], &bc);
        assert_eq!(split_axis(&g), 2);
        assert_eq!(split_axis(&grid([6, 5, 1], [2, 2, 0], &bc)), 1);
        assert_eq!(split_axis(&grid([6, 1, 1], [2, 0, 0], &bc)), 0);
        let splits: Vec<Split> = (0..3).map(|p| split(&g, &bc, p, 3).unwrap()).collect();
        assert_eq!(splits.iter().map(|s| s.slab.rows()).collect::<Vec<_>>(), [4, 3, 3]);
        assert!(splits.iter().all(|s| s.ring));
        let e = split(&g, &bc, 0, 6).unwrap_err();
        assert!(e.contains("use at most 5 GPUs and ranks"), "{e}");

        let part = g.part(&splits[1]);
        assert_eq!(part.n, [6, 5, 3]);
        assert_eq!(part.coord(2, 3, 0), g.coord(2, 3, 4));
        let pbc = part_bc(&bc, &splits[1]);
        assert_eq!(pbc.faces[2], [FaceBc::Neighbour, FaceBc::Neighbour]);
        assert_eq!(pbc.faces[0], [FaceBc::Periodic, FaceBc::Periodic]);

        let [(low, low_ghost), (high, high_ghost)] = plane_ranges(&part, &splits[1]);
        let inside = |r: &std::ops::Range<usize>, i: isize, j: isize, k: isize| r.contains(&part.at(i, j, k));
        assert!(inside(&low, 0, 0, 0) && inside(&low, 5, 4, 1) && !inside(&low, 0, 0, 2));
        assert!(inside(&low_ghost, 0, 0, -2) && inside(&low_ghost, 5, 4, -1));
        assert!(inside(&high, 0, 0, 1) && inside(&high, 5, 4, 2));
        assert!(inside(&high_ghost, 0, 0, 3) && inside(&high_ghost, 5, 4, 4));
        assert_eq!(low.len(), low_ghost.len());

        // Cut and rejoined, the parts' values are the whole grid's.
        let whole: Vec<u32> = (0..2 * 6 * 5 * 10).collect();
        let pieces: Vec<Vec<u32>> = splits.iter().map(|s| cut(&whole, 2, 30, &s.slab)).collect();
        let joined: Vec<u32> = (0..2)
            .flat_map(|c| {
                pieces
                    .iter()
                    .flat_map(move |p| p[c * p.len() / 2..(c + 1) * p.len() / 2].to_vec())
            })
            .collect();
        assert_eq!(joined, whole);
        let b = blocks([6, 5, 10], 2, 3, 1, false);
        assert_eq!((b[1].lo, b[1].hi, b[1].cells), ([0, 0, 4], [6, 5, 7], 90));
    }

    /// Ghost-cell expansion: every plane a step reads (`reach` beyond those it updates) was
    /// updated by the step before or has just arrived, for parts with neighbours on either
    /// side or both, halos exchanged every 1 to 4 steps, over three cycles; just before an
    /// exchange no halo plane is updated (the cycle uses the whole halo).
    #[test]
    fn halo_planes_updated_again_stay_inside_what_is_valid() {
        let (n, reach) = (10, 2);
        for (rank, size) in [(0, 2), (1, 2), (1, 3)] {
            for every in 1..=4 {
                let cadence = Cadence { reach, every };
                let split = Split {
                    axis: 1,
                    slab: Slab {
                        rank,
                        size,
                        start: 0,
                        end: n,
                    },
                    ring: false,
                    cadence,
                };
                let (below, above) = (split.slab.has_below(), split.slab.has_above());
                let d = cadence.depth() as isize;
                // The planes holding this step's values: own planes at the start.
                let mut valid = 0..n as isize;
                for step in 0..3 * every {
                    let (planes, arrive) = split.updated(step, n);
                    assert_eq!(arrive, step % every == 0);
                    if arrive {
                        valid = valid.start.min(if below { -d } else { 0 })
                            ..valid.end.max(n as isize + if above { d } else { 0 });
                    }
                    let read = split.widened(&planes, reach as isize);
                    assert!(
                        valid.start <= read.start && read.end <= valid.end,
                        "{every} {step}: {read:?} {valid:?}"
                    );
                    assert!(read.start >= -d && read.end <= n as isize + d);
                    assert!(planes.start <= 0 && planes.end >= n as isize);
                    valid = planes;
                }
                assert_eq!(split.updated(every - 1, n).0, 0..n as isize);
            }
        }
    }
}
