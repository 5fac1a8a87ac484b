// The compressible Euler equations on the structured grid (solver/src/cases/euler/): one
// dimensionally split MUSCL-Hancock sweep along an axis, or one unsplit PLM + SSP-RK3 stage
// with gravity, with the exact Riemann solver (riemann.cuh) or HLLC / HLL (hll.cuh); the
// hydrostatic ghosts of walls across gravity, the stable step's reduction and the positivity
// check. The same arithmetic in the same order as the CPU (muscl.rs, plm.rs, gas.rs,
// limiters.rs, riemann_exact.rs, riemann_hll.rs); compiled with --fmad=false.
// Conservative variables (rho, rho u, rho v, rho w, E), one component after another on the
// padded layout of grid.cuh; a state "in the frame of axis a" is [rho, rho u_a, rho u_a+1,
// rho u_a+2, E] (indices mod 3), as the CPU's gas.rs::frame.
#include "grid.cuh"
#include "riemann.cuh"
#include "hll.cuh"
#include "clock.cuh"
#include "reduce.cuh"

// Limiters (solver/src/numerics/fv/limiters.rs), by the host's code.
#define LIMITER_FIRST_ORDER 0
#define LIMITER_MINBEE 1
#define LIMITER_VAN_LEER 2
#define LIMITER_SUPERBEE 3
#define LIMITER_MINMOD 4
#define MINMOD_THETA 1.5  // limiters.rs, MINMOD_THETA

// Riemann solvers (solver/src/cases/euler/section.rs, Riemann), by the host's code.
#define RIEMANN_EXACT 0
#define RIEMANN_HLLC 1
#define RIEMANN_HLL 2

// The limiter and the Riemann solver: compiled in where the host defines them (one module per
// scheme: the other branches go, and the compiler schedules across what is left), else by the
// parameters' codes.
#ifdef EULER_LIMITER
#define LIMITER_OF(s) EULER_LIMITER
#else
#define LIMITER_OF(s) ((s).limiter)
#endif
#ifdef EULER_RIEMANN
#define RIEMANN_OF(s) EULER_RIEMANN
#else
#define RIEMANN_OF(s) ((s).riemann)
#endif

// What every kernel of this module takes (mirrors ParamsC in solver/src/cases/euler/cuda.rs).
struct Params {
    Layout g;
    REAL gamma;
    int axis;             // the sweep's axis
    int limiter;          // LIMITER_*
    int riemann;          // RIEMANN_*
    int P, W;             // the sweep's tile: P cells along the axis times W lines
    int active;           // bit a set: axis a has more than one cell (the stable step's axes)
    double hx, hy, hz;    // cell sizes
    int unsplit;          // the stable step of all axes at once (PLM + RK3)
    REAL wa, wb;          // the RK3 stage: out = wa u0 + wb (u + dt L(u)), dt the clock's
    REAL inv_h[3];        // 1 / cell size
    REAL grav[3];         // gravitational acceleration
    int tx, ty, tz;       // the RK3 stage's tile of cells (1 on an inactive axis)
};

template <typename T>
__device__ __forceinline__ T pick(int axis, T a, T b, T c) {
    return axis == 0 ? a : (axis == 1 ? b : c);
}

// The limited slope from the backward and forward differences (Toro eqs. 14.47-14.52).
__device__ __forceinline__ REAL slope(int limiter, REAL d_minus, REAL d_plus) {
    const REAL zero = (REAL)0, one = (REAL)1, two = (REAL)2, half = (REAL)0.5;
    if (limiter == LIMITER_FIRST_ORDER || d_plus == zero) return zero;
    if (limiter == LIMITER_MINMOD) {
        if (d_minus * d_plus <= zero) return zero;  // limiters.rs: no ratio needed
        const REAL theta = (REAL)MINMOD_THETA;
        const REAL m = fmin(fmin(theta * fabs(d_minus), theta * fabs(d_plus)), half * fabs(d_minus + d_plus));
        return d_plus > zero ? m : -m;
    }
    const REAL r = d_minus / d_plus;
    if (r <= zero) return zero;
    const REAL xi_r = two / (one + r);
    REAL xi;
    if (limiter == LIMITER_MINBEE) {
        xi = r <= one ? r : fmin(one, xi_r);
    } else if (limiter == LIMITER_VAN_LEER) {
        xi = fmin(two * r / (one + r), xi_r);
    } else {
        xi = r <= half ? two * r : (r <= one ? one : fmin(fmin(r, xi_r), two));
    }
    return xi * half * (d_minus + d_plus);
}

__device__ __forceinline__ bool sound(const REAL* v, REAL gamma) { return v[0] > (REAL)0 && pressure(v, gamma) > (REAL)0; }

// The boundary-extrapolated values l, r of cell u (neighbours um, up) evolved by half a step
// (Toro eqs. 14.32-14.34); first order (u at both faces) where they would not be sound.
__device__ __forceinline__ void evolved(const REAL* um, const REAL* u, const REAL* up, REAL lambda, REAL gamma,
                                        int limiter, REAL* l, REAL* r) {
    const REAL half = (REAL)0.5;
#pragma unroll
    for (int c = 0; c < 5; ++c) {
        const REAL s = slope(limiter, u[c] - um[c], up[c] - u[c]);
        l[c] = u[c] - half * s;
        r[c] = u[c] + half * s;
    }
    REAL fl[5], fr[5];
    flux(l, gamma, fl);
    flux(r, gamma, fr);
#pragma unroll
    for (int c = 0; c < 5; ++c) {
        const REAL d = half * lambda * (fl[c] - fr[c]);
        l[c] = l[c] + d;
        r[c] = r[c] + d;
    }
    if (!(sound(l, gamma) && sound(r, gamma))) {
#pragma unroll
        for (int c = 0; c < 5; ++c) {
            l[c] = u[c];
            r[c] = u[c];
        }
    }
}

