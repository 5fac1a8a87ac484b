// The exact Riemann solver of the 1D Euler equations for an ideal gas (Toro ch. 4), ported
// from solver/src/numerics/fv/riemann_exact.rs: the same operations in the same order, every
// literal cast to REAL, so that a module compiled with --fmad=false rounds as the CPU does
// (pow is the one operation whose rounding may differ: see real_pow).
// Star pressure by Newton-Raphson from Toro's adaptive guess (GUESSP), sampling as in sec. 4.5
// (SAMPLE), the vacuum cases of sec. 4.6; right waves sampled as the mirror image of the left.
#pragma once
#include "common.cuh"

// x^y as the host's libm rounds it. glibc's pow and powf are correctly rounded in nearly all
// cases; CUDA's pow is within 2 ulp and its powf within 4, which after 100 steps of a 2D
// Riemann problem left float 1.2e-5 apart from the CPU. In float the power is therefore taken
// in double and rounded once, which gives the correctly rounded float in nearly all cases.
__device__ __forceinline__ float real_pow(float x, float y) { return (float)pow((double)x, (double)y); }
__device__ __forceinline__ double real_pow(double x, double y) { return pow(x, y); }

// Primitive variables of the 1D problem; u is the velocity normal to the interface.
struct Prim {
    REAL rho, u, p;
};

// The star region: pressure p*, velocity u* (the contact speed).
struct Star {
    REAL p, u;
};

// The most Newton-Raphson steps for p*.
#define RIEMANN_MAX_ITERATIONS 50

// The stopping tolerance on the relative pressure change (4.45): 1e-8, or 8 machine epsilons
// where that is larger (float).
__device__ __forceinline__ REAL riemann_tolerance() {
    const REAL eps = sizeof(REAL) == 4 ? (REAL)0x1p-23 : (REAL)0x1p-52;
    return fmax((REAL)1e-8, (REAL)8 * eps);
}

// The constants of gamma in Toro's routines (G1..G7).
struct Gas {
    REAL gamma, g1, g2, g3, g4, g5, g6, g7;
};

__device__ __forceinline__ Gas gas_of(REAL gamma) {
    const REAL one = (REAL)1, two = (REAL)2;
    Gas g;
    g.gamma = gamma;
    g.g1 = (gamma - one) / (two * gamma);
    g.g2 = (gamma + one) / (two * gamma);
    g.g3 = two * gamma / (gamma - one);
    g.g4 = two / (gamma - one);
    g.g5 = two / (gamma + one);
    g.g6 = (gamma - one) / (gamma + one);
    g.g7 = (gamma - one) / two;
    return g;
}

__device__ __forceinline__ REAL sound_speed(const Gas& gas, Prim w) { return sqrt(gas.gamma * w.p / w.rho); }

__device__ __forceinline__ Prim prim_of(REAL rho, REAL u, REAL p) {
    Prim w;
    w.rho = rho;
    w.u = u;
    w.p = p;
    return w;
}

__device__ __forceinline__ Prim mirror(Prim w) { return prim_of(w.rho, -w.u, w.p); }

// f_K(p) and f_K'(p) (Toro's PREFUN): rarefaction branch for p <= p_K, shock branch above.
__device__ __forceinline__ void pressure_function(REAL p, Prim k, REAL a, const Gas& gas, REAL* f, REAL* df) {
    if (p <= k.p) {
        const REAL ratio = p / k.p;
        *f = gas.g4 * a * (real_pow(ratio, gas.g1) - (REAL)1);
        *df = ((REAL)1 / (k.rho * a)) * real_pow(ratio, -gas.g2);
    } else {
        const REAL ak = gas.g5 / k.rho;
        const REAL bk = gas.g6 * k.p;
        const REAL qrt = sqrt(ak / (bk + p));
        *f = (p - k.p) * qrt;
        *df = ((REAL)1 - (REAL)0.5 * (p - k.p) / (bk + p)) * qrt;
    }
}

// Toro's GUESSP: PVRS, two-rarefaction or two-shock (kept positive).
__device__ __forceinline__ REAL guess_pressure(Prim l, Prim r, REAL al, REAL ar, const Gas& gas) {
    const REAL quser = (REAL)2;
    const REAL cup = (REAL)0.25 * (l.rho + r.rho) * (al + ar);
    const REAL ppv = fmax((REAL)0.5 * (l.p + r.p) + (REAL)0.5 * (l.u - r.u) * cup, (REAL)0);
    const REAL pmin = fmin(l.p, r.p);
    const REAL pmax = fmax(l.p, r.p);
    if (pmax / pmin <= quser && pmin <= ppv && ppv <= pmax) return ppv;
    if (ppv < pmin) {
        const REAL num = al + ar - gas.g7 * (r.u - l.u);
        const REAL den = al / real_pow(l.p, gas.g1) + ar / real_pow(r.p, gas.g1);
        return real_pow(num / den, (REAL)1 / gas.g1);
    }
    const REAL gel = sqrt((gas.g5 / l.rho) / (gas.g6 * l.p + ppv));
    const REAL ger = sqrt((gas.g5 / r.rho) / (gas.g6 * r.p + ppv));
    const REAL pts = (gel * l.p + ger * r.p - (r.u - l.u)) / (gel + ger);
    return fmax(pts, riemann_tolerance() * pmin);
}

