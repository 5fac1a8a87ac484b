# Does a stream of device 1 waiting on an event of device 0, or a peer copy, block the host?
import time, cupy as cp
from cupy.cuda import runtime as rt
spin = r'''
extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}'''
mods = []
for d in (0, 1):
    with cp.cuda.Device(d):
        mods.append(cp.RawKernel(spin, "spin"))
with cp.cuda.Device(0):
    rt.deviceEnablePeerAccess(1)
    a = cp.zeros(1 << 20, dtype=cp.float64)
    s0 = cp.cuda.Stream(non_blocking=True)
with cp.cuda.Device(1):
    rt.deviceEnablePeerAccess(0)
    b = cp.zeros(1 << 20, dtype=cp.float64)
    s1 = cp.cuda.Stream(non_blocking=True)
    c1 = cp.cuda.Stream(non_blocking=True)
cyc = 2_000_000_000  # ~1 s at ~2 GHz
for trial in range(2):
    with cp.cuda.Device(0):
        mods[0]((1,), (1,), (cp.int64(cyc // 10),), stream=s0)  # ~0.1 s
        e0 = cp.cuda.Event(disable_timing=True)
        e0.record(s0)
    with cp.cuda.Device(1):
        t = time.perf_counter(); c1.wait_event(e0); tw = time.perf_counter() - t
        t = time.perf_counter()
        rt.memcpyPeerAsync(b.data.ptr, 1, a.data.ptr, 0, 8 << 20, c1.ptr)
        tc = time.perf_counter() - t
        e1 = cp.cuda.Event(disable_timing=True); e1.record(c1)
        t = time.perf_counter(); s1.wait_event(e1); ts = time.perf_counter() - t
        t = time.perf_counter(); c1.synchronize(); tsync = time.perf_counter() - t
    print(f"trial {trial}: host time of cross-device wait {tw*1e6:.1f} us, peer copy call {tc*1e6:.1f} us, "
          f"same-device wait {ts*1e6:.1f} us, then sync {tsync*1e3:.1f} ms (0.1 s kernel on device 0)")
# Round trip latency: ping-pong of tiny copies with cross-device event waits, no host sync.
with cp.cuda.Device(0):
    c0 = cp.cuda.Stream(non_blocking=True)
n = 200
for mode in ("events", "none"):
    cp.cuda.Device(0).synchronize(); cp.cuda.Device(1).synchronize()
    t = time.perf_counter()
    for i in range(n):
        with cp.cuda.Device(0):
            rt.memcpyPeerAsync(b.data.ptr, 1, a.data.ptr, 0, 4096, c0.ptr)
            ev = cp.cuda.Event(disable_timing=True); ev.record(c0)
        with cp.cuda.Device(1):
            if mode == "events": c1.wait_event(ev)
            rt.memcpyPeerAsync(a.data.ptr, 0, b.data.ptr, 1, 4096, c1.ptr)
            ev1 = cp.cuda.Event(disable_timing=True); ev1.record(c1)
        with cp.cuda.Device(0):
            if mode == "events": c0.wait_event(ev1)
    th = time.perf_counter() - t
    cp.cuda.Device(0).synchronize(); cp.cuda.Device(1).synchronize()
    tt = time.perf_counter() - t
    print(f"ping-pong {mode}: {n} rounds, host {th/n*1e6:.1f} us a round to enqueue, {tt/n*1e6:.1f} us a round in all")
