// Reductions and copies shared by every case.
#include "common.cuh"
#include "reduce.cuh"

// Per-block max |x| (NaN propagates as NaN); the host finishes the reduction over blocks.
extern "C" __global__ void max_abs(const REAL* x, u64 n, REAL* block_out) {
    early_launch_entry();
    extern __shared__ unsigned char smem_raw[];
    REAL* s = (REAL*)smem_raw;
    REAL m = 0;
    for (u64 i = grid_start(); i < n; i += grid_stride()) m = max_nan(m, fabs(x[i]));
    block_max_nan(s, m);
    if (threadIdx.x == 0) block_out[blockIdx.x] = s[0];
}

// Streaming copy, to measure the device's copy bandwidth in the same run as a benchmark.
extern "C" __global__ void copy_kernel(const REAL* __restrict__ src, REAL* __restrict__ dst, u64 n) {
    early_launch_entry();
    for (u64 i = grid_start(); i < n; i += grid_stride()) dst[i] = src[i];
}
