// The device-side bookkeeping of CG (cg.cu) that its preconditioners' kernels share (amg.cu):
// the layout of the scalars kept on the device, the flags, and the fixed-order block
// reductions whose last block finishes the sums (deterministic, run to run).
#pragma once
#include "common.cuh"

#define SC_BB 0     // ||b||^2 (original variables)
#define SC_RZ 1     // r_s . z of the current iterate (0 before the first)
#define SC_ALPHA 2
#define SC_BETA 3
#define SC_RES 4    // ||b - A x|| / ||b|| at the last check
#define SC_IT 5     // iterations done
#define SC_DONE 6   // 0 running, 1 converged, 2 breakdown (p.Ap <= 0 or not finite)
#define SC_PQ 7

// flags of cg_init / cg_update / cg_cheb_step
#define F_CHEB_FIRST 1u  // write the first Chebyshev iterate z = d = r / theta
#define F_Z_DONE 2u      // z is final after this kernel: finish r.z and beta
#define F_CHECK 4u       // compute ||b - A x|| and test it (cg_update)

__device__ __forceinline__ double warp_sum(double v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// Sum over the block, valid in thread 0; `sh` holds 32 doubles.
__device__ __forceinline__ double block_sum(double v, double* sh) {
    v = warp_sum(v);
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) sh[w] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.0;
    if (w == 0) v = warp_sum(v);
    return v;
}

// Writes the block's sums of v[0..m) to partial[k * gridDim.x + block]; returns (to every
// thread of the block) whether this block is the last to do so. The last block then finds
// every partial written.
template <int M>
__device__ bool publish(const double (&v)[M], double* partial, u32* counter) {
    __shared__ double sh[32];
    __shared__ bool last;
    for (int k = 0; k < M; ++k) {
        const double s = block_sum(v[k], sh);
        if (threadIdx.x == 0) partial[k * gridDim.x + blockIdx.x] = s;
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    return last;
}

// In the last block: the totals of the M partial sums (valid in thread 0), in a fixed order;
// the ticket counter is reset for the next kernel.
template <int M>
__device__ void totals(double (&t)[M], const double* partial, u32* counter) {
    __shared__ double sh[32];
    for (int k = 0; k < M; ++k) {
        double s = 0.0;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) s += __ldcg(&partial[k * gridDim.x + b]);
        t[k] = block_sum(s, sh);
    }
    if (threadIdx.x == 0) *counter = 0;
}

// The last block's bookkeeping when z is final: beta = r.z_new / r.z_old (0 the first time).
__device__ __forceinline__ void finish_rz(double* sc, double rz_new) {
    const double rz_old = sc[SC_RZ];
    sc[SC_BETA] = rz_old > 0.0 ? rz_new / rz_old : 0.0;
    sc[SC_RZ] = rz_new;
}

// Sums each thread's share of r.z over the grid (publish, then the last block's totals) and
// finishes beta with it: the tail of a kernel that writes the final z.
__device__ __forceinline__ void reduce_rz(double rz, double* sc, double* partial, u32* counter) {
    double acc[1] = {rz};
    if (!publish<1>(acc, partial, counter)) return;
    double t[1];
    totals<1>(t, partial, counter);
    if (threadIdx.x == 0) finish_rz(sc, t[0]);
}
