//! The V-cycle on the CPU (rayon over rows): the reference the device's cycle is checked
//! against, and the CPU backend's pressure preconditioner.
//!
//! On each level above the coarsest: Chebyshev pre-smoothing from zero (k steps, k matrix
//! products, the last giving the residual), restriction r_c = R r, the cycle on the coarser
//! level, prolongation x += P x_c, and post-smoothing with the same polynomial (the residual,
//! then k − 1 more products). The same polynomial before and after, and an exact coarsest
//! solve, make the cycle a symmetric positive definite operator (CG's requirement).
//!
//! Chebyshev steps (Saad, Iterative Methods, algorithm 12.1, in D⁻¹A): d₀ = D⁻¹r₀ / θ, then
//! x ← x + d, r ← r − A d, d ← c1 d + c2 D⁻¹ r with the (c1, c2) of `ChebyshevBounds`.

use super::{Coarse, Hierarchy, Level};
use crate::numerics::linalg::cg::{spmv, Preconditioner};
use rayon::prelude::*;

impl Preconditioner for Hierarchy {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        self.cycle(0, r, z);
    }
}

impl Hierarchy {
    /// x = V(b) on level `l` (x's previous content is not used).
    fn cycle(&self, l: usize, b: &[f64], x: &mut [f64]) {
        let Some(level) = self.levels.get(l) else {
            self.coarse.solve(b, x);
            return;
        };
        let mut r = vec![0.0; b.len()];
        level.pre_smooth(b, x, &mut r);
        let mut bc = vec![0.0; level.p.cols()];
        spmv(&level.r, &r, &mut bc);
        let mut xc = vec![0.0; bc.len()];
        self.cycle(l + 1, &bc, &mut xc);
        let mut px = vec![0.0; b.len()];
        spmv(&level.p, &xc, &mut px);
        x.par_iter_mut().zip(&px).for_each(|(x, p)| *x += p);
        level.post_smooth(b, x, &mut r);
    }
}

impl Level {
    /// x = k Chebyshev steps from 0; r = b − A x.
    fn pre_smooth(&self, b: &[f64], x: &mut [f64], r: &mut [f64]) {
        let theta_inv = 1.0 / self.bounds.theta();
        let mut d: Vec<f64> = b
            .par_iter()
            .zip(&self.inv_diag)
            .map(|(b, m)| b * m * theta_inv)
            .collect();
        x.copy_from_slice(&d);
        r.copy_from_slice(b);
        self.steps(x, r, &mut d);
        self.subtract_product(r, &d);
    }

    /// x ← x + the k Chebyshev steps of the residual equation; r is scratch.
    fn post_smooth(&self, b: &[f64], x: &mut [f64], r: &mut [f64]) {
        spmv(&self.a, x, r);
        let theta_inv = 1.0 / self.bounds.theta();
        r.par_iter_mut().zip(b).for_each(|(r, b)| *r = b - *r);
        let mut d: Vec<f64> = r
            .par_iter()
            .zip(&self.inv_diag)
            .map(|(r, m)| r * m * theta_inv)
            .collect();
        x.par_iter_mut().zip(&d).for_each(|(x, d)| *x += d);
        self.steps(x, r, &mut d);
    }

    /// Steps 1 .. k − 1 after the first direction d (already added to x).
    fn steps(&self, x: &mut [f64], r: &mut [f64], d: &mut [f64]) {
        for (c1, c2) in self.bounds.coefficients() {
            self.subtract_product(r, d);
            d.par_iter_mut()
                .zip(x.par_iter_mut())
                .zip(r.par_iter().zip(&self.inv_diag))
                .for_each(|((d, x), (r, m))| {
                    *d = c1 * *d + c2 * m * r;
                    *x += *d;
                });
        }
    }

    /// r ← r − A d.
    fn subtract_product(&self, r: &mut [f64], d: &[f64]) {
        let mut ad = vec![0.0; d.len()];
        spmv(&self.a, d, &mut ad);
        r.par_iter_mut().zip(&ad).for_each(|(r, a)| *r -= a);
    }
}

