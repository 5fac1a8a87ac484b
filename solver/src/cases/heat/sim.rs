//! The heat case as a running `Simulation` on either backend (`Exec`), built whole or in parts
//! across devices and processes (`grid::parts`) from its setup (`BuildIn`).

use super::setup::HeatSetup;
use super::{cpu, cpu::CpuHeat, cuda, cuda::CudaHeat};
use crate::backend::Target;
use crate::error::Result;
use crate::framework::{BuildIn, Clock, Simulation, Unhealthy};
use crate::grid::parts;
use crate::output::{Centring, Field};
use crate::real::{from_bytes, to_bytes, Real};

// Held once per run behind Box<dyn Simulation>: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Exec<T: Real> {
    Cpu(CpuHeat<T>),
    Cuda(CudaHeat<T>),
}

impl<T: Real> Exec<T> {
    fn setup(&self) -> &HeatSetup {
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
                super::section::HeatKernel::RegisterQueue => "register-queue".into(),
                super::section::HeatKernel::Naive => "naive".into(),
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

/// Values a part must hold for its exchange to go by copy engine, hidden behind its inner
/// planes: on 2 H200s the copy engines made 512^3 f64 1.85x faster than one GPU where NCCL made
/// it 1.71x, but cost about 77 us of host time an exchange where NCCL costs about 16, so NCCL
/// wins up to 256^3 (1.26x against 0.87x; BENCHMARKS.md).
const COPY_ENGINE_PART: usize = 1 << 25;

impl HeatSetup {
    /// How this run's parts exchange their planes (`COPY_ENGINE_PART`).
    fn transport(&self) -> parts::Transport {
        match self.grid.n.iter().product::<usize>() / self.gpus.max(1) >= COPY_ENGINE_PART {
            true => parts::Transport::CopyEngine,
            false => parts::Transport::Nccl,
        }
    }
}

impl BuildIn for HeatSetup {
    fn build_in<T: Real>(&self, target: &Target) -> Result<Box<dyn Simulation>> {
        if parts::is_split(target, self.gpus) {
            let initial = |split: &parts::Split| self.initial_part(split);
            return parts::decompose(&self.grid, &self.bc, target, self.gpus, self.transport(), &initial, &|link, initial, target| {
                let part = self.part(link);
                Ok(Box::new(match target {
                    Target::Cpu => Exec::<T>::Cpu(cpu::CpuHeat::new(part, initial)),
                    Target::Cuda(dev) => Exec::Cuda(cuda::CudaHeat::new(part, dev.clone(), initial)?),
                }))
            });
        }
        let initial = self.initial_field();
        Ok(Box::new(match target {
            Target::Cpu => Exec::<T>::Cpu(cpu::CpuHeat::new(self.clone(), &initial)),
            Target::Cuda(dev) => Exec::Cuda(cuda::CudaHeat::new(self.clone(), dev.clone(), &initial)?),
        }))
    }
}
