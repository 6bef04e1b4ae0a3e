//! Per block size: the best figures, whether the curve flattened, the queue-depth knee, QD1
//! latency, what limits it and the throttling signature; and Little's law at every point.

use crate::{SweepPoint, KNEE_SHARE, LIMIT_SHARE, PLATEAU_TOLERANCE};
use serde::{Deserialize, Serialize};

/// What limits a block size in the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// It reaches the IOPS ceiling.
    Iops,
    /// It reaches the bandwidth ceiling.
    Bandwidth,
    /// It reaches neither: queue depth and latency limit it (or a ceiling above the grid).
    QueueDepth,
}

/// What the sweep shows for one block size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockSizeFinding {
    /// Block size, bytes.
    pub bs_bytes: u64,
    /// Best IOPS over the queue depths.
    pub best_iops: f64,
    /// Best bytes/s over the queue depths.
    pub best_bytes_per_sec: f64,
    /// The highest queue depth measured.
    pub max_qd: u32,
    /// Two or more queue depths, the highest among them, are within the plateau tolerance of
    /// the best: more queue depth no longer helps.
    pub flattened: bool,
    /// IOPS of the points on the plateau.
    pub plateau_iops: Vec<f64>,
    /// Bytes/s of the points on the plateau.
    pub plateau_bytes_per_sec: Vec<f64>,
    /// The smallest queue depth reaching 90 % of the best IOPS.
    pub knee_qd: Option<u32>,
    /// Mean latency at queue depth 1, ns, if measured.
    pub qd1_lat_ns: Option<f64>,
    /// What limits it (set once the ceilings are known).
    pub limit: Limit,
    /// IOPS flat past the knee while latency grows in proportion to queue depth: the
    /// signature of a rate limiter (a throttled cloud disk) or a saturated device.
    pub throttled: bool,
}

/// A point where Little's law (QD = IOPS x latency) does not hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LittleCheck {
    /// Block size, bytes.
    pub bs_bytes: u64,
    /// Queue depth asked for.
    pub qd: u32,
    /// IOPS x mean latency: the queue depth the device actually saw.
    pub implied_qd: f64,
    /// implied / asked.
    pub ratio: f64,
}

/// Below this implied/asked ratio the queue was not kept full.
const LITTLE_LOW: f64 = 0.8;
/// Above it the figures contradict each other.
const LITTLE_HIGH: f64 = 1.2;

pub(crate) fn per_block_size(points: &[SweepPoint]) -> Vec<BlockSizeFinding> {
    let mut sizes: Vec<u64> = points.iter().map(|p| p.bs_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
        .into_iter()
        .map(|bs| {
            let mut curve: Vec<&SweepPoint> = points.iter().filter(|p| p.bs_bytes == bs).collect();
            curve.sort_by_key(|p| p.qd);
            let best_iops = curve.iter().map(|p| p.iops).fold(0.0, f64::max);
            let best_bytes_per_sec = curve.iter().map(|p| p.bytes_per_sec).fold(0.0, f64::max);
            let on_plateau = |p: &&&SweepPoint| p.iops >= best_iops * (1.0 - PLATEAU_TOLERANCE);
            let plateau: Vec<&&SweepPoint> = curve.iter().filter(on_plateau).collect();
            let top = curve.last();
            let flattened = plateau.len() >= 2 && top.is_some_and(|p| on_plateau(&p));
            let knee = curve.iter().find(|p| p.iops >= best_iops * KNEE_SHARE);
            let throttled = flattened && knee.is_some_and(|k| latency_tracks_depth(&curve, k));
            BlockSizeFinding {
                bs_bytes: bs,
                best_iops,
                best_bytes_per_sec,
                max_qd: top.map_or(0, |p| p.qd),
                flattened,
                plateau_iops: plateau.iter().map(|p| p.iops).collect(),
                plateau_bytes_per_sec: plateau.iter().map(|p| p.bytes_per_sec).collect(),
                knee_qd: knee.map(|p| p.qd),
                qd1_lat_ns: curve.iter().find(|p| p.qd == 1).map(|p| p.lat_mean_ns),
                limit: Limit::QueueDepth,
                throttled,
            }
        })
        .collect()
}

/// Past the knee, latency grows in proportion to queue depth (within 35 %) across at least
/// a doubling of queue depth while IOPS stays on the plateau.
fn latency_tracks_depth(curve: &[&SweepPoint], knee: &SweepPoint) -> bool {
    let past: Vec<&&SweepPoint> = curve.iter().filter(|p| p.qd >= knee.qd).collect();
    let (Some(first), Some(last)) = (past.first(), past.last()) else {
        return false;
    };
    if past.len() < 3 || last.qd < first.qd * 2 || first.lat_mean_ns <= 0.0 {
        return false;
    }
    let depth_ratio = f64::from(last.qd) / f64::from(first.qd);
    let latency_ratio = last.lat_mean_ns / first.lat_mean_ns;
    (latency_ratio / depth_ratio - 1.0).abs() <= 0.35
}

pub(crate) fn classify(
    findings: Vec<BlockSizeFinding>,
    iops_cap: Option<f64>,
    bandwidth_cap: Option<f64>,
) -> Vec<BlockSizeFinding> {
    findings
        .into_iter()
        .map(|mut f| {
            f.limit = if iops_cap.is_some_and(|cap| f.best_iops >= cap * LIMIT_SHARE) {
                Limit::Iops
            } else if bandwidth_cap.is_some_and(|cap| f.best_bytes_per_sec >= cap * LIMIT_SHARE) {
                Limit::Bandwidth
            } else {
                Limit::QueueDepth
            };
            f
        })
        .collect()
}

pub(crate) fn little_failures(points: &[SweepPoint]) -> Vec<LittleCheck> {
    points
        .iter()
        .filter(|p| p.qd > 0 && p.iops > 0.0)
        .filter_map(|p| {
            let implied_qd = p.iops * p.lat_mean_ns / 1e9;
            let ratio = implied_qd / f64::from(p.qd);
            (!(LITTLE_LOW..=LITTLE_HIGH).contains(&ratio)).then_some(LittleCheck {
                bs_bytes: p.bs_bytes,
                qd: p.qd,
                implied_qd,
                ratio,
            })
        })
        .collect()
}
