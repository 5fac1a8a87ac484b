//! A body's drag and lift signals over a statistics window (summary.json `signals`): mean and
//! extremes of Cd, Cl and Δp, the shedding frequency and St with its standard error, the mean
//! drag's standard error, the two-step rms, and where the drag's start-up transient ends. The
//! run computes them from its history, `solver signals` from a forces.csv read back; both
//! through `ForceSeries::signals`, so the two agree to the last digit.
//!
//! Needs from a family: the time series of its force coefficients, and of a pressure
//! difference where it has probes (`ForceSeries`).

use super::signals::{Signal, Summary, Warmup};
use serde::Serialize;

/// Samples of a run's force coefficients: times ascending, one value of each per time (Δp NaN
/// where the run has no probes).
pub struct ForceSeries<'a> {
    pub t: &'a [f64],
    pub cd: &'a [f64],
    pub cl: &'a [f64],
    pub dp: &'a [f64],
}

/// A transient run's signal statistics over its window (summary.json `signals`).
#[derive(Clone, Debug, Serialize)]
pub struct Signals {
    /// The window [from, to] the statistics cover.
    pub window: [f64; 2],
    pub cd: Option<Summary>,
    pub cl: Option<Summary>,
    pub dp: Option<Summary>,
    /// The lift's frequency (whole periods between its first and last upward crossings of its
    /// mean, over the time between them), the periods it rests on, and St = f D / U.
    pub frequency: Option<f64>,
    pub periods: usize,
    pub st: Option<f64>,
    /// St's standard error from the spread of the periods between the lift's crossings.
    pub st_standard_error: Option<f64>,
    /// The mean Cd's standard error by batch means (batches of about two shedding periods, at
    /// most 20; 8 without a frequency).
    pub cd_mean_standard_error: Option<f64>,
    /// Δp at t_0 + 1 / (2 f), t_0 the lift's last maximum in the window (where it falls inside).
    pub dp_half_period_after_cl_max: Option<f64>,
    /// The root mean square of cd's and cl's oscillation from step to step
    /// (`Signal::two_step_rms`): near zero in a healthy run; of the order of the signal's own
    /// swing where the time scheme rings.
    pub cd_two_step_rms: Option<f64>,
    pub cl_two_step_rms: Option<f64>,
    /// Where the drag's start-up transient ends inside the window, and its mean after
    /// (`Signal::warmup`, batches of one shedding period, or a twentieth of the window without
    /// one): the window's start where the statistics began late enough.
    pub cd_warmup: Option<Warmup>,
}

impl Signals {
    /// A warning where the drag's start-up transient takes more than a quarter of the window,
    /// or more than the warm-up rule may drop, and moves the window's mean Cd materially: by
    /// more than the mean's standard error and more than 0.1 % (a periodic drag's standard
    /// error is near zero, and its last drift below any reference figure's precision). The
    /// rule also trims a slow swing of a turbulent drag that is no transient: the 1.07 M-tet
    /// Re 3900 run read from t = 60 is trimmed to t = 104, which moves its mean by 0.006
    /// against a standard error of 0.007; no warning there.
    pub fn warmup_warning(&self) -> Option<String> {
        let w = self.cd_warmup?;
        let [a, b] = self.window;
        let mean = self.cd?.mean;
        let shift = (mean - w.mean).abs();
        if shift <= self.cd_mean_standard_error.unwrap_or(0.0).max(1e-3 * mean.abs()) {
            return None;
        }
        if !w.settled {
            return Some(format!(
                "the drag still drifts through the first half of the statistics window [{a}, {b}] (the MSER warm-up rule): its mean Cd {mean:.4} is not yet a time mean; run longer (summary.json signals.cd_warmup)"
            ));
        }
        (w.end - a > 0.25 * (b - a)).then(|| {
            format!(
                "the drag's start-up transient runs to t = {:.4} inside the statistics window [{a}, {b}] (the MSER warm-up rule): mean Cd {mean:.4} over the window, {:.4} after t = {:.4}; start navier-stokes.statistics later (summary.json signals.cd_warmup)",
                w.end, w.mean, w.end
            )
        })
    }
}

