// Shallow water with a pollutant on the structured grid (solver/src/cases/swe/): the
// path-conservative Roe edge (roe.rs), one explicit step per launch with the dry-cell rules and
// Manning friction fused in (cpu.rs), and the adaptive step found on the device: each step's
// blocks fold the wave-speed rate of the state they wrote into one atomic maximum, and a
// one-thread kernel turns it into the next step size and advances the clock, so that many steps
// run without a round trip to the host (solver/src/framework/case.rs, advance_batch).
// Compiled with --fmad=false: the same arithmetic in the same order as the CPU, so both
// backends take the same steps and agree to rounding.
#include "grid.cuh"

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
};

// The device clock (doubles): time, the step about to be taken (0: none), steps taken, a flag
// set when a step size came out non-positive or not finite, and that step size.
#define CLOCK_TIME 0
#define CLOCK_DT 1
#define CLOCK_STEPS 2
#define CLOCK_BAD 3
#define CLOCK_BAD_DT 4

// A cell's state as the edges read it: the conserved (h, q_x, q_y, hC), the velocities and the
// concentration (q / h, 0 in dry cells: roe.rs, `velocities`), sqrt(max(h, 0)) and the bed H.
// Each cell's are found once per tile and shared by its four edges; the values are those the
// CPU finds anew at each edge, so the arithmetic is the same.
struct CellState {
    REAL w[4];
    REAL vel[3];
    REAL root;
    REAL bed;
};

__device__ __forceinline__ CellState cell_state(const SweParams& s, const REAL* w, const REAL* bed, u64 p) {
    CellState c;
    const u64 cs = s.g.cstride;
    for (int k = 0; k < 4; ++k) c.w[k] = w[k * cs + p];
    const REAL inv = (REAL)1 / c.w[0];  // reciprocal, then products (roe.rs, `velocities`)
    for (int k = 0; k < 3; ++k) c.vel[k] = c.w[0] > s.dry ? c.w[k + 1] * inv : (REAL)0;
    c.root = sqrt(fmax(c.w[0], (REAL)0));
    c.bed = bed[p];
    return c;
}

// A state in an edge's frame: (h, q_n, q_t, hC), velocities (u_n, u_t, C), sqrt(h), bed.
struct Frame {
    REAL w[4];
    REAL vel[3];
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
    f.vel[2] = c.vel[2];
    f.root = c.root;
    f.bed = c.bed;
    return f;
}

// The Roe contributions of an edge (roe.rs, `roe`): fm = F^- to the cell below, fp = b - F^-
// to the cell above.
__device__ __forceinline__ void roe(const Frame& lo, const Frame& hi, REAL g, REAL* fm, REAL* fp) {
    const REAL half = (REAL)0.5, two = (REAL)2, zero = (REAL)0;
    const REAL sl = lo.root, sh = hi.root;
    const REAL inv = (REAL)1 / (sl + sh);
    const REAL u = (sl * lo.vel[0] + sh * hi.vel[0]) * inv;
    const REAL v = (sl * lo.vel[1] + sh * hi.vel[1]) * inv;
    const REAL conc = (sl * lo.vel[2] + sh * hi.vel[2]) * inv;
    const REAL depth = half * (lo.w[0] + hi.w[0]);
    const REAL c = sqrt(g * depth);
    REAL d[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) d[k] = hi.w[k] - lo.w[k];
    const REAL d_bed = hi.bed - lo.bed;
    REAL b[4];
    b[0] = d[1];
    b[1] = g * depth * (d[0] - d_bed) - u * u * d[0] + two * u * d[1];
    b[2] = -u * v * d[0] + v * d[1] + u * d[2];
    b[3] = -u * conc * d[0] + conc * d[1] + u * d[3];
    const REAL inv_2c = (REAL)1 / (two * c);
    const REAL a1 = ((u + c) * b[0] - b[1]) * inv_2c;
    const REAL a4 = (b[1] - (u - c) * b[0]) * inv_2c;
    const REAL a2 = b[2] - v * b[0], a3 = b[3] - conc * b[0];
#define TOWARDS_LO(speed) ((speed) < zero ? (REAL)1 : ((speed) == zero ? half : zero))
    const REAL w1 = TOWARDS_LO(u - c) * a1, w23 = TOWARDS_LO(u), w4 = TOWARDS_LO(u + c) * a4;
#undef TOWARDS_LO
    fm[0] = w1 + w4;
    fm[1] = w1 * (u - c) + w4 * (u + c);
    fm[2] = (w1 + w4) * v + w23 * a2;
    fm[3] = (w1 + w4) * conc + w23 * a3;
#pragma unroll
    for (int k = 0; k < 4; ++k) fp[k] = b[k] - fm[k];
}

