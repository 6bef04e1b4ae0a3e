//! `RunResult::build`: merges workers into reported jobs and computes every derived figure.
//!
//! Merging follows fio: workers of the same group whose job has `group_reporting` become one
//! reported job, named after the first; every other worker is reported on its own. Rates are
//! computed over the longest worker's runtime, CPU percentages over the summed runtimes.

use std::borrow::Cow;
use std::collections::HashMap;

use diskmeter_stats::{
    DepthDistribution, DirectionStats, IntervalSample, LatencyHistogram, WorkerStats, DEPTH_LABELS,
    SUBMIT_LABELS,
};
use diskmeter_workload::JobSpec;

use crate::input::{JobInput, RunInput, SteadyStateInput, TargetInfo};
use crate::schema::{
    CpuResult, DepthResult, DirectionResult, GroupDirection, GroupResult, IoErrorSummary,
    JobOption, JobResult, JobWorkload, LabeledPercent, LatencyBucket, LatencySummary, Percentile,
    RunResult, SampleStats, SCHEMA_VERSION,
};

/// Exclusive upper bounds of fio's latency buckets, ns: its `latency_ns` keys (2 ns ..= 1000 ns),
/// `latency_us` keys (2 us ..= 1000 us) and `latency_ms` keys (2 ms ..= 2000 ms); one more,
/// open-ended bucket (fio's ">=2000" ms) follows.
pub const LAT_BUCKET_EDGES_NS: [u64; 31] = [
    2,
    4,
    10,
    20,
    50,
    100,
    250,
    500,
    750,
    1_000,
    2_000,
    4_000,
    10_000,
    20_000,
    50_000,
    100_000,
    250_000,
    500_000,
    750_000,
    1_000_000,
    2_000_000,
    4_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    750_000_000,
    1_000_000_000,
    2_000_000_000,
];

/// Workers being merged into one reported job. Borrows the input: a worker reported on its
/// own is read in place, and only a `group_reporting` group's sum is a new copy (the workers'
/// histograms are the bulk of a run's memory, so a second copy of every one would double it).
struct Pending<'a> {
    spec: &'a JobSpec,
    group_id: u32,
    clone_index: u32,
    workers: u32,
    stats: Cow<'a, WorkerStats>,
    workers_runtime_ns: u64,
    targets: Vec<TargetInfo>,
    /// (clone index, message) of every member that failed.
    errors: Vec<(u32, String)>,
    /// The steady-state outcome (shared by a group's members: the first one given).
    steady_state: Option<&'a SteadyStateInput>,
}

impl<'a> Pending<'a> {
    fn new(job: &'a JobInput) -> Self {
        let errors = job.error.clone().map(|e| vec![(job.clone_index, e)]);
        Pending {
            workers_runtime_ns: job.stats.runtime_ns,
            spec: &job.spec,
            group_id: job.group_id,
            clone_index: job.clone_index,
            workers: 1,
            stats: Cow::Borrowed(&job.stats),
            targets: job.targets.clone(),
            errors: errors.unwrap_or_default(),
            steady_state: job.steady_state.as_ref(),
        }
    }

    fn absorb(&mut self, job: &'a JobInput) {
        self.workers += 1;
        self.workers_runtime_ns += job.stats.runtime_ns;
        self.stats.to_mut().merge(&job.stats);
        for target in &job.targets {
            if !self.targets.iter().any(|t| t.path == target.path) {
                self.targets.push(target.clone());
            }
        }
        if let Some(error) = &job.error {
            self.errors.push((job.clone_index, error.clone()));
        }
        if self.steady_state.is_none() {
            self.steady_state = job.steady_state.as_ref();
        }
    }
}

impl RunResult {
    /// Builds the reported result from the workers' raw statistics.
    pub fn build(input: RunInput) -> RunResult {
        Self::build_from(&input)
    }

    /// [`RunResult::build`] for a caller that keeps the input (to save its histograms): reads
    /// the workers' statistics in place instead of needing a copy of them.
    pub fn build_from(input: &RunInput) -> RunResult {
        let mut pending: Vec<Pending> = Vec::new();
        let mut merged_group: HashMap<u32, usize> = HashMap::new();
        for job in &input.jobs {
            if job.spec.group_reporting {
                if let Some(&at) = merged_group.get(&job.group_id) {
                    pending[at].absorb(job);
                    continue;
                }
                merged_group.insert(job.group_id, pending.len());
            }
            pending.push(Pending::new(job));
        }
        let global_options = pending
            .first()
            .and_then(|p| p.spec.given.as_ref())
            .map(|given| JobOption::list_from(&given.global))
            .unwrap_or_default();
        let mut jobs: Vec<JobResult> = pending.into_iter().map(job_result).collect();
        let groups = groups_of(&mut jobs);
        RunResult {
            schema_version: SCHEMA_VERSION,
            meta: input.meta.clone(),
            jobs,
            groups,
            ranks: Vec::new(),
            scale_out: None,
            global_options,
        }
    }
}

