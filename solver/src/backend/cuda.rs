//! CUDA device: context, streams and events (cudarc, libcuda loaded at run time), kernel
//! modules compiled by NVRTC for the device's architecture (cached), and shared reductions.
//!
//! Work goes to `stream` (compute) unless a family overlaps communication with it on `aux`
//! (halo exchange, copies): `record` an event on one stream and `wait` for it on the other.

use crate::error::{Result, SolverError};
pub use crate::framework::target::Device;
use crate::real::Real;
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg,
};
use kernels::Kernel;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A loaded kernel ([`Device::function`]). Every kernel begins with `early_launch_entry()`
/// (common.cuh; a kernels-crate test checks it), so launched through
/// [`EarlyFunction::builder`] on a device that allows it, it may be launched before the kernel
/// ahead of it on the stream has ended (programmatic dependent launch): its blocks take the SMs
/// as that kernel's retire and wait there until it has ended and its writes are visible, so
/// the next of a step's short kernels starts without the launch's latency. Elsewhere it is
/// launched the usual way.
pub struct EarlyFunction {
    f: CudaFunction,
    early: bool,
}

/// The arguments of one launch of an [`EarlyFunction`], pushed as to cudarc's `launch_builder`
/// (`PushKernelArg`): each a value the kernel takes, borrowed until the launch.
pub struct EarlyLaunch<'a> {
    f: &'a EarlyFunction,
    stream: &'a CudaStream,
    args: Vec<*mut std::ffi::c_void>,
}

impl EarlyFunction {
    /// The loaded function (for its attributes).
    pub fn function(&self) -> &CudaFunction {
        &self.f
    }

    pub fn builder<'a>(&'a self, stream: &'a CudaStream) -> EarlyLaunch<'a> {
        EarlyLaunch {
            f: self,
            stream,
            args: Vec::new(),
        }
    }
}

// SAFETY: as cudarc's own: the value is borrowed until the launch, which passes its address.
unsafe impl<'a, T: DeviceRepr> PushKernelArg<&'a T> for EarlyLaunch<'a> {
    fn arg(&mut self, value: &'a T) -> &mut Self {
        self.args.push(value as *const T as *mut std::ffi::c_void);
        self
    }
}

impl EarlyLaunch<'_> {
    /// # Safety
    /// As cudarc's `LaunchArgs::launch`: the arguments must be the kernel's, in its order and
    /// types, and `cfg` the launch it expects.
    pub unsafe fn launch(&mut self, cfg: LaunchConfig) -> Result<()> {
        use cudarc::driver::sys;
        self.stream.context().bind_to_thread()?;
        // SAFETY: a union of plain values; the one set is the one the attribute's id names.
        let mut value: sys::CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
        value.programmaticStreamSerializationAllowed = 1;
        let mut attr = sys::CUlaunchAttribute {
            id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
            pad: [0; 4],
            value,
        };
        let config = sys::CUlaunchConfig {
            gridDimX: cfg.grid_dim.0,
            gridDimY: cfg.grid_dim.1,
            gridDimZ: cfg.grid_dim.2,
            blockDimX: cfg.block_dim.0,
            blockDimY: cfg.block_dim.1,
            blockDimZ: cfg.block_dim.2,
            sharedMemBytes: cfg.shared_mem_bytes,
            hStream: self.stream.cu_stream(),
            attrs: &mut attr,
            numAttrs: self.f.early as u32,
        };
        // SAFETY: the caller vouches for the arguments and the configuration; the attribute
        // is only given where every kernel waits for the one ahead of it (common.cuh).
        unsafe {
            sys::cuLaunchKernelEx(
                &config,
                self.f.f.cu_function(),
                self.args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
            .result()?
        };
        Ok(())
    }
}

