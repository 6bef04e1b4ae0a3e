//! The latency a run's headline states, and on which clock. A run that was paced (fio
//! `rate`, `rate_iops`) or replayed a log on its timestamps is judged by the latency from
//! each IO's *intended* issue time (`lat_intended`): a device that stalls delays the IOs due
//! behind it, and issue-to-completion latency, which starts only when an IO finally went
//! out, hides that wait (coordinated omission; HdrHistogram's `recordValueWithExpectedInterval`
//! and Gil Tene's "How NOT to measure latency" make the same point). A paced run saved
//! before diskmeter kept those figures has no intended-time latency: its headline latency is
//! not known, rather than the other clock's figure shown in its place.

use crate::{JobResult, LatencySummary, RunResult};
use diskmeter_workload::Direction;

/// Which clock a headline latency is measured on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyClock {
    /// From when each IO was issued to its completion (an unpaced run).
    Issue,
    /// From when each IO was due (its intended issue time) to its completion: a paced or
    /// replayed run.
    Intended,
}

/// A run's headline latency: its mean over every IO and the largest listed p99 of its jobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadlineLatency {
    /// The clock the figures are on.
    pub clock: LatencyClock,
    /// Mean latency of every IO (weighted by IOs), ns; `None` without IOs or when not known.
    pub mean_ns: Option<f64>,
    /// The largest p99 any job listed, ns: completion latency (clat) on the issue clock,
    /// `lat_intended` on the intended one; `None` when no job listed a p99, nothing
    /// completed, or it is not known.
    pub p99_ns: Option<u64>,
    /// The run was paced but its result has no intended-time latency (saved by a diskmeter
    /// that did not keep it): the figures are not known.
    pub unknown: bool,
}

impl HeadlineLatency {
    /// "intended-time latency" or "latency": how a view labels the figures.
    pub fn label(&self) -> &'static str {
        match self.clock {
            LatencyClock::Issue => "latency",
            LatencyClock::Intended => "intended-time latency",
        }
    }

    /// Why the figures are missing, for a view to print in their place.
    pub const UNKNOWN: &'static str =
        "intended-time latency not known (saved before diskmeter kept it)";
}

/// The (mean, p99) summaries a job's headline is drawn from on `clock`: `None` when the job
/// is paced and has no intended-time latency to give.
fn summaries(
    job: &JobResult,
    clock: LatencyClock,
) -> Option<[(&LatencySummary, &LatencySummary); 2]> {
    let ios = job.read.ios + job.write.ios;
    if clock == LatencyClock::Intended && job.paced() {
        let kept = job.read.lat_intended.count + job.write.lat_intended.count;
        if ios > 0 && kept == 0 {
            return None;
        }
        return Some([
            (&job.read.lat_intended, &job.read.lat_intended),
            (&job.write.lat_intended, &job.write.lat_intended),
        ]);
    }
    Some([
        (&job.read.lat, &job.read.clat),
        (&job.write.lat, &job.write.clat),
    ])
}

impl RunResult {
    /// The headline latency: on the intended clock when any job was paced or replayed (the
    /// other jobs on their issue clock), else issue to completion.
    pub fn headline_latency(&self) -> HeadlineLatency {
        let clock = if self.jobs.iter().any(JobResult::paced) {
            LatencyClock::Intended
        } else {
            LatencyClock::Issue
        };
        let mut sums = (0.0, 0u64);
        let mut p99: Option<u64> = None;
        for job in &self.jobs {
            let Some(directions) = summaries(job, clock) else {
                return HeadlineLatency {
                    clock,
                    mean_ns: None,
                    p99_ns: None,
                    unknown: true,
                };
            };
            for (mean, tail) in directions {
                sums.0 += mean.mean_ns * mean.count as f64;
                sums.1 += mean.count;
                p99 = p99.max(tail.percentile(99.0));
            }
        }
        HeadlineLatency {
            clock,
            mean_ns: (sums.1 > 0).then(|| sums.0 / sums.1 as f64),
            p99_ns: p99,
            unknown: false,
        }
    }
}

impl RunResult {
    /// The largest `percent` percentile any job listed for `direction` on the headline's
    /// clock ([`RunResult::headline_latency`]): completion latency on the issue clock,
    /// intended-time latency for a paced job. `None` when no job listed it, nothing
    /// completed in that direction, or the paced run kept no intended-time latency.
    pub fn headline_percentile_ns(&self, direction: Direction, percent: f64) -> Option<u64> {
        let clock = self.headline_latency().clock;
        let index = match direction {
            Direction::Read => 0,
            Direction::Write => 1,
        };
        let mut largest: Option<u64> = None;
        for job in &self.jobs {
            let directions = summaries(job, clock)?;
            largest = largest.max(directions[index].1.percentile(percent));
        }
        largest
    }
}
