//! Algebraic multigrid by smoothed aggregation, as the preconditioner of CG: one V-cycle per
//! CG iteration, its hierarchy built once per matrix on the host (`setup`), applied on the
//! CPU (`cycle`, rayon) or on the device (`cuda`, in f64 or with f32 cycles inside the f64
//! CG).
//!
//! Why smoothed aggregation: the pressure matrix of a tetrahedral mesh is an M-matrix whose
//! rows hold at most four neighbours, strongly graded around bodies. Aggregation coarsens it by
//! about 7 at the first level whatever the grading, and the Jacobi-smoothed prolongator makes
//! the V-cycle converge at a rate that does not grow with the mesh (measured here: 14-22 CG
//! iterations to 1e-8 from 28k to 10 M unknowns), where unsmoothed aggregation needs a
//! K-cycle (or ~3-5× more iterations with a V-cycle: pyamg 48 / 92 / 69 against 14 / 19 / 17
//! on the 28k and 262k DFG pressure matrices and a 384k box). Classical (Ruge-Stüben)
//! coarsening would give similar rates but a set-up that is harder to do in parallel.
//! The smoother is Chebyshev in D⁻¹A (`smoother_steps` matrix products before and after):
//! symmetric, so the V-cycle is a fixed SPD operator as CG requires, and made of matrix
//! products only, which the device does at its bandwidth (Gauss-Seidel would be sequential).
//! The coarsest matrix (at most `max_coarse` rows) is inverted densely at set-up.

pub mod cuda;
pub mod cycle;
pub mod setup;

use super::chebyshev::ChebyshevBounds;
use serde::{Deserialize, Serialize};
use sprs::CsMat;

pub use setup::{build, Phase, SetupError};

/// How the hierarchy is built and cycled (`pressure_solver.amg` in a case file).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AmgSettings {
    /// Strength threshold θ: j is a strong neighbour of i when |a_ij| ≥ θ sqrt(a_ii a_jj) [0:
    /// every neighbour, pyamg's default].
    #[serde(default)]
    pub strength: f64,
    /// Stop coarsening at this many rows; the coarsest matrix is inverted densely [400].
    #[serde(default = "max_coarse")]
    pub max_coarse: usize,
    /// At most this many levels, the coarsest included [20].
    #[serde(default = "max_levels")]
    pub max_levels: usize,
    /// Chebyshev smoothing steps (matrix products) before and after the coarse correction [2].
    #[serde(default = "two")]
    pub smoother_steps: usize,
    /// The smoother's interval [λ_max / eig_ratio, λ_max] of D⁻¹A [10].
    #[serde(default = "eig_ratio")]
    pub eig_ratio: f64,
    /// Jacobi-smooth the tentative prolongator (smoothed aggregation) [true]; false is plain
    /// (unsmoothed) aggregation: sparser coarse levels, more iterations.
    #[serde(default = "yes")]
    pub smooth_prolongator: bool,
    /// ω of the prolongator smoother, over λ_max of D⁻¹A [4/3].
    #[serde(default = "omega")]
    pub prolongator_omega: f64,
    /// The device's cycles: "mixed" [default] runs the V-cycle in f32 inside the f64 CG
    /// (half the bytes), "f64" in f64. The CPU always cycles in f64.
    #[serde(default)]
    pub precision: CyclePrecision,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum CyclePrecision {
    #[default]
    Mixed,
    F64,
}

fn max_coarse() -> usize {
    400
}
fn max_levels() -> usize {
    20
}
fn two() -> usize {
    2
}
fn eig_ratio() -> f64 {
    10.0
}
fn yes() -> bool {
    true
}
fn omega() -> f64 {
    4.0 / 3.0
}

impl Default for AmgSettings {
    fn default() -> Self {
        AmgSettings {
            strength: 0.0,
            max_coarse: max_coarse(),
            max_levels: max_levels(),
            smoother_steps: two(),
            eig_ratio: eig_ratio(),
            smooth_prolongator: true,
            prolongator_omega: omega(),
            precision: CyclePrecision::Mixed,
        }
    }
}

impl AmgSettings {
    /// What is wrong with these settings (key and reason), if anything.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(0.0..1.0).contains(&self.strength) {
            return Err(("strength", format!("{}: must lie in [0, 1)", self.strength)));
        }
        if self.max_coarse == 0 || self.max_coarse > 5000 {
            return Err((
                "max_coarse",
                format!(
                    "{}: must lie in 1..=5000 (the coarsest matrix is inverted densely)",
                    self.max_coarse
                ),
            ));
        }
        if self.max_levels == 0 {
            return Err(("max_levels", "must be at least 1".into()));
        }
        if self.smoother_steps == 0 || self.smoother_steps > 16 {
            return Err(("smoother_steps", format!("{}: must lie in 1..=16", self.smoother_steps)));
        }
        if !(self.eig_ratio > 1.0 && self.eig_ratio.is_finite()) {
            return Err(("eig_ratio", format!("{}: must be a number above 1", self.eig_ratio)));
        }
        if !(self.prolongator_omega > 0.0 && self.prolongator_omega < 2.0) {
            return Err((
                "prolongator_omega",
                format!("{}: must lie in (0, 2)", self.prolongator_omega),
            ));
        }
        Ok(())
    }
}

