//! The IOPS-latency curve of `sweep --curve` and its latency SLO (`--slo p99=2ms`): which rates
//! to pace at (shares of the maximum rate, then a bisection), the curve's points read back
//! from the steps (each percentile from the intended issue time, with its 95 % interval), and
//! the highest rate whose percentile stays under the bound, judged three-valued by
//! [`crate::verdict::judge`] as `check` judges. Pure: the sweep runs the steps this names.
//!
//! The steps are named so a saved sweep gives its curve back (`analyze`): `curve max` (the
//! unpaced point), `curve 50% 1000iops` (a share), `curve slo 1850iops` (a bisection point).
//!
//! **The bisection.** Over the whole paced points, `high` is the lowest rate whose SLO is not
//! met (missed, within noise or not measured) and `low` the highest met rate below it (0 when
//! none is); the next rate is their middle until `high - low` is within [`BISECT_WITHIN`] of
//! `high`, or after [`MAX_BISECT_STEPS`]. The answer is `low`: the highest rate measured
//! whose interval clears the bound below the first rate that does not. A point that is
//! partial never decides anything (it is never judged as a whole one).

use crate::verdict::{
    judge, merged_job_histogram, parse_requirements, Estimate, Judgement, LatencyClock,
    LatencyStatistic, Measure, Requirement, Scope, StepEvidence, Verdict,
};
use diskmeter_report::RunResult;
use serde::Serialize;
use thiserror::Error;

/// The shares of the maximum rate a curve paces at by default, percent.
pub const DEFAULT_SHARES_PERCENT: [f64; 10] =
    [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0];
/// The bisection stops once its bracket is this narrow, as a share of its upper rate.
pub const BISECT_WITHIN: f64 = 0.02;
/// The most bisection points an SLO search runs (from 10 % apart, 2 % takes 3).
pub const MAX_BISECT_STEPS: usize = 8;
/// The percentiles a curve shows.
pub const CURVE_PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// A curve option that cannot be read, naming the option.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CurveError {
    /// `--curve-shares` is not a list of percentages in (0, 100].
    #[error("--curve-shares {value}: {reason}")]
    Shares {
        /// The list as given.
        value: String,
        /// Why.
        reason: String,
    },
    /// `--slo` is not `pN=TIME`.
    #[error("--slo {value}: {reason}")]
    Slo {
        /// The value as given.
        value: String,
        /// Why.
        reason: String,
    },
}

/// `--curve-shares 10,20,50,100`: percentages of the maximum rate, in (0, 100], sorted, each
/// once.
pub fn parse_shares(text: &str) -> Result<Vec<f64>, CurveError> {
    let error = |reason: String| CurveError::Shares {
        value: text.to_string(),
        reason,
    };
    let mut shares = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let value: f64 = item
            .trim_end_matches('%')
            .parse()
            .map_err(|_| error(format!("'{item}' is not a percentage (e.g. 10,50,100)")))?;
        if !(value > 0.0 && value <= 100.0) {
            return Err(error(format!("'{item}' is not in (0, 100]")));
        }
        shares.push(value);
    }
    if shares.is_empty() {
        return Err(error("no shares given".to_string()));
    }
    shares.sort_by(f64::total_cmp);
    shares.dedup();
    Ok(shares)
}

/// `--curve`, `--curve-shares` and `--slo` read together: `None` when no curve is asked (an
/// SLO asks for one).
pub type CurveOptions = Option<(Vec<f64>, Option<Requirement>)>;

/// Reads the curve's options ([`CurveOptions`]).
pub fn curve_options(
    curve: bool,
    shares: &str,
    slo: Option<&str>,
) -> Result<CurveOptions, CurveError> {
    if !curve && slo.is_none() {
        return Ok(None);
    }
    Ok(Some((
        parse_shares(shares)?,
        slo.map(parse_slo).transpose()?,
    )))
}

