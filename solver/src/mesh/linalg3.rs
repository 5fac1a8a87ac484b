//! 3-vectors and 3x3 systems in the run's precision, written as the CUDA kernels write them
//! (same operation order), so that both backends round alike.

use crate::real::Real;

/// An array of f64 in precision R.
pub fn arr<R: Real, const N: usize>(a: [f64; N]) -> [R; N] {
    a.map(R::of)
}

#[inline]
pub fn dot<R: Real>(a: [R; 3], b: [R; 3]) -> R {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub fn sub<R: Real>(a: [R; 3], b: [R; 3]) -> [R; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Cramer's rule (the CUDA kernels' solve3 does the same); not finite when `m` is singular.
pub fn solve3<R: Real>(m: [[R; 3]; 3], b: [R; 3]) -> [R; 3] {
    let det = |m: [[R; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    std::array::from_fn(|col| {
        let mut mc = m;
        for r in 0..3 {
            mc[r][col] = b[r];
        }
        det(mc) / d
    })
}

/// Solve a 3x3 system; zero when it is singular (e.g. too few neighbours for a gradient).
pub fn solve3_or_zero<R: Real>(m: [[R; 3]; 3], b: [R; 3]) -> [R; 3] {
    let x = solve3(m, b);
    if x.iter().all(|v| v.is_finite()) {
        x
    } else {
        [R::zero(); 3]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_system_and_gives_zero_for_a_singular_one() {
        let m = [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]];
        let x = [1.0, -2.0, 0.5];
        let b: [f64; 3] = std::array::from_fn(|r| dot(m[r], x));
        let got = solve3(m, b);
        assert!((0..3).all(|k| (got[k] - x[k]).abs() < 1e-14), "{got:?}");
        assert_eq!(solve3_or_zero([[1.0; 3]; 3], b), [0.0; 3]);
    }
}
