// Incompressible Navier-Stokes on tetrahedra (solver/src/cases/ns/): the per-step operations of
// the fractional step on device buffers, the same arithmetic in the same order as the CPU's
// (cases/ns/cpu.rs; compiled with --fmad=false, so each cell and face comes out bit for bit
// as on the CPU given the same inputs). Departure points follow the flow's own velocity (cell
// value and least-squares Jacobian) and are located by the walk of tet.cuh; the interpolation
// and BFECC are the shared kernels of sl.cu; the linear solves are cg.cu's.
//
// Faces as solver/src/cases/ns/faces.rs holds them (structure of arrays); a cell's four faces
// as of_cell: the face index, bit 31 set where the cell does not own it. Cell 3-vectors
// (gradients) are 3 per cell; the velocity is three cell scalars.
#include "tet.cuh"
#include "reduce.cuh"

#define NO_CELL 0xffffffffu
#define NOT_OWN 0x80000000u
// faces::Role
#define R_INTERIOR 0
#define R_WALL 1
#define R_INLET 2
#define R_OUTLET 3
#define R_SYMMETRY 4
// step::Var: a velocity component (with `comp`), the pressure, the pressure correction.
#define V_U 0
#define V_P 1
#define V_CORR 2
// Threads per block of the reductions (fixed: the sums are the same on every run).
#define RED_BLOCK 256

struct Faces {
    const u32* owner;
    const u32* neigh;    // NO_CELL on the boundary
    const int* role;
    const REAL* area;
    const REAL* normal;  // 3 per face
    const REAL* centre;  // 3 per face
    const REAL* d;       // 3 per face
    const REAL* w;
    const REAL* a;
    const REAL* k;       // 3 per face
    const REAL* ub;      // 3 per face
    const REAL* pb;
    const u32* of_cell;  // 4 per cell
    u32 nfaces;
    u32 ncells;
};

// Var::fixed_on
__device__ inline bool fixed_on(int var, int role) {
    return var == V_U ? (role == R_WALL || role == R_INLET) : role == R_OUTLET;
}

// cpu::boundary_value
__device__ inline REAL boundary_value(const Faces& f, u32 i, int var, int comp) {
    if (var == V_U) return f.ub[3 * (u64)i + comp];
    if (var == V_P) return f.pb[i];
    return K(0);
}

// Least-squares gradient of phi (cpu::gradient); wsym: the symmetry faces' normal velocity
// (their mirror rows for the velocity components).
extern "C" __global__ void ns_gradient(Mesh m, Faces f, const REAL* phi, int var, int comp, const REAL* wsym,
                                       REAL* g) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= f.ncells) return;
    REAL a[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, b[3] = {0, 0, 0};
    const REAL* xc = m.centroids + 3 * (u64)c;
    for (int l = 0; l < 4; ++l) {
        u32 e = f.of_cell[4 * (u64)c + l];
        u32 i = e & ~NOT_OWN;
        u32 nb = f.neigh[i];
        REAL r[3], d;
        if (nb != NO_CELL) {
            // +-d (Faces::to_other): x_o - x_c, the neighbour shifted across a periodic face.
            u32 o = (e & NOT_OWN) ? f.owner[i] : nb;
            const REAL* dv = f.d + 3 * (u64)i;
            for (int q = 0; q < 3; ++q) r[q] = (e & NOT_OWN) ? -dv[q] : dv[q];
            d = phi[o] - phi[c];
        } else if (fixed_on(var, f.role[i])) {
            const REAL* x = f.centre + 3 * (u64)i;
            for (int q = 0; q < 3; ++q) r[q] = x[q] - xc[q];
            d = boundary_value(f, i, var, comp) - phi[c];
        } else {
            const REAL* n = f.normal + 3 * (u64)i;
            for (int p = 0; p < 3; ++p)
                for (int q = 0; q < 3; ++q) a[p][q] += n[p] * n[q];
            if (var == V_U && f.role[i] == R_SYMMETRY) {
                // The mirror row: r = 2 d_n n and a change of -2 w n_k, weighted 1 / |r|^2.
                const REAL* x = f.centre + 3 * (u64)i;
                REAL dn = K(0);
                for (int q = 0; q < 3; ++q) dn += n[q] * (x[q] - xc[q]);
                REAL sc = -wsym[i] * n[comp] / dn;
                for (int q = 0; q < 3; ++q) b[q] += sc * n[q];
            }
            continue;
        }
        REAL w = K(1) / (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        for (int p = 0; p < 3; ++p) {
            for (int q = 0; q < 3; ++q) a[p][q] += w * r[p] * r[q];
            b[p] += w * r[p] * d;
        }
    }
    REAL x[3];
    solve3(a, b, x);
    bool ok = isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]);
    for (int q = 0; q < 3; ++q) g[3 * (u64)c + q] = ok ? x[q] : K(0);
}

