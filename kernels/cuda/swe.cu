// Shallow water with a pollutant on the structured grid (solver/src/cases/swe/): the
// path-conservative Roe edge (roe.rs), one explicit step per launch with the dry-cell rules and
// Manning friction fused in (cpu.rs), and the adaptive step found on the device: each step's
// blocks fold the wave-speed rate of the state they wrote into one atomic maximum, and a
// one-thread kernel turns it into the next step size and advances the clock, so that many steps
// run without a round trip to the host (solver/src/framework/case.rs, advance_batch).
// Compiled with --fmad=false: the same arithmetic in the same order as the CPU, so both
// backends take the same steps and agree to rounding.
#include "grid.cuh"
#include "clock.cuh"
#include "reduce.cuh"

// Mirrors `ParamsC` in solver/src/cases/swe/cuda.rs.
struct SweParams {
    Layout g;          // the state: (h, q_x, q_y, hC), 4 components
    double gravity;    // g (wave speeds, friction)
    double dry_d;      // the dry depth, as the CPU compares it in double
    double h[2];       // cell sizes
    double manning;    // Manning's n (0: no friction)
    double area;       // cell area (the clipped water's volume)
    REAL grav;
    REAL dry;
    REAL thin;
    int active;        // bit a: axis a has more than one cell
    int faces[4];      // face (a, side) at 2a + side: 0 a face of the grid, 1 periodic, 2 another slab's
};


// a / b, IEEE-rounded, skipping the division where a is zero: 0 / b is a (its sign kept, b > 0
// where it is used), and the division's slow path, which a zero numerator takes, is most of a
// step's cost in water at rest or without pollutant (profiled).
template <typename T>
__device__ __forceinline__ T quotient(T a, T b) {
    return a == (T)0 ? a : a / b;
}

// A cell's state as the edges read it: the conserved (h, q_x, q_y, hC), the velocities (q / h,
// 0 in dry cells: roe.rs, `velocities`), sqrt(max(h, 0)), the bed H and the concentration
// hC / h (0 without water: cpu.rs, `concentration`). Each cell's are found once per tile and
// shared by its four edges; the values are those the CPU finds anew at each edge, so the
// arithmetic is the same.
struct CellState {
    REAL w[4];
    REAL vel[2];
    REAL root;
    REAL bed;
    REAL conc;
};

__device__ __forceinline__ CellState cell_state(const SweParams& s, const REAL* w, const REAL* bed, u64 p) {
    CellState c;
    const u64 cs = s.g.cstride;
    for (int k = 0; k < 4; ++k) c.w[k] = w[k * cs + p];
    if (c.w[0] > s.dry) {
        const REAL inv = (REAL)1 / c.w[0];  // reciprocal, then products (roe.rs, `velocities`)
        for (int k = 0; k < 2; ++k) c.vel[k] = c.w[k + 1] * inv;
    } else {
        c.vel[0] = c.vel[1] = (REAL)0;
    }
    c.root = sqrt(fmax(c.w[0], (REAL)0));
    c.bed = bed[p];
    c.conc = c.w[0] > (REAL)0 ? quotient(c.w[3], c.w[0]) : (REAL)0;  // a true division (cpu.rs)
    return c;
}

// A state in an edge's frame: (h, q_n, q_t, hC), velocities (u_n, u_t), sqrt(h), bed.
struct Frame {
    REAL w[4];
    REAL vel[2];
    REAL root;
    REAL bed;
};

// The cell state in the frame of axis a (0: x, 1: y); `mirror` flips the normal momentum
// (the wall an emerged bank makes; -(q / h) = (-q) / h exactly).
__device__ __forceinline__ Frame in_frame(const CellState& c, int a, bool mirror) {
    Frame f;
    const REAL sign = mirror ? (REAL)-1 : (REAL)1;
    f.w[0] = c.w[0];
    f.w[1] = sign * (a == 0 ? c.w[1] : c.w[2]);
    f.w[2] = a == 0 ? c.w[2] : c.w[1];
    f.w[3] = c.w[3];
    f.vel[0] = sign * (a == 0 ? c.vel[0] : c.vel[1]);
    f.vel[1] = a == 0 ? c.vel[1] : c.vel[0];
    f.root = c.root;
    f.bed = c.bed;
    return f;
}

// The Roe contributions of an edge (roe.rs, `roe`): fm = F^- to the cell below, fp = b - F^-
// to the cell above (the pollutant's entries 0), and the mass flux from lo to hi.
__device__ __forceinline__ REAL roe(const Frame& lo, const Frame& hi, REAL g, REAL* fm, REAL* fp) {
    const REAL half = (REAL)0.5, two = (REAL)2, zero = (REAL)0;
    const REAL sl = lo.root, sh = hi.root;
    const REAL inv = (REAL)1 / (sl + sh);
    const REAL u = (sl * lo.vel[0] + sh * hi.vel[0]) * inv;
    const REAL v = (sl * lo.vel[1] + sh * hi.vel[1]) * inv;
    const REAL depth = half * (lo.w[0] + hi.w[0]);
    const REAL c = sqrt(g * depth);
    REAL d[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) d[k] = hi.w[k] - lo.w[k];
    const REAL d_bed = hi.bed - lo.bed;
    REAL b[3];
    b[0] = d[1];
    b[1] = g * depth * (d[0] - d_bed) - u * u * d[0] + two * u * d[1];
    b[2] = -u * v * d[0] + v * d[1] + u * d[2];
    const REAL inv_2c = (REAL)1 / (two * c);
    const REAL a1 = ((u + c) * b[0] - b[1]) * inv_2c;
    const REAL a4 = (b[1] - (u - c) * b[0]) * inv_2c;
    const REAL a2 = b[2] - v * b[0];
#define TOWARDS_LO(speed) ((speed) < zero ? (REAL)1 : ((speed) == zero ? half : zero))
    const REAL w1 = TOWARDS_LO(u - c) * a1, w23 = TOWARDS_LO(u), w4 = TOWARDS_LO(u + c) * a4;
#undef TOWARDS_LO
    fm[0] = w1 + w4;
    fm[1] = w1 * (u - c) + w4 * (u + c);
    fm[2] = (w1 + w4) * v + w23 * a2;
    fm[3] = zero;
#pragma unroll
    for (int k = 0; k < 3; ++k) fp[k] = b[k] - fm[k];
    fp[3] = zero;
#define SIGN(speed) ((speed) < zero ? (REAL)-1 : ((speed) > zero ? (REAL)1 : zero))
    return half * (lo.w[1] + hi.w[1]) - half * (SIGN(u - c) * a1 + SIGN(u + c) * a4);
#undef SIGN
}

