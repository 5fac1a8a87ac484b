// Semi-Lagrangian advection on tetrahedra: departure points, walk location, Voronoi-dual /
// gradient-corrected / linear interpolation, BFECC combination. The same arithmetic in the
// same order as solver/src/cases/advect/*.rs (compiled with --fmad=false so products are
// rounded as on the CPU). Double precision only.
#include "common.cuh"

struct Mesh {
    const double* nodes;      // 3 per node
    const u32* cells;         // 4 per cell
    const u32* nbrs;          // 4 per cell, 0x80000000 | patch on boundary faces
    const double* fnormals;   // 12 per cell
    const double* fareas;     // 4 per cell
    const double* centroids;  // 3 per cell
    const double* volumes;
    const u32* doff;          // dual CSR offsets (nodes + 1)
    const u32* dcells;
    const double* dnormals;   // 9 per entry
    const double* dplane;     // 3 per entry
    const double* dhalf;      // 3 per entry
    const double* ddet;
    u32 ncells;
    u32 nnodes;
};

struct Vel {
    int kind;           // 0 constant, 1 rotation, 2 deformation
    double speed, omega, period;
    double lo[3], len[3];
    long long reverse_after;  // -1: never
};

#define BOUNDARY 0x80000000u
__constant__ int FACE_VERTS[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

__device__ inline double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

__device__ void vel_eval(const Vel& v, const double* x, double t, u64 step, double* out, double (*j)[3]) {
    for (int a = 0; a < 3; ++a) { out[a] = 0; for (int b = 0; b < 3; ++b) j[a][b] = 0; }
    if (v.kind == 0) {
        out[0] = (v.reverse_after >= 0 && (long long)step >= v.reverse_after) ? -v.speed : v.speed;
    } else if (v.kind == 1) {
        double cx = v.lo[0] + 0.5 * v.len[0], cy = v.lo[1] + 0.5 * v.len[1];
        double dx = x[0] - cx, dy = x[1] - cy;
        out[0] = -v.omega * dy; out[1] = v.omega * dx;
        j[0][1] = -v.omega; j[1][0] = v.omega;
    } else {
        const double PI = 3.141592653589793;
        double s[3];
        for (int k = 0; k < 3; ++k) s[k] = (x[k] - v.lo[k]) / v.len[k];
        double g = cos(PI * t / v.period);
        double sx = sin(PI * s[0]), sy = sin(PI * s[1]), sz = sin(PI * s[2]);
        double s2x = sin(2 * PI * s[0]), s2y = sin(2 * PI * s[1]), s2z = sin(2 * PI * s[2]);
        double c2x = cos(2 * PI * s[0]), c2y = cos(2 * PI * s[1]), c2z = cos(2 * PI * s[2]);
        double u[3] = {2.0 * sx * sx * s2y * s2z, -s2x * sy * sy * s2z, -s2x * s2y * sz * sz};
        double du[3][3] = {
            {2.0 * PI * s2x * s2y * s2z, 4.0 * PI * sx * sx * c2y * s2z, 4.0 * PI * sx * sx * s2y * c2z},
            {-2.0 * PI * c2x * sy * sy * s2z, -PI * s2x * s2y * s2z, -2.0 * PI * s2x * sy * sy * c2z},
            {-2.0 * PI * c2x * s2y * sz * sz, -2.0 * PI * s2x * c2y * sz * sz, -PI * s2x * s2y * s2z}};
        for (int a = 0; a < 3; ++a) {
            out[a] = g * u[a] * v.len[a];
            for (int b = 0; b < 3; ++b) j[a][b] = g * du[a][b] * v.len[a] / v.len[b];
        }
    }
}

__device__ double det3(double (*m)[3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

// Cramer's rule, as velocity::solve3.
__device__ void solve3(double (*m)[3], const double* b, double* x) {
    double d = det3(m);
    for (int col = 0; col < 3; ++col) {
        double mc[3][3];
        for (int r = 0; r < 3; ++r) for (int c = 0; c < 3; ++c) mc[r][c] = m[r][c];
        for (int r = 0; r < 3; ++r) mc[r][col] = b[r];
        x[col] = det3(mc) / d;
    }
}

__device__ void barycentric(const Mesh& m, u32 c, const double* p, double* l) {
    double v3 = 3.0 * m.volumes[c];
    for (int f = 0; f < 4; ++f) {
        const double* on = m.nodes + 3 * (u64)m.cells[4 * (u64)c + FACE_VERTS[f][0]];
        double d[3] = {on[0] - p[0], on[1] - p[1], on[2] - p[2]};
        l[f] = m.fareas[4 * (u64)c + f] * dot3(m.fnormals + 12 * (u64)c + 3 * f, d) / v3;
    }
}

// Walk as locate::walk; returns 1 found (cell, patch = -1 inside or patch >= 0 outside), 0 budget spent.
__device__ int walk(const Mesh& m, u32 start, const double* p, u32 max_steps, u32* cell, int* patch) {
    const double EPS = 1e-12;
    u32 c = start;
    unsigned rng = 0x9E3779B9u ^ start;
    for (u32 step = 0; step < max_steps; ++step) {
        double l[4];
        barycentric(m, c, p, l);
        double worst = l[0];
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
__device__ u32 nearest_centroid(const Mesh& m, const double* p) {
    double best = 1e300;
    u32 bi = 0;
    for (u32 c = 0; c < m.ncells; ++c) {
        const double* x = m.centroids + 3 * (u64)c;
        double d = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]);
        if (d < best) { best = d; bi = c; }
    }
    return bi;
}

extern "C" __global__ void advect_departures(Mesh m, Vel v, double t, double dt, u64 step, double sign, u32 max_walk,
                                             double* px, u32* lcell, int* lpatch) {
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= m.ncells) return;
    const double* x = m.centroids + 3 * (u64)c;
    double v0[3], v1[3], jac[3][3], jn[3][3];
    vel_eval(v, x, t, step, v0, jac);
    vel_eval(v, x, t + dt, step, v1, jn);
    double h = 0.5 * dt * sign;
    double rhs[3], mat[3][3], d[3];
    for (int a = 0; a < 3; ++a) {
        rhs[a] = h * (v0[a] + v1[a]);
        for (int b = 0; b < 3; ++b) mat[a][b] = (a == b ? 1.0 : 0.0) + h * jac[a][b];
    }
    solve3(mat, rhs, d);
    double p[3] = {x[0] - d[0], x[1] - d[1], x[2] - d[2]};
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
extern "C" __global__ void advect_gradients(Mesh m, const double* f, double* grad, double* rlo, double* rhi) {
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= m.ncells) return;
    double a[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, b[3] = {0, 0, 0};
    double lo = f[c], hi = f[c];
    for (int k = 0; k < 4; ++k) {
        u32 d = m.nbrs[4 * (u64)c + k];
        if (d & BOUNDARY) continue;
        lo = fmin(lo, f[d]); hi = fmax(hi, f[d]);
        const double* xd = m.centroids + 3 * (u64)d;
        const double* xc = m.centroids + 3 * (u64)c;
        double r[3] = {xd[0] - xc[0], xd[1] - xc[1], xd[2] - xc[2]};
        double w = 1.0 / dot3(r, r);
        double df = f[d] - f[c];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) a[i][j] += w * r[i] * r[j];
            b[i] += w * r[i] * df;
        }
    }
    double g[3];
    solve3(a, b, g);
    bool ok = isfinite(g[0]) && isfinite(g[1]) && isfinite(g[2]);
    for (int k = 0; k < 3; ++k) grad[3 * (u64)c + k] = ok ? g[k] : 0.0;
    rlo[c] = lo; rhi[c] = hi;
}

// Volume-weighted cell values at the vertices (interp::vertex_values).
extern "C" __global__ void advect_vertex_values(Mesh m, const double* f, double* fv) {
    u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= m.nnodes) return;
    double s = 0, w = 0;
    for (u32 e = m.doff[v]; e < m.doff[v + 1]; ++e) {
        u32 t = m.dcells[e];
        s += m.volumes[t] * f[t];
        w += m.volumes[t];
    }
    fv[v] = w > 0 ? s / w : 0.0;
}

