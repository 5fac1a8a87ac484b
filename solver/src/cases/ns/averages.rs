//! Running time averages and RMS of the velocity and the pressure (`navier-stokes.statistics`):
//! from the start time on, every step adds dt-weighted sums of each field and of its square on
//! the backend (`NsOps::accumulate`); the output fields are mean = Σ w x / Σ w and
//! rms = sqrt(Σ w x² / Σ w − mean²). The sums travel with the checkpoint, so a restarted run
//! averages over the same window as one that was not stopped.

use super::step::NsOps;
use crate::error::Result;
use crate::output::{Centring, Field};

/// The four fields u_x, u_y, u_z and p on the backend.
type Four<O> = [<O as NsOps>::Cells; 4];

/// The sums of u_x, u_y, u_z and p, and of their squares, and the time they cover.
pub struct Averages<O: NsOps> {
    pub start: f64,
    weight: f64,
    sums: Option<(Four<O>, Four<O>)>,
}

impl<O: NsOps> Averages<O> {
    pub fn new(start: f64) -> Self {
        Averages {
            start,
            weight: 0.0,
            sums: None,
        }
    }

    /// Adds the state after a step that ended at `time` and took `dt` (from `start` on).
    pub fn add(&mut self, ops: &mut O, time: f64, dt: f64, u: &[O::Cells; 3], p: &O::Cells) -> Result<()> {
        if time < self.start {
            return Ok(());
        }
        if self.sums.is_none() {
            let z = |ops: &mut O| -> Result<Four<O>> { Ok([ops.zeros()?, ops.zeros()?, ops.zeros()?, ops.zeros()?]) };
            self.sums = Some((z(ops)?, z(ops)?));
        }
        let (sum, sq) = self.sums.as_mut().expect("made above");
        let fields = [&u[0], &u[1], &u[2], p];
        for k in 0..4 {
            ops.accumulate(dt, fields[k], &mut sum[k], &mut sq[k])?;
        }
        self.weight += dt;
        Ok(())
    }

    /// The mean and RMS fields (none before the window has begun).
    pub fn fields(&self, ops: &mut O) -> Result<Vec<Field>> {
        let Some((sum, sq)) = &self.sums else {
            return Ok(Vec::new());
        };
        let w = self.weight.max(f64::MIN_POSITIVE);
        let mut mean = Vec::with_capacity(4);
        let mut rms = Vec::with_capacity(4);
        for k in 0..4 {
            let (s, q) = (ops.download(&sum[k])?, ops.download(&sq[k])?);
            rms.push(
                s.iter()
                    .zip(&q)
                    .map(|(s, q)| (q / w - (s / w) * (s / w)).max(0.0).sqrt())
                    .collect::<Vec<f64>>(),
            );
            mean.push(s.iter().map(|s| s / w).collect::<Vec<f64>>());
        }
        let n = mean[3].len();
        let vector = |v: &[Vec<f64>]| -> Vec<f64> { (0..n).flat_map(|c| [v[0][c], v[1][c], v[2][c]]).collect() };
        Ok(vec![
            Field::vector("velocity_mean", 3, Centring::Cell, vector(&mean)),
            Field::vector("velocity_rms", 3, Centring::Cell, vector(&rms)),
            Field::scalar("pressure_mean", Centring::Cell, mean.pop().expect("four fields")),
            Field::scalar("pressure_rms", Centring::Cell, rms.pop().expect("four fields")),
        ])
    }

    /// The checkpoint's part: the weight (NaN before the window) and the eight sums.
    pub fn save(&self, ops: &mut O, out: &mut Vec<f64>) -> Result<()> {
        match &self.sums {
            None => out.push(f64::NAN),
            Some((sum, sq)) => {
                out.push(self.weight);
                for f in sum.iter().chain(sq) {
                    out.extend(ops.download(f)?);
                }
            }
        }
        Ok(())
    }

    /// Restores `save`'s part from `data` (n cells); the values it used.
    pub fn load(&mut self, ops: &mut O, data: &[f64], n: usize) -> Result<usize> {
        let Some(&weight) = data.first() else {
            return Err(crate::error::SolverError::Other("the checkpoint ends before the running averages".into()));
        };
        if weight.is_nan() {
            (self.weight, self.sums) = (0.0, None);
            return Ok(1);
        }
        if data.len() < 1 + 8 * n {
            return Err(crate::error::SolverError::Other(format!(
                "the checkpoint holds {} values for the running averages, not {}",
                data.len() - 1,
                8 * n
            )));
        }
        let part = |k: usize| &data[1 + k * n..1 + (k + 1) * n];
        let mut up = |k: usize| ops.upload(part(k));
        let sum = [up(0)?, up(1)?, up(2)?, up(3)?];
        let sq = [up(4)?, up(5)?, up(6)?, up(7)?];
        (self.weight, self.sums) = (weight, Some((sum, sq)));
        Ok(1 + 8 * n)
    }
}