// The edge of axis a between cells lo and hi with its wet/dry rules (roe.rs, `edge`); returns
// its mass flux (0 between dry cells and at a wall).
__device__ __forceinline__ REAL edge(const CellState& clo, const CellState& chi, int a, REAL g, REAL dry, REAL* fm, REAL* fp) {
    REAL unused[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) fm[k] = fp[k] = (REAL)0;
    const bool wet_lo = clo.w[0] > dry, wet_hi = chi.w[0] > dry;
    if (!wet_lo && !wet_hi) return (REAL)0;
    const Frame lo = in_frame(clo, a, false), hi = in_frame(chi, a, false);
    if (wet_lo && !wet_hi && lo.w[0] - lo.bed < -hi.bed) {  // a wall for the wet cell below
        Frame m = in_frame(clo, a, true);
        roe(lo, m, g, fm, unused);
        return (REAL)0;
    }
    if (!wet_lo && wet_hi && hi.w[0] - hi.bed < -lo.bed) {  // a wall for the wet cell above
        Frame m = in_frame(chi, a, true);
        roe(m, hi, g, unused, fp);
        return (REAL)0;
    }
    return roe(lo, hi, g, fm, fp);
}

// What a cell would give away over the step (cpu.rs, `outflow`): phi[a][0] / phi[a][1] the
// mass fluxes of its edges below / above along axis a.
__device__ __forceinline__ REAL outflow(const REAL phi[2][2], const REAL lam[2]) {
    REAL out = (REAL)0;
    for (int a = 0; a < 2; ++a) out = out + lam[a] * (fmax(-phi[a][0], (REAL)0) + fmax(phi[a][1], (REAL)0));
    return out;
}

// The shares of the donors of the edges below and above a cell (cpu.rs, `edge_shares`).
__device__ __forceinline__ void edge_shares(const REAL phi[2], REAL lo, REAL me, REAL hi, REAL t[2]) {
    const REAL zero = (REAL)0;
    t[0] = phi[0] > zero ? lo : (phi[0] < zero ? me : (REAL)1);
    t[1] = phi[1] > zero ? me : (phi[1] < zero ? hi : (REAL)1);
}

// The water and the pollutant after the step (cpu.rs, `transport`, which says why hC / h stays
// within its donors' bounds): theta[a][side], conc[a][side] of the cells below and above,
// theta_p the cell's share.
// c is the cell's concentration before the step (h > 0 ? hC / h : 0, `cell_state`).
__device__ __forceinline__ void transport(REAL& h, REAL& hc, REAL c, const REAL phi[2][2], const REAL theta[2][2],
    const REAL conc[2][2], REAL theta_p, const REAL lam[2]) {
    const REAL zero = (REAL)0;
    const REAL out = outflow(phi, lam);
    const REAL rest = out > h ? zero : h - out;
    REAL gained = rest;
    REAL pollutant = out == zero ? hc : c * rest;
    REAL bound = (rest > zero || out == zero) ? c : zero;
    REAL depth = h;
    for (int a = 0; a < 2; ++a) {
        const REAL f_lo = lam[a] * phi[a][0], f_hi = lam[a] * phi[a][1];
        const REAL g_lo = phi[a][0] > zero ? theta[a][0] * f_lo : theta_p * f_lo;
        const REAL g_hi = phi[a][1] > zero ? theta_p * f_hi : theta[a][1] * f_hi;
        depth = depth - (g_hi - g_lo);
        for (int side = 0; side < 2; ++side) {
            const REAL flux = side == 0 ? phi[a][0] : -phi[a][1];
            const REAL given = theta[a][side] * (lam[a] * fmax(flux, zero));
            gained = gained + given;
            pollutant = pollutant + conc[a][side] * given;
            if (given > zero) bound = fmax(bound, conc[a][side]);
        }
    }
    if (out > h) depth = gained;
    h = depth;
    hc = fmin(pollutant, bound * fmax(depth, zero));
}

