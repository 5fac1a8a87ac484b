// Semi-Lagrangian advection on tetrahedra: departure points, walk location, Voronoi-dual /
// gradient-corrected / linear interpolation with Dirichlet virtual cells, BFECC combination.
// The same arithmetic in the same order as solver/src/cases/advect/*.rs, in REAL (float or
// double): every literal is cast to REAL (K(x)) so no expression is promoted to double, and
// the module is compiled with --fmad=false so products are rounded as on the CPU.
#include "common.cuh"

#define K(x) ((REAL)(x))

// Occupancy hint for the gather kernels (blocks of 128 threads per SM), set by the host for
// tuning (CFD_ADVECT_MIN_BLOCKS); none by default.
#ifdef MIN_BLOCKS
#define BOUNDS __launch_bounds__(128, MIN_BLOCKS)
#else
#define BOUNDS
#endif

struct Mesh {
    const REAL* nodes;      // 3 per node
    const u32* cells;       // 4 per cell
    const u32* nbrs;        // 4 per cell, 0x80000000 | patch on boundary faces
    const REAL* cellgeo;    // 16 per cell: unit outward face normals (12), face areas (4)
    const REAL* centroids;  // 3 per cell
    const REAL* volumes;
    const u32* doff;        // dual CSR offsets (nodes + 1)
    const u32* dcells;
    const REAL* dual;       // 16 per entry: normals (9), plane offsets (3), half lengths (3), |det N|
    const u32* voff;        // Dirichlet virtual cells: CSR offsets (nodes + 1)
    const u32* vpatch;      // their patch (value bc[patch])
    const REAL* virt;       // 16 per entry, as `dual`
    const REAL* node_bc;    // per node: Dirichlet value, NaN if none
    u32 ncells;
    u32 nnodes;
};

struct Vel {
    int kind;                 // 0 constant, 1 rotation, 2 deformation, 3 cell field
    REAL speed, omega, period;
    REAL lo[3], len[3];
    long long reverse_after;  // -1: never
    const REAL* fu;           // kind 3: velocity, 3 per cell
    const REAL* fj;           // kind 3: Jacobian, 9 per cell (row a = d v_a / d x)
};

#define BOUNDARY 0x80000000u
#define BIG K(1e30)
__constant__ int FACE_VERTS[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

__device__ inline REAL dot3(const REAL* a, const REAL* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

__device__ void vel_eval(const Vel& v, const REAL* x, u32 cell, REAL t, u64 step, REAL* out, REAL (*j)[3]) {
    for (int a = 0; a < 3; ++a) { out[a] = K(0); for (int b = 0; b < 3; ++b) j[a][b] = K(0); }
    if (v.kind == 0) {
        out[0] = (v.reverse_after >= 0 && (long long)step >= v.reverse_after) ? -v.speed : v.speed;
    } else if (v.kind == 1) {
        REAL cx = v.lo[0] + K(0.5) * v.len[0], cy = v.lo[1] + K(0.5) * v.len[1];
        REAL dx = x[0] - cx, dy = x[1] - cy;
        out[0] = -v.omega * dy; out[1] = v.omega * dx;
        j[0][1] = -v.omega; j[1][0] = v.omega;
    } else if (v.kind == 2) {
        const REAL PI = K(3.141592653589793);
        REAL s[3];
        for (int k = 0; k < 3; ++k) s[k] = (x[k] - v.lo[k]) / v.len[k];
        REAL g = cos(PI * t / v.period);
        REAL sx = sin(PI * s[0]), sy = sin(PI * s[1]), sz = sin(PI * s[2]);
        REAL s2x = sin(K(2) * PI * s[0]), s2y = sin(K(2) * PI * s[1]), s2z = sin(K(2) * PI * s[2]);
        REAL c2x = cos(K(2) * PI * s[0]), c2y = cos(K(2) * PI * s[1]), c2z = cos(K(2) * PI * s[2]);
        REAL u[3] = {K(2) * sx * sx * s2y * s2z, -s2x * sy * sy * s2z, -s2x * s2y * sz * sz};
        REAL du[3][3] = {
            {K(2) * PI * s2x * s2y * s2z, K(4) * PI * sx * sx * c2y * s2z, K(4) * PI * sx * sx * s2y * c2z},
            {-K(2) * PI * c2x * sy * sy * s2z, -PI * s2x * s2y * s2z, -K(2) * PI * s2x * sy * sy * c2z},
            {-K(2) * PI * c2x * s2y * sz * sz, -K(2) * PI * s2x * c2y * sz * sz, -PI * s2x * s2y * s2z}};
        for (int a = 0; a < 3; ++a) {
            out[a] = g * u[a] * v.len[a];
            for (int b = 0; b < 3; ++b) j[a][b] = g * du[a][b] * v.len[a] / v.len[b];
        }
    } else {
        for (int a = 0; a < 3; ++a) {
            out[a] = v.fu[3 * (u64)cell + a];
            for (int b = 0; b < 3; ++b) j[a][b] = v.fj[9 * (u64)cell + 3 * a + b];
        }
    }
}

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

// Eq. (11) for packed entry e, as meshtool::dual::warren_weight.
__device__ REAL warren(const REAL* e, const REAL* p) {
    REAL g[16];
    load16(e, g);
    REAL prod = K(1);
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        REAL dist = g[9 + k] - dot3(g + 3 * k, p);
        prod *= fmax(dist, K(1e-3) * g[12 + k]);
    }
    return g[15] / prod;
}

// Barycentric coordinates as locate::barycentric.
__device__ void barycentric(const Mesh& m, u32 c, const REAL* p, REAL* l) {
    REAL g[16];
    load16(m.cellgeo + 16 * (u64)c, g);
    REAL v3 = K(3) * m.volumes[c];
    for (int f = 0; f < 4; ++f) {
        const REAL* on = m.nodes + 3 * (u64)m.cells[4 * (u64)c + FACE_VERTS[f][0]];
        REAL d[3] = {on[0] - p[0], on[1] - p[1], on[2] - p[2]};
        l[f] = g[12 + f] * dot3(g + 3 * f, d) / v3;
    }
}

// Walk as locate::walk; returns 1 found (cell, patch = -1 inside or patch >= 0 outside), 0 budget spent.
__device__ int walk(const Mesh& m, u32 start, const REAL* p, u32 max_steps, u32* cell, int* patch) {
    // locate::eps: 1e-12, or 100 ulp of 1 where that is larger (f32).
    const REAL EPS = fmax(K(1e-12), K(100) * (sizeof(REAL) == 4 ? K(1.1920929e-7) : K(2.220446049250313e-16)));
    u32 c = start;
    unsigned rng = 0x9E3779B9u ^ start;
    for (u32 step = 0; step < max_steps; ++step) {
        REAL l[4];
        barycentric(m, c, p, l);
        REAL worst = l[0];
        int f = 0;
        for (int k = 1; k < 4; ++k) if (l[k] < worst) { worst = l[k]; f = k; }
        if (worst >= -EPS) { *cell = c; *patch = -1; return 1; }
        if (step > 16) {
            rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
            int neg[4], nn = 0;
            for (int k = 0; k < 4; ++k) if (l[k] < -EPS) neg[nn++] = k;
            f = neg[rng % nn];
        }
        u32 d = m.nbrs[4 * (u64)c + f];
        if (d & BOUNDARY) { *cell = c; *patch = (int)(d & ~BOUNDARY); return 1; }
        c = d;
    }
    return 0;
}

// Nearest centroid by brute force (the CPU uses a kd-tree; the answer is the same).
__device__ u32 nearest_centroid(const Mesh& m, const REAL* p) {
    REAL best = BIG;
    u32 bi = 0;
    for (u32 c = 0; c < m.ncells; ++c) {
        const REAL* x = m.centroids + 3 * (u64)c;
        REAL d = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]);
        if (d < best) { best = d; bi = c; }
    }
    return bi;
}