// The edge of axis a between cells lo and hi with its wet/dry rules (roe.rs, `edge`).
__device__ __forceinline__ void edge(const CellState& clo, const CellState& chi, int a, REAL g, REAL dry, REAL* fm, REAL* fp) {
    REAL unused[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) fm[k] = fp[k] = (REAL)0;
    const bool wet_lo = clo.w[0] > dry, wet_hi = chi.w[0] > dry;
    if (!wet_lo && !wet_hi) return;
    const Frame lo = in_frame(clo, a, false), hi = in_frame(chi, a, false);
    if (wet_lo && !wet_hi && lo.w[0] - lo.bed < -hi.bed) {  // a wall for the wet cell below
        Frame m = in_frame(clo, a, true);
        roe(lo, m, g, fm, unused);
        return;
    }
    if (!wet_lo && wet_hi && hi.w[0] - hi.bed < -lo.bed) {  // a wall for the wet cell above
        Frame m = in_frame(chi, a, true);
        roe(m, hi, g, unused, fp);
        return;
    }
    roe(lo, hi, g, fm, fp);
}

// The wave-speed rate of the state at p: sum over active axes of (|u_a| + sqrt(g h)) / h_a; 0
// in dry cells (cpu.rs, stable_dt).
__device__ __forceinline__ double cell_rate(const SweParams& s, const REAL* w, u64 p) {
    const double h = (double)w[p];
    if (h <= s.dry_d) return 0.0;
    const double c = sqrt(s.gravity * h);
    double sum = 0.0;
    for (int a = 0; a < 2; ++a) {
        if (!((s.active >> a) & 1)) continue;
        sum = sum + (fabs((double)w[(1 + a) * s.g.cstride + p] / h) + c) / s.h[a];
    }
    return sum;
}

// Fold a non-negative double into *slot by atomic maximum (non-negative doubles order as
// their bits do; a NaN's bits exceed infinity's, so NaN wins, as it must).
__device__ __forceinline__ void block_max_into(double m, u64* slot) {
    __shared__ double sm[32];
    for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_down_sync(0xffffffffu, m, o));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) sm[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < (int)(blockDim.x >> 5) ? sm[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_down_sync(0xffffffffu, m, o));
        if (lane == 0 && m != 0.0) atomicMax(slot, (u64)__double_as_longlong(m));
    }
}

// The rate of the current state, folded into *rate (the start of a batch, or stable_dt).
extern "C" __global__ void swe_rate(SweParams s, const REAL* __restrict__ w, u64* rate) {
    const u64 points = (u64)s.g.n[0] * s.g.n[1];
    const u64 q = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    block_max_into(q < points ? cell_rate(s, w, cell_at(s.g, q)) : 0.0, rate);
}

// The step kernel's tile: TX x TY cells (TY smaller in double precision, for shared memory),
// one thread a cell.
#define TX 32
constexpr int TY = sizeof(REAL) == 4 ? 8 : 4;

