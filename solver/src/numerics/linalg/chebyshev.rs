//! Chebyshev-Jacobi preconditioning: z = p(D⁻¹A) D⁻¹ r, the fixed polynomial of a `degree`-step
//! Chebyshev iteration for A z = r from z = 0 on the interval [λ_min, λ_max] of D⁻¹A. The
//! interval comes from a few power iterations at setup (λ_max, with a margin, capped by the
//! Gershgorin bound) and λ_min = λ_max / `ratio` (30 by default, as smoothers customarily
//! take). Each application costs `degree` − 1 matrix-vector products; the polynomial is
//! positive on (0, λ_max], so the preconditioner is symmetric positive definite and fixed, as
//! CG requires. The CUDA solver uses the same bounds and coefficients. Its iterations against
//! the degree and the ratio: `cargo bench -p solver --bench chebyshev_table`.

use super::cg::{diagonal, fixed_sum, spmv, Preconditioner};
use rayon::prelude::*;
use sprs::CsMat;

/// Degree and eigenvalue interval of a Chebyshev-Jacobi preconditioner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChebyshevBounds {
    pub degree: usize,
    pub lambda_min: f64,
    pub lambda_max: f64,
}

impl ChebyshevBounds {
    /// Power iterations on D⁻¹A at setup.
    pub const POWER_ITERATIONS: usize = 20;
    /// λ_max / λ_min.
    pub const RATIO: f64 = 30.0;

    /// Estimates the interval of D⁻¹A: λ_max from power iterations times 1.1, at most the
    /// Gershgorin bound max_i Σ_j |a_ij| / a_ii (where the estimate is safe anyway);
    /// λ_min = λ_max / 30.
    pub fn estimate(a: &CsMat<f64>, degree: usize) -> Self {
        Self::estimate_with_ratio(a, degree, Self::RATIO)
    }

    /// `estimate` with λ_min = λ_max / `ratio` (an AMG smoother's interval, for instance).
    pub fn estimate_with_ratio(a: &CsMat<f64>, degree: usize, ratio: f64) -> Self {
        let d = diagonal(a);
        let lmax = (1.1 * power_estimate(a, &d, Self::POWER_ITERATIONS)).min(gershgorin(a, &d));
        Self {
            degree: degree.max(1),
            lambda_min: lmax / ratio,
            lambda_max: lmax,
        }
    }

    /// θ = (λ_max + λ_min)/2, the centre of the interval: the first step is d = D⁻¹r / θ.
    pub fn theta(&self) -> f64 {
        0.5 * (self.lambda_max + self.lambda_min)
    }

    /// (c1, c2) of steps 1 .. degree − 1: d ← c1 d + c2 D⁻¹(r − A z), z ← z + d
    /// (Saad, Iterative Methods, algorithm 12.1).
    pub fn coefficients(&self) -> Vec<(f64, f64)> {
        let theta = self.theta();
        let delta = 0.5 * (self.lambda_max - self.lambda_min);
        let sigma = theta / delta;
        let mut rho = 1.0 / sigma;
        (1..self.degree)
            .map(|_| {
                let rho_next = 1.0 / (2.0 * sigma - rho);
                let c = (rho_next * rho, 2.0 * rho_next / delta);
                rho = rho_next;
                c
            })
            .collect()
    }
}

/// The Rayleigh quotient vᵀAv / vᵀDv after `iters` power iterations v ← D⁻¹A v (from a fixed,
/// non-smooth start and with fixed-order sums, so that the result, to the bit, does not depend
/// on the run: a restarted Navier-Stokes run re-estimates it).
fn power_estimate(a: &CsMat<f64>, d: &[f64], iters: usize) -> f64 {
    let n = d.len();
    let mut v: Vec<f64> = (0..n).map(|i| 1.0 + ((i * 7919) % 1009) as f64 / 1009.0).collect();
    let mut av = vec![0.0; n];
    let mut lambda = 0.0;
    for _ in 0..iters {
        spmv(a, &v, &mut av);
        let vav = fixed_sum(n, |i| v[i] * av[i]);
        let vdv = fixed_sum(n, |i| v[i] * v[i] * d[i]);
        lambda = vav / vdv;
        let norm = fixed_sum(n, |i| (av[i] / d[i]) * (av[i] / d[i])).sqrt();
        v.par_iter_mut()
            .zip(&av)
            .zip(d)
            .for_each(|((v, y), d)| *v = y / d / norm);
    }
    lambda
}

/// max_i Σ_j |a_ij| / |a_ii|, an upper bound of the spectrum of D⁻¹A.
fn gershgorin(a: &CsMat<f64>, d: &[f64]) -> f64 {
    (0..a.rows())
        .into_par_iter()
        .map(|i| {
            let row = a.outer_view(i).unwrap();
            row.data().iter().map(|v| v.abs()).sum::<f64>() / d[i].abs()
        })
        .reduce(|| 0.0, f64::max)
}

/// The preconditioner on the CPU (it borrows the matrix it applies).
pub struct Chebyshev<'a> {
    a: &'a CsMat<f64>,
    inv_diag: Vec<f64>,
    pub bounds: ChebyshevBounds,
    coeffs: Vec<(f64, f64)>,
}

