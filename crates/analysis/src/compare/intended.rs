//! The intended-time latency comparison: the clock a step's latencies are compared on
//! (issue to completion, or intended issue time when either run paced the step), and the
//! whole-step verdicts on intended-time latency (the p99 by its distribution-free interval,
//! the mean by Welch's test with a sample a second).

use super::{CompareOptions, Figure, MetricComparison, Outcome};
use diskmeter_report::RunResult;
use diskmeter_stats::{compare_means, Verdict};

/// The clock a step's latencies are compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Clock {
    /// Neither run paced the step: issue to completion, judged on the per-second samples.
    Issue,
    /// One of them did, and both kept intended-time latency.
    Intended,
    /// One of them did, and a run has no intended-time latency: not compared.
    IntendedUnknown,
}

impl Clock {
    pub(super) fn of(base: &RunResult, cand: &RunResult) -> Clock {
        let paced = |r: &RunResult| r.jobs.iter().any(diskmeter_report::JobResult::paced);
        if !paced(base) && !paced(cand) {
            return Clock::Issue;
        }
        let kept = |r: &RunResult| {
            r.jobs.iter().all(|j| {
                j.read.ios + j.write.ios == 0
                    || j.read.lat_intended.count + j.write.lat_intended.count > 0
            })
        };
        if kept(base) && kept(cand) {
            Clock::Intended
        } else {
            Clock::IntendedUnknown
        }
    }
}

/// One direction's intended-time latency of a step with one job: (summary); `None` with
/// several jobs (percentiles of several jobs do not combine) or no IOs.
pub(super) fn intended_summary(
    result: &RunResult,
    direction: usize,
) -> Option<&diskmeter_report::LatencySummary> {
    match result.jobs.as_slice() {
        [only] => {
            let d = if direction == 0 {
                &only.read
            } else {
                &only.write
            };
            // An unpaced job of a paced comparison is on its own clock: issue to completion.
            let summary = if only.paced() {
                &d.lat_intended
            } else {
                &d.lat
            };
            (summary.count > 0).then_some(summary)
        }
        _ => None,
    }
}

/// The distribution-free 95 % interval of the p99 of `summary`, ns: the ranks
/// n*p -+ 1.96*sqrt(n*p*(1-p)) as percents, bracketed outward by the listed percentiles (the
/// exact min and max where none is listed beyond them), widened by the histogram's 0.1 %.
pub(super) fn p99_interval(summary: &diskmeter_report::LatencySummary) -> (f64, f64) {
    let n = summary.count as f64;
    let p = 0.99;
    let spread = 1.96 * (n * p * (1.0 - p)).sqrt();
    let (low_pct, high_pct) = ((n * p - spread) / n * 100.0, (n * p + spread) / n * 100.0);
    let low = summary
        .percentiles
        .iter()
        .filter(|q| q.percent <= low_pct)
        .map(|q| q.value_ns)
        .max()
        .unwrap_or(summary.min_ns);
    let high = summary
        .percentiles
        .iter()
        .filter(|q| q.percent >= high_pct)
        .map(|q| q.value_ns)
        .min()
        .unwrap_or(summary.max_ns);
    (low as f64 * 0.999, high as f64 * 1.001)
}

/// The intended-time latency metric `figure` of one direction, judged from the whole step
/// (see the module's notes); `None` when a run has no such figure for it.
#[allow(clippy::too_many_arguments)]
pub(super) fn intended_latency(
    step: &str,
    label: &str,
    figure: Figure,
    baseline: &RunResult,
    candidate: &RunResult,
    direction: usize,
    seconds: (usize, usize),
    options: &CompareOptions,
) -> Option<MetricComparison> {
    let (base, cand) = (
        intended_summary(baseline, direction)?,
        intended_summary(candidate, direction)?,
    );
    let floor = options.noise_floor_percent / 100.0;
    let (base_value, cand_value, verdict) = match figure {
        Figure::P99Latency => {
            let (b, c) = (base.percentile(99.0)? as f64, cand.percentile(99.0)? as f64);
            let ((b_low, b_high), (c_low, c_high)) = (p99_interval(base), p99_interval(cand));
            let past_floor = (c - b).abs() > floor * b;
            let verdict = if past_floor && c_low > b_high {
                Verdict::Higher
            } else if past_floor && c_high < b_low {
                Verdict::Lower
            } else {
                Verdict::WithinNoise
            };
            (b, c, Some(verdict))
        }
        _ => {
            let estimate = |s: &diskmeter_report::LatencySummary, seconds: usize| {
                diskmeter_stats::MeanEstimate {
                    mean: s.mean_ns,
                    half_width: f64::INFINITY,
                    standard_error: s.stddev_ns / (seconds as f64).sqrt(),
                    batches: seconds,
                    samples: seconds,
                }
            };
            let verdict = (seconds.0 >= 4 && seconds.1 >= 4).then(|| {
                compare_means(
                    &estimate(base, seconds.0),
                    &estimate(cand, seconds.1),
                    floor,
                )
            });
            (base.mean_ns, cand.mean_ns, verdict)
        }
    };
    let outcome = match verdict {
        None => Outcome::TooFewSamples,
        Some(Verdict::WithinNoise) => Outcome::WithinNoise,
        Some(Verdict::Higher) => Outcome::Slower,
        Some(Verdict::Lower) => Outcome::Faster,
    };
    let change_percent = if base_value == 0.0 {
        0.0
    } else {
        (cand_value - base_value) / base_value * 100.0
    };
    Some(MetricComparison {
        step: step.to_string(),
        metric: format!("{label} {} (intended)", figure.name()),
        unit: figure.unit().to_string(),
        baseline: base_value / 1000.0,
        candidate: cand_value / 1000.0,
        change_percent,
        outcome,
        regression: outcome == Outcome::Slower && change_percent.abs() >= options.threshold_percent,
    })
}