extern "C" __global__ void BOUNDS advect_departures(Mesh m, Vel v, REAL t, REAL dt, u64 step, REAL sign, u32 max_walk,
                                             REAL* px, u32* lcell, int* lpatch) {
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= m.ncells) return;
    const REAL* x = m.centroids + 3 * (u64)c;
    REAL v0[3], v1[3], jac[3][3], jn[3][3];
    vel_eval(v, x, c, t, step, v0, jac);
    vel_eval(v, x, c, t + dt, step, v1, jn);
    REAL h = K(0.5) * dt * sign;
    REAL rhs[3], mat[3][3], d[3];
    for (int a = 0; a < 3; ++a) {
        rhs[a] = h * (v0[a] + v1[a]);
        for (int b = 0; b < 3; ++b) mat[a][b] = (a == b ? K(1) : K(0)) + h * jac[a][b];
    }
    solve3(mat, rhs, d);
    REAL p[3] = {x[0] - d[0], x[1] - d[1], x[2] - d[2]};
    u32 cell; int patch;
    if (!walk(m, c, p, max_walk, &cell, &patch)) {
        u32 n = nearest_centroid(m, p);
        if (!walk(m, n, p, 4 * max_walk, &cell, &patch)) {
            cell = n; patch = -1;
            for (int f = 0; f < 4; ++f) {
                u32 dd = m.nbrs[4 * (u64)n + f];
                if (dd & BOUNDARY) { patch = (int)(dd & ~BOUNDARY); break; }
            }
        }
    }
    px[3 * (u64)c] = p[0]; px[3 * (u64)c + 1] = p[1]; px[3 * (u64)c + 2] = p[2];
    lcell[c] = cell; lpatch[c] = patch;
}

