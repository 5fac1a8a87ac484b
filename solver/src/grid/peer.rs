//! The exchange of ghost planes between the devices of one process by their copy engines
//! (`cuMemcpyPeerAsync` over NVLink, peer access enabled), instead of NCCL's copy kernels.
//! A copy engine takes no SMs, so a family can hide the exchange behind the update of its inner
//! planes (heat); NCCL's kernels wait for SMs the stencil kernel holds (BENCHMARKS.md: hiding
//! the heat exchange behind NCCL made the step slower).
//!
//! Each exchange is one meeting of the parts' threads (`decompose` steps each part on its own
//! thread): [`PeerGroup::begin`] posts the part's array and an event after the work that wrote
//! its owned planes, meets the others, then pulls its neighbours' owned planes into its ghost
//! planes on its copy stream; [`PeerGroup::end`] makes the part's stream wait for its pulls.
//! Work queued between the two overlaps the copies.
//!
//! Unlike a NCCL send, `end` does not wait for the neighbours' pulls of this part's planes: a
//! part must not overwrite the owned planes of an exchanged array before its next exchange
//! has ended. Then they are safe: that exchange's pulls wait for the neighbours to post it,
//! which they do after the end of their pulls of this one. (Every family's step writes an
//! exchanged array's planes only in a later stage, after the next exchange; waiting for the
//! neighbours' events as well cost about 14 us of host time each, and the devices waited for
//! the host on small grids.)

use crate::backend::cuda::Device;
use crate::error::{Result, SolverError};
use cudarc::driver::{sys, CudaEvent, CudaStream};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
    ready: Arc<CudaEvent>,
}

