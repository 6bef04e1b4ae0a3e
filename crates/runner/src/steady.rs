//! The steady-state criteria as pure functions over a window of per-second samples, and the
//! rolling window the monitor keeps per watched job.
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

use diskmeter_workload::{SteadyCriterion, SteadyLimit, SteadyState};
use std::collections::VecDeque;

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

/// Judges one series (IOPS or bandwidth) by the deviation or the slope test.
pub fn judge_series(samples: &[f64], use_slope: bool, limit: SteadyLimit) -> Judgement {
    let (raw, max_deviation, slope) = if use_slope {
        let s = slope(samples);
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
    }
}

/// Judges a full window of per-second IOPS and bandwidth samples by the job's criterion.
pub fn judge_window(ss: &SteadyState, iops: &[f64], bw_bytes_per_sec: &[f64]) -> Judgement {
    let use_slope = ss.criterion.is_slope();
    match ss.criterion {
        SteadyCriterion::Iops | SteadyCriterion::IopsSlope => {
            judge_series(iops, use_slope, ss.limit)
        }
        SteadyCriterion::Bw | SteadyCriterion::BwSlope => {
            judge_series(bw_bytes_per_sec, use_slope, ss.limit)
        }
        SteadyCriterion::IopsBw => {
            let by_iops = judge_series(iops, false, ss.limit);
            let by_bw = judge_series(bw_bytes_per_sec, false, ss.limit);
            Judgement {
                holds: by_iops.holds && by_bw.holds,
                value: by_iops.value.zip(by_bw.value).map(|(a, b)| a.max(b)),
                max_deviation: by_iops.max_deviation,
                slope: 0.0,
            }
        }
    }
}

/// The last `capacity` per-second samples of one watched job.
#[derive(Debug, Clone)]
pub struct SteadyWindow {
    capacity: usize,
    iops: VecDeque<f64>,
    bw_bytes_per_sec: VecDeque<f64>,
}

impl SteadyWindow {
    /// An empty window of `capacity` samples (`ss_dur` in seconds).
    pub fn new(capacity: usize) -> Self {
        SteadyWindow {
            capacity,
            iops: VecDeque::with_capacity(capacity),
            bw_bytes_per_sec: VecDeque::with_capacity(capacity),
        }
    }

    /// Adds one second's IOPS and bandwidth, dropping the oldest sample when full.
    pub fn push(&mut self, iops: f64, bw_bytes_per_sec: f64) {
        if self.iops.len() == self.capacity {
            self.iops.pop_front();
            self.bw_bytes_per_sec.pop_front();
        }
        self.iops.push_back(iops);
        self.bw_bytes_per_sec.push_back(bw_bytes_per_sec);
    }

    /// The verdict on the window, once it holds `capacity` samples (fio judges nothing
    /// before its buffer is full).
    pub fn judge(&mut self, ss: &SteadyState) -> Option<Judgement> {
        if self.capacity == 0 || self.iops.len() < self.capacity {
            return None;
        }
        Some(judge_window(
            ss,
            self.iops.make_contiguous(),
            self.bw_bytes_per_sec.make_contiguous(),
        ))
    }

    /// The IOPS samples, oldest first.
    pub fn iops(&self) -> Vec<f64> {
        self.iops.iter().copied().collect()
    }

    /// The bandwidth samples, bytes per second, oldest first.
    pub fn bw_bytes_per_sec(&self) -> Vec<f64> {
        self.bw_bytes_per_sec.iter().copied().collect()
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
            ramp_ns: 0,
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
        let j = judge_series(&samples, false, SteadyLimit::Absolute(3.0));
        assert!((j.max_deviation - (5003.0 - mean)).abs() < 1e-9);
        assert!(j.holds);
        assert!(!judge_series(&samples, false, SteadyLimit::Absolute(2.0)).holds);
        // fio's comparison is strict: a limit of 0 never holds, not even for a flat series.
        assert!(!judge_series(&[1.0, 1.0], false, SteadyLimit::Absolute(0.0)).holds);
    }

    #[test]
    fn undefined_figures_never_hold() {
        let idle = judge_series(&[0.0, 0.0, 0.0], false, SteadyLimit::Percent(2.0));
        assert_eq!((idle.holds, idle.value), (false, None));
        assert!(slope(&[5.0]).is_nan());
        assert!(!judge_series(&[5.0], true, SteadyLimit::Absolute(1.0)).holds);
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