// Least-squares gradients and neighbour ranges (interp::lsq_gradients).
extern "C" __global__ void advect_gradients(Mesh m, const REAL* f, REAL* grad, REAL* rlo, REAL* rhi) {
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= m.ncells) return;
    REAL a[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, b[3] = {0, 0, 0};
    REAL lo = f[c], hi = f[c];
    for (int k = 0; k < 4; ++k) {
        u32 d = m.nbrs[4 * (u64)c + k];
        if (d & BOUNDARY) continue;
        lo = fmin(lo, f[d]); hi = fmax(hi, f[d]);
        const REAL* xd = m.centroids + 3 * (u64)d;
        const REAL* xc = m.centroids + 3 * (u64)c;
        REAL r[3] = {xd[0] - xc[0], xd[1] - xc[1], xd[2] - xc[2]};
        REAL w = K(1) / dot3(r, r);
        REAL df = f[d] - f[c];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) a[i][j] += w * r[i] * r[j];
            b[i] += w * r[i] * df;
        }
    }
    REAL g[3];
    solve3(a, b, g);
    bool ok = isfinite(g[0]) && isfinite(g[1]) && isfinite(g[2]);
    for (int k = 0; k < 3; ++k) grad[3 * (u64)c + k] = ok ? g[k] : K(0);
    rlo[c] = lo; rhi[c] = hi;
}

// Volume-weighted cell values at the vertices, Dirichlet vertices pinned (interp::vertex_values).
extern "C" __global__ void advect_vertex_values(Mesh m, const REAL* f, REAL* fv) {
    u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= m.nnodes) return;
    if (!isnan(m.node_bc[v])) { fv[v] = m.node_bc[v]; return; }
    REAL s = K(0), w = K(0);
    for (u32 e = m.doff[v]; e < m.doff[v + 1]; ++e) {
        u32 t = m.dcells[e];
        s += m.volumes[t] * f[t];
        w += m.volumes[t];
    }
    fv[v] = w > K(0) ? s / w : K(0);
}

// interp: 0 voronoi, 1 voronoi-grad, 2 linear. bc[patch]: Dirichlet value, NaN for Neumann.
extern "C" __global__ void BOUNDS advect_interp(Mesh m, int interp, const REAL* px, const u32* lcell, const int* lpatch,
                                         const REAL* f, const REAL* fv, const REAL* grad, const REAL* rlo,
                                         const REAL* rhi, const REAL* bc, REAL* out, REAL* olo, REAL* ohi) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m.ncells) return;
    u32 c = lcell[i];
    int patch = lpatch[i];
    const REAL* p = px + 3 * (u64)i;
    if (patch >= 0) {
        REAL v = bc[patch];
        if (isnan(v)) v = f[c];
        out[i] = v; olo[i] = v; ohi[i] = v;
        return;
    }
    const u32* cell = m.cells + 4 * (u64)c;
    if (interp == 2) {
        REAL l[4];
        barycentric(m, c, p, l);
        REAL s = K(0), lo = BIG, hi = -BIG, norm = K(0);
        for (int k = 0; k < 4; ++k) {
            REAL val = fv[cell[k]];
            REAL lk = fmin(fmax(l[k], K(0)), K(1));
            s += lk * val;
            lo = fmin(lo, val); hi = fmax(hi, val);
        }
        for (int k = 0; k < 4; ++k) norm += fmin(fmax(l[k], K(0)), K(1));
        out[i] = s / norm; olo[i] = lo; ohi[i] = hi;
        return;
    }
    u32 v = cell[0];
    REAL best = BIG;
    for (int k = 0; k < 4; ++k) {
        const REAL* xn = m.nodes + 3 * (u64)cell[k];
        REAL d[3] = {xn[0] - p[0], xn[1] - p[1], xn[2] - p[2]};
        REAL dist = sqrt(dot3(d, d));
        if (dist < best) { best = dist; v = cell[k]; }
    }
    REAL sw = K(0), swf = K(0), lo = BIG, hi = -BIG;
    for (u32 e = m.doff[v]; e < m.doff[v + 1]; ++e) {
        u32 t = m.dcells[e];
        REAL w = warren(m.dual + 16 * (u64)e, p);
        REAL ft = f[t];
        if (interp == 1) {
            const REAL* xt = m.centroids + 3 * (u64)t;
            REAL r[3] = {p[0] - xt[0], p[1] - xt[1], p[2] - xt[2]};
            ft = fmin(fmax(f[t] + dot3(grad + 3 * (u64)t, r), rlo[t]), rhi[t]);
        }
        sw += w;
        swf += w * ft;
        lo = fmin(lo, f[t]); hi = fmax(hi, f[t]);
    }
    // Dirichlet virtual cells around v (section II.C).
    for (u32 e = m.voff[v]; e < m.voff[v + 1]; ++e) {
        REAL fb = bc[m.vpatch[e]];
        REAL w = warren(m.virt + 16 * (u64)e, p);
        sw += w;
        swf += w * fb;
        lo = fmin(lo, fb); hi = fmax(hi, fb);
    }
    out[i] = swf / sw; olo[i] = lo; ohi[i] = hi;
}

// BFECC: g = f + (f - f2) / 2
extern "C" __global__ void advect_correct(u32 n, const REAL* f, const REAL* f2, REAL* g) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = f[i] + K(0.5) * (f[i] - f2[i]);
}

// out = clamp(x, lo, hi) when limit, else x
extern "C" __global__ void advect_limit(u32 n, const REAL* x, const REAL* lo, const REAL* hi, int limit, REAL* out) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = limit ? fmin(fmax(x[i], lo[i]), hi[i]) : x[i];
}
