//! The steady-state criteria as pure functions over a window of samples (one per second
//! unless `steadystate_sample` says otherwise), diskmeter's precision rule over every sample
//! so far, and the samples the monitor keeps per watched job.
//!
//! The arithmetic is fio's (`steadystate.c`, fio 3.33), in floating point where fio truncates
//! to integers:
//! * deviation (`iops`, `bw`): the largest |sample - mean| of the window; as a percentage,
//!   100 x that / mean. It holds when it is below the limit.
//! * slope (`iops_slope`, `bw_slope`): the least-squares slope of the samples against their
//!   index, i.e. per second since samples are one second apart; as a percentage,
//!   100 x slope / mean (percent of the mean per second). It holds when its absolute value
//!   is below the limit.
//!
//! Both comparisons are strict, so a limit of 0 never holds. A percentage of a zero mean is
//! undefined and never holds (fio computes NaN there, with the same outcome).

use diskmeter_stats::batch_means;
use diskmeter_workload::{SteadyCriterion, SteadyLimit, SteadyState, STEADY_SAMPLE_NS};

/// The verdict on one full window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    /// Whether the criterion holds: the job is in steady state.
    pub holds: bool,
    /// The figure compared with the limit, in the limit's unit (percent for a percentage
    /// limit); `None` when undefined (a percentage of a zero mean). A slope keeps its sign,
    /// as fio prints it, and is compared by its size. For `iops_bw`, the larger of the IOPS
    /// and bandwidth figures.
    pub value: Option<f64>,
    /// The largest distance of a judged sample from the window's mean, in the samples' unit
    /// (IOPS, bytes/s); 0 for the slope criteria (as fio reports it).
    pub max_deviation: f64,
    /// The least-squares slope of the judged samples per second; 0 for the deviation
    /// criteria (as fio reports it).
    pub slope: f64,
    /// With a precision rule: the half-width of the 95 % interval of the mean of every
    /// sample so far, percent of the mean (the larger of IOPS and bandwidth when both are
    /// judged); `None` without the rule or while undefined (too few samples, a zero mean).
    pub precision: Option<f64>,
}

/// The arithmetic mean; 0 for no samples.
pub fn mean(samples: &[f64]) -> f64 {
    if samples.is_empty() {
        0.0
    } else {
        samples.iter().sum::<f64>() / samples.len() as f64
    }
}

/// The largest |sample - mean|.
pub fn max_deviation(samples: &[f64]) -> f64 {
    let mean = mean(samples);
    samples
        .iter()
        .map(|sample| (sample - mean).abs())
        .fold(0.0, f64::max)
}

/// The least-squares slope of `samples` against their index 0, 1, ... (per sample); NaN
/// with fewer than two samples, where no line is defined.
pub fn slope(samples: &[f64]) -> f64 {
    let n = samples.len() as f64;
    let mean_x = (n - 1.0) / 2.0;
    let mean_y = mean(samples);
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in samples.iter().enumerate() {
        let dx = i as f64 - mean_x;
        sxy += dx * (y - mean_y);
        sxx += dx * dx;
    }
    sxy / sxx
}

/// Judges one series (IOPS or bandwidth) by the deviation or the slope test; samples are
/// `sample_ns` apart (for the slope, which is per second).
pub fn judge_series(
    samples: &[f64],
    use_slope: bool,
    limit: SteadyLimit,
    sample_ns: u64,
) -> Judgement {
    let (raw, max_deviation, slope) = if use_slope {
        let s = slope(samples) * STEADY_SAMPLE_NS as f64 / sample_ns as f64;
        (s, 0.0, s)
    } else {
        let d = max_deviation(samples);
        (d, d, 0.0)
    };
    let value = match limit {
        SteadyLimit::Absolute(_) => Some(raw),
        SteadyLimit::Percent(_) => {
            let mean = mean(samples);
            (mean != 0.0).then(|| 100.0 * raw / mean)
        }
    };
    // NaN (a slope of one sample) compares false: it never holds.
    let holds = value.is_some_and(|v| v.abs() < limit.value());
    Judgement {
        holds,
        value: value.filter(|v| v.is_finite()),
        max_deviation,
        slope,
        precision: None,
    }
}

