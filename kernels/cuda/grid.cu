// Ghost values of a structured grid for every family and boundary condition: the same rule,
// value by value, as the CPU fill (solver/src/grid/halo.rs). One launch per axis, x then y
// then z, over the interior rows of the other two axes (faces, not edges and corners).
// One thread per (ghost layer, row) pair; consecutive threads touch consecutive memory: for the
// x axis the ghost layers of a row (one sector), for y and z the x index.
#include "grid.cuh"

__device__ __forceinline__ void fill_side(const Layout& g, REAL* f, int axis, int side, int layer, int idx[3],
                                          const Face& face, int comp) {
    const int N = g.n[axis];
    const int ghost = side == 0 ? -layer : N - 1 + layer;
    int src[3] = {idx[0], idx[1], idx[2]};
    idx[axis] = ghost;
    const u64 pg = grid_at(g, idx[0], idx[1], idx[2]);
    const int m = g.vertex ? layer : layer - 1;  // even reflection
    const int mirror = side == 0 ? m : N - 1 - m;
    switch (face.kind) {
        case BC_PERIODIC:
            src[axis] = side == 0 ? N - layer : layer - 1;
            f[pg] = f[grid_at(g, src[0], src[1], src[2])];
            break;
        case BC_DIRICHLET: {
            const REAL v = face.value[comp];
            src[axis] = mirror;
            f[pg] = (REAL)2 * v - f[grid_at(g, src[0], src[1], src[2])];
            if (g.vertex && layer == 1) {
                src[axis] = side == 0 ? 0 : N - 1;
                f[grid_at(g, src[0], src[1], src[2])] = v;
            }
            break;
        }
        case BC_REFLECT: {
            src[axis] = mirror;
            const REAL v = f[grid_at(g, src[0], src[1], src[2])];
            f[pg] = face.negate == comp ? -v : v;
            break;
        }
        case BC_OUTFLOW:
            src[axis] = side == 0 ? 0 : N - 1;
            f[pg] = f[grid_at(g, src[0], src[1], src[2])];
            break;
        default:  // BC_NEIGHBOUR: the halo exchange fills it
            break;
    }
}

extern "C" __global__ void grid_halo(Layout g, REAL* f, int axis, int components, Face lo, Face hi) {
    const u64 t = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    const int H = g.halo[axis];
    int idx[3];
    int layer;
    if (axis == 0) {
        if (t >= (u64)H * g.n[1] * g.n[2]) return;
        layer = (int)(t % H) + 1;
        const u64 r = t / H;
        idx[1] = (int)(r % g.n[1]);
        idx[2] = (int)(r / g.n[1]);
    } else {
        const int other = axis == 1 ? 2 : 1;
        if (t >= (u64)H * g.n[0] * g.n[other]) return;
        idx[0] = (int)(t % g.n[0]);
        const u64 r = t / g.n[0];
        idx[other] = (int)(r % g.n[other]);
        layer = (int)(r / g.n[other]) + 1;
    }
    for (int c = 0; c < components; ++c) {
        REAL* fc = f + (u64)c * g.cstride;
        int i0[3] = {idx[0], idx[1], idx[2]};
        fill_side(g, fc, axis, 0, layer, i0, lo, c);
        int i1[3] = {idx[0], idx[1], idx[2]};
        fill_side(g, fc, axis, 1, layer, i1, hi, c);
    }
}