// The Godunov flux between states l and r: the exact solution at x/t = 0, the transverse
// velocities from the upwind side (muscl.rs, godunov_flux; gas.rs, flux_of_primitive).
__device__ __forceinline__ void godunov_flux(const REAL* l, const REAL* r, REAL gamma, REAL* f) {
    const Prim wl = prim_of(l[0], l[1] / l[0], pressure(l, gamma));
    const Prim wr = prim_of(r[0], r[1] / r[0], pressure(r, gamma));
    const Prim w = godunov_state(wl, wr, gamma);
    const bool left = w.u >= (REAL)0;
    const REAL t0 = left ? l[2] / l[0] : r[2] / r[0];
    const REAL t1 = left ? l[3] / l[0] : r[3] / r[0];
    const REAL half = (REAL)0.5;
    const REAL m = w.rho * w.u;
    const REAL e = w.p / (gamma - (REAL)1) + half * w.rho * (w.u * w.u + t0 * t0 + t1 * t1);
    f[0] = m;
    f[1] = m * w.u + w.p;
    f[2] = m * t0;
    f[3] = m * t1;
    f[4] = w.u * (e + w.p);
}

// Offsets of the frame's components of `axis` in a padded array (component stride cs).
__device__ __forceinline__ void frame_offsets(int axis, u64 cs, u64* off) {
    off[0] = 0;
    off[1] = (u64)(1 + axis) * cs;
    off[2] = (u64)(1 + (axis + 1) % 3) * cs;
    off[3] = (u64)(1 + (axis + 2) % 3) * cs;
    off[4] = 4 * cs;
}

// A 2D grid's momentum across its plane (storage component EULER_ZERO_MOMENTUM, 1 + the inactive
// axis) when the host found it +0 in every cell: it stays +0 (its flux differences are +-0, and
// +0 - (+-0) = +0), so the sweeps neither read nor write it and the compiler drops its arithmetic.
// The sweep's frame then puts it last, [rho, m_axis, m_other, 0, E]: the other
// components see it only through the kinetic energy's sum of squares, where adding +0 is exact
// whatever the order, so every value is the bits of the frame cpu.rs uses.
#ifdef EULER_ZERO_MOMENTUM
#define ZERO_SLOT(c) ((c) == 3)
#else
#define ZERO_SLOT(c) false
#endif

// Offsets of the sweep's frame of `axis` (frame_offsets, or with a zero momentum that last).
__device__ __forceinline__ void sweep_frame_offsets(int axis, u64 cs, u64* off) {
#ifdef EULER_ZERO_MOMENTUM
    off[0] = 0;
    off[1] = (u64)(1 + axis) * cs;
    off[2] = (u64)(6 - (1 + axis) - EULER_ZERO_MOMENTUM) * cs;  // the momenta's components sum to 6
    off[3] = (u64)EULER_ZERO_MOMENTUM * cs;
    off[4] = 4 * cs;
#else
    frame_offsets(axis, cs, off);
#endif
}

// The Riemann flux between conservative states l and r in a face's frame, by s.riemann.
__device__ __forceinline__ void riemann_flux(int riemann, const REAL* l, const REAL* r, REAL gamma, REAL* f) {
    if (riemann == RIEMANN_HLLC) {
        hllc_flux(l, r, gamma, f);
    } else if (riemann == RIEMANN_HLL) {
        hll_flux(l, r, gamma, f);
    } else {
        godunov_flux(l, r, gamma, f);
    }
}

// The stable step (cpu.rs, stable_dt) is the minimum over cells of, split, min over the active
// axes a (bit a of `active`) of h_a / (|u_a| + c), the speed in REAL and the quotient in double,
// or, unsplit (PLM + RK3), 1 / sum_a (|u_a| + c) / h_a. Rounded division is monotone, so that is
// min_a h_a / (the maximum over cells of the speed along a), or 1 / (the maximum of the sum), to
// the bit: the kernels fold those maxima into `rates` (3 doubles' bits, 0 beforehand; split: one per
// axis, unsplit: the sum in rates[0]) and divide once (stable_from_rates), not a double division
// per cell and axis. A NaN speed or sum is passed over (as +0), as fmin and f64::min pass over a
// NaN quotient; every cell NaN gives +inf, as before. With the warp's maximum in one instruction
// (reduce.cuh, block_max_bits_into) the last sweep of the paper's 1000^2 step went from 39 to 35 us
// (f32, fast math; H100, ncu).

// The wave speed |u_a| + c of a state in the frame of axis a.
__device__ __forceinline__ REAL wave_speed(const Params& s, const REAL* v) {
    return fabs(v[1] / v[0]) + sqrt(s.gamma * pressure(v, s.gamma) / v[0]);
}

// The cell's speeds along the three axes (+0 on inactive ones, and for NaN) into `speed`, split;
// `frame_of(a, v)` gives the cell's state in the frame of axis a.
template <typename FrameOf>
__device__ __forceinline__ void cell_speeds(const Params& s, FrameOf frame_of, REAL* speed) {
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        speed[a] = (REAL)0;
        if (!((s.active >> a) & 1)) continue;
        REAL v[5];
        frame_of(a, v);
        const REAL w = wave_speed(s, v);
        speed[a] = w > (REAL)0 ? w : (REAL)0;
    }
}

// The cell's sum_a (|u_a| + c) / h_a over the active axes, unsplit; 0 for NaN.
template <typename FrameOf>
__device__ __forceinline__ double cell_rate(const Params& s, FrameOf frame_of) {
    double sum = 0.0;
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        if (!((s.active >> a) & 1)) continue;
        REAL v[5];
        frame_of(a, v);
        sum = sum + (double)wave_speed(s, v) / (a == 0 ? s.hx : (a == 1 ? s.hy : s.hz));
    }
    return sum > 0.0 ? sum : 0.0;
}

// The block's speeds folded into rates[a] for each active axis, one reduction for all.
__device__ __forceinline__ void fold_speeds(const Params& s, const REAL* speed, u64* rates) {
    block_max_bits_into<3>(speed, (unsigned)s.active, rates);
}

