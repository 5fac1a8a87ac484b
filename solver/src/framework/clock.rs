//! The simulated time. A constant step keeps `time = step * dt` (no drift from repeated
//! addition) and lands on the end time by construction; an adaptive step is asked of the
//! simulation before every step and cut so that output times and the end time are hit exactly.

use super::config::{OutputSection, TimeSection};

/// How the step size is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtPolicy {
    /// The stable step is the same for the whole run (linear problems with constant
    /// coefficients): it is asked once, and every step has the same size; with an end time the
    /// step is shortened so that a whole number of steps lands on it.
    Constant,
    /// The stable step depends on the state (wave speeds): asked before every step, and cut so
    /// that output times and the end time are hit exactly.
    Adaptive,
}

/// Where a run is: steps taken and the time reached. Passed to every `Simulation::step`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clock {
    pub step: u64,
    pub time: f64,
}

/// How the run advances and when it stops.
#[derive(Clone, Debug)]
pub struct Schedule {
    pub policy: DtPolicy,
    pub cfl: f64,
    /// The constant step (constant policy or a fixed `time.dt`).
    pub dt: Option<f64>,
    pub steps: Option<u64>,
    pub end_time: Option<f64>,
    /// Output every this many steps (0: off) and every this much time (0: off).
    pub every: u64,
    pub interval: f64,
}

impl Schedule {
    /// The schedule of a case. `stable_dt` is the simulation's stable step at `time.cfl`,
    /// asked once for a constant policy.
    pub fn new(time: &TimeSection, output: &OutputSection, policy: DtPolicy, stable_dt: Option<f64>) -> Self {
        let mut s = Schedule {
            policy,
            cfl: time.cfl,
            dt: time.dt,
            steps: time.steps,
            end_time: time.end_time,
            every: output.every,
            interval: output.interval,
        };
        if s.dt.is_none() && policy == DtPolicy::Constant {
            s.dt = stable_dt;
        }
        if let (Some(dt0), None, Some(t)) = (s.dt, s.steps, s.end_time) {
            // Shorten the step so that a whole number of equal steps lands on the end time.
            let n = (t / dt0).ceil().max(1.0) as u64;
            s.dt = Some(t / n as f64);
            s.steps = Some(n);
        }
        s
    }

    /// Whether every step has the same, known size.
    pub fn constant(&self) -> bool {
        self.dt.is_some()
    }

    pub fn done(&self, c: &Clock) -> bool {
        self.steps.is_some_and(|n| c.step >= n) || self.end_time.is_some_and(|t| c.time >= t)
    }

    /// The next output time after `t` (interval outputs), if any.
    fn next_output_time(&self, t: f64) -> Option<f64> {
        (self.interval > 0.0).then(|| {
            let k = (t / self.interval + 1e-9).floor() + 1.0;
            k * self.interval
        })
    }

    /// The nearest time after `t` that adaptive steps must land on: the next output or the end
    /// (infinite if neither).
    pub fn next_target(&self, t: f64) -> f64 {
        [self.next_output_time(t), self.end_time]
            .into_iter()
            .flatten()
            .fold(f64::INFINITY, f64::min)
    }

    /// The step to take from `c`: the constant step, or the simulation's stable step cut to
    /// the next output time and the end time.
    pub fn dt(&self, c: &Clock, stable: impl FnOnce() -> crate::Result<f64>) -> crate::Result<f64> {
        if let Some(dt) = self.dt {
            return Ok(dt);
        }
        let mut dt = stable()?;
        for target in [self.next_output_time(c.time), self.end_time].into_iter().flatten() {
            if c.time + dt >= target * (1.0 - 1e-12) {
                dt = dt.min(target - c.time);
            }
        }
        Ok(dt)
    }

    /// The clock after a step of `dt` from `c`.
    pub fn advance(&self, c: &Clock, dt: f64) -> Clock {
        let step = c.step + 1;
        let time = match (self.dt, self.steps, self.end_time) {
            // Constant steps: no accumulated rounding; the last one lands on the end time.
            (Some(_), Some(n), Some(t)) if step == n => t,
            (Some(dt), _, _) => step as f64 * dt,
            (None, _, _) => {
                let t = c.time + dt;
                // Snap onto the output or end time the step was cut to.
                [self.next_output_time(c.time), self.end_time]
                    .into_iter()
                    .flatten()
                    .find(|&target| (t - target).abs() <= 1e-12 * target.abs().max(1.0))
                    .unwrap_or(t)
            }
        };
        Clock { step, time }
    }

    /// Whether the state after the step from `before` to `after` is written.
    pub fn is_output(&self, before: &Clock, after: &Clock) -> bool {
        self.done(after)
            || (self.every > 0 && after.step.is_multiple_of(self.every))
            || self
                .next_output_time(before.time)
                .is_some_and(|t| after.time >= t * (1.0 - 1e-12))
    }

    /// The number of steps, where it is known in advance.
    pub fn total_steps(&self) -> Option<u64> {
        self.steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(dt: Option<f64>, steps: Option<u64>, end: Option<f64>, every: u64, interval: f64) -> Schedule {
        let time = TimeSection {
            dt,
            steps,
            end_time: end,
            ..TimeSection::default()
        };
        let output = OutputSection {
            every,
            interval,
            ..OutputSection::default()
        };
        Schedule::new(&time, &output, DtPolicy::Adaptive, None)
    }

    /// Run a schedule with a stable step that varies from step to step; (times, outputs).
    fn run(s: &Schedule) -> (Vec<f64>, Vec<f64>) {
        let (mut c, mut times, mut outputs) = (Clock::default(), vec![], vec![]);
        while !s.done(&c) {
            let dt = s.dt(&c, || Ok(0.013 + 0.004 * ((c.step % 3) as f64))).unwrap();
            let next = s.advance(&c, dt);
            if s.is_output(&c, &next) {
                outputs.push(next.time);
            }
            c = next;
            times.push(c.time);
        }
        (times, outputs)
    }

    #[test]
    fn adaptive_steps_land_exactly_on_output_and_end_times() {
        let (times, outputs) = run(&schedule(None, None, Some(0.35), 0, 0.1));
        assert_eq!(*times.last().unwrap(), 0.35);
        assert_eq!(outputs.len(), 4, "{outputs:?}");
        for (o, want) in outputs.iter().zip([0.1, 0.2, 0.30000000000000004, 0.35]) {
            assert!((o - want).abs() < 1e-15, "{outputs:?}");
        }
        assert!(times.windows(2).all(|w| w[1] > w[0]));
    }

    #[test]
    fn constant_steps_land_on_the_end_time_without_drift() {
        let time = TimeSection {
            end_time: Some(0.3),
            ..TimeSection::default()
        };
        let s = Schedule::new(&time, &OutputSection::default(), DtPolicy::Constant, Some(0.07));
        assert_eq!(s.steps, Some(5));
        let mut c = Clock::default();
        for k in 1..=5 {
            c = s.advance(&c, s.dt.unwrap());
            assert_eq!(c.step, k);
        }
        assert_eq!(c.time, 0.3);
        assert!(s.done(&c));
    }

    #[test]
    fn a_step_count_stops_an_adaptive_run() {
        let (times, outputs) = run(&schedule(None, Some(7), None, 3, 0.0));
        assert_eq!(times.len(), 7);
        assert_eq!(outputs.len(), 3); // steps 3, 6 and the last
    }
}
