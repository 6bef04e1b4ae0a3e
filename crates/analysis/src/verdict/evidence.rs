//! What a step's result can say about a requirement, with its 95 % interval: the step's
//! figures, per-second series, latency histograms on the right clock, and how it was paced.
//! Built once per step from its [`RunResult`] and histograms (from the history, or from the
//! result's own jobs); pure.
//!
//! The intervals (docs/guide/5-rehearse.md, "Checking a result"):
//! - **Rates** (IOPS, MiB/s): the step's rate over its runtime, with the half-width of the
//!   method of batch means over its whole 1 s samples ([`diskmeter_stats::batch_means`], the
//!   method the steady-state rule uses: per-second rates are autocorrelated).
//! - **Mean latency**: the mean over every IO, with the batch-means half-width over the 1 s
//!   means of the same clock.
//! - **Latency percentiles**: the distribution-free interval of the quantile: the order
//!   statistics at ranks n p -+ 1.96 sqrt(n p (1 - p)) read from the step's merged histogram,
//!   widened by the histogram's stated error ([`HISTOGRAM_RELATIVE_ERROR`]).
//! - **Max latency**: exact (kept beside the histogram), no interval.
//! - **Percentiles of 1 s mean latency** (a capture's `await` levels): the same order
//!   statistics over the step's whole intervals.
//!
//! **The clock.** A step whose IOs were paced (a rate limit, or a replayed log's timestamps)
//! is judged on latency from the intended issue time (`lat_intended`): a stall that delayed
//! IOs is in it, as the application would have felt it. A paced step saved without those
//! figures says so ([`LatencyClock::IntendedNotKept`]) instead of falling back to issue-to-
//! completion latency.

use diskmeter_report::{DirectionResult, JobResult, RunResult};
use diskmeter_stats::{
    batch_means, merge_series, IntervalDirection, IntervalSample, LatencyHistogram,
};
use diskmeter_units::Direction;
use diskmeter_units::MIB_F64;
use serde::Serialize;

use super::estimate::{order_statistic_ranks, Estimate, NotMeasured, HISTOGRAM_RELATIVE_ERROR};
use super::{LatencyStatistic, Measure, Scope};

/// Which latency a step's latency requirements are judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyClock {
    /// Issue to completion: the step was not paced.
    IssueToCompletion,
    /// From the intended issue time: the step was rate-limited or replayed.
    Intended,
    /// The step was paced but saved before latency from the intended issue time was kept.
    IntendedNotKept,
}

impl LatencyClock {
    /// How a line names it.
    pub fn label(self) -> &'static str {
        match self {
            LatencyClock::IssueToCompletion => "issue to completion",
            LatencyClock::Intended => "from the intended issue time",
            LatencyClock::IntendedNotKept => "from the intended issue time (not kept)",
        }
    }
}

/// One direction of a step, as the verdicts need it.
#[derive(Debug, Clone, Default)]
struct DirectionEvidence {
    ios: u64,
    iops: f64,
    bytes_per_sec: f64,
    /// The step's pacing in IOPS, when every job doing IO in this direction was paced.
    pacing_iops: Option<f64>,
    /// The same in bytes per second.
    pacing_bytes_per_sec: Option<f64>,
    /// Some job was paced in this direction (a rate, or a replayed log).
    paced: bool,
    /// Some paced job's result has no `lat_intended` figures.
    intended_missing: bool,
    /// Latency on the step's clock: mean, max (exact), histogram.
    lat_mean_ns: f64,
    lat_max_ns: u64,
    histogram: Option<LatencyHistogram>,
    /// Issue-to-completion mean latency (for the lateness of a paced step).
    issue_lat_mean_ns: f64,
}

/// What one step can say, built once and asked for each requirement.
#[derive(Debug, Clone)]
pub struct StepEvidence {
    /// Why the step is partial (interrupted, or a job failed); `None` for a whole step.
    pub partial: Option<String>,
    /// Which latency is judged.
    pub clock: LatencyClock,
    /// IOs in flight in all (iodepth x workers, summed over jobs).
    pub iodepth: u64,
    /// The whole intervals of the step's series (jobs summed), oldest first.
    samples: Vec<IntervalSample>,
    /// Their length, ms.
    interval_ms: u64,
    directions: [DirectionEvidence; 2],
}