// The stable step from the folded maxima (the clock kernel's, and cuda.rs's stable_dt, which
// does the same on the host).
__device__ __forceinline__ double stable_from_rates(const Params& s, const u64* rates) {
    if (s.unsplit) return 1.0 / __longlong_as_double((long long)rates[0]);
    double m = __longlong_as_double(0x7ff0000000000000LL);
#pragma unroll
    for (int a = 0; a < 3; ++a)
        if ((s.active >> a) & 1) m = fmin(m, (a == 0 ? s.hx : (a == 1 ? s.hy : s.hz)) / __longlong_as_double((long long)rates[a]));
    return m;
}

// The speeds of a sweep's written cell (`updated`; its state v in the frame of s.axis), folded by
// the block into rates. The frame of axis a is that of s.axis rotated: its momenta are
// v[1 + (k + m) % 3] for k = (a - s.axis) mod 3 (picked, not indexed: no local memory); with a
// zero momentum (v[3]) the other active axis's frame swaps v[1] and v[2] (the same pressure).
__device__ __forceinline__ void fold_written(const Params& s, bool updated, const REAL* v, u64* rates) {
    REAL speed[3] = {0, 0, 0};
    if (updated) {
        cell_speeds(s, [&](int a, REAL* w) {
            const int k = (a - s.axis + 3) % 3;
            w[0] = v[0];
#ifdef EULER_ZERO_MOMENTUM
            w[1] = k == 0 ? v[1] : v[2];
            w[2] = k == 0 ? v[2] : v[1];
            w[3] = (REAL)0;
#else
            w[1] = k == 0 ? v[1] : (k == 1 ? v[2] : v[3]);
            w[2] = k == 0 ? v[2] : (k == 1 ? v[3] : v[1]);
            w[3] = k == 0 ? v[3] : (k == 1 ? v[1] : v[2]);
#endif
            w[4] = v[4];
        }, speed);
    }
    fold_speeds(s, speed, rates);
}

// One MUSCL-Hancock sweep along `axis`, u -> out (out of place: blocks read cells that
// their neighbours write), lambda = dt / h. A block is a tile of W lines x P cells; thread
// (w, p) owns cell C = s0 + p - 1 of its line: it evolves C's boundary-extrapolated values
// once (from cells C-1 .. C+1), the right one into shared memory, then solves the face between C - 1 and C
// (p >= 1: the right value of C - 1, the left value of C), and after the block's faces are
// in shared memory updates C (1 <= p <= P - 2) from its two faces: P - 2 cells per line and
// block (the cells at both ends of a tile are evolved twice, once by each tile). Along x the
// P cells are consecutive threads (W lines in y or z); along y and z the W lines are
// consecutive x (coalesced), P cells along the axis. Dynamic shared memory: 10 blockDim.x REAL.
// euler_sweep_fold (the step's last sweep): also the stable step of the cells written, folded into
// *fold as euler_stable_dt does, so that the next step needs no pass over the state of its own
// (19 us of the 85 a step of the paper's 1000^2 benchmark on an H100). Tried there and
// not kept, each made the sweep slower by the code it adds: the clock advanced by the last block
// to finish instead of euler_clock (+1.5 us a step), the axis's ghosts found from the interior
// instead of a fill launch before the sweep (+40 %); nor the cells the sweep writes
// next to a face also written into the next sweep's ghosts, so that its fill launch goes (2D
// only: 0.6 % off the 1000^2 step, within the noise; each sweep 2-5 us slower in ncu, as much as
// the two fills it saved; 3D 5 % slower), nor the clock's tick in a step's first sweep (two clock
// slots taking turns: +-1.5 %).
template <bool FOLD>
__device__ __forceinline__ void sweep(const Params& s, const REAL* __restrict__ u, REAL* __restrict__ out,
                                      const double* __restrict__ clock, u64* fold) {
    const Layout& g = s.g;
    const int axis = s.axis, P = s.P, W = s.W, limiter = LIMITER_OF(s);
    const double dt = clock[CLOCK_DT];
    const REAL lambda = (REAL)(dt / pick(axis, s.hx, s.hy, s.hz)), gamma = s.gamma;
    extern __shared__ unsigned char smem_raw[];
    const int t = threadIdx.x, nt = blockDim.x;
    REAL* Rs = (REAL*)smem_raw;  // [5][nt] the right values of the threads' cells
    REAL* F = Rs + 5 * nt;       // [5][nt] the flux of the face on each thread's left
    const int p = axis == 0 ? t % P : t / W;
    const int w = axis == 0 ? t / P : t % W;
    const int d = axis == 0 ? 1 : W;  // the thread of the next cell along the axis
    const int C = (int)blockIdx.x * (P - 2) + p - 1;
    const int line = (int)blockIdx.y * W + w;
    const int o = (int)blockIdx.z;
    const int N = pick(axis, g.n[0], g.n[1], g.n[2]);
    const int nw = axis == 0 ? g.n[1] : g.n[0];
    const bool live = t < P * W && line < nw && C <= N;
    const int i = axis == 0 ? C : line;
    const int j = axis == 1 ? C : (axis == 0 ? line : o);
    const int k = axis == 2 ? C : o;
    const long long st = axis == 0 ? 1 : (axis == 1 ? (long long)g.px : (long long)g.px * g.py);
    u64 off[5];
    sweep_frame_offsets(axis, g.cstride, off);
    const bool updated = live && p >= 1 && p <= P - 2 && C <= N - 1;
    REAL v[5];  // the updated cell's new state in the frame of `axis`
    if (!(dt > 0.0)) {  // past the batch's end (clock.cuh): the state stays
        if (updated) {
            const u64 at = grid_at(g, i, j, k);
#pragma unroll
            for (int c = 0; c < 5; ++c) {
                v[c] = ZERO_SLOT(c) ? (REAL)0 : u[at + off[c]];
                if (!ZERO_SLOT(c)) out[at + off[c]] = v[c];
            }
        }
        if (FOLD) fold_written(s, updated, v, fold);
        return;
    }
    REAL l[5] = {0, 0, 0, 0, 0}, r[5] = {0, 0, 0, 0, 0};
    long long base = 0;
    if (live) {
        base = (long long)grid_at(g, i, j, k);
        REAL q[3][5];  // C - 1 .. C + 1; C itself is read again for its update (fewer registers)
#pragma unroll
        for (int m = 0; m < 3; ++m)
#pragma unroll
            for (int c = 0; c < 5; ++c) q[m][c] = ZERO_SLOT(c) ? (REAL)0 : u[(u64)(base + (m - 1) * st) + off[c]];
        evolved(q[0], q[1], q[2], lambda, gamma, limiter, l, r);
    }
#pragma unroll
    for (int c = 0; c < 5; ++c)
        if (!ZERO_SLOT(c)) Rs[c * nt + t] = r[c];
    __syncthreads();
    REAL f[5] = {0, 0, 0, 0, 0};
    if (live && p >= 1) {
        REAL rl[5];
#pragma unroll
        for (int c = 0; c < 5; ++c) rl[c] = ZERO_SLOT(c) ? (REAL)0 : Rs[c * nt + t - d];
        riemann_flux(RIEMANN_OF(s), rl, l, gamma, f);
    }
#pragma unroll
    for (int c = 0; c < 5; ++c)
        if (!ZERO_SLOT(c)) F[c * nt + t] = f[c];
    __syncthreads();
    if (updated) {
#pragma unroll
        for (int c = 0; c < 5; ++c) {
            if (ZERO_SLOT(c)) {
                v[c] = (REAL)0;
                continue;
            }
            v[c] = u[(u64)base + off[c]] - lambda * (F[c * nt + t + d] - f[c]);
            out[(u64)base + off[c]] = v[c];
        }
    }
    if (FOLD) fold_written(s, updated, v, fold);
}