/// `--slo p99=2ms`: a latency percentile (`p50`, `p90`, `p99`, `p99.9`, ...) or `mean`/`max`,
/// with `read-`/`write-` allowed before it, at most a time (a bare number is ms). Judged on
/// the latency from the intended issue time, as every paced point's.
pub fn parse_slo(text: &str) -> Result<Requirement, CurveError> {
    let error = |reason: String| CurveError::Slo {
        value: text.to_string(),
        reason,
    };
    let Some((key, value)) = text.split_once('=') else {
        return Err(error("expected PERCENTILE=TIME, e.g. p99=2ms".to_string()));
    };
    let key = key.trim().to_ascii_lowercase();
    let (scope, level) = match key.split_once('-') {
        Some((scope @ ("read" | "write"), level)) => (format!("{scope}-"), level.to_string()),
        _ => (String::new(), key.clone()),
    };
    let level = level.strip_prefix("lat-").unwrap_or(&level);
    // fio's time syntax has no fractions: 2.5ms and 500.5us are read here, as a bare ms.
    let value = value.trim();
    let fraction = |unit: &str, per_ms: f64| {
        let number: f64 = value.strip_suffix(unit)?.parse().ok()?;
        Some((number / per_ms).to_string())
    };
    let value = fraction("ms", 1.0)
        .or_else(|| fraction("us", 1000.0))
        .unwrap_or_else(|| value.to_string());
    let entry = format!("{scope}lat-{level}={value}");
    let mut parsed = parse_requirements(&entry).map_err(|e| error(e.to_string()))?;
    match parsed.pop() {
        Some(mut requirement) if matches!(requirement.measure, Measure::LatencyMs { .. }) => {
            requirement.origin = "--slo".to_string();
            Ok(requirement)
        }
        _ => Err(error(format!(
            "'{key}' is not a latency statistic (use p50, p99, p99.9, mean or max)"
        ))),
    }
}

/// What a curve step is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "role", content = "share_percent")]
pub enum CurveRole {
    /// The unpaced point that finds the maximum rate.
    Max,
    /// A paced point at this share of the maximum, percent.
    Share(f64),
    /// A paced point the SLO's bisection chose.
    Bisect,
}

/// The step name of a curve point: `curve max`, `curve 50% 1000iops`, `curve slo 1850iops`.
pub fn curve_step_name(role: CurveRole, rate_iops: u64) -> String {
    match role {
        CurveRole::Max => "curve max".to_string(),
        CurveRole::Share(share) => format!("curve {share}% {rate_iops}iops"),
        CurveRole::Bisect => format!("curve slo {rate_iops}iops"),
    }
}

/// The role and paced rate of a [`curve_step_name`]; `None` for any other step.
pub fn parse_curve_step_name(name: &str) -> Option<(CurveRole, Option<u64>)> {
    let rest = name.strip_prefix("curve ")?;
    if rest == "max" {
        return Some((CurveRole::Max, None));
    }
    let (first, rate) = rest.split_once(' ')?;
    let rate: u64 = rate.strip_suffix("iops")?.parse().ok()?;
    let role = match first {
        "slo" => CurveRole::Bisect,
        share => CurveRole::Share(share.strip_suffix('%')?.parse().ok()?),
    };
    Some((role, Some(rate)))
}

/// The paced rate of a share of the maximum: at least 1 IOPS.
pub fn share_rate(max_iops: f64, share_percent: f64) -> u64 {
    ((max_iops * share_percent / 100.0).round() as u64).max(1)
}

