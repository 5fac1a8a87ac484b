// Ghost values of a structured grid for every family and boundary condition: the same rule,
// value by value, as the CPU fill (solver/src/grid/halo.rs). One launch per axis, x then y
// then z, over the interior rows of the other two axes (faces, not edges and corners).
// One thread per (component, ghost layer, row); consecutive threads touch consecutive memory: for
// the x axis the ghost layers of a row (one sector), for y and z the x index. A thread per
// component, not a loop over them: each ghost is a read then a write of the same array, so a
// thread's components went one DRAM round trip after another (8 us a launch for 4 components
// of a 1000-row face on an H100, ncu).
// No array (of the parameters or local) is indexed by a run-time value: that would put the
// kernel's parameters in local memory, several times the traffic of the ghosts themselves.
#include "grid.cuh"

__device__ __forceinline__ int pick(int axis, int a, int b, int c) { return axis == 0 ? a : (axis == 1 ? b : c); }

// Face value of component c (unrolled, so the parameter array keeps constant indices).
__device__ __forceinline__ REAL face_value(const Face& face, int c) {
    REAL v = face.value[0];
#pragma unroll
    for (int k = 1; k < BC_MAX_COMPONENTS; ++k) v = k == c ? face.value[k] : v;
    return v;
}

// The ghost `layer` on one side of a row: `row` is the address of value 0 along the axis,
// `stride` the distance between neighbours along it, N the values along it.
__device__ __forceinline__ void fill_side(REAL* f, long long row, long long stride, int N, int layer, int side,
                                          int vertex, const Face& face, int comp) {
    const int ghost = side == 0 ? -layer : N - 1 + layer;
    const int m = vertex ? layer : layer - 1;  // even reflection
    const int mirror = side == 0 ? m : N - 1 - m;
    const int edge = side == 0 ? 0 : N - 1;
    REAL* g = f + row + ghost * stride;
    switch (face.kind) {
        case BC_PERIODIC:
            *g = f[row + (side == 0 ? N - layer : layer - 1) * stride];
            break;
        case BC_DIRICHLET: {
            const REAL v = face_value(face, comp);
            *g = (REAL)2 * v - f[row + mirror * stride];
            if (vertex && layer == 1) f[row + edge * stride] = v;
            break;
        }
        case BC_REFLECT: {
            const REAL v = f[row + mirror * stride];
            *g = face.negate == comp ? -v : v;
            break;
        }
        case BC_OUTFLOW:
            *g = f[row + edge * stride];
            break;
        default:  // BC_NEIGHBOUR: the halo exchange fills it
            break;
    }
}

extern "C" __global__ void grid_halo(Layout g, REAL* f, int axis, int components, Face lo, Face hi) {
    early_launch_entry();
    const u64 all = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    const int H = pick(axis, g.halo[0], g.halo[1], g.halo[2]);
    const int N = pick(axis, g.n[0], g.n[1], g.n[2]);
    const u64 rows = axis == 0 ? (u64)g.n[1] * g.n[2] : (axis == 1 ? (u64)g.n[0] * g.n[2] : (u64)g.n[0] * g.n[1]);
    const u64 per = (u64)H * rows;  // threads a component
    if (all >= per * components) return;
    const int c = (int)(all / per);
    const u64 t = all % per;
    int i = 0, j = 0, k = 0, layer;
    if (axis == 0) {
        layer = (int)(t % H) + 1;
        const u64 r = t / H;
        j = (int)(r % g.n[1]);
        k = (int)(r / g.n[1]);
    } else if (axis == 1) {
        i = (int)(t % g.n[0]);
        const u64 r = t / g.n[0];
        k = (int)(r % g.n[2]);
        layer = (int)(r / g.n[2]) + 1;
    } else {
        i = (int)(t % g.n[0]);
        const u64 r = t / g.n[0];
        j = (int)(r % g.n[1]);
        layer = (int)(r / g.n[1]) + 1;
    }
    const long long row = (long long)grid_at(g, i, j, k);  // the axis's own index is 0 here
    const long long stride = axis == 0 ? 1 : (axis == 1 ? (long long)g.px : (long long)g.px * g.py);
    REAL* fc = f + (u64)c * g.cstride;
    fill_side(fc, row, stride, N, layer, 0, g.vertex, lo, c);
    fill_side(fc, row, stride, N, layer, 1, g.vertex, hi, c);
}