// Blocks an SM (the register cap): measured on an H100 and an H200 (4 and 2 before); in f32
// with a zero momentum (2D) 6, 0.7 % faster with fast math and 1.4 % exact than 7 (H100).
#ifndef EULER_SWEEP_MINB
#ifdef EULER_ZERO_MOMENTUM
#define EULER_SWEEP_MINB (sizeof(REAL) == 4 ? 6 : 3)
#else
#define EULER_SWEEP_MINB (sizeof(REAL) == 4 ? 7 : 3)
#endif
#endif
extern "C" __global__ void __launch_bounds__(256, EULER_SWEEP_MINB) euler_sweep(Params s, const REAL* __restrict__ u,
    REAL* __restrict__ out, const double* __restrict__ clock) {
    early_launch_entry();
    sweep<false>(s, u, out, clock, nullptr);
}

// The step's last sweep: the same, and the fold (a kernel of its own: the fold's code in every
// sweep cost the others registers, f64 3D 28 % slower).
extern "C" __global__ void __launch_bounds__(256, EULER_SWEEP_MINB) euler_sweep_fold(Params s, const REAL* __restrict__ u,
    REAL* __restrict__ out, const double* __restrict__ clock, u64* fold) {
    early_launch_entry();
    sweep<true>(s, u, out, clock, fold);
}


// Half the limited slope of component c of cell w (neighbours wm, wp).
__device__ __forceinline__ REAL plm_half_slope(const REAL* wm, const REAL* w, const REAL* wp, int limiter, int c) {
    return (REAL)0.5 * slope(limiter, w[c] - wm[c], wp[c] - w[c]);
}

// A face value f of cell w put back to w where it leaves rho or p non-positive.
__device__ __forceinline__ void plm_keep_sound(const REAL* w, REAL* f) {
    if (!(f[0] > (REAL)0 && f[4] > (REAL)0)) {
#pragma unroll
        for (int c = 0; c < 5; ++c) f[c] = w[c];
    }
}

// PLM (plm.rs, face_value): the primitive value of cell w (neighbours wm, wp) at its upper or
// lower face, w +- slope / 2; w itself where that leaves rho or p non-positive.
__device__ __forceinline__ void plm_face_value(const REAL* wm, const REAL* w, const REAL* wp, int limiter, bool upper,
                                               REAL* f) {
#pragma unroll
    for (int c = 0; c < 5; ++c) {
        const REAL d = plm_half_slope(wm, w, wp, limiter, c);
        f[c] = upper ? w[c] + d : w[c] - d;
    }
    plm_keep_sound(w, f);
}

// The conservative state in the frame of `axis` of a primitive [rho, u_x, u_y, u_z, p]
// (plm.rs, conservative_in_frame).
__device__ __forceinline__ void conservative_in_frame(const REAL* w, int axis, REAL gamma, REAL* u) {
    const REAL half = (REAL)0.5;
    // selects, not w[1 + axis]: an index unknown at compile time would put w in local memory
    const REAL rho = w[0], vn = pick(axis, w[1], w[2], w[3]), t1 = pick(axis, w[2], w[3], w[1]),
               t2 = pick(axis, w[3], w[1], w[2]);
    const REAL kinetic = half * rho * (vn * vn + t1 * t1 + t2 * t2);
    u[0] = rho;
    u[1] = rho * vn;
    u[2] = rho * t1;
    u[3] = rho * t2;
    u[4] = w[4] * ((REAL)1 / (gamma - (REAL)1)) + kinetic;
}

// The primitive state [rho, u_x, u_y, u_z, p] of conservative q, component c at w[c * stride].
__device__ __forceinline__ void to_primitive(const REAL* q, REAL gamma, REAL* w, int stride) {
    w[0] = q[0];
    w[stride] = q[1] / q[0];
    w[2 * stride] = q[2] / q[0];
    w[3 * stride] = q[3] / q[0];
    w[4 * stride] = pressure(q, gamma);
}

