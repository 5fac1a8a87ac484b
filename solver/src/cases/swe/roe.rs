//! The first-order path-conservative Roe scheme of the paper (Viñas et al., eqs. 5-15) on one
//! edge of a Cartesian grid, in the edge's frame: states (h, q_n, q_t, hC), H the bed's depth
//! below the reference level. The edge returns the contributions to the cell below it, F^- =
//! P^- (A dW - S dH), and to the cell above it, b - F^-, per unit length: the bed term makes
//! them differ (not antisymmetric), and makes a lake at rest exactly at rest (dh = dH there).
//! Wet/dry: an edge between two dry cells does nothing; where a wet cell's surface lies below a
//! dry neighbour's bed (an emerged bank or island) the edge is a wall for the wet cell
//! (Castro et al. 2005's treatment, as the paper's group uses it).
//!
//! Each edge also gives its mass flux Phi (along +axis, from `lo` to `hi`): the depth's
//! component of the Roe flux, 1/2 (q_lo + q_hi) - 1/2 sum_k sign(lambda_k) alpha_k r_k[0],
//! the same number seen from both sides (0 exactly at a wall, between dry cells and in a lake at
//! rest). The water and the pollutant move with it (`cpu.rs`, `transport`); the Roe
//! fluctuations give the momentum.

use crate::real::Real;

/// A state in an edge's frame: depth, momentum along the normal, across it, pollutant hC.
pub type State<R> = [R; 4];

/// The contributions of the edge between `lo` (bed depth `h_lo`) and `hi` to the cell below
/// and the cell above it, and its mass flux from `lo` to `hi`; cells no deeper than `dry` are
/// dry. The pollutant's entries (index 3) are 0: it moves with the mass flux.
pub fn edge<R: Real>(lo: State<R>, bed_lo: R, hi: State<R>, bed_hi: R, g: R, dry: R) -> (State<R>, State<R>, R) {
    let zero = [R::zero(); 4];
    let (wet_lo, wet_hi) = (lo[0] > dry, hi[0] > dry);
    let mirror = |s: State<R>| [s[0], -s[1], s[2], s[3]];
    match (wet_lo, wet_hi) {
        (false, false) => (zero, zero, R::zero()),
        // The wet side's surface (h - H) below the dry side's bed (-H): a wall for it.
        (true, false) if lo[0] - bed_lo < -bed_hi => (roe(lo, bed_lo, mirror(lo), bed_lo, g, dry).0, zero, R::zero()),
        (false, true) if hi[0] - bed_hi < -bed_lo => (zero, roe(mirror(hi), bed_hi, hi, bed_hi, g, dry).1, R::zero()),
        _ => roe(lo, bed_lo, hi, bed_hi, g, dry),
    }
}

