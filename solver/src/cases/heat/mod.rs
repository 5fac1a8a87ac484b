//! The 3D heat equation d(phi)/dt = alpha Laplacian(phi) with the 8th-order central stencil
//! and Kutta's third-order Runge-Kutta scheme (Kawasaki thesis, ch. 4-6). One numerical core,
//! two executions: `cpu.rs` (rayon) and `cuda.rs` (kernels/cuda/heat.cu).
//!
//! Each RK3 step is three stages of the form  out = ca*A + cb*B + cs*S + cl*L(S):
//!   u1   = phi + dt/2 L(phi)
//!   u2   = 3 phi - 2 u1 + 2 dt L(u1)
//!   phi' = -phi/3 + u1 + u2/3 + dt/6 L(u2)
//! which is Kutta's k1, k2, k3 (y' = y + dt/6 (k1 + 4 k2 + k3)) rewritten to need three arrays.

pub mod cpu;
pub mod cuda;
pub mod reference;

use crate::config::{AxisBoundary, CaseFile, HeatInitial, HeatKernel, HeatSection};
use crate::error::{Result, SolverError};
use crate::structured::Grid3;
use std::path::Path;

/// Coefficients of the 8th-order second derivative: centre, then the symmetric pairs 1..4.
pub const FD8: [f64; 5] = [-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0];

/// The stencil's symbol: D2 exp(i theta x) = -sigma(theta)/h^2 exp(i theta x).
pub fn fd8_symbol(theta: f64) -> f64 {
    -(FD8[0] + 2.0 * (1..5).map(|m| FD8[m] * (m as f64 * theta).cos()).sum::<f64>())
}

/// The three stages: (ca, cb, cs, cl/dt) with A = phi, B = u1.
pub const STAGES: [[f64; 4]; 3] = [
    [0.0, 0.0, 1.0, 0.5],
    [3.0, 0.0, -2.0, 2.0],
    [-1.0 / 3.0, 1.0, 1.0 / 3.0, 1.0 / 6.0],
];

/// Everything both executions need, built once from the case file.
#[derive(Clone, Debug)]
pub struct HeatSetup {
    pub grid: Grid3,
    pub alpha: f64,
    pub bc: [AxisBoundary; 3],
    pub initial: HeatInitial,
    pub kernel: HeatKernel,
}

impl HeatSetup {
    pub fn from_case(case: &CaseFile, case_path: &Path) -> Result<Self> {
        let heat: &HeatSection = case.heat.as_ref().expect("validated");
        let g = case.grid.as_ref().expect("validated");
        let bc = heat.boundary.axes();
        let (dims, origin, extent) = match (&g.dims, &g.file) {
            (Some(d), _) => (*d, g.origin, g.extent),
            (None, Some(f)) => {
                let spec = meshtool::generate::grid::GridSpec::read(&crate::config::resolve(case_path, f))?;
                (spec.dims, spec.origin, spec.extent)
            }
            (None, None) => unreachable!("validated"),
        };
        if let Some(k) = (0..3).find(|&k| dims[k] < 9) {
            return Err(SolverError::config(
                case_path,
                "grid.file",
                format!("axis {k} has {} points; at least 9 needed", dims[k]),
            ));
        }
        Ok(HeatSetup {
            grid: Grid3::new(dims, origin, extent, &bc),
            alpha: heat.alpha,
            bc,
            initial: heat.initial.clone(),
            kernel: heat.kernel,
        })
    }

    /// alpha / h^2 per axis.
    pub fn axis_factors(&self) -> [f64; 3] {
        self.grid.h.map(|h| self.alpha / (h * h))
    }

    /// The stable step of the CFL-type limit: dt = cfl / (2 alpha sum 1/h^2). With RK3 and
    /// the 8th-order stencil, runs are stable up to cfl ~ 0.77.
    pub fn dt_for_cfl(&self, cfl: f64) -> f64 {
        cfl / (2.0 * self.axis_factors().iter().sum::<f64>())
    }

    /// Initial field at the interior points, x fastest.
    pub fn initial_field(&self) -> Vec<f64> {
        let g = &self.grid;
        let mut out = g.sample(|x| reference::initial_value(self, x));
        // Dirichlet boundary points carry their values from the start.
        self.apply_dirichlet(&mut out);
        out
    }