// Both face values of cell w at once (plm_face_value's, bit for bit: the same slope, then
// w - d and w + d, each checked on its own).
__device__ __forceinline__ void plm_face_values(const REAL* wm, const REAL* w, const REAL* wp, int limiter, REAL* lo,
                                                REAL* up) {
#pragma unroll
    for (int c = 0; c < 5; ++c) {
        const REAL d = plm_half_slope(wm, w, wp, limiter, c);
        lo[c] = w[c] - d;
        up[c] = w[c] + d;
    }
    plm_keep_sound(w, lo);
    plm_keep_sound(w, up);
}

// The Riemann flux through a face from the primitive values on its two sides: their conservative
// states in the face's frame, the Riemann solver (plm.rs, stage). Component c of the flux, in the
// grid's order, goes to f[c * stride].
__device__ __forceinline__ void plm_flux_of_sides(const Params& s, int axis, const REAL* pl, const REAL* pr, REAL* f,
                                                  int stride) {
    REAL cl[5], cr[5], fl[5];
    conservative_in_frame(pl, axis, s.gamma, cl);
    conservative_in_frame(pr, axis, s.gamma, cr);
    riemann_flux(RIEMANN_OF(s), cl, cr, s.gamma, fl);
    u64 off[5];
    frame_offsets(axis, (u64)stride, off);
#pragma unroll
    for (int c = 0; c < 5; ++c) f[off[c]] = fl[c];
}

// The Riemann flux through the face between cells w[1] and w[2] (primitives of four cells along
// `axis`): the limited reconstruction of both sides, then plm_flux_of_sides.
__device__ __forceinline__ void plm_flux(const Params& s, int axis, const REAL (*w)[5], REAL* f, int stride) {
    REAL pl[5], pr[5];
    plm_face_value(w[0], w[1], w[2], LIMITER_OF(s), true, pl);
    plm_face_value(w[1], w[2], w[3], LIMITER_OF(s), false, pr);
    plm_flux_of_sides(s, axis, pl, pr, f, stride);
}

// Past the batch's end (clock.cuh, dt = 0) a stage leaves the state as it is: out = u at `at`.
__device__ __forceinline__ void rk_keep(const Params& s, const REAL* __restrict__ u, REAL* __restrict__ out, u64 at) {
#pragma unroll
    for (int c = 0; c < 5; ++c) out[at + c * s.g.cstride] = u[at + c * s.g.cstride];
}

// A cell's end of an RK3 stage from its flux divergence acc: the gravity source (plm.rs,
// add_gravity), then out = wa u0 + wb (u + dt acc) at padded index `at`.
__device__ __forceinline__ void rk_update(const Params& s, const REAL* __restrict__ u, const REAL* __restrict__ u0,
                                          REAL* __restrict__ out, u64 at, REAL dt, REAL* acc) {
    const u64 cs = s.g.cstride;
    REAL q[5];
#pragma unroll
    for (int c = 0; c < 5; ++c) q[c] = u[at + c * cs];
#pragma unroll
    for (int b = 0; b < 3; ++b) acc[1 + b] = acc[1 + b] + q[0] * s.grav[b];
    acc[4] = acc[4] + (q[1] * s.grav[0] + q[2] * s.grav[1] + q[3] * s.grav[2]);
#pragma unroll
    for (int c = 0; c < 5; ++c) out[at + c * cs] = s.wa * u0[at + c * cs] + s.wb * (q[c] + dt * acc[c]);
}

// One unsplit PLM + SSP-RK3 stage (plm.rs, stage): out = wa u0 + wb (u + dt L(u)) on a tile of
// tx x ty x tz cells per block (one thread a cell). The block converts its tile and two ghost
// layers along each active axis to primitives in shared memory once; then per active axis its
// threads compute each face of the tile once (limited linear reconstruction from four cells,
// the Riemann flux) into shared memory and every cell takes the difference of its two faces;
// then the gravity source and the RK combination. u's ghosts are filled. A block has as many
// threads as the most faces along one axis (one pass per axis; threads beyond the tile's
// cells only compute faces). Dynamic shared memory: 5 (tile + ghosts) + 5 (that many faces) REAL.
extern "C" __global__ void __launch_bounds__(640) euler_rk_stage(Params s, const REAL* __restrict__ u, const REAL* __restrict__ u0,
                                          REAL* __restrict__ out, const double* __restrict__ clock) {
    early_launch_entry();
    const Layout& g = s.g;
    const REAL dt = (REAL)clock[CLOCK_DT];
    const int T[3] = {s.tx, s.ty, s.tz};
    int H[3], E[3];
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        H[a] = ((s.active >> a) & 1) ? 2 : 0;
        E[a] = T[a] + 2 * H[a];
    }
    const int ne = E[0] * E[1] * E[2];
    int nf = 0;  // the most faces along one active axis (cuda.rs, stage_threads)
