//! The rows only a block trace can fill: random share, the per-IO size distribution, device
//! latency and device queue depth. Several traced devices are merged where the merge is exact
//! (sizes, shares, means, max) and left unknown where it is not (percentiles of latency and
//! queue depth do not add up across devices: ask for one `--device` to see them).

use super::accumulate::quantile_of;
use super::{Figures, Level, Metric};
use crate::{narrow, wide_sum};
use diskmeter_capture::{QuantileSummary, TraceDirection, TraceProfile};
use std::collections::BTreeMap;

/// `(metric, figures, IOs behind them)` for each trace row the traces can fill.
pub(super) fn trace_rows(traces: &[TraceProfile]) -> Vec<(Metric, Figures, u64)> {
    let mut rows = Vec::new();
    let ios = wide_sum(traces.iter().map(|t| t.ios));
    if traces.is_empty() || ios == 0 {
        return rows;
    }
    let random = traces
        .iter()
        .map(|t| t.random_fraction * t.ios as f64)
        .sum::<f64>()
        / ios as f64;
    // One figure for the whole trace: the trace is not split into intervals, so every column
    // holds the traced share (the docs say so).
    rows.push((
        Metric::RandomPercent,
        Figures::constant(100.0 * random),
        narrow(ios),
    ));
    let read: Vec<&TraceDirection> = traces.iter().map(|t| &t.read).collect();
    let write: Vec<&TraceDirection> = traces.iter().map(|t| &t.write).collect();
    for (metric, directions) in [
        (Metric::IoSizeReadKib, &read),
        (Metric::IoSizeWriteKib, &write),
    ] {
        if let Some(row) = size_figures(directions) {
            rows.push((metric, row.0, row.1));
        }
    }
    for (metric, directions) in [
        (Metric::DeviceLatencyReadMs, &read),
        (Metric::DeviceLatencyWriteMs, &write),
    ] {
        let summaries: Vec<&QuantileSummary> = directions.iter().map(|d| &d.latency_ns).collect();
        if let Some(figures) = merged_summary(&summaries, 1e-6) {
            rows.push((
                metric,
                figures,
                narrow(wide_sum(summaries.iter().map(|s| s.count))),
            ));
        }
    }
    if let [only] = traces {
        if only.queue_depth.count > 0 {
            rows.push((
                Metric::DeviceQueueDepth,
                summary_figures(&only.queue_depth, 1.0),
                only.queue_depth.count,
            ));
        }
    }
    rows
}

/// Per-IO size percentiles (exact: the trace lists every size it saw) in KiB, and the mean.
fn size_figures(directions: &[&TraceDirection]) -> Option<(Figures, u64)> {
    let mut counts: BTreeMap<u64, u128> = BTreeMap::new();
    for direction in directions {
        for share in &direction.sizes {
            *counts.entry(share.bytes).or_default() += u128::from(share.ios);
        }
    }
    let ios: u128 = counts.values().sum();
    if ios == 0 {
        return None;
    }
    let bytes = wide_sum(directions.iter().map(|d| d.bytes));
    let listed_ios = wide_sum(directions.iter().map(|d| d.ios));
    let at = |level: Level| -> Option<f64> {
        let quantile = quantile_of(level)?;
        // Nearest rank: the smallest size with at least ceil(q x n) IOs at or below it.
        let rank = ((quantile * ios as f64).ceil() as u128).max(1);
        let mut seen = 0;
        counts.iter().find_map(|(&size, &n)| {
            seen += n;
            (seen >= rank).then_some(size as f64 / 1024.0)
        })
    };
    let mean = if listed_ios > 0 {
        Some(bytes as f64 / listed_ios as f64 / 1024.0)
    } else {
        None
    };
    Some((
        Figures {
            p50: at(Level::P50),
            p90: at(Level::P90),
            p99: at(Level::P99),
            max: at(Level::Max),
            mean,
        },
        narrow(ios),
    ))
}

/// One summary's figures scaled by `scale` (ns -> ms is 1e-6).
fn summary_figures(summary: &QuantileSummary, scale: f64) -> Figures {
    Figures {
        p50: Some(summary.p50 * scale),
        p90: Some(summary.p90 * scale),
        p99: Some(summary.p99 * scale),
        max: Some(summary.max * scale),
        mean: Some(summary.mean * scale),
    }
}

/// One summary as it is; several merged into their IO-weighted mean and overall max, with the
/// percentiles unknown (they cannot be merged).
fn merged_summary(summaries: &[&QuantileSummary], scale: f64) -> Option<Figures> {
    let with_data: Vec<&&QuantileSummary> = summaries.iter().filter(|s| s.count > 0).collect();
    match with_data.as_slice() {
        [] => None,
        [only] => Some(summary_figures(only, scale)),
        several => {
            let count = wide_sum(several.iter().map(|s| s.count));
            let mean = several.iter().map(|s| s.mean * s.count as f64).sum::<f64>() / count as f64;
            let max = several.iter().map(|s| s.max).fold(0.0, f64::max);
            Some(Figures {
                max: Some(max * scale),
                mean: Some(mean * scale),
                ..Figures::default()
            })
        }
    }
}
