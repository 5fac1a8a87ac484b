// Preconditioned conjugate gradients on the device (solver/src/numerics/linalg/cuda.rs).
//
// The system is solved in Jacobi-scaled form: A_s = D^-1/2 A D^-1/2 (unit diagonal, not
// stored), y = D^1/2 x, r_s = D^-1/2 (b - A x). CG on A_s is exactly Jacobi-PCG on A, so
// Jacobi costs nothing; Chebyshev-Jacobi is a fixed polynomial in A_s applied to r_s.
// The off-diagonal part is ELL (slot-major: entry k of row i at k*n + i, padding col = i,
// value 0) when `ell` > 0, else CSR (rowptr).
//
// Every scalar stays on the device in `sc` (layout SC_* in krylov.cuh): each kernel that reduces
// writes per-block partial sums, and the last block to finish (a ticket on `counter`) sums
// them in a fixed order (deterministic, run to run) and updates the scalars for the next
// kernel. Once sc[SC_DONE] is set every kernel returns at once, so the host may queue
// iterations ahead and look at the residual only now and then.
// Every kernel is launched with CG_BLOCK threads per block and a fixed grid (grid-stride).
#include "common.cuh"
#include "krylov.cuh"
#include "reduce.cuh"

#define CG_BLOCK 256

// The off-diagonal part of row i of A_s applied to the vector whose entry j is v(j).
template <class F>
__device__ __forceinline__ double offdiag(u64 i, u64 n, const u32* __restrict__ rowptr, const u32* __restrict__ cols,
                                          const double* __restrict__ vals, u32 ell, F v) {
    double s = 0.0;
    if (ell == 4) {
#pragma unroll
        for (u32 k = 0; k < 4; ++k) {
            const u64 e = k * n + i;
            s += vals[e] * v(cols[e]);
        }
    } else if (ell > 0) {
        for (u32 k = 0; k < ell; ++k) {
            const u64 e = k * n + i;
            s += vals[e] * v(cols[e]);
        }
    } else {
        for (u32 e = rowptr[i]; e < rowptr[i + 1]; ++e) s += vals[e] * v(cols[e]);
    }
    return s;
}

// r = D^-1/2 b - A_s y with y = D^1/2 x (y written); sums ||b||^2, ||b - A x||^2 and r.z;
// with F_CHEB_FIRST, z = d = r * theta_inv (else z is r itself). The last block sets the
// initial residual, beta = 0 and r.z (if F_Z_DONE), and `done` when b = 0 or x already fits.
extern "C" __global__ void __launch_bounds__(CG_BLOCK) cg_init(
    const u32* __restrict__ rowptr, const u32* __restrict__ cols, const double* __restrict__ vals, u32 ell, u64 n,
    const double* __restrict__ b, const double* __restrict__ x, const double* __restrict__ sqd,
    double* __restrict__ y, double* __restrict__ r, double* __restrict__ z, double* __restrict__ d,
    double theta_inv, u32 flags, double tol, double* sc, double* partial, u32* counter) {
    early_launch_entry();
    double acc[3] = {0.0, 0.0, 0.0};
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        const double s = sqd[i], yi = s * x[i];
        const double ay = yi + offdiag(i, n, rowptr, cols, vals, ell, [&](u32 j) { return sqd[j] * x[j]; });
        const double ri = b[i] / s - ay;
        y[i] = yi;
        r[i] = ri;
        double zi = ri;
        if (flags & F_CHEB_FIRST) {
            zi = ri * theta_inv;
            z[i] = zi;
            d[i] = zi;
        }
        acc[0] += b[i] * b[i];
        acc[1] += (s * ri) * (s * ri);
        acc[2] += ri * zi;
    }
    if (!publish<3>(acc, partial, counter)) return;
    double t[3];
    totals<3>(t, partial, counter);
    if (threadIdx.x == 0) {
        const double res = t[0] > 0.0 ? sqrt(t[1] / t[0]) : 0.0;
        sc[SC_BB] = t[0];
        sc[SC_RES] = res;
        sc[SC_IT] = 0.0;
        sc[SC_BETA] = 0.0;
        sc[SC_ALPHA] = 0.0;
        sc[SC_RZ] = (flags & F_Z_DONE) ? t[2] : 0.0;
        sc[SC_DONE] = (t[0] == 0.0 || res <= tol) ? 1.0 : 0.0;
    }
}

// The new search direction p = z + beta p_old (written to p_new: neighbours still read
// p_old) and q = A_s p, with p.q summed; the last block sets alpha = r.z / p.q.
extern "C" __global__ void __launch_bounds__(CG_BLOCK) cg_dir_spmv(
    const u32* __restrict__ rowptr, const u32* __restrict__ cols, const double* __restrict__ vals, u32 ell, u64 n,
    const double* __restrict__ z, const double* __restrict__ p_old, double* __restrict__ p_new,
    double* __restrict__ q, double* sc, double* partial, u32* counter) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    const double beta = sc[SC_BETA];
    double acc[1] = {0.0};
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        double pi, qi;
        if (beta == 0.0) {
            pi = z[i];
            qi = pi + offdiag(i, n, rowptr, cols, vals, ell, [&](u32 j) { return z[j]; });
        } else {
            pi = z[i] + beta * p_old[i];
            qi = pi + offdiag(i, n, rowptr, cols, vals, ell, [&](u32 j) { return z[j] + beta * p_old[j]; });
        }
        p_new[i] = pi;
        q[i] = qi;
        acc[0] += pi * qi;
    }
    if (!publish<1>(acc, partial, counter)) return;
    double t[1];
    totals<1>(t, partial, counter);
    if (threadIdx.x == 0) {
        sc[SC_PQ] = t[0];
        if (t[0] > 0.0 && isfinite(t[0])) {
            sc[SC_ALPHA] = sc[SC_RZ] / t[0];
        } else {
            sc[SC_DONE] = 2.0;
        }
    }
}

