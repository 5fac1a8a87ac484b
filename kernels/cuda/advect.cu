// Semi-Lagrangian advection on tetrahedra: the departure point of every centroid by the
// explicit second-order formula (eq. 10) for the case's velocity, located by the walk of
// tet.cuh. The interpolation and BFECC kernels are the shared ones of sl.cu. The same
// arithmetic in the same order as solver/src/cases/advect/velocity.rs and
// solver/src/numerics/sl/departure.rs.
#include "tet.cuh"

struct Vel {
    int kind;                 // 0 constant, 1 rotation, 2 deformation, 3 cell field, 4 series
    REAL speed, omega, period;
    REAL lo[3], len[3];
    long long reverse_after;  // -1: never
    const REAL* fu;           // kind 3: velocity, 3 per cell
    const REAL* fj;           // kind 3: Jacobian, 9 per cell (row a = d v_a / d x)
    // kind 4: the frames around t (at = 0) and t + dt (at = 1), velocity and Jacobian as kind 3,
    // and the weight of the later one: a + w (b - a) (cases/advect/series.rs, Window::eval).
    const REAL* su[2][2];
    const REAL* sj[2][2];
    REAL sw[2];
};

// The velocity and its Jacobian at x (the centroid of `cell`) at time t; `at` says which of the
// step's two times t is (0: its start, 1: its end), for the series' frames.
__device__ void vel_eval(const Vel& v, const REAL* x, u32 cell, REAL t, u64 step, int at, REAL* out, REAL (*j)[3]) {
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
    } else if (v.kind == 3) {
        for (int a = 0; a < 3; ++a) {
            out[a] = v.fu[3 * (u64)cell + a];
            for (int b = 0; b < 3; ++b) j[a][b] = v.fj[9 * (u64)cell + 3 * a + b];
        }
    } else {
        const REAL *ua = v.su[at][0] + 3 * (u64)cell, *ub = v.su[at][1] + 3 * (u64)cell;
        const REAL *ja = v.sj[at][0] + 9 * (u64)cell, *jb = v.sj[at][1] + 9 * (u64)cell;
        REAL w = v.sw[at];
        for (int a = 0; a < 3; ++a) {
            out[a] = ua[a] + w * (ub[a] - ua[a]);
            for (int b = 0; b < 3; ++b) j[a][b] = ja[3 * a + b] + w * (jb[3 * a + b] - ja[3 * a + b]);
        }
    }
}

extern "C" __global__ void BOUNDS advect_departures(Mesh m, Vel v, REAL t, REAL dt, u64 step, REAL sign, u32 max_walk,
                                             REAL* px, u32* lcell, int* lpatch, GroupSink sink) {
    early_launch_entry();
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= m.ncells) return;
    const REAL* x = m.centroids + 3 * (u64)c;
    REAL v0[3], v1[3], j0[3][3], j1[3][3];
    vel_eval(v, x, c, t, step, 0, v0, j0);
    vel_eval(v, x, c, t + dt, step, 1, v1, j1);
    // The Jacobian at the departure time: t forward, t + dt for BFECC's backward step.
    REAL (*jac)[3] = sign > K(0) ? j0 : j1;
    REAL p[3];
    trapezoid_departure(x, K(0.5) * dt * sign, v0, v1, jac, p);
    record_departure(m, c, p, max_walk, px, lcell, lpatch, sink);
}
