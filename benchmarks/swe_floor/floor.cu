// A lower bound on the shallow-water step's time (the target: the paper's one-week run, 1,679,708
// steps at 1000^2, in 60 s): the per-cell work that any implementation of this scheme must do,
// with none of the tiles' overlap. Each cell's state is found once, each edge solved once (two a
// cell), each share found once and each cell updated once, by the product's own functions
// (kernels/cuda/swe.cu, included): the same arithmetic as swe_step, without the rings a tile
// needs for its neighbours' shares. Its neighbours wrap inside the tile, so the result is not a
// solution, only the time of the work. floor.py times it beside `solver bench shallow-water`.
#include "swe.cu"

constexpr int FX = 32, FY = 8;

extern "C" __global__ void __launch_bounds__(FX * FY, 6)
    swe_floor(const REAL* __restrict__ w, const REAL* __restrict__ bed, REAL* __restrict__ out, int nx, int ny,
              REAL grav, REAL dry, REAL thin, double gravity, double dry_d, double hx, double hy, double dt, u64* rate,
              u64* bounds) {
    SweParams s = {};
    s.g.n[0] = nx;
    s.g.n[1] = ny;
    s.g.n[2] = 1;
    s.g.px = nx;
    s.g.py = ny;
    s.g.cstride = (u64)nx * ny;
    s.gravity = gravity;
    s.dry_d = dry_d;
    s.h[0] = hx;
    s.h[1] = hy;
    s.grav = grav;
    s.dry = dry;
    s.thin = thin;
    s.active = 3;
    const int ti = threadIdx.x % FX, tj = threadIdx.x / FX;
    const int i = blockIdx.x * FX + ti, j = blockIdx.y * FY + tj;
    const bool inside = i < nx && j < ny;
    const u64 p = (u64)j * nx + i;
    __shared__ CellState cells[FY][FX];
    __shared__ REAL xphi[FY][FX], yphi[FY][FX], share[FY][FX];
    __shared__ REAL xm[2][FY][FX], xp[2][FY][FX], ym[2][FY][FX], yp[2][FY][FX];
    __shared__ REAL lam[2];
    if (threadIdx.x == 0) step_ratios(s, dt, lam);
    if (inside) cells[tj][ti] = cell_state(s, w, bed, p);
    __syncthreads();
    const int il = (ti + FX - 1) % FX, jl = (tj + FY - 1) % FY;  // the neighbours below, wrapped
    if (inside) {
        REAL fm[4], fp[4];
        xphi[tj][ti] = edge(cells[tj][il], cells[tj][ti], 0, s.grav, s.dry, fm, fp);
        for (int k = 0; k < 2; ++k) {
            xm[k][tj][ti] = fm[k + 1];
            xp[k][tj][ti] = fp[k + 1];
        }
        yphi[tj][ti] = edge(cells[jl][ti], cells[tj][ti], 1, s.grav, s.dry, fm, fp);
        for (int k = 0; k < 2; ++k) {
            ym[k][tj][ti] = fm[k + 1];
            yp[k][tj][ti] = fp[k + 1];
        }
    }
    __syncthreads();
    const int ih = (ti + 1) % FX, jh = (tj + 1) % FY;  // the neighbours above, wrapped
    REAL phi[2][2] = {{xphi[tj][ti], xphi[tj][ih]}, {yphi[tj][ti], yphi[jh][ti]}};
    if (inside) {
        const REAL flow = outflow(phi, lam), h = cells[tj][ti].w[0];
        share[tj][ti] = flow > h ? h / flow : (REAL)1;
    }
    __syncthreads();
    double r = 0.0;
    REAL c_max = (REAL)0, c_below = (REAL)0;
    if (inside) {
        const CellState& me = cells[tj][ti];
        REAL v[4] = {me.w[0], me.w[1], me.w[2], me.w[3]};
        const REAL theta_p = share[tj][ti];
        REAL th[2][2] = {{share[tj][il], share[tj][ih]}, {share[jl][ti], share[jh][ti]}};
        REAL conc[2][2] = {{cells[tj][il].conc, cells[tj][ih].conc}, {cells[jl][ti].conc, cells[jh][ti].conc}};
        REAL t[2];
        edge_shares(phi[0], th[0][0], theta_p, th[0][1], t);
        for (int k = 1; k < 3; ++k) v[k] = v[k] - lam[0] * (t[0] * xp[k - 1][tj][ti] + t[1] * xm[k - 1][tj][ih]);
        edge_shares(phi[1], th[1][0], theta_p, th[1][1], t);
        v[2] = v[2] - lam[1] * (t[0] * yp[0][tj][ti] + t[1] * ym[0][jh][ti]);
        v[1] = v[1] - lam[1] * (t[0] * yp[1][tj][ti] + t[1] * ym[1][jh][ti]);
        transport(v[0], v[3], me.conc, phi, th, conc, theta_p, lam);
        dry_or_thin(s, v);
        for (int k = 0; k < 4; ++k) out[k * s.g.cstride + p] = v[k];
        r = state_rate(s, v[0], v + 1);
        if (v[0] > (REAL)0) {
            const REAL c = quotient(v[3], v[0]);
            c_max = fmax(c, (REAL)0);
            c_below = fmax(-c, (REAL)0);
        }
    }
    block_fold(r, c_max, c_below, rate, bounds);
}
