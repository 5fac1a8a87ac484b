//! Bathymetry, initial state and exact solutions of the shallow-water templates (SWASHES,
//! Delestre et al. 2013; the paper's water column). H is the bed's depth below the reference
//! level (the paper's convention), so the bed elevation is z = -H and the surface eta = h - H.

use super::section::Initial;

/// The state (h, q_x, q_y) and H at a point at time 0.
pub fn at(initial: &Initial, x: [f64; 3], centre: [f64; 2], g: f64) -> ([f64; 3], f64) {
    match *initial {
        Initial::LakeAtRest { level, island } => {
            let r = if island { ((x[0] - 10.0).powi(2) + (x[1] - centre[1]).powi(2)).sqrt() } else { (x[0] - 10.0).abs() };
            let z = (0.2 - 0.05 * r * r).max(0.0);
            ([(level - z).max(0.0), 0.0, 0.0], -z)
        }
        Initial::DamBreak { position, left, right } => ([if x[0] < position { left } else { right }, 0.0, 0.0], 0.0),
        Initial::Thacker { .. } => thacker(initial, x, centre, g, 0.0),
        Initial::Column { depth, height, center, radius } => {
            let inside = (x[0] - center[0]).powi(2) + (x[1] - center[1]).powi(2) < radius * radius;
            ([depth + if inside { height } else { 0.0 }, 0.0, 0.0], depth)
        }
        Initial::StillWater { .. } => unreachable!("the bed comes from the file, cell by cell"),
    }
}

/// Still water at `level` over a bed elevation z: the state and H.
pub fn still_water(level: f64, z: f64) -> ([f64; 3], f64) {
    ([(level - z).max(0.0), 0.0, 0.0], -z)
}

/// Thacker's planar solution at time t: (h, q_x, q_y) and H.
pub fn thacker(initial: &Initial, x: [f64; 3], centre: [f64; 2], g: f64, t: f64) -> ([f64; 3], f64) {
    let Initial::Thacker { a, h0, eta } = *initial else {
        unreachable!("thacker() is called for the Thacker initial state only")
    };
    let (dx, dy) = (x[0] - centre[0], x[1] - centre[1]);
    let z = -h0 * (1.0 - (dx * dx + dy * dy) / (a * a));
    let omega = (2.0 * g * h0).sqrt() / a;
    let (s, c) = (omega * t).sin_cos();
    let h = (eta * h0 / (a * a) * (2.0 * dx * c + 2.0 * dy * s - eta) - z).max(0.0);
    let (u, v) = if h > 0.0 { (-eta * omega * s, eta * omega * c) } else { (0.0, 0.0) };
    ([h, h * u, h * v], -z)
}

/// The exact depth at x and time t, where the case has one (dam breaks, Thacker).
pub fn exact_depth(initial: &Initial, x: [f64; 3], centre: [f64; 2], g: f64, t: f64) -> Option<f64> {
    match *initial {
        Initial::DamBreak { position, left, right } => Some(dam_break(position, left, right, g, x[0], t)),
        Initial::Thacker { .. } => Some(thacker(initial, x, centre, g, t).0[0]),
        _ => None,
    }
}

/// Ritter's (right = 0) or Stoker's (right > 0) dam-break depth at x, time t (SWASHES 4.1.1-2).
pub fn dam_break(x0: f64, hl: f64, hr: f64, g: f64, x: f64, t: f64) -> f64 {
    if t <= 0.0 {
        return if x < x0 { hl } else { hr };
    }
    let c0 = (g * hl).sqrt();
    let xa = x0 - c0 * t;
    let fan = |x: f64| 4.0 / (9.0 * g) * (c0 - (x - x0) / (2.0 * t)).powi(2);
    if hr <= 0.0 {
        let xb = x0 + 2.0 * c0 * t;
        return if x <= xa { hl } else if x <= xb { fan(x) } else { 0.0 };
    }
    let cm = stoker_cm(hl, hr, g);
    let xb = x0 + t * (2.0 * c0 - 3.0 * cm);
    let xc = x0 + t * 2.0 * cm * cm * (c0 - cm) / (cm * cm - g * hr);
    if x <= xa {
        hl
    } else if x <= xb {
        fan(x)
    } else if x <= xc {
        cm * cm / g
    } else {
        hr
    }
}

/// The middle state's celerity c_m of Stoker's solution: the root in (sqrt(g hr), sqrt(g hl)) of
/// -8 g hr c^2 (c0 - c)^2 + (c^2 - g hr)^2 (c^2 + g hr), by bisection.
pub fn stoker_cm(hl: f64, hr: f64, g: f64) -> f64 {
    let c0 = (g * hl).sqrt();
    let f = |c: f64| -8.0 * g * hr * c * c * (c0 - c).powi(2) + (c * c - g * hr).powi(2) * (c * c + g * hr);
    let (mut lo, mut hi) = ((g * hr).sqrt(), c0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if (f(lo) < 0.0) == (f(mid) < 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stoker_middle_state_matches_swashes() {
        // SWASHES 4.1.1 (hl 0.005, hr 0.001): c_m = 0.157832, h_m = c_m^2 / g = 2.53936e-3.
        let cm = stoker_cm(0.005, 0.001, 9.81);
        assert!((cm - 0.157832).abs() < 1e-6, "{cm}");
        assert!((cm * cm / 9.81 - 2.53936e-3).abs() < 1e-8);
        // Ritter's front at t = 6 is x0 + 2 c0 t = 7.6577; the depth is zero just beyond.
        let front = 5.0 + 2.0 * (9.81f64 * 0.005).sqrt() * 6.0;
        assert!((front - 7.6577).abs() < 1e-4);
        assert!(dam_break(5.0, 0.005, 0.0, 9.81, front - 1e-3, 6.0) > 0.0);
        assert_eq!(dam_break(5.0, 0.005, 0.0, 9.81, front + 1e-3, 6.0), 0.0);
    }
}
