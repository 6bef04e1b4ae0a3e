//! A measured figure with its 95 % interval ([`Estimate`]), why a figure could not be
//! measured ([`NotMeasured`]), and the distribution-free interval of a quantile
//! ([`order_statistic_ranks`]).

use super::Scope;
use serde::Serialize;

/// A histogram percentile's relative error: 3 significant digits (docs/guide/9-reference.md,
/// "Statistics").
pub const HISTOGRAM_RELATIVE_ERROR: f64 = 0.001;
/// The normal quantile of a two-sided 95 % interval.
const Z_95: f64 = 1.959_964;

/// A measured figure with its 95 % interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// The figure, in the measure's unit.
    pub value: f64,
    /// The interval's low end (may be -inf: no interval could be computed).
    #[serde(serialize_with = "finite_or_null")]
    pub low: f64,
    /// The interval's high end (may be +inf).
    #[serde(serialize_with = "finite_or_null")]
    pub high: f64,
    /// How the interval was computed, in words.
    pub method: String,
}

fn finite_or_null<S: serde::Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() {
        s.serialize_f64(*value)
    } else {
        s.serialize_none()
    }
}

impl Estimate {
    /// Whether an interval was computed (enough samples).
    pub fn has_interval(&self) -> bool {
        self.low.is_finite() && self.high.is_finite()
    }
}

/// Why a step has no figure for a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotMeasured {
    /// The step did no IO of the requirement's kind.
    #[error("the step did no {}IO", match .0 { Scope::Read => "read ", Scope::Write => "write ", Scope::Total => "" })]
    NoIo(Scope),
    /// A paced step saved before latency from the intended issue time was kept.
    #[error(
        "not known: the step was paced, and its latency from the intended issue time was not \
         kept (a result saved before diskmeter kept it); its issue-to-completion latency would \
         hide how late its IOs went out"
    )]
    IntendedNotKept,
    /// The step's latency histograms are not in the history.
    #[error("not known: the step's latency histograms are not in the history")]
    HistogramsNotKept,
    /// No whole interval had IO of the requirement's kind.
    #[error("no whole interval with IO")]
    NoWholeInterval,
    /// A paced step's series saved before the intended-time means were kept per interval.
    #[error("not known: the step's 1 s means from the intended issue time were not kept")]
    IntervalMeansNotKept,
}

/// The 1-based ranks bounding the distribution-free 95 % interval of the `quantile` of `n`
/// values: n q -+ 1.96 sqrt(n q (1 - q)), rounded outwards, within 1..=n.
pub fn order_statistic_ranks(n: u64, quantile: f64) -> (u64, u64) {
    let n_f = n as f64;
    let centre = n_f * quantile;
    let spread = Z_95 * (n_f * quantile * (1.0 - quantile)).sqrt();
    let low = ((centre - spread).floor() as i64).clamp(1, n.max(1) as i64) as u64;
    let high = ((centre + spread).ceil() as i64).clamp(1, n.max(1) as i64) as u64;
    (low, high)
}
