//! The requirements `check` judges a step against: `--require` keys, a capture's checklist at
//! a level, and how each is measured on a stored step (rates from its result, latency
//! percentiles from its merged histograms in the history).

use crate::UsageError;
use diskmeter_analysis::requirements::{Checklist, Level, Metric};
use diskmeter_history::HistoryStore;
use diskmeter_suites::table::StepFigures;
use diskmeter_units::{parse_time_ns, TimeUnit};

/// Which side of the threshold passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Measured >= threshold (rates).
    AtLeast,
    /// Measured <= threshold (latency).
    AtMost,
}

/// What a requirement measures on a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Measure {
    /// IOPS of reads, writes or both (`None`).
    Iops(Option<Direction>),
    /// MiB/s of reads, writes or both.
    Mibps(Option<Direction>),
    /// Latency (issue to completion), ms, of reads, writes or both, at a percentile
    /// (`None` = mean, 100 = max).
    LatencyMs(Option<Direction>, Option<f64>),
}

/// A direction of IO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Reads.
    Read,
    /// Writes.
    Write,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }
}

/// One requirement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Requirement {
    /// The key as `--require` writes it (`read-lat-p99`).
    pub key: String,
    /// What is measured.
    pub measure: Measure,
    /// Which side passes.
    pub side: Side,
    /// The threshold, in the measure's unit (IOPS, MiB/s, ms).
    pub threshold: f64,
    /// Where the threshold came from ("--require", "capture 3 p90 IOPS total").
    pub origin: String,
}

impl Measure {
    /// The unit printed after a figure.
    pub fn unit(self) -> &'static str {
        match self {
            Measure::Iops(_) => "IOPS",
            Measure::Mibps(_) => "MiB/s",
            Measure::LatencyMs(..) => "ms",
        }
    }
}

/// The keys `--require` takes, for messages.
pub(crate) const REQUIRE_KEYS: &str = "iops, read-iops, write-iops, mibps, read-mibps, \
    write-mibps, lat-LEVEL, read-lat-LEVEL, write-lat-LEVEL (LEVEL: mean, p50, p90, p95, p99, \
    p99.9, max; read-lat alone is the mean)";

/// Parses `--require iops=5000,read-lat-p99=2ms,mibps=200`.
pub(crate) fn parse_require(text: &str) -> Result<Vec<Requirement>, UsageError> {
    let mut out: Vec<Requirement> = Vec::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = |why: String| UsageError(format!("--require {pair}: {why}"));
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| bad("not KEY=VALUE".to_string()))?;
        let key = key.trim().to_ascii_lowercase();
        let measure = parse_key(&key)
            .ok_or_else(|| bad(format!("unknown key '{key}' (keys: {REQUIRE_KEYS})")))?;
        let (threshold, side) = match measure {
            Measure::LatencyMs(..) => (parse_ms(value).map_err(bad)?, Side::AtMost),
            _ => (parse_rate(value).map_err(bad)?, Side::AtLeast),
        };
        if out.iter().any(|r| r.key == key) {
            return Err(bad(format!("'{key}' is given twice")));
        }
        out.push(Requirement {
            key,
            measure,
            side,
            threshold,
            origin: "--require".to_string(),
        });
    }
    if out.is_empty() {
        return Err(UsageError("--require is empty".to_string()));
    }
    Ok(out)
}

fn parse_key(key: &str) -> Option<Measure> {
    let (direction, rest) = match key.split_once('-') {
        Some(("read", rest)) => (Some(Direction::Read), rest),
        Some(("write", rest)) => (Some(Direction::Write), rest),
        _ => (None, key),
    };
    match rest {
        "iops" => return Some(Measure::Iops(direction)),
        "mibps" => return Some(Measure::Mibps(direction)),
        "lat" => return Some(Measure::LatencyMs(direction, None)),
        _ => {}
    }
    let level = rest.strip_prefix("lat-")?;
    let percentile = match level {
        "mean" | "avg" => None,
        "max" => Some(100.0),
        p => {
            let value: f64 = p.strip_prefix('p')?.parse().ok()?;
            if !(0.0..=100.0).contains(&value) {
                return None;
            }
            Some(value)
        }
    };
    Some(Measure::LatencyMs(direction, percentile))
}

/// `5000`, `5k`, `1.2m` (x1,000 / x1,000,000).
fn parse_rate(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('m' | 'M') => (&t[..t.len() - 1], 1e6),
        _ => (t, 1.0),
    };
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v * scale),
        _ => Err(format!("'{t}' is not a rate (e.g. 5000, 5k)")),
    }
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