// A cell's new state (h, q_x, q_y, hC) in v: at or below the dry depth no depth below zero and
// no velocity, the pollutant staying; below the thin depth Kurganov & Petrova's
// desingularization of the momentum (cpu.rs).
__device__ __forceinline__ void dry_or_thin(const SweParams& s, REAL* v) {
    if (v[0] <= s.dry) {
        v[0] = fmax(v[0], (REAL)0);
        v[1] = v[2] = (REAL)0;
    } else if (v[0] < s.thin) {
        const REAL thin4 = s.thin * s.thin * s.thin * s.thin;
        const REAL h4 = v[0] * v[0] * v[0] * v[0];
        const REAL scale = (REAL)1.4142135623730951 * v[0] * v[0] / sqrt(h4 + thin4);
        for (int k = 1; k < 3; ++k) v[k] = v[k] * scale;
    }
}

// The step's lam_a = dt / h_a, as the CPU rounds it.
__device__ __forceinline__ void step_ratios(const SweParams& s, double dt, REAL lam[2]) {
    lam[0] = (REAL)(dt / s.h[0]);
    lam[1] = (REAL)(dt / s.h[1]);
}

// Where the share of cell (i, j) is found (cpu.rs, `share_source`); false: share 1.
__device__ __forceinline__ bool share_source(const SweParams& s, int& i, int& j) {
    const int nx = s.g.n[0], ny = s.g.n[1];
    if (i < 0 || i >= nx) {
        if ((i >= nx ? s.faces[1] : s.faces[0]) != 1) return false;
        i = ((i % nx) + nx) % nx;
    }
    if (j < 0 || j >= ny) {
        const int f = j >= ny ? s.faces[3] : s.faces[2];
        if (f == 1) j = ((j % ny) + ny) % ny;
        else if (f != 2) return false;
    }
    return true;
}

// The share of the cell at (i, j) (cpu.rs, `share`: all its outflow if it holds that much
// water, else h / outflow), its edges solved from the state in global memory: the step
// kernel's way for a periodic ghost, whose share is that of the cell it copies.
#ifdef SWE_SHARE_NOINLINE
__device__ __noinline__
#else
__device__ __forceinline__
#endif
REAL share_at(const SweParams& s, const REAL* __restrict__ w, const REAL* __restrict__ bed,
    int i, int j, const REAL* lam) {
    REAL phi[2][2] = {{0, 0}, {0, 0}}, fm[4], fp[4];
    const CellState me = cell_state(s, w, bed, grid_at(s.g, i, j, 0));
#pragma unroll
    for (int a = 0; a < 2; ++a) {
        if (!((s.active >> a) & 1)) continue;
        const int di = a == 0 ? 1 : 0, dj = a == 0 ? 0 : 1;
        const CellState below = cell_state(s, w, bed, grid_at(s.g, i - di, j - dj, 0));
        const CellState above = cell_state(s, w, bed, grid_at(s.g, i + di, j + dj, 0));
        phi[a][0] = edge(below, me, a, s.grav, s.dry, fm, fp);
        phi[a][1] = edge(me, above, a, s.grav, s.dry, fm, fp);
    }
    const REAL out = outflow(phi, lam);
    return out > me.w[0] ? me.w[0] / out : (REAL)1;
}

// The wave-speed rate of a state (h, q_x, q_y): sum over active axes of (|u_a| + sqrt(g h)) /
// h_a; 0 in dry cells (cpu.rs, stable_dt).
__device__ __forceinline__ double state_rate(const SweParams& s, REAL depth, const REAL* q) {
    const double h = (double)depth;
    if (h <= s.dry_d) return 0.0;
    const double c = sqrt(s.gravity * h);
    double sum = 0.0;
#pragma unroll
    for (int a = 0; a < 2; ++a) {
        if (!((s.active >> a) & 1)) continue;
        sum = sum + (fabs(quotient((double)q[a], h)) + c) / s.h[a];
    }
    return sum;
}

// The rate of the state at p.
__device__ __forceinline__ double cell_rate(const SweParams& s, const REAL* w, u64 p) {
    const REAL q[2] = {w[s.g.cstride + p], w[2 * s.g.cstride + p]};
    return state_rate(s, w[p], q);
}

// The step's rate (non-negative) and the concentration's bounds (hC / h and -hC / h, floored
// at 0: cpu.rs) folded into *rate, bounds[0], bounds[1] as block_max_into does, all three in
// one pass (the bounds as REAL: converting to double keeps their order, so the maximum is the
// same).
__device__ __forceinline__ void block_fold(double r, REAL c_max, REAL c_below, u64* rate, u64* bounds) {
    __shared__ double sr[32];
    __shared__ REAL sc[2][32];
    for (int o = 16; o > 0; o >>= 1) {
        r = fmax(r, __shfl_down_sync(0xffffffffu, r, o));
        c_max = fmax(c_max, __shfl_down_sync(0xffffffffu, c_max, o));
        c_below = fmax(c_below, __shfl_down_sync(0xffffffffu, c_below, o));
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        sr[warp] = r;
        sc[0][warp] = c_max;
        sc[1][warp] = c_below;
    }
    __syncthreads();
    if (warp == 0) {
        const bool in = lane < (int)(blockDim.x >> 5);
        r = in ? sr[lane] : 0.0;
        c_max = in ? sc[0][lane] : (REAL)0;
        c_below = in ? sc[1][lane] : (REAL)0;
        for (int o = 16; o > 0; o >>= 1) {
            r = fmax(r, __shfl_down_sync(0xffffffffu, r, o));
            c_max = fmax(c_max, __shfl_down_sync(0xffffffffu, c_max, o));
            c_below = fmax(c_below, __shfl_down_sync(0xffffffffu, c_below, o));
        }
        if (lane == 0) {
            const double bound[2] = {(double)c_max, (double)c_below};
            if (r != 0.0) atomicMax(rate, (u64)__double_as_longlong(r));
            if (bound[0] != 0.0) atomicMax(&bounds[0], (u64)__double_as_longlong(bound[0]));
            if (bound[1] != 0.0) atomicMax(&bounds[1], (u64)__double_as_longlong(bound[1]));
        }
    }
}