/// The Roe contributions (F^-, b - F^-) with b = A(W_hi - W_lo) - S (H_hi - H_lo), A and S at the
/// Roe state (eqs. 10-15), F^- its projection on the waves moving towards `lo` (half of a wave
/// standing still), in closed form for the 4 x 4 system; and the mass flux.
fn roe<R: Real>(lo: State<R>, bed_lo: R, hi: State<R>, bed_hi: R, g: R, dry: R) -> (State<R>, State<R>, R) {
    let (half, two) = (R::of(0.5), R::of(2.0));
    // Reciprocals, then products: fewer divisions (the device's costliest arithmetic).
    let velocities = |s: &State<R>| {
        if s[0] > dry {
            let inv = R::one() / s[0];
            [s[1] * inv, s[2] * inv]
        } else {
            [R::zero(); 2]
        }
    };
    let (vl, vh) = (velocities(&lo), velocities(&hi));
    let (sl, sh) = (lo[0].max(R::zero()).sqrt(), hi[0].max(R::zero()).sqrt());
    let inv = R::one() / (sl + sh);
    let roe_avg = |k: usize| (sl * vl[k] + sh * vh[k]) * inv;
    let (u, v) = (roe_avg(0), roe_avg(1));
    let depth = half * (lo[0] + hi[0]);
    let c = (g * depth).sqrt();
    let d: [R; 4] = std::array::from_fn(|k| hi[k] - lo[k]);
    let d_bed = bed_hi - bed_lo;
    let b = [
        d[1],
        g * depth * (d[0] - d_bed) - u * u * d[0] + two * u * d[1],
        -u * v * d[0] + v * d[1] + u * d[2],
    ];
    // Wave strengths on r1 = (1, u - c, v), r2 = (0, 0, 1), r4 = (1, u + c, v).
    let inv_2c = R::one() / (two * c);
    let a1 = ((u + c) * b[0] - b[1]) * inv_2c;
    let a4 = (b[1] - (u - c) * b[0]) * inv_2c;
    let a2 = b[2] - v * b[0];
    let towards_lo = |speed: R| {
        if speed < R::zero() {
            R::one()
        } else if speed == R::zero() {
            half
        } else {
            R::zero()
        }
    };
    let (w1, w23, w4) = (towards_lo(u - c) * a1, towards_lo(u), towards_lo(u + c) * a4);
    let f = [w1 + w4, w1 * (u - c) + w4 * (u + c), (w1 + w4) * v + w23 * a2, R::zero()];
    let sign = |speed: R| {
        if speed < R::zero() {
            -R::one()
        } else if speed > R::zero() {
            R::one()
        } else {
            R::zero()
        }
    };
    // q_lo + F^-[0] = q_hi - (b - F^-)[0], written so that both sides get the same number (and
    // a mirrored state exactly 0: a1 = a4 bit for bit there).
    let phi = half * (lo[1] + hi[1]) - half * (sign(u - c) * a1 + sign(u + c) * a4);
    (f, [b[0] - f[0], b[1] - f[1], b[2] - f[2], R::zero()], phi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lake_at_rest_stays_at_rest_over_any_bed_and_at_an_emerged_bank() {
        // Wet both sides, different beds, the same surface: no contribution at all.
        let (f, g, phi) = edge([1.3, 0.0, 0.0, 0.2], 1.0, [0.8, 0.0, 0.0, 0.1], 0.5, 9.81, 1e-6);
        assert_eq!((f, g, phi), ([0.0; 4], [0.0; 4], 0.0));
        // Wet below a dry bank whose bed is above the surface: a wall, nothing moves.
        let (f, g, phi) = edge([0.1, 0.0, 0.0, 0.0], 0.0, [0.0, 0.0, 0.0, 0.0], -0.15, 9.81, 1e-6);
        assert_eq!((f, g, phi), ([0.0; 4], [0.0; 4], 0.0));
    }

    /// The mass flux is q_lo + F^-[0] = q_hi - (b - F^-)[0], and exactly 0 through a wall (a
    /// state and its mirror image), whatever the state.
    #[test]
    fn the_mass_flux_is_the_depths_roe_flux_and_zero_at_a_wall() {
        let (lo, hi): (State<f64>, State<f64>) = ([1.0, 0.4, -0.1, 0.3], [0.6, 0.1, 0.2, 0.05]);
        let (f, g, phi) = edge(lo, 0.2, hi, 0.0, 9.81, 1e-6);
        assert!((phi - (lo[1] + f[0])).abs() < 1e-15 && (phi - (hi[1] - g[0])).abs() < 1e-15, "{phi}");
        for s in [[1.0f64, 0.4, -0.1, 0.3], [1e-5, -3e-6, 1e-7, 1e-6], [7.3, -12.1, 0.5, 7.3]] {
            let m = [s[0], -s[1], s[2], s[3]];
            assert_eq!(edge(s, 0.4, m, 0.4, 9.81, 1e-6).2, 0.0);
            assert_eq!(edge(m, 0.4, s, 0.4, 9.81, 1e-6).2, 0.0);
        }
    }

    #[test]
    fn the_contributions_add_up_to_the_flux_difference_on_a_flat_bed() {
        // Flat bed: F^- + (b - F^-) = b = F(hi) - F(lo) for h, hC (the Roe property).
        let flux = |s: State<f64>| {
            let u = s[1] / s[0];
            [s[1], s[1] * u + 0.5 * 9.81 * s[0] * s[0], s[2] * u, s[3] * u]
        };
        let (lo, hi) = ([1.0, 0.4, -0.1, 0.3], [0.6, 0.1, 0.2, 0.05]);
        let (f, g, _) = edge(lo, 0.0, hi, 0.0, 9.81, 1e-6);
        let (fl, fh) = (flux(lo), flux(hi));
        for k in 0..3 {
            assert!((f[k] + g[k] - (fh[k] - fl[k])).abs() < 1e-12, "component {k}");
        }
    }
}
