//! The exact Riemann solver of the 1D Euler equations for an ideal gas (Toro, "Riemann Solvers
//! and Numerical Methods for Fluid Dynamics", 3rd ed., chapter 4).
//!
//! The star pressure p* is the root of the pressure function (4.5),
//! f(p) = f_L(p) + f_R(p) + (u_R - u_L), with f_K the shock (Rankine-Hugoniot) or rarefaction
//! (isentropic) branch (4.6)-(4.8). It is found by Newton-Raphson (4.44) from the adaptive
//! guess of Toro's routine GUESSP (the PVRS, two-rarefaction or two-shock approximation of
//! sec. 4.3.2, (4.46)-(4.49), chosen as in sec. 9.5.1), with the relative change (4.45) as the
//! stopping test, and u* follows from (4.9). The self-similar solution is sampled at S = x/t as
//! in sec. 4.5 (and Toro's routine SAMPLE): shocks (4.50)-(4.52), (4.57)-(4.59), rarefactions
//! and fans (4.53)-(4.56), (4.60)-(4.63). When the pressure positivity condition (4.40) fails,
//! or a side is a vacuum (rho = 0), the solution holds a vacuum and is sampled as in sec. 4.6.
//!
//! The numerical core is allocation-free, iterator-free and written with plain branches so that
//! a CUDA C port can repeat the same arithmetic in the same order. Right-side waves are sampled
//! as the mirror image (u -> -u, S -> -S) of the left-side code, which makes the solution
//! exactly mirror-symmetric.

use crate::real::Real;

/// Primitive variables of the 1D problem; `u` is the velocity normal to the interface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Primitive<R> {
    pub rho: R,
    pub u: R,
    pub p: R,
}

/// The star region: pressure p*, velocity u* (the contact speed) and the number of Newton
/// steps taken (at most `MAX_ITERATIONS`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Star<R> {
    pub p: R,
    pub u: R,
    pub iterations: u32,
}

/// The most Newton-Raphson steps for p*.
pub const MAX_ITERATIONS: u32 = 50;

/// The stopping tolerance on the relative pressure change (4.45): 1e-8, or 8 machine epsilons
/// where that is larger (f32), so that the iteration terminates in every precision.
pub fn tolerance<R: Real>() -> R {
    R::of(1e-8).max(R::of(8.0) * R::epsilon())
}

/// The constants of gamma in Toro's routines, named as there (G1..G8).
#[derive(Clone, Copy, Debug)]
struct Gas<R> {
    /// The ratio of specific heats gamma.
    gamma: R,
    /// G1 = (gamma - 1) / (2 gamma).
    g1: R,
    /// G2 = (gamma + 1) / (2 gamma).
    g2: R,
    /// G3 = 2 gamma / (gamma - 1).
    g3: R,
    /// G4 = 2 / (gamma - 1).
    g4: R,
    /// G5 = 2 / (gamma + 1).
    g5: R,
    /// G6 = (gamma - 1) / (gamma + 1).
    g6: R,
    /// G7 = (gamma - 1) / 2.
    g7: R,
}

impl<R: Real> Gas<R> {
    fn new(gamma: R) -> Self {
        let one = R::one();
        let two = R::of(2.0);
        Gas {
            gamma,
            g1: (gamma - one) / (two * gamma),
            g2: (gamma + one) / (two * gamma),
            g3: two * gamma / (gamma - one),
            g4: two / (gamma - one),
            g5: two / (gamma + one),
            g6: (gamma - one) / (gamma + one),
            g7: (gamma - one) / two,
        }
    }

    /// The ideal-gas sound speed a = sqrt(gamma p / rho).
    fn sound_speed(&self, w: Primitive<R>) -> R {
        (self.gamma * w.p / w.rho).sqrt()
    }
}

/// The vacuum state: rho = p = 0 (its velocity is undefined; 0 is returned).
fn vacuum<R: Real>() -> Primitive<R> {
    Primitive {
        rho: R::zero(),
        u: R::zero(),
        p: R::zero(),
    }
}

/// The mirror image of a state: u -> -u.
fn mirror<R: Real>(w: Primitive<R>) -> Primitive<R> {
    Primitive {
        rho: w.rho,
        u: -w.u,
        p: w.p,
    }
}