// The rate of the current state, folded into *rate (the start of a batch, or stable_dt).
extern "C" __global__ void swe_rate(SweParams s, const REAL* __restrict__ w, u64* rate) {
    early_launch_entry();
    const u64 points = (u64)s.g.n[0] * s.g.n[1];
    const u64 q = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    block_max_into(q < points ? cell_rate(s, w, cell_at(s.g, q)) : 0.0, rate);
}

// The step kernel's tile: TX x TY cells (32 x 8, 16 x 8 in double precision: chosen while its
// shared memory was static, 48 KiB at most), one thread a cell; SWE_TX, SWE_TY set them
// (cuda.rs launches TX * TY threads a block).
#ifndef SWE_TX
#define SWE_TX (sizeof(REAL) == 4 ? 32 : 16)
#endif
constexpr int TX = SWE_TX;
#ifndef SWE_TY
#define SWE_TY 8
#endif
constexpr int TY = SWE_TY;
// Blocks an SM should hold at once (registers capped to fit them): as many as make 1536 threads
// in single precision (40 registers) and 896 in double (72); measured faster than the
// compiler's own choice of 56 and 82 registers, and in single precision than 5, 7 or 8 blocks
// of 32 x 8.
constexpr int SWE_SM_THREADS = sizeof(REAL) == 4 ? 1536 : 896;
#ifndef SWE_MINB
#define SWE_MINB (SWE_SM_THREADS / (TX * TY) > 1 ? SWE_SM_THREADS / (TX * TY) : 1)
#endif

// The step kernel's tile in shared memory (dynamic: a 32 x 16 tile needs more than the 48 KiB a
// block may hold statically). The host launches it with kernels/src/lib.rs's
// `swe::step_shared_bytes`, passed here as SWE_STEP_SHARED_BYTES; every member is REAL-typed,
// so there is no padding. Places as in swe_step.
struct StepShared {
    CellState cells[TY + 4][TX + 4];
    REAL xphi[TY + 2][TX + 3], yphi[TY + 3][TX + 2], share[TY + 2][TX + 2];
    REAL xm[2][TY][TX + 1], xp[2][TY][TX + 1];
    REAL ym[2][TY + 1][TX], yp[2][TY + 1][TX];
};
#ifdef SWE_STEP_SHARED_BYTES
static_assert(sizeof(StepShared) == SWE_STEP_SHARED_BYTES, "the host's step_shared_bytes and StepShared disagree");
#endif

// Cells of the step's tile by their place (lx, ly) from the tile's first: those updated,
// [0, ux) x [0, uy); those stored, [sx0, sx1] x [sy0, sy1] (the ring's too: one ghost layer
// along x, the halo along y); rx, ry 1 along an active axis, else 0.
struct TilePlaces {
    int ux, uy, rx, ry, sx0, sx1, sy0, sy1;
    // Whether the update reads the share of (lx, ly): an updated cell, or one beside an updated
    // one along an active axis.
    __device__ __forceinline__ bool shared_share(int lx, int ly) const {
        return (lx >= 0 && lx < ux && ly >= -ry && ly < uy + ry) || (lx >= -rx && lx < ux + rx && ly >= 0 && ly < uy);
    }
    __device__ __forceinline__ bool stored(int lx, int ly) const {
        return lx >= sx0 && lx <= sx1 && ly >= sy0 && ly <= sy1;
    }
};

// The tile's cells and two rings of neighbours (not the far corners) into shared memory, the
// tile's first cell at (i0, j0).
__device__ __forceinline__ void step_load_cells(StepShared& sh, const SweParams& s, const REAL* w, const REAL* bed,
    int i0, int j0, const TilePlaces& at) {
    for (int t = threadIdx.x; t < (TX + 4) * (TY + 4); t += blockDim.x) {
        const int lx = t % (TX + 4) - 2, ly = t / (TX + 4) - 2;
        const int ox = lx < 0 ? -lx : (lx >= TX ? lx - TX + 1 : 0), oy = ly < 0 ? -ly : (ly >= TY ? ly - TY + 1 : 0);
        if (ox + oy <= 2 && at.stored(lx, ly)) sh.cells[ly + 2][lx + 2] = cell_state(s, w, bed, grid_at(s.g, i0 + lx, j0 + ly, 0));
    }
}

