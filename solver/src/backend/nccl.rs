//! NCCL communicators between the devices of a decomposed run (libnccl loaded at run time):
//! one communicator per device this process drives, the run's parts numbered across all
//! processes (process r's devices follow process r - 1's); the unique id is made on rank 0 and
//! broadcast by the ranks (MPI, or nothing with one process). Operations take raw device
//! addresses and a stream, and are grouped (`group`) so that one thread may drive several
//! devices without deadlock.

use super::cuda::Device;
use crate::error::{Result, SolverError};
use crate::framework::ranks::Ranks;
use cudarc::driver::CudaStream;
use cudarc::nccl::{result, sys};
use std::sync::Arc;

fn nccl_error(what: &str, e: result::NcclError) -> SolverError {
    SolverError::Cuda(format!("NCCL {what}: {e:?} (libnccl.so.2 must be on the library path)"))
}

/// The communicators of this process's devices.
pub struct Comms {
    comms: Vec<sys::ncclComm_t>,
}

// SAFETY: NCCL communicators may be used from any thread. The solver drives them from one
// thread, or (`grid::parts`) one thread per device, each using only its own device's
// communicator `comms[k]`, which NCCL allows.
unsafe impl Send for Comms {}
unsafe impl Sync for Comms {}

impl Comms {
    /// Communicators for `devices`, parts `first`, `first + 1`, ... of `total`.
    pub fn new(ranks: &dyn Ranks, devices: &[Arc<Device>], first: usize, total: usize) -> Result<Comms> {
        let mut id = if ranks.rank() == 0 {
            result::get_uniqueid().map_err(|e| nccl_error("unique id", e))?
        } else {
            sys::ncclUniqueId { internal: [0; 128] }
        };
        // SAFETY: the id is 128 plain bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(id.internal.as_mut_ptr() as *mut u8, 128) };
        ranks.broadcast(bytes);
        let mut comms = vec![std::ptr::null_mut(); devices.len()];
        group(|| {
            for (k, (dev, comm)) in devices.iter().zip(comms.iter_mut()).enumerate() {
                dev.ctx.bind_to_thread()?;
                // SAFETY: `comm` receives the communicator; the id is the same on every part.
                unsafe { result::comm_init_rank(comm, total as i32, id, (first + k) as i32) }
                    .map_err(|e| nccl_error("init", e))?;
            }
            Ok(())
        })?;
        Ok(Comms { comms })
    }

    /// Send `bytes` at device address `ptr` of part `k` to part `peer`, on `stream`.
    ///
    /// # Safety
    /// `ptr` must hold `bytes` bytes on part k's device until the stream has run the send.
    pub unsafe fn send(&self, k: usize, ptr: u64, bytes: usize, peer: usize, stream: &CudaStream) -> Result<()> {
        result::send(
            ptr as _,
            bytes,
            sys::ncclDataType_t::ncclUint8,
            peer as i32,
            self.comms[k],
            stream.cu_stream() as _,
        )
        .map(|_| ())
        .map_err(|e| nccl_error("send", e))
    }

    /// Receive `bytes` into device address `ptr` of part `k` from part `peer`, on `stream`.
    ///
    /// # Safety
    /// `ptr` must have room for `bytes` bytes on part k's device.
    pub unsafe fn recv(&self, k: usize, ptr: u64, bytes: usize, peer: usize, stream: &CudaStream) -> Result<()> {
        result::recv(
            ptr as _,
            bytes,
            sys::ncclDataType_t::ncclUint8,
            peer as i32,
            self.comms[k],
            stream.cu_stream() as _,
        )
        .map(|_| ())
        .map_err(|e| nccl_error("recv", e))
    }

    /// The maximum over all parts of the u64 at device address `ptr` of part `k`, in place.
    ///
    /// # Safety
    /// `ptr` must be one u64 on part k's device.
    pub unsafe fn max_u64(&self, k: usize, ptr: u64, stream: &CudaStream) -> Result<()> {
        result::all_reduce(
            ptr as _,
            ptr as _,
            1,
            sys::ncclDataType_t::ncclUint64,
            sys::ncclRedOp_t::ncclMax,
            self.comms[k],
            stream.cu_stream() as _,
        )
        .map(|_| ())
        .map_err(|e| nccl_error("all-reduce", e))
    }
}

impl Drop for Comms {
    fn drop(&mut self) {
        for &c in &self.comms {
            // SAFETY: each communicator was made by `new` and is destroyed once.
            unsafe {
                let _ = result::comm_destroy(c);
            }
        }
    }
}

/// Run `f` between ncclGroupStart and ncclGroupEnd (operations on several devices from one
/// thread, or several operations fused).
pub fn group(f: impl FnOnce() -> Result<()>) -> Result<()> {
    result::group_start().map_err(|e| nccl_error("group start", e))?;
    let r = f();
    result::group_end().map_err(|e| nccl_error("group end", e))?;
    r
}