// k . grad(phi)_f of face i from the cell gradients g (cpu::deferred).
__device__ REAL deferred(const Faces& f, const REAL* g, u32 i, int var) {
    const REAL* k = f.k + 3 * (u64)i;
    u32 p = f.owner[i], nb = f.neigh[i];
    REAL gf[3];
    if (nb != NO_CELL) {
        REAL w = f.w[i];
        for (int q = 0; q < 3; ++q) gf[q] = w * g[3 * (u64)p + q] + (K(1) - w) * g[3 * (u64)nb + q];
    } else if (fixed_on(var, f.role[i])) {
        for (int q = 0; q < 3; ++q) gf[q] = g[3 * (u64)p + q];
    } else {
        return K(0);
    }
    return k[0] * gf[0] + k[1] * gf[1] + k[2] * gf[2];
}

// The outward sum over cell c's faces of the deferred part (cpu::outward_sum of cpu::deferred).
__device__ REAL outward_deferred(const Faces& f, const REAL* g, u32 c, int var) {
    REAL s = K(0);
    for (int l = 0; l < 4; ++l) {
        u32 e = f.of_cell[4 * (u64)c + l];
        REAL x = deferred(f, g, e & ~NOT_OWN, var);
        s = l == 0 ? ((e & NOT_OWN) ? -x : x) : s + ((e & NOT_OWN) ? -x : x);
    }
    return s;
}

// The outward sum over cell c's faces of a face field (cpu::outward_sum).
__device__ REAL outward(const Faces& f, const REAL* x, u32 c) {
    REAL s = K(0);
    for (int l = 0; l < 4; ++l) {
        u32 e = f.of_cell[4 * (u64)c + l];
        REAL v = x[e & ~NOT_OWN];
        v = (e & NOT_OWN) ? -v : v;
        s = l == 0 ? v : s + v;
    }
    return s;
}

// Departure points along the flow's velocity u (three cell scalars) with its Jacobian, the
// gradients gu (row a = grad u_a): the same for t and t + dt (numerics::sl::departure with
// cpu::FlowVel), located as advect_departures locates them.
extern "C" __global__ void BOUNDS ns_departures(Mesh m, const REAL* u0, const REAL* u1, const REAL* u2,
                                                const REAL* g0, const REAL* g1, const REAL* g2, REAL dt, REAL sign,
                                                u32 max_walk, REAL* px, u32* lcell, int* lpatch, GroupSink sink) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= m.ncells) return;
    const REAL* x = m.centroids + 3 * (u64)c;
    const REAL* u[3] = {u0, u1, u2};
    const REAL* gu[3] = {g0, g1, g2};
    REAL v[3], jac[3][3];
    for (int a = 0; a < 3; ++a) {
        v[a] = u[a][c];
        for (int b = 0; b < 3; ++b) jac[a][b] = gu[a][3 * (u64)c + b];
    }
    REAL p[3];
    trapezoid_departure(x, K(0.5) * dt * sign, v, v, jac, p);
    record_departure(m, c, p, max_walk, px, lcell, lpatch, sink);
}

