//! What a sweep over queue depth and block size says about a device, as numbers: the IOPS
//! and bandwidth ceilings (with their range), the crossover block size, what limits each
//! block size, the queue-depth knee, Little's law at every point, the throttling signature
//! and the nearest published tiers. Pure functions over [`SweepPoint`]s; no IO.
//!
//! The rules follow the guides (shared/reference/workloads.md section 1): small IOs flatten
//! at the IOPS cap, large IOs at the bandwidth cap, crossover = bandwidth cap / IOPS cap,
//! and QD = IOPS x latency. A ceiling is only called when the curve has flattened (two or
//! more queue depths within [`PLATEAU_TOLERANCE`] of the block size's best) *and* two or
//! more block sizes agree on it; otherwise the analysis says it found none below the top of
//! the grid rather than inventing one.
//!
//! Only whole points are analysed: a point whose step was interrupted or failed is listed
//! with why ([`PartialPoint`], [`analyse_group`]) and left out, and when the whole points
//! left cannot show a curve (no block size with two queue depths) the analysis infers
//! nothing at all: no ceiling, no "still rising", no limit, no tier.
//!
//! [`requirements`] turns a capture of an application's IO into the guides' requirements
//! checklist (p50/p90/p99/max/mean per metric, per time-of-day window).

#![forbid(unsafe_code)]

pub mod burst;
pub mod compare;
pub mod curve;
mod findings;
mod matching;
mod points;
pub mod replay;
pub mod requirements;
mod summary;
pub mod verdict;

pub use findings::{BlockSizeFinding, Limit, LittleCheck};
pub use matching::{nearest_tiers, TierMatch};
pub use points::{
    point_step_name, points_of_steps, sweep_point, NotASweepPoint, PartialPoint, PointGroup,
};
pub use summary::summary_lines;

use serde::{Deserialize, Serialize};

/// The sum of counts read from a stored document (a trace profile's IOs and bytes), in 128
/// bits: a damaged or hand-edited profile's counts (any `u64`) cannot overflow it, and shares
/// computed from it stay shares.
pub(crate) fn wide_sum(counts: impl IntoIterator<Item = u64>) -> u128 {
    counts.into_iter().map(u128::from).sum()
}

/// A 128-bit count back in 64 bits, at most `u64::MAX`.
pub(crate) fn narrow(count: u128) -> u64 {
    u64::try_from(count).unwrap_or(u64::MAX)
}

/// Points within this share of the best are "on the plateau", and block sizes whose plateau
/// levels are this close agree on a ceiling. 8 %: wide enough for the second-to-second noise
/// of a shared cloud disk or a busy host, narrow enough that a curve still climbing (each
/// doubling of queue depth adds more) is not mistaken for a flat one.
pub const PLATEAU_TOLERANCE: f64 = 0.08;
/// A block size is limited by a ceiling when it reaches this share of it.
pub const LIMIT_SHARE: f64 = 0.9;
/// The knee: the smallest queue depth reaching this share of the block size's best IOPS.
pub const KNEE_SHARE: f64 = 0.9;

/// One measured point of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Block size, bytes.
    pub bs_bytes: u64,
    /// IOs kept in flight in all (iodepth x numjobs).
    pub qd: u32,
    /// IOs per second (reads and writes together).
    pub iops: f64,
    /// Bytes per second.
    pub bytes_per_sec: f64,
    /// Mean latency, issue to completion, ns.
    pub lat_mean_ns: f64,
    /// 99th percentile latency, ns.
    pub lat_p99_ns: f64,
}

/// A ceiling the device showed, with the range of the points on its plateau.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// The ceiling: the median of the agreeing block sizes' plateau levels (each the median
    /// of its points on the plateau).
    pub value: f64,
    /// Lowest point on the plateau.
    pub low: f64,
    /// Highest point on the plateau.
    pub high: f64,
    /// The block sizes that agree on it, bytes.
    pub block_sizes: Vec<u64>,
}

/// A ceiling found, or why none was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum CeilingFinding {
    /// The curve flattened and the block sizes agree.
    Found(Ceiling),
    /// No plateau below the top of the grid.
    NotFound {
        /// The highest value seen.
        highest: f64,
        /// Why it is not a ceiling, in words.
        reason: String,
    },
}

