//! Faults made on purpose, for the fault-injection suite (`solver/tests/faults.rs`): knobs read
//! from the environment, inert unless set. `CFD_INJECT_NAN=STEP:CELL` makes the state of output
//! cell (or point) CELL not finite right after step STEP (cells numbered as in the output, x
//! fastest, in the whole grid of a decomposed run: the rank holding it takes the fault), as a
//! bit flip or a bad kernel would; the run's health checks must then stop it naming the field,
//! the cell, the step and the rank, keeping the last good output and checkpoint.

use super::case::Case;
use super::ranks;
use crate::error::{Result, SolverError};

pub const NAN_VAR: &str = "CFD_INJECT_NAN";

/// Where and when to inject a NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NanAt {
    pub step: u64,
    pub cell: usize,
}

/// The `CFD_INJECT_NAN` knob, if set; a malformed value is refused naming it.
pub fn nan_at() -> Result<Option<NanAt>> {
    let Ok(v) = std::env::var(NAN_VAR) else {
        return Ok(None);
    };
    parse_nan_at(&v).map(Some).ok_or_else(|| {
        SolverError::Other(format!(
            "{NAN_VAR}={v}: expected STEP:CELL (e.g. 40:1234), the step after which output cell CELL becomes NaN"
        ))
    })
}

fn parse_nan_at(v: &str) -> Option<NanAt> {
    let (step, cell) = v.trim().split_once(':')?;
    Some(NanAt {
        step: step.trim().parse().ok()?,
        cell: cell.trim().parse().ok()?,
    })
}

/// Make the cell not finite on the process that holds it (a collective call in a decomposed
/// run: every rank makes it at the same step).
pub fn inject(case: &mut Case, at: &NanAt) -> Result<()> {
    let held = case.sim.inject_nan(at.cell)?;
    let world = ranks::world();
    if world.sum(&[f64::from(u8::from(held))])[0] == 0.0 {
        return Err(SolverError::Other(format!(
            "{NAN_VAR}: no process holds output cell {} (the case has fewer cells)",
            at.cell
        )));
    }
    if held {
        let rank = if world.size() > 1 {
            format!(" on rank {}", world.rank())
        } else {
            String::new()
        };
        // One write, so that another rank's message cannot land inside this line.
        let line = format!(
            "{NAN_VAR}: output cell {} made NaN after step {}{rank}\n",
            at.cell, at.step
        );
        eprint!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_knob_reads_step_and_cell() {
        assert_eq!(parse_nan_at("40:1234"), Some(NanAt { step: 40, cell: 1234 }));
        assert_eq!(parse_nan_at(" 7 : 0 "), Some(NanAt { step: 7, cell: 0 }));
        assert_eq!(parse_nan_at("40"), None);
        assert_eq!(parse_nan_at("x:1"), None);
    }
}
