// Planes a stencil kernel stores straight into a neighbour device's ghost planes (peer access
// over NVLink; solver/src/grid/peer.rs, `PeerGroup::begin_push`), instead of a copy engine
// pulling them: under a stencil kernel that keeps HBM busy a copy engine moves a few tens of
// GB/s and the planes arrived after the kernel (BENCHMARKS.md, session 18); the kernel's own
// loads and stores take their share of the memory system with the rest of its traffic.
#pragma once
#include "common.cuh"

// Up to two contiguous pieces, in 16-byte units (the host pushes only 16-byte aligned pieces
// and passes count 0 where there is nothing to push). Mirrors `PushC` in grid/cuda.rs.
struct Push {
    const uint4* src[2];
    uint4* dst[2];
    u64 count[2];
};

// Every block of the grid copies its share of each piece: a few units a thread, spread over
// all blocks so that none of them ends late. The destination is read only after this kernel
// has ended (an event the neighbour's stream waits on), so no fence is needed here.
__device__ __forceinline__ void push_planes(const Push& push) {
    const u64 blocks = (u64)gridDim.x * gridDim.y * gridDim.z;
    const u64 block = blockIdx.x + (u64)gridDim.x * (blockIdx.y + (u64)gridDim.y * blockIdx.z);
    const u64 threads = (u64)blockDim.x * blockDim.y * blockDim.z;
    const u64 thread = threadIdx.x + (u64)blockDim.x * (threadIdx.y + (u64)blockDim.y * threadIdx.z);
    const u64 stride = blocks * threads;
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        for (u64 u = block * threads + thread; u < push.count[p]; u += stride) push.dst[p][u] = push.src[p][u];
    }
}