/// The requirements a capture's checklist sets at `level`: the rates it reached (IOPS and
/// MiB/s, total and per direction with IO) as minimums, and its latency as a maximum on the
/// step's mean latency: the capture's latency rows are per-interval means (r_await,
/// w_await), so the comparable figure of a benchmark is its mean.
pub(crate) fn from_capture(checklist: &Checklist, level: Level, source: &str) -> Vec<Requirement> {
    let mut out = Vec::new();
    let mut add = |key: &str, measure: Measure, side: Side, metric: Metric| {
        if let Some(value) = checklist.level(metric, level).filter(|v| *v > 0.0) {
            out.push(Requirement {
                key: key.to_string(),
                measure,
                side,
                threshold: value,
                origin: format!("{source} {level} {}", metric.label()),
            });
        }
    };
    use Direction::{Read, Write};
    add(
        "iops",
        Measure::Iops(None),
        Side::AtLeast,
        Metric::IopsTotal,
    );
    add(
        "read-iops",
        Measure::Iops(Some(Read)),
        Side::AtLeast,
        Metric::IopsRead,
    );
    add(
        "write-iops",
        Measure::Iops(Some(Write)),
        Side::AtLeast,
        Metric::IopsWrite,
    );
    add(
        "mibps",
        Measure::Mibps(None),
        Side::AtLeast,
        Metric::ThroughputTotalMibps,
    );
    let lat = |d| Measure::LatencyMs(Some(d), None);
    add(
        "read-lat-mean",
        lat(Read),
        Side::AtMost,
        Metric::LatencyReadMs,
    );
    add(
        "write-lat-mean",
        lat(Write),
        Side::AtMost,
        Metric::LatencyWriteMs,
    );
    out
}

/// Measures `measure` on step `position` of run `run_id` (`figures` are its totals); `None`
/// when the step has no IO of that kind.
pub(crate) fn measure(
    store: &HistoryStore,
    run_id: i64,
    position: u32,
    figures: &StepFigures,
    measure: Measure,
) -> anyhow::Result<Option<f64>> {
    let mib = (1u64 << 20) as f64;
    let (read, write) = (figures.read_iops > 0.0, figures.write_iops > 0.0);
    Ok(match measure {
        Measure::Iops(None) => Some(figures.read_iops + figures.write_iops),
        Measure::Iops(Some(Direction::Read)) => Some(figures.read_iops),
        Measure::Iops(Some(Direction::Write)) => Some(figures.write_iops),
        Measure::Mibps(None) => {
            Some((figures.read_bytes_per_sec + figures.write_bytes_per_sec) / mib)
        }
        Measure::Mibps(Some(Direction::Read)) => Some(figures.read_bytes_per_sec / mib),
        Measure::Mibps(Some(Direction::Write)) => Some(figures.write_bytes_per_sec / mib),
        Measure::LatencyMs(Some(Direction::Read), None) => {
            read.then(|| figures.read_lat_mean_ns / 1e6)
        }
        Measure::LatencyMs(Some(Direction::Write), None) => {
            write.then(|| figures.write_lat_mean_ns / 1e6)
        }
        Measure::LatencyMs(direction, percentile) => {
            // Percentiles (and the mean of both directions) come from the step's merged
            // total-latency histograms: exact counts, 0.1 % values.
            let directions: Vec<Direction> = match direction {
                Some(d) => vec![d],
                None => vec![Direction::Read, Direction::Write],
            };
            let mut merged: Option<diskmeter_stats::LatencyHistogram> = None;
            for d in directions {
                if let Some(h) = store.histogram(run_id, position, d.name(), "lat")? {
                    match merged.as_mut() {
                        Some(m) => m.merge(&h),
                        None => merged = Some(h),
                    }
                }
            }
            merged.filter(|h| !h.is_empty()).map(|h| {
                let ns = match percentile {
                    Some(p) => h.value_at_percentile(p) as f64,
                    None => h.mean(),
                };
                ns / 1e6
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn require_keys_name_a_direction_a_measure_and_a_level() {
        let parsed =
            parse_require("iops=5k,read-mibps=200,write-lat-p99.9=500us,lat-max=2,read-lat=0.5")
                .unwrap();
        let measures: Vec<Measure> = parsed.iter().map(|r| r.measure).collect();
        assert_eq!(
            measures,
            [
                Measure::Iops(None),
                Measure::Mibps(Some(Direction::Read)),
                Measure::LatencyMs(Some(Direction::Write), Some(99.9)),
                Measure::LatencyMs(None, Some(100.0)),
                Measure::LatencyMs(Some(Direction::Read), None),
            ]
        );
        let thresholds: Vec<f64> = parsed.iter().map(|r| r.threshold).collect();
        assert_eq!(thresholds, [5000.0, 200.0, 0.5, 2.0, 0.5]);
        assert_eq!(parsed[0].side, Side::AtLeast);
        assert_eq!(parsed[2].side, Side::AtMost);
        for bad in [
            "iops",
            "speed=1",
            "read-lat-p101=1",
            "iops=1,iops=2",
            "read-lat=0",
            "",
        ] {
            assert!(parse_require(bad).is_err(), "{bad}");
        }
    }
}
