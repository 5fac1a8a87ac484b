// 3D heat equation, 8th-order central second derivative, Kutta's RK3 in the form
//   u1 = phi + dt/2 L(phi)
//   u2 = 3 phi - 2 u1 + 2 dt L(u1)
//   phi' = -phi/3 + u1 + u2/3 + dt/6 L(u2)
// (an exact rewrite of k1, k2, k3 that needs three arrays). Every stage is one call of
//   out = ca*A + cb*B + cs*S + cl*L(S),   L = alpha (D2x/hx^2 + D2y/hy^2 + D2z/hz^2)
// on padded arrays (HALO ghosts per side, x fastest); ghosts are filled by grid_halo (grid.cu) first.
// The CPU backend (solver/src/cases/heat/cpu.rs) does the same arithmetic in the same order.
#include "common.cuh"

// Stencil radius, and so the ghost (halo) width of the padded arrays: the 8th-order stencil
// reaches 4 points. Fixed by the coefficients below, not a tuning knob; the host's padding
// (the heat family's `RADIUS`, its halo width on the structured grid) must agree.
#define HALO 4

// Coefficients of the 8th-order second derivative: c0 (centre), c1..c4 (symmetric pairs).
#define C0 (-205.0 / 72.0)
#define C1 (8.0 / 5.0)
#define C2 (-1.0 / 5.0)
#define C3 (8.0 / 315.0)
#define C4 (-1.0 / 560.0)

struct Grid {
    int nx, ny, nz;   // interior points
    int px, py;       // padded pitches: px = row pitch (>= xo + nx + HALO), py = ny + 2 HALO
    int xo;           // offset of i = 0 in a row (>= HALO; rows start 128-byte aligned)
    REAL ax, ay, az;  // alpha / h^2 per axis
};

__device__ __forceinline__ u64 at(const Grid& g, int i, int j, int k) {
    return (u64)(i + g.xo) + (u64)g.px * ((u64)(j + HALO) + (u64)g.py * (u64)(k + HALO));
}

// Pointwise part of a stage; arrays with a zero coefficient are not read.
__device__ __forceinline__ REAL combine(REAL ca, const REAL* A, REAL cb, const REAL* B, REAL cs, REAL s, u64 p) {
    REAL v = cs * s;
    if (ca != (REAL)0) v += ca * A[p];
    if (cb != (REAL)0) v += cb * B[p];
    return v;
}

// ---- Naive solver (the thesis' second solver): one 1D stencil per direction --------------
// D2 along one axis of S, accumulated into R (R = D2x, R += D2y, R += D2z).
extern "C" __global__ void heat_naive_d2(Grid g, const REAL* __restrict__ S, REAL* __restrict__ R, int axis, int accumulate) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y;
    int k = blockIdx.z;
    if (i >= g.nx) return;
    u64 p = at(g, i, j, k);
    u64 st = axis == 0 ? 1 : (axis == 1 ? (u64)g.px : (u64)g.px * g.py);
    REAL a = axis == 0 ? g.ax : (axis == 1 ? g.ay : g.az);
    REAL d = C0 * S[p] + C1 * (S[p - st] + S[p + st]) + C2 * (S[p - 2 * st] + S[p + 2 * st]) +
             C3 * (S[p - 3 * st] + S[p + 3 * st]) + C4 * (S[p - 4 * st] + S[p + 4 * st]);
    d *= a;
    R[p] = accumulate ? R[p] + d : d;
}

// out = ca*A + cb*B + cs*S + cl*R
extern "C" __global__ void heat_naive_update(Grid g, REAL* out, REAL ca, const REAL* A, REAL cb, const REAL* B, REAL cs,
                                             const REAL* S, REAL cl, const REAL* R) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y;
    int k = blockIdx.z;
    if (i >= g.nx) return;
    u64 p = at(g, i, j, k);
    out[p] = combine(ca, A, cb, B, cs, S[p], p) + cl * R[p];
}

