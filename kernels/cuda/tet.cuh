// Tetrahedral meshes on the device, shared by the families on tetrahedra: the mesh as the
// kernels read it (solver/src/mesh/cuda.rs builds it), 3x3 solves, the Voronoi-dual weight
// (eq. 11), barycentric coordinates and point location by walking (solver/src/mesh/locate.rs).
// Arithmetic as on the CPU, in REAL: every literal is cast to REAL (K(x)) so no expression is
// promoted to double; modules that include this are compiled with --fmad=false so products are
// rounded as on the CPU and discrete choices (walk faces, nearest vertex) come out the same.
#pragma once
#include "common.cuh"
#define K(x) ((REAL)(x))

// Occupancy hint for the gather kernels (blocks of 128 threads per SM), set by the host for
// tuning (CFD_SL_MIN_BLOCKS); none by default.
#ifdef MIN_BLOCKS
#define BOUNDS __launch_bounds__(128, MIN_BLOCKS)
#else
#define BOUNDS
#endif

struct Mesh {
    const REAL* nodes;      // 3 per node
    const u32* cells;       // 4 per cell
    const u32* nbrs;        // 4 per cell, 0x80000000 | patch on boundary faces
    const REAL* locrec;     // 16 per cell: face normals * area / (3 volume) (12), vertex 0 (3), a constant (1)
    const REAL* centroids;  // 3 per cell
    const REAL* volumes;
    const u32* doff;        // dual CSR offsets (nodes + 1)
    const u32* dcells;
    const REAL* dual;       // 16 per entry: normals (9), plane offsets (3), half lengths (3), |det N|
    const u32* voff;        // Dirichlet virtual cells: CSR offsets (nodes + 1)
    const u32* vpatch;      // their patch (value bc[patch])
    const REAL* virt;       // 16 per entry, as `dual`
    const REAL* node_bc;    // per node: Dirichlet value, NaN if none
    const u32* pcode;       // periodic faces: per cell 4 bytes, byte f face f's index into pshift (0 none)
    const REAL* pshift;     // 3 per entry: the shift to add to the neighbour's coordinates
    const u32* gstart;      // centroid buckets (mesh::centroid_grid): CSR offsets (buckets + 1)
    const u32* gcells;      // the cells of each bucket, in cell order
    u32 ncells;
    u32 nnodes;
    u32 periodic;           // 1: pcode and pshift hold the periodic faces (mesh::periodic)
    u32 gdims[3];           // buckets along x, y, z
    double glo[3];          // the buckets' low corner
    double ginv[3];         // one over a bucket's edge along x, y, z
};

#define BOUNDARY 0x80000000u
#define BIG K(1e30)