// faces::InletProfile::at: the velocity of the profile q (16 values, below) at x; false for
// a patch with no profile.
__device__ inline bool inlet_profile(const REAL* q, const REAL* xp, REAL* v) {
    if (q[0] == K(0)) return false;
    if (q[0] == K(1)) {
        for (int k = 0; k < 3; ++k) v[k] = q[1 + k];
        return true;
    }
    const REAL *lo = q + 4, *hi = q + 7;
    REAL x[3];
    for (int k = 0; k < 3; ++k) x[k] = fmin(fmax(xp[k], lo[k]), hi[k]);
    REAL s = q[10];
    for (int j = 0; j < (int)q[11]; ++j) {
        int ax = (int)q[12 + j];
        REAL t = (x[ax] - lo[ax]) / (hi[ax] - lo[ax]);
        s *= K(4) * t * (K(1) - t);
    }
    for (int k = 0; k < 3; ++k) v[k] = s * q[1 + k];
    return true;
}

// A cell whose departure point left through an inlet takes the inlet's velocity there
// (faces::InletProfile::at). prof: 16 per patch: kind (0 none, 1 uniform, 2 parabolic), the
// velocity or the direction (3), lo (3), hi (3), u_max, the number of axes across, the axes (3).
// A departure point inside a cell with a face on a profiled inlet, between that face and the
// cell's centroid, blends the profile with the cell (cpu: between_inlet_and_centroid); near:
// 11 per cell, the inlet patch (-1 none), the face's unit normal (3) and centre (3), the
// centroid's depth s_c and the profile at the centroid (3), all computed on the host.
extern "C" __global__ void ns_inlet(u32 n, const REAL* px, const int* lpatch, const u32* lcell, const REAL* prof,
                                    const REAL* near, const REAL* u0, const REAL* u1, const REAL* u2, REAL* o0,
                                    REAL* o1, REAL* o2) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    const REAL* x = px + 3 * (u64)c;
    REAL v[3];
    if (lpatch[c] >= 0) {
        if (!inlet_profile(prof + 16 * (u64)lpatch[c], x, v)) return;
        o0[c] = v[0]; o1[c] = v[1]; o2[c] = v[2];
        return;
    }
    const u32 cd = lcell[c];
    const REAL* t = near + 11 * (u64)cd;
    if (t[0] < K(0)) return;
    REAL sd = t[1] * (t[4] - x[0]);
    sd += t[2] * (t[5] - x[1]);
    sd += t[3] * (t[6] - x[2]);
    const REAL sc = t[7];
    if (!(sc > K(0) && sd < sc)) return;
    if (!inlet_profile(prof + 16 * (u64)t[0], x, v)) return;
    const REAL w = fmax(sd, K(0)) / sc;
    o0[c] = v[0] + w * (u0[cd] - t[8]);
    o1[c] = v[1] + w * (u1[cd] - t[9]);
    o2[c] = v[2] + w * (u2[cd] - t[10]);
}

// The gradient at x of vertex v's quadratic fit, rec: 16 values per vertex as sl_quad_fit
// writes them (numerics::sl::quadratic::gradient_at).
__device__ inline void fit_gradient(const Mesh& m, const REAL* rec, u32 v, const REAL* x, REAL* g) {
    const REAL* r = rec + 16 * (u64)v;
    const REAL* xn = m.nodes + 3 * (u64)v;
    const REAL ih = r[12];
    const REAL sx = (x[0] - xn[0]) * ih, sy = (x[1] - xn[1]) * ih, sz = (x[2] - xn[2]) * ih;
    g[0] = (r[1] + K(2) * r[4] * sx + r[5] * sy + r[6] * sz) * ih;
    g[1] = (r[2] + r[5] * sx + K(2) * r[7] * sy + r[8] * sz) * ih;
    g[2] = (r[3] + r[6] * sx + r[8] * sy + K(2) * r[9] * sz) * ih;
}