    fn apply_dirichlet(&self, f: &mut [f64]) {
        let [nx, ny, nz] = self.grid.n;
        for (axis, bc) in self.bc.iter().enumerate() {
            if let AxisBoundary::Dirichlet([v0, v1]) = *bc {
                for k in 0..nz {
                    for j in 0..ny {
                        for i in 0..nx {
                            let idx = [i, j, k][axis];
                            if idx == 0 {
                                f[i + nx * (j + ny * k)] = v0;
                            } else if idx == self.grid.n[axis] - 1 {
                                f[i + nx * (j + ny * k)] = v1;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Bytes a step must move at the minimum with this scheme: three stages reading the
    /// stencil array once and the pointwise arrays once, writing once — 6 reads + 3 writes
    /// of one value per point.
    pub fn min_bytes_per_step(&self, real_bytes: usize) -> f64 {
        9.0 * real_bytes as f64 * self.grid.points() as f64
    }
}

// ---- The heat case as a `Simulation` on either backend ----------------------------------

use crate::cases::{from_bytes, to_bytes, Prepared, Simulation, Target};
use crate::real::Real;

// Held once per run behind Box<dyn Simulation>: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Exec<T: Real> {
    Cpu(cpu::CpuHeat<T>),
    Cuda(cuda::CudaHeat<T>),
}

impl<T: Real> Exec<T> {
    fn interior(&self) -> Result<Vec<T>> {
        match self {
            Exec::Cpu(c) => Ok(c.interior()),
            Exec::Cuda(c) => c.interior(),
        }
    }
}

impl<T: Real> Simulation for Exec<T> {
    fn step(&mut self, dt: f64) -> Result<()> {
        match self {
            Exec::Cpu(c) => {
                c.step(dt);
                Ok(())
            }
            Exec::Cuda(c) => c.step(dt),
        }
    }

    fn max_abs(&mut self) -> Result<f64> {
        match self {
            Exec::Cpu(c) => Ok(c.phi.iter().fold(0.0f64, |m, v| {
                let v = v.f64().abs();
                if v.is_nan() || m.is_nan() {
                    f64::NAN
                } else {
                    m.max(v)
                }
            })),
            Exec::Cuda(c) => c.max_abs(),
        }
    }

    fn fields(&mut self) -> Result<Vec<(String, Vec<f64>)>> {
        Ok(vec![(
            "phi".to_string(),
            self.interior()?.iter().map(|v| v.f64()).collect(),
        )])
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(to_bytes(&self.interior()?))
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let v: Vec<T> = from_bytes(bytes);
        match self {
            Exec::Cpu(c) => {
                c.set_interior(&v);
                Ok(())
            }
            Exec::Cuda(c) => c.set_interior(&v),
        }
    }
}

pub fn prepare<T: Real>(case: &CaseFile, case_path: &Path, target: &Target) -> Result<Prepared> {
    let setup = HeatSetup::from_case(case, case_path)?;
    let (dt, steps) = crate::cases::time_steps(&case.time, setup.dt_for_cfl(case.time.cfl));
    let initial = setup.initial_field();
    let (sim, variant): (Box<dyn Simulation>, String) = match target {
        Target::Cpu => (
            Box::new(Exec::<T>::Cpu(cpu::CpuHeat::new(setup.clone(), &initial))),
            "cpu-rayon".into(),
        ),
        Target::Cuda(dev) => {
            let v = match setup.kernel {
                HeatKernel::RegisterQueue => "register-queue",
                HeatKernel::Naive => "naive",
            };
            (
                Box::new(Exec::<T>::Cuda(cuda::CudaHeat::new(
                    setup.clone(),
                    dev.clone(),
                    &initial,
                )?)),
                v.into(),
            )
        }
    };
    let (backend, device) = target.describe();
    let reference_setup = setup.clone();
    let has_reference = reference::exact_fn(&setup, 1.0).is_some();
    Ok(Prepared {
        sim,
        layout: crate::cases::Layout::Structured(setup.grid.clone()),
        dt,
        steps,
        reference: if has_reference {
            Some(Box::new(move |t| reference::exact(&reference_setup, t)))
        } else {
            None
        },
        backend,
        device,
        variant,
        min_bytes_per_step: setup.min_bytes_per_step(std::mem::size_of::<T>()),
        extra: serde_json::json!({}),
        weights: None,
    })
}