/// The jobs' histograms of `kind` in `direction`, merged; `None` when no job kept one.
pub fn merged_job_histogram(
    result: &RunResult,
    direction: Direction,
    kind: &str,
) -> Option<LatencyHistogram> {
    let mut merged: Option<LatencyHistogram> = None;
    for job in &result.jobs {
        let Some(histograms) = &job.histograms else {
            continue;
        };
        let side = match direction {
            Direction::Read => &histograms.read,
            Direction::Write => &histograms.write,
        };
        let Some((_, encoded)) = side.kinds().into_iter().find(|(k, _)| *k == kind) else {
            continue;
        };
        let Ok(h) = encoded.decode() else { continue };
        match merged.as_mut() {
            Some(m) => m.merge(&h),
            None => merged = Some(h),
        }
    }
    merged
}

fn side(job: &JobResult, direction: Direction) -> &DirectionResult {
    match direction {
        Direction::Read => &job.read,
        Direction::Write => &job.write,
    }
}

impl StepEvidence {
    /// The evidence of `result`; `histogram(direction, kind)` gives the step's merged
    /// histogram of `kind` (`lat`, `lat_intended`) — from the history, or
    /// [`merged_job_histogram`] for a result in memory.
    pub fn of(
        result: &RunResult,
        histogram: &mut dyn FnMut(Direction, &str) -> Option<LatencyHistogram>,
    ) -> StepEvidence {
        let paced_any = result.jobs.iter().any(JobResult::paced);
        let mut directions: [DirectionEvidence; 2] = Default::default();
        for direction in Direction::BOTH {
            let d = &mut directions[direction.index()];
            let mut pacing_iops = Some(0.0);
            let mut pacing_bytes = Some(0.0);
            let mut intended_count = 0u64;
            let mut intended_sum = 0.0;
            let mut issue_sum = 0.0;
            for job in &result.jobs {
                let s = side(job, direction);
                d.ios += s.ios;
                d.iops += s.iops;
                d.bytes_per_sec += s.bw_bytes_per_sec;
                issue_sum += s.lat.mean_ns * s.lat.count as f64;
                d.lat_max_ns = d.lat_max_ns.max(s.lat.max_ns);
                if s.lat_intended.count > 0 {
                    intended_count += s.lat_intended.count;
                    intended_sum += s.lat_intended.mean_ns * s.lat_intended.count as f64;
                }
                if s.ios == 0 {
                    continue;
                }
                let workers = f64::from(job.workers.max(1));
                let mean_size = s.bytes as f64 / s.ios as f64;
                let (iops, bytes) = (
                    job.workload.rate_iops[direction.index()] as f64 * workers,
                    job.workload.rate_bytes_per_sec[direction.index()] as f64 * workers,
                );
                let job_pacing = if iops > 0.0 {
                    Some((iops, iops * mean_size))
                } else if bytes > 0.0 {
                    Some((bytes / mean_size, bytes))
                } else {
                    None
                };
                match job_pacing {
                    Some((i, b)) => {
                        pacing_iops = pacing_iops.map(|p| p + i);
                        pacing_bytes = pacing_bytes.map(|p| p + b);
                    }
                    None => {
                        pacing_iops = None;
                        pacing_bytes = None;
                    }
                }
                let paced = job.paced() || iops > 0.0 || bytes > 0.0;
                d.paced |= paced;
                d.intended_missing |= paced && s.lat_intended.count == 0;
            }
            if d.ios > 0 {
                d.pacing_iops = pacing_iops.filter(|p| *p > 0.0);
                d.pacing_bytes_per_sec = pacing_bytes.filter(|p| *p > 0.0);
            }
            let issue_count: u64 = result
                .jobs
                .iter()
                .map(|j| side(j, direction).lat.count)
                .sum();
            d.issue_lat_mean_ns = if issue_count > 0 {
                issue_sum / issue_count as f64
            } else {
                0.0
            };
            if d.paced {
                d.lat_mean_ns = if intended_count > 0 {
                    intended_sum / intended_count as f64
                } else {
                    0.0
                };
                d.lat_max_ns = result
                    .jobs
                    .iter()
                    .map(|j| side(j, direction).lat_intended.max_ns)
                    .max()
                    .unwrap_or(0);
                d.histogram = histogram(direction, "lat_intended").filter(|h| !h.is_empty());
            } else {
                d.lat_mean_ns = d.issue_lat_mean_ns;
                d.histogram = histogram(direction, "lat").filter(|h| !h.is_empty());
            }
        }
        let clock = if !paced_any {
            LatencyClock::IssueToCompletion
        } else if directions
            .iter()
            .any(|d| d.intended_missing || (d.ios > 0 && d.paced && d.histogram.is_none()))
        {
            LatencyClock::IntendedNotKept
        } else {
            LatencyClock::Intended
        };
        let series = result
            .jobs
            .iter()
            .fold(Vec::new(), |acc, job| merge_series(&acc, &job.series));
        let interval_ms = series.iter().map(|s| s.duration_ms).max().unwrap_or(0);
        let samples: Vec<IntervalSample> = series
            .into_iter()
            .filter(|s| s.duration_ms == interval_ms && interval_ms > 0)
            .collect();
        let iodepth = result
            .jobs
            .iter()
            .map(|j| u64::from(j.workload.iodepth) * u64::from(j.workers.max(1)))
            .sum();
        StepEvidence {
            partial: result.partial_reason(),
            clock,
            iodepth,
            samples,
            interval_ms,
            directions,
        }
    }

