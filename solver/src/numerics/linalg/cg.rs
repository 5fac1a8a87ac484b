//! Preconditioned conjugate gradients on the CPU (rayon over rows), the reference that the
//! CUDA solver is checked against.

use rayon::prelude::*;
use sprs::CsMat;

/// When to stop and how to precondition: the residual is relative to the right-hand side,
/// ‖b − A x‖₂ ≤ rel_tol ‖b‖₂, and the solve gives up after `max_iter` iterations.
#[derive(Clone, Debug)]
pub struct CgSettings {
    pub rel_tol: f64,
    pub max_iter: usize,
    /// Keep ‖r‖/‖b‖ of every iteration in the report (for the log and summary.json).
    pub keep_history: bool,
}

impl Default for CgSettings {
    fn default() -> Self {
        Self {
            rel_tol: 1e-8,
            max_iter: 1000,
            keep_history: false,
        }
    }
}

/// What a solve did: iterations taken, the final relative residual, whether it met the
/// tolerance, and (if asked) the relative residual after each iteration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CgReport {
    pub iterations: usize,
    /// ‖b‖₂ of the right-hand side solved for.
    pub rhs_norm: f64,
    pub rel_residual: f64,
    pub converged: bool,
    pub history: Vec<f64>,
}

impl CgReport {
    /// The warning a solve that missed its tolerance deserves (None when it converged):
    /// residual, iterations, cap and tolerance, and what to do.
    pub fn warning(&self, settings: &CgSettings) -> Option<String> {
        (!self.converged).then(|| {
            format!(
                "CG did not converge: relative residual {:.3e} after {} iterations (cap {}, tolerance {:.1e}); raise the iteration cap or use a stronger preconditioner",
                self.rel_residual, self.iterations, settings.max_iter, settings.rel_tol
            )
        })
    }
}

/// z = M⁻¹ r for a symmetric positive definite M that approximates A.
pub trait Preconditioner: Sync {
    fn apply(&self, r: &[f64], z: &mut [f64]);
}

impl<P: Preconditioner + ?Sized> Preconditioner for &P {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        (**self).apply(r, z)
    }
}

/// Diagonal (Jacobi) preconditioning: z = r / diag(A).
pub struct Jacobi {
    inv_diag: Vec<f64>,
}

impl Jacobi {
    /// Refuses nothing: a zero diagonal entry is taken as 1 (that row is left unscaled).
    pub fn new(a: &CsMat<f64>) -> Self {
        let inv_diag = diagonal(a)
            .into_iter()
            .map(|d| if d != 0.0 { 1.0 / d } else { 1.0 })
            .collect();
        Self { inv_diag }
    }
}

impl Preconditioner for Jacobi {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        z.par_iter_mut()
            .zip(r.par_iter().zip(self.inv_diag.par_iter()))
            .for_each(|(z, (r, d))| *z = r * d);
    }
}

/// The diagonal of a square CSR matrix (0 where a row stores none).
pub fn diagonal(a: &CsMat<f64>) -> Vec<f64> {
    let a = csr(a);
    (0..a.rows())
        .map(|i| a.outer_view(i).and_then(|row| row.get(i).copied()).unwrap_or(0.0))
        .collect()
}

/// y = A x, rows in parallel.
pub fn spmv(a: &CsMat<f64>, x: &[f64], y: &mut [f64]) {
    let a = csr(a);
    let (indptr, indices, data) = (a.indptr(), a.indices(), a.data());
    let indptr = indptr.raw_storage();
    y.par_iter_mut().enumerate().for_each(|(i, yi)| {
        let range = indptr[i]..indptr[i + 1];
        *yi = indices[range.clone()]
            .iter()
            .zip(&data[range])
            .map(|(&j, v)| v * x[j])
            .sum();
    });
}

fn csr(a: &CsMat<f64>) -> &CsMat<f64> {
    assert!(a.is_csr(), "linalg expects CSR matrices (assemble with to_csr())");
    a
}

/// a . b, the same bits on every run (`fixed_sum`).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    fixed_sum(a.len().min(b.len()), |i| a[i] * b[i])
}

/// Σ f(i) over i < n, the same bits on every run: fixed chunks summed in parallel, then in
/// order (rayon's own sum splits by work stealing, so its rounding, and a restarted run, would
/// vary).
pub(super) fn fixed_sum(n: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    const CHUNK: usize = 4096;
    let parts: Vec<f64> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| (c * CHUNK..(c * CHUNK + CHUNK).min(n)).map(&f).sum())
        .collect();
    parts.iter().sum()
}