#pragma unroll
    for (int a = 0; a < 3; ++a)
        if ((s.active >> a) & 1) nf = max(nf, (T[0] + (a == 0)) * (T[1] + (a == 1)) * (T[2] + (a == 2)));
    extern __shared__ unsigned char smem_raw[];
    REAL* W = (REAL*)smem_raw;  // [5][ne] primitives
    REAL* F = W + 5 * ne;       // [5][nf] fluxes of one axis's faces
    const int o[3] = {(int)blockIdx.x * T[0], (int)blockIdx.y * T[1], (int)blockIdx.z * T[2]};
    const u64 cs = g.cstride;
    const int t = threadIdx.x, nt = blockDim.x;
    const int c3[3] = {t % T[0], (t / T[0]) % T[1], t / (T[0] * T[1])};
    const bool mine = t < T[0] * T[1] * T[2] && o[0] + c3[0] < g.n[0] && o[1] + c3[1] < g.n[1] &&
                      o[2] + c3[2] < g.n[2];
    if (!(dt > (REAL)0)) {
        if (mine) rk_keep(s, u, out, grid_at(g, o[0] + c3[0], o[1] + c3[1], o[2] + c3[2]));
        return;
    }
    for (int e = t; e < ne; e += nt) {
        const int ex = e % E[0], ey = (e / E[0]) % E[1], ez = e / (E[0] * E[1]);
        const int i = o[0] + ex - H[0], j = o[1] + ey - H[1], k = o[2] + ez - H[2];
        REAL q[5] = {(REAL)1, (REAL)0, (REAL)0, (REAL)0, (REAL)1};  // beyond the grid: never used
        if (i < g.n[0] + H[0] && j < g.n[1] + H[1] && k < g.n[2] + H[2]) {
            const u64 at = grid_at(g, i, j, k);
#pragma unroll
            for (int c = 0; c < 5; ++c) q[c] = u[at + c * cs];
        }
        to_primitive(q, s.gamma, W + e, ne);
    }
    __syncthreads();

    REAL acc[5] = {0, 0, 0, 0, 0};
    for (int a = 0; a < 3; ++a) {
        if (!((s.active >> a) & 1)) continue;
        int D[3] = {T[0], T[1], T[2]};
        D[a] += 1;  // faces along a: T[a] + 1
        const int nfa = D[0] * D[1] * D[2];
        const int step = a == 0 ? 1 : (a == 1 ? E[0] : E[0] * E[1]);
        for (int f = t; f < nfa; f += nt) {
            int fc[3] = {f % D[0], (f / D[0]) % D[1], f / (D[0] * D[1])};
            // The face's lower cell is fc[a] - 1 of the tile: cells fc[a] - 2 .. fc[a] + 1.
            int e0[3] = {fc[0] + H[0], fc[1] + H[1], fc[2] + H[2]};
            e0[a] -= 2;
            const int base = e0[0] + E[0] * (e0[1] + E[1] * e0[2]);
            REAL w[4][5];
#pragma unroll
            for (int m = 0; m < 4; ++m)
#pragma unroll
                for (int c = 0; c < 5; ++c) w[m][c] = W[c * ne + base + m * step];
            plm_flux(s, a, w, F + f, nf);
        }
        __syncthreads();
        if (mine) {
            int lo3[3] = {c3[0], c3[1], c3[2]};
            const int lo = lo3[0] + D[0] * (lo3[1] + D[1] * lo3[2]);
            const int hi = lo + (a == 0 ? 1 : (a == 1 ? D[0] : D[0] * D[1]));
#pragma unroll
            for (int c = 0; c < 5; ++c) acc[c] = acc[c] - (F[c * nf + hi] - F[c * nf + lo]) * s.inv_h[a];
        }
        __syncthreads();
    }
    if (mine) rk_update(s, u, u0, out, grid_at(g, o[0] + c3[0], o[1] + c3[1], o[2] + c3[2]), dt, acc);
}

// The primitives of cell (i, j, k) into w[c * stride], or of a benign state beyond the grid's
// ghosts (only faces of cells outside the grid read it).
__device__ __forceinline__ void load_primitive(const Layout& g, const REAL* __restrict__ u, REAL gamma, int i, int j,
                                               int k, REAL* w, int stride) {
    REAL q[5] = {(REAL)1, (REAL)0, (REAL)0, (REAL)0, (REAL)1};
    if (i < g.n[0] + g.halo[0] && j < g.n[1] + g.halo[1] && k < g.n[2] + g.halo[2]) {
        const u64 at = grid_at(g, i, j, k);
#pragma unroll
        for (int c = 0; c < 5; ++c) q[c] = u[at + c * g.cstride];
    }
    to_primitive(q, gamma, w, stride);
}

// The z face values lo, up of the column's cell at plane kc, from ring planes kc - 1 .. kc + 1
// (the march's ring: nc columns, the thread's column t).
__device__ __forceinline__ void march_z_values(const Params& s, const REAL* Ring, int nc, int t, int kc, REAL* lo,
    REAL* up) {
    REAL w[3][5];
#pragma unroll
    for (int m = 0; m < 3; ++m)
#pragma unroll
        for (int c = 0; c < 5; ++c) w[m][c] = Ring[(c * 4 + ((kc - 1 + m) & 3)) * nc + t];
    plm_face_values(w[0], w[1], w[2], LIMITER_OF(s), lo, up);
}

// The z face k + 1/2 of the thread's column into its slot (k + 1) & 1 of Fz, from z_up (cell
// k's upper value, kept from the plane before) and cell k + 1's lower value; z_up then holds
// cell k + 1's upper value. Each cell's slope along z is found once.
__device__ __forceinline__ void march_z_face(const Params& s, const REAL* Ring, REAL* Fz, int nc, int t, int k,
    REAL (&z_up)[5]) {
    REAL lo[5], up[5];
    march_z_values(s, Ring, nc, t, k + 1, lo, up);
    plm_flux_of_sides(s, 2, z_up, lo, Fz + ((k + 1) & 1) * 5 * nc + t, nc);
#pragma unroll
    for (int c = 0; c < 5; ++c) z_up[c] = up[c];
}

// Plane k's ghost rows (two below and two above the tile of TX x TY columns from (i0, j0), TX
// cells each) and columns (two left and two right, TY cells each; the corners are no face's
// cells) into Wp (rows EX wide, ne a component), numbered so that a warp's threads load one
// row: no thread of a warp waits for another's other path.
__device__ __forceinline__ void march_load_ghosts(const Params& s, const REAL* u, REAL* Wp, int TX, int TY, int EX,
    int ne, int i0, int j0, int k, int ghosts, int t, int nt) {
    for (int h = t; h < ghosts; h += nt) {
        const bool row = h < 4 * TX;
        const int r = row ? h / TX : (h - 4 * TX) / TY, along = row ? h % TX : (h - 4 * TX) % TY;
        const int across = r < 2 ? r - 2 : (row ? TY : TX) + r - 2;  // -2, -1, then T, T + 1
        const int ex = row ? along : across, ey = row ? across : along;  // tile coordinates
        load_primitive(s.g, u, s.gamma, i0 + ex, j0 + ey, k, Wp + (ey + 2) * EX + ex + 2, ne);
    }
}