__device__ inline REAL dot3(const REAL* a, const REAL* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

__device__ REAL det3(REAL (*m)[3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

// Cramer's rule, as velocity::solve3.
__device__ void solve3(REAL (*m)[3], const REAL* b, REAL* x) {
    REAL d = det3(m);
    for (int col = 0; col < 3; ++col) {
        REAL mc[3][3];
        for (int r = 0; r < 3; ++r) for (int c = 0; c < 3; ++c) mc[r][c] = m[r][c];
        for (int r = 0; r < 3; ++r) mc[r][col] = b[r];
        x[col] = det3(mc) / d;
    }
}

// One packed record (16 REALs, 128 or 64 bytes, aligned: a dual entry or a cell's faces) in 8
// or 4 vector loads through the read-only cache: the walk and the interpolation are bound by
// L1 traffic of these gathers, and one record per cache line with wide loads issues far fewer
// requests than separate arrays.
__device__ inline void load16(const REAL* src, REAL* g) {
    if (sizeof(REAL) == 8) {
        const double2* v = (const double2*)src;
#pragma unroll
        for (int k = 0; k < 8; ++k) { double2 x = __ldg(v + k); g[2 * k] = x.x; g[2 * k + 1] = x.y; }
    } else {
        const float4* v = (const float4*)src;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            float4 x = __ldg(v + k);
            g[4 * k] = x.x; g[4 * k + 1] = x.y; g[4 * k + 2] = x.z; g[4 * k + 3] = x.w;
        }
    }
}

// Four aligned REALs (16 or 32 bytes) in one or two vector loads through the read-only cache.
__device__ inline void load4(const REAL* src, REAL* g) {
    if (sizeof(REAL) == 8) {
        const double2* v = (const double2*)src;
        double2 x = __ldg(v), y = __ldg(v + 1);
        g[0] = x.x; g[1] = x.y; g[2] = y.x; g[3] = y.y;
    } else {
        float4 x = __ldg((const float4*)src);
        g[0] = x.x; g[1] = x.y; g[2] = x.z; g[3] = x.w;
    }
}

// Eq. (11) for an entry's 16 values g, as meshtool::dual::warren_weight.
__device__ inline REAL warren_of(const REAL* g, const REAL* p) {
    REAL prod = K(1);
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        REAL dist = g[9 + k] - dot3(g + 3 * k, p);
        prod *= fmax(dist, K(1e-3) * g[12 + k]);
    }
    return g[15] / prod;
}

// Eq. (11) for packed entry e in global memory.
__device__ REAL warren(const REAL* e, const REAL* p) {
    REAL g[16];
    load16(e, g);
    return warren_of(g, p);
}

// Barycentric coordinates as locate::barycentric: one record per cell (TetGeometry::locate),
// its scaled face normals dotted with vertex 0 - p, face 0 plus the record's constant.
__device__ void barycentric(const Mesh& m, u32 c, const REAL* p, REAL* l) {
    REAL g[16];
    load16(m.locrec + 16 * (u64)c, g);
    const REAL d[3] = {g[12] - p[0], g[13] - p[1], g[14] - p[2]};
#pragma unroll
    for (int f = 0; f < 4; ++f) l[f] = dot3(g + 3 * f, d);
    l[0] += g[15];
}

// The vertex of cell c nearest p: the Voronoi-dual cell the interpolation sums over.
__device__ inline u32 nearest_vertex(const Mesh& m, u32 c, const REAL* p) {
    const u32* cell = m.cells + 4 * (u64)c;
    u32 v = cell[0];
    REAL best = BIG;
    for (int k = 0; k < 4; ++k) {
        const REAL* xn = m.nodes + 3 * (u64)cell[k];
        REAL d[3] = {xn[0] - p[0], xn[1] - p[1], xn[2] - p[2]};
        REAL dist = sqrt(dot3(d, d));
        if (dist < best) { best = dist; v = cell[k]; }
    }
    return v;
}

// The vertex groups of the Voronoi interpolation (sl.cu): a departure kernel handed a sink
// records each point's nearest vertex (NO_VERTEX outside the domain) and counts it into its
// group's bucket as it locates it, so the interpolation need not read the points again for
// that. near == 0: no sink (not the Voronoi interpolation by groups).
#define NO_VERTEX 0xffffffffu
struct GroupSink {
    const u32* vgroup;  // group of each vertex
    u32* near;          // per point: its nearest vertex
    u32* gcount;        // per group: its bucket's size (zeroed before)
};

__device__ inline void sink_point(const GroupSink& s, const Mesh& m, u32 i, u32 cell, int patch, const REAL* p) {
    const u32 v = patch < 0 ? nearest_vertex(m, cell, p) : NO_VERTEX;
    s.near[i] = v;
    // Consecutive points mostly share a group: one atomic per group present in the warp.
    const u32 g = v == NO_VERTEX ? NO_VERTEX : s.vgroup[v];
    const unsigned peers = __match_any_sync(__activemask(), g);
    if (g != NO_VERTEX && (threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(s.gcount + g, (u32)__popc(peers));
}

// Walk as locate::walk; returns 1 found (cell, patch = -1 inside or patch >= 0 outside), 0 budget
// spent. q: the point, moved in place by the shifts of the periodic faces crossed (into the frame
// of the cell found) where the walk succeeds.
__device__ int walk(const Mesh& m, u32 start, REAL* q, u32 max_steps, u32* cell, int* patch) {
    // locate::eps: 1e-12, or 100 ulp of 1 where that is larger (f32).
    const REAL EPS = fmax(K(1e-12), K(100) * (sizeof(REAL) == 4 ? K(1.1920929e-7) : K(2.220446049250313e-16)));
    u32 c = start;
    unsigned rng = 0x9E3779B9u ^ start;
    REAL p[3] = {q[0], q[1], q[2]};
    for (u32 step = 0; step < max_steps; ++step) {
        // The four neighbours load with the record (one latency per step, not two in a row).
        const uint4 nb = __ldg((const uint4*)(m.nbrs + 4 * (u64)c));
        REAL l[4];
        barycentric(m, c, p, l);
        REAL worst = l[0];
        int f = 0;
        for (int k = 1; k < 4; ++k) if (l[k] < worst) { worst = l[k]; f = k; }
        if (worst >= -EPS) { *cell = c; *patch = -1; q[0] = p[0]; q[1] = p[1]; q[2] = p[2]; return 1; }
        if (step > 16) {
            rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
            int neg[4], nn = 0;
            for (int k = 0; k < 4; ++k) if (l[k] < -EPS) neg[nn++] = k;
            f = neg[rng % nn];
        }
        const u32 d = f == 0 ? nb.x : f == 1 ? nb.y : f == 2 ? nb.z : nb.w;
        if (d & BOUNDARY) { *cell = c; *patch = (int)(d & ~BOUNDARY); q[0] = p[0]; q[1] = p[1]; q[2] = p[2]; return 1; }
        if (m.periodic) {
            // Across a periodic face the neighbour sits at its coordinates + s: p there is p - s.
            const u32 k = (m.pcode[c] >> (8 * f)) & 0xffu;
            if (k) for (int j = 0; j < 3; ++j) p[j] = p[j] - m.pshift[3 * (u64)k + j];
        }
        c = d;
    }
    return 0;
}

// The bucket of the centroid grid holding coordinate x along axis k, clamped into the grid.
__device__ inline int grid_bucket(const Mesh& m, int k, double x) {
    const double i = floor((x - m.glo[k]) * m.ginv[k]);
    return (int)fmin(fmax(i, 0.0), (double)(m.gdims[k] - 1));
}

// The cells of bucket (x, y, z) against the best so far: the lowest-numbered cell at the least
// distance, in the CPU's arithmetic.
__device__ inline void nearest_in_bucket(const Mesh& m, int x, int y, int z, const REAL* p, REAL* best, u32* bi) {
    const u32 b = (u32)x + m.gdims[0] * ((u32)y + m.gdims[1] * (u32)z);
    for (u32 j = m.gstart[b]; j < m.gstart[b + 1]; ++j) {
        const u32 c = m.gcells[j];
        const REAL* q = m.centroids + 3 * (u64)c;
        const REAL d = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]);
        if (d < *best || (d == *best && c < *bi)) { *best = d; *bi = c; }
    }
}

// The nearest centroid as CentroidGrid::nearest (solver/src/mesh/centroid_grid.rs): shells of
// buckets of growing Chebyshev radius around p's bucket until the unvisited ones are farther
// than the best (by a margin above f32 rounding); the same cell as a scan of every centroid.
__device__ u32 nearest_centroid(const Mesh& m, const REAL* p) {
    if (isnan(p[0]) || isnan(p[1]) || isnan(p[2])) return 0;
    const double pd[3] = {(double)p[0], (double)p[1], (double)p[2]};
    int c[3], dims[3];
    for (int k = 0; k < 3; ++k) { c[k] = grid_bucket(m, k, pd[k]); dims[k] = (int)m.gdims[k]; }
    const int rmax = max(dims[0], max(dims[1], dims[2]));
    REAL best = BIG;
    u32 bi = 0;
    for (int r = 0; r <= rmax; ++r) {
        for (int z = max(c[2] - r, 0); z <= min(c[2] + r, dims[2] - 1); ++z) {
            for (int y = max(c[1] - r, 0); y <= min(c[1] + r, dims[1] - 1); ++y) {
                if (abs(z - c[2]) == r || abs(y - c[1]) == r) {
                    for (int x = max(c[0] - r, 0); x <= min(c[0] + r, dims[0] - 1); ++x) nearest_in_bucket(m, x, y, z, p, &best, &bi);
                } else {
                    if (c[0] - r >= 0) nearest_in_bucket(m, c[0] - r, y, z, p, &best, &bi);
                    if (c[0] + r < dims[0]) nearest_in_bucket(m, c[0] + r, y, z, p, &best, &bi);
                }
            }
        }
        // A lower bound on p's distance to the buckets outside the box visited so far, less a
        // slack for the rounding of the buckets' planes.
        double bound = 1e300;
        bool more = false;
        for (int k = 0; k < 3; ++k) {
            const double edge = 1.0 / m.ginv[k], slack = 1e-6 * edge;
            const int lo = max(c[k] - r, 0), hi = min(c[k] + r, dims[k] - 1);
            if (lo > 0) { bound = fmin(bound, fmax(pd[k] - (m.glo[k] + lo * edge) - slack, 0.0)); more = true; }
            if (hi < dims[k] - 1) { bound = fmin(bound, fmax(m.glo[k] + (hi + 1) * edge - pd[k] - slack, 0.0)); more = true; }
        }
        if (!more || bound * bound * (1.0 - 1e-4) > (double)best) break;
    }
    return bi;
}

// Where the departure point p of cell c lies: a walk from c, else from the nearest centroid
// with 4x the budget, else that cell (on its first boundary patch, if it has one); p is moved
// into the frame of the cell found (periodic faces, `walk`).
__device__ void locate_departure(const Mesh& m, u32 c, REAL* p, u32 max_walk, u32* cell, int* patch) {
    if (walk(m, c, p, max_walk, cell, patch)) return;
    const u32 n = nearest_centroid(m, p);
    if (walk(m, n, p, 4 * max_walk, cell, patch)) return;
    *cell = n;
    *patch = -1;
    for (int f = 0; f < 4; ++f) {
        const u32 d = m.nbrs[4 * (u64)n + f];
        if (d & BOUNDARY) { *patch = (int)(d & ~BOUNDARY); break; }
    }
}

// The departure point p of x by the trapezoidal rule with the velocity linearised about x
// (numerics::sl::departure): (I + hj J) d = h (v0 + v1), p = x - d, where hj is h, or h scaled
// so that |hj J| (Frobenius) is 1/2 where |h J| is larger (linearisation_step: I + h J near
// singular in thin wall cells at a large step).
__device__ void trapezoid_departure(const REAL* x, REAL h, const REAL* v0, const REAL* v1, REAL (*jac)[3], REAL* p) {
    REAL norm2 = K(0);
    for (int a = 0; a < 3; ++a) for (int b = 0; b < 3; ++b) norm2 = norm2 + jac[a][b] * jac[a][b];
    REAL hj = h;
    if (h * h * norm2 > K(0.25)) {
        hj = K(0.5) / sqrt(norm2);
        if (h < K(0)) hj = -hj;
    }
    REAL rhs[3], mat[3][3], d[3];
    for (int a = 0; a < 3; ++a) {
        rhs[a] = h * (v0[a] + v1[a]);
        for (int b = 0; b < 3; ++b) mat[a][b] = (a == b ? K(1) : K(0)) + hj * jac[a][b];
    }
    solve3(mat, rhs, d);
    for (int k = 0; k < 3; ++k) p[k] = x[k] - d[k];
}

// Departure point p of cell c: located, stored, and handed to the sink (if any).
__device__ inline void record_departure(const Mesh& m, u32 c, const REAL* p0, u32 max_walk, REAL* px, u32* lcell,
                                        int* lpatch, const GroupSink& sink) {
    REAL p[3] = {p0[0], p0[1], p0[2]};
    u32 cell;
    int patch;
    locate_departure(m, c, p, max_walk, &cell, &patch);
    px[3 * (u64)c] = p[0]; px[3 * (u64)c + 1] = p[1]; px[3 * (u64)c + 2] = p[2];
    lcell[c] = cell; lpatch[c] = patch;
    if (sink.near) sink_point(sink, m, c, cell, patch, p);
}