/// f_K(p) and its derivative f_K'(p) for side K with sound speed `a` (Toro's PREFUN): the
/// rarefaction branch (4.7) for p <= p_K, the shock branch (4.6) with A_K, B_K of (4.8) for
/// p > p_K, and the derivatives (4.37).
fn pressure_function<R: Real>(p: R, k: Primitive<R>, a: R, gas: &Gas<R>) -> (R, R) {
    if p <= k.p {
        let ratio = p / k.p;
        let f = gas.g4 * a * (ratio.powf(gas.g1) - R::one());
        let df = (R::one() / (k.rho * a)) * ratio.powf(-gas.g2);
        (f, df)
    } else {
        let ak = gas.g5 / k.rho;
        let bk = gas.g6 * k.p;
        let qrt = (ak / (bk + p)).sqrt();
        let f = (p - k.p) * qrt;
        let df = (R::one() - R::of(0.5) * (p - k.p) / (bk + p)) * qrt;
        (f, df)
    }
}

/// The initial guess for p* (Toro's GUESSP, the adaptive choice of sec. 9.5.1 among the
/// approximations of sec. 4.3.2, (4.46)-(4.49)): the PVRS value when p_max / p_min <= 2 and it
/// lies in [p_min, p_max]; else the two-rarefaction value when PVRS is below p_min, or the
/// two-shock value with g_K evaluated at PVRS.
fn guess_pressure<R: Real>(l: Primitive<R>, r: Primitive<R>, al: R, ar: R, gas: &Gas<R>) -> R {
    let quser = R::of(2.0);
    let cup = R::of(0.25) * (l.rho + r.rho) * (al + ar);
    let ppv = (R::of(0.5) * (l.p + r.p) + R::of(0.5) * (l.u - r.u) * cup).max(R::zero());
    let pmin = l.p.min(r.p);
    let pmax = l.p.max(r.p);
    if pmax / pmin <= quser && pmin <= ppv && ppv <= pmax {
        return ppv;
    }
    if ppv < pmin {
        // Two-rarefaction, exact when both waves are rarefactions.
        let num = al + ar - gas.g7 * (r.u - l.u);
        let den = al / l.p.powf(gas.g1) + ar / r.p.powf(gas.g1);
        return (num / den).powf(R::one() / gas.g1);
    }
    // Two-shock, with g_K = sqrt(A_K / (p0 + B_K)) at p0 = PVRS.
    let gel = ((gas.g5 / l.rho) / (gas.g6 * l.p + ppv)).sqrt();
    let ger = ((gas.g5 / r.rho) / (gas.g6 * r.p + ppv)).sqrt();
    let pts = (gel * l.p + ger * r.p - (r.u - l.u)) / (gel + ger);
    // Kept positive (Toro's code does not guard this; the Newton iteration needs p > 0).
    pts.max(tolerance::<R>() * pmin)
}

/// Newton-Raphson for the root of (4.5) (Toro's STARPU): p_k = p_{k-1} - f / f' (4.44) until the
/// relative change (4.45) is at most `tolerance`, at most `MAX_ITERATIONS` steps. f is
/// increasing and concave, so an iterate can undershoot to p <= 0 at most from above p*; it is
/// then replaced by tol * p_{k-1}, below p*, from which the iteration increases monotonically.
fn newton<R: Real>(l: Primitive<R>, r: Primitive<R>, al: R, ar: R, gas: &Gas<R>) -> Star<R> {
    let tol = tolerance::<R>();
    let du = r.u - l.u;
    let mut p_old = guess_pressure(l, r, al, ar, gas);
    let mut p = p_old;
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        let (fl, dfl) = pressure_function(p_old, l, al, gas);
        let (fr, dfr) = pressure_function(p_old, r, ar, gas);
        p = p_old - (fl + fr + du) / (dfl + dfr);
        if p <= R::zero() {
            p = tol * p_old;
        }
        iterations += 1;
        let change = R::of(2.0) * ((p - p_old) / (p + p_old)).abs();
        if change <= tol {
            break;
        }
        p_old = p;
    }
    // u* (4.9), with f_L, f_R at the final p*.
    let (fl, _) = pressure_function(p, l, al, gas);
    let (fr, _) = pressure_function(p, r, ar, gas);
    let u = R::of(0.5) * (l.u + r.u) + R::of(0.5) * (fr - fl);
    Star { p, u, iterations }
}

