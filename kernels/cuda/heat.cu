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

// Coefficients of the 8th-order second derivative: c0 (centre), c1..c4 (symmetric pairs), in
// REAL: a bare double literal would promote every f32 stencil sum to f64 (F2F conversions and
// DFMAs: the f32 kernel ran at 60 % of copy, 71 % with these); the CPU rounds them to T too.
#define C0 ((REAL)(-205.0 / 72.0))
#define C1 ((REAL)(8.0 / 5.0))
#define C2 ((REAL)(-1.0 / 5.0))
#define C3 ((REAL)(8.0 / 315.0))
#define C4 ((REAL)(-1.0 / 560.0))

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
    early_launch_entry();
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
    early_launch_entry();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y;
    int k = blockIdx.z;
    if (i >= g.nx) return;
    u64 p = at(g, i, j, k);
    out[p] = combine(ca, A, cb, B, cs, S[p], p) + cl * R[p];
}

// ---- Register-queue solver (the thesis' third solver, after Micikevicius 2009) ------------
// A TX x TY tile of threads marches along z through `kchunk` planes (blockIdx.z picks the
// chunk, so small grids still fill the device): chunk c starts at plane kstart + c kstride and
// stops before kend (a part of a decomposed grid updates the planes beside its neighbours
// first, kstride = nz - kchunk, then its inner planes while their copies travel). Each thread computes VX consecutive columns
// (VX = 2: one 8-byte (f32) or 16-byte (f64) vector access instead of two, so each load
// instruction moves twice the bytes) of RY rows of the block's (TX VX) x (TY RY) tile (rows
// ty, ty + TY, ...), and keeps the 9 z-values of each of its columns in registers; the current
// x-y slice with a HALO-wide rim lives in shared memory. Global loads for the next plane (queue
// fronts, rims, pointwise arrays) are issued one plane ahead so their latency overlaps the
// current plane's arithmetic. Every point does the same arithmetic in the same order whatever
// the knobs, so the results do not depend on them.
#ifndef TX
#define TX 64
#endif
#ifndef TY
#define TY 4
#endif
#ifndef RY
#define RY 1
#endif
#ifndef VX
#define VX 1
#endif
#ifndef MINB
#define MINB 4
#endif
#define BX (TX * VX)
#define BY (TY * RY)

// One value or vector of T at a: through the caches, or (ONCE: the pointwise inputs A and B,
// read once) evict first, so the L2 keeps the stencil input whose rims and halo rows the
// neighbouring blocks read again.
template <bool ONCE, typename T> __device__ __forceinline__ T load_hinted(const T* a) { return ONCE ? __ldcs(a) : *a; }

// VX consecutive values at s[p..p+VX). The host uses VX = 2 only when nx is even; then p is
// even (rows start 128-byte aligned, even pitches) and the vector access is aligned.
template <bool ONCE = false> __device__ __forceinline__ void load_v(const REAL* s, u64 p, REAL (&o)[VX]) {
#if VX == 2
    if (sizeof(REAL) == 4) {
        const float2 t = load_hinted<ONCE>(reinterpret_cast<const float2*>(s + p));
        o[0] = t.x; o[1] = t.y;
    } else {
        const double2 t = load_hinted<ONCE>(reinterpret_cast<const double2*>(s + p));
        o[0] = t.x; o[1] = t.y;
    }
#else
    o[0] = load_hinted<ONCE>(s + p);
#endif
}

// The output, written once: evict first as well.
__device__ __forceinline__ void store_v(REAL* s, u64 p, const REAL (&v)[VX]) {
#if VX == 2
    if (sizeof(REAL) == 4) __stcs(reinterpret_cast<float2*>(s + p), make_float2(v[0], v[1]));
    else __stcs(reinterpret_cast<double2*>(s + p), make_double2(v[0], v[1]));
#else
    __stcs(s + p, v[0]);
#endif
}

// x (or y, z) in [-n, 2n) of a periodic axis, moved into [0, n): the interior value its ghost holds.
__device__ __forceinline__ int wrap_index(int x, int n) { return x < 0 ? x + n : (x >= n ? x - n : x); }

// The current plane's slice in shared memory, with HALO-wide rims.
typedef REAL RqTile[BY + 2 * HALO][BX + 2 * HALO];

// The queues advance one plane (q[r][v][8] from the next front nf) and the new current plane
// goes into the tile: the thread's columns, its x rims r0, r1 (xr) and its y rims r2, r3 (yr).
__device__ __forceinline__ void rq_advance(RqTile& tile, REAL (&q)[RY][VX][9], const REAL (&nf)[RY][VX],
    const REAL (&r0)[RY], const REAL (&r1)[RY], bool xr, bool yr, const REAL (&r2)[VX], const REAL (&r3)[VX]) {
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        const int ry = ty + r * TY + HALO;
#pragma unroll
        for (int v = 0; v < VX; ++v) {
#pragma unroll
            for (int m = 0; m < 8; ++m) q[r][v][m] = q[r][v][m + 1];
            q[r][v][8] = nf[r][v];
            tile[ry][tx * VX + v + HALO] = q[r][v][4];
        }
        if (xr) {
            tile[ry][tx] = r0[r];
            tile[ry][tx + BX + HALO] = r1[r];
        }
    }
    if (yr) {
#pragma unroll
        for (int v = 0; v < VX; ++v) {
            tile[ty][tx * VX + v + HALO] = r2[v];
            tile[ty + BY + HALO][tx * VX + v + HALO] = r3[v];
        }
    }
}

