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

// The block's values m (float or double) folded by `op` (fmin or fmax: exact, so the order of the
// fold does not matter), the result in thread 0; `empty` is op's identity. Every thread of the
// block calls it, the block whole warps.
template <typename T, typename Op>
__device__ __forceinline__ T block_reduce(T m, T empty, Op op) {
    __shared__ T warps[32];
    for (int o = 16; o > 0; o >>= 1) m = op(m, __shfl_down_sync(0xffffffffu, m, o));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < (int)((blockDim.x + 31) >> 5) ? warps[lane] : empty;
        for (int o = 16; o > 0; o >>= 1) m = op(m, __shfl_down_sync(0xffffffffu, m, o));
    }
    return m;
}

// The block's maximum of non-negative m (float or double) folded into *slot, the bits of a
// double, by atomicMax on them (non-negative doubles order as their bits do; a NaN's bits exceed
// infinity's, so NaN wins, as it must); a block's 0 is not folded.
template <typename T>
__device__ __forceinline__ void block_max_into(T m, u64* slot) {
    m = block_reduce(m, (T)0, [](T a, T b) { return fmax(a, b); });
    if (threadIdx.x == 0 && m != (T)0) atomicMax(slot, (u64)__double_as_longlong((double)m));
}

// Non-negative floats and doubles (no NaN, no -0) order as their bits do: their maximum is the
// unsigned maximum of the bits, which Ampere and later reduce over a warp in one instruction
// (redux.sync) for 32 bits, and for 64 as the high word, then the low word among the lanes that
// hold the highest (a shuffle tree before Ampere). Every lane of the warp calls it.
__device__ __forceinline__ unsigned warp_max_bits(unsigned b) {
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, b);
#else
    for (int o = 16; o > 0; o >>= 1) b = max(b, __shfl_xor_sync(0xffffffffu, b, o));
    return b;
#endif
}
__device__ __forceinline__ u64 warp_max_bits(u64 b) {
#if __CUDA_ARCH__ >= 800
    const unsigned hi = __reduce_max_sync(0xffffffffu, (unsigned)(b >> 32));
    const unsigned lo = __reduce_max_sync(0xffffffffu, (unsigned)(b >> 32) == hi ? (unsigned)b : 0u);
    return ((u64)hi << 32) | lo;
#else
    for (int o = 16; o > 0; o >>= 1) b = max(b, (u64)__shfl_xor_sync(0xffffffffu, (long long)b, o));
    return b;
#endif
}
__device__ __forceinline__ unsigned value_bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ u64 value_bits(double x) { return (u64)__double_as_longlong(x); }
__device__ __forceinline__ double bits_value(unsigned b) { return (double)__uint_as_float(b); }
__device__ __forceinline__ double bits_value(u64 b) { return __longlong_as_double((long long)b); }

// The block's maxima of non-negative values m[a] (float or double; no NaN, no -0), for each
// a < N marked in `mask`, folded into slots[a] (the bits of doubles) by atomicMax; a block's 0
// is not folded. Every thread of the block calls it, the block whole warps.
template <int N, typename T>
__device__ __forceinline__ void block_max_bits_into(const T* m, unsigned mask, u64* slots) {
    typedef decltype(value_bits(m[0])) Bits;
    __shared__ Bits warps[N][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int a = 0; a < N; ++a) {
        if (!((mask >> a) & 1)) continue;
        const Bits top = warp_max_bits(value_bits(m[a]));
        if (lane == 0) warps[a][warp] = top;
    }
    __syncthreads();
    if (warp != 0) return;
#pragma unroll
    for (int a = 0; a < N; ++a) {
        if (!((mask >> a) & 1)) continue;
        const Bits top = warp_max_bits(lane < (int)((blockDim.x + 31) >> 5) ? warps[a][lane] : (Bits)0);
        if (lane == 0 && top != 0) atomicMax(slots + a, (u64)__double_as_longlong(bits_value(top)));
    }
}
