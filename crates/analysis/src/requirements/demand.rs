//! The checklist as the planner's demand (`plan --from-capture ID --level p99 --growth 30%`):
//! which row fills which demand key, read at which column.
//!
//! - `iops`, `mibps`, `qd` and `latency` are read at the chosen level (IOPS total, throughput
//!   total, `aqu-sz`, and the latency of the direction most IOs go, from `r_await`/`w_await`):
//!   the level is how much of the application's busy time the plan must carry.
//! - `read`, `bs` and `random` are the capture's IO-weighted means: a share or a mean size at
//!   "p99" would describe the capture's most lopsided second, not its workload.
//! - Growth headroom is the caller's: [`Demand::grown`] after any figures the user typed.
//!
//! A figure the capture does not have (no writes, no trace for the random share) is left out
//! of the demand, never filled with a default, and every figure used says where it came from.

use super::{Checklist, Level, Metric, Requirements, WindowSet};
use diskmeter_plan::burst::{Load, LoadPoint};
use diskmeter_plan::{Demand, FigureOrigin, LatencyBasis};

/// A capture's checklist without a single interval: nothing to plan for.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0} has no intervals")]
pub struct NoIntervals(pub String);

/// The demand capture `capture_id`'s checklists make at `level`: the window's when one was
/// asked for, else the whole capture's, its figures naming the capture (and window).
pub fn capture_demand(
    requirements: &Requirements,
    capture_id: i64,
    level: Level,
) -> Result<Demand, NoIntervals> {
    let (checklist, source) = match requirements.windows.first() {
        Some(w) => (
            &w.checklist,
            format!("capture {capture_id} window {}", w.window.name),
        ),
        None => (&requirements.whole, format!("capture {capture_id}")),
    };
    if checklist.intervals == 0 {
        return Err(NoIntervals(source));
    }
    Ok(demand_from(checklist, level, &source))
}

/// The load of capture `capture_id` for `plan`'s burst buckets: its intervals' IOPS (in
/// `windows` when any are given), in order.
pub fn capture_load(requirements: &Requirements, capture_id: i64, windows: &WindowSet) -> Load {
    let points: Vec<LoadPoint> = (requirements.load.iter())
        .filter(|i| {
            windows.windows.is_empty() || windows.matching(i.start_unix_ms).next().is_some()
        })
        .map(|i| LoadPoint {
            seconds: i.seconds,
            iops: i.iops,
        })
        .collect();
    let seconds: f64 = points.iter().map(|p| p.seconds).sum();
    let origin = format!(
        "capture {capture_id}: {} intervals ({})",
        points.len(),
        diskmeter_plan::burst::minutes(seconds)
    );
    Load { origin, points }
}

/// The demand `checklist` makes at `level`; `source` names the capture in the figures'
/// origins ("capture 12").
pub fn demand_from(checklist: &Checklist, level: Level, source: &str) -> Demand {
    let mut demand = Demand {
        level: Some(level.name().to_string()),
        ..Demand::default()
    };
    let origin = |key: &str, text: String| demand_origin(key, text, source);
    let mut origins: Vec<FigureOrigin> = Vec::new();
    let at = |metric: Metric| checklist.level(metric, level).filter(|v| *v > 0.0);
    let mean = |metric: Metric| checklist.level(metric, Level::Mean);

    if let Some(iops) = at(Metric::IopsTotal) {
        demand.iops = Some(iops);
        origins.push(origin(
            "iops",
            format!("IOPS total {level} {}", round(iops)),
        ));
    }
    if let Some(mibps) = at(Metric::ThroughputTotalMibps) {
        demand.mibps = Some(mibps);
        origins.push(origin(
            "mibps",
            format!("throughput total {level} {} MiB/s", round(mibps)),
        ));
    }
    if let Some(read_percent) = mean(Metric::ReadPercent) {
        demand.read_fraction = (read_percent / 100.0).clamp(0.0, 1.0);
        demand.mix_given = true;
        origins.push(origin(
            "read",
            format!("read % mean {}", round(read_percent)),
        ));
    }
    let read_kib = mean(Metric::IoSizeReadKib).filter(|v| *v > 0.0);
    let write_kib = mean(Metric::IoSizeWriteKib).filter(|v| *v > 0.0);
    if let Some((read, write)) = match (read_kib, write_kib) {
        (Some(r), Some(w)) => Some((r, w)),
        // One direction only: the other's size does not matter (its share is 0).
        (Some(r), None) => Some((r, r)),
        (None, Some(w)) => Some((w, w)),
        (None, None) => None,
    } {
        demand.read_bs_bytes = Some(kib_to_bytes(read));
        demand.write_bs_bytes = Some(kib_to_bytes(write));
        origins.push(origin(
            "bs",
            format!(
                "IO size mean {} KiB reads / {} KiB writes",
                round(read),
                round(write)
            ),
        ));
    }
    if let Some(random) = mean(Metric::RandomPercent) {
        demand.random_fraction = Some((random / 100.0).clamp(0.0, 1.0));
        origins.push(origin(
            "random",
            format!("random % {} (trace)", round(random)),
        ));
    }
    if let Some(qd) = at(Metric::QueueDepth) {
        demand.queue_depth = Some(qd.ceil().max(1.0) as u32);
        origins.push(origin(
            "qd",
            format!("queue depth (aqu-sz) {level} {}, rounded up", round(qd)),
        ));
    }
    let (metric, device_metric, direction) = if demand.read_fraction >= 0.5 {
        (Metric::LatencyReadMs, Metric::DeviceLatencyReadMs, "read")
    } else {
        (
            Metric::LatencyWriteMs,
            Metric::DeviceLatencyWriteMs,
            "write",
        )
    };
    // A trace's per-IO device latency is a bound the disk types' latency classes are judged
    // against; the counters' await is an interval mean with queueing in it, shown only.
    if let Some(ms) = at(device_metric) {
        demand.latency_ns = Some((ms * 1e6).round().max(1.0) as u64);
        demand.latency_basis = Some(LatencyBasis::PerIo);
        origins.push(origin(
            "latency",
            format!(
                "{direction} latency per IO at the device (trace) {level} {}",
                diskmeter_units::format_duration(ms * 1e6)
            ),
        ));
    } else if let Some(ms) = at(metric) {
        demand.latency_ns = Some((ms * 1e6).round().max(1.0) as u64);
        demand.latency_basis = Some(LatencyBasis::IntervalAwait);
        origins.push(origin(
            "latency",
            format!(
                "{direction} latency ({direction} await, an interval mean: not judged \
                 against latency classes) {level} {}",
                diskmeter_units::format_duration(ms * 1e6)
            ),
        ));
    }
    demand.origins = origins;
    demand
}

fn demand_origin(key: &str, text: String, source: &str) -> FigureOrigin {
    FigureOrigin {
        key: key.to_string(),
        text: format!("{source}: {text}"),
    }
}

fn kib_to_bytes(kib: f64) -> u64 {
    (kib * 1024.0).round().max(1.0) as u64
}

/// Three significant figures at most, no trailing zeros: 1,234.5 -> "1234.5", 0.123456 ->
/// "0.123".
fn round(value: f64) -> String {
    let decimals = if value.abs() >= 100.0 {
        1
    } else if value.abs() >= 1.0 {
        2
    } else {
        3
    };
    let text = format!("{value:.decimals$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}
