// The semi-Lagrangian pieces every family on tetrahedra shares (solver/src/numerics/sl/):
// least-squares gradients and ranges, vertex values, least-squares quadratic fits, quadratic /
// Voronoi-dual / gradient-corrected / linear interpolation at located departure points with Dirichlet virtual cells, and the BFECC
// correction and limiter. Each kernel works on one scalar field, so a family calls them once
// per field or velocity component on the same departure points.
#include "tet.cuh"

// Least-squares gradients and neighbour ranges (mesh::gradients::lsq_gradients).
extern "C" __global__ void sl_gradients(Mesh m, const REAL* f, REAL* grad, REAL* rlo, REAL* rhi) {
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

// Volume-weighted cell values at the vertices, Dirichlet vertices pinned (numerics::sl::interp::vertex_values).
extern "C" __global__ void sl_vertex_values(Mesh m, const REAL* f, REAL* fv) {
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

// Packed lower-triangular index, as numerics::sl::quadratic::tri.
#define TRI(i, j) ((i) * ((i) + 1) / 2 + (j))

// The quadratic's monomials at a scaled offset (numerics::sl::quadratic::monomials).
__device__ inline void monomials(const REAL* r, REAL* ph) {
    REAL x = r[0], y = r[1], z = r[2];
    ph[0] = K(1); ph[1] = x; ph[2] = y; ph[3] = z;
    ph[4] = x * x; ph[5] = x * y; ph[6] = x * z; ph[7] = y * y; ph[8] = y * z; ph[9] = z * z;
}

// Least-squares quadratic of f around each vertex (numerics::sl::quadratic::fit_field): per vertex
// 16 reals, the coefficients (10), the stencil's min and max, 1/h, padding. qoff/qsrc/qpts: the
// stencil (cell or BOUNDARY | Dirichlet patch; scaled offset and weight), qfac: 64 per vertex,
// the packed Cholesky factor (55), the number of unknowns, 1/h.
extern "C" __global__ void sl_quad_fit(u32 nnodes, const u32* qoff, const u32* qsrc, const REAL* qpts,
                                       const REAL* qfac, const REAL* f, const REAL* bc, REAL* rec) {
    u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nnodes) return;
    const REAL* fac = qfac + 64 * (u64)v;
    int n = (int)fac[55];
    // Loops run to the compile-time 10 with `< n` guards (the same operations in the same
    // order as loops to n): fully unrolled, b and the monomials stay in registers instead of
    // local memory.
    REAL b[10] = {K(0), K(0), K(0), K(0), K(0), K(0), K(0), K(0), K(0), K(0)};
    REAL lo = BIG, hi = -BIG;
    for (u32 e = qoff[v]; e < qoff[v + 1]; ++e) {
        u32 s = qsrc[e];
        REAL fe = (s & BOUNDARY) ? bc[s & ~BOUNDARY] : f[s];
        REAL p[4];
        load4(qpts + 4 * (u64)e, p);
        REAL ph[10];
        monomials(p, ph);
        REAL wf = p[3] * fe;
#pragma unroll
        for (int k = 0; k < 10; ++k)
            if (k < n) b[k] += wf * ph[k];
        lo = fmin(lo, fe); hi = fmax(hi, fe);
    }
#pragma unroll
    for (int i = 0; i < 10; ++i) {
        if (i < n) {
            REAL s = b[i];
#pragma unroll
            for (int k = 0; k < i; ++k) s -= fac[TRI(i, k)] * b[k];
            b[i] = s / fac[TRI(i, i)];
        }
    }
#pragma unroll
    for (int i = 9; i >= 0; --i) {
        if (i < n) {
            REAL s = b[i];
#pragma unroll
            for (int k = i + 1; k < 10; ++k)
                if (k < n) s -= fac[TRI(k, i)] * b[k];
            b[i] = s / fac[TRI(i, i)];
        }
    }
    REAL* r = rec + 16 * (u64)v;
    for (int k = 0; k < 10; ++k) r[k] = b[k];
    r[10] = lo; r[11] = hi; r[12] = fac[56];
    r[13] = K(0); r[14] = K(0); r[15] = K(0);
}

// interp: 0 voronoi, 1 voronoi-grad, 2 linear, 3 quadratic (fv: the fit records of
// sl_quad_fit). bc[patch]: Dirichlet value, NaN for Neumann.
extern "C" __global__ void BOUNDS sl_interp(Mesh m, int interp, const REAL* px, const u32* lcell, const int* lpatch,
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
    if (interp == 3) {
        REAL l[4];
        barycentric(m, c, p, l);
        REAL s = K(0), norm = K(0), lo = BIG, hi = -BIG;
        for (int k = 0; k < 4; ++k) {
            u32 v = cell[k];
            REAL r[16];
            load16(fv + 16 * (u64)v, r);
            const REAL* xn = m.nodes + 3 * (u64)v;
            REAL ih = r[12];
            REAL x[3] = {(p[0] - xn[0]) * ih, (p[1] - xn[1]) * ih, (p[2] - xn[2]) * ih};
            REAL ph[10];
            monomials(x, ph);
            REAL val = K(0);
            for (int j = 0; j < 10; ++j) val += r[j] * ph[j];
            REAL w = fmin(fmax(l[k], K(0)), K(1));
            s += w * val;
            norm += w;
            lo = fmin(lo, r[10]); hi = fmax(hi, r[11]);
        }
        out[i] = fmin(fmax(s / norm, lo), hi); olo[i] = lo; ohi[i] = hi;
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
extern "C" __global__ void sl_correct(u32 n, const REAL* f, const REAL* f2, REAL* g) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = f[i] + K(0.5) * (f[i] - f2[i]);
}

// out = clamp(x, lo, hi) when limit, else x
extern "C" __global__ void sl_limit(u32 n, const REAL* x, const REAL* lo, const REAL* hi, int limit, REAL* out) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = limit ? fmin(fmax(x[i], lo[i]), hi[i]) : x[i];
}