/// One level above the coarsest: its matrix, the smoother's data, and the transfers to the
/// next coarser level (P: coarse → this level, R = Pᵀ).
pub struct Level {
    pub a: CsMat<f64>,
    pub inv_diag: Vec<f64>,
    pub bounds: ChebyshevBounds,
    pub p: CsMat<f64>,
    pub r: CsMat<f64>,
}

/// The coarsest level: the dense inverse of its matrix, row-major.
pub struct Coarse {
    pub n: usize,
    pub inverse: Vec<f64>,
}

/// A built hierarchy: levels from the finest, the coarsest, and how it was made.
pub struct Hierarchy {
    pub levels: Vec<Level>,
    pub coarse: Coarse,
    pub coarse_matrix: CsMat<f64>,
    pub settings: AmgSettings,
    pub setup_seconds: f64,
    /// Seconds per set-up phase (`Phase::ALL`'s order).
    pub phases: [f64; 5],
}

/// What a hierarchy looks like (logs, benchmarks, summary.json).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HierarchyStats {
    pub levels: usize,
    pub rows: Vec<usize>,
    pub nonzeros: Vec<usize>,
    /// Σ nnz(A_l) / nnz(A_0).
    pub operator_complexity: f64,
    /// Σ rows(A_l) / rows(A_0).
    pub grid_complexity: f64,
    pub setup_seconds: f64,
    /// Seconds of each set-up phase: aggregate, spectrum, prolongator, galerkin, coarsest.
    pub setup_phases: std::collections::BTreeMap<&'static str, f64>,
}

impl Hierarchy {
    pub fn rows(&self) -> usize {
        self.levels.first().map_or(self.coarse.n, |l| l.a.rows())
    }

    /// The bytes a V-cycle must move at the least with values of `value_bytes` (u32 indices):
    /// per level above the coarsest, 2k products of A (its entries, and five vectors each
    /// product kernel reads or writes), R and P once each with three vectors; the coarsest
    /// inverse once.
    pub fn cycle_bytes(&self, value_bytes: f64) -> f64 {
        let w = value_bytes;
        let k = self.settings.smoother_steps.max(1) as f64;
        let mut bytes = (self.coarse.n * self.coarse.n) as f64 * w;
        for lv in &self.levels {
            let n = lv.a.rows() as f64;
            let entries = |m: &CsMat<f64>| m.nnz() as f64 * (w + 4.0) + 4.0 * m.rows() as f64;
            bytes += 2.0 * k * (entries(&lv.a) + 5.0 * w * n);
            bytes += entries(&lv.r) + entries(&lv.p) + 3.0 * w * n;
        }
        bytes
    }

    pub fn stats(&self) -> HierarchyStats {
        let mut rows: Vec<usize> = self.levels.iter().map(|l| l.a.rows()).collect();
        let mut nonzeros: Vec<usize> = self.levels.iter().map(|l| l.a.nnz()).collect();
        rows.push(self.coarse_matrix.rows());
        nonzeros.push(self.coarse_matrix.nnz());
        HierarchyStats {
            levels: rows.len(),
            operator_complexity: nonzeros.iter().sum::<usize>() as f64 / nonzeros[0].max(1) as f64,
            grid_complexity: rows.iter().sum::<usize>() as f64 / rows[0].max(1) as f64,
            rows,
            nonzeros,
            setup_seconds: self.setup_seconds,
            setup_phases: Phase::ALL
                .iter()
                .map(|p| (p.name(), self.phases[*p as usize]))
                .collect(),
        }
    }
}

impl HierarchyStats {
    /// One line: "4 levels 262k/38k/1.1k/16 rows, operator complexity 1.72, set-up 0.21 s".
    pub fn line(&self) -> String {
        let rows: Vec<String> = self.rows.iter().map(|&r| short(r)).collect();
        let phases: Vec<String> = self.setup_phases.iter().map(|(k, v)| format!("{k} {v:.3}")).collect();
        format!(
            "{} levels of {} rows, operator complexity {:.2}, set-up {:.3} s ({})",
            self.levels,
            rows.join("/"),
            self.operator_complexity,
            self.setup_seconds,
            phases.join(", ")
        )
    }
}

fn short(n: usize) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}
