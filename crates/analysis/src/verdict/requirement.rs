//! A requirement — metric, direction, statistic, bound, unit — parsed once: the one
//! vocabulary of `check --require`, `check --capture` (from the checklist at a level),
//! `suite --expect` / `check --expect` (the guides' published figures) and the checklist's
//! latency rows.

use crate::requirements::{Checklist, Level, Metric};
use diskmeter_units::{parse_time_ns, TimeUnit};
use serde::Serialize;
use std::fmt;

/// Which IOs a requirement counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Reads only.
    Read,
    /// Writes only.
    Write,
    /// Reads and writes together.
    Total,
}

impl Scope {
    /// "read", "write" or "" (both), as keys and labels start.
    pub fn prefix(self) -> &'static str {
        match self {
            Scope::Read => "read-",
            Scope::Write => "write-",
            Scope::Total => "",
        }
    }
}

/// Which figure of a step's latency is judged.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "percent")]
pub enum LatencyStatistic {
    /// The mean over every IO.
    Mean,
    /// A percentile over every IO (100 = the largest), from the step's histograms.
    Percentile(f64),
    /// A percentile over the step's 1 s intervals of their mean latency (100 = the largest
    /// interval): what a capture's counters give (`r_await`, `w_await` per interval), never
    /// compared with a per-IO percentile.
    IntervalPercentile(f64),
}

/// What a requirement measures on a step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "quantity")]
pub enum Measure {
    /// IOs per second over the step's runtime.
    Iops {
        /// Which IOs.
        scope: Scope,
    },
    /// MiB per second over the step's runtime.
    Mibps {
        /// Which IOs.
        scope: Scope,
    },
    /// Latency, ms: from the intended issue time for a rate-limited or replayed step, else
    /// issue to completion.
    LatencyMs {
        /// Which IOs.
        scope: Scope,
        /// Which figure of it.
        statistic: LatencyStatistic,
    },
}

impl Measure {
    /// The unit printed after a figure.
    pub fn unit(self) -> &'static str {
        match self {
            Measure::Iops { .. } => "IOPS",
            Measure::Mibps { .. } => "MiB/s",
            Measure::LatencyMs { .. } => "ms",
        }
    }

    /// Which IOs it counts.
    pub fn scope(self) -> Scope {
        match self {
            Measure::Iops { scope }
            | Measure::Mibps { scope }
            | Measure::LatencyMs { scope, .. } => scope,
        }
    }

    /// The canonical `--require` key: `read-iops`, `mibps`, `write-lat-p99.9`, `lat-mean`,
    /// `read-await-p90` (a percentile of 1 s mean latencies).
    pub fn key(self) -> String {
        let prefix = self.scope().prefix();
        match self {
            Measure::Iops { .. } => format!("{prefix}iops"),
            Measure::Mibps { .. } => format!("{prefix}mibps"),
            Measure::LatencyMs { statistic, .. } => match statistic {
                LatencyStatistic::Mean => format!("{prefix}lat-mean"),
                LatencyStatistic::Percentile(p) if p >= 100.0 => format!("{prefix}lat-max"),
                LatencyStatistic::Percentile(p) => format!("{prefix}lat-p{p}"),
                LatencyStatistic::IntervalPercentile(p) if p >= 100.0 => {
                    format!("{prefix}await-max")
                }
                LatencyStatistic::IntervalPercentile(p) => format!("{prefix}await-p{p}"),
            },
        }
    }

    /// Parses a key (any case): `[read-|write-](iops|mibps|lat[-LEVEL]|await-LEVEL)`, LEVEL
    /// `mean`, `max` or `pN` (0 < N <= 100); `lat` alone is the mean.
    pub fn parse_key(key: &str) -> Option<Measure> {
        let key = key.trim().to_ascii_lowercase();
        let (scope, rest) = match key.split_once('-') {
            Some(("read", rest)) => (Scope::Read, rest),
            Some(("write", rest)) => (Scope::Write, rest),
            _ => (Scope::Total, key.as_str()),
        };
        match rest {
            "iops" => return Some(Measure::Iops { scope }),
            "mibps" => return Some(Measure::Mibps { scope }),
            "lat" => {
                return Some(Measure::LatencyMs {
                    scope,
                    statistic: LatencyStatistic::Mean,
                })
            }
            _ => {}
        }
        let level = |text: &str| -> Option<Option<f64>> {
            match text {
                "mean" | "avg" => Some(None),
                "max" => Some(Some(100.0)),
                p => {
                    let value: f64 = p.strip_prefix('p')?.parse().ok()?;
                    (value > 0.0 && value <= 100.0).then_some(Some(value))
                }
            }
        };
        if let Some(text) = rest.strip_prefix("lat-") {
            let statistic = match level(text)? {
                None => LatencyStatistic::Mean,
                Some(p) => LatencyStatistic::Percentile(p),
            };
            return Some(Measure::LatencyMs { scope, statistic });
        }
        let text = rest.strip_prefix("await-")?;
        let statistic = match level(text)? {
            // The mean of 1 s means weighted by their IOs is the mean over every IO.
            None => LatencyStatistic::Mean,
            Some(p) => LatencyStatistic::IntervalPercentile(p),
        };
        Some(Measure::LatencyMs { scope, statistic })
    }
}

