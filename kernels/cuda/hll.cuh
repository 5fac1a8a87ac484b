// The approximate Riemann solvers HLL and HLLC of the Euler equations for an ideal gas (Toro
// ch. 10), ported from solver/src/numerics/fv/riemann_hll.rs: the same operations in the same
// order, every literal cast to REAL (the including module is compiled with --fmad=false).
// Pressure-based wave-speed estimates (Toro sec. 10.5.2, the PVRS p*). States are conservative
// in the frame of the interface: [rho, rho u_n, rho u_t1, rho u_t2, E].
#pragma once
#include "common.cuh"

// Pressure p = (gamma - 1) (E - rho |u|^2 / 2) of a state in a sweep's frame.
__device__ __forceinline__ REAL pressure(const REAL* u, REAL gamma) {
    const REAL kinetic = (REAL)0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0];
    return (gamma - (REAL)1) * (u[4] - kinetic);
}

// The flux along the axis of a conservative state.
__device__ __forceinline__ void flux(const REAL* u, REAL gamma, REAL* f) {
    const REAL p = pressure(u, gamma);
    const REAL un = u[1] / u[0];
    f[0] = u[1];
    f[1] = u[1] * un + p;
    f[2] = u[2] * un;
    f[3] = u[3] * un;
    f[4] = un * (u[4] + p);
}

// One side of the interface: its state, normal velocity, pressure, sound speed and flux.
struct HllSide {
    REAL u[5];
    REAL vel, p, a;
    REAL f[5];
};

__device__ __forceinline__ void hll_side(const REAL* u, REAL gamma, HllSide* k) {
    const REAL p = pressure(u, gamma);
#pragma unroll
    for (int c = 0; c < 5; ++c) k->u[c] = u[c];
    const REAL vel = u[1] / u[0];
    k->vel = vel;
    k->p = p;
    k->a = sqrt(gamma * p / u[0]);
    // flux(u) with the pressure and velocity at hand (riemann_hll.rs, side)
    k->f[0] = u[1];
    k->f[1] = u[1] * vel + p;
    k->f[2] = u[2] * vel;
    k->f[3] = u[3] * vel;
    k->f[4] = vel * (u[4] + p);
}

// q_K of the pressure-based estimate: 1 for a rarefaction, the shock factor otherwise.
__device__ __forceinline__ REAL shock_factor(REAL p_star, const HllSide& k, REAL gamma) {
    if (p_star <= k.p) return (REAL)1;
    const REAL g2 = (gamma + (REAL)1) / ((REAL)2 * gamma);
    return sqrt((REAL)1 + g2 * (p_star / k.p - (REAL)1));
}

// The pressure-based wave-speed estimates S_L, S_R (Toro sec. 10.5.2).
__device__ __forceinline__ void wave_speeds(const HllSide& l, const HllSide& r, REAL gamma, REAL* sl, REAL* sr) {
    const REAL half = (REAL)0.5;
    const REAL rho_bar = half * (l.u[0] + r.u[0]);
    const REAL a_bar = half * (l.a + r.a);
    const REAL ppv = half * (l.p + r.p) - half * (r.vel - l.vel) * rho_bar * a_bar;
    const REAL p_star = fmax(ppv, (REAL)0);
    *sl = l.vel - l.a * shock_factor(p_star, l, gamma);
    *sr = r.vel + r.a * shock_factor(p_star, r, gamma);
}

// The two sides of the interface and their wave speeds S_L, S_R; where both waves travel one
// way (S_L >= 0 or S_R <= 0), the upwind side's flux into f, which both solvers take, and true.
__device__ __forceinline__ bool hll_fan(const REAL* ul, const REAL* ur, REAL gamma, HllSide* l, HllSide* r, REAL* sl,
                                        REAL* sr, REAL* f) {
    hll_side(ul, gamma, l);
    hll_side(ur, gamma, r);
    wave_speeds(*l, *r, gamma, sl, sr);
    const bool left = *sl >= (REAL)0;
    if (!left && !(*sr <= (REAL)0)) return false;
    // a select per component, not a pointer to one side: that would put both sides in memory
#pragma unroll
    for (int c = 0; c < 5; ++c) f[c] = left ? l->f[c] : r->f[c];
    return true;
}

// The HLL flux (Toro eq. 10.21) between conservative states l and r.
__device__ __forceinline__ void hll_flux(const REAL* ul, const REAL* ur, REAL gamma, REAL* f) {
    HllSide l, r;
    REAL sl, sr;
    if (hll_fan(ul, ur, gamma, &l, &r, &sl, &sr, f)) return;
    const REAL inv = (REAL)1 / (sr - sl);  // one division, not five (riemann_hll.rs)
#pragma unroll
    for (int c = 0; c < 5; ++c) f[c] = (sr * l.f[c] - sl * r.f[c] + sl * sr * (r.u[c] - l.u[c])) * inv;
}

// The HLLC flux F*_K = F_K + S_K (U*_K - U_K) (Toro eq. 10.38) of side k with wave speed s and
// contact speed s_star, the star state of eq. 10.39.
__device__ __forceinline__ void star_flux(const HllSide& k, REAL s, REAL s_star, REAL* f) {
    const REAL rho = k.u[0];
    const REAL factor = rho * ((s - k.vel) / (s - s_star));
    const REAL energy = k.u[4] / rho + (s_star - k.vel) * (s_star + k.p / (rho * (s - k.vel)));
    REAL star[5];
    star[0] = factor;
    star[1] = factor * s_star;
    star[2] = factor * (k.u[2] / rho);
    star[3] = factor * (k.u[3] / rho);
    star[4] = factor * energy;
#pragma unroll
    for (int c = 0; c < 5; ++c) f[c] = k.f[c] + s * (star[c] - k.u[c]);
}

// The HLLC flux (Toro eqs. 10.37-10.39) between conservative states l and r.
__device__ __forceinline__ void hllc_flux(const REAL* ul, const REAL* ur, REAL gamma, REAL* f) {
    HllSide l, r;
    REAL sl, sr;
    if (hll_fan(ul, ur, gamma, &l, &r, &sl, &sr, f)) return;
    const REAL ml = l.u[0] * (sl - l.vel);
    const REAL mr = r.u[0] * (sr - r.vel);
    const REAL s_star = (r.p - l.p + l.u[1] * (sl - l.vel) - r.u[1] * (sr - r.vel)) / (ml - mr);
    if (s_star >= (REAL)0) {
        star_flux(l, sl, s_star, f);
    } else {
        star_flux(r, sr, s_star, f);
    }
}