impl CeilingFinding {
    /// The ceiling's value when found.
    pub fn value(&self) -> Option<f64> {
        match self {
            CeilingFinding::Found(c) => Some(c.value),
            CeilingFinding::NotFound { .. } => None,
        }
    }
}

/// Everything the analysis concludes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The IOPS ceiling.
    pub iops_ceiling: CeilingFinding,
    /// The bandwidth ceiling, bytes/s.
    pub bandwidth_ceiling: CeilingFinding,
    /// Bandwidth ceiling / IOPS ceiling, bytes: below it IOs hit the IOPS cap first.
    pub crossover_bytes: Option<f64>,
    /// Per block size: best figures, limit, knee, QD1 latency, throttling.
    pub block_sizes: Vec<BlockSizeFinding>,
    /// Points where Little's law does not hold.
    pub little_failures: Vec<LittleCheck>,
    /// The nearest published tiers, nearest first.
    pub tiers: Vec<TierMatch>,
    /// Bursting tiers whose burst rate the IOPS ceiling matches ([`burst::bursts_at`]): a
    /// sweep shorter than their bucket measured the burst, not the baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub burst_of: Vec<burst::BurstTierMatch>,
    /// Points that ran but are not whole (interrupted, failed), left out of everything
    /// above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partial_points: Vec<PartialPoint>,
    /// Why nothing was inferred: the whole points cannot show a curve (none, or no block
    /// size with two queue depths). `None` when the analysis ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nothing_inferred: Option<String>,
}

impl Analysis {
    /// The nearest tier with every tier tied with it ("P30 or E30"), and the nearest one's
    /// figures; `None` when no ceiling was found to match.
    pub fn nearest_tier(&self) -> Option<(String, &TierMatch)> {
        let first = self.tiers.first()?;
        let ties: Vec<&str> = self
            .tiers
            .iter()
            .filter(|t| (t.distance - first.distance).abs() < 1e-9)
            .map(|t| t.name.as_str())
            .collect();
        Some((ties.join(" or "), first))
    }
}

/// Analyses one pattern's whole points and lists its partial ones
/// ([`Analysis::partial_points`]), which take no part in it.
pub fn analyse_group(group: &PointGroup, tiers: &[diskmeter_plan::DiskTier]) -> Analysis {
    let mut analysis = analyse(&group.points, tiers);
    if group.partial.is_empty() {
        return analysis;
    }
    analysis.partial_points = group.partial.clone();
    let left_out = format!("{} partial point(s) left out", group.partial.len());
    match &mut analysis.nothing_inferred {
        Some(reason) => reason.push_str(&format!("; {left_out}")),
        // "still rising at the highest queue depth (4)": of the whole points, which a reader
        // must not take for the grid's top.
        None => {
            for finding in [&mut analysis.iops_ceiling, &mut analysis.bandwidth_ceiling] {
                if let CeilingFinding::NotFound { reason, .. } = finding {
                    reason.push_str(&format!(" (whole points only; {left_out})"));
                }
            }
        }
    }
    analysis
}

/// Why `points` are too few to infer anything from, if they are: a ceiling, a limit, a knee
/// or "still rising" all need a curve, two queue depths of one block size.
fn too_few(points: &[SweepPoint]) -> Option<String> {
    let curve = points.iter().any(|p| {
        points
            .iter()
            .any(|q| q.bs_bytes == p.bs_bytes && q.qd != p.qd)
    });
    if curve {
        return None;
    }
    Some(match points.len() {
        0 => "no whole point was measured".to_string(),
        n => format!(
            "only {n} whole point(s), no block size with two queue depths: a curve needs two"
        ),
    })
}