// The deferred viscous part of every face from the vertex fits of u^n_comp (cpu:
// fit_deferred, face_gradients = "fits" / "wall-fits"): g_f is the mean of the gradients of the
// face's three vertex fits (fverts: 3 per face) at its centre; on walls the whole flux A n . g_f
// less the implicit a (u_b - u_P); inside k . g_f ("fits", scope 0) or A n . g_f less the
// implicit a (u_N - u_P) of u^n ("fits-full", scope 2); k . g_f on inlets; with scope 1
// ("wall-fits") the cell gradients gu's k . g_f off walls (`deferred`); zero on the other
// boundary faces.
extern "C" __global__ void ns_fit_deferred(Mesh m, Faces f, const u32* fverts, const REAL* rec, int comp,
                                           const REAL* un, const REAL* gu, int scope, REAL* def) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= f.nfaces) return;
    const bool outside = f.neigh[i] == NO_CELL;
    const int role = f.role[i];
    if (outside && !fixed_on(V_U, role)) {
        def[i] = K(0);
        return;
    }
    const bool wall = outside && role == R_WALL;
    if (scope == 1 && !wall) {
        def[i] = deferred(f, gu, i, V_U);
        return;
    }
    const REAL* xf = f.centre + 3 * (u64)i;
    REAL g[3] = {K(0), K(0), K(0)};
    for (int j = 0; j < 3; ++j) {
        REAL dg[3];
        fit_gradient(m, rec, fverts[3 * (u64)i + j], xf, dg);
        for (int q = 0; q < 3; ++q) g[q] += dg[q] / K(3);
    }
    const u32 o = f.owner[i];
    if (wall) {
        def[i] = f.area[i] * dot3(f.normal + 3 * (u64)i, g) - f.a[i] * (f.ub[3 * (u64)i + comp] - un[o]);
    } else if (!outside && scope == 2) {
        def[i] = f.area[i] * dot3(f.normal + 3 * (u64)i, g) - f.a[i] * (un[f.neigh[i]] - un[o]);
    } else {
        def[i] = dot3(f.k + 3 * (u64)i, g);
    }
}

// The predictor's right-hand side of component k (cpu: predict with viscous_sources), or with
// `expl` the explicit update itself (cpu::explicit_predict; K_u u^n by faces, its sum in
// another order than the CPU's CSR product). def: the faces' deferred parts from
// ns_fit_deferred, or null for the cell gradients gu's; sgs: the subgrid stress's fluxes of
// component k (ns_sgs_flux), or null without LES.
extern "C" __global__ void ns_predict(Mesh m, Faces f, int k, REAL dt, REAL rho, REAL nu, const REAL* ua,
                                      const REAL* gp, const REAL* gu, const REAL* def, const REAL* un,
                                      const REAL* wsym, const REAL* sgs, int expl, REAL* out) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= f.ncells) return;
    REAL src = def ? outward(f, def, c) : outward_deferred(f, gu, c, V_U);
    REAL ku = K(0);
    for (int l = 0; l < 4; ++l) {
        u32 e = f.of_cell[4 * (u64)c + l];
        u32 i = e & ~NOT_OWN;
        u32 nb = f.neigh[i];
        if (nb == NO_CELL && fixed_on(V_U, f.role[i])) {
            src += f.a[i] * f.ub[3 * (u64)i + k];
            ku += f.a[i] * un[c];
        } else if (nb == NO_CELL && f.role[i] == R_SYMMETRY) {
            // -a n_k (u_P . n): its own component implicit (faces::symmetry_diagonal), the rest here.
            REAL nk = f.normal[3 * (u64)i + k];
            src -= f.a[i] * nk * (wsym[i] - nk * un[c]);
            ku += f.a[i] * nk * nk * un[c];
        } else if (nb != NO_CELL) {
            u32 o = (e & NOT_OWN) ? f.owner[i] : nb;
            ku += f.a[i] * (un[c] - un[o]);
        }
    }
    src *= nu;
    if (sgs) src += outward(f, sgs, c);
    REAL vol = m.volumes[c];
    REAL gpk = gp[3 * (u64)c + k];
    if (expl) {
        out[c] = ua[c] + dt / vol * (src - nu * ku) - dt / rho * gpk;
    } else {
        out[c] = vol / dt * ua[c] - vol / rho * gpk + src;
    }
}