/// The parts' threads meet by spinning, not by a condition variable (a parked thread takes
/// tens of microseconds to wake, and on small grids the devices wait for the host). Each
/// thread of the pool serves one part, so a spinning thread holds no other work back.
struct Meeting {
    parties: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl Meeting {
    fn new(parties: usize) -> Meeting {
        Meeting {
            parties,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    /// Return once every party has arrived at this meeting.
    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.parties {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            spins += 1;
            if spins < 1 << 14 {
                std::hint::spin_loop();
            } else {
                // A party is slow (its host work): stop burning the core.
                std::thread::yield_now();
            }
        }
    }
}

/// The parts of one process, all on devices with peer access to each other.
pub struct PeerGroup {
    devices: Vec<Arc<Device>>,
    /// Per part: the stream its pulls run on, exchanges begun so far, its posts of the last two
    /// exchanges (a part may post the next one while a slower neighbour still reads this one's)
    /// and their events, owned planes written and pulls done (made once: recording one again
    /// does not change what a wait queued before saw).
    copy: Vec<Arc<CudaStream>>,
    count: Vec<AtomicUsize>,
    posts: Vec<[Mutex<Option<Post>>; 2]>,
    events: Vec<[(Arc<CudaEvent>, Arc<CudaEvent>); 2]>,
    meet: Meeting,
}

/// Where a part's planes lie in its padded array: the parts below and above it, (owned, ghost)
/// value ranges beside each (`parts::plane_ranges`), the component stride and count.
pub struct Planes {
    pub neighbours: (Option<usize>, Option<usize>),
    pub ranges: [(Range<usize>, Range<usize>); 2],
    pub stride: usize,
    pub components: usize,
}

/// An exchange begun by [`PeerGroup::begin`], to pass to [`PeerGroup::end`].
#[must_use]
pub struct Begun {
    done: Arc<CudaEvent>,
}

fn driver(what: &str, code: sys::CUresult) -> Result<()> {
    match code {
        sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
        e => Err(SolverError::Cuda(format!("{what}: {e:?}"))),
    }
}

/// Open each device's memory pool to the other devices. The arrays come from the pools
/// (cuMemAllocAsync), which peer access does not cover: without this the copy engines' pulls
/// were not direct, and took until after the inner planes' update (heat 512^3 f64 on 2 H200s:
/// 2.14e-3 s a step, 2.055e-3 with it; BENCHMARKS.md).
fn open_pools(devices: &[Arc<Device>]) -> Result<()> {
    for b in devices.iter().filter(|b| b.ctx.has_async_alloc()) {
        let pool = memory_pool(b)?;
        let access: Vec<sys::CUmemAccessDesc> = devices
            .iter()
            .filter(|a| !Arc::ptr_eq(a, b))
            .map(|a| sys::CUmemAccessDesc {
                location: sys::CUmemLocation {
                    type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                    id: a.ctx.cu_device(),
                },
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            })
            .collect();
        // SAFETY: `pool` is b's live pool; `access` holds `access.len()` descriptors.
        driver("cuMemPoolSetAccess", unsafe {
            sys::cuMemPoolSetAccess(pool, access.as_ptr(), access.len())
        })?;
    }
    Ok(())
}

/// The memory pool the device's arrays come from (cuMemAllocAsync's).
fn memory_pool(device: &Device) -> Result<sys::CUmemoryPool> {
    let mut pool = std::ptr::null_mut();
    // SAFETY: out-parameter and a valid device handle.
    driver("cuDeviceGetMemPool", unsafe {
        sys::cuDeviceGetMemPool(&mut pool, device.ctx.cu_device())
    })?;
    Ok(pool)
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
        if let Err(e) = open_pools(devices) {
            eprintln!(
                "warning: the devices' memory pools could not be opened to each other ({e}): the planes \
                 between GPUs still travel, but not directly (slower)"
            );
        }
        let copy = devices
            .iter()
            .map(|d| d.ctx.new_stream())
            .collect::<std::result::Result<_, _>>()?;
        let event = |d: &Arc<Device>| -> Result<Arc<CudaEvent>> { Ok(Arc::new(d.ctx.new_event(None)?)) };
        let events = devices
            .iter()
            .map(|d| Ok([(event(d)?, event(d)?), (event(d)?, event(d)?)]))
            .collect::<Result<_>>()?;
        Ok(Some(Arc::new(PeerGroup {
            devices: devices.to_vec(),
            copy,
            count: devices.iter().map(|_| AtomicUsize::new(0)).collect(),
            posts: devices.iter().map(|_| [Mutex::new(None), Mutex::new(None)]).collect(),
            events,
            meet: Meeting::new(devices.len()),
        })))
    }

    /// Part `k` posts its padded array at `ptr` (`planes`, values of `bytes` bytes) once the
    /// work queued on `stream` so far is done, and pulls its neighbours' owned planes into its
    /// ghost planes. Every part of the group must call it at the same point of its step, each
    /// from its own thread (it waits for all to post).
    pub fn begin(&self, k: usize, planes: &Planes, bytes: usize, ptr: u64, stream: &CudaStream) -> Result<Begun> {
        let parity = self.count[k].fetch_add(1, Ordering::Relaxed) % 2;
        let [(low, low_ghost), (high, high_ghost)] = planes.ranges.clone();
        let stride = planes.stride;
        let (ready, done) = self.events[k][parity].clone();
        ready.record(stream)?;
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
        });
        self.meet.wait();
        let (below, above) = planes.neighbours;
        // Our low ghosts take the part below's high planes, our high ghosts the part above's low.
        for (neighbour, ghost, takes_high) in [(below, &low_ghost, true), (above, &high_ghost, false)] {
            let Some(n) = neighbour else { continue };
            let guard = self.posts[n][parity].lock().unwrap();
            let post = guard.as_ref().expect("a neighbour posted before the meeting");
            // In a ring of two the part above is the part below: wait for it once.
            if takes_high || below != Some(n) {
                copy.wait(&post.ready)?;
            }
            let src = if takes_high { &post.high } else { &post.low };
            debug_assert_eq!(src.len(), ghost.len(), "parts exchange planes of one size");
            for c in 0..planes.components {
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
        done.record(copy)?;
        Ok(Begun { done })
    }

    /// The end of an exchange `begun`: `stream` waits for the part's pulls (its ghosts are
    /// filled).
    pub fn end(&self, begun: Begun, stream: &CudaStream) -> Result<()> {
        Ok(stream.wait(&begun.done)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::driver_present;
    use cudarc::driver::CudaContext;

    /// Once a group is made each device's memory pool is open to the others (without it the
    /// copies between the parts' arrays were not direct: BENCHMARKS.md). Needs two
    /// devices with peer access; skipped, saying so, elsewhere.
    #[test]
    fn a_group_opens_each_devices_pool_to_the_others() {
        let count = if driver_present() {
            CudaContext::device_count().unwrap_or(0)
        } else {
            0
        };
        if count < 2 {
            eprintln!("SKIPPED: a peer group's pools (needs 2 CUDA devices, this machine has {count})");
            return;
        }
        let devices = [Device::open(0).unwrap(), Device::open(1).unwrap()];
        if PeerGroup::new(&devices).unwrap().is_none() {
            eprintln!("SKIPPED: a peer group's pools (devices 0 and 1 have no peer access)");
            return;
        }
        let mut checked = 0;
        for (b, a) in [(&devices[0], &devices[1]), (&devices[1], &devices[0])] {
            if !b.ctx.has_async_alloc() {
                continue;
            }
            let pool = memory_pool(b).unwrap();
            let mut flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE;
            let mut location = sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: a.ctx.cu_device(),
            };
            // SAFETY: out-parameter, b's live pool and a device location.
            driver("cuMemPoolGetAccess", unsafe {
                sys::cuMemPoolGetAccess(&mut flags, pool, &mut location)
            })
            .unwrap();
            assert_eq!(
                flags,
                sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                "device {}'s pool is not open to device {}",
                b.ctx.cu_device(),
                a.ctx.cu_device()
            );
            checked += 1;
        }
        eprintln!("a peer group's pools: {checked} checked");
    }
}
