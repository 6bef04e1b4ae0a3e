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
use diskmeter_units::MIB_F64;
use serde::{Deserialize, Serialize};

mod intended;
#[cfg(test)]
mod tests;

use intended::{intended_latency, Clock};

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

impl CompareOptions {
    /// The figures given (`--noise-floor`, `--threshold`), the defaults for the others.
    pub fn given(noise_floor_percent: Option<f64>, threshold_percent: Option<f64>) -> Self {
        let defaults = CompareOptions::default();
        CompareOptions {
            noise_floor_percent: noise_floor_percent.unwrap_or(defaults.noise_floor_percent),
            threshold_percent: threshold_percent.unwrap_or(defaults.threshold_percent),
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
    /// and latency (kept in us) in its scaled unit, as every human view prints latency.
    pub fn format_value(&self, value: f64) -> String {
        match self.unit.as_str() {
            "IOPS" => diskmeter_units::format_thousands(value.round() as u64),
            "MiB/s" => format!("{value:.1}"),
            _ => diskmeter_units::format_duration(value * 1e3),
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

/// Which figure of a direction a metric is, and whether more of it is better.
#[derive(Clone, Copy)]
pub(super) enum Figure {
    Iops,
    MibPerSec,
    MeanLatency,
    P99Latency,
}

impl Figure {
    pub(super) fn name(self) -> &'static str {
        match self {
            Figure::Iops => "IOPS",
            Figure::MibPerSec => "MiB/s",
            Figure::MeanLatency => "mean latency",
            Figure::P99Latency => "p99 latency",
        }
    }

    pub(super) fn unit(self) -> &'static str {
        match self {
            Figure::Iops => "IOPS",
            Figure::MibPerSec => "MiB/s",
            Figure::MeanLatency | Figure::P99Latency => "us",
        }
    }

    pub(super) fn higher_is_better(self) -> bool {
        matches!(self, Figure::Iops | Figure::MibPerSec)
    }
}

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
        Figure::MibPerSec => Some(dirs.iter().map(|d| d.bw_bytes_per_sec).sum::<f64>() / MIB_F64),
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
            Figure::MibPerSec => d.bytes_per_sec / MIB_F64,
            Figure::MeanLatency => d.lat_mean_ns / 1000.0,
            Figure::P99Latency => d.lat_p99_ns as f64 / 1000.0,
        })
        .collect()
}