/// fio's "Run status group" totals of `jobs`, and each job's share of its group's
/// bandwidth (`bw_percent_of_group`) set from them.
pub(crate) fn groups_of(jobs: &mut [JobResult]) -> Vec<GroupResult> {
    let groups = group_results(jobs);
    for job in jobs.iter_mut() {
        let group = groups.iter().find(|g| g.group_id == job.group_id);
        if let Some(group) = group {
            job.read.bw_percent_of_group = percent(job.read.bw_bytes_per_sec, group.read);
            job.write.bw_percent_of_group = percent(job.write.bw_bytes_per_sec, group.write);
            if let (Some(trim), Some(group_trim)) = (job.trim.as_mut(), group.trim) {
                trim.bw_percent_of_group = percent(trim.bw_bytes_per_sec, group_trim);
            }
        }
    }
    groups
}

/// A job's bandwidth as a percentage of its group's aggregate.
fn percent(bw: f64, group: GroupDirection) -> f64 {
    if group.bw_bytes_per_sec > 0.0 {
        bw * 100.0 / group.bw_bytes_per_sec
    } else {
        0.0
    }
}

/// Rate of `count` over `ns`; 0 over no time rather than infinity.
pub(crate) fn per_second(count: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        count as f64 * 1e9 / ns as f64
    }
}

fn job_result(p: Pending) -> JobResult {
    let stats = &p.stats;
    let percentiles = &p.spec.percentile_list;
    let read = direction_result(&stats.read, stats.runtime_ns, &stats.series, percentiles, 0);
    let write = direction_result(
        &stats.write,
        stats.runtime_ns,
        &stats.series,
        percentiles,
        1,
    );
    JobResult {
        name: p.spec.name.clone(),
        group_id: p.group_id,
        clone_index: (p.workers == 1).then_some(p.clone_index),
        workers: p.workers,
        targets: p.targets,
        runtime_ns: stats.runtime_ns,
        workers_runtime_ns: p.workers_runtime_ns,
        read,
        write,
        lat_buckets: lat_buckets(
            [&stats.read.clat, &stats.write.clat],
            [&stats.read.lat, &stats.write.lat],
        ),
        cpu: cpu_result(stats, p.workers_runtime_ns),
        depth: depth_result(&stats.depth),
        series: stats.series.clone(),
        sync: (stats.sync.count() > 0).then(|| summarize(&stats.sync, percentiles)),
        verify: verify_result(&stats.verify),
        trim: (stats.trim.ios + stats.trim.errors > 0)
            .then(|| direction_result(&stats.trim, stats.runtime_ns, &[], percentiles, 1)),
        io_errors: io_error_summary(stats, p.spec),
        error: error_text(&p.errors, p.workers),
        steady_state: crate::steady::steady_state_result(p.spec, p.steady_state).map(|mut ss| {
            // The monitor's clock and the workers' start microseconds apart after the
            // start barrier: a job cannot have become steady after it stopped.
            ss.attained_at_ns = ss.attained_at_ns.map(|at| at.min(stats.runtime_ns));
            ss
        }),
        iops_mean_ci: crate::steady::iops_confidence(&stats.series),
        latency_target: p.spec.control.latency_search().and_then(|search| {
            Some(crate::schema::LatencyTargetResult {
                target_ns: search.target_ns,
                window_ns: search.window_ns,
                percentile: search.percentile,
                depth: stats.latency_target_depth?,
            })
        }),
        connections: p.spec.control.transactions_per_connection.map(|every| {
            let c = &stats.connections;
            crate::schema::ConnectionResult::of(
                every,
                c.count,
                c.total_ns,
                c.max_ns,
                stats.runtime_ns,
            )
        }),
        options: JobOption::list_of(p.spec),
        given_options: p
            .spec
            .given
            .as_ref()
            .map(|given| JobOption::list_from(&given.job)),
        workload: JobWorkload::of(p.spec),
        histograms: Some(crate::histograms::JobHistograms::of(stats)),
    }
}

