//! The simulation of a shallow-water case on a backend: the whole grid's on one device or
//! core, or this process's parts' through the grid layer (`grid::parts`), each part a CPU or
//! CUDA execution of its slab of rows.

use super::setup::{SweSetup, COMPONENTS};
use super::{cpu, cuda, totals};
use crate::backend::Target;
use crate::error::Result;
use crate::framework::{BuildIn, Simulation};
use crate::grid::parts::{self, Naming, Plan, Split, Transport};
use crate::real::Real;

impl BuildIn for SweSetup {
    /// The whole grid's simulation, or this process's parts' (`grid::parts`): a halo at the
    /// ghost rows' cadence, the step reduced over the parts on the devices, totals and unsound
    /// cells as `totals` reduces and names them.
    fn build_in<R: Real>(&self, target: &Target) -> Result<Box<dyn Simulation>> {
        let (w, bed) = self.initial_fields();
        let setup = self.with_thin_depth(&w[..self.grid.points()]);
        if !parts::is_split(target, self.gpus) {
            let bed = setup.part_bed(&setup, &bed);
            return Ok(simulation::<R>(setup, target, &w, &bed)?);
        }
        let plan = Plan {
            transport: Transport::Nccl,
            cadence: Some(setup.cadence()),
            device_reductions: true,
            batches: true,
            totals: totals::TOTALS,
            naming: Naming::Rank,
        };
        let nx = setup.grid.cells[0];
        let initial = |split: &Split| parts::cut(&w, COMPONENTS, nx, &split.slab);
        parts::decompose_with(&setup.grid, &setup.bc, target, self.gpus, &plan, &initial, &|link, initial, target| {
            let part = setup.part(link);
            let bed = setup.part_bed(&part, &bed);
            simulation::<R>(part, target, initial, &bed)
        })
    }
}

/// The simulation of `setup` (the whole grid's, or a part's) on `target` from its interior
/// initial state and its padded bed.
fn simulation<R: Real>(setup: SweSetup, target: &Target, w: &[f64], bed: &[f64]) -> Result<Box<dyn Simulation + Send>> {
    Ok(match target {
        Target::Cpu => Box::new(cpu::CpuSwe::<R>::new(setup, w, bed)),
        Target::Cuda(dev) => Box::new(cuda::CudaSwe::<R>::new(setup, dev.clone(), w, bed)?),
    })
}

