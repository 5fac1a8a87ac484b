// Reductions and copies shared by every case.
#include "common.cuh"

// Per-block max |x| (NaN propagates as NaN); the host finishes the reduction over blocks.
extern "C" __global__ void max_abs(const REAL* x, u64 n, REAL* block_out) {
    extern __shared__ unsigned char smem_raw[];
    REAL* s = (REAL*)smem_raw;
    REAL m = 0;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        REAL v = fabs(x[i]);
        m = (v > m || v != v) ? v : m;
    }
    s[threadIdx.x] = m;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) {
            REAL o = s[threadIdx.x + w];
            REAL c = s[threadIdx.x];
            s[threadIdx.x] = (o > c || o != o) ? o : c;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) block_out[blockIdx.x] = s[0];
}

// Streaming copy, to measure the device's copy bandwidth in the same run as a benchmark.
extern "C" __global__ void copy_kernel(const REAL* __restrict__ src, REAL* __restrict__ dst, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) dst[i] = src[i];
}
