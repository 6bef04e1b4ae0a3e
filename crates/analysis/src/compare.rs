//! Comparing two runs step by step: for every step both runs have and every metric (IOPS,
//! bandwidth, mean and p99 latency, per direction) the two values, the change in percent and
//! a verdict — `faster`, `slower` or `within noise` — from the per-second samples.
//!
//! The method: each metric's per-second samples (full seconds only) give a mean and a
//! standard error by batch means, which allows for neighbouring seconds being correlated;
//! the two means are compared with Welch's t-test at 95 %
//! ([`diskmeter_stats::compare_means`]). Short runs of bursty devices give batch-means
//! intervals wider than the means themselves, so the samples are also compared by rank
//! (Mann-Whitney U, two-sided 5 %): a run whose every second beats every second of the
//! other differs whatever the spread. A difference is called when either test finds it and
//! it is at least the noise floor (default 5 % of the baseline), because
//! two runs of the same workload on shared or cloud storage routinely differ by a few
//! percent for reasons that do not repeat. A `slower` verdict whose change is at least the
//! threshold (default 10 %) is a regression. Pure functions; no IO.
//!
//! A step that was paced or replayed in either run (fio `rate`, `rate_iops`, a replayed log)
//! is compared on the latency from each IO's intended issue time (`lat_intended`), the
//! metrics named "... (intended)": a stall delays every IO due behind it, which
//! issue-to-completion latency does not count. The per-second series hold issue-clock
//! latency only, so those verdicts come from the whole step: the p99 from the
//! distribution-free 95 % interval of that quantile (the order statistics at
//! n*p -+ 1.96*sqrt(n*p*(1-p)), bracketed by the listed percentiles around them, widened by
//! the histogram's 0.1 %), the two intervals apart and the change past the noise floor; the
//! mean by Welch's test with each second taken as one sample (standard error =
//! IO stddev / sqrt(seconds), an upper bound of the batch-means error whatever the IOs'
//! correlation within a second). A paced step saved before `lat_intended` was kept has no
//! such figure: its latency is not compared, and [`Comparison::notes`] says it is not known.
//! A partial step (interrupted, failed) is not compared either, and the notes say why.

use diskmeter_report::RunResult;
use diskmeter_stats::{
    batch_means, compare_means, mann_whitney_p, merge_series, resample_series, IntervalSample,
    Verdict,
};
use serde::{Deserialize, Serialize};

/// How a comparison decides.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompareOptions {
    /// Changes smaller than this, percent of the baseline, are within noise.
    pub noise_floor_percent: f64,
    /// A `slower` change at least this large, percent, is a regression.
    pub threshold_percent: f64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            noise_floor_percent: 5.0,
            threshold_percent: 10.0,
        }
    }
}

/// What a metric's change means for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The candidate is better beyond the noise (more IOPS or bandwidth, less latency).
    Faster,
    /// The candidate is worse beyond the noise.
    Slower,
    /// The difference is within the noise of the two runs.
    WithinNoise,
    /// Fewer than 4 full per-second samples in a run: no verdict can be given.
    TooFewSamples,
}

impl Outcome {
    /// The words printed.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Faster => "faster",
            Outcome::Slower => "slower",
            Outcome::WithinNoise => "within noise",
            Outcome::TooFewSamples => "too few samples",
        }
    }
}

/// One metric of one step in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricComparison {
    /// The step's name.
    pub step: String,
    /// "read IOPS", "write MiB/s", "read mean latency", "read p99 latency", ...
    pub metric: String,
    /// The unit of the values: "IOPS", "MiB/s" or "us".
    pub unit: String,
    /// The baseline run's value (the whole step's figure).
    pub baseline: f64,
    /// The candidate run's value.
    pub candidate: f64,
    /// (candidate - baseline) / baseline, percent.
    pub change_percent: f64,
    /// The verdict from the per-second samples.
    pub outcome: Outcome,
    /// `Slower` by at least the threshold.
    pub regression: bool,
}

impl MetricComparison {
    /// A value of this metric as printed: grouped thousands for IOPS, one decimal for MiB/s
    /// and for latency (with its unit, us).
    pub fn format_value(&self, value: f64) -> String {
        match self.unit.as_str() {
            "IOPS" => diskmeter_units::format_thousands(value.round() as u64),
            "MiB/s" => format!("{value:.1}"),
            _ => format!("{value:.1} us"),
        }
    }

