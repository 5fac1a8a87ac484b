//! The hierarchy of smoothed aggregation (Vaněk, Mandel & Brezina 1996), built once per
//! matrix on the host: strength of connection, standard aggregation, the tentative
//! prolongator from the near-null-space vector (the constants of a Laplacian), its Jacobi
//! smoothing, and the Galerkin product A_c = Pᵀ A P (sprs' parallel sparse products), level
//! after level down to a coarse matrix small enough to invert densely. The same steps and
//! defaults as pyamg's `smoothed_aggregation_solver`, so that the two can be compared on one
//! matrix (benchmarks/peers/pyamg_cg.py).

use super::{AmgSettings, Coarse, Hierarchy, Level};
use crate::numerics::linalg::cg::diagonal;
use crate::numerics::linalg::chebyshev::ChebyshevBounds;
use rayon::prelude::*;
use sprs::CsMat;
use std::fmt;

/// Why a hierarchy cannot be built.
#[derive(Debug, Clone, PartialEq)]
pub enum SetupError {
    /// The matrix is not square CSR, or has a row whose diagonal is not positive.
    NotSpd(String),
    /// The coarsest matrix has a non-positive pivot: the matrix is singular (e.g. a pressure
    /// Poisson problem without any Dirichlet face or reference cell).
    SingularCoarse { rows: usize, pivot: usize },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::NotSpd(m) => write!(f, "AMG needs a symmetric positive definite matrix: {m}"),
            SetupError::SingularCoarse { rows, pivot } => write!(
                f,
                "AMG: the coarsest matrix ({rows} rows) is singular at pivot {pivot}; the system has no unique solution (give it a Dirichlet boundary or a reference value), or use the jacobi preconditioner"
            ),
        }
    }
}

impl std::error::Error for SetupError {}

/// No aggregate (a row with no strong connection): its row of the tentative prolongator is
/// empty and smoothing alone handles it.
const NONE: u32 = u32::MAX;

/// Builds the hierarchy of `a` (SPD, CSR, columns sorted).
pub fn build(a: &CsMat<f64>, s: &AmgSettings) -> Result<Hierarchy, SetupError> {
    let t0 = std::time::Instant::now();
    let n = a.rows();
    if !a.is_csr() || a.cols() != n || n == 0 {
        return Err(SetupError::NotSpd(format!("got a {}x{} matrix", a.rows(), a.cols())));
    }
    let mut phases = Phases::default();
    let mut levels = Vec::new();
    let mut current = a.clone();
    // The near-null-space vector of the current level: constants on the finest.
    let mut near_null = vec![1.0; n];
    while current.rows() > s.max_coarse && levels.len() + 1 < s.max_levels.max(1) {
        let diag = diagonal(&current);
        if let Some(i) = diag.iter().position(|&d| !(d > 0.0 && d.is_finite())) {
            return Err(SetupError::NotSpd(format!(
                "diagonal entry {i} of level {} is {}",
                levels.len(),
                diag[i]
            )));
        }
        let (agg, count) = phases.time(Phase::Aggregate, || aggregate(&strength(&current, &diag, s.strength)));
        // Coarsening has stalled (every row its own aggregate): more levels would not shrink.
        if count == 0 || count as f64 > 0.9 * current.rows() as f64 {
            break;
        }
        let bounds = phases.time(Phase::Spectrum, || {
            ChebyshevBounds::estimate_with_ratio(&current, s.smoother_steps, s.eig_ratio)
        });
        let (p, r) = phases.time(Phase::Prolongator, || {
            let (p0, coarse_null) = tentative(&agg, count, &near_null);
            near_null = coarse_null;
            let p = if s.smooth_prolongator {
                smooth_prolongator(&current, &diag, &p0, s.prolongator_omega / bounds.lambda_max)
            } else {
                p0
            };
            let r = transpose(&p);
            (p, r)
        });
        let coarse = phases.time(Phase::Galerkin, || &r * &(&current * &p));
        levels.push(Level {
            inv_diag: diag.iter().map(|d| 1.0 / d).collect(),
            a: current,
            bounds,
            p,
            r,
        });
        current = coarse;
    }
    let coarse = phases.time(Phase::Coarsest, || Coarse::invert(&current))?;
    Ok(Hierarchy {
        levels,
        coarse,
        coarse_matrix: current,
        settings: s.clone(),
        setup_seconds: t0.elapsed().as_secs_f64(),
        phases: phases.0,
    })
}

