// Device helpers of the reductions and copies (reduce.cu), in a header so that any module
// reducing on the device finds them with the same NaN rule as the host's finish.
#pragma once
#include "common.cuh"

// First index and stride of a grid-stride loop over a 1D launch (64-bit: arrays may exceed
// 2^32 elements).
__device__ __forceinline__ u64 grid_start() { return blockIdx.x * (u64)blockDim.x + threadIdx.x; }
__device__ __forceinline__ u64 grid_stride() { return (u64)gridDim.x * blockDim.x; }

// max(a, b) where a NaN in b wins, so a NaN anywhere makes the maximum NaN (fmax would drop it).
__device__ __forceinline__ REAL max_nan(REAL a, REAL b) { return (b > a || b != b) ? b : a; }

// Tree reduction of the block's values m by max_nan in shared memory s (blockDim.x entries,
// blockDim.x a power of two): afterwards s[0] holds the block's maximum, seen by every thread.
__device__ __forceinline__ void block_max_nan(REAL* s, REAL m) {
    s[threadIdx.x] = m;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) {
            REAL o = s[threadIdx.x + w];
            REAL c = s[threadIdx.x];
            s[threadIdx.x] = max_nan(c, o);
        }
        __syncthreads();
    }
}