    fn scoped(&self, scope: Scope) -> Vec<&DirectionEvidence> {
        match scope {
            Scope::Read => vec![&self.directions[0]],
            Scope::Write => vec![&self.directions[1]],
            Scope::Total => self.directions.iter().collect(),
        }
    }

    fn scoped_sample(scope: Scope, sample: &IntervalSample) -> IntervalDirection {
        match scope {
            Scope::Read => sample.read,
            Scope::Write => sample.write,
            Scope::Total => diskmeter_stats::merge_direction(&sample.read, &sample.write),
        }
    }

    /// The IOs the step did in `scope`.
    pub fn ios(&self, scope: Scope) -> u64 {
        self.scoped(scope).iter().map(|d| d.ios).sum()
    }

    /// The step's pacing of `measure` (IOPS or MiB/s) when every job doing IO in its scope
    /// was paced; `None` for a latency or an unpaced step.
    pub fn pacing(&self, measure: Measure) -> Option<f64> {
        let directions: Vec<&DirectionEvidence> = self
            .scoped(measure.scope())
            .into_iter()
            .filter(|d| d.ios > 0)
            .collect();
        if directions.is_empty() {
            return None;
        }
        let mut total = 0.0;
        for d in directions {
            total += match measure {
                Measure::Iops { .. } => d.pacing_iops?,
                Measure::Mibps { .. } => d.pacing_bytes_per_sec? / MIB_F64,
                Measure::LatencyMs { .. } => return None,
            };
        }
        Some(total)
    }

    /// How far behind its pacing the step ran, in words, for a paced rate it missed: how late
    /// its IOs completed against their intended issue times, its depth, and the depth the rate
    /// needs at the latency it got (Little's law), so a slow device can be told from a short
    /// queue.
    pub fn lateness(&self, scope: Scope) -> Option<String> {
        let directions: Vec<&DirectionEvidence> = self
            .scoped(scope)
            .into_iter()
            .filter(|d| d.ios > 0 && d.paced)
            .collect();
        if directions.is_empty() || self.clock != LatencyClock::Intended {
            return None;
        }
        let ios: u64 = directions.iter().map(|d| d.ios).sum();
        let weighted = |f: &dyn Fn(&DirectionEvidence) -> f64| {
            directions.iter().map(|d| f(d) * d.ios as f64).sum::<f64>() / ios as f64
        };
        let intended_ms = weighted(&|d| d.lat_mean_ns) / 1e6;
        let issue_ms = weighted(&|d| d.issue_lat_mean_ns) / 1e6;
        let worst_ms = directions.iter().map(|d| d.lat_max_ns).max().unwrap_or(0) as f64 / 1e6;
        let rate: f64 = directions
            .iter()
            .map(|d| d.pacing_iops.unwrap_or(d.iops))
            .sum();
        let needed = rate * issue_ms / 1e3;
        Some(format!(
            "the run fell behind its pacing: its IOs completed on average {} after their \
             intended issue times (worst {}) against {} from issue to completion, \
             at iodepth {}; {} IOPS at that latency needs about {:.1} in flight ({})",
            diskmeter_units::format_duration(intended_ms * 1e6),
            diskmeter_units::format_duration(worst_ms * 1e6),
            diskmeter_units::format_duration(issue_ms * 1e6),
            self.iodepth,
            crate::requirements::format_figure(Some(rate)),
            needed,
            if needed > self.iodepth as f64 * 0.8 {
                "the queue was too short for the target's latency"
            } else {
                "the queue was deep enough: the target fell behind"
            }
        ))
    }