// The edges of the cells whose shares are found, each solved once into shared memory: x edges
// (TY + 2 rows of TX + 3), then y edges (TY + 3 rows of TX + 2), each from its cell below
// (lx, ly): the mass flux of every one, the momentum's contributions of those of the tile's
// cells. `full`: both axes on, every cell updated, the two rings stored.
__device__ __forceinline__ void step_solve_edges(StepShared& sh, const SweParams& s, const TilePlaces& at, bool full,
    bool x_on, bool y_on) {
    constexpr int NXE = (TY + 2) * (TX + 3), NYE = (TY + 3) * (TX + 2);
#if SWE_EDGE_LOOPS_BY_AXIS
    // One loop an axis, unrolled: the axis a constant in each, so that the edge's frame and its
    // stores need no choice by axis. cuda.rs asks for it in single precision (4 % faster at
    // 8000^2, 2-3 % at 1000^2); in double precision it was 1.6-1.8 % slower.
#pragma unroll
    for (int a = 0; a < 2; ++a)
        for (int e = threadIdx.x + (a == 0 ? 0 : NXE); e < (a == 0 ? NXE : NXE + NYE); e += blockDim.x) {
#else
    for (int e = threadIdx.x; e < NXE + NYE; e += blockDim.x) {
        const int a = e < NXE ? 0 : 1;
#endif
        // Each axis's row width a constant: a division by a variable width cost 45
        // instructions an edge.
        const int ex = a == 0 ? e % (TX + 3) : (e - NXE) % (TX + 2);
        const int ey = a == 0 ? e / (TX + 3) : (e - NXE) / (TX + 2);
        const int lx = a == 0 ? ex - 2 : ex - 1, ly = a == 0 ? ey - 1 : ey - 2;
        const int hx = lx + (a == 0 ? 1 : 0), hy = ly + a;
        // A full tile needs every edge but those of the far corners' cells.
        const bool need = full ? (a == 0 ? (unsigned)(ey - 1) < (unsigned)TY || (unsigned)(ex - 1) <= (unsigned)TX
                                         : (unsigned)(ex - 1) < (unsigned)TX || (unsigned)(ey - 1) <= (unsigned)TY)
                               : (a == 0 ? x_on : y_on) && (at.shared_share(lx, ly) || at.shared_share(hx, hy))
                && at.stored(lx, ly) && at.stored(hx, hy);
        if (!need) continue;
        REAL fm[4], fp[4];
        const REAL phi = edge(sh.cells[ly + 2][lx + 2], sh.cells[hy + 2][hx + 2], a, s.grav, s.dry, fm, fp);
        if (a == 0) {
            sh.xphi[ey][ex] = phi;
            if (ly >= 0 && ly < TY && hx >= 0 && hx <= TX) {
                for (int k = 0; k < 2; ++k) {
                    sh.xm[k][ly][hx] = fm[k + 1];
                    sh.xp[k][ly][hx] = fp[k + 1];
                }
            }
        } else {
            sh.yphi[ey][ex] = phi;
            if (lx >= 0 && lx < TX && hy >= 0 && hy <= TY) {
                for (int k = 0; k < 2; ++k) {
                    sh.ym[k][hy][lx] = fm[k + 1];
                    sh.yp[k][hy][lx] = fp[k + 1];
                }
            }
        }
    }
}

// The shares (cpu.rs, `shares`): 1 for the ghosts of the grid's faces, a periodic ghost's
// that of the cell it copies (found from global memory), the others' from their edges.
__device__ __forceinline__ void step_find_shares(StepShared& sh, const SweParams& s, const REAL* w, const REAL* bed,
    int i0, int j0, const TilePlaces& at, bool x_on, bool y_on, const REAL* lam) {
    for (int t = threadIdx.x; t < (TX + 2) * (TY + 2); t += blockDim.x) {
        const int lx = t % (TX + 2) - 1, ly = t / (TX + 2) - 1;
        if (!at.shared_share(lx, ly)) continue;
        int si = i0 + lx, sj = j0 + ly;
        REAL value = (REAL)1;
        if (share_source(s, si, sj)) {
            if (si == i0 + lx && sj == j0 + ly) {
                REAL phi[2][2] = {{0, 0}, {0, 0}};
                if (x_on) {
                    phi[0][0] = sh.xphi[ly + 1][lx + 1];
                    phi[0][1] = sh.xphi[ly + 1][lx + 2];
                }
                if (y_on) {
                    phi[1][0] = sh.yphi[ly + 1][lx + 1];
                    phi[1][1] = sh.yphi[ly + 2][lx + 1];
                }
                const REAL flow = outflow(phi, lam), h = sh.cells[ly + 2][lx + 2].w[0];
                value = flow > h ? h / flow : (REAL)1;
            } else {
                value = share_at(s, w, bed, si, sj, lam);
            }
        }
        sh.share[ly + 1][lx + 1] = value;
    }
}

// What crosses the grid's faces (not periodic, not another slab's) at the owned cell (i, j),
// added to ledger[4] (water in, out, pollutant in, out: cpu.rs, `crossing`); the cell's
// edges' mass fluxes phi, their donors' shares th and concentrations conc, its own share
// theta_p and state me (in shared memory).
__device__ __forceinline__ void step_ledger(const SweParams& s, double* ledger, int i, int j, const REAL phi[2][2],
    const REAL th[2][2], const REAL conc[2][2], REAL theta_p, const CellState& me, const REAL* lam) {
    const int at[2] = {i, j};
#pragma unroll
    for (int a = 0; a < 2; ++a) {
        if (!((s.active >> a) & 1)) continue;
#pragma unroll
        for (int side = 0; side < 2; ++side) {
            if (s.faces[2 * a + side] != 0 || at[a] != (side == 0 ? 0 : s.g.n[a] - 1)) continue;
            const REAL into = side == 0 ? phi[a][0] : -phi[a][1];
            const REAL given_in = th[a][side] * (lam[a] * fmax(into, (REAL)0));
            const REAL given_out = theta_p * (lam[a] * fmax(-into, (REAL)0));
            atomicAdd(&ledger[0], (double)given_in * s.area);
            atomicAdd(&ledger[1], (double)given_out * s.area);
            atomicAdd(&ledger[2], (double)(conc[a][side] * given_in) * s.area);
            atomicAdd(&ledger[3], (double)(me.conc * given_out) * s.area);
        }
    }
}

// Semi-implicit Manning friction on the momentum of v over the step dt (cpu.rs, manning_factor).
__device__ __forceinline__ void step_friction(const SweParams& s, double dt, REAL* v) {
    const double h = (double)v[0];
    if (!(h <= s.dry_d)) {
        const double k = dt * s.gravity * s.manning * s.manning;
        const double qx = (double)v[1], qy = (double)v[2];
        const double speed = sqrt(qx * qx + qy * qy) / h;
        const REAL factor = (REAL)(1.0 / (1.0 + k * speed / pow(h, 4.0 / 3.0)));
        v[1] = v[1] * factor;
        v[2] = v[2] * factor;
    }
}

// The cell at place (ti, tj) of the tile, its x edges (frame (h, q_x, q_y), the cell's own
// order along x): their mass fluxes into phi[0], their donors' shares and concentrations into
// th[0], conc[0], and each edge's momentum contributions times its donor's share (cpu.rs,
// `edge_shares`: 1 unless the donor gives all) taken from v; theta_p is the cell's share.
__device__ __forceinline__ void step_x_edges(const StepShared& sh, const REAL* lam, int ti, int tj, REAL theta_p,
    REAL (&v)[4], REAL (&phi)[2][2], REAL (&th)[2][2], REAL (&conc)[2][2]) {
    const REAL ratio = lam[0];
    phi[0][0] = sh.xphi[tj + 1][ti + 1];
    phi[0][1] = sh.xphi[tj + 1][ti + 2];
    th[0][0] = sh.share[tj + 1][ti];
    th[0][1] = sh.share[tj + 1][ti + 2];
    conc[0][0] = sh.cells[tj + 2][ti + 1].conc;
    conc[0][1] = sh.cells[tj + 2][ti + 3].conc;
    REAL t[2];
    edge_shares(phi[0], th[0][0], theta_p, th[0][1], t);
#pragma unroll
    for (int k = 1; k < 3; ++k) v[k] = v[k] - ratio * (t[0] * sh.xp[k - 1][tj][ti] + t[1] * sh.xm[k - 1][tj][ti + 1]);
}

// The same for the cell's y edges, into phi[1], th[1], conc[1] (frame (h, q_y, q_x):
// components 1 and 2 swap back).
__device__ __forceinline__ void step_y_edges(const StepShared& sh, const REAL* lam, int ti, int tj, REAL theta_p,
    REAL (&v)[4], REAL (&phi)[2][2], REAL (&th)[2][2], REAL (&conc)[2][2]) {
    const REAL ratio = lam[1];
    phi[1][0] = sh.yphi[tj + 1][ti + 1];
    phi[1][1] = sh.yphi[tj + 2][ti + 1];
    th[1][0] = sh.share[tj][ti + 1];
    th[1][1] = sh.share[tj + 2][ti + 1];
    conc[1][0] = sh.cells[tj + 1][ti + 2].conc;
    conc[1][1] = sh.cells[tj + 3][ti + 2].conc;
    REAL t[2];
    edge_shares(phi[1], th[1][0], theta_p, th[1][1], t);
    v[2] = v[2] - ratio * (t[0] * sh.yp[0][tj][ti] + t[1] * sh.ym[0][tj + 1][ti]);
    v[1] = v[1] - ratio * (t[0] * sh.yp[1][tj][ti] + t[1] * sh.ym[1][tj + 1][ti]);
}

// One step of clock[CLOCK_DT] from w (ghosts filled) into out, and the rate of what it wrote
// folded into *rate. The water and the pollutant move with the edges' mass fluxes at the
// donors' shares (`transport`), and a cell's share depends on its four edges, so a block
// finds the shares of its tile's cells and of the ring of cells beside them (cpu.rs, `shares`)
// itself: it loads its tile and two rings of neighbours (not the far corners) once, solves each
// edge of those cells once into shared memory (the momentum's contributions of its own cells'
// edges kept), finds the shares, then updates its cells as cpu.rs does (x edges, then y, each
// cell's lower edge before its upper one). Each edge is solved once a step in the block (the
// ring's, beside other tiles, once more there); the values are those of the CPU's `shares` and
// `update`. With no step to take (dt = 0) the state is copied as it is.
// The rows row0..row_end are updated, tiled from row0: the owned rows 0..n[1], or with
// ghost-cell expansion also ghost rows beside other slabs (negative, or from n[1]), which a
// slab updates again as their owner does (cuda.rs, `tile_plan`; the two rings the tiles read
// stay inside the halo: `slab::REACH`). Tile rows first_row + blockIdx.y * row_step: a
// decomposed run could update the rows beside other ranks apart (the first and the last,
// row_step apart), once their ghost rows have arrived. Only owned cells count towards the
// clipped water and the rate. What crosses the grid's faces in owned cells is added to
// ledger[4] (water in, out, pollutant in, out: cpu.rs, `crossing`).
extern "C" __global__ void __launch_bounds__(TX * TY, SWE_MINB) swe_step(SweParams s, const REAL* __restrict__ w,
    const REAL* __restrict__ bed, REAL* __restrict__ out, const double* __restrict__ clock, u64* rate, double* clipped,
    double* ledger, u64* bounds, int first_row, int row_step, int row0, int row_end) {
    early_launch_entry();
    const Layout& g = s.g;
    const int ti = threadIdx.x % TX, tj = threadIdx.x / TX;
    const int tile_row = first_row + (int)blockIdx.y * row_step;
    const int i0 = blockIdx.x * TX, j0 = row0 + tile_row * TY;  // the tile's first cell
    const int i = i0 + ti, j = j0 + tj;
    const bool inside = i < g.n[0] && j < row_end;
    const bool owned = inside && j >= 0 && j < g.n[1];
    const u64 cs = g.cstride;
    const double dt = clock[CLOCK_DT];
    if (!(dt > 0.0)) {
        if (inside) {
            const u64 p = grid_at(g, i, j, 0);
            for (int k = 0; k < 4; ++k) out[k * cs + p] = w[k * cs + p];
        }
        return;
    }
    const bool x_on = s.active & 1, y_on = (s.active >> 1) & 1;
    __shared__ REAL lam[2];  // one thread's (two divisions in double)
    if (threadIdx.x == 0) step_ratios(s, dt, lam);
    const int ux = min(TX, g.n[0] - i0), uy = min(TY, row_end - j0), rx = x_on ? 1 : 0, ry = y_on ? 1 : 0;
    const int sx0 = -1 - i0, sx1 = g.n[0] - i0, sy0 = -g.halo[1] - j0, sy1 = g.n[1] + g.halo[1] - 1 - j0;
    const TilePlaces at = {ux, uy, rx, ry, sx0, sx1, sy0, sy1};
    // Both axes on, every cell updated, the two rings stored.
    const bool full = x_on && y_on && ux == TX && uy == TY && sx0 <= -2 && sx1 >= TX + 1 && sy0 <= -2 && sy1 >= TY + 1;
    // cells[ly + 2][lx + 2]; phi of the x edge left of (lx, ly) at xphi[ly + 1][lx + 1], of the
    // y edge below it at yphi[ly + 1][lx + 1]; share of (lx, ly) at share[ly + 1][lx + 1].
    // The momentum's contributions (k = 0, 1: frame components 1, 2) of the edges of the tile's
    // cells: xm, xp, ym, yp [k][row][edge] to the cell below (F^-) and above (b - F^-).
    extern __shared__ __align__(16) unsigned char step_smem[];
    StepShared& sh = *reinterpret_cast<StepShared*>(step_smem);
    step_load_cells(sh, s, w, bed, i0, j0, at);
    __syncthreads();
    step_solve_edges(sh, s, at, full, x_on, y_on);
    __syncthreads();
    step_find_shares(sh, s, w, bed, i0, j0, at, x_on, y_on, lam);
    __syncthreads();
    double r = 0.0;
    REAL c_max = (REAL)0, c_below = (REAL)0;
    if (inside) {
        // As cpu.rs updates a cell: x edges, then y, each cell's lower edge before its upper one.
        const u64 p = grid_at(g, i, j, 0);
        const CellState& me = sh.cells[tj + 2][ti + 2];
        REAL v[4] = {me.w[0], me.w[1], me.w[2], me.w[3]};
        REAL phi[2][2] = {{0, 0}, {0, 0}}, th[2][2] = {{0, 0}, {0, 0}}, conc[2][2] = {{0, 0}, {0, 0}};
        const REAL theta_p = sh.share[tj + 1][ti + 1];
        if (x_on) step_x_edges(sh, lam, ti, tj, theta_p, v, phi, th, conc);
        if (y_on) step_y_edges(sh, lam, ti, tj, theta_p, v, phi, th, conc);
        if (owned) step_ledger(s, ledger, i, j, phi, th, conc, theta_p, me, lam);
        transport(v[0], v[3], me.conc, phi, th, conc, theta_p, lam);
        if (owned && v[0] < (REAL)0) atomicAdd(clipped, -(double)v[0] * s.area);
        dry_or_thin(s, v);
        if (s.manning > 0.0) step_friction(s, dt, v);
        for (int k = 0; k < 4; ++k) out[k * cs + p] = v[k];
        if (owned) r = state_rate(s, v[0], v + 1);  // the state just written
        if (owned && v[0] > (REAL)0) {
            const REAL c = quotient(v[3], v[0]);
            c_max = fmax(c, (REAL)0);
            c_below = fmax(-c, (REAL)0);
        }
    }
    block_fold(r, c_max, c_below, rate, bounds);
}

// After a step: the clock advanced, then the next step from the folded rate (clock.cuh);
// *rate is reset for the next step. One thread.
extern "C" __global__ void swe_clock(double* clock, u64* rate, double cfl, double until) {
    early_launch_entry();
    if (blockIdx.x != 0 || threadIdx.x != 0) return;  // one thread: it reads and resets the fold
    const double r = __longlong_as_double((long long)*rate);
    *rate = 0;
    clock_tick(clock, r > 0.0 ? cfl / r : __longlong_as_double(0x7ff0000000000000LL), until);
}

// The first interior cell (x fastest) whose depth is negative or whose state is not finite, by
// atomicMin into *first (which the host sets to ~0 beforehand).
extern "C" __global__ void swe_first_bad(SweParams s, const REAL* __restrict__ w, u64* first) {
    early_launch_entry();
    const u64 points = (u64)s.g.n[0] * s.g.n[1];
    for (u64 q = blockIdx.x * (u64)blockDim.x + threadIdx.x; q < points; q += (u64)gridDim.x * blockDim.x) {
        const u64 p = cell_at(s.g, q);
        bool finite = true;
        for (int k = 0; k < 4; ++k) finite = finite && isfinite(w[k * s.g.cstride + p]);
        if (!(w[p] >= (REAL)0 && finite)) atomicMin(first, q);
    }
}

// ---- Forcing (solver/src/cases/swe/forcing.rs, series.rs): open sides and point sources. ----

// A time series packed at `series + off`: n times, then n values. Linear in time, held
// constant outside (series.rs, `at`: the same interval, the same arithmetic).
__device__ double series_at(const double* series, int off, int n, double t) {
    const double* times = series + off;
    const double* values = series + off + n;
    if (!(t > times[0])) return values[0];
    if (t >= times[n - 1]) return values[n - 1];
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (times[mid] <= t) lo = mid;
        else hi = mid;
    }
    return values[lo] + (values[hi] - values[lo]) * ((t - times[lo]) / (times[hi] - times[lo]));
}