/// Whether the solution holds a vacuum: a side is a vacuum (rho <= 0), or the pressure
/// positivity condition (4.40), (Delta u)_crit = 2 (a_L + a_R) / (gamma - 1) > u_R - u_L, fails.
fn has_vacuum<R: Real>(l: Primitive<R>, r: Primitive<R>, gas: &Gas<R>) -> bool {
    if l.rho <= R::zero() || r.rho <= R::zero() {
        return true;
    }
    let du_crit = gas.g4 * (gas.sound_speed(l) + gas.sound_speed(r));
    du_crit <= r.u - l.u
}

/// p* and u* of the star region, or `None` when the solution holds a vacuum (an initial vacuum
/// state, or one generated because (4.40) fails). States with rho > 0 need p > 0.
pub fn star_state<R: Real>(l: Primitive<R>, r: Primitive<R>, gamma: R) -> Option<Star<R>> {
    star_state_of(l, r, &Gas::new(gamma))
}

fn star_state_of<R: Real>(l: Primitive<R>, r: Primitive<R>, gas: &Gas<R>) -> Option<Star<R>> {
    if has_vacuum(l, r, gas) {
        return None;
    }
    let al = gas.sound_speed(l);
    let ar = gas.sound_speed(r);
    Some(newton(l, r, al, ar, gas))
}

/// The left rarefaction fan at S (4.56), in Toro's form: a = G5 (a_L + G7 (u_L - S)),
/// u = G5 (a_L + G7 u_L + S), rho = rho_L (a / a_L)^G4, p = p_L (a / a_L)^G3.
fn left_fan<R: Real>(l: Primitive<R>, al: R, gas: &Gas<R>, s: R) -> Primitive<R> {
    let u = gas.g5 * (al + gas.g7 * l.u + s);
    let c = gas.g5 * (al + gas.g7 * (l.u - s)) / al;
    Primitive {
        rho: l.rho * c.powf(gas.g4),
        u,
        p: l.p * c.powf(gas.g3),
    }
}

/// The solution left of the contact (S <= u*), sec. 4.5.1: the left shock (4.50)-(4.52) when
/// p* > p_L, else the left rarefaction (4.53)-(4.56).
fn sample_left<R: Real>(l: Primitive<R>, al: R, star: Star<R>, gas: &Gas<R>, s: R) -> Primitive<R> {
    let pml = star.p / l.p;
    if star.p > l.p {
        // Shock speed S_L (4.52) and star density rho*_L (4.50).
        let sl = l.u - al * (gas.g2 * pml + gas.g1).sqrt();
        if s <= sl {
            return l;
        }
        let rho = l.rho * (pml + gas.g6) / (pml * gas.g6 + R::one());
        return Primitive {
            rho,
            u: star.u,
            p: star.p,
        };
    }
    // Head S_HL = u_L - a_L, tail S_TL = u* - a*_L (4.55), a*_L (4.54).
    let shl = l.u - al;
    if s <= shl {
        return l;
    }
    let stl = star.u - al * pml.powf(gas.g1);
    if s > stl {
        // Isentropic star density rho*_L (4.53).
        let rho = l.rho * pml.powf(R::one() / gas.gamma);
        return Primitive {
            rho,
            u: star.u,
            p: star.p,
        };
    }
    left_fan(l, al, gas, s)
}

/// The solution right of the contact (S > u*), sec. 4.5.2, (4.57)-(4.63): the mirror image of
/// `sample_left` for the mirrored right state at -S.
fn sample_right<R: Real>(r: Primitive<R>, ar: R, star: Star<R>, gas: &Gas<R>, s: R) -> Primitive<R> {
    let mirrored = Star {
        p: star.p,
        u: -star.u,
        iterations: star.iterations,
    };
    mirror(sample_left(mirror(r), ar, mirrored, gas, -s))
}