// The column's cell (ci, cj) of the tile at plane k updated from its faces' fluxes: x (Fx,
// nfx a component), y (Fy, nfy) and z (Fz's two slots, nc a component).
__device__ __forceinline__ void march_update(const Params& s, const REAL* __restrict__ u, const REAL* __restrict__ u0,
    REAL* __restrict__ out, const REAL* Fx, const REAL* Fy, const REAL* Fz, int TX, int nfx, int nfy, int nc, int ci,
    int cj, int t, int i, int j, int k, REAL dt) {
    REAL acc[5] = {0, 0, 0, 0, 0};
    const int lx = ci + (TX + 1) * cj, ly = ci + TX * cj;
    const REAL* zlo = Fz + (k & 1) * 5 * nc + t;
    const REAL* zhi = Fz + ((k + 1) & 1) * 5 * nc + t;
#pragma unroll
    for (int c = 0; c < 5; ++c) acc[c] = acc[c] - (Fx[c * nfx + lx + 1] - Fx[c * nfx + lx]) * s.inv_h[0];
#pragma unroll
    for (int c = 0; c < 5; ++c) acc[c] = acc[c] - (Fy[c * nfy + ly + TX] - Fy[c * nfy + ly]) * s.inv_h[1];
#pragma unroll
    for (int c = 0; c < 5; ++c) acc[c] = acc[c] - (zhi[c * nc] - zlo[c * nc]) * s.inv_h[2];
    rk_update(s, u, u0, out, grid_at(s.g, i, j, k), dt, acc);
}

// The same stage as euler_rk_stage on a 3D grid (every axis active), the same arithmetic in the
// same order, with every face solved once and a quarter of the loads: a block is a tile of
// tx x ty columns marching up tz planes. At plane k it holds in shared memory the primitives of
// plane k with two ghost rows and columns around the tile (the x and y faces), and of its
// columns at planes k-1 .. k+2 in a ring of four planes (slot k & 3: the z face k + 1/2; each
// column's thread alone writes and reads its column of the ring and of the z fluxes, two planes
// of faces by parity, so the face below a plane is kept from the plane before). Threads:
// max((tx + 1) ty, tx (ty + 1)), the first tx ty a column each; the others only solve x or y
// faces. Dynamic shared memory (REAL): 5 (tx + 4)(ty + 4) + 20 tx ty + 5 (tx + 1) ty
// + 5 tx (ty + 1) + 10 tx ty (cuda.rs, march_shared_bytes).
// Blocks an SM: 4 in f32 (56 registers; 6 % faster than 3 at 512^3 on an H100).
#ifndef EULER_MARCH_MINB
#define EULER_MARCH_MINB (sizeof(REAL) == 4 ? 4 : 2)
#endif
extern "C" __global__ void __launch_bounds__(288, EULER_MARCH_MINB) euler_rk_march(Params s, const REAL* __restrict__ u,
                                                                  const REAL* __restrict__ u0, REAL* __restrict__ out,
                                                                  const double* __restrict__ clock) {
    early_launch_entry();
    const Layout& g = s.g;
    const REAL dt = (REAL)clock[CLOCK_DT];
#ifdef EULER_MARCH_TX
    // The tile compiled in (cuda.rs passes the launch's): its divisions become shifts and
    // multiplications, where by s.tx, s.ty they were ~25 instructions each, a few a plane.
    constexpr int TX = EULER_MARCH_TX, TY = EULER_MARCH_TY;
#else
    const int TX = s.tx, TY = s.ty;
#endif
    const int EX = TX + 4, ne = EX * (TY + 4), nc = TX * TY, nfx = (TX + 1) * TY, nfy = TX * (TY + 1);
    extern __shared__ unsigned char smem_raw[];
    REAL* Wp = (REAL*)smem_raw;  // [5][ne] the plane's primitives with two ghost rings
    REAL* Ring = Wp + 5 * ne;    // [5][4][nc] the columns' primitives, plane p in slot p & 3
    REAL* Fx = Ring + 20 * nc;   // [5][nfx] the plane's x fluxes, grid order
    REAL* Fy = Fx + 5 * nfx;     // [5][nfy] its y fluxes
    REAL* Fz = Fy + 5 * nfy;     // [2][5][nc] z fluxes: face k + 1/2 in slot (k + 1) & 1
    const int i0 = (int)blockIdx.x * TX, j0 = (int)blockIdx.y * TY, k0 = (int)blockIdx.z * s.tz;
    const int k1 = min(k0 + s.tz, g.n[2]);
    const int t = threadIdx.x, nt = blockDim.x;
    const bool column = t < nc;
    const int ci = t % TX, cj = t / TX;
    const bool mine = column && i0 + ci < g.n[0] && j0 + cj < g.n[1];
    if (!(dt > (REAL)0)) {
        for (int k = k0; k < k1 && mine; ++k) rk_keep(s, u, out, grid_at(g, i0 + ci, j0 + cj, k));
        return;
    }
    // The column's upper z face value of its cell below the plane (march_z_face).
    REAL z_up[5];
    if (column) {
        for (int k = k0 - 2; k <= k0 + 1; ++k) load_primitive(g, u, s.gamma, i0 + ci, j0 + cj, k, Ring + (k & 3) * nc + t, 4 * nc);
        REAL lo[5];
        march_z_values(s, Ring, nc, t, k0 - 1, lo, z_up);
        march_z_face(s, Ring, Fz, nc, t, k0 - 1, z_up);
    }
    __syncthreads();
    const int ghosts = 4 * (TX + TY);  // the plane's ghost cells (march_load_ghosts)
    for (int k = k0; k < k1; ++k) {
        if (column) {
            load_primitive(g, u, s.gamma, i0 + ci, j0 + cj, k + 2, Ring + ((k + 2) & 3) * nc + t, 4 * nc);
            // The column's own cell of plane k, from its ring.
#pragma unroll
            for (int c = 0; c < 5; ++c) Wp[c * ne + (cj + 2) * EX + ci + 2] = Ring[(c * 4 + (k & 3)) * nc + t];
        }
        march_load_ghosts(s, u, Wp, TX, TY, EX, ne, i0, j0, k, ghosts, t, nt);
        __syncthreads();
        for (int a = 0; a < 3; ++a) {
            const int faces = a == 0 ? nfx : (a == 1 ? nfy : nc);
            if (t >= faces) continue;
            if (a == 2) {
                march_z_face(s, Ring, Fz, nc, t, k, z_up);
                continue;
            }
            // face t of axis a: along x, between cells fx - 1 and fx of row fy; along y, between
            // rows fy - 1 and fy of column fx (tile coordinates)
            const int fx = a == 0 ? t % (TX + 1) : t % TX, fy = a == 0 ? t / (TX + 1) : t / TX;
            const int base = a == 0 ? (fy + 2) * EX + fx : fy * EX + fx + 2;
            const int step = a == 0 ? 1 : EX;
            REAL w[4][5];
#pragma unroll
            for (int m = 0; m < 4; ++m)
#pragma unroll
                for (int c = 0; c < 5; ++c) w[m][c] = Wp[c * ne + base + m * step];
            plm_flux(s, a, w, (a == 0 ? Fx : Fy) + t, faces);
        }
        __syncthreads();
        if (mine) march_update(s, u, u0, out, Fx, Fy, Fz, TX, nfx, nfy, nc, ci, cj, t, i0 + ci, j0 + cj, k, dt);
    }
}