    /// The figure `measure` asks for with its 95 % interval; `Err` says why it cannot be
    /// measured on this step.
    pub fn estimate(&self, measure: Measure) -> Result<Estimate, NotMeasured> {
        let scope = measure.scope();
        if self.ios(scope) == 0 {
            return Err(NotMeasured::NoIo(scope));
        }
        match measure {
            Measure::Iops { .. } => Ok(self.rate(scope, false)),
            Measure::Mibps { .. } => Ok(self.rate(scope, true)),
            Measure::LatencyMs { statistic, .. } => {
                if self.clock == LatencyClock::IntendedNotKept {
                    return Err(NotMeasured::IntendedNotKept);
                }
                match statistic {
                    LatencyStatistic::Mean => Ok(self.latency_mean(scope)),
                    LatencyStatistic::Percentile(p) if p >= 100.0 => Ok(self.latency_max(scope)),
                    LatencyStatistic::Percentile(p) => self.latency_percentile(scope, p),
                    LatencyStatistic::IntervalPercentile(p) => {
                        self.interval_latency_percentile(scope, p)
                    }
                }
            }
        }
    }

    fn samples_text(&self, n: usize) -> String {
        if self.interval_ms == 1000 {
            format!("{n} whole 1 s samples")
        } else {
            format!("{n} whole {} ms samples", self.interval_ms)
        }
    }

    fn rate(&self, scope: Scope, bytes: bool) -> Estimate {
        let directions = self.scoped(scope);
        let value = if bytes {
            directions.iter().map(|d| d.bytes_per_sec).sum::<f64>() / MIB_F64
        } else {
            directions.iter().map(|d| d.iops).sum::<f64>()
        };
        let values: Vec<f64> = self
            .samples
            .iter()
            .map(|s| {
                let d = Self::scoped_sample(scope, s);
                if bytes {
                    d.bytes_per_sec / MIB_F64
                } else {
                    d.iops
                }
            })
            .collect();
        let estimate = batch_means(&values);
        let method = if estimate.half_width.is_finite() {
            format!(
                "batch means of {} in {} batches",
                self.samples_text(values.len()),
                estimate.batches
            )
        } else {
            format!(
                "no interval: {} are too few for batch means (4 or more)",
                self.samples_text(values.len())
            )
        };
        Estimate {
            value,
            low: value - estimate.half_width,
            high: value + estimate.half_width,
            method,
        }
    }

    fn latency_mean(&self, scope: Scope) -> Estimate {
        let directions = self.scoped(scope);
        let ios: u64 = directions.iter().map(|d| d.ios).sum();
        let value = directions
            .iter()
            .map(|d| d.lat_mean_ns * d.ios as f64)
            .sum::<f64>()
            / ios as f64
            / 1e6;
        let (values, intended) = self.interval_means_ms(scope);
        // A series saved before the intended clock was kept per interval has only zeros.
        let kept = !intended || values.iter().any(|v| *v > 0.0);
        let estimate = batch_means(&values);
        if !kept || !estimate.half_width.is_finite() {
            return Estimate {
                value,
                low: f64::NEG_INFINITY,
                high: f64::INFINITY,
                method: if kept {
                    format!(
                        "no interval: {} with IO are too few for batch means (4 or more)",
                        self.samples_text(values.len())
                    )
                } else {
                    "no interval: the step's 1 s means from the intended issue time were not kept"
                        .to_string()
                },
            };
        }
        Estimate {
            value,
            low: value - estimate.half_width,
            high: value + estimate.half_width,
            method: format!(
                "batch means of the 1 s means of {} in {} batches",
                self.samples_text(values.len()),
                estimate.batches
            ),
        }
    }

