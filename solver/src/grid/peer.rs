//! The exchange of ghost planes between the devices of one process by their copy engines
//! (`cuMemcpyPeerAsync` over NVLink, peer access enabled), instead of NCCL's copy kernels.
//! A copy engine takes no SMs, so a family can hide the exchange behind the update of its inner
//! planes (heat); NCCL's kernels wait for SMs the stencil kernel holds (BENCHMARKS.md, session
//! 13: hiding the heat exchange behind NCCL made the step slower).
//!
//! Each exchange is two meetings of the parts' threads (`decompose` steps each part on its own
//! thread): [`PeerGroup::begin`] posts the part's array and an event after the work that wrote
//! its owned planes, then pulls its neighbours' owned planes into its ghost planes on its copy
//! stream; [`PeerGroup::end`] makes the part's stream wait for its own pulls and for its
//! neighbours' pulls of its planes (as a NCCL send/receive pair would, so the caller may
//! overwrite its owned planes afterwards). Work queued between the two overlaps the copies.

use super::parts::{plane_ranges, Split};
use super::StructuredGrid;
use crate::backend::cuda::Device;
use crate::error::{Result, SolverError};
use cudarc::driver::{sys, CudaEvent, CudaStream};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};

/// What a part posts for its neighbours in one exchange.
struct Post {
    /// The padded array's device address, its component stride and value size in bytes, and
    /// its owned planes beside the part below and the part above (values).
    ptr: u64,
    stride: usize,
    bytes: usize,
    low: Range<usize>,
    high: Range<usize>,
    /// Its owned planes are written (recorded on the caller's stream).
    ready: CudaEvent,
    /// Its pulls are done (recorded on its copy stream), set before the second meeting.
    done: Option<CudaEvent>,
}

/// The parts of one process, all on devices with peer access to each other.
pub struct PeerGroup {
    devices: Vec<Arc<Device>>,
    /// Per part: the stream its pulls run on, exchanges begun so far, and its posts of the
    /// last two exchanges (a part may post the next one while a slower neighbour still reads
    /// this one's).
    copy: Vec<Arc<CudaStream>>,
    count: Vec<AtomicUsize>,
    posts: Vec<[Mutex<Option<Post>>; 2]>,
    meet: Barrier,
}

/// An exchange begun by [`PeerGroup::begin`], to pass to [`PeerGroup::end`].
#[must_use]
pub struct Begun {
    parity: usize,
}

fn driver(what: &str, code: sys::CUresult) -> Result<()> {
    match code {
        sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
        e => Err(SolverError::Cuda(format!("{what}: {e:?}"))),
    }
}

impl PeerGroup {
    /// A group of `devices` (this process's parts, in part order), with peer access enabled
    /// between every pair; None where some pair cannot reach each other directly (the caller
    /// keeps NCCL).
    pub fn new(devices: &[Arc<Device>]) -> Result<Option<Arc<PeerGroup>>> {
        if devices.len() < 2 {
            return Ok(None);
        }
        for a in devices {
            for b in devices.iter().filter(|b| !Arc::ptr_eq(a, b)) {
                let mut can = 0;
                // SAFETY: out-parameter and two valid device handles.
                driver("cuDeviceCanAccessPeer", unsafe {
                    sys::cuDeviceCanAccessPeer(&mut can, a.ctx.cu_device(), b.ctx.cu_device())
                })?;
                if can == 0 {
                    return Ok(None);
                }
                a.ctx.bind_to_thread()?;
                // SAFETY: the current context is a's; b's is a live context.
                driver("cuCtxEnablePeerAccess", unsafe {
                    sys::cuCtxEnablePeerAccess(b.ctx.cu_ctx(), 0)
                })?;
            }
        }
        let copy = devices
            .iter()
            .map(|d| d.ctx.new_stream())
            .collect::<std::result::Result<_, _>>()?;
        Ok(Some(Arc::new(PeerGroup {
            devices: devices.to_vec(),
            copy,
            count: devices.iter().map(|_| AtomicUsize::new(0)).collect(),
            posts: devices.iter().map(|_| [Mutex::new(None), Mutex::new(None)]).collect(),
            meet: Barrier::new(devices.len()),
        })))
    }

    /// Part `k` (its planes `split` of part grid `g`, `bytes` per value) posts its padded array
    /// at `ptr` once the work queued on `stream` so far is done, and pulls its neighbours'
    /// owned planes into its ghost planes. Every part of the group must call it at the same
    /// point of its step, each from its own thread (it waits for all to post).
    pub fn begin(
        &self,
        k: usize,
        split: &Split,
        g: &StructuredGrid,
        bytes: usize,
        ptr: u64,
        stream: &CudaStream,
    ) -> Result<Begun> {
        let parity = self.count[k].fetch_add(1, Ordering::Relaxed) % 2;
        let [(low, low_ghost), (high, high_ghost)] = plane_ranges(g, split);
        let stride = g.padded_len();
        let ready = stream.record_event(None)?;
        let copy = &self.copy[k];
        // Our ghosts may still be read by work queued before this exchange.
        copy.wait(&ready)?;
        *self.posts[k][parity].lock().unwrap() = Some(Post {
            ptr,
            stride,
            bytes,
            low,
            high,
            ready,
            done: None,
        });
        self.meet.wait();
        let peers = split.slab.peers(split.ring);
        // Our low ghosts take the part below's high planes, our high ghosts the part above's low.
        for (neighbour, ghost, takes_high) in [(peers.below, &low_ghost, true), (peers.above, &high_ghost, false)] {
            let Some(n) = neighbour else { continue };
            let guard = self.posts[n][parity].lock().unwrap();
            let post = guard.as_ref().expect("a neighbour posted before the meeting");
            copy.wait(&post.ready)?;
            let src = if takes_high { &post.high } else { &post.low };
            debug_assert_eq!(src.len(), ghost.len(), "parts exchange planes of one size");
            for c in 0..g.components {
                let from = post.ptr + ((c * post.stride + src.start) * post.bytes) as u64;
                let to = ptr + ((c * stride + ghost.start) * bytes) as u64;
                // SAFETY: `from` is the neighbour's owned planes of component c (its array
                // lives until the exchange ends: `end` waits for these copies), `to` this
                // part's ghost planes of component c; both `ghost.len()` values long.
                driver("cuMemcpyPeerAsync", unsafe {
                    sys::cuMemcpyPeerAsync(
                        to,
                        self.devices[k].ctx.cu_ctx(),
                        from,
                        self.devices[n].ctx.cu_ctx(),
                        ghost.len() * bytes,
                        copy.cu_stream(),
                    )
                })?;
            }
        }
        let done = copy.record_event(None)?;
        self.posts[k][parity]
            .lock()
            .unwrap()
            .as_mut()
            .expect("posted above")
            .done = Some(done);
        Ok(Begun { parity })
    }

    /// The end of part `k`'s exchange `begun`: `stream` waits for this part's pulls (its ghosts
    /// are filled) and its neighbours' pulls of its planes (it may overwrite them).
    pub fn end(&self, k: usize, split: &Split, begun: Begun, stream: &CudaStream) -> Result<()> {
        self.meet.wait();
        let peers = split.slab.peers(split.ring);
        for part in [Some(k), peers.below, peers.above].into_iter().flatten() {
            let guard = self.posts[part][begun.parity].lock().unwrap();
            let done = guard
                .as_ref()
                .and_then(|p| p.done.as_ref())
                .expect("every part pulled before the meeting");
            stream.wait(done)?;
        }
        Ok(())
    }
}