/// Which side of the threshold meets a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Measured >= threshold (rates; a guide's "N+" and "~N").
    AtLeast,
    /// Measured <= threshold (latency).
    AtMost,
    /// Measured < threshold (a guide's "< N").
    Below,
}

impl Bound {
    /// `>=`, `<=`, `<`.
    pub fn symbol(self) -> &'static str {
        match self {
            Bound::AtLeast => ">=",
            Bound::AtMost => "<=",
            Bound::Below => "<",
        }
    }
}

/// One requirement on a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Requirement {
    /// What is measured.
    pub measure: Measure,
    /// Which side meets it.
    pub bound: Bound,
    /// The threshold, in the measure's unit (IOPS, MiB/s, ms).
    pub threshold: f64,
    /// Where it came from: "--require", "capture 3 p90 IOPS read", "do-standard ~5,000 IOPS".
    pub origin: String,
    /// How far past the threshold a measured interval may lie and still be "within noise"
    /// rather than missed, in the measure's unit; 0 for most. A capture's latency was
    /// measured at the device (a trace) or the block layer (`await`), a run's at the
    /// application, which adds submission and reaping ([`MEASUREMENT_POINT_ALLOWANCE`]).
    pub allowance: f64,
}

impl Requirement {
    /// The canonical key (`read-lat-p99`).
    pub fn key(&self) -> String {
        self.measure.key()
    }
}

impl fmt::Display for Requirement {
    /// `read-lat-p99 <= 2.00 ms (--require)`: a latency bound (kept in ms) in its scaled
    /// unit, as every human view prints latency (`<= 500.0 us`, never `<= 0.50 ms`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let threshold = match self.measure.unit() {
            "ms" => diskmeter_units::format_duration(self.threshold * 1e6),
            unit => format!(
                "{} {unit}",
                crate::requirements::format_figure(Some(self.threshold))
            ),
        };
        write!(
            f,
            "{} {} {threshold} ({})",
            self.key(),
            self.bound.symbol(),
            self.origin
        )
    }
}

/// Why a `--require` list could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequirementError {
    /// An entry is not KEY=VALUE.
    #[error("--require {0}: not KEY=VALUE")]
    NotKeyValue(String),
    /// The key is none of the known ones.
    #[error("--require {entry}: unknown key '{key}' (keys: {REQUIRE_KEYS})")]
    UnknownKey {
        /// The entry as given.
        entry: String,
        /// The key.
        key: String,
    },
    /// The value is not a rate or a latency.
    #[error("--require {entry}: {why}")]
    BadValue {
        /// The entry as given.
        entry: String,
        /// What is wrong with the value.
        why: String,
    },
    /// A key is given twice.
    #[error("--require {0}: the key is given twice")]
    Duplicate(String),
    /// Nothing was given.
    #[error("--require is empty")]
    Empty,
}

