// Shared definitions for every kernel module. REAL is set by the host: -DREAL=float|double.
#pragma once
#ifndef REAL
#define REAL double
#endif

typedef unsigned int u32;
typedef unsigned long long u64;

// Programmatic dependent launch (Hopper and newer): the host may launch any kernel before the
// kernel ahead of it on the stream has ended (solver/src/backend/cuda.rs, EarlyLaunch), so every
// kernel begins with this (a test in kernels/src/lib.rs checks it). Its blocks wait here until
// that kernel has ended and its writes are visible, so no block reads anything first; then the
// kernel after it may be launched in turn. What it saves is the launch's latency between a
// step's short kernels. Launched the usual way, or before sm_90, it does nothing.
__device__ __forceinline__ void early_launch_entry() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