/// The stages of the set-up, timed (`HierarchyStats::setup_phases`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Strength of connection and aggregation.
    Aggregate,
    /// λ_max of D⁻¹A (the smoother's interval and the prolongator's ω).
    Spectrum,
    /// Tentative prolongator, its smoothing, and R = Pᵀ.
    Prolongator,
    /// A_c = R A P.
    Galerkin,
    /// The dense inverse of the coarsest matrix.
    Coarsest,
}

impl Phase {
    pub const ALL: [Phase; 5] = [
        Phase::Aggregate,
        Phase::Spectrum,
        Phase::Prolongator,
        Phase::Galerkin,
        Phase::Coarsest,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Aggregate => "aggregate",
            Phase::Spectrum => "spectrum",
            Phase::Prolongator => "prolongator",
            Phase::Galerkin => "galerkin",
            Phase::Coarsest => "coarsest",
        }
    }
}

/// Seconds spent per phase, summed over the levels.
#[derive(Default)]
struct Phases([f64; 5]);

impl Phases {
    fn time<T>(&mut self, phase: Phase, f: impl FnOnce() -> T) -> T {
        let t = std::time::Instant::now();
        let out = f();
        self.0[phase as usize] += t.elapsed().as_secs_f64();
        out
    }
}

/// The strong connections of each row (diagonal excluded): |a_ij| ≥ θ sqrt(a_ii a_jj), as
/// pyamg's symmetric strength; θ = 0 keeps every stored off-diagonal entry that is not zero.
/// CSR pattern: (row pointers, columns).
fn strength(a: &CsMat<f64>, diag: &[f64], theta: f64) -> (Vec<usize>, Vec<u32>) {
    let rows: Vec<Vec<u32>> = (0..a.rows())
        .into_par_iter()
        .map(|i| {
            let row = a.outer_view(i).unwrap();
            row.iter()
                .filter(|&(j, &v)| j != i && v != 0.0 && v.abs() >= theta * (diag[i] * diag[j]).sqrt())
                .map(|(j, _)| j as u32)
                .collect()
        })
        .collect();
    let mut ptr = Vec::with_capacity(rows.len() + 1);
    ptr.push(0);
    for r in &rows {
        ptr.push(ptr.last().unwrap() + r.len());
    }
    (ptr, rows.into_iter().flatten().collect())
}

/// Standard aggregation (Vaněk et al.; pyamg's `standard_aggregation`), in row order, so the
/// result does not depend on the run: (1) a row none of whose strong neighbours is taken
/// starts an aggregate with them; (2) a row left over joins the aggregate of its first
/// neighbour from pass 1; (3) what remains forms aggregates with its untaken neighbours.
/// Rows without strong connections get `NONE`. Returns the aggregate of each row and the count.
fn aggregate(strong: &(Vec<usize>, Vec<u32>)) -> (Vec<u32>, usize) {
    let (ptr, cols) = strong;
    let n = ptr.len() - 1;
    let nbrs = |i: usize| cols[ptr[i]..ptr[i + 1]].iter().map(|&j| j as usize);
    const FREE: u32 = u32::MAX - 1;
    let mut agg = vec![FREE; n];
    let mut from_pass1 = vec![false; n];
    let mut count = 0u32;
    for i in 0..n {
        if agg[i] != FREE {
            continue;
        }
        if ptr[i] == ptr[i + 1] {
            agg[i] = NONE;
            continue;
        }
        if nbrs(i).all(|j| agg[j] == FREE) {
            agg[i] = count;
            from_pass1[i] = true;
            for j in nbrs(i) {
                agg[j] = count;
                from_pass1[j] = true;
            }
            count += 1;
        }
    }
    // Pass 2: join a neighbour's pass-1 aggregate (not one made in this pass).
    for i in 0..n {
        if agg[i] != FREE {
            continue;
        }
        if let Some(j) = nbrs(i).find(|&j| from_pass1[j]) {
            agg[i] = agg[j];
        }
    }
    for i in 0..n {
        if agg[i] != FREE {
            continue;
        }
        agg[i] = count;
        for j in nbrs(i) {
            if agg[j] == FREE {
                agg[j] = count;
            }
        }
        count += 1;
    }
    (agg, count as usize)
}