// interp: 0 voronoi, 1 voronoi-grad, 2 linear. bc[patch]: Dirichlet value, NaN for Neumann.
extern "C" __global__ void advect_interp(Mesh m, int interp, const double* px, const u32* lcell, const int* lpatch,
                                         const double* f, const double* fv, const double* grad, const double* rlo,
                                         const double* rhi, const double* bc, double* out, double* olo, double* ohi) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m.ncells) return;
    u32 c = lcell[i];
    int patch = lpatch[i];
    const double* p = px + 3 * (u64)i;
    if (patch >= 0) {
        double v = bc[patch];
        if (isnan(v)) v = f[c];
        out[i] = v; olo[i] = v; ohi[i] = v;
        return;
    }
    const u32* cell = m.cells + 4 * (u64)c;
    if (interp == 2) {
        double l[4];
        barycentric(m, c, p, l);
        double s = 0, lo = 1e300, hi = -1e300, norm = 0;
        for (int k = 0; k < 4; ++k) {
            double val = fv[cell[k]];
            double lk = fmin(fmax(l[k], 0.0), 1.0);
            s += lk * val;
            lo = fmin(lo, val); hi = fmax(hi, val);
        }
        for (int k = 0; k < 4; ++k) norm += fmin(fmax(l[k], 0.0), 1.0);
        out[i] = s / norm; olo[i] = lo; ohi[i] = hi;
        return;
    }
    u32 v = cell[0];
    double best = 1e300;
    for (int k = 0; k < 4; ++k) {
        const double* xn = m.nodes + 3 * (u64)cell[k];
        double d[3] = {xn[0] - p[0], xn[1] - p[1], xn[2] - p[2]};
        double dist = sqrt(dot3(d, d));
        if (dist < best) { best = dist; v = cell[k]; }
    }
    double sw = 0, swf = 0, lo = 1e300, hi = -1e300;
    for (u32 e = m.doff[v]; e < m.doff[v + 1]; ++e) {
        u32 t = m.dcells[e];
        double prod = 1.0;
        for (int k = 0; k < 3; ++k) {
            double dist = m.dplane[3 * (u64)e + k] - dot3(m.dnormals + 9 * (u64)e + 3 * k, p);
            prod *= fmax(dist, 1e-3 * m.dhalf[3 * (u64)e + k]);
        }
        double w = m.ddet[e] / prod;
        double ft = f[t];
        if (interp == 1) {
            const double* xt = m.centroids + 3 * (u64)t;
            double r[3] = {p[0] - xt[0], p[1] - xt[1], p[2] - xt[2]};
            ft = fmin(fmax(f[t] + dot3(grad + 3 * (u64)t, r), rlo[t]), rhi[t]);
        }
        sw += w;
        swf += w * ft;
        lo = fmin(lo, f[t]); hi = fmax(hi, f[t]);
    }
    out[i] = swf / sw; olo[i] = lo; ohi[i] = hi;
}

// BFECC: g = f + (f - f2) / 2
extern "C" __global__ void advect_correct(u32 n, const double* f, const double* f2, double* g) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = f[i] + 0.5 * (f[i] - f2[i]);
}

// out = clamp(x, lo, hi) when limit, else x
extern "C" __global__ void advect_limit(u32 n, const double* x, const double* lo, const double* hi, int limit, double* out) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = limit ? fmin(fmax(x[i], lo[i]), hi[i]) : x[i];
}