/// Analyses the points of one sweep (one read/write pattern), all taken as whole (see
/// [`analyse_group`] for a sweep with partial points). Too few points to show a curve give
/// an analysis that infers nothing ([`Analysis::nothing_inferred`]).
pub fn analyse(points: &[SweepPoint], tiers: &[diskmeter_plan::DiskTier]) -> Analysis {
    if let Some(reason) = too_few(points) {
        let highest = |f: fn(&SweepPoint) -> f64| points.iter().map(f).fold(0.0, f64::max);
        let not_found = |highest: f64| CeilingFinding::NotFound {
            highest,
            reason: reason.clone(),
        };
        return Analysis {
            iops_ceiling: not_found(highest(|p| p.iops)),
            bandwidth_ceiling: not_found(highest(|p| p.bytes_per_sec)),
            crossover_bytes: None,
            block_sizes: Vec::new(),
            little_failures: findings::little_failures(points),
            tiers: Vec::new(),
            burst_of: Vec::new(),
            partial_points: Vec::new(),
            nothing_inferred: Some(reason),
        };
    }
    let block_sizes = findings::per_block_size(points);
    let iops_ceiling = ceiling(&block_sizes, true);
    let bandwidth_ceiling = ceiling(&block_sizes, false);
    let crossover_bytes = match (&iops_ceiling, &bandwidth_ceiling) {
        (CeilingFinding::Found(i), CeilingFinding::Found(b)) if i.value > 0.0 => {
            Some(b.value / i.value)
        }
        _ => None,
    };
    let block_sizes =
        findings::classify(block_sizes, iops_ceiling.value(), bandwidth_ceiling.value());
    let little_failures = findings::little_failures(points);
    let burst_of = iops_ceiling
        .value()
        .map_or_else(Vec::new, |iops| burst::bursts_at(iops, tiers));
    let tiers = nearest_tiers(
        iops_ceiling.value(),
        bandwidth_ceiling.value().map(|b| b / (1u64 << 20) as f64),
        tiers,
    );
    Analysis {
        iops_ceiling,
        bandwidth_ceiling,
        crossover_bytes,
        block_sizes,
        little_failures,
        tiers,
        burst_of,
        partial_points: Vec::new(),
        nothing_inferred: None,
    }
}

/// The IOPS ceiling (`iops`) from the smallest block sizes, or the bandwidth ceiling from the
/// largest: the flattened block sizes, from that end of the grid, that agree within the
/// plateau tolerance with the first of them.
fn ceiling(block_sizes: &[BlockSizeFinding], iops: bool) -> CeilingFinding {
    // The plateau's median, not its best point: one lucky second must not set a ceiling.
    let value_of = |f: &BlockSizeFinding| {
        median(if iops {
            &f.plateau_iops
        } else {
            &f.plateau_bytes_per_sec
        })
    };
    let ordered: Vec<&BlockSizeFinding> = if iops {
        block_sizes.iter().collect()
    } else {
        block_sizes.iter().rev().collect()
    };
    let what = if iops { "IOPS" } else { "bandwidth" };
    let highest = ordered.iter().map(|f| value_of(f)).fold(0.0, f64::max);
    let Some(first) = ordered.first() else {
        return CeilingFinding::NotFound {
            highest,
            reason: "no points".to_string(),
        };
    };
    if !first.flattened {
        return CeilingFinding::NotFound {
            highest,
            reason: format!(
                "{what} still rising at the highest queue depth ({}) for {} IOs",
                first.max_qd,
                diskmeter_units::format_size_suffix(
                    first.bs_bytes,
                    diskmeter_units::KbBase::Binary
                )
            ),
        };
    }
    let reference = value_of(first);
    let agreeing: Vec<&BlockSizeFinding> = ordered
        .iter()
        .copied()
        .take_while(|f| f.flattened && (value_of(f) / reference - 1.0).abs() <= PLATEAU_TOLERANCE)
        .collect();
    if agreeing.len() < 2 {
        return CeilingFinding::NotFound {
            highest,
            reason: format!(
                "the block sizes do not agree on a common {what} plateau (each size reaches \
                 its own best), so no {what} cap shows below the top of the grid"
            ),
        };
    }
    let values: Vec<f64> = agreeing.iter().map(|f| value_of(f)).collect();
    let median = median(&values);
    let plateau: Vec<f64> = agreeing
        .iter()
        .flat_map(|f| {
            if iops {
                f.plateau_iops.clone()
            } else {
                f.plateau_bytes_per_sec.clone()
            }
        })
        .collect();
    CeilingFinding::Found(Ceiling {
        value: median,
        low: plateau.iter().copied().fold(f64::INFINITY, f64::min),
        high: plateau.iter().copied().fold(0.0, f64::max),
        block_sizes: agreeing.iter().map(|f| f.bs_bytes).collect(),
    })
}

/// The median of `values` (0 for none).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests;
