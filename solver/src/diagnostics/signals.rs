//! Time signals of a run (a force coefficient, a probe's value, sampled every step): their
//! mean and extremes over a window, the frequency of an oscillation from its upward crossings of
//! the mean, and a value at a given time. What a shedding benchmark reports (Schäfer & Turek's
//! Cd max, Cl max, Strouhal number, Δp half a period after the lift maximum).

/// The smallest swing (max - min, relative to the largest |value|) taken for an oscillation:
/// a steady solution's force still wobbles in its last digits from step to step.
pub const ROUNDOFF_SWING: f64 = 1e-9;

/// A sampled signal: times ascending, one value each.
#[derive(Clone, Debug, Default)]
pub struct Signal<'a> {
    pub t: &'a [f64],
    pub x: &'a [f64],
}

/// Mean, minimum and maximum of a signal over a window (the mean weighted by the time each
/// sample stands for, the trapezoidal rule).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

/// The fewest batches `Signal::warmup` reads a transient from.
pub const MIN_WARMUP_BATCHES: usize = 8;

/// The end of a signal's start-up transient (`Signal::warmup`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Warmup {
    /// The time of the first sample kept (the window's first where nothing is dropped).
    pub end: f64,
    /// The mean from `end` on (trapezoidal in time, as `Signal::summary`).
    pub mean: f64,
    /// False where the rule drops the most it may, half the window: the signal still drifts
    /// through the first half, and the window is too short to tell its level. A noise-free
    /// periodic signal with any drift at all ends here too: compare `mean` with the window's.
    pub settled: bool,
}

impl<'a> Signal<'a> {
    pub fn new(t: &'a [f64], x: &'a [f64]) -> Self {
        assert_eq!(t.len(), x.len(), "a signal has one value per time");
        Signal { t, x }
    }

