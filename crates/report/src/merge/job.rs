//! Merging one reported job across ranks: counters summed, histograms merged exactly and
//! every summary recomputed from them, series summed interval by interval.

use diskmeter_stats::{CpuUsage, DirectionStats, IntervalSample, LatencyHistogram};

use super::{MergeError, Rank};
use crate::build::{cpu_result_of, direction_result, lat_buckets, summarize};
use crate::histograms::{DirectionHistograms, EncodedHistogram, JobHistograms};
use crate::schema::{
    DepthResult, DirectionResult, IoErrorSummary, JobResult, LabeledPercent, RunResult,
    VerifyResult,
};

/// Most verify failures a merged job lists, as a job does (`VerifyResult::failures`).
const MAX_VERIFY_FAILURES: usize = 64;

/// Refuses a result with a job that carries no histograms.
pub(crate) fn require_histograms(rank: &Rank, result: &RunResult) -> Result<(), MergeError> {
    match result.jobs.iter().find(|j| j.histograms.is_none()) {
        Some(job) => Err(no_histograms(rank, job)),
        None => Ok(()),
    }
}

fn no_histograms(rank: &Rank, job: &JobResult) -> MergeError {
    MergeError::NoHistograms {
        input: rank.input,
        rank: rank.label.clone(),
        job: job.name.clone(),
    }
}

/// One direction being merged: the counters and the four histograms.
#[derive(Default)]
struct DirectionSum {
    stats: DirectionStats,
    seen: bool,
}

impl DirectionSum {
    fn add(
        &mut self,
        rank: &Rank,
        job: &JobResult,
        name: &str,
        counts: &DirectionResult,
        histograms: &DirectionHistograms,
    ) -> Result<(), MergeError> {
        self.seen = true;
        self.stats.ios += counts.ios;
        self.stats.bytes += counts.bytes;
        self.stats.short_ios += counts.short_ios;
        self.stats.errors += counts.errors;
        for (kind, encoded) in histograms.kinds() {
            let target = match kind {
                "slat" => &mut self.stats.slat,
                "clat" => &mut self.stats.clat,
                "lat" => &mut self.stats.lat,
                _ => &mut self.stats.lat_intended,
            };
            merge_into(target, encoded, rank, job, &format!("{name} {kind}"))?;
        }
        Ok(())
    }
}

fn merge_into(
    target: &mut LatencyHistogram,
    encoded: &EncodedHistogram,
    rank: &Rank,
    job: &JobResult,
    what: &str,
) -> Result<(), MergeError> {
    if encoded.is_empty() {
        return Ok(());
    }
    encoded
        .merge_into(target)
        .map_err(|source| MergeError::BadHistogram {
            input: rank.input,
            rank: rank.label.clone(),
            job: job.name.clone(),
            what: what.to_string(),
            source,
        })
}