/// The keys `--require` takes, for messages and `--help`.
pub const REQUIRE_KEYS: &str = "iops, read-iops, write-iops, mibps, read-mibps, write-mibps \
    (minimums); lat-LEVEL, read-lat-LEVEL, write-lat-LEVEL (per-IO latency: LEVEL mean, p50, \
    p90, p99, p99.9, any pN, max; lat alone is the mean) and await-LEVEL, read-await-LEVEL, \
    write-await-LEVEL (LEVEL pN or max of the 1 s mean latencies, as a capture's counters \
    give) (maximums; a bare number is ms)";

/// Every `--require` given (each `KEY=VALUE,...`) as one list: a key given twice, in one
/// text or across several, is refused.
pub fn parse_all_requirements<'a>(
    texts: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<Requirement>, RequirementError> {
    let mut all: Vec<Requirement> = Vec::new();
    for text in texts {
        for r in parse_requirements(text)? {
            if all.iter().any(|given| given.measure == r.measure) {
                return Err(RequirementError::Duplicate(r.key()));
            }
            all.push(r);
        }
    }
    Ok(all)
}

/// Adds `more` (a capture's checklist as requirements) to `given`, except where a given
/// requirement has the same key: what the user wrote wins.
pub fn add_unless_given(given: &mut Vec<Requirement>, more: Vec<Requirement>) {
    for r in more {
        if !given.iter().any(|g| g.measure.key() == r.measure.key()) {
            given.push(r);
        }
    }
}

/// Parses `iops=5000,read-lat-p99=2ms,mibps=200`: rates are minimums (`5k` = 5,000), latencies
/// maximums (a bare number is ms; fio's time units work: `500us`).
pub fn parse_requirements(text: &str) -> Result<Vec<Requirement>, RequirementError> {
    let mut out: Vec<Requirement> = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = entry
            .split_once('=')
            .ok_or_else(|| RequirementError::NotKeyValue(entry.to_string()))?;
        let measure = Measure::parse_key(key).ok_or_else(|| RequirementError::UnknownKey {
            entry: entry.to_string(),
            key: key.trim().to_string(),
        })?;
        let bad = |why: String| RequirementError::BadValue {
            entry: entry.to_string(),
            why,
        };
        let (threshold, bound) = match measure {
            Measure::LatencyMs { .. } => (parse_ms(value).map_err(bad)?, Bound::AtMost),
            _ => (parse_rate(value).map_err(bad)?, Bound::AtLeast),
        };
        if out.iter().any(|r| r.measure == measure) {
            return Err(RequirementError::Duplicate(entry.to_string()));
        }
        out.push(Requirement {
            measure,
            bound,
            threshold,
            origin: "--require".to_string(),
            allowance: 0.0,
        });
    }
    if out.is_empty() {
        return Err(RequirementError::Empty);
    }
    Ok(out)
}

/// `5000`, `5k`, `1.2m` (x1,000 / x1,000,000).
fn parse_rate(text: &str) -> Result<f64, String> {
    diskmeter_units::parse_decimal_count(text)
        .ok_or_else(|| format!("'{}' is not a rate (e.g. 5000, 5k)", text.trim()))
}

