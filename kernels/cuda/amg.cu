// The smoothed-aggregation V-cycle as CG's preconditioner on the device
// (solver/src/numerics/linalg/amg/cuda.rs; the CPU's is amg/cycle.rs, same steps in the same
// order). REAL is the cycle's precision (float in the mixed mode, double otherwise); CG's
// vectors and scalars stay double (cg.cu): the finest level reads CG's residual in double
// (the *_cg kernels) and its last kernel writes z in double with r.z, finishing CG's beta.
//
// Matrices are SELL-32: rows in slices of 32, entry k of row i at ptr[i / 32] + 32 k + i % 32,
// so the 32 threads of a warp, one row each, read consecutive addresses; a slice is as wide
// as its longest row, padded with value 0 (column: the row itself, or 0 for the transfers).
// A level's matrix holds its off-diagonal entries; its diagonal is `diag` (null: 1, the
// finest level, which CG holds Jacobi-scaled) and the smoother's D^-1 is `dinv`.
//
// Chebyshev steps (Saad, algorithm 12.1, in D^-1 A), as the CPU: pre-smoothing from x = 0,
// d0 = D^-1 b / theta, x = d0, r = b - A d0, then per step d = c1 d + c2 D^-1 r, x += d,
// r -= A d; post-smoothing r = b - A x, d0 = D^-1 r / theta, x += d0, then the same steps.
// Every kernel returns at once when CG has finished (sc[SC_DONE]), like cg.cu's, so the host
// may queue iterations ahead. Grid-stride loops over rows with a block a multiple of 32, so
// each warp walks whole slices.
#include "common.cuh"
#include "krylov.cuh"
#include "reduce.cuh"

#define AMG_BLOCK 256

struct Sell {
    const u32* ptr;
    const u32* cols;
    const REAL* vals;
};

// Row i of the matrix applied to the vector whose entry j is x(j).
template <class F>
__device__ __forceinline__ REAL sell_row(const Sell& m, u64 i, F x) {
    const u32 lane = (u32)(i & 31u);
    const u32 end = m.ptr[(i >> 5) + 1];
    REAL s = 0;
    for (u32 e = m.ptr[i >> 5] + lane; e < end; e += 32) s += m.vals[e] * x(m.cols[e]);
    return s;
}

__device__ __forceinline__ REAL at_or_one(const REAL* v, u64 i) { return v ? v[i] : (REAL)1; }

// Pre-smoothing's first step from x = 0, on input b (B: REAL, or double on the finest level):
// d0 = D^-1 b / theta, r = b - A d0 (d0 of the neighbours from their b), x = d0; with `more`,
// also the second step's d1 = c1 d0 + c2 D^-1 r, x += d1 (d1 written for the next product).
template <class B>
__device__ __forceinline__ void pre_first(const Sell& a, const REAL* __restrict__ diag, const REAL* __restrict__ dinv,
                                          u64 n, const B* __restrict__ b, REAL* __restrict__ x, REAL* __restrict__ r,
                                          REAL* __restrict__ d, REAL theta_inv, REAL c1, REAL c2, u32 more) {
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        const REAL bi = (REAL)b[i], mi = at_or_one(dinv, i);
        const REAL d0 = bi * mi * theta_inv;
        const REAL ad = at_or_one(diag, i) * d0 +
                        sell_row(a, i, [&](u32 j) { return (REAL)b[j] * at_or_one(dinv, j) * theta_inv; });
        const REAL ri = bi - ad;
        r[i] = ri;
        if (more) {
            const REAL d1 = c1 * d0 + c2 * mi * ri;
            d[i] = d1;
            x[i] = d0 + d1;
        } else {
            x[i] = d0;
        }
    }
}

extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_pre_first(Sell a, const REAL* __restrict__ diag, const REAL* __restrict__ dinv, u64 n, const REAL* __restrict__ b,
                  REAL* __restrict__ x, REAL* __restrict__ r, REAL* __restrict__ d, REAL theta_inv, REAL c1, REAL c2,
                  u32 more, const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    pre_first(a, diag, dinv, n, b, x, r, d, theta_inv, c1, c2, more);
}

extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_pre_first_cg(Sell a, const REAL* __restrict__ diag, const REAL* __restrict__ dinv, u64 n,
                     const double* __restrict__ b, REAL* __restrict__ x, REAL* __restrict__ r, REAL* __restrict__ d,
                     REAL theta_inv, REAL c1, REAL c2, u32 more, const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    pre_first(a, diag, dinv, n, b, x, r, d, theta_inv, c1, c2, more);
}

// One product of a Chebyshev sweep: r -= A d_old; with `more`, d_new = c1 d_old + c2 D^-1 r
// and x += d_new (the last product of the pre-smoothing only updates r, the residual that is
// restricted).
extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_step(Sell a, const REAL* __restrict__ diag, const REAL* __restrict__ dinv, u64 n, REAL* __restrict__ x,
             REAL* __restrict__ r, const REAL* __restrict__ d_old, REAL* __restrict__ d_new, REAL c1, REAL c2, u32 more,
             const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        const REAL ad = at_or_one(diag, i) * d_old[i] + sell_row(a, i, [&](u32 j) { return d_old[j]; });
        const REAL ri = r[i] - ad;
        r[i] = ri;
        if (more) {
            const REAL dn = c1 * d_old[i] + c2 * at_or_one(dinv, i) * ri;
            d_new[i] = dn;
            x[i] += dn;
        }
    }
}