// y += alpha p, r -= alpha q; sums r.z (z = r, or the first Chebyshev iterate written here
// with F_CHEB_FIRST) and, with F_CHECK, ||b - A x||^2 = sum d_i r_i^2. The last block counts
// the iteration, records and tests the residual (F_CHECK) and finishes beta (F_Z_DONE).
extern "C" __global__ void __launch_bounds__(CG_BLOCK) cg_update(
    u64 n, double* __restrict__ y, const double* __restrict__ p, double* __restrict__ r, const double* __restrict__ q,
    const double* __restrict__ sqd, double* __restrict__ z, double* __restrict__ d, double theta_inv, u32 flags,
    double tol, double* sc, double* hist, double* partial, u32* counter) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    const double alpha = sc[SC_ALPHA];
    double acc[2] = {0.0, 0.0};
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        y[i] += alpha * p[i];
        const double ri = r[i] - alpha * q[i];
        r[i] = ri;
        double zi = ri;
        if (flags & F_CHEB_FIRST) {
            zi = ri * theta_inv;
            z[i] = zi;
            d[i] = zi;
        }
        acc[0] += ri * zi;
        if (flags & F_CHECK) {
            const double s = sqd[i] * ri;
            acc[1] += s * s;
        }
    }
    if (!publish<2>(acc, partial, counter)) return;
    double t[2];
    totals<2>(t, partial, counter);
    if (threadIdx.x == 0) {
        const double it = sc[SC_IT] + 1.0;
        sc[SC_IT] = it;
        if (flags & F_CHECK) {
            const double res = sqrt(t[1] / sc[SC_BB]);
            sc[SC_RES] = res;
            hist[(u64)it - 1] = res;
            if (res <= tol) sc[SC_DONE] = 1.0;
        }
        if (flags & F_Z_DONE) finish_rz(sc, t[0]);
    }
}

// One Chebyshev step of the preconditioner (solving A_s z = r from z = 0): the residual
// s = r - A_s z_old, d = c1 d + c2 s, z_new = z_old + d (z_new apart: neighbours read z_old).
// With F_Z_DONE (the last step) r.z_new is summed and beta finished.
extern "C" __global__ void __launch_bounds__(CG_BLOCK) cg_cheb_step(
    const u32* __restrict__ rowptr, const u32* __restrict__ cols, const double* __restrict__ vals, u32 ell, u64 n,
    const double* __restrict__ r, const double* __restrict__ z_old, double* __restrict__ z_new, double* __restrict__ d,
    double c1, double c2, u32 flags, double* sc, double* partial, u32* counter) {
    early_launch_entry();
    if (sc[SC_DONE] != 0.0) return;
    double acc[1] = {0.0};
    for (u64 i = grid_start(); i < n; i += grid_stride()) {
        const double zo = z_old[i];
        const double az = zo + offdiag(i, n, rowptr, cols, vals, ell, [&](u32 j) { return z_old[j]; });
        const double di = c1 * d[i] + c2 * (r[i] - az);
        const double zn = zo + di;
        d[i] = di;
        z_new[i] = zn;
        acc[0] += r[i] * zn;
    }
    if (flags & F_Z_DONE) reduce_rz(acc[0], sc, partial, counter);
}

// x = D^-1/2 y (x = 0 when b = 0, as the CPU solver does).
extern "C" __global__ void __launch_bounds__(CG_BLOCK) cg_finish(u64 n, const double* __restrict__ y,
                                                                 const double* __restrict__ sqd, double* __restrict__ x,
                                                                 const double* sc) {
    early_launch_entry();
    const bool zero = sc[SC_BB] == 0.0;
    for (u64 i = grid_start(); i < n; i += grid_stride()) x[i] = zero ? 0.0 : y[i] / sqd[i];
}

// Plain y = A_s x (unit diagonal added), for tests and the traffic check of the SpMV alone.
extern "C" __global__ void __launch_bounds__(CG_BLOCK) cg_spmv(const u32* __restrict__ rowptr,
                                                               const u32* __restrict__ cols,
                                                               const double* __restrict__ vals, u32 ell, u64 n,
                                                               const double* __restrict__ x, double* __restrict__ y) {
    early_launch_entry();
    for (u64 i = grid_start(); i < n; i += grid_stride())
        y[i] = x[i] + offdiag(i, n, rowptr, cols, vals, ell, [&](u32 j) { return x[j]; });
}