/// The aggregate of one job position over the ranks (`parts` in rank order, at least one).
pub(crate) fn merge_job(parts: &[(&Rank, &JobResult)]) -> Result<JobResult, MergeError> {
    let first = parts[0].1;
    let mut read = DirectionSum::default();
    let mut write = DirectionSum::default();
    let mut trim = DirectionSum::default();
    let mut sync = LatencyHistogram::new();
    let mut synced = false;
    let mut cpu = CpuUsage::default();
    let mut series: Vec<IntervalSample> = Vec::new();
    let (mut runtime_ns, mut workers_runtime_ns, mut workers) = (0u64, 0u64, 0u32);
    for &(rank, job) in parts {
        let histograms = job
            .histograms
            .as_ref()
            .ok_or_else(|| no_histograms(rank, job))?;
        read.add(rank, job, "read", &job.read, &histograms.read)?;
        write.add(rank, job, "write", &job.write, &histograms.write)?;
        if let Some(counts) = &job.trim {
            let empty = DirectionHistograms::default();
            let trims = histograms.trim.as_ref().unwrap_or(&empty);
            trim.add(rank, job, "trim", counts, trims)?;
        }
        if job.sync.is_some() {
            synced = true;
            merge_into(&mut sync, &histograms.sync, rank, job, "sync")?;
        }
        cpu.add(&CpuUsage {
            user_ns: job.cpu.user_ns,
            sys_ns: job.cpu.sys_ns,
            voluntary_ctx: job.cpu.voluntary_ctx,
            involuntary_ctx: job.cpu.involuntary_ctx,
        });
        add_series(&mut series, &job.series);
        runtime_ns = runtime_ns.max(job.runtime_ns);
        workers_runtime_ns += job.workers_runtime_ns;
        workers += job.workers;
    }
    let percentiles = percentile_list(parts);
    let stats = [&read.stats, &write.stats];
    let merged_histograms = JobHistograms {
        read: DirectionHistograms::of(&read.stats),
        write: DirectionHistograms::of(&write.stats),
        trim: trim.seen.then(|| DirectionHistograms::of(&trim.stats)),
        sync: EncodedHistogram::encode(&sync),
    };
    Ok(JobResult {
        name: first.name.clone(),
        group_id: first.group_id,
        clone_index: None,
        workers,
        options: first.options.clone(),
        workload: first.workload.clone(),
        targets: targets(parts),
        runtime_ns,
        workers_runtime_ns,
        read: direction_result(&read.stats, runtime_ns, &series, &percentiles, 0),
        write: direction_result(&write.stats, runtime_ns, &series, &percentiles, 1),
        lat_buckets: lat_buckets(stats.map(|s| &s.clat), stats.map(|s| &s.lat)),
        cpu: cpu_result_of(cpu, workers_runtime_ns),
        depth: depth(parts),
        sync: synced.then(|| summarize(&sync, &percentiles)),
        verify: verify(parts),
        trim: trim
            .seen
            .then(|| direction_result(&trim.stats, runtime_ns, &[], &percentiles, 1)),
        io_errors: io_errors(parts),
        error: errors(parts),
        // Steady state is judged per rank, over its own samples: each rank's verdict is in
        // `ranks[]`; the aggregate makes none of its own.
        steady_state: None,
        latency_target: parts
            .iter()
            .filter_map(|(_, job)| job.latency_target)
            .min_by_key(|target| target.depth),
        connections: connections(parts, runtime_ns),
        iops_mean_ci: crate::steady::iops_confidence(&series),
        histograms: Some(merged_histograms),
        series,
    })
}

/// The ranks' connection-rate tests added up (`None` when no rank tested connections).
fn connections(
    parts: &[(&Rank, &JobResult)],
    runtime_ns: u64,
) -> Option<crate::schema::ConnectionResult> {
    let tested: Vec<_> = parts
        .iter()
        .filter_map(|(_, job)| job.connections)
        .collect();
    let first = tested.first()?;
    let count = tested.iter().map(|c| c.count).sum();
    let total_ns = tested.iter().map(|c| c.total_ns).sum();
    let max_ns = tested.iter().map(|c| c.max_ns).max().unwrap_or(0);
    let every = first.transactions_per_connection;
    Some(crate::schema::ConnectionResult::of(
        every, count, total_ns, max_ns, runtime_ns,
    ))
}

/// The job's `percentile_list`: the percents of the first summary that lists any (every
/// summary of a job lists the same; an empty one lists none).
fn percentile_list(parts: &[(&Rank, &JobResult)]) -> Vec<f64> {
    for (_, job) in parts {
        let mut summaries = vec![
            &job.read.clat,
            &job.read.lat,
            &job.write.clat,
            &job.write.lat,
        ];
        summaries.extend([&job.read.slat, &job.write.slat]);
        if let Some(trim) = &job.trim {
            summaries.push(&trim.clat);
        }
        if let Some(found) = summaries.iter().find(|s| !s.percentiles.is_empty()) {
            return found.percentiles.iter().map(|p| p.percent).collect();
        }
    }
    Vec::new()
}

/// Adds `other` to `sum` interval by interval, by index: each rank's series starts at its
/// own phase start, which the ranks share (within the start skew `scale_out` reports).
fn add_series(sum: &mut Vec<IntervalSample>, other: &[IntervalSample]) {
    for (index, sample) in other.iter().enumerate() {
        match sum.get_mut(index) {
            None => sum.push(*sample),
            Some(total) => {
                total.duration_ms = total.duration_ms.max(sample.duration_ms);
                total.read = diskmeter_stats::merge_direction(&total.read, &sample.read);
                total.write = diskmeter_stats::merge_direction(&total.write, &sample.write);
            }
        }
    }
}

