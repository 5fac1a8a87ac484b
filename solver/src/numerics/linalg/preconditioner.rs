//! Which preconditioner a CG solve takes, as both backends build it from one description:
//! Jacobi, Chebyshev-Jacobi (its bounds estimated once on the host) or smoothed-aggregation
//! AMG (its hierarchy built once on the host). `on_cpu` gives the CPU's operator; `CudaCg`
//! uploads the same data (`linalg::cuda`).

use super::amg::{self, AmgSettings, Hierarchy};
use super::cg::{Jacobi, Preconditioner};
use super::chebyshev::{Chebyshev, ChebyshevBounds};
use sprs::CsMat;
use std::sync::Arc;

#[derive(Clone)]
pub enum CgPreconditioner {
    Jacobi,
    /// Chebyshev-Jacobi with these bounds (`ChebyshevBounds::estimate`).
    Chebyshev(ChebyshevBounds),
    /// One V-cycle of this hierarchy per iteration (built on the very matrix it preconditions).
    Amg(Arc<Hierarchy>),
}

impl CgPreconditioner {
    /// Chebyshev-Jacobi of `degree` with the interval estimated from `a`.
    pub fn chebyshev(a: &CsMat<f64>, degree: usize) -> Self {
        CgPreconditioner::Chebyshev(ChebyshevBounds::estimate(a, degree))
    }

    /// AMG with its hierarchy built on `a`.
    pub fn amg(a: &CsMat<f64>, settings: &AmgSettings) -> Result<Self, amg::SetupError> {
        Ok(CgPreconditioner::Amg(Arc::new(amg::build(a, settings)?)))
    }

    /// "jacobi", "chebyshev4", "amg" (the device names its cycle's precision: `CudaCg::name`).
    pub fn name(&self) -> String {
        match self {
            CgPreconditioner::Jacobi => "jacobi".into(),
            CgPreconditioner::Chebyshev(b) => format!("chebyshev{}", b.degree),
            CgPreconditioner::Amg(_) => "amg".into(),
        }
    }

    /// The CPU's operator for the matrix `a` (the one this description was built on).
    pub fn on_cpu<'a>(&'a self, a: &'a CsMat<f64>) -> Box<dyn Preconditioner + 'a> {
        match self {
            CgPreconditioner::Jacobi => Box::new(Jacobi::new(a)),
            CgPreconditioner::Chebyshev(b) => Box::new(Chebyshev::with_bounds(a, *b)),
            CgPreconditioner::Amg(h) => Box::new(h.as_ref()),
        }
    }

    /// The bytes a CPU CG iteration with this preconditioner moves at the least on `a`: the
    /// CSR matrix (values, u32 columns, row pointers) once per product and the vectors as
    /// `CudaCg::bytes_per_iteration` counts them; AMG's cycle in f64.
    pub fn cpu_bytes_per_iteration(&self, a: &CsMat<f64>) -> f64 {
        let (m, n) = (12.0 * a.nnz() as f64 + 4.0 * (a.rows() + 1) as f64, a.rows() as f64);
        match self {
            CgPreconditioner::Jacobi => m + 80.0 * n,
            CgPreconditioner::Chebyshev(b) => {
                let steps = b.degree.saturating_sub(1) as f64;
                (1.0 + steps) * m + 96.0 * n + 40.0 * steps * n
            }
            CgPreconditioner::Amg(h) => m + 80.0 * n + h.cycle_bytes(8.0),
        }
    }

    pub fn hierarchy(&self) -> Option<&Hierarchy> {
        match self {
            CgPreconditioner::Amg(h) => Some(h),
            _ => None,
        }
    }
}

impl std::fmt::Debug for CgPreconditioner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CgPreconditioner::Amg(h) => write!(f, "Amg({})", h.stats().line()),
            other => f.write_str(&other.name()),
        }
    }
}
