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

// What every kernel of this module takes (mirrors ParamsC in solver/src/cases/euler/cuda.rs).
struct Params {
    Layout g;
    REAL gamma;
    REAL lambda;          // the sweep's dt / h along its axis
    int axis;             // the sweep's axis
    int limiter;          // LIMITER_*
    int riemann;          // RIEMANN_*
    int P, W;             // the sweep's tile: P faces along the axis times W lines
    int active;           // bit a set: axis a has more than one cell (the stable step's axes)
    double hx, hy, hz;    // cell sizes
    int unsplit;          // the stable step of all axes at once (PLM + RK3)
    REAL wa, wb, dt;      // the RK3 stage: out = wa u0 + wb (u + dt L(u))
    REAL inv_h[3];        // 1 / cell size
    REAL grav[3];         // gravitational acceleration
    int tx, ty, tz;       // the RK3 stage's tile of cells (1 on an inactive axis)
};

__device__ __forceinline__ int pick(int axis, int a, int b, int c) { return axis == 0 ? a : (axis == 1 ? b : c); }

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

// One MUSCL-Hancock sweep along `axis`, u -> out (out of place: blocks read cells that
// their neighbours write), lambda = dt / h. A block is a tile of W lines x P faces; thread
// (w, p) computes the face between cells L = s0 + p - 1 and L + 1 of its line from the four
// cells L-1 .. L+2 (the evolved right value of L and left value of L + 1, then the Riemann
// solver of s.riemann), and after the block's faces are in shared memory updates cell L
// (p >= 1) from its two faces: P - 1 cells per line and block from P faces (the first face of a tile
// is also the last of the tile before it, the one face per line and block solved twice).
// Along x the P faces are consecutive threads (W lines in y or z); along y and z the W lines
// are consecutive x (coalesced), P faces along the axis. Dynamic shared memory: 5 blockDim.x REAL.
extern "C" __global__ void euler_sweep(Params s, const REAL* __restrict__ u, REAL* __restrict__ out) {
    const Layout& g = s.g;
    const int axis = s.axis, P = s.P, W = s.W, limiter = s.limiter;
    const REAL lambda = s.lambda, gamma = s.gamma;
    extern __shared__ unsigned char smem_raw[];
    REAL* F = (REAL*)smem_raw;
    const int t = threadIdx.x, nt = blockDim.x;
    const int p = axis == 0 ? t % P : t / W;
    const int w = axis == 0 ? t / P : t % W;
    const int L = (int)blockIdx.x * (P - 1) + p - 1;
    const int line = (int)blockIdx.y * W + w;
    const int o = (int)blockIdx.z;
    const int N = pick(axis, g.n[0], g.n[1], g.n[2]);
    const int nw = axis == 0 ? g.n[1] : g.n[0];
    const bool face = t < P * W && line < nw && L <= N - 1;
    const int i = axis == 0 ? L : line;
    const int j = axis == 1 ? L : (axis == 0 ? line : o);
    const int k = axis == 2 ? L : o;
    const long long st = axis == 0 ? 1 : (axis == 1 ? (long long)g.px : (long long)g.px * g.py);
    u64 off[5];
    frame_offsets(axis, g.cstride, off);
    REAL q[4][5];
    REAL f[5] = {0, 0, 0, 0, 0};
    long long base = 0;
    if (face) {
        base = (long long)grid_at(g, i, j, k);
#pragma unroll
        for (int m = 0; m < 4; ++m)
#pragma unroll
            for (int c = 0; c < 5; ++c) q[m][c] = u[(u64)(base + (m - 1) * st) + off[c]];
        REAL l0[5], r0[5], l1[5], r1[5];
        evolved(q[0], q[1], q[2], lambda, gamma, limiter, l0, r0);
        evolved(q[1], q[2], q[3], lambda, gamma, limiter, l1, r1);
        if (s.riemann == RIEMANN_HLLC) {
            hllc_flux(r0, l1, gamma, f);
        } else if (s.riemann == RIEMANN_HLL) {
            hll_flux(r0, l1, gamma, f);
        } else {
            godunov_flux(r0, l1, gamma, f);
        }
    }
#pragma unroll
    for (int c = 0; c < 5; ++c) F[c * nt + t] = f[c];
    __syncthreads();
    if (face && p >= 1) {
        const int left = t - (axis == 0 ? 1 : W);
#pragma unroll
        for (int c = 0; c < 5; ++c) out[(u64)base + off[c]] = q[1][c] - lambda * (f[c] - F[c * nt + left]);
    }
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

// PLM (plm.rs, face_value): the primitive value of cell w (neighbours wm, wp) at its upper or
// lower face, w +- slope / 2; w itself where that leaves rho or p non-positive.
__device__ __forceinline__ void plm_face_value(const REAL* wm, const REAL* w, const REAL* wp, int limiter, bool upper,
                                               REAL* f) {
    const REAL half = (REAL)0.5;
#pragma unroll
    for (int c = 0; c < 5; ++c) {
        const REAL d = half * slope(limiter, w[c] - wm[c], wp[c] - w[c]);
        f[c] = upper ? w[c] + d : w[c] - d;
    }
    if (!(f[0] > (REAL)0 && f[4] > (REAL)0)) {
#pragma unroll
        for (int c = 0; c < 5; ++c) f[c] = w[c];
    }
}

// The conservative state in the frame of `axis` of a primitive [rho, u_x, u_y, u_z, p]
// (plm.rs, conservative_in_frame).
__device__ __forceinline__ void conservative_in_frame(const REAL* w, int axis, REAL gamma, REAL* u) {
    const REAL half = (REAL)0.5;
    const REAL rho = w[0], vn = w[1 + axis], t1 = w[1 + (axis + 1) % 3], t2 = w[1 + (axis + 2) % 3];
    const REAL kinetic = half * rho * (vn * vn + t1 * t1 + t2 * t2);
    u[0] = rho;
    u[1] = rho * vn;
    u[2] = rho * t1;
    u[3] = rho * t2;
    u[4] = w[4] * ((REAL)1 / (gamma - (REAL)1)) + kinetic;
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
                                          REAL* __restrict__ out) {
    const Layout& g = s.g;
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
    for (int e = t; e < ne; e += nt) {
        const int ex = e % E[0], ey = (e / E[0]) % E[1], ez = e / (E[0] * E[1]);
        const int i = o[0] + ex - H[0], j = o[1] + ey - H[1], k = o[2] + ez - H[2];
        REAL q[5] = {(REAL)1, (REAL)0, (REAL)0, (REAL)0, (REAL)1};  // beyond the grid: never used
        if (i < g.n[0] + H[0] && j < g.n[1] + H[1] && k < g.n[2] + H[2]) {
            const u64 at = grid_at(g, i, j, k);
#pragma unroll
            for (int c = 0; c < 5; ++c) q[c] = u[at + c * cs];
        }
        W[e] = q[0];
        W[ne + e] = q[1] / q[0];
        W[2 * ne + e] = q[2] / q[0];
        W[3 * ne + e] = q[3] / q[0];
        W[4 * ne + e] = pressure(q, s.gamma);
    }
    __syncthreads();
    const int c3[3] = {t % T[0], (t / T[0]) % T[1], t / (T[0] * T[1])};
    const bool mine = t < T[0] * T[1] * T[2] && o[0] + c3[0] < g.n[0] && o[1] + c3[1] < g.n[1] &&
                      o[2] + c3[2] < g.n[2];
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
            REAL pl[5], pr[5], cl[5], cr[5], fl[5];
            plm_face_value(w[0], w[1], w[2], s.limiter, true, pl);
            plm_face_value(w[1], w[2], w[3], s.limiter, false, pr);
            conservative_in_frame(pl, a, s.gamma, cl);
            conservative_in_frame(pr, a, s.gamma, cr);
            riemann_flux(s.riemann, cl, cr, s.gamma, fl);
            u64 off[5];
            frame_offsets(a, (u64)nf, off);
#pragma unroll
            for (int c = 0; c < 5; ++c) F[off[c] + f] = fl[c];
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
    if (!mine) return;
    const u64 at = grid_at(g, o[0] + c3[0], o[1] + c3[1], o[2] + c3[2]);
    REAL q[5];
#pragma unroll
    for (int c = 0; c < 5; ++c) q[c] = u[at + c * cs];
    // plm.rs, add_gravity
#pragma unroll
    for (int b = 0; b < 3; ++b) acc[1 + b] = acc[1 + b] + q[0] * s.grav[b];
    acc[4] = acc[4] + (q[1] * s.grav[0] + q[2] * s.grav[1] + q[3] * s.grav[2]);
#pragma unroll
    for (int c = 0; c < 5; ++c) out[at + c * cs] = s.wa * u0[at + c * cs] + s.wb * (q[c] + s.dt * acc[c]);
}

// Hydrostatic ghosts (plm.rs, hydrostatic_ghosts): after the halo fill mirrored rho and E into
// the ghosts of a reflecting wall across gravity, add rho c_l to the energy of ghost layer l
// (1, 2) on `side` of `axis`, over the interior rows of the other two axes.
extern "C" __global__ void euler_hydrostatic_ghosts(Params s, REAL* u, int axis, int side, REAL c1, REAL c2) {
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

// Per-block min over interior cells and active axes (bit a of `active`) of h_a / (|u_a| + c),
// the speed in REAL, the quotient in double as on the CPU; the host finishes the min over
// blocks (fmin, as f64::min there, passes over NaN). blockDim.x = 256.
extern "C" __global__ void euler_stable_dt(Params s, const REAL* __restrict__ u, double* block_out) {
    const Layout& g = s.g;
    __shared__ double sm[256];
    const u64 points = (u64)g.n[0] * g.n[1] * g.n[2];
    double m = __longlong_as_double(0x7ff0000000000000LL);  // +inf
    for (u64 q = blockIdx.x * (u64)blockDim.x + threadIdx.x; q < points; q += (u64)gridDim.x * blockDim.x) {
        const u64 at = cell_at(g, q);
        double sum = 0.0;  // unsplit: 1 / sum_a (|u_a| + c) / h_a (cpu.rs, stable_dt)
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            if (!((s.active >> a) & 1)) continue;
            REAL v[5];
            load_frame(g, u, at, a, v);
            const REAL speed = fabs(v[1] / v[0]) + sqrt(s.gamma * pressure(v, s.gamma) / v[0]);
            const double h = a == 0 ? s.hx : (a == 1 ? s.hy : s.hz);
            if (s.unsplit) {
                sum = sum + (double)speed / h;
            } else {
                m = fmin(m, h / (double)speed);
            }
        }
        if (s.unsplit) m = fmin(m, 1.0 / sum);
    }
    sm[threadIdx.x] = m;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) sm[threadIdx.x] = fmin(sm[threadIdx.x], sm[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0) block_out[blockIdx.x] = sm[0];
}

// The first interior cell (x fastest) whose density or pressure is not positive or whose state
// is not finite, by atomicMin into *first (which the host sets to ~0 beforehand).
extern "C" __global__ void euler_first_unsound(Params s, const REAL* __restrict__ u, u64* first) {
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