/// Whether the CUDA driver library can be loaded at all.
pub fn driver_present() -> bool {
    // SAFETY: only probes for the shared library.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Devices visible to the driver, or why there are none.
pub fn list() -> std::result::Result<Vec<(usize, String, String, usize)>, String> {
    if !driver_present() {
        return Err("no CUDA driver (libcuda.so) on this machine".into());
    }
    let n = CudaContext::device_count().map_err(|e| format!("the CUDA driver reports an error: {e:?}"))?;
    if n == 0 {
        return Err("the CUDA driver is present but sees no device".into());
    }
    (0..n as usize)
        .map(|i| {
            let d = Device::open(i).map_err(|e| e.to_string())?;
            Ok((i, d.name.clone(), d.arch.clone(), d.total_mem))
        })
        .collect()
}

impl Device {
    pub fn open(ordinal: usize) -> Result<Arc<Device>> {
        if !driver_present() {
            return Err(SolverError::Cuda(
                "no CUDA driver (libcuda.so) on this machine; use --backend cpu".into(),
            ));
        }
        let ctx = CudaContext::new(ordinal)?;
        // Buffers are passed to kernels as raw pointers (stage 3 of a Runge-Kutta step reads
        // and writes the same array) and ordering across streams is explicit (events), so
        // cudarc's per-buffer event tracking is not needed.
        // SAFETY: work on `aux` is ordered against `stream` by the callers' events.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        // High priority: communication on `aux` (e.g. NCCL's kernels) gets SMs as soon as blocks
        // of the compute kernel it overlaps retire, instead of after the whole kernel.
        let (_, greatest) = cudarc::driver::result::stream::get_priority_range()?;
        let aux = ctx.new_stream_with_priority(greatest)?;
        let (major, minor) = ctx.compute_capability()?;
        let sm_count =
            ctx.attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        Ok(Arc::new(Device {
            name: ctx.name()?,
            arch: format!("sm_{major}{minor}"),
            sm_count,
            total_mem: ctx.total_mem()?,
            early_launch: major >= 9 && std::env::var("CFD_EARLY_LAUNCH").as_deref() != Ok("0"),
            ctx,
            stream,
            aux,
            modules: Mutex::new(HashMap::new()),
        }))
    }

    /// A kernel compiled for precision `T` with extra `-D` defines (loaded once per run; the
    /// CUBIN for this device's architecture cached on disk between runs, so that a warm cache
    /// loads without NVRTC or the driver's JIT; the PTX where the driver refuses the CUBIN).
    pub fn function<T: Real>(&self, kernel: Kernel, defines: &[(&str, &str)]) -> Result<EarlyFunction> {
        Ok(EarlyFunction {
            f: self.load::<T>(kernel, defines)?,
            early: self.early_launch,
        })
    }

    fn load<T: Real>(&self, kernel: Kernel, defines: &[(&str, &str)]) -> Result<CudaFunction> {
        let module = kernel.module;
        let key = (module, T::KERNEL, format!("{defines:?}"));
        let mut cache = self.modules.lock().unwrap();
        let m = match cache.get(&key) {
            Some(m) => m.clone(),
            None => {
                let t = std::time::Instant::now();
                let (image, cached) = kernels::image(module, T::KERNEL, &self.arch, defines)?;
                let loaded = match image {
                    kernels::Image::Cubin(bytes) => self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(bytes)),
                    kernels::Image::Ptx(ptx) => self.ctx.load_module(ptx),
                };
                let m = match loaded {
                    Ok(m) => m,
                    // e.g. a CUBIN of a newer NVRTC than the driver: its PTX, JIT-compiled.
                    Err(_) => {
                        let (ptx, _) = kernels::compile(module, T::KERNEL, &self.arch, defines)?;
                        self.ctx.load_module(ptx)?
                    }
                };
                crate::framework::timing::add_kernel_load(t.elapsed(), cached);
                cache.insert(key, m.clone());
                m
            }
        };
        Ok(m.load_function(kernel.name)?)
    }

    pub fn upload<T: Real>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        Ok(self.stream.clone_htod(host)?)
    }

    pub fn download<T: Real>(&self, dev: &CudaSlice<T>) -> Result<Vec<T>> {
        Ok(self.stream.clone_dtoh(dev)?)
    }

    pub fn zeros<T: Real>(&self, n: usize) -> Result<CudaSlice<T>> {
        Ok(self.stream.alloc_zeros::<T>(n)?)
    }

    /// The raw device address of a buffer (kernels take raw pointers, see `open`).
    pub fn ptr<T>(&self, s: &CudaSlice<T>) -> u64 {
        let (p, _sync) = s.device_ptr(&self.stream);
        p
    }

    /// Wait for both streams.
    pub fn sync(&self) -> Result<()> {
        self.aux.synchronize()?;
        Ok(self.stream.synchronize()?)
    }

    /// An event marking the work queued so far on `on`.
    pub fn record(&self, on: &CudaStream) -> Result<CudaEvent> {
        Ok(on.record_event(None)?)
    }

    /// Make `on` wait (on the device, not the host) for the work `event` marks.
    pub fn wait(&self, on: &CudaStream, event: &CudaEvent) -> Result<()> {
        Ok(on.wait(event)?)
    }

    /// max |x| over a device buffer (NaN if any element is NaN).
    pub fn max_abs<T: Real>(&self, x: &CudaSlice<T>) -> Result<f64> {
        let f = self.function::<T>(kernels::reduce::MAX_ABS, &[])?;
        let n = x.len() as u64;
        let blocks = (n.div_ceil(256) as u32).clamp(1, 4 * self.sm_count.max(1));
        let out = self.zeros::<T>(blocks as usize)?;
        let (xp, op) = (self.ptr(x), self.ptr(&out));
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 256 * std::mem::size_of::<T>() as u32,
        };
        // SAFETY: x holds n values, out holds `blocks` values; shared memory sized for 256 T.
        unsafe { f.builder(&self.stream).arg(&xp).arg(&n).arg(&op).launch(cfg)? };
        let partial = self.download(&out)?;
        Ok(partial.iter().fold(0.0f64, |m, v| {
            let v = v.f64();
            if v.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(v)
            }
        }))
    }

    /// dst = src on the compute stream by `f`, the streaming copy kernel (`reduce::COPY`).
    fn stream_copy(&self, f: &EarlyFunction, src: &CudaSlice<f64>, dst: &CudaSlice<f64>) -> Result<()> {
        let (sp, dp, nn) = (self.ptr(src), self.ptr(dst), src.len().min(dst.len()) as u64);
        let cfg = LaunchConfig {
            grid_dim: (8 * self.sm_count, 1, 1),
            block_dim: (512, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: both buffers hold at least nn doubles.
        unsafe { f.builder(&self.stream).arg(&sp).arg(&dp).arg(&nn).launch(cfg)? };
        Ok(())
    }

    /// Whether an event orders work on `aux` after work on `stream`: a streaming copy on the
    /// compute stream, an event, and a copy of its result on `aux` that waits for the event.
    /// (The overlap of halo exchange with compute relies on it.)
    pub fn streams_ordered(&self) -> Result<bool> {
        let n = 1 << 24;
        let ones = self.upload(&vec![1.0f64; n])?;
        let mid = self.zeros::<f64>(n)?;
        let mut out = self.zeros::<f64>(n)?;
        self.sync()?;
        let copy = self.function::<f64>(kernels::reduce::COPY, &[])?;
        self.stream_copy(&copy, &ones, &mid)?;
        self.wait(&self.aux, &self.record(&self.stream)?)?;
        self.aux.memcpy_dtod(&mid, &mut out)?;
        self.sync()?;
        Ok(self.aux.clone_dtoh(&out)?.iter().all(|&v| v == 1.0))
    }

    /// Device-to-device copy bandwidth (read + write bytes per second) over `bytes`-sized
    /// buffers, best of `reps`, with the same kind of streaming kernel the stencils are.
    pub fn copy_bandwidth(&self, bytes: usize, reps: usize) -> Result<f64> {
        let n = bytes / 8;
        let src = self.zeros::<f64>(n)?;
        let dst = self.zeros::<f64>(n)?;
        let copy = self.function::<f64>(kernels::reduce::COPY, &[])?;
        let mut best = f64::INFINITY;
        for _ in 0..reps + 1 {
            self.sync()?;
            let t = std::time::Instant::now();
            self.stream_copy(&copy, &src, &dst)?;
            self.sync()?;
            best = best.min(t.elapsed().as_secs_f64());
        }
        Ok(2.0 * (n * 8) as f64 / best)
    }
}

/// The device clock of families that find their step size on the device
/// (kernels/cuda/clock.cuh): a batch of steps is queued, each step's kernels read the step
/// to take from it and a one-thread kernel of the family advances it, with one round trip to
/// the host per batch.
pub struct DeviceClock {
    pub buf: CudaSlice<f64>,
    /// The mean step of the last batch that took one (`batch_steps`).
    pace: Option<f64>,
}

/// How many of `max_steps` steps to queue from `time` towards `until`: steps past `until` are
/// queued all the same and do nothing but copy the state, so a batch is cut to what the last
/// batch's mean step `pace` suggests, with a quarter and two steps to spare (a batch that ends
/// short costs one more round trip and changes no result).
pub fn batch_steps(pace: Option<f64>, time: f64, until: f64, max_steps: u64) -> u64 {
    match pace {
        Some(dt) if dt > 0.0 && until.is_finite() && until > time => {
            let n = ((until - time) / dt * 1.25).ceil().min(max_steps as f64) as u64;
            n.saturating_add(2).min(max_steps)
        }
        _ => max_steps,
    }
}

impl DeviceClock {
    const TIME: usize = 0;
    const DT: usize = 1;
    const STEPS: usize = 2;
    const BAD: usize = 3;
    const BAD_DT: usize = 4;
    const LEN: usize = 5;

    pub fn new(stream: &Arc<CudaStream>) -> Result<Self> {
        Ok(DeviceClock {
            buf: stream.alloc_zeros::<f64>(Self::LEN)?,
            pace: None,
        })
    }

    /// Where the run is, and the step about to be taken (0: none yet; the family's clock
    /// kernel finds it).
    pub fn set(&mut self, stream: &Arc<CudaStream>, clock: &crate::framework::Clock, dt: f64) -> Result<()> {
        let mut c = [0.0; Self::LEN];
        (c[Self::TIME], c[Self::DT], c[Self::STEPS]) = (clock.time, dt, clock.step as f64);
        stream.memcpy_htod(&c, &mut self.buf)?;
        Ok(())
    }

    /// Queue the family's one-thread clock kernel `f(clock, fold, cfl, until)`: advance by the
    /// step taken, then the next step from `fold` (the device address of the family's folded
    /// stable-step measure, which the kernel resets), cut onto `until`.
    pub fn queue_tick(
        &self,
        stream: &Arc<CudaStream>,
        f: &EarlyFunction,
        fold: u64,
        cfl: f64,
        until: f64,
    ) -> Result<()> {
        self.launch_tick(stream, f, fold, cfl, until, None::<&f64>)
    }

    /// As [`queue_tick`](Self::queue_tick) for a clock kernel that also takes the family's
    /// parameters, last: `f(clock, fold, cfl, until, params)` (Euler's, which divides the cell
    /// sizes by its folded speeds).
    pub fn queue_tick_with<P: DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        f: &EarlyFunction,
        fold: u64,
        cfl: f64,
        until: f64,
        params: &P,
    ) -> Result<()> {
        self.launch_tick(stream, f, fold, cfl, until, Some(params))
    }

    fn launch_tick<P: DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        f: &EarlyFunction,
        fold: u64,
        cfl: f64,
        until: f64,
        params: Option<&P>,
    ) -> Result<()> {
        let (clock, _sync) = self.buf.device_ptr(stream);
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = f.builder(stream);
        launch.arg(&clock).arg(&fold).arg(&cfl).arg(&until);
        if let Some(p) = params {
            launch.arg(p);
        }
        // SAFETY: clock is the clock's LEN doubles and `fold` the family's fold, as every
        // family's clock kernel takes them (kernels/cuda/clock.cuh), then its parameters where
        // it takes them; one thread.
        unsafe { launch.launch(one)? };
        Ok(())
    }

    /// How many of `max_steps` steps to queue from `clock` towards `until` ([`batch_steps`]).
    pub fn batch_steps(&self, clock: &crate::framework::Clock, until: f64, max_steps: u64) -> u64 {
        batch_steps(self.pace, clock.time, until, max_steps)
    }

    /// The clock the steps queued from `from` reached (waits for them), or the error of a step
    /// size that came out non-positive or not finite.
    pub fn reached(
        &mut self,
        stream: &Arc<CudaStream>,
        from: &crate::framework::Clock,
    ) -> Result<crate::framework::Clock> {
        let c = stream.clone_dtoh(&self.buf)?;
        let reached = crate::framework::Clock {
            step: c[Self::STEPS] as u64,
            time: c[Self::TIME],
        };
        if reached.step > from.step {
            self.pace = Some((reached.time - from.time) / (reached.step - from.step) as f64);
        }
        if c[Self::BAD] != 0.0 {
            return Err(SolverError::Other(format!(
                "the step size became {:e} at step {} (t = {:.6e}): the state is no longer sound",
                c[Self::BAD_DT],
                reached.step,
                reached.time
            )));
        }
        Ok(reached)
    }
}

#[cfg(test)]
mod tests {
    use super::batch_steps;

    /// A batch stops near its target: the last batch's pace with a quarter and two steps to
    /// spare, never more than asked; without a pace or a finite target, all it was asked.
    #[test]
    fn a_batch_is_cut_to_the_steps_its_target_needs() {
        assert_eq!(batch_steps(None, 0.0, 1.0, 256), 256);
        assert_eq!(batch_steps(Some(0.0625), 0.0, f64::INFINITY, 256), 256);
        assert_eq!(batch_steps(Some(0.0625), 0.0, 1.0, 256), 22); // 16 steps: 20 + 2
        assert_eq!(batch_steps(Some(0.0625), 0.0, 1.0, 10), 10);
        assert_eq!(batch_steps(Some(0.0625), 0.0, 100.0, 256), 256);
        assert_eq!(batch_steps(Some(0.0625), 1.0, 1.0, 256), 256);
        assert_eq!(batch_steps(Some(1.0), 0.0, 1e-9, 256), 3);
        assert_eq!(batch_steps(Some(0.0), 0.0, 1.0, 256), 256);
        assert_eq!(batch_steps(Some(0.0625), 0.0, 1.0, 1), 1);
    }
}