    /// The mean latency of each whole interval with IO in `scope`, ms, on the step's clock,
    /// and whether that clock is the intended one.
    fn interval_means_ms(&self, scope: Scope) -> (Vec<f64>, bool) {
        let intended = self.clock == LatencyClock::Intended;
        let values = self
            .samples
            .iter()
            .map(|s| Self::scoped_sample(scope, s))
            .filter(|d| d.ios > 0)
            .map(|d| {
                if intended {
                    d.lat_intended_mean_ns / 1e6
                } else {
                    d.lat_mean_ns / 1e6
                }
            })
            .collect();
        (values, intended)
    }

    fn latency_max(&self, scope: Scope) -> Estimate {
        let max_ns = self
            .scoped(scope)
            .iter()
            .map(|d| d.lat_max_ns)
            .max()
            .unwrap_or(0);
        let value = max_ns as f64 / 1e6;
        Estimate {
            value,
            low: value,
            high: value,
            method: "exact: the largest of every IO".to_string(),
        }
    }

    fn latency_percentile(&self, scope: Scope, percent: f64) -> Result<Estimate, NotMeasured> {
        let mut merged: Option<LatencyHistogram> = None;
        for d in self.scoped(scope).into_iter().filter(|d| d.ios > 0) {
            let Some(h) = &d.histogram else {
                return Err(NotMeasured::HistogramsNotKept);
            };
            match merged.as_mut() {
                Some(m) => m.merge(h),
                None => merged = Some(h.clone()),
            }
        }
        let histogram = merged.ok_or(NotMeasured::HistogramsNotKept)?;
        let n = histogram.count();
        let (low_rank, high_rank) = order_statistic_ranks(n, percent / 100.0);
        let at_rank = |rank: u64| histogram.value_at_percentile(rank as f64 / n as f64 * 100.0);
        let value = histogram.value_at_percentile(percent) as f64 / 1e6;
        Ok(Estimate {
            value,
            low: at_rank(low_rank) as f64 / 1e6 * (1.0 - HISTOGRAM_RELATIVE_ERROR),
            high: at_rank(high_rank) as f64 / 1e6 * (1.0 + HISTOGRAM_RELATIVE_ERROR),
            method: format!(
                "order statistics of {} IOs, ranks {} to {}, histogram error {} %",
                diskmeter_units::format_thousands(n),
                diskmeter_units::format_thousands(low_rank),
                diskmeter_units::format_thousands(high_rank),
                HISTOGRAM_RELATIVE_ERROR * 100.0
            ),
        })
    }

    fn interval_latency_percentile(
        &self,
        scope: Scope,
        percent: f64,
    ) -> Result<Estimate, NotMeasured> {
        let (mut values, intended) = self.interval_means_ms(scope);
        if values.is_empty() {
            return Err(NotMeasured::NoWholeInterval);
        }
        if intended && values.iter().all(|v| *v == 0.0) {
            return Err(NotMeasured::IntervalMeansNotKept);
        }
        values.sort_by(f64::total_cmp);
        let n = values.len() as u64;
        let nearest = |rank: u64| values[(rank.clamp(1, n) - 1) as usize];
        let rank = ((percent / 100.0 * n as f64).ceil() as u64).clamp(1, n);
        let (low_rank, high_rank) = order_statistic_ranks(n, percent / 100.0);
        Ok(Estimate {
            value: nearest(rank),
            low: nearest(low_rank),
            high: nearest(high_rank),
            method: format!(
                "order statistics of the 1 s means of {}, ranks {low_rank} to {high_rank}",
                self.samples_text(values.len())
            ),
        })
    }
}