/// The tentative prolongator: column k is the near-null-space vector b restricted to
/// aggregate k, normalised (the QR of one candidate); the coarse candidate is the norms.
fn tentative(agg: &[u32], count: usize, b: &[f64]) -> (CsMat<f64>, Vec<f64>) {
    let mut norm2 = vec![0.0; count];
    for (i, &k) in agg.iter().enumerate() {
        if k != NONE {
            norm2[k as usize] += b[i] * b[i];
        }
    }
    let norm: Vec<f64> = norm2.iter().map(|v| v.sqrt()).collect();
    let mut indptr = Vec::with_capacity(agg.len() + 1);
    let (mut indices, mut data) = (Vec::with_capacity(agg.len()), Vec::with_capacity(agg.len()));
    indptr.push(0);
    for (i, &k) in agg.iter().enumerate() {
        if k != NONE && norm[k as usize] > 0.0 {
            indices.push(k as usize);
            data.push(b[i] / norm[k as usize]);
        }
        indptr.push(indices.len());
    }
    (CsMat::new((agg.len(), count), indptr, indices, data), norm)
}

/// P = (I − ω D⁻¹ A) P₀, row by row (each row of P₀ has at most one entry).
fn smooth_prolongator(a: &CsMat<f64>, diag: &[f64], p0: &CsMat<f64>, omega: f64) -> CsMat<f64> {
    let entry = |i: usize| {
        let row = p0.outer_view(i).unwrap();
        row.iter().next().map(|(k, &v)| (k, v))
    };
    let rows: Vec<Vec<(usize, f64)>> = (0..a.rows())
        .into_par_iter()
        .map(|i| {
            let mut out: Vec<(usize, f64)> = Vec::with_capacity(8);
            let mut add = |k: usize, v: f64| match out.iter_mut().find(|e| e.0 == k) {
                Some(e) => e.1 += v,
                None => out.push((k, v)),
            };
            if let Some((k, v)) = entry(i) {
                add(k, v);
            }
            let s = omega / diag[i];
            for (j, &aij) in a.outer_view(i).unwrap().iter() {
                if let Some((k, v)) = entry(j) {
                    add(k, -s * aij * v);
                }
            }
            out.sort_unstable_by_key(|e| e.0);
            out
        })
        .collect();
    let mut indptr = Vec::with_capacity(rows.len() + 1);
    indptr.push(0);
    for r in &rows {
        indptr.push(indptr.last().unwrap() + r.len());
    }
    let indices = rows.iter().flat_map(|r| r.iter().map(|e| e.0)).collect();
    let data = rows.iter().flat_map(|r| r.iter().map(|e| e.1)).collect();
    CsMat::new((a.rows(), p0.cols()), indptr, indices, data)
}