/// One point of the curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    /// The step's name.
    pub step: String,
    /// What it is: the maximum, a share, a bisection point.
    #[serde(flatten)]
    pub role: CurveRole,
    /// The rate it was paced at (fio `rate_iops`); `None` for the unpaced maximum.
    pub target_iops: Option<u64>,
    /// IOs per second it did.
    pub iops: f64,
    /// Latency percentiles, ms, each with its 95 % interval (the order-statistic interval
    /// widened by the histogram's error): p50, p99, p99.9 ([`CURVE_PERCENTILES`]); `None`
    /// where the step has no figure.
    pub latency_ms: Vec<Option<Estimate>>,
    /// Which latency they are: from the intended issue time for a paced point.
    pub clock: LatencyClock,
    /// Why the step is partial (left out of the curve's decisions); `None` when whole.
    pub partial: Option<String>,
    /// The SLO judged on this paced point, when there is one (`None` for the maximum).
    pub slo: Option<Judgement>,
}

impl CurvePoint {
    /// The point of the step `name` that gave `result`, judged against `slo`; `None` for a
    /// step that is not a curve point.
    pub fn of(name: &str, result: &RunResult, slo: Option<&Requirement>) -> Option<CurvePoint> {
        let (role, target_iops) = parse_curve_step_name(name)?;
        let evidence =
            StepEvidence::of(result, &mut |d, kind| merged_job_histogram(result, d, kind));
        let latency_ms = CURVE_PERCENTILES
            .iter()
            .map(|&p| {
                let statistic = LatencyStatistic::Percentile(p);
                let measure = Measure::LatencyMs {
                    scope: Scope::Total,
                    statistic,
                };
                evidence.estimate(measure).ok()
            })
            .collect();
        let iops = result.jobs.iter().map(|j| j.read.iops + j.write.iops).sum();
        Some(CurvePoint {
            step: name.to_string(),
            role,
            target_iops,
            iops,
            latency_ms,
            clock: evidence.clock,
            partial: result.partial_reason(),
            // The unpaced maximum is no answer to an SLO: its latency is the queue's.
            slo: slo
                .filter(|_| role != CurveRole::Max)
                .map(|r| judge(r, &evidence)),
        })
    }

    /// The SLO's verdict on a whole paced point; `None` for the maximum, a partial point or
    /// a curve without an SLO.
    fn decided(&self) -> Option<(u64, Verdict)> {
        let rate = self.target_iops?;
        if self.partial.is_some() {
            return None;
        }
        Some((rate, self.slo.as_ref()?.verdict))
    }
}

/// The next rate the SLO's bisection runs, from the (paced rate, verdict) of the whole points
/// so far; `None` when the bracket is narrow enough, there is none (every rate met the
/// bound), or `bisected` points have run already.
pub fn next_bisect_rate(decided: &[(u64, Verdict)], bisected: usize) -> Option<u64> {
    if bisected >= MAX_BISECT_STEPS {
        return None;
    }
    let (low, high) = bracket(decided)?;
    let width = (high - low) as f64;
    if width <= BISECT_WITHIN * high as f64 || high - low <= 1 {
        return None;
    }
    let middle = low + (high - low) / 2;
    // A rate already run gives nothing new.
    (!decided.iter().any(|&(rate, _)| rate == middle)).then_some(middle)
}

/// (highest met rate below `high`, or 0; `high`, the lowest rate not met).
fn bracket(decided: &[(u64, Verdict)]) -> Option<(u64, u64)> {
    let high = decided
        .iter()
        .filter(|(_, v)| *v != Verdict::Met)
        .map(|&(rate, _)| rate)
        .min()?;
    let low = decided
        .iter()
        .filter(|&&(rate, v)| v == Verdict::Met && rate < high)
        .map(|&(rate, _)| rate)
        .max()
        .unwrap_or(0);
    Some((low, high))
}

/// The SLO's answer: the highest rate whose percentile's interval stays under the bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SloAnswer {
    /// The SLO (`lat-p99 <= 2 ms`).
    pub requirement: Requirement,
    /// Met: a paced rate cleared the bound (the answer is the highest below the first that
    /// did not); within noise: no rate cleared it, and the lowest could not be told apart
    /// from it; missed: every rate measured missed it; not measured: no whole paced point.
    pub verdict: Verdict,
    /// The highest paced rate that met it (met), or the lowest that could not be told apart
    /// (within noise).
    pub rate_iops: Option<u64>,
    /// The judgement at that rate, with its measured figure and interval.
    pub at_rate: Option<Judgement>,
    /// The lowest paced rate that did not meet it, with its judgement: the bracket's top.
    pub first_over: Option<(u64, Judgement)>,
    /// The answer as a share of the maximum rate, percent.
    pub share_of_max_percent: Option<f64>,
}