impl<'a> Chebyshev<'a> {
    /// Degree `degree` (≥ 1; 1 is Jacobi scaled by 1/θ) with the interval estimated from `a`.
    /// `a` must have a positive diagonal (it is SPD).
    pub fn new(a: &'a CsMat<f64>, degree: usize) -> Self {
        Self::with_bounds(a, ChebyshevBounds::estimate(a, degree))
    }

    pub fn with_bounds(a: &'a CsMat<f64>, bounds: ChebyshevBounds) -> Self {
        let inv_diag = diagonal(a).into_iter().map(|d| 1.0 / d).collect();
        Self {
            a,
            inv_diag,
            coeffs: bounds.coefficients(),
            bounds,
        }
    }
}

impl Preconditioner for Chebyshev<'_> {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        let n = r.len();
        let theta_inv = 1.0 / self.bounds.theta();
        let mut d: Vec<f64> = r
            .par_iter()
            .zip(&self.inv_diag)
            .map(|(r, m)| r * m * theta_inv)
            .collect();
        z.copy_from_slice(&d);
        let mut az = vec![0.0; n];
        for &(c1, c2) in &self.coeffs {
            spmv(self.a, z, &mut az);
            d.par_iter_mut()
                .zip(z.par_iter_mut())
                .zip(r.par_iter().zip(&az).zip(&self.inv_diag))
                .for_each(|((d, z), ((r, az), m))| {
                    *d = c1 * *d + c2 * m * (r - az);
                    *z += *d;
                });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::cg::{solve_cg, CgSettings, Jacobi};
    use super::*;
    use sprs::TriMat;

    /// The 7-point Laplacian on an n³ grid with Dirichlet walls, with a varying coefficient so
    /// that Jacobi is not a mere scaling.
    fn poisson_3d(n: usize) -> CsMat<f64> {
        let id = |i: usize, j: usize, k: usize| i + n * (j + n * k);
        let mut t = TriMat::new((n * n * n, n * n * n));
        for k in 0..n {
            for j in 0..n {
                for i in 0..n {
                    let c = id(i, j, k);
                    let w = 1.0 + 0.5 * ((i + 2 * j + 3 * k) % 5) as f64;
                    let mut diag = 0.0;
                    for (di, dj, dk) in [
                        (1i64, 0i64, 0i64),
                        (-1, 0, 0),
                        (0, 1, 0),
                        (0, -1, 0),
                        (0, 0, 1),
                        (0, 0, -1),
                    ] {
                        let (a, b, cc) = (i as i64 + di, j as i64 + dj, k as i64 + dk);
                        diag += w;
                        if a >= 0 && b >= 0 && cc >= 0 && a < n as i64 && b < n as i64 && cc < n as i64 {
                            t.add_triplet(c, id(a as usize, b as usize, cc as usize), -w);
                        }
                    }
                    t.add_triplet(c, c, diag);
                }
            }
        }
        // Symmetrise (the weight above is the row's): A + Aᵀ over 2.
        let a: CsMat<f64> = t.to_csr();
        let at: CsMat<f64> = a.transpose_view().to_csr();
        (&a + &at).map(|v| 0.5 * v)
    }

    #[test]
    fn bounds_cover_the_spectrum_and_stay_under_gershgorin() {
        let a = poisson_3d(12);
        let b = ChebyshevBounds::estimate(&a, 4);
        let d = diagonal(&a);
        let converged = power_estimate(&a, &d, 2000);
        assert!(
            b.lambda_max >= converged && b.lambda_max <= 1.1 * converged + 1e-12,
            "{b:?} vs {converged}"
        );
        assert!(b.lambda_max <= gershgorin(&a, &d));
        assert!((b.lambda_max / b.lambda_min - 30.0).abs() < 1e-12);
        assert_eq!(b.coefficients().len(), 3);
    }

    #[test]
    fn chebyshev_takes_fewer_iterations_than_jacobi_to_the_same_solution() {
        let a = poisson_3d(24);
        let n = a.rows();
        let exact: Vec<f64> = (0..n)
            .map(|i| ((i as f64) * 0.37).sin() + 0.1 * (i % 13) as f64)
            .collect();
        let mut b = vec![0.0; n];
        spmv(&a, &exact, &mut b);
        let s = CgSettings {
            rel_tol: 1e-10,
            max_iter: 2000,
            keep_history: true,
        };
        let mut xj = vec![0.0; n];
        let rj = solve_cg(&a, &b, &mut xj, &Jacobi::new(&a), &s);
        let mut xc = vec![0.0; n];
        let rc = solve_cg(&a, &b, &mut xc, &Chebyshev::new(&a, 4), &s);
        assert!(rj.converged && rc.converged, "{rj:?} {rc:?}");
        assert!(
            2 * rc.iterations < rj.iterations,
            "chebyshev {} vs jacobi {}",
            rc.iterations,
            rj.iterations
        );
        let max = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for x in [&xj, &xc] {
            let err = x.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            assert!(err < 1e-7 * max, "max error {err}");
        }
    }
}