/// Judges a full window of IOPS and bandwidth samples by the job's criterion (the window
/// alone; [`judge`] adds the precision rule).
pub fn judge_window(ss: &SteadyState, iops: &[f64], bw_bytes_per_sec: &[f64]) -> Judgement {
    let use_slope = ss.criterion.is_slope();
    let series =
        |samples: &[f64], use_slope: bool| judge_series(samples, use_slope, ss.limit, ss.sample_ns);
    match ss.criterion {
        SteadyCriterion::Iops | SteadyCriterion::IopsSlope => series(iops, use_slope),
        SteadyCriterion::Bw | SteadyCriterion::BwSlope => series(bw_bytes_per_sec, use_slope),
        SteadyCriterion::IopsBw => {
            let by_iops = series(iops, false);
            let by_bw = series(bw_bytes_per_sec, false);
            Judgement {
                holds: by_iops.holds && by_bw.holds,
                value: by_iops.value.zip(by_bw.value).map(|(a, b)| a.max(b)),
                max_deviation: by_iops.max_deviation,
                slope: 0.0,
                precision: None,
            }
        }
    }
}

/// The fewest batches the precision rule trusts. Two batches (4-8 samples) give an interval
/// from a single difference: its t factor (12.7) allows for that on average, but a monitor
/// that asks every sample and stops at the first yes is fooled by a short, flat burst (our
/// test VM's disk reads 25 % faster for the first 4-5 s of a run, and a 5-sample step stopped
/// there). Three batches need 9 samples.
pub const MIN_PRECISION_BATCHES: usize = 3;

/// The half-width of the 95 % interval of the mean of `samples`, percent of the mean;
/// `None` while undefined or untrusted (fewer than [`MIN_PRECISION_BATCHES`] batches, i.e.
/// 9 samples; a zero mean).
pub fn precision_percent(samples: &[f64]) -> Option<f64> {
    let estimate = batch_means(samples);
    let relative = estimate.relative_half_width();
    (estimate.batches >= MIN_PRECISION_BATCHES && relative.is_finite()).then_some(100.0 * relative)
}

/// Judges the job's window (`window_*`, its last samples) and, when the job asks for a
/// precision, every sample so far (`all_*`, oldest first): both must hold.
pub fn judge(
    ss: &SteadyState,
    window_iops: &[f64],
    window_bw: &[f64],
    all_iops: &[f64],
    all_bw: &[f64],
) -> Judgement {
    let mut judgement = judge_window(ss, window_iops, window_bw);
    let Some(limit) = ss.precision_percent else {
        return judgement;
    };
    let mut judged = Vec::with_capacity(2);
    if ss.criterion.judges_iops() {
        judged.push(precision_percent(all_iops));
    }
    if ss.criterion.judges_bw() {
        judged.push(precision_percent(all_bw));
    }
    // Undefined anywhere is undefined overall: it never holds.
    let worst = judged
        .into_iter()
        .try_fold(0.0f64, |worst, p| p.map(|p| worst.max(p)));
    judgement.precision = worst;
    judgement.holds &= worst.is_some_and(|p| p <= limit);
    judgement
}

/// Every sample of one watched job, and the window the criterion judges (its last
/// `window` samples).
#[derive(Debug, Clone)]
pub struct SteadyWindow {
    window: usize,
    iops: Vec<f64>,
    bw_bytes_per_sec: Vec<f64>,
}

impl SteadyWindow {
    /// No samples yet; the window is `window` samples (`ss_dur` over `ss_sample`).
    pub fn new(window: usize) -> Self {
        SteadyWindow {
            window,
            iops: Vec::new(),
            bw_bytes_per_sec: Vec::new(),
        }
    }

    /// Adds one sample's IOPS and bandwidth.
    pub fn push(&mut self, iops: f64, bw_bytes_per_sec: f64) {
        self.iops.push(iops);
        self.bw_bytes_per_sec.push(bw_bytes_per_sec);
    }

    /// The verdict on the window (and, with a precision rule, on every sample), once the
    /// window is full (fio judges nothing before its buffer is full).
    pub fn judge(&self, ss: &SteadyState) -> Option<Judgement> {
        if self.window == 0 || self.iops.len() < self.window {
            return None;
        }
        Some(judge(
            ss,
            self.last(&self.iops),
            self.last(&self.bw_bytes_per_sec),
            &self.iops,
            &self.bw_bytes_per_sec,
        ))
    }