    /// The change as printed: "+12.3 %".
    pub fn format_change(&self) -> String {
        format!("{:+.1} %", self.change_percent)
    }

    /// The verdict as printed: "slower (regression)", "within noise".
    pub fn verdict_text(&self) -> String {
        format!(
            "{}{}",
            self.outcome.label(),
            if self.regression { " (regression)" } else { "" }
        )
    }
}

/// The two runs compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The options used.
    pub options: CompareOptions,
    /// Every metric of every matched step.
    pub metrics: Vec<MetricComparison>,
    /// Steps only the baseline has.
    pub only_in_baseline: Vec<String>,
    /// Steps only the candidate has.
    pub only_in_candidate: Vec<String>,
    /// What was left out and why: partial steps, paced steps whose intended-time latency is
    /// not known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Comparison {
    /// Number of regressions.
    pub fn regressions(&self) -> usize {
        self.metrics.iter().filter(|m| m.regression).count()
    }

    /// How the verdicts were reached, with the noise floor and threshold, in one sentence
    /// (two when intended-time latencies were compared).
    pub fn method_text(&self) -> String {
        let mut text = format!(
            "verdicts: the per-second samples by Welch's t-test at 95 % (batch-means standard \
             errors) and by rank (Mann-Whitney U, 5 %); changes under {} % are within noise; a \
             slower change of {} % or more is a regression.",
            self.options.noise_floor_percent, self.options.threshold_percent
        );
        if self
            .metrics
            .iter()
            .any(|m| m.metric.ends_with("(intended)"))
        {
            text.push_str(
                " Latency (intended): from each IO's intended issue time, as the step was \
                 paced or replayed; the p99 by its distribution-free 95 % interval (order \
                 statistics, within the listed percentiles), the mean by Welch's test with \
                 each second one sample.",
            );
        }
        text
    }
}

/// Compares `candidate` with `baseline`, steps matched by name (in the baseline's order).
pub fn compare_runs(
    baseline: &[(String, &RunResult)],
    candidate: &[(String, &RunResult)],
    options: CompareOptions,
) -> Comparison {
    let mut metrics = Vec::new();
    let mut notes = Vec::new();
    for (name, base) in baseline {
        if let Some((_, cand)) = candidate.iter().find(|(n, _)| n == name) {
            let partial = [("A", base), ("B", cand)]
                .into_iter()
                .filter_map(|(run, r)| r.partial_reason().map(|why| format!("in {run} {why}")))
                .collect::<Vec<_>>();
            if !partial.is_empty() {
                notes.push(format!(
                    "step {name} not compared: partial {}",
                    partial.join("; ")
                ));
                continue;
            }
            let clock = Clock::of(base, cand);
            if clock == Clock::IntendedUnknown {
                notes.push(format!(
                    "step {name}: its latency is not compared: the step was paced or \
                     replayed, and a run saved before diskmeter kept the latency from each \
                     IO's intended issue time has no such figure (not known)"
                ));
            }
            metrics.extend(compare_step(name, base, cand, &options, clock));
        }
    }
    let names = |steps: &[(String, &RunResult)]| -> Vec<String> {
        steps.iter().map(|(n, _)| n.clone()).collect()
    };
    let (base_names, cand_names) = (names(baseline), names(candidate));
    Comparison {
        options,
        metrics,
        only_in_baseline: base_names
            .iter()
            .filter(|n| !cand_names.contains(n))
            .cloned()
            .collect(),
        only_in_candidate: cand_names
            .iter()
            .filter(|n| !base_names.contains(n))
            .cloned()
            .collect(),
        notes,
    }
}

/// The clock a step's latencies are compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clock {
    /// Neither run paced the step: issue to completion, judged on the per-second samples.
    Issue,
    /// One of them did, and both kept intended-time latency.
    Intended,
    /// One of them did, and a run has no intended-time latency: not compared.
    IntendedUnknown,
}

