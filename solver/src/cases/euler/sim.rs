//! The Euler case as a running `Simulation`: `cpu.rs`'s or `cuda.rs`'s, built from its setup
//! whole or in parts across devices and processes (`grid::parts`, `BuildIn`).

use super::setup::EulerSetup;
use super::{cpu, cuda};
use crate::backend::Target;
use crate::error::Result;
use crate::framework::{BuildIn, Simulation};
use crate::grid::parts;
use crate::real::Real;

impl BuildIn for EulerSetup {
    fn build_in<R: Real>(&self, target: &Target) -> Result<Box<dyn Simulation>> {
        if parts::is_split(target, self.gpus) {
            let initial = |split: &parts::Split| {
                let cells = parts::point_range(&self.grid, split);
                self.initial.field_range(&self.grid, self.gamma, self.gravity, cells)
            };
            return parts::decompose(&self.grid, &self.bc, target, self.gpus, parts::Transport::Nccl, &initial, &|link, initial, target| {
                let part = self.part(link);
                Ok(match target {
                    Target::Cpu => Box::new(cpu::CpuEuler::<R>::new(part, initial)),
                    Target::Cuda(dev) => Box::new(cuda::CudaEuler::<R>::new(part, dev.clone(), initial)?),
                })
            });
        }
        match target {
            Target::Cpu => Ok(Box::new(cpu::CpuEuler::<R>::new(self.clone(), &self.initial_field()))),
            Target::Cuda(dev) => Ok(Box::new(cuda::CudaEuler::<R>::new(
                self.clone(),
                dev.clone(),
                &self.initial_field(),
            )?)),
        }
    }
}