/// Aᵀ of a CSR matrix, in CSR with each row's columns ascending (as a sequential transpose
/// gives them), in parallel: per chunk of rows, the count of each column, then each chunk
/// writes its entries at offsets that put the chunks' rows in order within every column.
fn transpose(a: &CsMat<f64>) -> CsMat<f64> {
    let (rows, cols) = (a.rows(), a.cols());
    let (indptr, indices, data) = (a.indptr(), a.indices(), a.data());
    let indptr = indptr.raw_storage();
    let chunks = rayon::current_num_threads().clamp(1, 64).min(rows.max(1));
    let chunk_rows = rows.div_ceil(chunks).max(1);
    let ranges: Vec<std::ops::Range<usize>> = (0..chunks)
        .map(|k| (k * chunk_rows).min(rows)..((k + 1) * chunk_rows).min(rows))
        .collect();
    let counts: Vec<Vec<u32>> = ranges
        .par_iter()
        .map(|r| {
            let mut c = vec![0u32; cols];
            for &j in &indices[indptr[r.start]..indptr[r.end]] {
                c[j] += 1;
            }
            c
        })
        .collect();
    // Column starts, then each chunk's first slot in every column (column-major, by chunk).
    let mut first = vec![0usize; cols * chunks];
    first.par_chunks_mut(chunks).enumerate().for_each(|(j, f)| {
        let mut acc = 0;
        for (k, slot) in f.iter_mut().enumerate() {
            *slot = acc;
            acc += counts[k][j] as usize;
        }
    });
    let mut colptr = Vec::with_capacity(cols + 1);
    colptr.push(0usize);
    for j in 0..cols {
        colptr.push(colptr[j] + first[j * chunks + chunks - 1] + counts[chunks - 1][j] as usize);
    }
    let mut starts: Vec<Vec<usize>> = (0..chunks)
        .into_par_iter()
        .map(|k| (0..cols).map(|j| colptr[j] + first[j * chunks + k]).collect())
        .collect();
    let nnz = indices.len();
    let mut t_indices = vec![0usize; nnz];
    let mut t_data = vec![0.0f64; nnz];
    {
        // Every (column, chunk) owns a disjoint run of slots: written through raw pointers.
        let ip = t_indices.as_mut_ptr() as usize;
        let dp = t_data.as_mut_ptr() as usize;
        ranges.par_iter().zip(starts.par_iter_mut()).for_each(|(r, next)| {
            for i in r.clone() {
                for e in indptr[i]..indptr[i + 1] {
                    let j = indices[e];
                    let slot = next[j];
                    next[j] += 1;
                    // SAFETY: slot lies in this chunk's run of column j, which no other chunk
                    // writes, and below nnz (the counts sum to nnz).
                    unsafe {
                        *(ip as *mut usize).add(slot) = i;
                        *(dp as *mut f64).add(slot) = data[e];
                    }
                }
            }
        });
    }
    CsMat::new((cols, rows), colptr, t_indices, t_data)
}