// ---- Register-queue solver (the thesis' third solver, after Micikevicius 2009) ------------
// A TX x TY tile of threads marches along z through `kchunk` planes (blockIdx.z picks the
// chunk, so small grids still fill the device). Each thread computes RY rows of the block's
// TX x (TY RY) tile (rows ty, ty + TY, ...) and keeps the 9 z-values of each of its columns in
// registers; the current x-y slice with a HALO-wide rim lives in shared memory. Global loads
// for the next plane (queue fronts, rims, pointwise arrays) are issued one plane ahead so
// their latency overlaps the current plane's arithmetic.
#ifndef TX
#define TX 64
#endif
#ifndef TY
#define TY 4
#endif
#ifndef RY
#define RY 1
#endif
#ifndef MINB
#define MINB 4
#endif
#define BY (TY * RY)
extern "C" __global__ void __launch_bounds__(TX * TY, MINB)
heat_rq_stage(Grid g, REAL* out, REAL ca, const REAL* A, REAL cb, const REAL* B, REAL cs, const REAL* __restrict__ S, REAL cl,
              int kchunk) {
    __shared__ REAL tile[BY + 2 * HALO][TX + 2 * HALO];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i0 = blockIdx.x * TX, j0 = blockIdx.y * BY;
    const int i = i0 + tx;
    // Threads past the interior hold ghost columns (up to HALO beyond the edge), clamped to
    // the padded array, so the tile is correct wherever an inside thread reads it.
    const int ic = min(i, g.nx + HALO - 1);
    const u64 sz = (u64)g.px * g.py;
    const int k0 = blockIdx.z * kchunk;
    const int k1 = min(g.nz, k0 + kchunk);
    if (k0 >= k1) return;

    // Rim columns this thread loads (x rims: tx < HALO, one pair per row; y rims: ty < HALO),
    // as offsets from the plane start, so each plane's rim is base + k * sz.
    const bool xr = tx < HALO, yr = ty < HALO;
    const u64 yl = at(g, ic, j0 + ty - HALO, 0), yh = at(g, ic, min(j0 + BY + ty, g.ny + HALO - 1), 0);
    bool inside[RY], wa[RY], wb[RY];
    u64 p[RY], xl[RY], xh[RY];
    // Queue along z: q[r][0..3] behind, q[r][4] current, q[r][5..8] in front.
    REAL q[RY][9], nf[RY], r0[RY], r1[RY], a[RY], b[RY];
    u64 pk = (u64)k0 * sz;
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        const int j = j0 + ty + r * TY;
        const int jc = min(j, g.ny + HALO - 1);
        inside[r] = i < g.nx && j < g.ny;
        wa[r] = inside[r] && ca != (REAL)0;
        wb[r] = inside[r] && cb != (REAL)0;
        xl[r] = at(g, i0 + tx - HALO, jc, 0);
        xh[r] = at(g, min(i0 + TX + tx, g.nx + HALO - 1), jc, 0);
        u64 pp = at(g, ic, jc, k0 - HALO);
#pragma unroll
        for (int m = 1; m < 9; ++m) q[r][m] = S[pp + (m - 1) * sz];
        p[r] = pp + HALO * sz;  // this thread's column at plane k0
        nf[r] = S[p[r] + HALO * sz];
        r0[r] = xr ? S[xl[r] + pk] : 0;
        r1[r] = xr ? S[xh[r] + pk] : 0;
        a[r] = wa[r] ? A[p[r]] : 0;
        b[r] = wb[r] ? B[p[r]] : 0;
    }
    REAL r2 = yr ? S[yl + pk] : 0, r3 = yr ? S[yh + pk] : 0;

    for (int k = k0; k < k1; ++k) {
        __syncthreads();  // everyone is done with the previous slice
#pragma unroll
        for (int r = 0; r < RY; ++r) {
#pragma unroll
            for (int m = 0; m < 8; ++m) q[r][m] = q[r][m + 1];
            q[r][8] = nf[r];
            const int ry = ty + r * TY + HALO;
            tile[ry][tx + HALO] = q[r][4];
            if (xr) {
                tile[ry][tx] = r0[r];
                tile[ry][tx + TX + HALO] = r1[r];
            }
        }
        if (yr) {
            tile[ty][tx + HALO] = r2;
            tile[ty + BY + HALO][tx + HALO] = r3;
        }
        // Prefetch plane k + 1 (queue fronts and rims) while this plane is computed.
        const bool more = k + 1 < k1;
        pk += sz;
        if (more) {
#pragma unroll
            for (int r = 0; r < RY; ++r) {
                nf[r] = S[p[r] + (HALO + 1) * sz];
                if (xr) { r0[r] = S[xl[r] + pk]; r1[r] = S[xh[r] + pk]; }
            }
            if (yr) { r2 = S[yl + pk]; r3 = S[yh + pk]; }
        }
        __syncthreads();

#pragma unroll
        for (int r = 0; r < RY; ++r) {
            if (inside[r]) {
                const int cx = tx + HALO, cy = ty + r * TY + HALO;
                const REAL c = q[r][4];
                REAL dx = C0 * c + C1 * (tile[cy][cx - 1] + tile[cy][cx + 1]) + C2 * (tile[cy][cx - 2] + tile[cy][cx + 2]) +
                          C3 * (tile[cy][cx - 3] + tile[cy][cx + 3]) + C4 * (tile[cy][cx - 4] + tile[cy][cx + 4]);
                REAL dy = C0 * c + C1 * (tile[cy - 1][cx] + tile[cy + 1][cx]) + C2 * (tile[cy - 2][cx] + tile[cy + 2][cx]) +
                          C3 * (tile[cy - 3][cx] + tile[cy + 3][cx]) + C4 * (tile[cy - 4][cx] + tile[cy + 4][cx]);
                REAL dz = C0 * c + C1 * (q[r][3] + q[r][5]) + C2 * (q[r][2] + q[r][6]) + C3 * (q[r][1] + q[r][7]) +
                          C4 * (q[r][0] + q[r][8]);
                REAL lap = g.ax * dx + g.ay * dy + g.az * dz;
                REAL v = cs * c;
                if (ca != (REAL)0) v += ca * a[r];
                if (cb != (REAL)0) v += cb * b[r];
                out[p[r]] = v + cl * lap;
            }
            // Pointwise inputs of the next plane (this thread's own column: reading A after
            // writing out at this plane is safe even when out == A).
            if (more) {
                if (wa[r]) a[r] = A[p[r] + sz];
                if (wb[r]) b[r] = B[p[r] + sz];
            }
            p[r] += sz;
        }
    }
}