// Rhie-Chow fluxes of u* (cpu::predicted_face_flux), s = dt / rho; with mem != 0 plus the flux
// memory mem (fold - A n . (v)_f) on interior and outlet faces (cpu: face_velocity_flux),
// v = u^n (v0, v1, v2 and fold are not read when mem == 0).
extern "C" __global__ void ns_flux(Faces f, REAL s, const REAL* u0, const REAL* u1, const REAL* u2, const REAL* p,
                                   const REAL* gp, REAL mem, const REAL* v0, const REAL* v1, const REAL* v2,
                                   const REAL* fold, REAL* flux) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= f.nfaces) return;
    const REAL *n = f.normal + 3 * (u64)i, *d = f.d + 3 * (u64)i;
    REAL area = f.area[i];
    u32 o = f.owner[i], q = f.neigh[i];
    const REAL* u[3] = {u0, u1, u2};
    REAL out;
    if (q != NO_CELL) {
        REAL w = f.w[i];
        REAL uf[3], gf[3];
        for (int k = 0; k < 3; ++k) {
            uf[k] = w * u[k][o] + (K(1) - w) * u[k][q];
            gf[k] = w * gp[3 * (u64)o + k] + (K(1) - w) * gp[3 * (u64)q + k];
        }
        out = area * dot3(n, uf) + s * f.a[i] * (dot3(d, gf) - (p[q] - p[o]));
        if (mem != K(0)) {
            REAL vf[3] = {w * v0[o] + (K(1) - w) * v0[q], w * v1[o] + (K(1) - w) * v1[q],
                          w * v2[o] + (K(1) - w) * v2[q]};
            out += mem * (fold[i] - area * dot3(n, vf));
        }
    } else if (f.role[i] == R_INLET) {
        out = area * dot3(n, f.ub + 3 * (u64)i);
    } else if (f.role[i] == R_OUTLET) {
        REAL uo[3] = {u0[o], u1[o], u2[o]};
        out = area * dot3(n, uo) + s * f.a[i] * (dot3(d, gp + 3 * (u64)o) - (f.pb[i] - p[o]));
        if (mem != K(0)) {
            REAL vo[3] = {v0[o], v1[o], v2[o]};
            out += mem * (fold[i] - area * dot3(n, vo));
        }
    } else {
        out = K(0);
    }
    flux[i] = out;
}

// The pressure correction's right-hand side (cpu: solve_correction), s = rho / dt; gc may be
// null (no deferred part).
extern "C" __global__ void ns_correction_rhs(Faces f, REAL s, const REAL* flux, const REAL* gc, REAL* b) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= f.ncells) return;
    REAL def = gc ? outward_deferred(f, gc, c, V_CORR) : K(0);
    b[c] = def - s * outward(f, flux, c);
}

// F -= s (two-point + deferred) (cpu: correct_flux), s = dt / rho; gc may be null.
extern "C" __global__ void ns_correct_flux(Faces f, REAL s, const REAL* pc, const REAL* gc, REAL* flux) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= f.nfaces) return;
    u32 p = f.owner[i], nb = f.neigh[i];
    REAL two;
    if (nb != NO_CELL) {
        two = f.a[i] * (pc[nb] - pc[p]);
    } else if (f.role[i] == R_OUTLET) {
        two = -f.a[i] * pc[p];
    } else {
        return;
    }
    REAL def = gc ? deferred(f, gc, i, V_CORR) : K(0);
    flux[i] -= s * (two + def);
}

// u -= s grad(p'), p += p' (cpu: correct_cells), s = dt / rho.
extern "C" __global__ void ns_correct_cells(u32 n, REAL s, REAL* u0, REAL* u1, REAL* u2, REAL* p, const REAL* pc,
                                            const REAL* gc) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    u0[c] -= s * gc[3 * (u64)c];
    u1[c] -= s * gc[3 * (u64)c + 1];
    u2[c] -= s * gc[3 * (u64)c + 2];
    p[c] += pc[c];
}