/// Every rank's targets, each path once.
fn targets(parts: &[(&Rank, &JobResult)]) -> Vec<crate::input::TargetInfo> {
    let mut out: Vec<crate::input::TargetInfo> = Vec::new();
    for (_, job) in parts {
        for target in &job.targets {
            if !out.iter().any(|t| t.path == target.path) {
                out.push(target.clone());
            }
        }
    }
    out
}

/// The depth distributions hold percentages only: each rank's weighs by its IOs (a
/// submission per IO), which is exact for `iodepth` and close for `submit`/`complete`.
fn depth(parts: &[(&Rank, &JobResult)]) -> DepthResult {
    let weights: Vec<f64> = parts
        .iter()
        .map(|(_, job)| {
            (job.read.ios + job.write.ios + job.trim.as_ref().map_or(0, |t| t.ios)) as f64
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let combine = |pick: fn(&DepthResult) -> &Vec<LabeledPercent>| {
        let first = pick(&parts[0].1.depth);
        first
            .iter()
            .enumerate()
            .map(|(i, bucket)| LabeledPercent {
                label: bucket.label.clone(),
                percent: if total > 0.0 {
                    parts
                        .iter()
                        .zip(&weights)
                        .map(|((_, job), w)| pick(&job.depth).get(i).map_or(0.0, |b| b.percent) * w)
                        .sum::<f64>()
                        / total
                } else {
                    0.0
                },
            })
            .collect()
    };
    DepthResult {
        iodepth: combine(|d| &d.iodepth),
        submit: combine(|d| &d.submit),
        complete: combine(|d| &d.complete),
    }
}

/// Blocks, bytes and errors summed; the longest rank's time; the first failures.
fn verify(parts: &[(&Rank, &JobResult)]) -> Option<VerifyResult> {
    let mut out: Option<VerifyResult> = None;
    for (_, job) in parts {
        let Some(v) = &job.verify else { continue };
        let sum = out.get_or_insert_with(|| VerifyResult {
            blocks: 0,
            bytes: 0,
            errors: 0,
            runtime_ns: 0,
            bw_bytes_per_sec: 0.0,
            failures: Vec::new(),
        });
        sum.blocks += v.blocks;
        sum.bytes += v.bytes;
        sum.errors += v.errors;
        sum.runtime_ns = sum.runtime_ns.max(v.runtime_ns);
        let room = MAX_VERIFY_FAILURES.saturating_sub(sum.failures.len());
        sum.failures.extend(v.failures.iter().take(room).cloned());
    }
    if let Some(v) = out.as_mut() {
        v.bw_bytes_per_sec = crate::build::per_second(v.bytes, v.runtime_ns);
    }
    out
}

/// Totals summed, the first rank's first error, every rank's dump.
fn io_errors(parts: &[(&Rank, &JobResult)]) -> Option<IoErrorSummary> {
    let mut out: Option<IoErrorSummary> = None;
    for (_, job) in parts {
        let Some(e) = &job.io_errors else { continue };
        match out.as_mut() {
            None => out = Some(e.clone()),
            Some(sum) => {
                sum.total += e.total;
                if sum.first_errno.is_none() {
                    sum.first_errno = e.first_errno;
                    sum.first_error = e.first_error.clone();
                }
                sum.continue_on_error |= e.continue_on_error;
                sum.dump.extend(e.dump.iter().cloned());
                sum.dump_dropped += e.dump_dropped;
            }
        }
    }
    out
}

/// Every failing rank's error, prefixed "rank N (host): ", in rank order.
fn errors(parts: &[(&Rank, &JobResult)]) -> Option<String> {
    let messages: Vec<String> = parts
        .iter()
        .filter_map(|(rank, job)| {
            job.error
                .as_ref()
                .map(|error| format!("{}: {error}", rank.label))
        })
        .collect();
    (!messages.is_empty()).then(|| messages.join("; "))
}