/// Milliseconds: a bare number (`0.5`), or fio time syntax with a unit (`500us`, `2ms`).
fn parse_ms(text: &str) -> Result<f64, String> {
    let t = text.trim();
    if let Ok(ms) = t.parse::<f64>() {
        if ms.is_finite() && ms > 0.0 {
            return Ok(ms);
        }
    }
    match parse_time_ns(t, TimeUnit::Milliseconds) {
        Ok(ns) if ns > 0 => Ok(ns as f64 / 1e6),
        Ok(_) => Err("a latency bound must be more than 0".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// What a latency measured at the device or the block layer (a capture) and one measured by
/// the application (a run) may differ by for the same IOs: the application's figure adds the
/// system call, submission, and the wake-up that hands it the completion. Measured on this
/// project's VMs (tests/alone/verdicts.rs: fio's clat against the trace of the same IOs on a loop
/// device, 2026-11-28, three runs): 1-3 us at p50, 38-45 us at p90, 86-129 us at p99 — the
/// wake-up of a process waiting for a completion comes late on a virtual machine — so the
/// fixed part is 0.15 ms; on slow devices (cloud volumes, ms) the 10 % dominates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Allowance {
    /// The fixed part, ms.
    pub fixed_ms: f64,
    /// The part proportional to the figure.
    pub share: f64,
}

impl Allowance {
    /// The allowance for a latency of `ms`: the larger of the two parts.
    pub fn of(self, ms: f64) -> f64 {
        self.fixed_ms.max(self.share * ms)
    }
}

/// The allowance of a capture's latency rows: max(0.15 ms, 10 %).
pub const MEASUREMENT_POINT_ALLOWANCE: Allowance = Allowance {
    fixed_ms: 0.15,
    share: 0.10,
};

/// The percentile a checklist level stands for (max = 100); `None` for the mean.
fn level_percentile(level: Level) -> Option<f64> {
    match level {
        Level::P50 => Some(50.0),
        Level::P90 => Some(90.0),
        Level::P99 => Some(99.0),
        Level::Max => Some(100.0),
        Level::Mean => None,
    }
}

/// The requirements a capture's checklist sets at `level` (`source` names the capture):
/// - its rates (IOPS total, read, write; MiB/s total) as minimums;
/// - its latency as maximums of the same statistic on the step: per-IO percentiles where the
///   capture was traced (the device's latency per IO at the level), else the level of the
///   counters' 1 s mean latencies (`r_await`, `w_await`) against the level of the step's 1 s
///   mean latencies — never a per-interval mean against a per-IO percentile.
pub fn requirements_from_checklist(
    checklist: &Checklist,
    level: Level,
    source: &str,
) -> Vec<Requirement> {
    let mut out = Vec::new();
    let mut add = |measure: Measure, bound: Bound, metric: Metric| {
        if let Some(value) = checklist.level(metric, level).filter(|v| *v > 0.0) {
            let allowance = match measure {
                Measure::LatencyMs { .. } => MEASUREMENT_POINT_ALLOWANCE.of(value),
                _ => 0.0,
            };
            out.push(Requirement {
                measure,
                bound,
                threshold: value,
                origin: format!("{source} {level} {}", metric.label()),
                allowance,
            });
        }
    };
    add(
        Measure::Iops {
            scope: Scope::Total,
        },
        Bound::AtLeast,
        Metric::IopsTotal,
    );
    add(
        Measure::Iops { scope: Scope::Read },
        Bound::AtLeast,
        Metric::IopsRead,
    );
    add(
        Measure::Iops {
            scope: Scope::Write,
        },
        Bound::AtLeast,
        Metric::IopsWrite,
    );
    add(
        Measure::Mibps {
            scope: Scope::Total,
        },
        Bound::AtLeast,
        Metric::ThroughputTotalMibps,
    );
    for (scope, traced, counted) in [
        (
            Scope::Read,
            Metric::DeviceLatencyReadMs,
            Metric::LatencyReadMs,
        ),
        (
            Scope::Write,
            Metric::DeviceLatencyWriteMs,
            Metric::LatencyWriteMs,
        ),
    ] {
        let per_io = checklist.level(traced, level).is_some();
        let statistic = match (level_percentile(level), per_io) {
            (None, _) => LatencyStatistic::Mean,
            (Some(p), true) => LatencyStatistic::Percentile(p),
            (Some(p), false) => LatencyStatistic::IntervalPercentile(p),
        };
        add(
            Measure::LatencyMs { scope, statistic },
            Bound::AtMost,
            if per_io { traced } else { counted },
        );
    }
    out
}