// Mirrors `OpenC` in cuda.rs: one open side, its series as (offset, length), length 0: none.
struct SweOpen {
    double conc;     // the inflow concentration (when has_conc)
    int axis, side;  // side 0: low (x-, y-), 1: high
    int level[2];
    int discharge[2];
    int has_conc;
};

#define SWE_MAX_OPEN 4
struct SweOpenSides {
    SweOpen side[SWE_MAX_OPEN];
    int count;
};

// The ghosts of every open side at the clock's time, after the halo fill: one thread per
// ghost cell (forcing.rs, `fill_open` and `open_ghost`, line by line), `per_side` threads a
// side; the x sides in rows x_row0..x_row0 + x_rows (a slab's ghost rows too), the y sides
// unless y_sides is 0.
extern "C" __global__ void swe_open(SweParams s, SweOpenSides sides, REAL* w, const REAL* __restrict__ bed,
    const double* __restrict__ series, const double* __restrict__ clock, int per_side, int x_row0, int x_rows,
    int y_sides) {
    early_launch_entry();
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= sides.count * per_side) return;
    const SweOpen o = sides.side[t / per_side];
    const int a = o.axis;
    int r = t % per_side;
    if (a == 0) {
        if (r >= x_rows) return;
        r += x_row0;
    } else if (!y_sides || r >= s.g.n[0]) {
        return;
    }
    const double time = clock[CLOCK_TIME];
    const int edge = o.side == 0 ? 0 : s.g.n[a] - 1, ghost = o.side == 0 ? -1 : s.g.n[a];
    const u64 p = a == 0 ? grid_at(s.g, edge, r, 0) : grid_at(s.g, r, edge, 0);
    const u64 gp = a == 0 ? grid_at(s.g, ghost, r, 0) : grid_at(s.g, r, ghost, 0);
    const u64 cs = s.g.cstride;
    const REAL h_in = w[p], qn_in = w[(1 + a) * cs + p], qt_in = w[(2 - a) * cs + p], hc_in = w[3 * cs + p];
    const bool has_level = o.level[1] > 0;
    REAL h = h_in;
    if (has_level) h = fmax((REAL)(series_at(series, o.level[0], o.level[1], time) + (double)bed[gp]), (REAL)0);
    REAL v[4] = {h, (REAL)0, (REAL)0, (REAL)0};
    if (!(h <= s.dry)) {
        // Positive discharges flow into the domain: along +axis on the low side.
        const double sign = o.side == 0 ? 1.0 : -1.0;
        v[1] = o.discharge[1] > 0 ? (REAL)(sign * series_at(series, o.discharge[0], o.discharge[1], time)) : qn_in;
        v[2] = qt_in;
        if (o.has_conc) v[3] = h * (REAL)o.conc;
        else if (!has_level) v[3] = hc_in;
        else v[3] = h_in > s.dry ? h * (hc_in / h_in) : (REAL)0;
    }
    w[gp] = v[0];
    w[(1 + a) * cs + gp] = v[1];
    w[(2 - a) * cs + gp] = v[2];
    w[3 * cs + gp] = v[3];
}

