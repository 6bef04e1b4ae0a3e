//! The depth rule: the replay's `iodepth` is the larger of the captured queue (aqu-sz, the
//! trace's p99) and Little's law at [`LATENCY_HEADROOM`] x the level's latency, cut to what
//! `iodepth` takes.

use super::{LevelFigures, LATENCY_HEADROOM};
use crate::requirements::Level;

/// The replay's queue depth and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayDepth {
    /// `iodepth`: the largest of the figures below, at least 1, at most what `iodepth` takes.
    pub iodepth: u64,
    /// The largest of the figures before the cut to `iodepth`'s limit.
    pub wanted: f64,
    /// aqu-sz at the level, rounded up.
    pub captured: u64,
    /// The trace's queue depth p99, rounded up, where traced.
    pub traced_p99: Option<u64>,
    /// Little's law at [`LATENCY_HEADROOM`] x the level's latency: IOs in flight the level's
    /// rate needs; `None` when the capture has no latency for a direction with IO.
    pub littles_law: Option<u64>,
    /// The level's latency weighted by the two rates, ms (what the law was applied to).
    pub latency_ms: Option<f64>,
}

impl ReplayDepth {
    /// The `#` note saying how the depth was chosen.
    pub fn note(&self, level: Level) -> String {
        let mut parts = vec![format!("aqu-sz at {level} rounded up ({})", self.captured)];
        if let Some(p99) = self.traced_p99 {
            parts.push(format!("the trace's queue depth p99 ({p99})"));
        }
        match (self.littles_law, self.latency_ms) {
            (Some(law), Some(ms)) => parts.push(format!(
                "Little's law for the level's rate at {LATENCY_HEADROOM:.0}x its latency \
                 (rate x {ms:.3} ms x {LATENCY_HEADROOM:.0} = {law})"
            )),
            _ => parts.push(
                "Little's law: not applied, the capture has no latency at the level".to_string(),
            ),
        }
        format!(
            "iodepth {}: the largest of {}; the headroom lets a target up to \
             {LATENCY_HEADROOM:.0}x slower than the captured device, or a latency spike, keep \
             the rate from its queue (paced IOs still go out at their times: the depth only \
             bounds how many may be in flight)",
            self.iodepth,
            parts.join(", ")
        )
    }
}

/// The depth a replay of `level` at `rates` (reads, writes per second) keeps: the larger of
/// the captured depth (aqu-sz at the level rounded up; the traced queue depth p99 where
/// there is one) and Little's law for the rates at [`LATENCY_HEADROOM`] x the level's
/// latency (`r_await`, `w_await`), at least 1, at most what `iodepth` takes.
pub fn replay_depth(level: &LevelFigures, rates: [u64; 2], traced_p99: Option<f64>) -> ReplayDepth {
    let captured = level.queue_depth.ceil().max(1.0);
    let traced = traced_p99
        .filter(|d| d.is_finite() && *d >= 0.0)
        .map(f64::ceil);
    let latencies = [level.read_latency_ms, level.write_latency_ms];
    let known =
        (0..2).all(|d| rates[d] == 0 || latencies[d].is_some_and(|ms| ms.is_finite() && ms >= 0.0));
    let (littles, latency_ms) = if known && rates.iter().any(|r| *r > 0) {
        // IOs in flight = Σ rate x latency (seconds), per direction.
        let in_flight: f64 = (0..2)
            .filter(|&d| rates[d] > 0)
            .map(|d| rates[d] as f64 * latencies[d].unwrap_or(0.0) / 1000.0)
            .sum();
        let total = (rates[0] as f64) + (rates[1] as f64);
        let mean_ms = in_flight * 1000.0 / total;
        (Some((in_flight * LATENCY_HEADROOM).ceil()), Some(mean_ms))
    } else {
        (None, None)
    };
    let wanted = [Some(captured), traced, littles]
        .into_iter()
        .flatten()
        .fold(1.0f64, f64::max);
    let as_depth = |d: f64| -> u64 { d.min(u64::MAX as f64) as u64 };
    ReplayDepth {
        iodepth: (wanted.min(max_iodepth() as f64) as u64).clamp(1, max_iodepth()),
        wanted,
        captured: as_depth(captured),
        traced_p99: traced.map(as_depth),
        littles_law: littles.map(as_depth),
        latency_ms,
    }
}

/// The queue depth to keep: aqu-sz rounded up, at least 1 (a rate needs one IO in flight),
/// at most what `iodepth` takes.
pub(super) fn iodepth(queue_depth: f64) -> u64 {
    (queue_depth.ceil() as u64).clamp(1, max_iodepth())
}

/// The most IOs in flight `iodepth` takes, from its row in the option table (a damaged
/// capture's aqu-sz can be any number; the job must still parse).
pub(super) fn max_iodepth() -> u64 {
    match diskmeter_workload::limits_of("iodepth").map(|limits| limits.range) {
        Some(diskmeter_workload::Range::Int { max: Some(max), .. }) => max,
        _ => u64::MAX,
    }
}

/// The note for a queue deeper than `iodepth` takes, if `queue_depth` is.
pub(super) fn depth_cut_note(queue_depth: f64) -> Option<String> {
    let max = max_iodepth();
    (queue_depth.ceil() > max as f64).then(|| {
        format!("iodepth {max}: the capture's queue of {queue_depth:.0} is more than iodepth takes")
    })
}