    fn last<'a>(&self, samples: &'a [f64]) -> &'a [f64] {
        &samples[samples.len().saturating_sub(self.window)..]
    }

    /// The window's IOPS samples, oldest first.
    pub fn iops(&self) -> Vec<f64> {
        self.last(&self.iops).to_vec()
    }

    /// The window's bandwidth samples, bytes per second, oldest first.
    pub fn bw_bytes_per_sec(&self) -> Vec<f64> {
        self.last(&self.bw_bytes_per_sec).to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(criterion: SteadyCriterion, limit: SteadyLimit, seconds: u64) -> SteadyState {
        SteadyState {
            criterion,
            limit,
            duration_ns: seconds * 1_000_000_000,
            ..SteadyState::default()
        }
    }

    #[test]
    fn a_flat_series_is_steady_by_every_criterion() {
        let flat = [5000.0; 5];
        let bw = [20_480_000.0; 5];
        for criterion in diskmeter_workload::steady::STEADY_CRITERIA {
            let j = judge_window(&ss(criterion, SteadyLimit::Percent(2.0), 5), &flat, &bw);
            assert!(j.holds, "{criterion:?}");
            assert_eq!(j.value, Some(0.0));
        }
    }

    #[test]
    fn a_ramp_is_not_steady() {
        // +10 % of the mean per second.
        let ramp = [800.0, 900.0, 1000.0, 1100.0, 1200.0];
        let iops = ss(SteadyCriterion::Iops, SteadyLimit::Percent(2.0), 5);
        let j = judge_window(&iops, &ramp, &ramp);
        assert!(!j.holds);
        assert_eq!(j.max_deviation, 200.0);
        assert_eq!(j.value, Some(20.0));
        let slope = ss(SteadyCriterion::IopsSlope, SteadyLimit::Percent(2.0), 5);
        let j = judge_window(&slope, &ramp, &ramp);
        assert!(!j.holds);
        assert!((j.slope - 100.0).abs() < 1e-9);
        assert!((j.value.unwrap() - 10.0).abs() < 1e-9);
    }

    #[test]
    fn the_slope_is_percent_of_the_mean_per_second_as_fio_defines_it() {
        // A slow drift of 0.05 %/s passes a 0.1 % slope limit but not 0.01 %.
        let drift: Vec<f64> = (0..10).map(|i| 10_000.0 + 5.0 * f64::from(i)).collect();
        let limit = |percent| {
            ss(
                SteadyCriterion::IopsSlope,
                SteadyLimit::Percent(percent),
                10,
            )
        };
        let j = judge_window(&limit(0.1), &drift, &drift);
        let mean = 10_022.5;
        assert!((j.value.unwrap() - 100.0 * 5.0 / mean).abs() < 1e-12);
        assert!(j.holds);
        assert!(!judge_window(&limit(0.01), &drift, &drift).holds);
        // A falling series is judged by the size of its slope.
        let falling: Vec<f64> = drift.iter().rev().copied().collect();
        let j = judge_window(&limit(0.1), &falling, &falling);
        assert!(j.slope < 0.0 && j.value.unwrap() < 0.0 && j.holds);
    }

    #[test]
    fn absolute_limits_are_in_the_samples_unit() {
        let samples = [5000.0, 5003.0, 4998.0];
        let mean = (5000.0 + 5003.0 + 4998.0) / 3.0;
        let judge = |samples: &[f64], limit| judge_series(samples, false, limit, STEADY_SAMPLE_NS);
        let j = judge(&samples, SteadyLimit::Absolute(3.0));
        assert!((j.max_deviation - (5003.0 - mean)).abs() < 1e-9);
        assert!(j.holds);
        assert!(!judge(&samples, SteadyLimit::Absolute(2.0)).holds);
        // fio's comparison is strict: a limit of 0 never holds, not even for a flat series.
        assert!(!judge(&[1.0, 1.0], SteadyLimit::Absolute(0.0)).holds);
    }

    #[test]
    fn undefined_figures_never_hold() {
        let idle = judge_series(
            &[0.0, 0.0, 0.0],
            false,
            SteadyLimit::Percent(2.0),
            STEADY_SAMPLE_NS,
        );
        assert_eq!((idle.holds, idle.value), (false, None));
        assert!(slope(&[5.0]).is_nan());
        assert!(!judge_series(&[5.0], true, SteadyLimit::Absolute(1.0), STEADY_SAMPLE_NS).holds);
    }

    #[test]
    fn a_slope_of_shorter_samples_is_still_per_second() {
        // +5 IOPS per 250 ms sample is +20 IOPS per second.
        let rising: Vec<f64> = (0..8).map(|i| 1000.0 + 5.0 * f64::from(i)).collect();
        let j = judge_series(&rising, true, SteadyLimit::Absolute(1.0), 250_000_000);
        assert!((j.slope - 20.0).abs() < 1e-9, "{j:?}");
    }

    #[test]
    fn a_flat_window_in_a_lull_is_not_steady_until_the_mean_is_known() {
        // Ten seconds near 80k, then a flat 5 s lull near 69k: the window alone holds, the
        // mean of all fifteen seconds is not yet known to +-1.5 %.
        let mut settings = ss(SteadyCriterion::IopsBw, SteadyLimit::Percent(2.0), 5);
        let mut samples: Vec<f64> = (0..10)
            .map(|i| 80_000.0 + 500.0 * f64::from(i % 3))
            .collect();
        samples.extend([69_000.0, 69_300.0, 68_900.0, 69_100.0, 69_200.0]);
        let mut window = SteadyWindow::new(5);
        for s in &samples {
            window.push(*s, s * 4096.0);
        }
        assert!(window.judge(&settings).unwrap().holds, "the window alone");
        settings.precision_percent = Some(1.5);
        let j = window.judge(&settings).unwrap();
        assert!(!j.holds, "{j:?}");
        assert!(j.precision.unwrap() > 1.5, "{j:?}");
        // A device that stays flat: the mean is known after a few more samples.
        let mut flat = SteadyWindow::new(5);
        let mut held_at = None;
        for i in 0..30 {
            let v = 5000.0 + f64::from(i % 2);
            flat.push(v, v * 4096.0);
            if held_at.is_none() && flat.judge(&settings).is_some_and(|j| j.holds) {
                held_at = Some(i + 1);
            }
        }
        assert_eq!(
            held_at,
            Some(9),
            "three batches of three samples at the earliest"
        );
    }

    #[test]
    fn precision_is_judged_on_what_the_criterion_judges() {
        // Steady IOPS, bandwidth all over the place: bw's interval is wide.
        let mut settings = ss(SteadyCriterion::Iops, SteadyLimit::Percent(5.0), 4);
        settings.precision_percent = Some(2.0);
        let iops = [1000.0; 16];
        let bw: Vec<f64> = (0..16).map(|i| if i < 8 { 1.0e6 } else { 3.0e6 }).collect();
        assert!(judge(&settings, &iops[..4], &bw[12..], &iops, &bw).holds);
        settings.criterion = SteadyCriterion::IopsBw;
        let j = judge(&settings, &iops[..4], &bw[12..], &iops, &bw);
        assert!(!j.holds && j.precision.unwrap() > 2.0, "{j:?}");
        // Fewer than 9 samples: no trusted interval, so it cannot hold.
        assert!(!judge(&settings, &iops[..4], &iops[..4], &iops[..8], &iops[..8]).holds);
        assert!(judge(&settings, &iops[..4], &iops[..4], &iops[..9], &iops[..9]).holds);
    }

    #[test]
    fn a_short_flat_burst_does_not_end_a_job() {
        // Five flat seconds 25 % fast (a disk's first seconds after a write), then the
        // device's real speed: two batches would call the burst's mean known.
        let mut settings = ss(SteadyCriterion::IopsBw, SteadyLimit::Percent(2.0), 5);
        settings.precision_percent = Some(1.5);
        let mut window = SteadyWindow::new(5);
        for v in [2500.0, 2501.0, 2499.0, 2500.0, 2500.0] {
            window.push(v, v * 1_048_576.0);
        }
        let j = window.judge(&settings).unwrap();
        assert!(!j.holds && j.precision.is_none(), "{j:?}");
        for v in [2000.0, 2001.0, 1999.0, 2000.0] {
            window.push(v, v * 1_048_576.0);
        }
        let j = window.judge(&settings).unwrap();
        assert!(!j.holds && j.precision.unwrap() > 1.5, "{j:?}");
    }

    #[test]
    fn iops_bw_needs_both_to_settle() {
        let iops = [1000.0, 1000.0, 1000.0];
        let bw = [4.0e6, 5.0e6, 6.0e6]; // same IOPS, varying sizes
        let both = ss(SteadyCriterion::IopsBw, SteadyLimit::Percent(2.0), 3);
        let j = judge_window(&both, &iops, &bw);
        assert!(!j.holds);
        assert_eq!(j.value, Some(20.0));
        assert!(judge_window(&both, &iops, &[5.0e6; 3]).holds);
    }

    #[test]
    fn the_window_rolls_and_judges_only_when_full() {
        let settings = ss(SteadyCriterion::Iops, SteadyLimit::Percent(2.0), 3);
        let mut window = SteadyWindow::new(3);
        window.push(100.0, 1.0);
        window.push(5000.0, 1.0);
        assert_eq!(window.judge(&settings), None);
        window.push(5000.0, 1.0);
        assert!(!window.judge(&settings).unwrap().holds);
        window.push(5010.0, 1.0);
        assert!(window.judge(&settings).unwrap().holds);
        assert_eq!(window.iops(), [5000.0, 5000.0, 5010.0]);
    }
}