impl Clock {
    fn of(base: &RunResult, cand: &RunResult) -> Clock {
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

/// Which figure of a direction a metric is, and whether more of it is better.
#[derive(Clone, Copy)]
enum Figure {
    Iops,
    MibPerSec,
    MeanLatency,
    P99Latency,
}

impl Figure {
    fn name(self) -> &'static str {
        match self {
            Figure::Iops => "IOPS",
            Figure::MibPerSec => "MiB/s",
            Figure::MeanLatency => "mean latency",
            Figure::P99Latency => "p99 latency",
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Figure::Iops => "IOPS",
            Figure::MibPerSec => "MiB/s",
            Figure::MeanLatency | Figure::P99Latency => "us",
        }
    }

    fn higher_is_better(self) -> bool {
        matches!(self, Figure::Iops | Figure::MibPerSec)
    }
}

const MIB: f64 = (1u64 << 20) as f64;

fn compare_step(
    step: &str,
    baseline: &RunResult,
    candidate: &RunResult,
    options: &CompareOptions,
    clock: Clock,
) -> Vec<MetricComparison> {
    let (base_series, cand_series) = (full_seconds(baseline), full_seconds(candidate));
    let mut out = Vec::new();
    for direction in [0usize, 1] {
        let label = ["read", "write"][direction];
        if total_ios(baseline, direction) == 0 && total_ios(candidate, direction) == 0 {
            continue;
        }
        for figure in [
            Figure::Iops,
            Figure::MibPerSec,
            Figure::MeanLatency,
            Figure::P99Latency,
        ] {
            let latency = matches!(figure, Figure::MeanLatency | Figure::P99Latency);
            if latency && clock == Clock::IntendedUnknown {
                continue;
            }
            if latency && clock == Clock::Intended {
                out.extend(intended_latency(
                    step,
                    label,
                    figure,
                    baseline,
                    candidate,
                    direction,
                    (base_series.len(), cand_series.len()),
                    options,
                ));
                continue;
            }
            let (Some(base_value), Some(cand_value)) = (
                step_value(baseline, direction, figure),
                step_value(candidate, direction, figure),
            ) else {
                continue;
            };
            let base_samples = samples(&base_series, direction, figure);
            let cand_samples = samples(&cand_series, direction, figure);
            let outcome = if base_samples.len() < 4 || cand_samples.len() < 4 {
                Outcome::TooFewSamples
            } else {
                let (base_est, cand_est) = (batch_means(&base_samples), batch_means(&cand_samples));
                let floor = options.noise_floor_percent / 100.0;
                let mut verdict = compare_means(&base_est, &cand_est, floor);
                let difference = cand_est.mean - base_est.mean;
                if verdict == Verdict::WithinNoise
                    && difference.abs() > floor * base_est.mean.abs()
                    && mann_whitney_p(&base_samples, &cand_samples) < 0.05
                {
                    verdict = if difference > 0.0 {
                        Verdict::Higher
                    } else {
                        Verdict::Lower
                    };
                }
                match (verdict, figure.higher_is_better()) {
                    (Verdict::WithinNoise, _) => Outcome::WithinNoise,
                    (Verdict::Higher, true) | (Verdict::Lower, false) => Outcome::Faster,
                    (Verdict::Lower, true) | (Verdict::Higher, false) => Outcome::Slower,
                }
            };
            let change_percent = if base_value == 0.0 {
                0.0
            } else {
                (cand_value - base_value) / base_value * 100.0
            };
            out.push(MetricComparison {
                step: step.to_string(),
                metric: format!("{label} {}", figure.name()),
                unit: figure.unit().to_string(),
                baseline: base_value,
                candidate: cand_value,
                change_percent,
                outcome,
                regression: outcome == Outcome::Slower
                    && change_percent.abs() >= options.threshold_percent,
            });
        }
    }
    out
}

/// One direction's intended-time latency of a step with one job: (summary); `None` with
/// several jobs (percentiles of several jobs do not combine) or no IOs.
fn intended_summary(
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
fn p99_interval(summary: &diskmeter_report::LatencySummary) -> (f64, f64) {
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
fn intended_latency(
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

fn total_ios(result: &RunResult, direction: usize) -> u64 {
    result
        .jobs
        .iter()
        .map(|j| if direction == 0 { &j.read } else { &j.write }.ios)
        .sum()
}

/// The step's own figure: rates summed over its jobs, the mean latency weighted by IOs, the
/// p99 only when one job reports the step (percentiles of several jobs do not combine).
fn step_value(result: &RunResult, direction: usize, figure: Figure) -> Option<f64> {
    let dirs: Vec<_> = result
        .jobs
        .iter()
        .map(|j| if direction == 0 { &j.read } else { &j.write })
        .collect();
    match figure {
        Figure::Iops => Some(dirs.iter().map(|d| d.iops).sum()),
        Figure::MibPerSec => Some(dirs.iter().map(|d| d.bw_bytes_per_sec).sum::<f64>() / MIB),
        Figure::MeanLatency => {
            let ios: u64 = dirs.iter().map(|d| d.lat.count).sum();
            (ios > 0).then(|| {
                dirs.iter()
                    .map(|d| d.lat.mean_ns * d.lat.count as f64)
                    .sum::<f64>()
                    / ios as f64
                    / 1000.0
            })
        }
        Figure::P99Latency => match dirs.as_slice() {
            [only] => only.clat.percentile(99.0).map(|ns| ns as f64 / 1000.0),
            _ => None,
        },
    }
}

/// The step's per-second series summed over its jobs, without the short last interval; a
/// series sampled more finely (DiskSpd's `-D100`) is regrouped into seconds first, so that
/// runs sampled differently compare sample for sample.
fn full_seconds(result: &RunResult) -> Vec<IntervalSample> {
    let merged = result
        .jobs
        .iter()
        .fold(Vec::new(), |acc, job| merge_series(&acc, &job.series));
    let merged = resample_series(&merged, 1000);
    let longest = merged.iter().map(|s| s.duration_ms).max().unwrap_or(0);
    merged
        .into_iter()
        .filter(|s| s.duration_ms * 10 >= longest * 9)
        .collect()
}

fn samples(series: &[IntervalSample], direction: usize, figure: Figure) -> Vec<f64> {
    series
        .iter()
        .map(|s| if direction == 0 { &s.read } else { &s.write })
        .filter(|d| !matches!(figure, Figure::MeanLatency | Figure::P99Latency) || d.ios > 0)
        .map(|d| match figure {
            Figure::Iops => d.iops,
            Figure::MibPerSec => d.bytes_per_sec / MIB,
            Figure::MeanLatency => d.lat_mean_ns / 1000.0,
            Figure::P99Latency => d.lat_p99_ns as f64 / 1000.0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_report::{JobInput, RunInput, RunMeta};
    use diskmeter_stats::{Direction, IntervalRecorder, WorkerStats};
    use diskmeter_workload::JobSpec;

    /// `seconds` seconds of 4 KiB reads whose per-second IOPS follow `iops_at(second)`, each
    /// IO taking `lat_ns`.
    fn run(seconds: u64, lat_ns: u64, iops_at: impl Fn(u64) -> u64) -> RunResult {
        let mut stats = WorkerStats::new();
        let mut recorder = IntervalRecorder::new(1_000_000_000);
        for second in 0..seconds {
            let iops = iops_at(second);
            for i in 0..iops {
                stats.read.record_io(4096, 1_000, lat_ns);
                recorder.record(
                    Direction::Read,
                    4096,
                    lat_ns,
                    second * 1_000_000_000 + i * 1_000_000_000 / iops,
                );
            }
        }
        stats.runtime_ns = seconds * 1_000_000_000;
        stats.series = recorder.finish(stats.runtime_ns);
        run_of(stats)
    }

    /// The result of one worker's `stats`.
    fn run_of(stats: WorkerStats) -> RunResult {
        RunResult::build(RunInput {
            meta: RunMeta {
                diskmeter_version: "0".into(),
                started_unix_ms: 0,
                finished_unix_ms: 0,
                partial: false,
                hostname: "h".into(),
                notes: vec![],
                phase_starts_unix_ns: Vec::new(),
                io_finished_unix_ns: 0,
                rank: None,
            },
            jobs: vec![JobInput {
                spec: JobSpec::default(),
                clone_index: 0,
                group_id: 0,
                stats,
                error: None,
                targets: vec![],
                steady_state: None,
            }],
        })
    }

    /// `seconds` of 4 KiB reads paced at 1,000 IOPS, each IO 100 us from issue to
    /// completion; with `stall_ms`, the IOs due in the first `stall_ms` of the second second
    /// went out only when it ended (a SIGSTOP), so their intended-time latency is up to
    /// `stall_ms`. `kept`: the intended-time latency was recorded (results saved before it
    /// was have none).
    fn paced(seconds: u64, stall_ms: u64, kept: bool) -> RunResult {
        let mut stats = WorkerStats::new();
        let mut recorder = IntervalRecorder::new(1_000_000_000);
        for second in 0..seconds {
            for i in 0..1_000u64 {
                let due_ns = second * 1_000_000_000 + i * 1_000_000;
                let late_ns = match second == 1 && i < stall_ms {
                    true => (stall_ms - i) * 1_000_000,
                    false => 0,
                };
                stats.read.record_io(4096, 90_000, 100_000);
                if kept {
                    stats.read.lat_intended.record(late_ns + 100_000);
                }
                recorder.record(Direction::Read, 4096, 100_000, due_ns + late_ns);
            }
        }
        stats.runtime_ns = seconds * 1_000_000_000;
        stats.series = recorder.finish(stats.runtime_ns);
        let mut result = run_of(stats);
        if !kept {
            let mut spec = JobSpec::default();
            spec.rate_iops.read = Some(1_000);
            result.jobs[0].options = diskmeter_workload::describe(&spec)
                .into_iter()
                .map(|(name, value)| diskmeter_report::JobOption { name, value })
                .collect();
        }
        result
    }

    #[test]
    fn issue27_a_stalled_paced_run_is_slower_on_intended_time_latency() {
        let (twin, stalled) = (paced(5, 0, true), paced(5, 500, true));
        let c = compare_runs(
            &[("paced".into(), &twin)],
            &[("paced".into(), &stalled)],
            CompareOptions::default(),
        );
        let p99 = c
            .metrics
            .iter()
            .find(|m| m.metric == "read p99 latency (intended)")
            .expect("the p99 on the intended clock");
        assert_eq!(p99.outcome, Outcome::Slower, "{p99:?}");
        assert!(p99.regression);
        assert!(p99.baseline < 101.0 && p99.candidate > 400_000.0, "{p99:?}");
        // The mean, each second one sample: one stalled second of five is within their
        // noise (per-second means of 0.1, 125, 0.1, 0.1, 0.1 ms); the tail is not.
        let mean = outcome(&c, "read mean latency (intended)");
        assert_ne!(mean, Outcome::Faster);
        // Issue to completion, every IO took 100 us: that clock would see no change at all.
        assert!(!c.metrics.iter().any(|m| m.metric == "read p99 latency"));
        assert!(c.method_text().contains("Latency (intended)"));
        // The twin against itself: within noise.
        let same = compare_runs(
            &[("paced".into(), &twin)],
            &[("paced".into(), &paced(5, 0, true))],
            CompareOptions::default(),
        );
        assert!(same
            .metrics
            .iter()
            .all(|m| m.outcome == Outcome::WithinNoise));
    }

    #[test]
    fn issue27_a_paced_run_saved_without_intended_latency_is_not_compared_on_latency() {
        let (old, new) = (paced(5, 0, false), paced(5, 500, true));
        assert!(old.jobs[0].paced() && old.jobs[0].read.lat_intended.count == 0);
        let c = compare_runs(
            &[("paced".into(), &old)],
            &[("paced".into(), &new)],
            CompareOptions::default(),
        );
        assert!(
            !c.metrics.iter().any(|m| m.metric.contains("latency")),
            "{c:#?}"
        );
        assert!(c.metrics.iter().any(|m| m.metric == "read IOPS"));
        assert_eq!(c.notes.len(), 1);
        assert!(c.notes[0].contains("not known"), "{:?}", c.notes);
    }

    #[test]
    fn issue27_a_partial_step_is_not_compared() {
        let (whole, mut cut) = (run(5, 50_000, |_| 5000), run(5, 50_000, |_| 5000));
        cut.meta.partial = true;
        let c = compare_runs(
            &[("4k".into(), &whole)],
            &[("4k".into(), &cut)],
            CompareOptions::default(),
        );
        assert!(c.metrics.is_empty());
        assert!(c.notes[0].starts_with("step 4k not compared: partial in B interrupted"));
    }

    fn outcome(c: &Comparison, metric: &str) -> Outcome {
        c.metrics
            .iter()
            .find(|m| m.metric == metric)
            .unwrap()
            .outcome
    }

    #[test]
    fn a_throttled_rerun_is_slower_and_a_regression() {
        let base = run(8, 50_000, |s| 5000 + (s % 3) * 40);
        let slow = run(8, 200_000, |s| 1250 + (s % 2) * 10);
        let c = compare_runs(
            &[("4k".into(), &base)],
            &[("4k".into(), &slow)],
            CompareOptions::default(),
        );
        assert_eq!(outcome(&c, "read IOPS"), Outcome::Slower);
        assert_eq!(outcome(&c, "read mean latency"), Outcome::Slower);
        assert_eq!(outcome(&c, "read p99 latency"), Outcome::Slower);
        let iops = c.metrics.iter().find(|m| m.metric == "read IOPS").unwrap();
        assert!(
            (iops.change_percent + 74.8).abs() < 1.0,
            "{}",
            iops.change_percent
        );
        assert!(c.regressions() >= 3);
        // and the other way round it is faster, with no regression
        let back = compare_runs(
            &[("4k".into(), &slow)],
            &[("4k".into(), &base)],
            CompareOptions::default(),
        );
        assert_eq!(outcome(&back, "read IOPS"), Outcome::Faster);
        assert_eq!(back.regressions(), 0);
    }

    #[test]
    fn the_same_workload_twice_is_within_noise() {
        let a = run(8, 50_000, |s| 5000 + (s % 3) * 60);
        let b = run(8, 50_500, |s| 5030 + (s % 2) * 50);
        let c = compare_runs(
            &[("x".into(), &a)],
            &[("x".into(), &b)],
            CompareOptions::default(),
        );
        assert!(
            c.metrics.iter().all(|m| m.outcome == Outcome::WithinNoise),
            "{c:#?}"
        );
        assert_eq!(c.regressions(), 0);
    }

    #[test]
    fn a_small_but_clear_change_is_below_the_noise_floor_until_the_floor_is_lowered() {
        let a = run(16, 50_000, |_| 5000);
        let b = run(16, 50_000, |_| 4850);
        let default = compare_runs(
            &[("x".into(), &a)],
            &[("x".into(), &b)],
            CompareOptions::default(),
        );
        assert_eq!(outcome(&default, "read IOPS"), Outcome::WithinNoise);
        let strict = CompareOptions {
            noise_floor_percent: 1.0,
            threshold_percent: 2.0,
        };
        let c = compare_runs(&[("x".into(), &a)], &[("x".into(), &b)], strict);
        assert_eq!(outcome(&c, "read IOPS"), Outcome::Slower);
        assert_eq!(c.regressions(), 2); // IOPS and MiB/s
    }

    #[test]
    fn a_bursty_baseline_is_still_told_apart_by_rank() {
        // Four seconds swinging between 1,500 and 12,000 IOPS (batch-means interval wider
        // than the mean) against a steady 100: Welch cannot call it, the ranks can.
        let bursty = [12_000u64, 1_500, 9_000, 2_000];
        let base = run(4, 50_000, |s| bursty[s as usize]);
        let slow = run(4, 2_000_000, |_| 100);
        let c = compare_runs(
            &[("x".into(), &base)],
            &[("x".into(), &slow)],
            CompareOptions::default(),
        );
        assert_eq!(outcome(&c, "read IOPS"), Outcome::Slower);
        // but the same bursts twice are within noise
        let again = run(4, 50_000, |s| bursty[(s as usize + 1) % 4]);
        let c = compare_runs(
            &[("x".into(), &base)],
            &[("x".into(), &again)],
            CompareOptions::default(),
        );
        assert_eq!(outcome(&c, "read IOPS"), Outcome::WithinNoise);
    }

    #[test]
    fn steps_are_matched_by_name_and_short_runs_get_no_verdict() {
        let a = run(2, 50_000, |_| 1000);
        let b = run(2, 50_000, |_| 500);
        let c = compare_runs(
            &[("one".into(), &a), ("two".into(), &a)],
            &[("two".into(), &b), ("three".into(), &b)],
            CompareOptions::default(),
        );
        assert!(c.metrics.iter().all(|m| m.step == "two"));
        assert_eq!(outcome(&c, "read IOPS"), Outcome::TooFewSamples);
        assert_eq!(c.regressions(), 0);
        assert_eq!(c.only_in_baseline, vec!["one".to_string()]);
        assert_eq!(c.only_in_candidate, vec!["three".to_string()]);
    }
}