// Every row's points of the current plane written to out: ca A + cb B + cs S + cl L(S), L
// from the tile (the thread's row segments, its columns) and the queues q; then, where a
// plane follows (more), A and B of the next plane read into a, b, sz further on, and the
// columns p moved there.
__device__ __forceinline__ void rq_update(const Grid& g, const RqTile& tile, REAL* out, REAL ca, const REAL* A, REAL cb,
    const REAL* B, REAL cs, REAL cl, bool more, u64 sz, const bool (&inside)[RY], const bool (&wa)[RY],
    const bool (&wb)[RY], u64 (&p)[RY], const REAL (&q)[RY][VX][9], REAL (&a)[RY][VX], REAL (&b)[RY][VX]) {
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        if (inside[r]) {
            // The row segment this thread's x-stencils read, once for its VX columns.
            const int cy = ty + r * TY + HALO;
            REAL xs[VX + 2 * HALO];
#pragma unroll
            for (int m = 0; m < VX + 2 * HALO; ++m) xs[m] = tile[cy][tx * VX + m];
            REAL o[VX];
#pragma unroll
            for (int v = 0; v < VX; ++v) {
                const int cx = tx * VX + v + HALO, x = v + HALO;  // x: cx in xs
                const REAL c = q[r][v][4];
                REAL dx = C0 * c + C1 * (xs[x - 1] + xs[x + 1]) + C2 * (xs[x - 2] + xs[x + 2]) + C3 * (xs[x - 3] + xs[x + 3]) +
                          C4 * (xs[x - 4] + xs[x + 4]);
                REAL dy = C0 * c + C1 * (tile[cy - 1][cx] + tile[cy + 1][cx]) + C2 * (tile[cy - 2][cx] + tile[cy + 2][cx]) +
                          C3 * (tile[cy - 3][cx] + tile[cy + 3][cx]) + C4 * (tile[cy - 4][cx] + tile[cy + 4][cx]);
                REAL dz = C0 * c + C1 * (q[r][v][3] + q[r][v][5]) + C2 * (q[r][v][2] + q[r][v][6]) +
                          C3 * (q[r][v][1] + q[r][v][7]) + C4 * (q[r][v][0] + q[r][v][8]);
                REAL lap = g.ax * dx + g.ay * dy + g.az * dz;
                REAL w = cs * c;
                if (ca != (REAL)0) w += ca * a[r][v];
                if (cb != (REAL)0) w += cb * b[r][v];
                o[v] = w + cl * lap;
            }
            store_v(out, p[r], o);
        }
        // Pointwise inputs of the next plane (this thread's own columns: reading A after
        // writing out at this plane is safe even when out == A).
        if (more) {
            if (wa[r]) load_v<true>(A, p[r] + sz, a[r]);
            if (wb[r]) load_v<true>(B, p[r] + sz, b[r]);
        }
        p[r] += sz;
    }
}

// Row r of the thread's rows (tile row j0 + ty + r TY) before the march: whether it is inside
// and reads A and B (wa, wb), its x rims' offsets from a plane's start (xl, xh), its queue
// filled with planes k0 - HALO .. k0 + HALO - 1 and k0 + HALO as the next front (nf), its
// column p at plane k0 and the x rims (xr) and A, B there (pk: plane k0's offset). Column i
// (tile column i0 + tx), ic clamped or wrapped; wx, wy, wz: the periodic axes.
__device__ __forceinline__ void rq_start_row(const Grid& g, const REAL* S, REAL ca, const REAL* A, REAL cb,
    const REAL* B, int r, int tx, int ty, int i0, int j0, int i, int ic, int k0, u64 pk, bool xr, bool wx, bool wy,
    bool wz, bool (&inside)[RY], bool (&wa)[RY], bool (&wb)[RY], u64 (&p)[RY], u64 (&xl)[RY], u64 (&xh)[RY],
    REAL (&q)[RY][VX][9], REAL (&nf)[RY][VX], REAL (&r0)[RY], REAL (&r1)[RY], REAL (&a)[RY][VX], REAL (&b)[RY][VX]) {
    const int j = j0 + ty + r * TY;
    const int jc = j < g.ny ? j : (wy ? min(j - g.ny, g.ny - 1) : min(j, g.ny + HALO - 1));
    inside[r] = i < g.nx && j < g.ny;  // with VX = 2, nx is even: both columns or none
    wa[r] = inside[r] && ca != (REAL)0;
    wb[r] = inside[r] && cb != (REAL)0;
    const int il = i0 + tx - HALO, ih = i0 + BX + tx;
    xl[r] = at(g, wx ? wrap_index(il, g.nx) : il, jc, 0);
    xh[r] = at(g, wx ? min(wrap_index(ih, g.nx), g.nx - 1) : min(ih, g.nx + HALO - 1), jc, 0);
    const auto plane = [&](int kp) { return at(g, ic, jc, wz ? wrap_index(kp, g.nz) : kp); };
#pragma unroll
    for (int m = 1; m < 9; ++m) {
        REAL t[VX];
        load_v(S, plane(k0 - HALO + m - 1), t);
#pragma unroll
        for (int v = 0; v < VX; ++v) q[r][v][m] = t[v];
    }
    p[r] = at(g, ic, jc, k0);  // this thread's column at plane k0
    load_v(S, plane(k0 + HALO), nf[r]);
    r0[r] = xr ? S[xl[r] + pk] : 0;
    r1[r] = xr ? S[xh[r] + pk] : 0;
#pragma unroll
    for (int v = 0; v < VX; ++v) a[r][v] = b[r][v] = 0;
    if (wa[r]) load_v<true>(A, p[r], a[r]);
    if (wb[r]) load_v<true>(B, p[r], b[r]);
}