// One step of clock[CLOCK_DT] from w (ghosts filled) into out, and the rate of what it wrote
// folded into *rate. A block loads its tile of cells and one ring of neighbours once, computes
// each edge once into shared memory, then updates its cells as cpu.rs does (x edges, then y,
// each cell's lower edge before its upper one). With no step to take (dt = 0) the state is
// copied as it is.
// The rows row0..row_end are updated, tiled from row0: the owned rows 0..n[1], or with
// ghost-cell expansion also ghost rows beside other slabs (negative, or from n[1]), which a
// slab updates again as their owner does (cuda.rs, `tile_plan`; the ring the tiles read stays
// inside the halo). Tile rows first_row + blockIdx.y * row_step: a decomposed run updates the
// rows beside other ranks apart (the first and the last, row_step apart), once their ghost rows
// have arrived. Only owned cells count towards the clipped water and the rate.
extern "C" __global__ void __launch_bounds__(TX * 8) swe_step(SweParams s, const REAL* __restrict__ w,
    const REAL* __restrict__ bed, REAL* __restrict__ out, const double* __restrict__ clock, u64* rate, double* clipped,
    int first_row, int row_step, int row0, int row_end) {
    const Layout& g = s.g;
    const int ti = threadIdx.x % TX, tj = threadIdx.x / TX;
    const int tile_row = first_row + (int)blockIdx.y * row_step;
    const int j0 = row0 + tile_row * TY;  // the tile's first row
    const int i = blockIdx.x * TX + ti, j = j0 + tj;
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
    __shared__ CellState cells[TY + 2][TX + 2];
    // Edge contributions: [k][row][edge] to the cell below (F^-) and above (b - F^-).
    __shared__ REAL xm[4][TY][TX + 1], xp[4][TY][TX + 1];
    __shared__ REAL ym[4][TY + 1][TX], yp[4][TY + 1][TX];
    for (int t = threadIdx.x; t < (TX + 2) * (TY + 2); t += blockDim.x) {
        const int ci = blockIdx.x * TX + t % (TX + 2) - 1, cj = j0 + t / (TX + 2) - 1;
        // The tile's ring reaches one ghost layer on active axes only.
        if (ci >= -1 && ci <= g.n[0] && cj >= -g.halo[1] && cj < g.n[1] + g.halo[1])
            cells[t / (TX + 2)][t % (TX + 2)] = cell_state(s, w, bed, grid_at(g, ci, cj, 0));
    }
    __syncthreads();
    if (x_on) {
        for (int e = threadIdx.x; e < (TX + 1) * TY; e += blockDim.x) {
            const int ex = e % (TX + 1), ey = e / (TX + 1);
            const int ci = blockIdx.x * TX + ex, cj = j0 + ey;  // the cell above the edge
            if (ci > g.n[0] || cj >= row_end) continue;
            REAL fm[4], fp[4];
            edge(cells[ey + 1][ex], cells[ey + 1][ex + 1], 0, s.grav, s.dry, fm, fp);
            for (int k = 0; k < 4; ++k) {
                xm[k][ey][ex] = fm[k];
                xp[k][ey][ex] = fp[k];
            }
        }
    }
    if (y_on) {
        for (int e = threadIdx.x; e < TX * (TY + 1); e += blockDim.x) {
            const int ex = e % TX, ey = e / TX;
            const int ci = blockIdx.x * TX + ex, cj = j0 + ey;
            if (ci >= g.n[0] || cj > row_end) continue;
            REAL fm[4], fp[4];
            edge(cells[ey][ex + 1], cells[ey + 1][ex + 1], 1, s.grav, s.dry, fm, fp);
            for (int k = 0; k < 4; ++k) {
                ym[k][ey][ex] = fm[k];
                yp[k][ey][ex] = fp[k];
            }
        }
    }
    __syncthreads();
    double r = 0.0;
    if (inside) {
        const u64 p = grid_at(g, i, j, 0);
        const CellState& me = cells[tj + 1][ti + 1];
        REAL v[4] = {me.w[0], me.w[1], me.w[2], me.w[3]};
        if (x_on) {
            // Frame (h, q_x, q_y, hC) is the cell's own order along x.
            const REAL ratio = (REAL)(dt / s.h[0]);
#pragma unroll
            for (int k = 0; k < 4; ++k) v[k] = v[k] - ratio * (xp[k][tj][ti] + xm[k][tj][ti + 1]);
        }
        if (y_on) {
            // Frame (h, q_y, q_x, hC): components 1 and 2 swap back.
            const REAL ratio = (REAL)(dt / s.h[1]);
            v[0] = v[0] - ratio * (yp[0][tj][ti] + ym[0][tj + 1][ti]);
            v[2] = v[2] - ratio * (yp[1][tj][ti] + ym[1][tj + 1][ti]);
            v[1] = v[1] - ratio * (yp[2][tj][ti] + ym[2][tj + 1][ti]);
            v[3] = v[3] - ratio * (yp[3][tj][ti] + ym[3][tj + 1][ti]);
        }
        if (owned && v[0] < (REAL)0) atomicAdd(clipped, -(double)v[0] * s.area);
        if (v[0] <= s.dry) {
            // Dry: no depth below zero, no velocity, no pollutant carried.
            v[0] = fmax(v[0], (REAL)0);
            v[1] = v[2] = v[3] = (REAL)0;
        } else if (v[0] < s.thin) {
            // Kurganov & Petrova's desingularization (cpu.rs).
            const REAL thin4 = s.thin * s.thin * s.thin * s.thin;
            const REAL h4 = v[0] * v[0] * v[0] * v[0];
            const REAL scale = (REAL)1.4142135623730951 * v[0] * v[0] / sqrt(h4 + thin4);
            for (int k = 1; k < 4; ++k) v[k] = v[k] * scale;
        }
        if (s.manning > 0.0) {
            // Semi-implicit Manning friction (cpu.rs, manning_factor).
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
        for (int k = 0; k < 4; ++k) out[k * cs + p] = v[k];
        if (owned) r = cell_rate(s, out, p);
    }
    block_max_into(r, rate);
}

// After a step: the clock advanced by the step taken (snapped onto `until` within 1e-12, as
// clock.rs does), then the next step from the folded rate, cut so as to land on `until`; 0 once
// `until` is reached. *rate is reset for the next step. One thread.
extern "C" __global__ void swe_clock(double* clock, u64* rate, double cfl, double until) {
    double time = clock[CLOCK_TIME];
    const double dt = clock[CLOCK_DT];
    if (dt > 0.0) {
        double t = time + dt;
        if (fabs(t - until) <= 1e-12 * fmax(fabs(until), 1.0)) t = until;
        time = t;
        clock[CLOCK_TIME] = t;
        clock[CLOCK_STEPS] = clock[CLOCK_STEPS] + 1.0;
    }
    const double r = __longlong_as_double((long long)*rate);
    *rate = 0;
    double next = 0.0;
    if (time < until && clock[CLOCK_BAD] == 0.0) {
        next = r > 0.0 ? cfl / r : __longlong_as_double(0x7ff0000000000000LL);
        if (time + next >= until * (1.0 - 1e-12)) next = fmin(next, until - time);
        if (!(next > 0.0 && isfinite(next))) {
            clock[CLOCK_BAD] = 1.0;
            clock[CLOCK_BAD_DT] = next;
            next = 0.0;
        }
    }
    clock[CLOCK_DT] = next;
}

// The first interior cell (x fastest) whose depth is negative or whose state is not finite, by
// atomicMin into *first (which the host sets to ~0 beforehand).
extern "C" __global__ void swe_first_bad(SweParams s, const REAL* __restrict__ w, u64* first) {
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