// Sum of a block's values v into s[0] (RED_BLOCK threads): a fixed tree, the same every run.
__device__ void block_sum(REAL* s, REAL v) {
    s[threadIdx.x] = v;
    __syncthreads();
    for (unsigned w = RED_BLOCK / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
}

// Per block: sum |a - b|^2 and sum |a|^2 over the three components (2 per block); the host
// adds the blocks' partials in order. Launched with a fixed grid of RED_BLOCK threads.
extern "C" __global__ void ns_change(u32 n, const REAL* a0, const REAL* a1, const REAL* a2, const REAL* b0,
                                     const REAL* b1, const REAL* b2, REAL* partial) {
    early_launch_entry();
    __shared__ REAL s[RED_BLOCK];
    REAL d = K(0), t = K(0);
    for (u64 c = grid_start(); c < n; c += grid_stride()) {
        REAL x0 = a0[c] - b0[c], x1 = a1[c] - b1[c], x2 = a2[c] - b2[c];
        d += x0 * x0 + x1 * x1 + x2 * x2;
        t += a0[c] * a0[c] + a1[c] * a1[c] + a2[c] * a2[c];
    }
    block_sum(s, d);
    if (threadIdx.x == 0) partial[2 * blockIdx.x] = s[0];
    __syncthreads();
    block_sum(s, t);
    if (threadIdx.x == 0) partial[2 * blockIdx.x + 1] = s[0];
}

// Per block: max over cells of |sum_f F| / sum_f |F| (cpu: divergence); RED_BLOCK threads.
extern "C" __global__ void ns_divergence(Faces f, const REAL* flux, REAL* partial) {
    early_launch_entry();
    __shared__ REAL s[RED_BLOCK];
    REAL m = K(0);
    for (u64 c = grid_start(); c < f.ncells; c += grid_stride()) {
        REAL sum = K(0), tot = K(0);
        for (int l = 0; l < 4; ++l) {
            u32 e = f.of_cell[4 * c + l];
            REAL x = flux[e & ~NOT_OWN];
            sum += (e & NOT_OWN) ? -x : x;
            tot += fabs(x);
        }
        m = max_nan(m, tot > K(0) ? fabs(sum) / tot : K(0));
    }
    block_max_nan(s, m);
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// dst[i] = src[idx[i]], i < m: the cells the forces and probes read (sim.rs `measure`), so that
// a step downloads those instead of whole fields.
extern "C" __global__ void ns_gather(u32 m, const u32* idx, const REAL* src, REAL* dst) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) dst[i] = src[idx[i]];
}

// out = a x + b y over the cells (the velocity at the half step, 3/2 u^n - 1/2 u^(n-1)).
extern "C" __global__ void ns_axpby(u32 n, REAL a, const REAL* x, REAL b, const REAL* y, REAL* out) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + b * y[i];
}

// The running sums of a field: sum += w x, squares += w x^2 (the time averages and RMS).
extern "C" __global__ void ns_accumulate(u32 n, REAL w, const REAL* x, REAL* sum, REAL* squares) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const REAL v = x[i];
        sum[i] += w * v;
        squares[i] += w * (v * v);
    }
}

// The symmetry planes' normal velocity w = u_P . n (faces::FaceValues::refresh).
extern "C" __global__ void ns_symmetry(Faces f, const REAL* u0, const REAL* u1, const REAL* u2, REAL* w) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= f.nfaces || f.role[i] != R_SYMMETRY) return;
    u32 o = f.owner[i];
    const REAL* n = f.normal + 3 * (u64)i;
    w[i] = u0[o] * n[0] + u1[o] * n[1] + u2[o] * n[2];
}