// The point sources over the clock's step (none when there is no step), in order, by one
// thread: each in rows row_lo..row_hi adds Q dt / area to h and Q C dt / area to hC of its cell
// (padded index cells[k]; its discharge series desc[2k], desc[2k + 1]; its concentration
// conc[k]); the volume of water and the pollutant that those in owned rows added are summed
// into added[0], added[1] (forcing.rs, `add_sources`; a slab's ghost rows hold other slabs'
// sources, which it applies again where it updates those rows or their neighbours).
extern "C" __global__ void swe_sources(SweParams s, REAL* w, const double* __restrict__ clock,
    const double* __restrict__ series, const u64* __restrict__ cells, const int* __restrict__ desc,
    const double* __restrict__ conc, int count, double* added, int row_lo, int row_hi) {
    early_launch_entry();
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const double dt = clock[CLOCK_DT], time = clock[CLOCK_TIME];
    if (!(dt > 0.0)) return;
    const u64 cs = s.g.cstride;
    for (int k = 0; k < count; ++k) {
        const u64 p = cells[k];
        const int row = (int)((p / (u64)s.g.px) % (u64)s.g.py) - s.g.halo[1];
        if (row < row_lo || row >= row_hi) continue;
        const double q = series_at(series, desc[2 * k], desc[2 * k + 1], time);
        const REAL water = (REAL)(q * dt / s.area), pollutant = (REAL)(q * conc[k] * dt / s.area);
        w[p] = w[p] + water;
        w[3 * cs + p] = w[3 * cs + p] + pollutant;
        if (row >= 0 && row < s.g.n[1]) {
            added[0] = added[0] + (double)water * s.area;
            added[1] = added[1] + (double)pollutant * s.area;
        }
    }
}