// b_c = R r: the restriction of the fine residual (R's rows are the coarse rows).
extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_restrict(Sell rm, u64 nc, const REAL* __restrict__ r, REAL* __restrict__ bc, const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    for (u64 i = grid_start(); i < nc; i += grid_stride()) bc[i] = sell_row(rm, i, [&](u32 j) { return r[j]; });
}

// x += P x_c: the coarse correction.
extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_prolong(Sell p, u64 n, const REAL* __restrict__ xc, REAL* __restrict__ x, const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    for (u64 i = grid_start(); i < n; i += grid_stride()) x[i] += sell_row(p, i, [&](u32 j) { return xc[j]; });
}

// Post-smoothing's first step: r = b - A x, d0 = D^-1 r / theta, x_out = x + d0 (a buffer of its
// own: the neighbours still read x); with `more`, nothing else (the next product needs d0 of
// every row).
template <class B>
__device__ __forceinline__ void post_first(const Sell& a, const REAL* __restrict__ diag, const REAL* __restrict__ dinv,
                                           u64 n, const B* __restrict__ b, const REAL* __restrict__ x,
                                           REAL* __restrict__ x_out, REAL* __restrict__ r, REAL* __restrict__ d,
                                           REAL theta_inv) {
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        const REAL xi = x[i];
        const REAL ax = at_or_one(diag, i) * xi + sell_row(a, i, [&](u32 j) { return x[j]; });
        const REAL ri = (REAL)b[i] - ax;
        const REAL d0 = at_or_one(dinv, i) * ri * theta_inv;
        r[i] = ri;
        d[i] = d0;
        x_out[i] = xi + d0;
    }
}

extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_post_first(Sell a, const REAL* __restrict__ diag, const REAL* __restrict__ dinv, u64 n,
                   const REAL* __restrict__ b, const REAL* __restrict__ x, REAL* __restrict__ x_out,
                   REAL* __restrict__ r, REAL* __restrict__ d, REAL theta_inv, const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    post_first(a, diag, dinv, n, b, x, x_out, r, d, theta_inv);
}

extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_post_first_cg(Sell a, const REAL* __restrict__ diag, const REAL* __restrict__ dinv, u64 n,
                      const double* __restrict__ b, const REAL* __restrict__ x, REAL* __restrict__ x_out,
                      REAL* __restrict__ r, REAL* __restrict__ d, REAL theta_inv, const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    post_first(a, diag, dinv, n, b, x, x_out, r, d, theta_inv);
}

// The finest level's last product: as amg_step with `more`, but x + d_new goes to CG's z (double)
// and r_cg . z is summed; the last block finishes CG's beta (krylov.cuh's finish_rz).
extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_step_cg(Sell a, const REAL* __restrict__ dinv, u64 n, const REAL* __restrict__ x, REAL* __restrict__ r,
                const REAL* __restrict__ d_old, REAL c1, REAL c2, const double* __restrict__ r_cg,
                double* __restrict__ z, double* sc, double* partial, u32* counter) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    double rz = 0.0;
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        const REAL ad = d_old[i] + sell_row(a, i, [&](u32 j) { return d_old[j]; });
        const REAL ri = r[i] - ad;
        const REAL dn = c1 * d_old[i] + c2 * at_or_one(dinv, i) * ri;
        const double zi = (double)(x[i] + dn);
        z[i] = zi;
        rz += r_cg[i] * zi;
    }
    reduce_rz(rz, sc, partial, counter);
}

// z = x in double with r_cg . z and beta, for a cycle whose last kernel is not amg_step_cg
// (one smoothing step, or no level above the coarsest).
extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_finish_z(u64 n, const REAL* __restrict__ x, const double* __restrict__ r_cg, double* __restrict__ z, double* sc,
                 double* partial, u32* counter) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    double rz = 0.0;
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        const double zi = (double)x[i];
        z[i] = zi;
        rz += r_cg[i] * zi;
    }
    reduce_rz(rz, sc, partial, counter);
}

// The coarsest level: x = A^-1 b by the dense inverse (row-major, nc x nc), one warp a row.
// B: REAL, or double when the coarsest level is the finest (CG's residual).
template <class B>
__device__ __forceinline__ void coarse(const REAL* __restrict__ inv, u64 nc, const B* __restrict__ b,
                                       REAL* __restrict__ x) {
    const u64 warp = grid_start() >> 5, warps = grid_stride() >> 5;
    const u32 lane = threadIdx.x & 31u;
    for (u64 i = warp; i < nc; i += warps) {
        REAL s = 0;
        for (u64 j = lane; j < nc; j += 32) s += inv[i * nc + j] * (REAL)b[j];
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (lane == 0) x[i] = s;
    }
}

extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_coarse(const REAL* __restrict__ inv, u64 nc, const REAL* __restrict__ b, REAL* __restrict__ x, const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    coarse(inv, nc, b, x);
}

extern "C" __global__ void __launch_bounds__(AMG_BLOCK)
    amg_coarse_cg(const REAL* __restrict__ inv, u64 nc, const double* __restrict__ b, REAL* __restrict__ x,
                  const double* sc) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    coarse(inv, nc, b, x);
}
