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
}

impl Comparison {
    /// Number of regressions.
    pub fn regressions(&self) -> usize {
        self.metrics.iter().filter(|m| m.regression).count()
    }

    /// How the verdicts were reached, with the noise floor and threshold, in one sentence.
    pub fn method_text(&self) -> String {
        format!(
            "verdicts: the per-second samples by Welch's t-test at 95 % (batch-means standard \
             errors) and by rank (Mann-Whitney U, 5 %); changes under {} % are within noise; a \
             slower change of {} % or more is a regression.",
            self.options.noise_floor_percent, self.options.threshold_percent
        )
    }
}

/// Compares `candidate` with `baseline`, steps matched by name (in the baseline's order).
pub fn compare_runs(
    baseline: &[(String, &RunResult)],
    candidate: &[(String, &RunResult)],
    options: CompareOptions,
) -> Comparison {
    let mut metrics = Vec::new();
    for (name, base) in baseline {
        if let Some((_, cand)) = candidate.iter().find(|(n, _)| n == name) {
            metrics.extend(compare_step(name, base, cand, &options));
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
