//! The charts of one step: per-second IOPS, bandwidth and latency, the latency percentile
//! curve on a nines axis and the latency histogram (both from the step's merged HDR
//! histograms), and CPU per job when there are several jobs to compare.
//!
//! Every series of a chart shares the chart's x values (the same seconds, percentiles or
//! latency buckets), so a renderer may draw them on one x array. A per-second latency of a
//! second without IOs of that direction is a gap (`None`); a second without IOs is 0 IOPS,
//! a measured stall, not a gap.

use super::facts::{cpu_measured, job_title};
use crate::{Axis, ChartSpec, ChartStyle, Scale, SeriesSpec};
use diskmeter_report::format::latency_unit;
use diskmeter_report::RunResult;
use diskmeter_stats::{IntervalDirection, IntervalSample, LatencyHistogram};
use diskmeter_units::MIB_F64;

/// The deepest percentile the curve goes to: 99.9999 (six nines). Further out the curve is
/// the maximum of a few IOs, which the facts state exactly.
const MAX_NINES: f64 = 6.0;
/// Points of the percentile curve per nine (per decade of 1 - p): smooth on the nines axis.
const POINTS_PER_NINE: f64 = 20.0;
/// Histogram buckets per decade of latency.
const BUCKETS_PER_DECADE: f64 = 10.0;

/// A chart with this anchor, kind, title, style and axes.
fn chart(
    anchor: &str,
    kind: &str,
    title: impl Into<String>,
    style: ChartStyle,
    x: Axis,
    y: Axis,
    series: Vec<SeriesSpec>,
) -> ChartSpec {
    ChartSpec {
        id: format!("{anchor}-{kind}"),
        kind: kind.to_string(),
        title: title.into(),
        style,
        x,
        y,
        series,
    }
}

fn axis(label: impl Into<String>, scale: Scale) -> Axis {
    Axis {
        label: label.into(),
        scale,
        categories: Vec::new(),
    }
}

/// Which direction of an interval a series shows.
type PickDirection = fn(&IntervalSample) -> &IntervalDirection;

/// The per-second charts (`iops`, `bandwidth`, `latency`) of a step's series; none when
/// the step has no series (a run of no whole interval).
pub(crate) fn series_charts(
    anchor: &str,
    series: &[IntervalSample],
    reads: bool,
    writes: bool,
) -> Vec<ChartSpec> {
    let series = crate::charted_intervals(series);
    if series.is_empty() || !(reads || writes) {
        return Vec::new();
    }
    // The end of each interval, as fio's logs stamp their samples.
    let x: Vec<f64> = series
        .iter()
        .map(|s| (s.start_ms + s.duration_ms) as f64 / 1000.0)
        .collect();
    let directions: Vec<(&str, PickDirection)> = [
        (
            reads,
            "read",
            (|s: &IntervalSample| &s.read) as PickDirection,
        ),
        (writes, "write", |s: &IntervalSample| &s.write),
    ]
    .into_iter()
    .filter(|(wanted, _, _)| *wanted)
    .map(|(_, name, pick)| (name, pick))
    .collect();
    let line = |label: String, value: &dyn Fn(&IntervalSample) -> Option<f64>| SeriesSpec {
        label,
        x: x.clone(),
        y: series.iter().map(value).collect(),
    };
    let time = || axis("time (s)", Scale::Linear);
    let iops = directions
        .iter()
        .map(|(name, pick)| line(name.to_string(), &|s| Some(pick(s).iops)))
        .collect();
    let bandwidth = directions
        .iter()
        .map(|(name, pick)| line(name.to_string(), &|s| Some(pick(s).bytes_per_sec / MIB_F64)))
        .collect();
    let max_ns = series
        .iter()
        .flat_map(|s| [&s.read, &s.write])
        .map(|d| (d.lat_p99_ns as f64).max(d.lat_mean_ns))
        .fold(0.0, f64::max);
    let (unit, scale) = latency_unit(max_ns);
    let mut latency = Vec::new();
    for (name, pick) in &directions {
        // No IO in the second: no latency to draw.
        let measured = |d: &IntervalDirection| d.ios > 0;
        latency.push(line(format!("{name} mean"), &|s| {
            let d = pick(s);
            measured(d).then(|| d.lat_mean_ns / scale)
        }));
        latency.push(line(format!("{name} p99"), &|s| {
            let d = pick(s);
            measured(d).then(|| d.lat_p99_ns as f64 / scale)
        }));
    }
    vec![
        chart(
            anchor,
            "iops",
            "IOPS per second",
            ChartStyle::Lines,
            time(),
            axis("IOPS", Scale::Linear),
            iops,
        ),
        chart(
            anchor,
            "bandwidth",
            "Bandwidth per second",
            ChartStyle::Lines,
            time(),
            axis("MiB/s", Scale::Linear),
            bandwidth,
        ),
        chart(
            anchor,
            "latency",
            "Latency per second (issue to completion)",
            ChartStyle::Lines,
            time(),
            axis(format!("latency ({unit})"), Scale::Linear),
            latency,
        ),
    ]
}