impl Coarse {
    /// x = A⁻¹ b by the dense inverse.
    pub fn solve(&self, b: &[f64], x: &mut [f64]) {
        let n = self.n;
        x.par_iter_mut().enumerate().for_each(|(i, x)| {
            *x = self.inverse[i * n..(i + 1) * n].iter().zip(b).map(|(a, b)| a * b).sum();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, AmgSettings};
    use crate::numerics::linalg::cg::{solve_cg, CgSettings, Jacobi, Preconditioner};
    use sprs::{CsMat, TriMat};

    /// The two-point matrix of an n³ × 6 Kuhn box, Dirichlet on xmin.
    pub(crate) fn box_matrix(n: usize) -> (CsMat<f64>, Vec<f64>) {
        use meshtool::generate::cartesian_box::{generate, BoxSpec};
        let raw = generate(&BoxSpec {
            dims: [n; 3],
            lo: [0.0; 3],
            hi: [1.0; 3],
        })
        .unwrap();
        let topo = meshtool::topology::build(&raw).unwrap();
        let mut dirichlet = vec![false; 1];
        dirichlet[0] = true;
        let a = crate::numerics::linalg::poisson::two_point_laplacian(&raw.nodes, &topo, &dirichlet);
        (a, topo.volumes.clone())
    }

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn the_cycle_is_symmetric_and_positive_definite() {
        let (a, _) = box_matrix(8);
        let h = build(
            &a,
            &AmgSettings {
                max_coarse: 50,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(h.levels.len() >= 2, "{}", h.stats().line());
        let n = a.rows();
        let u: Vec<f64> = (0..n).map(|i| ((i * 37 % 101) as f64 - 50.0) / 50.0).collect();
        let v: Vec<f64> = (0..n).map(|i| ((i as f64) * 0.71).sin()).collect();
        let (mut mu, mut mv) = (vec![0.0; n], vec![0.0; n]);
        h.apply(&u, &mut mu);
        h.apply(&v, &mut mv);
        let (vmu, umv) = (dot(&v, &mu), dot(&u, &mv));
        assert!((vmu - umv).abs() <= 1e-10 * vmu.abs().max(umv.abs()), "{vmu} {umv}");
        assert!(dot(&u, &mu) > 0.0 && dot(&v, &mv) > 0.0);
    }

    /// AMG-PCG's iterations hardly grow with the mesh (the point of multigrid) while
    /// Jacobi-PCG's grow with the mesh width: boxes of 8³, 16³ and 24³ × 6 tetrahedra.
    #[test]
    fn amg_iterations_hardly_grow_with_the_mesh() {
        let s = CgSettings {
            rel_tol: 1e-8,
            max_iter: 5000,
            keep_history: false,
        };
        let (mut amg, mut jac) = (vec![], vec![]);
        for n in [8, 16, 24] {
            let (a, b) = box_matrix(n);
            let h = build(
                &a,
                &AmgSettings {
                    max_coarse: 50,
                    ..Default::default()
                },
            )
            .unwrap();
            let mut x = vec![0.0; a.rows()];
            amg.push(solve_cg(&a, &b, &mut x, &h, &s).iterations);
            let mut x = vec![0.0; a.rows()];
            jac.push(solve_cg(&a, &b, &mut x, &Jacobi::new(&a), &s).iterations);
        }
        eprintln!("AMG {amg:?}, Jacobi {jac:?}");
        assert!(2 * amg[2] <= 3 * amg[0] && amg[2] <= 25, "AMG {amg:?}");
        assert!(jac[2] >= 2 * jac[0], "Jacobi {jac:?}");
    }

    #[test]
    fn amg_pcg_takes_a_fraction_of_jacobi_s_iterations_to_the_same_solution() {
        let (a, b) = box_matrix(16);
        let s = CgSettings {
            rel_tol: 1e-10,
            max_iter: 5000,
            keep_history: false,
        };
        let h = build(&a, &AmgSettings::default()).unwrap();
        let mut xa = vec![0.0; a.rows()];
        let ra = solve_cg(&a, &b, &mut xa, &h, &s);
        let mut xj = vec![0.0; a.rows()];
        let rj = solve_cg(&a, &b, &mut xj, &Jacobi::new(&a), &s);
        assert!(ra.converged && rj.converged);
        assert!(
            ra.iterations * 8 < rj.iterations,
            "amg {} jacobi {}",
            ra.iterations,
            rj.iterations
        );
        let max = xj.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let diff = xa.iter().zip(&xj).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(diff < 1e-8 * max, "{diff}");
    }

    #[test]
    fn a_matrix_below_max_coarse_is_solved_exactly_in_one_iteration() {
        let mut t = TriMat::new((30, 30));
        for i in 0..30 {
            t.add_triplet(i, i, 2.5);
            if i + 1 < 30 {
                t.add_triplet(i, i + 1, -1.0);
                t.add_triplet(i + 1, i, -1.0);
            }
        }
        let a: CsMat<f64> = t.to_csr();
        let h = build(&a, &AmgSettings::default()).unwrap();
        assert!(h.levels.is_empty());
        let b = vec![1.0; 30];
        let mut x = vec![0.0; 30];
        let r = solve_cg(
            &a,
            &b,
            &mut x,
            &h,
            &CgSettings {
                rel_tol: 1e-12,
                ..Default::default()
            },
        );
        assert!(r.converged && r.iterations <= 1, "{r:?}");
    }
}