// Sum of the volume-weighted kinetic energy per block: sum V |u|^2 and sum V (2 per block; the
// host adds the blocks' partials in order and halves). RED_BLOCK threads, a fixed grid.
extern "C" __global__ void ns_kinetic_energy(Mesh m, const REAL* u0, const REAL* u1, const REAL* u2, REAL* partial) {
    early_launch_entry();
    __shared__ REAL s[RED_BLOCK];
    REAL e = K(0), v = K(0);
    for (u64 c = grid_start(); c < m.ncells; c += grid_stride()) {
        const REAL a = u0[c], b = u1[c], d = u2[c];
        e += m.volumes[c] * (a * a + b * b + d * d);
        v += m.volumes[c];
    }
    block_sum(s, e);
    if (threadIdx.x == 0) partial[2 * blockIdx.x] = s[0];
    __syncthreads();
    block_sum(s, v);
    if (threadIdx.x == 0) partial[2 * blockIdx.x + 1] = s[0];
}

// ---- LES (cases/ns/les.rs, the same expressions in the same order) ----
// Values per cell the dynamic model filters: u (3), u_i u_j (6), |S| S (6), S (6).
#define LES_FILTERED 21

// les::strain: the trace-free strain rate of cell c's velocity gradients (xx yy zz xy xz yz).
__device__ inline void les_strain(const REAL* g0, const REAL* g1, const REAL* g2, u32 c, REAL* s) {
    const REAL *a = g0 + 3 * (u64)c, *b = g1 + 3 * (u64)c, *e = g2 + 3 * (u64)c;
    const REAL d = (a[0] + b[1] + e[2]) / K(3);
    s[0] = a[0] - d;
    s[1] = b[1] - d;
    s[2] = e[2] - d;
    s[3] = K(0.5) * (a[1] + b[0]);
    s[4] = K(0.5) * (a[2] + e[0]);
    s[5] = K(0.5) * (b[2] + e[1]);
}

// les::ddot and les::magnitude.
__device__ inline REAL les_ddot(const REAL* a, const REAL* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + K(2) * (a[3] * b[3] + a[4] * b[4] + a[5] * b[5]);
}
__device__ inline REAL les_magnitude(const REAL* s) { return sqrt(K(2) * les_ddot(s, s)); }

// les::dynamic_cell of every cell: LES_FILTERED values per cell into out.
extern "C" __global__ void ns_les_cells(u32 n, const REAL* u0, const REAL* u1, const REAL* u2, const REAL* g0,
                                        const REAL* g1, const REAL* g2, REAL* out) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    REAL s[6];
    les_strain(g0, g1, g2, c, s);
    const REAL ms = les_magnitude(s);
    const REAL u[3] = {u0[c], u1[c], u2[c]};
    REAL* o = out + LES_FILTERED * (u64)c;
    o[0] = u[0];
    o[1] = u[1];
    o[2] = u[2];
    o[3] = u[0] * u[0];
    o[4] = u[1] * u[1];
    o[5] = u[2] * u[2];
    o[6] = u[0] * u[1];
    o[7] = u[0] * u[2];
    o[8] = u[1] * u[2];
    for (int i = 0; i < 6; ++i) {
        o[9 + i] = ms * s[i];
        o[15 + i] = s[i];
    }
}

// les::test_filter: the volume-weighted mean of nv (<= LES_FILTERED) values per cell over the
// cell and its face neighbours, in of_cell's order.
extern "C" __global__ void ns_test_filter(Mesh m, Faces f, int nv, const REAL* x, REAL* out) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= f.ncells) return;
    REAL acc[LES_FILTERED];
    REAL den = m.volumes[c];
    for (int j = 0; j < nv; ++j) acc[j] = m.volumes[c] * x[nv * (u64)c + j];
    for (int l = 0; l < 4; ++l) {
        u32 e = f.of_cell[4 * (u64)c + l];
        u32 i = e & ~NOT_OWN;
        u32 nb = f.neigh[i];
        if (nb == NO_CELL) continue;
        u32 o = (e & NOT_OWN) ? f.owner[i] : nb;
        const REAL vn = m.volumes[o];
        den += vn;
        for (int j = 0; j < nv; ++j) acc[j] += vn * x[nv * (u64)o + j];
    }
    for (int j = 0; j < nv; ++j) out[nv * (u64)c + j] = acc[j] / den;
}