/// The curve: the maximum rate, the paced points in rate order, the SLO's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    /// The maximum rate (the unpaced point's IOPS); `None` when it did not run whole.
    pub max_iops: Option<f64>,
    /// Every point, the maximum first, then the paced ones by rate.
    pub points: Vec<CurvePoint>,
    /// The SLO's answer, when one was asked.
    pub slo: Option<SloAnswer>,
}

impl Curve {
    /// The curve of the steps `(name, result)` that are curve points, judged against `slo`.
    pub fn of<'a>(
        steps: impl IntoIterator<Item = (&'a str, &'a RunResult)>,
        slo: Option<&Requirement>,
    ) -> Curve {
        let mut points: Vec<CurvePoint> = steps
            .into_iter()
            .filter_map(|(name, result)| CurvePoint::of(name, result, slo))
            .collect();
        points.sort_by_key(|p| p.target_iops.unwrap_or(0));
        let max_iops = points
            .iter()
            .find(|p| p.role == CurveRole::Max && p.partial.is_none())
            .map(|p| p.iops);
        let slo = slo.map(|requirement| answer(requirement, &points, max_iops));
        Curve {
            max_iops,
            points,
            slo,
        }
    }

    /// The (rate, verdict) of the whole paced points, for [`next_bisect_rate`].
    pub fn decided(&self) -> Vec<(u64, Verdict)> {
        self.points.iter().filter_map(CurvePoint::decided).collect()
    }

    /// How many bisection points ran.
    pub fn bisected(&self) -> usize {
        self.points
            .iter()
            .filter(|p| p.role == CurveRole::Bisect)
            .count()
    }
}

/// The SLO's answer over `points` (by rate).
fn answer(requirement: &Requirement, points: &[CurvePoint], max_iops: Option<f64>) -> SloAnswer {
    let judged = |rate: u64| {
        points
            .iter()
            .find(|p| p.target_iops == Some(rate) && p.partial.is_none())
            .and_then(|p| p.slo.clone())
    };
    let decided: Vec<(u64, Verdict)> = points.iter().filter_map(CurvePoint::decided).collect();
    let mut out = SloAnswer {
        requirement: requirement.clone(),
        verdict: Verdict::NotMeasured,
        rate_iops: None,
        at_rate: None,
        first_over: None,
        share_of_max_percent: None,
    };
    if decided.is_empty() {
        return out;
    }
    let (rate, verdict) = match bracket(&decided) {
        None => (decided.iter().map(|&(r, _)| r).max(), Verdict::Met),
        Some((low, high)) => {
            out.first_over = judged(high).map(|j| (high, j));
            if low > 0 {
                (Some(low), Verdict::Met)
            } else {
                match decided.iter().find(|(_, v)| *v == Verdict::WithinNoise) {
                    Some(&(rate, _)) => (Some(rate), Verdict::WithinNoise),
                    None => (None, Verdict::Missed),
                }
            }
        }
    };
    out.verdict = verdict;
    if out.first_over.as_ref().map(|(r, _)| *r) == rate {
        // No rate met the bound: the answer is the bracket's top itself.
        out.first_over = None;
    }
    out.rate_iops = rate;
    out.at_rate = rate.and_then(judged);
    out.share_of_max_percent = rate
        .zip(max_iops)
        .filter(|(_, max)| *max > 0.0)
        .map(|(rate, max)| rate as f64 / max * 100.0);
    out
}

#[cfg(test)]
#[path = "curve_tests.rs"]
mod tests;