/// The solution at S of a left state bounded by a vacuum on its right (sec. 4.6, vacuum right
/// state): the state up to the head u_L - a_L, the fan (4.56) up to the vacuum front
/// S*_L = u_L + 2 a_L / (gamma - 1), then `None` (vacuum).
fn left_into_vacuum<R: Real>(l: Primitive<R>, gas: &Gas<R>, s: R) -> Option<Primitive<R>> {
    if l.rho <= R::zero() {
        return None;
    }
    let al = gas.sound_speed(l);
    if s <= l.u - al {
        return Some(l);
    }
    if s < l.u + gas.g4 * al {
        return Some(left_fan(l, al, gas, s));
    }
    None
}

/// The solution at S when it holds a vacuum (sec. 4.6): the left state and its fan into the
/// vacuum, the vacuum, then the right fan (mirrored) and the right state. This covers a vacuum
/// right state, a vacuum left state and a generated vacuum, S*_L <= S*_R.
fn sample_vacuum<R: Real>(l: Primitive<R>, r: Primitive<R>, gas: &Gas<R>, s: R) -> Primitive<R> {
    if let Some(w) = left_into_vacuum(l, gas, s) {
        return w;
    }
    if let Some(w) = left_into_vacuum(mirror(r), gas, -s) {
        return mirror(w);
    }
    vacuum()
}

/// The exact solution of the Riemann problem (l, r) at S = x/t (sec. 4.5; sec. 4.6 with a
/// vacuum, where rho = p = 0 and u = 0 are returned). At S = u* the left star state is taken.
pub fn sample<R: Real>(l: Primitive<R>, r: Primitive<R>, gamma: R, s: R) -> Primitive<R> {
    let gas = Gas::new(gamma);
    let star = match star_state_of(l, r, &gas) {
        Some(star) => star,
        None => return sample_vacuum(l, r, &gas, s),
    };
    if s <= star.u {
        sample_left(l, gas.sound_speed(l), star, &gas, s)
    } else {
        sample_right(r, gas.sound_speed(r), star, &gas, s)
    }
}

