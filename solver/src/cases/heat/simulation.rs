//! The heat case as a running `Simulation` on either backend.

use super::{cpu::CpuHeat, cuda::CudaHeat};
use crate::error::Result;
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::output::{Centring, Field};
use crate::real::{from_bytes, to_bytes, Real};

// Held once per run behind Box<dyn Simulation>: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Exec<T: Real> {
    Cpu(CpuHeat<T>),
    Cuda(CudaHeat<T>),
}

impl<T: Real> Exec<T> {
    fn setup(&self) -> &super::HeatSetup {
        match self {
            Exec::Cpu(c) => &c.setup,
            Exec::Cuda(c) => &c.setup,
        }
    }

    pub fn interior(&self) -> Result<Vec<T>> {
        match self {
            Exec::Cpu(c) => Ok(c.interior()),
            Exec::Cuda(c) => c.interior(),
        }
    }
}

impl<T: Real> Simulation for Exec<T> {
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        Ok(self.setup().dt_for_cfl(cfl))
    }

    fn step(&mut self, _clock: &Clock, dt: f64) -> Result<()> {
        match self {
            Exec::Cpu(c) => {
                c.step(dt);
                Ok(())
            }
            Exec::Cuda(c) => c.step(dt),
        }
    }

    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let m = match self {
            Exec::Cpu(c) => crate::backend::max_abs_host(&c.phi),
            Exec::Cuda(c) => c.max_abs()?,
        };
        if m.is_finite() && m <= 1e100 {
            return Ok(None);
        }
        // Only on failure: the first point at fault, from the host's copy.
        let phi = self.interior()?;
        let bad = phi.iter().position(|v| !v.is_finite() || v.f64().abs() > 1e100).unwrap_or(0);
        let g = &self.setup().grid;
        let at = g.whole_index(bad);
        // The point's number in the whole grid (x fastest); a part knows its planes' offset.
        let bad = bad + g.first.iter().zip(g.n).fold((0, 1), |(o, stride), (&f, n)| (o + f * stride, stride * n)).0;
        Ok(Some(Unhealthy {
            field: "phi".into(),
            what: format!("phi {:e} at point {bad} {at:?} (max |phi| = {m:e})", phi[bad].f64()),
        }))
    }

    fn inject_nan(&mut self, cell: usize) -> Result<bool> {
        let mut phi = self.interior()?;
        let Some(v) = phi.get_mut(cell) else {
            return Ok(false);
        };
        *v = T::nan();
        match self {
            Exec::Cpu(c) => c.set_interior(&phi),
            Exec::Cuda(c) => c.set_interior(&phi)?,
        }
        Ok(true)
    }

    fn refresh_neighbours(&mut self) {
        if let Exec::Cuda(c) = self {
            c.refresh_neighbours();
        }
    }

    fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
        let phi = self.interior()?.iter().map(|v| v.f64()).collect();
        Ok(vec![Field::scalar("phi", Centring::Point, phi)])
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

    fn bytes_per_step(&self) -> f64 {
        self.setup().min_bytes_per_step(std::mem::size_of::<T>())
    }

    fn variant(&self) -> String {
        match self {
            Exec::Cpu(_) => "cpu-rayon".into(),
            Exec::Cuda(c) => match c.setup.kernel {
                super::HeatKernel::RegisterQueue => "register-queue".into(),
                super::HeatKernel::Naive => "naive".into(),
            },
        }
    }

    fn sync(&mut self) -> Result<()> {
        match self {
            Exec::Cpu(_) => Ok(()),
            Exec::Cuda(c) => c.dev.sync(),
        }
    }
}