/// A merged histogram of one direction: ("read", "clat", histogram).
pub(crate) type DirectionHistogram = (String, String, LatencyHistogram);

/// The percentiles the curve is drawn at for `count` IOs: 0, then evenly on the nines axis
/// up to the last percentile the IOs resolve (1 in `count`), at most [`MAX_NINES`].
pub(crate) fn curve_percentiles(count: u64) -> Vec<f64> {
    let deepest = (count.max(10) as f64).log10().min(MAX_NINES);
    let steps = (deepest * POINTS_PER_NINE).round() as u32;
    (0..=steps)
        .map(|i| {
            let nines = f64::from(i) / POINTS_PER_NINE;
            100.0 * (1.0 - 10f64.powf(-nines))
        })
        .filter(|p| *p < 100.0)
        .collect()
}

/// The `percentiles` chart: each histogram's latency at percentiles on a nines x axis, y on
/// a log axis (linear if any latency is 0 ns, which a log axis cannot place).
pub(crate) fn percentile_chart(
    anchor: &str,
    histograms: &[DirectionHistogram],
) -> Option<ChartSpec> {
    let deepest = histograms.iter().map(|(_, _, h)| h.count()).max()?;
    let x = curve_percentiles(deepest);
    let max_ns = histograms.iter().map(|(_, _, h)| h.max()).max()? as f64;
    let (unit, scale) = latency_unit(max_ns);
    let series: Vec<SeriesSpec> = histograms
        .iter()
        .map(|(direction, kind, h)| SeriesSpec {
            label: format!("{direction} {kind}"),
            x: x.clone(),
            y: x.iter()
                .map(|p| Some(h.value_at_percentile(*p) as f64 / scale))
                .collect(),
        })
        .collect();
    let any_zero = histograms.iter().any(|(_, _, h)| h.min() == 0);
    Some(chart(
        anchor,
        "percentiles",
        "Latency percentiles",
        ChartStyle::Lines,
        axis("percentile", Scale::Nines),
        axis(
            format!("latency ({unit})"),
            if any_zero {
                Scale::Linear
            } else {
                Scale::Log10
            },
        ),
        series,
    ))
}

