//! The `scale_out` figures of a merge: IOR's aggregate rates, the sums of the ranks' own
//! rates, each rank's headline and the start skew of every stonewall phase.

use super::Rank;
use crate::build::per_second;
use crate::scale_out::{PhaseStart, RankFigures, ScaleOut};
use crate::schema::RunResult;

/// A rank's IOs, bytes, IOPS and bandwidth over its jobs and directions.
fn totals(result: &RunResult) -> (u64, u64, f64, f64) {
    let mut out = (0u64, 0u64, 0.0f64, 0.0f64);
    for job in &result.jobs {
        for d in [Some(&job.read), Some(&job.write), job.trim.as_ref()]
            .into_iter()
            .flatten()
        {
            out.0 += d.ios;
            out.1 += d.bytes;
            out.2 += d.iops;
            out.3 += d.bw_bytes_per_sec;
        }
    }
    out
}

/// When a rank's IO started: phase 0, else (a result before schema 4) its start.
fn start_ns(result: &RunResult) -> u64 {
    let meta = &result.meta;
    meta.phase_starts_unix_ns
        .first()
        .copied()
        .unwrap_or(meta.started_unix_ms.saturating_mul(1_000_000))
}

/// When a rank's IO ended, else (a result before schema 4) its finish.
fn end_ns(result: &RunResult) -> u64 {
    let meta = &result.meta;
    if meta.io_finished_unix_ns > 0 {
        meta.io_finished_unix_ns
    } else {
        meta.finished_unix_ms.saturating_mul(1_000_000)
    }
}

/// The figures of the inputs, in rank order.
pub(crate) fn scale_out(order: &[Rank], inputs: &[RunResult]) -> ScaleOut {
    let earliest = inputs.iter().map(start_ns).min().unwrap_or(0);
    let latest = inputs.iter().map(end_ns).max().unwrap_or(0);
    let window_ns = latest.saturating_sub(earliest);
    let mut per_rank = Vec::with_capacity(inputs.len());
    let (mut total_ios, mut total_bytes, mut sum_iops, mut sum_bw) = (0, 0, 0.0, 0.0);
    for (rank, result) in order.iter().zip(inputs) {
        let (ios, bytes, iops, bw) = totals(result);
        total_ios += ios;
        total_bytes += bytes;
        sum_iops += iops;
        sum_bw += bw;
        per_rank.push(RankFigures {
            rank: rank.rank,
            hostname: result.meta.hostname.clone(),
            ios,
            bytes,
            iops,
            bw_bytes_per_sec: bw,
            start_offset_ns: start_ns(result) - earliest,
            error: result.jobs.iter().find_map(|j| j.error.clone()),
        });
    }
    let phases = inputs
        .iter()
        .map(|r| r.meta.phase_starts_unix_ns.len())
        .max()
        .unwrap_or(0);
    let phases = (0..phases)
        .map(|phase| {
            let starts: Vec<u64> = inputs
                .iter()
                .filter_map(|r| r.meta.phase_starts_unix_ns.get(phase).copied())
                .collect();
            let earliest_unix_ns = starts.iter().copied().min().unwrap_or(0);
            let latest_unix_ns = starts.iter().copied().max().unwrap_or(0);
            PhaseStart {
                phase: phase as u32,
                earliest_unix_ns,
                latest_unix_ns,
                skew_ns: latest_unix_ns - earliest_unix_ns,
                ranks: starts.len() as u32,
            }
        })
        .collect();
    ScaleOut {
        ranks: inputs.len() as u32,
        hostnames: inputs.iter().map(|r| r.meta.hostname.clone()).collect(),
        earliest_start_unix_ns: earliest,
        latest_end_unix_ns: latest,
        window_ns,
        total_ios,
        total_bytes,
        aggregate_iops: per_second(total_ios, window_ns),
        aggregate_bw_bytes_per_sec: per_second(total_bytes, window_ns),
        sum_of_rank_iops: sum_iops,
        sum_of_rank_bw_bytes_per_sec: sum_bw,
        phases,
        per_rank,
    }
}