impl Coarse {
    /// The dense inverse of the coarsest matrix by Cholesky (it is SPD).
    fn invert(a: &CsMat<f64>) -> Result<Coarse, SetupError> {
        let n = a.rows();
        let mut l = vec![0.0; n * n];
        for (i, row) in a.outer_iterator().enumerate() {
            for (j, &v) in row.iter() {
                l[i * n + j] = v;
            }
        }
        // In-place Cholesky, lower triangle: A = L Lᵀ.
        for j in 0..n {
            let mut d = l[j * n + j];
            for k in 0..j {
                d -= l[j * n + k] * l[j * n + k];
            }
            let scale = l[j * n + j].abs().max(f64::MIN_POSITIVE);
            if d.is_nan() || d <= 1e-13 * scale {
                return Err(SetupError::SingularCoarse { rows: n, pivot: j });
            }
            let d = d.sqrt();
            l[j * n + j] = d;
            for i in j + 1..n {
                let mut v = l[i * n + j];
                for k in 0..j {
                    v -= l[i * n + k] * l[j * n + k];
                }
                l[i * n + j] = v / d;
            }
        }
        // Columns of A⁻¹ by forward and back substitution.
        let inv: Vec<Vec<f64>> = (0..n)
            .into_par_iter()
            .map(|c| {
                let mut y = vec![0.0; n];
                for i in 0..n {
                    let mut v = if i == c { 1.0 } else { 0.0 };
                    for k in 0..i {
                        v -= l[i * n + k] * y[k];
                    }
                    y[i] = v / l[i * n + i];
                }
                for i in (0..n).rev() {
                    let mut v = y[i];
                    for k in i + 1..n {
                        v -= l[k * n + i] * y[k];
                    }
                    y[i] = v / l[i * n + i];
                }
                y
            })
            .collect();
        // Row-major (A⁻¹ is symmetric, so column c is row c).
        Ok(Coarse {
            n,
            inverse: inv.into_iter().flatten().collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprs::TriMat;

    fn path_graph(n: usize) -> CsMat<f64> {
        let mut t = TriMat::new((n, n));
        for i in 0..n {
            t.add_triplet(i, i, 2.0);
            if i + 1 < n {
                t.add_triplet(i, i + 1, -1.0);
                t.add_triplet(i + 1, i, -1.0);
            }
        }
        t.to_csr()
    }

    #[test]
    fn aggregation_covers_every_row_once_with_pyamg_s_aggregates_on_a_path() {
        let a = path_graph(10);
        let d = diagonal(&a);
        let (agg, count) = aggregate(&strength(&a, &d, 0.0));
        // Pass 1: row 0 starts {0, 1}; row 2 sees 1 taken; row 3 starts {2, 3, 4}; row 6
        // starts {5, 6, 7}; row 9 starts {8, 9}.
        assert_eq!(agg, vec![0, 0, 1, 1, 1, 2, 2, 2, 3, 3]);
        assert_eq!(count, 4);
    }

    #[test]
    fn the_tentative_prolongator_reproduces_the_candidate() {
        let agg = vec![0, 0, 1, 1, 1, NONE];
        let b = vec![1.0, 2.0, 1.0, 1.0, 1.0, 7.0];
        let (p, bc) = tentative(&agg, 2, &b);
        // P bc = b on the aggregated rows, and P's columns are orthonormal.
        let mut pb = vec![0.0; 6];
        crate::numerics::linalg::cg::spmv(&p, &bc, &mut pb);
        for i in 0..5 {
            assert!((pb[i] - b[i]).abs() < 1e-14, "{pb:?}");
        }
        assert_eq!(pb[5], 0.0);
        let ptp = &p.transpose_view().to_csr() * &p;
        assert!((ptp.get(0, 0).unwrap() - 1.0).abs() < 1e-14 && (ptp.get(1, 1).unwrap() - 1.0).abs() < 1e-14);
    }

    #[test]
    fn the_parallel_transpose_is_sprs_s() {
        let mut t = TriMat::new((50, 37));
        for k in 0..400usize {
            t.add_triplet((k * 7919) % 50, (k * 104729) % 37, k as f64 * 0.5 - 3.0);
        }
        let a: CsMat<f64> = t.to_csr();
        let want: CsMat<f64> = a.transpose_view().to_csr();
        let got = transpose(&a);
        assert_eq!(got.indptr().raw_storage(), want.indptr().raw_storage());
        assert_eq!(got.indices(), want.indices());
        assert_eq!(got.data(), want.data());
    }

    #[test]
    fn the_coarse_inverse_is_the_inverse() {
        let a = path_graph(7);
        let c = Coarse::invert(&a).unwrap();
        for i in 0..7 {
            for j in 0..7 {
                let s: f64 = (0..7)
                    .map(|k| a.get(i, k).copied().unwrap_or(0.0) * c.inverse[k * 7 + j])
                    .sum();
                assert!((s - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn a_singular_coarse_matrix_is_refused() {
        // The Neumann Laplacian of a path: constants in its null space.
        let mut t = TriMat::new((4, 4));
        for i in 0..3 {
            t.add_triplet(i, i, 1.0);
            t.add_triplet(i + 1, i + 1, 1.0);
            t.add_triplet(i, i + 1, -1.0);
            t.add_triplet(i + 1, i, -1.0);
        }
        let a: CsMat<f64> = t.to_csr();
        assert!(matches!(Coarse::invert(&a), Err(SetupError::SingularCoarse { .. })));
    }
}