// Hydrostatic ghosts (plm.rs, hydrostatic_ghosts): after the halo fill mirrored rho and E into
// the ghosts of a reflecting wall across gravity, add rho c_l to the energy of ghost layer l
// (1, 2) on `side` of `axis`, over the interior rows of the other two axes.
extern "C" __global__ void euler_hydrostatic_ghosts(Params s, REAL* u, int axis, int side, REAL c1, REAL c2) {
    early_launch_entry();
    const Layout& g = s.g;
    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    const u64 rows = (u64)g.n[a1] * g.n[a2];
    const int halo = g.halo[axis];
    for (u64 q = blockIdx.x * (u64)blockDim.x + threadIdx.x; q < rows * halo; q += (u64)gridDim.x * blockDim.x) {
        const int l = 1 + (int)(q / rows);
        const u64 r = q % rows;
        int idx[3];
        idx[axis] = side == 0 ? -l : g.n[axis] - 1 + l;
        idx[a1] = (int)(r % g.n[a1]);
        idx[a2] = (int)(r / g.n[a1]);
        const u64 p = grid_at(g, idx[0], idx[1], idx[2]);
        u[4 * g.cstride + p] = u[4 * g.cstride + p] + u[p] * (l == 1 ? c1 : c2);
    }
}

// The state at padded index `at` in the frame of `axis`.
__device__ __forceinline__ void load_frame(const Layout& g, const REAL* u, u64 at, int axis, REAL* s) {
    u64 off[5];
    frame_offsets(axis, g.cstride, off);
#pragma unroll
    for (int c = 0; c < 5; ++c) s[c] = u[at + off[c]];
}

// The stable step's maxima over interior cells (see cell_speeds) folded into rates (3 doubles'
// bits, 0 beforehand), a grid-stride pass over the state.
extern "C" __global__ void euler_stable_dt(Params s, const REAL* __restrict__ u, u64* rates) {
    early_launch_entry();
    const Layout& g = s.g;
    const u64 points = (u64)g.n[0] * g.n[1] * g.n[2];
    if (s.unsplit) {
        double r = 0.0;
        for (u64 q = blockIdx.x * (u64)blockDim.x + threadIdx.x; q < points; q += (u64)gridDim.x * blockDim.x) {
            const u64 at = cell_at(g, q);
            r = fmax(r, cell_rate(s, [&](int a, REAL* v) { load_frame(g, u, at, a, v); }));
        }
        block_max_bits_into<1>(&r, 1u, rates);
        return;
    }
    REAL top[3] = {0, 0, 0};
    for (u64 q = blockIdx.x * (u64)blockDim.x + threadIdx.x; q < points; q += (u64)gridDim.x * blockDim.x) {
        const u64 at = cell_at(g, q);
        REAL speed[3];
        cell_speeds(s, [&](int a, REAL* v) { load_frame(g, u, at, a, v); }, speed);
#pragma unroll
        for (int a = 0; a < 3; ++a) top[a] = fmax(top[a], speed[a]);
    }
    fold_speeds(s, top, rates);
}

// After a step: the clock advanced, then the next step cfl * the stable step from the folded
// rates (cpu.rs and cuda.rs, stable_dt; clock.cuh); the rates are reset to 0 for the next fold.
// One thread.
extern "C" __global__ void euler_clock(double* clock, u64* rates, double cfl, double until, Params s) {
    early_launch_entry();
    if (blockIdx.x != 0 || threadIdx.x != 0) return;  // one thread: it reads and resets the fold
    const double m = stable_from_rates(s, rates);
    rates[0] = rates[1] = rates[2] = 0;
    clock_tick(clock, cfl * m, until);
}

// The first interior cell (x fastest) whose density or pressure is not positive or whose state
// is not finite, by atomicMin into *first (which the host sets to ~0 beforehand).
extern "C" __global__ void euler_first_unsound(Params s, const REAL* __restrict__ u, u64* first) {
    early_launch_entry();
    const Layout& g = s.g;
    const u64 points = (u64)g.n[0] * g.n[1] * g.n[2];
    for (u64 q = blockIdx.x * (u64)blockDim.x + threadIdx.x; q < points; q += (u64)gridDim.x * blockDim.x) {
        REAL v[5];
        load_frame(g, u, cell_at(g, q), 0, v);
        bool finite = true;
#pragma unroll
        for (int c = 0; c < 5; ++c) finite = finite && isfinite(v[c]);
        if (!(v[0] > (REAL)0 && pressure(v, s.gamma) > (REAL)0 && finite)) atomicMin(first, q);
    }
}