// Newton-Raphson for p* (Toro's STARPU), then u* (4.9).
__device__ __forceinline__ Star newton(Prim l, Prim r, REAL al, REAL ar, const Gas& gas) {
    const REAL tol = riemann_tolerance();
    const REAL du = r.u - l.u;
    REAL p_old = guess_pressure(l, r, al, ar, gas);
    REAL p = p_old;
    int iterations = 0;
    REAL fl, dfl, fr, dfr;
    while (iterations < RIEMANN_MAX_ITERATIONS) {
        pressure_function(p_old, l, al, gas, &fl, &dfl);
        pressure_function(p_old, r, ar, gas, &fr, &dfr);
        p = p_old - (fl + fr + du) / (dfl + dfr);
        if (p <= (REAL)0) p = tol * p_old;
        iterations += 1;
        const REAL change = (REAL)2 * fabs((p - p_old) / (p + p_old));
        if (change <= tol) break;
        p_old = p;
    }
    pressure_function(p, l, al, gas, &fl, &dfl);
    pressure_function(p, r, ar, gas, &fr, &dfr);
    Star s;
    s.p = p;
    s.u = (REAL)0.5 * (l.u + r.u) + (REAL)0.5 * (fr - fl);
    return s;
}

// A vacuum side, or the pressure positivity condition (4.40) fails.
__device__ __forceinline__ bool has_vacuum(Prim l, Prim r, const Gas& gas) {
    if (l.rho <= (REAL)0 || r.rho <= (REAL)0) return true;
    const REAL du_crit = gas.g4 * (sound_speed(gas, l) + sound_speed(gas, r));
    return du_crit <= r.u - l.u;
}

// The left rarefaction fan at S (4.56), Toro's form.
__device__ __forceinline__ Prim left_fan(Prim l, REAL al, const Gas& gas, REAL s) {
    const REAL u = gas.g5 * (al + gas.g7 * l.u + s);
    const REAL c = gas.g5 * (al + gas.g7 * (l.u - s)) / al;
    return prim_of(l.rho * real_pow(c, gas.g4), u, l.p * real_pow(c, gas.g3));
}

// The solution left of the contact (S <= u*): left shock or left rarefaction.
__device__ __forceinline__ Prim sample_left(Prim l, REAL al, Star star, const Gas& gas, REAL s) {
    const REAL pml = star.p / l.p;
    if (star.p > l.p) {
        const REAL sl = l.u - al * sqrt(gas.g2 * pml + gas.g1);
        if (s <= sl) return l;
        const REAL rho = l.rho * (pml + gas.g6) / (pml * gas.g6 + (REAL)1);
        return prim_of(rho, star.u, star.p);
    }
    const REAL shl = l.u - al;
    if (s <= shl) return l;
    const REAL stl = star.u - al * real_pow(pml, gas.g1);
    if (s > stl) {
        const REAL rho = l.rho * real_pow(pml, (REAL)1 / gas.gamma);
        return prim_of(rho, star.u, star.p);
    }
    return left_fan(l, al, gas, s);
}

// The solution right of the contact: the mirror image of sample_left.
__device__ __forceinline__ Prim sample_right(Prim r, REAL ar, Star star, const Gas& gas, REAL s) {
    Star mirrored;
    mirrored.p = star.p;
    mirrored.u = -star.u;
    return mirror(sample_left(mirror(r), ar, mirrored, gas, -s));
}

// A left state bounded by a vacuum on its right (sec. 4.6): false where S is in the vacuum.
__device__ __forceinline__ bool left_into_vacuum(Prim l, const Gas& gas, REAL s, Prim* w) {
    if (l.rho <= (REAL)0) return false;
    const REAL al = sound_speed(gas, l);
    if (s <= l.u - al) {
        *w = l;
        return true;
    }
    if (s < l.u + gas.g4 * al) {
        *w = left_fan(l, al, gas, s);
        return true;
    }
    return false;
}

// The solution at S when it holds a vacuum (sec. 4.6).
__device__ __forceinline__ Prim sample_vacuum(Prim l, Prim r, const Gas& gas, REAL s) {
    Prim w;
    if (left_into_vacuum(l, gas, s, &w)) return w;
    if (left_into_vacuum(mirror(r), gas, -s, &w)) return mirror(w);
    return prim_of((REAL)0, (REAL)0, (REAL)0);
}

// The exact solution of the Riemann problem (l, r) at S = x/t; at S = u* the left star state.
__device__ __forceinline__ Prim riemann_sample(Prim l, Prim r, REAL gamma, REAL s) {
    const Gas gas = gas_of(gamma);
    if (has_vacuum(l, r, gas)) return sample_vacuum(l, r, gas, s);
    const Star star = newton(l, r, sound_speed(gas, l), sound_speed(gas, r), gas);
    if (s <= star.u) return sample_left(l, sound_speed(gas, l), star, gas, s);
    return sample_right(r, sound_speed(gas, r), star, gas, s);
}

// The Godunov state: the exact solution at x/t = 0.
__device__ __forceinline__ Prim godunov_state(Prim l, Prim r, REAL gamma) { return riemann_sample(l, r, gamma, (REAL)0); }