// wrap: bit a set where axis a is periodic on both faces. The stage then reads, for every
// ghost of that axis its stencil needs, the interior value the ghost would hold (rims, the
// columns and rows past the edge, the queue's planes), so no grid_halo pass is needed on it:
// the x pass re-read one sector per row (41 of the 77 us of halo per f64 stage at 512^3).
extern "C" __global__ void __launch_bounds__(TX * TY, MINB)
heat_rq_stage(Grid g, REAL* out, REAL ca, const REAL* A, REAL cb, const REAL* B, REAL cs, const REAL* __restrict__ S, REAL cl,
              int kstart, int kend, int kchunk, int kstride, int wrap) {
    early_launch_entry();
    __shared__ RqTile tile;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i0 = blockIdx.x * BX, j0 = blockIdx.y * BY;
    const int i = i0 + tx * VX;
    // Threads past the interior hold ghost columns (up to HALO beyond the edge), clamped to
    // the padded array, so the tile is correct wherever an inside thread reads it; on a
    // periodic axis they hold the interior values those ghosts stand for.
    const bool wx = wrap & 1, wy = wrap & 2, wz = wrap & 4;
    const int ic = i < g.nx ? i : (wx ? min(i - g.nx, g.nx - VX) : min(i, g.nx + HALO - VX));
    const u64 sz = (u64)g.px * g.py;
    const int k0 = kstart + blockIdx.z * kstride;
    const int k1 = min(kend, k0 + kchunk);
    if (k0 >= k1) return;

    // Rim columns this thread loads (x rims: tx < HALO, one pair of single columns per row; y
    // rims: ty < HALO, its own VX columns), as offsets from the plane start, so each plane's
    // rim is base + k * sz.
    const bool xr = tx < HALO, yr = ty < HALO;
    const int jl = j0 + ty - HALO, jh = j0 + BY + ty;
    const u64 yl = at(g, ic, wy ? wrap_index(jl, g.ny) : jl, 0);
    const u64 yh = at(g, ic, wy ? min(wrap_index(jh, g.ny), g.ny - 1) : min(jh, g.ny + HALO - 1), 0);
    bool inside[RY], wa[RY], wb[RY];
    u64 p[RY], xl[RY], xh[RY];
    // Queue along z: q[r][v][0..3] behind, q[r][v][4] current, q[r][v][5..8] in front.
    REAL q[RY][VX][9], nf[RY][VX], r0[RY], r1[RY], a[RY][VX], b[RY][VX];
    u64 pk = (u64)k0 * sz;
#pragma unroll
    for (int r = 0; r < RY; ++r) {
        rq_start_row(g, S, ca, A, cb, B, r, tx, ty, i0, j0, i, ic, k0, pk, xr, wx, wy, wz, inside, wa, wb, p, xl, xh, q, nf,
            r0, r1, a, b);
    }
    REAL r2[VX], r3[VX];
#pragma unroll
    for (int v = 0; v < VX; ++v) r2[v] = r3[v] = 0;
    if (yr) {
        load_v(S, yl + pk, r2);
        load_v(S, yh + pk, r3);
    }

    for (int k = k0; k < k1; ++k) {
        __syncthreads();  // everyone is done with the previous slice
        rq_advance(tile, q, nf, r0, r1, xr, yr, r2, r3);
        // Prefetch plane k + 1 (queue fronts and rims) while this plane is computed.
        const bool more = k + 1 < k1;
        pk += sz;
        if (more) {
#pragma unroll
            for (int r = 0; r < RY; ++r) {
                u64 front = p[r] + (HALO + 1) * sz;
                if (wz && k + 1 + HALO >= g.nz) front -= (u64)g.nz * sz;
                load_v(S, front, nf[r]);
                if (xr) { r0[r] = S[xl[r] + pk]; r1[r] = S[xh[r] + pk]; }
            }
            if (yr) { load_v(S, yl + pk, r2); load_v(S, yh + pk, r3); }
        }
        __syncthreads();
        rq_update(g, tile, out, ca, A, cb, B, cs, cl, more, sz, inside, wa, wb, p, q, a, b);
    }
}