impl ForceSeries<'_> {
    /// The statistics over t >= from (None with fewer than two samples there); St with the
    /// reference length and speed.
    pub fn signals(&self, from: f64, length_and_speed: Option<(f64, f64)>) -> Option<Signals> {
        let (cd, cl, dp) = (
            Signal::new(self.t, self.cd).since(from),
            Signal::new(self.t, self.cl).since(from),
            Signal::new(self.t, self.dp).since(from),
        );
        if cl.len() < 2 {
            return None;
        }
        let finite = |s: &Signal| s.x.iter().all(|v| v.is_finite());
        let summary = |s: &Signal| if finite(s) { s.summary() } else { None };
        let lift = finite(&cl).then(|| cl.frequency()).flatten();
        let half_after_max = lift.and_then(|(f, _)| {
            let t0 = cl.time_of_max()?;
            finite(&dp).then(|| dp.at(t0 + 0.5 / f)).flatten()
        });
        let periods = lift.map_or(0, |l| l.1);
        let batches = if periods >= 4 { (periods / 2).min(20) } else { 8 };
        let warmup_batch = lift.map_or((cl.t[cl.len() - 1] - cl.t[0]) / 20.0, |(f, _)| 1.0 / f);
        let st_error = finite(&cl)
            .then(|| cl.period_and_standard_error())
            .flatten()
            .zip(length_and_speed)
            .map(|((period, se), (d, u))| se / period * d / (period * u));
        Some(Signals {
            window: [cl.t[0], cl.t[cl.len() - 1]],
            st_standard_error: st_error,
            cd_mean_standard_error: finite(&cd).then(|| cd.mean_standard_error(batches)).flatten(),
            cd: summary(&cd),
            cl: summary(&cl),
            dp: summary(&dp),
            frequency: lift.map(|l| l.0),
            periods,
            st: lift.zip(length_and_speed).map(|((f, _), (d, u))| f * d / u),
            dp_half_period_after_cl_max: half_after_max,
            cd_two_step_rms: finite(&cd).then(|| cd.two_step_rms()).flatten(),
            cl_two_step_rms: finite(&cl).then(|| cl.two_step_rms()).flatten(),
            cd_warmup: finite(&cd).then(|| cd.warmup(warmup_batch)).flatten(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A drag that sheds at St 0.2 around 1 with a slow start-up excess 0.5 e^(-t/20) (under
    /// the 0.02 wander from period to period by t = 20 ln 25 = 64) and the lift that goes
    /// with it, every 0.02 to t = 200; no Δp.
    fn slow_start() -> [Vec<f64>; 4] {
        let t: Vec<f64> = (0..=10_000).map(|k| k as f64 * 0.02).collect();
        let phase = |t: f64| 2.0 * std::f64::consts::PI * 0.2 * t;
        let cd = t
            .iter()
            .map(|&t| {
                let wander = 0.02 * ((t / 5.0).floor() * 2.399).sin();
                1.0 + 0.5 * (-t / 20.0).exp() + 0.05 * (2.0 * phase(t)).sin() + wander
            })
            .collect();
        let cl = t.iter().map(|&t| 0.3 * phase(t).sin()).collect();
        let dp = vec![f64::NAN; t.len()];
        [t, cd, cl, dp]
    }

    #[test]
    fn a_window_that_holds_the_start_up_transient_is_flagged() {
        let [t, cd, cl, dp] = slow_start();
        let s = ForceSeries {
            t: &t,
            cd: &cd,
            cl: &cl,
            dp: &dp,
        };
        let early = s.signals(0.0, Some((1.0, 1.0))).unwrap();
        let w = early.cd_warmup.unwrap();
        assert!(w.settled && (50.0..=100.0).contains(&w.end), "{w:?}");
        assert!(
            (w.mean - 1.0).abs() < 0.02 && early.cd.unwrap().mean > w.mean + 0.04,
            "{w:?}"
        );
        assert!(
            (early.st.unwrap() - 0.2).abs() < 1e-3 && early.dp.is_none(),
            "{early:?}"
        );
        let warning = early.warmup_warning().unwrap();
        assert!(warning.contains("start navier-stokes.statistics later"), "{warning}");
        // A window from t = 120 on holds no transient to speak of: no warning.
        let late = s.signals(120.0, Some((1.0, 1.0))).unwrap();
        assert!(late.cd_warmup.unwrap().end < 140.0 && late.warmup_warning().is_none());
        // Six periods are too few batches of one period each (8 needed).
        assert!(s.signals(170.0, Some((1.0, 1.0))).unwrap().cd_warmup.is_none());
    }

    /// A long trim warns only where it moves the mean by more than the mean's standard error.
    #[test]
    fn a_trim_within_the_standard_error_is_no_warning() {
        let drag = Summary {
            mean: 1.0,
            min: 0.9,
            max: 1.1,
        };
        let signals = |se: f64| Signals {
            window: [0.0, 100.0],
            cd: Some(drag),
            cl: None,
            dp: None,
            frequency: None,
            periods: 0,
            st: None,
            st_standard_error: None,
            cd_mean_standard_error: Some(se),
            dp_half_period_after_cl_max: None,
            cd_two_step_rms: None,
            cl_two_step_rms: None,
            cd_warmup: Some(Warmup {
                end: 45.0,
                mean: 0.995,
                settled: true,
            }),
        };
        assert_eq!(signals(0.01).warmup_warning(), None);
        assert!(signals(0.001).warmup_warning().unwrap().contains("runs to t = 45"));
    }
}