/// The Godunov state: the exact solution at the interface x/t = 0, from which the flux of the
/// conservative 1D variables (rho, rho u, E) follows. Transverse velocities (and other passive
/// scalars) are carried from the upwind side, which is the sign of the returned u: u > 0 takes
/// the left state's, u < 0 the right's (u = a at a sonic point inside a fan; a vacuum has
/// rho = 0 and carries nothing).
pub fn godunov_state<R: Real>(l: Primitive<R>, r: Primitive<R>, gamma: R) -> Primitive<R> {
    sample(l, r, gamma, R::zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAMMA: f64 = 1.4;

    fn w(rho: f64, u: f64, p: f64) -> Primitive<f64> {
        Primitive { rho, u, p }
    }

    /// A Riemann problem with Toro's exact star values (Table 4.3) and the number of decimals
    /// given there for p*, u*, rho*_L, rho*_R.
    struct Case {
        l: Primitive<f64>,
        r: Primitive<f64>,
        star: [(f64, i32); 4],
    }

    /// Toro's tests 1-5 (Table 4.1), gamma = 1.4, with Table 4.3. Test 5 collides the right
    /// star state of test 3 with the left one of test 4; Table 4.3 holds for those states at
    /// full precision (taken here from tests 3 and 4), not for the 6-digit values of Table 4.1
    /// (see `riemann_test5_with_rounded_data`).
    fn toro_cases() -> [Case; 5] {
        let star3 = star_state(w(1.0, 0.0, 1000.0), w(1.0, 0.0, 0.01), GAMMA).unwrap();
        let star4 = star_state(w(1.0, 0.0, 0.01), w(1.0, 0.0, 100.0), GAMMA).unwrap();
        let (_, rho3) = star_densities(w(1.0, 0.0, 1000.0), w(1.0, 0.0, 0.01), GAMMA);
        let (rho4, _) = star_densities(w(1.0, 0.0, 0.01), w(1.0, 0.0, 100.0), GAMMA);
        [
            Case {
                l: w(1.0, 0.0, 1.0),
                r: w(0.125, 0.0, 0.1),
                star: [(0.30313, 5), (0.92745, 5), (0.42632, 5), (0.26557, 5)],
            },
            Case {
                l: w(1.0, -2.0, 0.4),
                r: w(1.0, 2.0, 0.4),
                star: [(0.00189, 5), (0.0, 5), (0.02185, 5), (0.02185, 5)],
            },
            Case {
                l: w(1.0, 0.0, 1000.0),
                r: w(1.0, 0.0, 0.01),
                star: [(460.894, 3), (19.5975, 4), (0.57506, 5), (5.99924, 5)],
            },
            Case {
                l: w(1.0, 0.0, 0.01),
                r: w(1.0, 0.0, 100.0),
                star: [(46.0950, 4), (-6.19633, 5), (5.99242, 5), (0.57511, 5)],
            },
            Case {
                l: w(rho3, star3.u, star3.p),
                r: w(rho4, star4.u, star4.p),
                star: [(1691.64, 2), (8.68975, 5), (14.2823, 4), (31.0426, 4)],
            },
        ]
    }

    /// `x` rounds to `reference` at `decimals` decimals (half a unit of the last place).
    fn assert_digits(x: f64, reference: f64, decimals: i32, what: &str) {
        let half_unit = 0.5 * 10f64.powi(-decimals) * (1.0 + 1e-9);
        assert!(
            (x - reference).abs() <= half_unit,
            "{what}: {x} vs {reference} ({decimals} decimals)"
        );
    }

    fn assert_rel(x: f64, reference: f64, rel: f64, what: &str) {
        assert!(
            (x - reference).abs() <= rel * reference.abs(),
            "{what}: {x} vs {reference}"
        );
    }

    /// rho*_L and rho*_R: the left and right star states at S = u*.
    fn star_densities<R: Real>(l: Primitive<R>, r: Primitive<R>, gamma: R) -> (R, R) {
        let gas = Gas::new(gamma);
        let star = star_state(l, r, gamma).unwrap();
        let left = sample_left(l, gas.sound_speed(l), star, &gas, star.u);
        let right = sample_right(r, gas.sound_speed(r), star, &gas, star.u);
        (left.rho, right.rho)
    }

    #[test]
    fn riemann_toro_table_4_3() {
        for (i, case) in toro_cases().iter().enumerate() {
            let star = star_state(case.l, case.r, GAMMA).unwrap();
            let (rho_l, rho_r) = star_densities(case.l, case.r, GAMMA);
            let got = [star.p, star.u, rho_l, rho_r];
            let names = ["p*", "u*", "rho*L", "rho*R"];
            for k in 0..4 {
                let (reference, decimals) = case.star[k];
                assert_digits(got[k], reference, decimals, &format!("test {} {}", i + 1, names[k]));
            }
            assert!(star.iterations <= 6, "test {}: {} iterations", i + 1, star.iterations);
            println!(
                "test {}: p* = {:.9}, u* = {:.9}, rho*L = {:.9}, rho*R = {:.9}, {} iterations",
                i + 1,
                star.p,
                star.u,
                rho_l,
                rho_r,
                star.iterations
            );
        }
    }

    /// Test 5 with the rounded data of Table 4.1: p* = 1691.647 and u* = 8.68977, 4e-6 and
    /// 2e-6 relative off Table 4.3 (1691.64, 8.68975), which is the solution for the
    /// full-precision data.
    #[test]
    fn riemann_test5_with_rounded_data() {
        let (l, r) = (w(5.99924, 19.5975, 460.894), w(5.99242, -6.19633, 46.0950));
        let star = star_state(l, r, GAMMA).unwrap();
        assert_digits(star.p, 1691.647, 3, "p*");
        assert_digits(star.u, 8.68977, 5, "u*");
        assert_rel(star.p, 1691.64, 1e-5, "p* against Table 4.3");
        assert_rel(star.u, 8.68975, 1e-5, "u* against Table 4.3");
    }

    /// Density at x of test 1 at t = 0.25 with the discontinuity at x0 = 0.5.
    fn test1_rho(x: f64) -> f64 {
        let case = &toro_cases()[0];
        sample(case.l, case.r, GAMMA, (x - 0.5) / 0.25).rho
    }

    #[test]
    fn riemann_test1_profile() {
        let (t, x0, dx) = (0.25, 0.5, 2.5e-6);
        // Rarefaction head, S = -1.18322: the left state, then the fan just below it.
        let head = x0 - 1.18322 * t;
        assert_eq!(test1_rho(head - dx), 1.0);
        let fan = test1_rho(head + dx);
        assert!(fan < 1.0 && fan > 0.9999, "just inside the fan: {fan}");
        // Contact, S = 0.92745: rho*L, then rho*R.
        let contact = x0 + 0.92745 * t;
        assert_digits(test1_rho(contact - dx), 0.42632, 5, "left of the contact");
        assert_digits(test1_rho(contact + dx), 0.26557, 5, "right of the contact");
        // Shock, S = 1.75216: rho*R, then the right state.
        let shock = x0 + 1.75216 * t;
        assert_digits(test1_rho(shock - dx), 0.26557, 5, "left of the shock");
        assert_eq!(test1_rho(shock + dx), 0.125);
    }

    /// Inside a left fan the C- characteristic is the ray (u - a = S), the flow is isentropic
    /// and the Riemann invariant u + 2a / (gamma - 1) is that of the left state.
    #[test]
    fn riemann_left_fan_is_a_centred_isentropic_wave() {
        let case = &toro_cases()[0];
        let gas = Gas::new(GAMMA);
        let al = gas.sound_speed(case.l);
        let entropy = case.l.p / case.l.rho.powf(GAMMA);
        let invariant = case.l.u + gas.g4 * al;
        for k in 0..=10 {
            let s = -1.18 + 1.1 * (k as f64) / 10.0;
            let q = sample(case.l, case.r, GAMMA, s);
            let a = gas.sound_speed(q);
            assert!((q.u - a - s).abs() < 1e-12, "u - a = S at {s}");
            assert_rel(q.p / q.rho.powf(GAMMA), entropy, 1e-12, "isentropic");
            assert_rel(q.u + gas.g4 * a, invariant, 1e-12, "Riemann invariant");
        }
        // The tail S_TL = u* - a*_L joins the star state continuously.
        let star = star_state(case.l, case.r, GAMMA).unwrap();
        let (rho_star, _) = star_densities(case.l, case.r, GAMMA);
        let stl = star.u - (GAMMA * star.p / rho_star).sqrt();
        let below = sample(case.l, case.r, GAMMA, stl - 1e-9);
        let above = sample(case.l, case.r, GAMMA, stl + 1e-9);
        assert_rel(below.rho, above.rho, 1e-8, "continuous at the tail");
        assert_rel(below.p, above.p, 1e-8, "continuous at the tail");
    }

    /// The Rankine-Hugoniot conditions across the shock between `pre` and `post`: the speed from
    /// the mass jump, then momentum and energy.
    fn assert_rankine_hugoniot(pre: Primitive<f64>, post: Primitive<f64>, gamma: f64) -> f64 {
        let energy = |q: Primitive<f64>| q.p / (gamma - 1.0) + 0.5 * q.rho * q.u * q.u;
        let speed = (post.rho * post.u - pre.rho * pre.u) / (post.rho - pre.rho);
        let momentum = |q: Primitive<f64>| q.rho * q.u * (q.u - speed) + q.p;
        let energy_flux = |q: Primitive<f64>| energy(q) * (q.u - speed) + q.p * q.u;
        assert_rel(momentum(post), momentum(pre), 1e-10, "momentum jump");
        assert_rel(energy_flux(post), energy_flux(pre), 1e-10, "energy jump");
        speed
    }

    #[test]
    fn riemann_shocks_satisfy_rankine_hugoniot() {
        let cases = toro_cases();
        for gamma in [1.4, 5.0 / 3.0] {
            let gas = Gas::new(gamma);
            // Right shocks of tests 1, 3, 5 and left shocks of tests 4, 5.
            for (i, right, left) in [(0, true, false), (2, true, false), (3, false, true), (4, true, true)] {
                let (l, r) = (cases[i].l, cases[i].r);
                let star = star_state(l, r, gamma).unwrap();
                if right {
                    let post = sample_right(r, gas.sound_speed(r), star, &gas, star.u);
                    let speed = assert_rankine_hugoniot(r, post, gamma);
                    assert_eq!(sample(l, r, gamma, speed + 1e-9), r);
                    assert_eq!(sample(l, r, gamma, speed - 1e-9), post);
                    if i == 0 && gamma == 1.4 {
                        assert_digits(speed, 1.75216, 5, "test 1 shock speed");
                    }
                }
                if left {
                    let post = sample_left(l, gas.sound_speed(l), star, &gas, star.u);
                    let speed = assert_rankine_hugoniot(l, post, gamma);
                    assert_eq!(sample(l, r, gamma, speed - 1e-9), l);
                    assert_eq!(sample(l, r, gamma, speed + 1e-9), post);
                }
            }
        }
    }

    #[test]
    fn riemann_symmetric_problem_has_u_star_zero() {
        for (l, r) in [
            (w(1.0, 1.0, 1.0), w(1.0, -1.0, 1.0)),
            (w(2.0, -1.5, 3.0), w(2.0, 1.5, 3.0)),
        ] {
            let star = star_state(l, r, GAMMA).unwrap();
            assert_eq!(star.u, 0.0);
            let g = godunov_state(l, r, GAMMA);
            assert_eq!(g.u, 0.0);
            assert_eq!(g.p, star.p);
        }
    }

    #[test]
    fn riemann_uniform_state_is_unchanged() {
        let q = w(1.3, -0.7, 2.1);
        let star = star_state(q, q, GAMMA).unwrap();
        assert_eq!((star.p, star.u, star.iterations), (q.p, q.u, 1));
        for k in 0..=20 {
            assert_eq!(sample(q, q, GAMMA, -3.0 + 0.3 * k as f64), q);
        }
    }

    #[test]
    fn riemann_godunov_states() {
        // Test 2: the interface sits in the star region, u* = 0.
        let case = &toro_cases()[1];
        let g = godunov_state(case.l, case.r, GAMMA);
        assert_digits(g.rho, 0.02185, 5, "rho");
        assert_digits(g.p, 0.00189, 5, "p");
        assert_eq!(g.u, 0.0);
        // Sod with u_L = 0.75 (Toro's test 1 of chapter 6): a sonic left rarefaction, u = a.
        let g = godunov_state(w(1.0, 0.75, 1.0), w(0.125, 0.0, 0.1), GAMMA);
        let a = Gas::new(GAMMA).sound_speed(g);
        assert!(
            g.u > 0.0 && (g.u - a).abs() < 1e-12,
            "sonic point: u = {}, a = {a}",
            g.u
        );
        // Supersonic flow to the right or left: the upwind state.
        let (l, r) = (w(1.0, 5.0, 1.0), w(0.5, 4.0, 0.8));
        assert_eq!(godunov_state(l, r, GAMMA), l);
        assert_eq!(godunov_state(mirror(r), mirror(l), GAMMA), mirror(l));
    }

    #[test]
    fn riemann_generated_vacuum() {
        let (l, r) = (w(1.0, -4.0, 0.4), w(1.0, 4.0, 0.4));
        assert!(star_state(l, r, GAMMA).is_none());
        let gas = Gas::new(GAMMA);
        let front = l.u + gas.g4 * gas.sound_speed(l); // S*_L = -0.2583
        assert_eq!(sample(l, r, GAMMA, 0.0), vacuum());
        assert_eq!(sample(l, r, GAMMA, front + 1e-6).rho, 0.0);
        assert_eq!(godunov_state(l, r, GAMMA).rho, 0.0);
        assert_eq!(sample(l, r, GAMMA, -5.0), l);
        assert_eq!(sample(l, r, GAMMA, 5.0), r);
        let near = sample(l, r, GAMMA, front - 1e-3);
        assert!(
            near.rho > 0.0 && near.rho < 1e-3,
            "fan towards the vacuum front: {near:?}"
        );
        assert!((near.u - gas.sound_speed(near) - (front - 1e-3)).abs() < 1e-12);
        // The 123 problem is just short of the vacuum: (Delta u)_crit = 4.68 > 4.
        assert!(star_state(w(1.0, -2.0, 0.4), w(1.0, 2.0, 0.4), GAMMA).is_some());
    }

    #[test]
    fn riemann_initial_vacuum() {
        let q = w(1.0, 0.0, 1.0);
        let gas = Gas::new(GAMMA);
        let a = gas.sound_speed(q);
        assert!(star_state(vacuum(), q, GAMMA).is_none());
        assert!(star_state(q, vacuum(), GAMMA).is_none());
        // A vacuum on the left: the vacuum, the fan from S*_R = -2a / (gamma - 1), then q from a.
        assert_eq!(sample(vacuum(), q, GAMMA, -gas.g4 * a - 1e-9), vacuum());
        assert_eq!(sample(vacuum(), q, GAMMA, a + 1e-9), q);
        let fan = sample(vacuum(), q, GAMMA, -2.0);
        assert!((fan.u + gas.sound_speed(fan) + 2.0).abs() < 1e-12, "u + a = S: {fan:?}");
        // On the right: the mirror image.
        assert_eq!(sample(q, vacuum(), GAMMA, 2.0), mirror(fan));
        assert_eq!(sample(vacuum(), vacuum(), GAMMA, 0.0), vacuum());
    }

    /// All problems of the tests, for the symmetry test.
    fn all_problems() -> Vec<(Primitive<f64>, Primitive<f64>)> {
        let mut problems: Vec<_> = toro_cases().iter().map(|c| (c.l, c.r)).collect();
        problems.push((w(1.0, -4.0, 0.4), w(1.0, 4.0, 0.4)));
        problems.push((w(1.0, 0.75, 1.0), w(0.125, 0.0, 0.1)));
        problems.push((vacuum(), w(1.0, 0.3, 1.0)));
        problems.push((w(0.7, 0.3, 2.0), w(1.9, -1.1, 0.05)));
        problems
    }

    /// Swapping L and R with u -> -u mirrors the solution, bit for bit (away from S = u*).
    #[test]
    fn riemann_mirror_symmetry() {
        for (l, r) in all_problems() {
            let star = star_state(l, r, GAMMA);
            let swapped = star_state(mirror(r), mirror(l), GAMMA);
            assert_eq!(star.map(|s| (s.p, -s.u)), swapped.map(|s| (s.p, s.u)));
            for k in 0..=400 {
                let s = -30.0 + 0.15 * k as f64 + 0.0123;
                if star.is_some_and(|st| st.u == s) {
                    continue;
                }
                let direct = sample(l, r, GAMMA, s);
                let mirrored = mirror(sample(mirror(r), mirror(l), GAMMA, -s));
                assert_eq!(direct, mirrored, "S = {s}, {l:?} | {r:?}");
            }
        }
    }

    fn to_f32(q: Primitive<f64>) -> Primitive<f32> {
        Primitive {
            rho: q.rho as f32,
            u: q.u as f32,
            p: q.p as f32,
        }
    }

    #[test]
    fn riemann_f32_agrees_with_f64() {
        for (i, case) in toro_cases().iter().enumerate() {
            let s64 = star_state(case.l, case.r, GAMMA).unwrap();
            let (l, r) = (to_f32(case.l), to_f32(case.r));
            let s32 = star_state(l, r, GAMMA as f32).unwrap();
            assert!(s32.iterations < MAX_ITERATIONS, "test {}: f32 did not converge", i + 1);
            let what = format!("test {} f32", i + 1);
            assert_rel(s32.p as f64, s64.p, 1e-4, &what);
            assert_rel(s32.u as f64, s64.u, 1e-4, &what);
            let (l64, r64) = star_densities(case.l, case.r, GAMMA);
            let (l32, r32) = star_densities(l, r, GAMMA as f32);
            assert_rel(l32 as f64, l64, 1e-4, &what);
            assert_rel(r32 as f64, r64, 1e-4, &what);
            println!(
                "test {}: f32 p* = {}, u* = {}, {} iterations",
                i + 1,
                s32.p,
                s32.u,
                s32.iterations
            );
        }
    }
}