// les::dynamic_lm: L:M and M:M per cell (2 per cell) from the filtered values and alpha^2.
extern "C" __global__ void ns_les_lm(u32 n, const REAL* filtered, const REAL* alpha2, REAL* lm) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    const REAL* f = filtered + LES_FILTERED * (u64)c;
    const REAL l[6] = {f[3] - f[0] * f[0], f[4] - f[1] * f[1], f[5] - f[2] * f[2],
                       f[6] - f[0] * f[1], f[7] - f[0] * f[2], f[8] - f[1] * f[2]};
    const REAL* sh = f + 15;
    const REAL a = alpha2[c] * les_magnitude(sh);
    REAL mm[6];
    for (int i = 0; i < 6; ++i) mm[i] = K(2) * (f[9 + i] - a * sh[i]);
    lm[2 * (u64)c] = les_ddot(l, mm);
    lm[2 * (u64)c + 1] = les_ddot(mm, mm);
}

// les::eddy_viscosity's last step: nu_t = (Cs Delta)^2 |S| without lmf (Smagorinsky), else
// les::dynamic_coefficient of the filtered L:M and M:M (lmf, 2 per cell), bounded by
// cs_delta2, times |S|; then capped at cap / dt (the diffusion limit, LesTables::nut_dt_cap).
extern "C" __global__ void ns_eddy_viscosity(u32 n, const REAL* g0, const REAL* g1, const REAL* g2,
                                             const REAL* cs_delta2, const REAL* lmf, const REAL* cap, REAL dt,
                                             REAL* nut) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    REAL s[6];
    les_strain(g0, g1, g2, c, s);
    const REAL ms = les_magnitude(s);
    const REAL most = cap[c] / dt;
    if (!lmf) {
        nut[c] = fmin(cs_delta2[c] * ms, most);
        return;
    }
    const REAL lm = lmf[2 * (u64)c], mm = lmf[2 * (u64)c + 1];
    const REAL cd = mm > K(0) ? fmin(fmax(lm / mm, K(0)), cs_delta2[c]) : K(0);
    nut[c] = fmin(cd * ms, most);
}

// les::sgs_face_flux of every face into o0, o1, o2 (one face array per component): the
// subgrid stress's flux 2 nu_t S . n A out of the owner; wsym: the symmetry planes' u_P . n.
extern "C" __global__ void ns_sgs_flux(Faces f, const REAL* u0, const REAL* u1, const REAL* u2, const REAL* g0,
                                       const REAL* g1, const REAL* g2, const REAL* nut, const REAL* wsym, REAL* o0,
                                       REAL* o1, REAL* o2) {
    early_launch_entry();
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= f.nfaces) return;
    REAL* o[3] = {o0, o1, o2};
    const u32 p = f.owner[i], q = f.neigh[i];
    const REAL* n = f.normal + 3 * (u64)i;
    if (q == NO_CELL) {
        if (f.role[i] != R_SYMMETRY) {
            for (int k = 0; k < 3; ++k) o[k][i] = K(0);
            return;
        }
        const REAL s = K(2) * nut[p] * f.a[i] * wsym[i];
        for (int k = 0; k < 3; ++k) o[k][i] = -(s * n[k]);
        return;
    }
    const REAL w = f.w[i];
    const REAL nf = w * nut[p] + (K(1) - w) * nut[q];
    const REAL* g[3] = {g0, g1, g2};
    const REAL* u[3] = {u0, u1, u2};
    REAL gf[3][3];
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) gf[a][b] = w * g[a][3 * (u64)p + b] + (K(1) - w) * g[a][3 * (u64)q + b];
    const REAL* kv = f.k + 3 * (u64)i;
    for (int k = 0; k < 3; ++k) {
        const REAL two = f.a[i] * (u[k][q] - u[k][p]);
        const REAL kg = kv[0] * gf[k][0] + kv[1] * gf[k][1] + kv[2] * gf[k][2];
        const REAL tr = n[0] * gf[0][k] + n[1] * gf[1][k] + n[2] * gf[2][k];
        o[k][i] = nf * (two + kg + f.area[i] * tr);
    }
}