/// The `histogram` chart: the share of IOs per latency bucket (10 per decade, log x), one
/// line per histogram, all on the same buckets. IOs at 0 ns, which a log axis cannot place,
/// are counted in the returned number instead.
pub(crate) fn histogram_chart(
    anchor: &str,
    histograms: &[DirectionHistogram],
) -> Option<(ChartSpec, u64)> {
    let low = histograms.iter().map(|(_, _, h)| h.min().max(1)).min()?;
    let high = histograms.iter().map(|(_, _, h)| h.max()).max()?.max(low);
    let first = (low as f64).log10().floor();
    let last = (high as f64).log10().floor() + 1.0;
    let buckets = ((last - first) * BUCKETS_PER_DECADE).round() as u32;
    // Edges 10^first .. 10^last: the first is <= every non-zero latency, the last above all.
    let edges: Vec<u64> = (0..=buckets)
        .map(|i| {
            10f64
                .powf(first + f64::from(i) / BUCKETS_PER_DECADE)
                .round() as u64
        })
        .collect();
    let counts: Vec<Vec<u64>> = histograms
        .iter()
        .map(|(_, _, h)| h.count_by_ranges(&edges))
        .collect();
    // counts[0] is below the first edge (0 ns only), counts[i] is edges[i-1]..edges[i].
    let used: Vec<usize> = (1..edges.len())
        .filter(|&i| counts.iter().any(|c| c[i] > 0))
        .collect();
    let (from, to) = (*used.first()?, *used.last()?);
    let (unit, scale) = latency_unit(high as f64);
    let x: Vec<f64> = (from..=to)
        .map(|i| ((edges[i - 1] as f64) * (edges[i] as f64)).sqrt() / scale)
        .collect();
    let series = histograms
        .iter()
        .zip(&counts)
        .map(|((direction, kind, h), c)| SeriesSpec {
            label: format!("{direction} {kind}"),
            x: x.clone(),
            y: (from..=to)
                .map(|i| Some(100.0 * c[i] as f64 / h.count().max(1) as f64))
                .collect(),
        })
        .collect();
    let at_zero = counts.iter().map(|c| c[0]).sum();
    Some((
        chart(
            anchor,
            "histogram",
            "Latency histogram",
            ChartStyle::Lines,
            axis(format!("latency ({unit})"), Scale::Log10),
            axis("share of IOs (%)", Scale::Linear),
            series,
        ),
        at_zero,
    ))
}

/// The `percentiles` chart from the percentiles a single job listed, for a step whose
/// histograms were not stored (runs saved before histograms were kept): the same chart,
/// coarser.
pub(crate) fn listed_percentile_chart(anchor: &str, result: &RunResult) -> Option<ChartSpec> {
    let [job] = result.jobs.as_slice() else {
        return None;
    };
    let listed: Vec<(&str, &diskmeter_report::LatencySummary)> =
        [("read", &job.read.clat), ("write", &job.write.clat)]
            .into_iter()
            .filter(|(_, s)| s.count > 0 && s.percentiles.len() >= 2)
            .collect();
    let max_ns = listed
        .iter()
        .flat_map(|(_, s)| s.percentiles.iter().map(|p| p.value_ns))
        .max()? as f64;
    let (unit, scale) = latency_unit(max_ns);
    // The directions share x only when they list the same percentiles (they do: one job).
    let series = listed
        .iter()
        .map(|(direction, s)| {
            let drawable: Vec<_> = s.percentiles.iter().filter(|p| p.percent < 100.0).collect();
            SeriesSpec {
                label: format!("{direction} clat"),
                x: drawable.iter().map(|p| p.percent).collect(),
                y: drawable
                    .iter()
                    .map(|p| Some(p.value_ns as f64 / scale))
                    .collect(),
            }
        })
        .collect();
    Some(chart(
        anchor,
        "percentiles",
        "Latency percentiles (as listed)",
        ChartStyle::LinesPoints,
        axis("percentile", Scale::Nines),
        axis(format!("latency ({unit})"), Scale::Linear),
        series,
    ))
}

/// The `cpu` chart: user and system CPU per job, as bars; only for a step of several jobs
/// (one job's CPU is two numbers, which the facts give).
pub(crate) fn cpu_chart(anchor: &str, result: &RunResult) -> Option<ChartSpec> {
    let jobs: Vec<_> = result.jobs.iter().filter(|j| cpu_measured(j)).collect();
    if jobs.len() < 2 {
        return None;
    }
    let x: Vec<f64> = (0..jobs.len()).map(|i| i as f64).collect();
    let bars = |label: &str, value: fn(&diskmeter_report::CpuResult) -> f64| SeriesSpec {
        label: label.to_string(),
        x: x.clone(),
        y: jobs.iter().map(|j| Some(value(&j.cpu))).collect(),
    };
    Some(chart(
        anchor,
        "cpu",
        "CPU per job (percent of the workers' runtime)",
        ChartStyle::Bars,
        Axis {
            label: "job".to_string(),
            scale: Scale::Linear,
            categories: jobs.iter().map(|j| job_title(j, &result.jobs)).collect(),
        },
        axis("CPU (%)", Scale::Linear),
        vec![
            bars("usr", |c| c.usr_percent),
            bars("sys", |c| c.sys_percent),
        ],
    ))
}