/// Solves A x = b from the initial guess in `x` by preconditioned CG.
pub fn solve_cg(a: &CsMat<f64>, b: &[f64], x: &mut [f64], m: &dyn Preconditioner, settings: &CgSettings) -> CgReport {
    let n = b.len();
    let b_norm = dot(b, b).sqrt();
    let mut report = CgReport {
        rhs_norm: b_norm,
        ..CgReport::default()
    };
    if b_norm == 0.0 {
        x.iter_mut().for_each(|v| *v = 0.0);
        report.converged = true;
        return report;
    }
    let mut r = vec![0.0; n];
    spmv(a, x, &mut r);
    r.par_iter_mut().zip(b).for_each(|(r, b)| *r = b - *r);
    let mut z = vec![0.0; n];
    m.apply(&r, &mut z);
    let mut p = z.clone();
    let mut ap = vec![0.0; n];
    let mut rz = dot(&r, &z);
    report.rel_residual = dot(&r, &r).sqrt() / b_norm;
    while report.rel_residual > settings.rel_tol && report.iterations < settings.max_iter {
        spmv(a, &p, &mut ap);
        let alpha = rz / dot(&p, &ap);
        x.par_iter_mut().zip(&p).for_each(|(x, p)| *x += alpha * p);
        r.par_iter_mut().zip(&ap).for_each(|(r, ap)| *r -= alpha * ap);
        report.iterations += 1;
        report.rel_residual = dot(&r, &r).sqrt() / b_norm;
        if settings.keep_history {
            report.history.push(report.rel_residual);
        }
        m.apply(&r, &mut z);
        let rz_next = dot(&r, &z);
        let beta = rz_next / rz;
        rz = rz_next;
        p.par_iter_mut().zip(&z).for_each(|(p, z)| *p = z + beta * *p);
    }
    report.converged = report.rel_residual <= settings.rel_tol;
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprs::TriMat;

    /// The 1D Dirichlet Laplacian tridiag(-1, 2, -1) of size n.
    fn laplacian_1d(n: usize) -> CsMat<f64> {
        let mut t = TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, 2.0);
            if i > 0 {
                t.add_triplet(i, i - 1, -1.0);
            }
            if i + 1 < n {
                t.add_triplet(i, i + 1, -1.0);
            }
        }
        t.to_csr()
    }

    #[test]
    fn solves_the_1d_laplacian_to_the_tolerance() {
        let n = 200;
        let a = laplacian_1d(n);
        let exact: Vec<f64> = (0..n).map(|i| ((i as f64) * 0.05).sin()).collect();
        let mut b = vec![0.0; n];
        spmv(&a, &exact, &mut b);
        let mut x = vec![0.0; n];
        let s = CgSettings {
            rel_tol: 1e-12,
            max_iter: 1000,
            keep_history: true,
        };
        let rep = solve_cg(&a, &b, &mut x, &Jacobi::new(&a), &s);
        assert!(rep.converged, "{rep:?}");
        // CG on an n x n SPD matrix converges in at most n steps in exact arithmetic.
        assert!(rep.iterations <= n, "{}", rep.iterations);
        assert_eq!(rep.history.len(), rep.iterations);
        let err = x.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(err < 1e-8, "max error {err}");
    }

    #[test]
    fn reports_a_solve_that_hits_the_iteration_cap() {
        let a = laplacian_1d(500);
        let b = vec![1.0; 500];
        let mut x = vec![0.0; 500];
        let s = CgSettings {
            rel_tol: 1e-12,
            max_iter: 10,
            keep_history: false,
        };
        let rep = solve_cg(&a, &b, &mut x, &Jacobi::new(&a), &s);
        assert!(!rep.converged);
        assert_eq!(rep.iterations, 10);
        assert!(rep.rel_residual > 1e-12);
    }

    #[test]
    fn a_zero_right_hand_side_gives_zero_at_once() {
        let a = laplacian_1d(10);
        let mut x = vec![3.0; 10];
        let rep = solve_cg(&a, &[0.0; 10], &mut x, &Jacobi::new(&a), &CgSettings::default());
        assert!(rep.converged && rep.iterations == 0 && x.iter().all(|&v| v == 0.0));
    }
}
