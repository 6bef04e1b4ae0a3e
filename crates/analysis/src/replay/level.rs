//! The levels a replay (and the requirements checklist) reads a capture at: p50, p90, p99,
//! max or mean of one column over the capture's intervals.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where in a column's distribution over the capture's intervals a figure is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The median interval.
    P50,
    /// 90 % of the intervals were at or below it (the guides' "peak").
    P90,
    /// 99 % of the intervals were at or below it.
    P99,
    /// The busiest interval.
    Max,
    /// The mean over all intervals.
    Mean,
}

/// A level name that is not one of p50, p90, p99, max, mean.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a level: give p50, p90, p99, max or mean")]
pub struct UnknownLevel(pub String);

impl Level {
    /// Every level, in the checklist's column order.
    pub const ALL: [Level; 5] = [Level::P50, Level::P90, Level::P99, Level::Max, Level::Mean];

    /// Parses `p50`, `p90`, `p99`, `max`, `mean` (any case).
    pub fn parse(text: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|level| level.as_str().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| UnknownLevel(text.to_string()))
    }

    /// The name as given on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::P50 => "p50",
            Level::P90 => "p90",
            Level::P99 => "p99",
            Level::Max => "max",
            Level::Mean => "mean",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The figure at `level` of `values` (one per interval; non-finite values are left out);
/// `None` with no values. Percentiles are nearest-rank: the smallest value with at least that
/// share of the intervals at or below it, so the figure is one the capture really saw.
pub fn level_value(values: &[f64], level: Level) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let rank = |percent: f64| {
        let n = sorted.len() as f64;
        let rank = (percent / 100.0 * n).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1]
    };
    Some(match level {
        Level::P50 => rank(50.0),
        Level::P90 => rank(90.0),
        Level::P99 => rank(99.0),
        Level::Max => sorted[sorted.len() - 1],
        Level::Mean => sorted.iter().sum::<f64>() / sorted.len() as f64,
    })
}