/// The job's IO errors, when it had any or goes on after them.
fn io_error_summary(stats: &WorkerStats, spec: &JobSpec) -> Option<IoErrorSummary> {
    let total = stats.total_errors();
    let continues = spec.trim.continues_on_errors();
    if total == 0 && !continues {
        return None;
    }
    let first_errno = stats.io_errors.first_errno;
    Some(IoErrorSummary {
        total,
        first_errno,
        first_error: first_errno.map(errno_text),
        continue_on_error: continues,
        dump: stats.io_errors.dump.clone(),
        dump_dropped: stats.io_errors.dropped,
    })
}

/// The kernel's text for `errno`, without the "(os error N)" std adds.
pub(crate) fn errno_text(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The job's error: the message itself for a single worker; each failed member's message
/// prefixed with its clone for a merged group.
fn error_text(errors: &[(u32, String)], workers: u32) -> Option<String> {
    match errors {
        [] => None,
        [(_, message)] if workers == 1 => Some(message.clone()),
        _ => {
            let parts: Vec<String> = errors
                .iter()
                .map(|(clone, message)| format!("clone {clone}: {message}"))
                .collect();
            Some(parts.join("; "))
        }
    }
}

pub(crate) fn direction_result(
    d: &DirectionStats,
    job_runtime_ns: u64,
    series: &[IntervalSample],
    percentiles: &[f64],
    index: usize,
) -> DirectionResult {
    let runtime_ns = if d.ios > 0 { job_runtime_ns } else { 0 };
    let (bw, iops) = if d.ios > 0 {
        sample_stats(series, index)
    } else {
        Default::default()
    };
    DirectionResult {
        ios: d.ios,
        bytes: d.bytes,
        short_ios: d.short_ios,
        errors: d.errors,
        runtime_ns,
        iops: per_second(d.ios, runtime_ns),
        bw_bytes_per_sec: per_second(d.bytes, runtime_ns),
        bw_percent_of_group: 0.0,
        slat: summarize(&d.slat, percentiles),
        clat: summarize(&d.clat, percentiles),
        lat: summarize(&d.lat, percentiles),
        lat_intended: summarize(&d.lat_intended, percentiles),
        bw_samples_bytes_per_sec: bw,
        iops_samples: iops,
    }
}

/// Summarizes a histogram; percentiles are listed only when something was recorded.
pub(crate) fn summarize(h: &LatencyHistogram, percentiles: &[f64]) -> LatencySummary {
    let percentiles = if h.is_empty() {
        Vec::new()
    } else {
        percentiles
            .iter()
            .map(|&percent| Percentile {
                percent,
                value_ns: h.value_at_percentile(percent),
            })
            .collect()
    };
    LatencySummary {
        count: h.count(),
        min_ns: h.min(),
        max_ns: h.max(),
        mean_ns: h.mean(),
        stddev_ns: h.stddev(),
        saturated: h.saturated(),
        percentiles,
    }
}

/// Bandwidth and IOPS statistics over the full-length intervals of a series. The last interval
/// is usually cut short by the end of the run; leaving it out keeps it from posing as a dip.
pub(crate) fn sample_stats(series: &[IntervalSample], index: usize) -> (SampleStats, SampleStats) {
    let full_ms = series.iter().map(|s| s.duration_ms).max().unwrap_or(0);
    let pick = |s: &IntervalSample| if index == 0 { s.read } else { s.write };
    let full: Vec<_> = series
        .iter()
        .filter(|s| s.duration_ms == full_ms)
        .map(pick)
        .collect();
    let bw: Vec<f64> = full.iter().map(|d| d.bytes_per_sec).collect();
    let iops: Vec<f64> = full.iter().map(|d| d.iops).collect();
    (stats_of(&bw), stats_of(&iops))
}

/// Min, max, mean and sample standard deviation of `values`.
fn stats_of(values: &[f64]) -> SampleStats {
    if values.is_empty() {
        return SampleStats::default();
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let stddev = if values.len() > 1 {
        (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    SampleStats {
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        mean,
        stddev,
        samples: values.len() as u64,
    }
}

/// fio's latency buckets over completion latency of both directions (total latency when the
/// runner recorded no completion latency).
pub(crate) fn lat_buckets(
    clat: [&LatencyHistogram; 2],
    lat: [&LatencyHistogram; 2],
) -> Vec<LatencyBucket> {
    let use_clat = clat.iter().any(|h| !h.is_empty());
    let mut all = LatencyHistogram::new();
    for h in if use_clat { clat } else { lat } {
        all.merge(h);
    }
    let counts = all.count_by_ranges(&LAT_BUCKET_EDGES_NS);
    let total = all.count();
    counts
        .iter()
        .enumerate()
        .map(|(i, &count)| LatencyBucket {
            lower_ns: if i == 0 {
                0
            } else {
                LAT_BUCKET_EDGES_NS[i - 1]
            },
            upper_ns: LAT_BUCKET_EDGES_NS.get(i).copied(),
            count,
            percent: if total == 0 {
                0.0
            } else {
                count as f64 * 100.0 / total as f64
            },
        })
        .collect()
}

fn cpu_result(stats: &WorkerStats, workers_runtime_ns: u64) -> CpuResult {
    cpu_result_of(stats.cpu, workers_runtime_ns)
}

/// CPU figures of `cpu`, the percentages over the workers' summed runtime.
pub(crate) fn cpu_result_of(cpu: diskmeter_stats::CpuUsage, workers_runtime_ns: u64) -> CpuResult {
    let share = |ns: u64| {
        if workers_runtime_ns == 0 {
            0.0
        } else {
            ns as f64 * 100.0 / workers_runtime_ns as f64
        }
    };
    CpuResult {
        usr_percent: share(cpu.user_ns),
        sys_percent: share(cpu.sys_ns),
        user_ns: cpu.user_ns,
        sys_ns: cpu.sys_ns,
        voluntary_ctx: cpu.voluntary_ctx,
        involuntary_ctx: cpu.involuntary_ctx,
        ctx: cpu.voluntary_ctx + cpu.involuntary_ctx,
    }
}

fn depth_result(depth: &DepthDistribution) -> DepthResult {
    let label = |labels: [&str; 7], percents: [f64; 7]| {
        labels
            .iter()
            .zip(percents)
            .map(|(label, percent)| LabeledPercent {
                label: label.to_string(),
                percent,
            })
            .collect()
    };
    DepthResult {
        iodepth: label(DEPTH_LABELS, depth.depth_percent()),
        submit: label(SUBMIT_LABELS, depth.submit_percent()),
        complete: label(SUBMIT_LABELS, depth.complete_percent()),
    }
}

/// fio's "Run status group" totals, one per group id, ascending.
fn group_results(jobs: &[JobResult]) -> Vec<GroupResult> {
    let mut ids: Vec<u32> = jobs.iter().map(|j| j.group_id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
        .map(|group_id| {
            let members: Vec<&JobResult> = jobs.iter().filter(|j| j.group_id == group_id).collect();
            GroupResult {
                group_id,
                workers: members.iter().map(|j| j.workers).sum(),
                read: group_direction(members.iter().map(|j| &j.read)),
                write: group_direction(members.iter().map(|j| &j.write)),
                trim: Some(group_direction(
                    members.iter().filter_map(|j| j.trim.as_ref()),
                ))
                .filter(|trim| trim.ios > 0),
            }
        })
        .collect()
}

fn group_direction<'a>(dirs: impl Iterator<Item = &'a DirectionResult>) -> GroupDirection {
    let active: Vec<&DirectionResult> = dirs.filter(|d| d.ios > 0).collect();
    if active.is_empty() {
        return GroupDirection::default();
    }
    let io_bytes = active.iter().map(|d| d.bytes).sum();
    let max_runtime_ns = active.iter().map(|d| d.runtime_ns).max().unwrap_or(0);
    let bws = active.iter().map(|d| d.bw_bytes_per_sec);
    GroupDirection {
        ios: active.iter().map(|d| d.ios).sum(),
        io_bytes,
        bw_bytes_per_sec: per_second(io_bytes, max_runtime_ns),
        min_bw_bytes_per_sec: bws.clone().fold(f64::INFINITY, f64::min),
        max_bw_bytes_per_sec: bws.fold(0.0, f64::max),
        min_runtime_ns: active.iter().map(|d| d.runtime_ns).min().unwrap_or(0),
        max_runtime_ns,
    }
}

/// The verification summary, when the job read anything back.
pub(crate) fn verify_result(
    v: &diskmeter_stats::VerifyStats,
) -> Option<crate::schema::VerifyResult> {
    (v.blocks > 0).then(|| crate::schema::VerifyResult {
        blocks: v.blocks,
        bytes: v.bytes,
        errors: v.errors,
        runtime_ns: v.runtime_ns,
        bw_bytes_per_sec: per_second(v.bytes, v.runtime_ns),
        failures: v.failures.clone(),
    })
}