    /// The samples with t >= from.
    pub fn since(&self, from: f64) -> Signal<'a> {
        let k = self.t.partition_point(|&t| t < from);
        Signal {
            t: &self.t[k..],
            x: &self.x[k..],
        }
    }

    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Mean (trapezoidal in time), min and max; None for fewer than two samples.
    pub fn summary(&self) -> Option<Summary> {
        if self.len() < 2 {
            return None;
        }
        let mut area = 0.0;
        for k in 1..self.len() {
            area += 0.5 * (self.x[k] + self.x[k - 1]) * (self.t[k] - self.t[k - 1]);
        }
        let span = self.t[self.len() - 1] - self.t[0];
        Some(Summary {
            mean: if span > 0.0 { area / span } else { self.x[0] },
            min: self.x.iter().copied().fold(f64::INFINITY, f64::min),
            max: self.x.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// The times where the signal crosses `level` upwards, each located by linear interpolation
    /// between the two samples around it.
    pub fn upward_crossings(&self, level: f64) -> Vec<f64> {
        (1..self.len())
            .filter(|&k| self.x[k - 1] < level && self.x[k] >= level)
            .map(|k| {
                let (x0, x1) = (self.x[k - 1] - level, self.x[k] - level);
                self.t[k - 1] + (self.t[k] - self.t[k - 1]) * (-x0 / (x1 - x0))
            })
            .collect()
    }

    /// The oscillation's frequency from its upward crossings of its mean: (whole periods
    /// between the first and the last crossing) / (the time between them). None with fewer
    /// than two crossings, and for a steady signal: one whose swing is within
    /// `ROUNDOFF_SWING` of its magnitude crosses its mean at every wobble of the rounding (a
    /// steady DFG 3D-2Z lift, constant to 1e-12, read as St 6.1 over 105 "periods").
    pub fn frequency(&self) -> Option<(f64, usize)> {
        let c = self.oscillation_crossings()?;
        (c.len() >= 2).then(|| ((c.len() - 1) as f64 / (c[c.len() - 1] - c[0]), c.len() - 1))
    }

    /// The upward crossings of the mean of a signal that oscillates, read on the signal without
    /// its two-step wobble (`without_two_step_wobble`); None for fewer than two samples or a
    /// steady signal (its swing within `ROUNDOFF_SWING` of its magnitude).
    fn oscillation_crossings(&self) -> Option<Vec<f64>> {
        let Summary { min, max, .. } = self.summary()?;
        if max - min <= ROUNDOFF_SWING * max.abs().max(min.abs()) {
            return None;
        }
        let x = self.without_two_step_wobble();
        let smooth = Signal::new(self.t, &x);
        Some(smooth.upward_crossings(smooth.summary()?.mean))
    }

    /// The signal filtered by [1, 2, 1] / 4 over neighbouring samples, which removes an
    /// oscillation from step to step (the sampling's Nyquist frequency) and leaves slower ones
    /// nearly as they are (a shedding period of 250 steps loses 0.02 % of its amplitude, in
    /// phase). The lift of the 4.4 M-tet Re 3900 span carried such a 2-step wobble (rms 0.023,
    /// the projection's two-step pressure mode: `cases::ns::step`), which crossed the mean 256
    /// times in 24 shedding periods (St 2.2 instead of 0.21). The first and last samples stay
    /// as they are (no crossing at the window's edges is lost; two samples come back
    /// unchanged).
    fn without_two_step_wobble(&self) -> Vec<f64> {
        let n = self.len();
        let inner = self.x.windows(3).map(|w| 0.25 * w[0] + 0.5 * w[1] + 0.25 * w[2]);
        std::iter::once(self.x[0])
            .chain(inner)
            .chain(std::iter::once(self.x[n - 1]))
            .collect()
    }

    /// The root mean square of the signal's step-to-step oscillation: of the second difference
    /// (x[k-1] - 2 x[k] + x[k+1]) / 4 over the interior samples, which is the amplitude of an
    /// oscillation at the sampling's Nyquist frequency and nearly nothing of a slow one (a
    /// sine of 250 samples a period gives 1.6e-4 of its amplitude). A time scheme's two-step
    /// mode shows here before anywhere else. None for fewer than three samples.
    pub fn two_step_rms(&self) -> Option<f64> {
        (self.len() >= 3).then(|| {
            let sum: f64 = self
                .x
                .windows(3)
                .map(|w| (0.25 * (w[0] - 2.0 * w[1] + w[2])).powi(2))
                .sum();
            (sum / (self.len() - 2) as f64).sqrt()
        })
    }

    /// The standard error of the window's mean by batch means: the window cut into `batches`
    /// spans of equal time, the spread (sample standard deviation) of their means over
    /// sqrt(batches). Neighbouring batches count as independent, which holds when a batch spans
    /// several correlation times of the signal (a few shedding periods). None for fewer than
    /// two batches or samples.
    pub fn mean_standard_error(&self, batches: usize) -> Option<f64> {
        if batches < 2 || self.len() < 2 {
            return None;
        }
        let width = (self.t[self.len() - 1] - self.t[0]) / batches as f64;
        Some(standard_deviation(&self.batch_means(width, batches)) / (batches as f64).sqrt())
    }

    /// The means of `batches` consecutive spans of `width` time from the first sample on (at
    /// least two samples, or the first one, each).
    fn batch_means(&self, width: f64, batches: usize) -> Vec<f64> {
        let t0 = self.t[0];
        (0..batches)
            .map(|b| {
                let (a, z) = (t0 + width * b as f64, t0 + width * (b + 1) as f64);
                let lo = self.t.partition_point(|&t| t < a);
                let hi = self.t.partition_point(|&t| t <= z).max(lo + 1).min(self.len());
                Signal::new(&self.t[lo..hi], &self.x[lo..hi])
                    .summary()
                    .map_or(self.x[lo], |s| s.mean)
            })
            .collect()
    }

    /// Where the signal's start-up transient ends, by the marginal standard error rule (MSER:
    /// White 1997, White, Cobb & Spratt 2000; the warm-up rule of steady-state simulation
    /// output). The window is cut into batches of `batch` time from its start (one shedding
    /// period, exactly, averages the oscillation out; the remainder at the end counts in the
    /// mean after but not in the rule) and the first d batches are dropped where d minimises
    /// the squared deviations of the remaining batch means over (n - d)^2, the truncation that
    /// leaves the most precise mean; d is searched up to half the batches. None for fewer than
    /// `MIN_WARMUP_BATCHES` batches.
    pub fn warmup(&self, batch: f64) -> Option<Warmup> {
        if self.len() < 2 || batch.is_nan() || batch <= 0.0 {
            return None;
        }
        let span = self.t[self.len() - 1] - self.t[0];
        let n = (span / batch).floor() as usize;
        if n < MIN_WARMUP_BATCHES {
            return None;
        }
        let z = self.batch_means(batch, n);
        // Suffix sums of the batch means (about their overall mean, against cancellation) and
        // of their squares: each truncation's statistic in O(1), so a signal of many short
        // batches costs O(n), not O(n^2).
        let centre = z.iter().sum::<f64>() / n as f64;
        let (mut s1, mut s2) = (vec![0.0; n + 1], vec![0.0; n + 1]);
        for i in (0..n).rev() {
            let y = z[i] - centre;
            (s1[i], s2[i]) = (s1[i + 1] + y, s2[i + 1] + y * y);
        }
        let statistic = |d: usize| {
            let m = (n - d) as f64;
            (s2[d] - s1[d] * s1[d] / m) / (m * m)
        };
        // The first of equal minima: the least truncation.
        let d = (0..=n / 2)
            .min_by(|&a, &b| statistic(a).total_cmp(&statistic(b)))
            .unwrap_or(0);
        let kept = self.since(self.t[0] + batch * d as f64);
        Some(Warmup {
            end: kept.t[0],
            mean: kept.summary()?.mean,
            settled: d < n / 2,
        })
    }

    /// The oscillation's mean period between upward crossings of its mean and that mean's
    /// standard error (the periods' spread over the square root of their count); None with
    /// fewer than three crossings or for a steady signal (as `frequency`).
    pub fn period_and_standard_error(&self) -> Option<(f64, f64)> {
        let c = self.oscillation_crossings()?;
        let periods: Vec<f64> = c.windows(2).map(|w| w[1] - w[0]).collect();
        (periods.len() >= 2).then(|| {
            let mean = (c[c.len() - 1] - c[0]) / periods.len() as f64;
            (mean, standard_deviation(&periods) / (periods.len() as f64).sqrt())
        })
    }

    /// The time of the largest sample (the last one if several are equal).
    pub fn time_of_max(&self) -> Option<f64> {
        let k = (0..self.len()).max_by(|&a, &b| self.x[a].total_cmp(&self.x[b]).then(a.cmp(&b)))?;
        Some(self.t[k])
    }

    /// The value at time `t` by linear interpolation between samples; None outside the
    /// signal's span.
    pub fn at(&self, t: f64) -> Option<f64> {
        if self.is_empty() || t < self.t[0] || t > self.t[self.len() - 1] {
            return None;
        }
        let k = self.t.partition_point(|&s| s < t);
        if self.t[k] == t || k == 0 {
            return Some(self.x[k]);
        }
        let w = (t - self.t[k - 1]) / (self.t[k] - self.t[k - 1]);
        Some(self.x[k - 1] + w * (self.x[k] - self.x[k - 1]))
    }
}

/// The sample standard deviation (n - 1 in the denominator) of at least two values.
fn standard_deviation(v: &[f64]) -> f64 {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sampled sine of frequency f around a mean, with a transient before t = 1.
    fn sine(f: f64, mean: f64, amp: f64, dt: f64, end: f64) -> (Vec<f64>, Vec<f64>) {
        let t: Vec<f64> = (0..=(end / dt) as usize).map(|k| k as f64 * dt).collect();
        let x = t
            .iter()
            .map(|&t| {
                if t < 1.0 {
                    5.0
                } else {
                    mean + amp * (2.0 * std::f64::consts::PI * f * t).sin()
                }
            })
            .collect();
        (t, x)
    }

    #[test]
    fn a_sampled_sine_gives_its_frequency_mean_extremes_and_values() {
        let (t, x) = sine(3.0, 1.5, 0.25, 1e-3, 11.0);
        let s = Signal::new(&t, &x).since(1.0);
        let sum = s.summary().unwrap();
        assert!((sum.mean - 1.5).abs() < 1e-4, "{sum:?}");
        assert!(
            (sum.max - 1.75).abs() < 1e-5 && (sum.min - 1.25).abs() < 1e-5,
            "{sum:?}"
        );
        let (f, periods) = s.frequency().unwrap();
        assert!((f - 3.0).abs() < 1e-4, "{f}");
        assert_eq!(periods, 29);
        // The maximum of sin(6 pi t) nearest the end: t = (k + 1/4) / 3.
        let tm = s.time_of_max().unwrap();
        assert!(((tm * 3.0 - 0.25).round() - (tm * 3.0 - 0.25)).abs() < 3e-3, "{tm}");
        assert!((s.at(2.0 + 1.0 / 12.0).unwrap() - 1.75).abs() < 1e-5);
        assert!(s.at(0.5).is_none() && s.at(12.0).is_none());
        // The transient before t = 1 is out of the window; over the whole run it would spoil the mean.
        assert!((Signal::new(&t, &x).summary().unwrap().mean - 1.5).abs() > 0.1);
    }

    /// x plus a step-to-step wobble of amplitude a: +a, -a, +a, ...
    fn with_wobble(x: &[f64], a: f64) -> Vec<f64> {
        x.iter()
            .enumerate()
            .map(|(k, v)| v + a * if k % 2 == 0 { 1.0 } else { -1.0 })
            .collect()
    }

    /// A step-to-step wobble of a fifth of the amplitude (a ringing pressure's) on a sine
    /// sampled 250 times a period: its crossings of the mean are the sine's.
    #[test]
    fn a_two_step_wobble_does_not_add_crossings() {
        let (t, clean) = sine(0.2, 1.0, 0.3, 0.02, 160.0);
        let x = with_wobble(&clean, 0.06);
        let s = Signal::new(&t, &x).since(40.3);
        assert!(s.upward_crossings(s.summary().unwrap().mean).len() > 100);
        let (f, periods) = s.frequency().unwrap();
        assert_eq!(
            Some((f, periods)).map(|(_, n)| n),
            Signal::new(&t, &clean).since(40.3).frequency().map(|(_, n)| n)
        );
        assert!((f - 0.2).abs() < 1e-4 && periods == 23, "{f} over {periods} periods");
        let (period, error) = s.period_and_standard_error().unwrap();
        assert!((period - 5.0).abs() < 2e-3 && error < 1e-3, "{period} +- {error}");
    }

    #[test]
    fn the_two_step_rms_is_the_wobbles_amplitude_and_ignores_the_shedding() {
        let (t, clean) = sine(0.2, 1.0, 0.3, 0.02, 160.0);
        let wobbly = with_wobble(&clean, 0.06);
        let rms = |x: &[f64]| Signal::new(&t, x).since(40.3).two_step_rms().unwrap();
        // A period of 250 samples: (1 - cos(2 pi / 250)) / 2 / sqrt(2) of the amplitude (to
        // 1 %: the window holds 23.94 periods, not a whole number).
        let slow = 0.3 * (1.0 - (2.0 * std::f64::consts::PI / 250.0).cos()) / 2.0 / 2f64.sqrt();
        assert!(
            (rms(&clean) - slow).abs() < 1e-2 * slow,
            "{} against {slow}",
            rms(&clean)
        );
        assert!((rms(&wobbly) - 0.06).abs() < 1e-4, "{}", rms(&wobbly));
        assert_eq!(Signal::new(&t[..2], &clean[..2]).two_step_rms(), None);
    }

    #[test]
    fn a_constant_has_no_frequency() {
        let t = [0.0, 1.0, 2.0];
        let x = [1.0; 3];
        assert_eq!(Signal::new(&t, &x).frequency(), None);
        assert_eq!(Signal::new(&t[..1], &x[..1]).summary(), None);
    }

    #[test]
    fn the_standard_errors_follow_the_spread_of_batches_and_periods() {
        // A sine whose period alternates between 0.9 and 1.1 (the phase advances by 2 pi over
        // each): mean period 1 with a spread of 0.1, so the standard error of the mean period
        // over n periods is 0.1 sqrt(n / (n - 1)) / sqrt(n).
        let dt = 1e-4;
        let t: Vec<f64> = (0..=399_500).map(|k| k as f64 * dt).collect();
        let phase = |t: f64| {
            let (whole, frac) = ((t / 2.0).floor(), t / 2.0 - (t / 2.0).floor());
            // 2 time units hold one period of 0.9 then one of 1.1.
            let p = if frac * 2.0 < 0.9 {
                frac * 2.0 / 0.9
            } else {
                1.0 + (frac * 2.0 - 0.9) / 1.1
            };
            2.0 * std::f64::consts::PI * (2.0 * whole + p)
        };
        let x: Vec<f64> = t.iter().map(|&t| phase(t).sin()).collect();
        // From t = 0.5: no crossing at the start.
        let s = Signal::new(&t, &x).since(0.5);
        let (period, se) = s.period_and_standard_error().unwrap();
        // Upward crossings at 0.9, 2, 2.9, ..., 38.9: 38 periods, alternately 1.1 and 0.9.
        let n = 38.0_f64;
        assert!((period - 1.0).abs() < 1e-3, "{period}");
        let expected = 0.1 * (n / (n - 1.0)).sqrt() / n.sqrt();
        assert!((se - expected).abs() < 0.05 * expected, "{se} against {expected}");
        // Batch means of a constant plus a steady sine over whole periods: no spread.
        let (t2, x2) = sine(2.0, 3.0, 0.5, 1e-3, 21.0);
        let steady = Signal::new(&t2, &x2).since(1.0);
        assert!(steady.mean_standard_error(10).unwrap() < 1e-3);
        // Batches alternating between two levels 0 and 1: means 0, 1, 0, 1 ...: sd ~0.527 for
        // 10 of them, over sqrt(10).
        let t3: Vec<f64> = (0..=10_000).map(|k| k as f64 * 1e-3).collect();
        let x3: Vec<f64> = t3.iter().map(|&t| ((t.floor() as i64) % 2) as f64).collect();
        let se3 = Signal::new(&t3, &x3).mean_standard_error(10).unwrap();
        assert!((se3 - 0.527 / 10f64.sqrt()).abs() < 0.01, "{se3}");
        assert_eq!(Signal::new(&t3, &x3).mean_standard_error(1), None);
    }

    #[test]
    fn rounding_noise_on_a_steady_value_is_not_an_oscillation() {
        // A steady lift of -0.0154 wobbling in its 13th digit every step: no frequency; the
        // same wobble scaled up to 1e-6 of the value is a (tiny) oscillation again.
        let t: Vec<f64> = (0..2000).map(|k| k as f64 * 0.002).collect();
        let wobble = |a: f64| -> Vec<f64> {
            t.iter()
                .map(|&t| -0.0154 * (1.0 + a * (2.0 * std::f64::consts::PI * 3.0 * t).sin()))
                .collect()
        };
        let steady = wobble(5e-12);
        assert_eq!(Signal::new(&t, &steady).frequency(), None);
        let small = wobble(1e-6);
        let (f, periods) = Signal::new(&t, &small).frequency().unwrap();
        assert!((f - 3.0).abs() < 1e-3 && periods == 11, "{f} {periods}");
    }

    /// A shedding-like drag: mean 1, a sine of period 5 sampled every 0.02, a level that
    /// wanders from period to period by up to `wander` (a fixed pseudo-random sequence), and
    /// a start-up excess `excess` e^(-t/5) on top.
    fn drag_like(excess: f64, wander: f64, drift: f64) -> (Vec<f64>, Vec<f64>) {
        let t: Vec<f64> = (0..=10_000).map(|k| k as f64 * 0.02).collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let levels: Vec<f64> = (0..41)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                wander * ((state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
            })
            .collect();
        let x = t
            .iter()
            .map(|&t| {
                1.0 + excess * (-t / 5.0).exp()
                    + drift * t
                    + 0.2 * (2.0 * std::f64::consts::PI * 0.2 * t).sin()
                    + levels[(t / 5.0) as usize]
            })
            .collect();
        (t, x)
    }

    #[test]
    fn the_warmup_rule_drops_the_start_up_transient_and_little_else() {
        // The excess falls under the wander (0.05) by t = 5 ln 10 = 11.5.
        let (t, x) = drag_like(0.5, 0.05, 0.0);
        let s = Signal::new(&t, &x);
        let w = s.warmup(5.0).unwrap();
        assert!(w.settled && (5.0..=30.0).contains(&w.end), "{w:?}");
        assert!((w.mean - 1.0).abs() < 0.02, "{w:?}");
        // The whole window's mean carries the transient's area, 0.5 * 5 / 200.
        assert!(s.summary().unwrap().mean - w.mean > 0.008, "{w:?}");
        // Without a transient the rule keeps nearly everything.
        let (t, x) = drag_like(0.0, 0.05, 0.0);
        let w = Signal::new(&t, &x).warmup(5.0).unwrap();
        assert!(w.settled && w.end <= 20.0, "{w:?}");
        // A drift that never settles takes the rule to its limit, half the window.
        let (t, x) = drag_like(0.0, 0.05, 0.002);
        let w = Signal::new(&t, &x).warmup(5.0).unwrap();
        assert!(!w.settled && (w.end - 100.0).abs() < 0.05, "{w:?}");
        // Too few batches to tell; no batch length.
        assert_eq!(Signal::new(&t, &x).warmup(30.0), None);
        assert_eq!(Signal::new(&t, &x).warmup(0.0), None);
    }
}
