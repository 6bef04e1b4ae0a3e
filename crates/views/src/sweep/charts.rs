//! The three charts of a sweep as [`ChartSpec`]s, the same curves `diskmeter sweep` draws
//! (diskmeter-charts, whose file stems are the kinds): IOPS vs queue depth per block size
//! (flattening at the IOPS cap), MiB/s vs block size per queue depth (flattening at the
//! bandwidth cap) and mean latency vs queue depth per block size (growing in proportion once
//! throttled). Queue depths and block sizes double from point to point, so both x axes are
//! logarithmic.

use crate::{Axis, ChartSpec, ChartStyle, Scale, SeriesSpec};
use diskmeter_analysis::SweepPoint;
use diskmeter_units::MIB_F64;
use diskmeter_units::{format_size_suffix, KbBase};

/// A chart's kind, which is also `diskmeter chart --kind` and the file stem of
/// `diskmeter sweep --charts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SweepChart {
    /// IOPS vs queue depth, one line per block size.
    IopsVsQd,
    /// MiB/s vs block size, one line per queue depth.
    MibpsVsBs,
    /// Mean latency (ms) vs queue depth, one line per block size.
    LatencyVsQd,
}

impl SweepChart {
    /// Every chart, in the order shown.
    pub const ALL: [SweepChart; 3] = [
        SweepChart::IopsVsQd,
        SweepChart::MibpsVsBs,
        SweepChart::LatencyVsQd,
    ];

    /// The kind (`iops-vs-qd`).
    pub fn kind(self) -> &'static str {
        match self {
            SweepChart::IopsVsQd => "iops-vs-qd",
            SweepChart::MibpsVsBs => "mibps-vs-bs",
            SweepChart::LatencyVsQd => "latency-vs-qd",
        }
    }

    fn title(self) -> &'static str {
        match self {
            SweepChart::IopsVsQd => "IOPS vs queue depth",
            SweepChart::MibpsVsBs => "MiB/s vs block size",
            SweepChart::LatencyVsQd => "Mean latency vs queue depth",
        }
    }

    fn axes(self) -> (&'static str, &'static str) {
        match self {
            SweepChart::IopsVsQd => ("queue depth (IOs in flight)", "IOPS"),
            SweepChart::MibpsVsBs => ("block size (KiB)", "MiB/s"),
            // The unit is scaled to the values (see `chart`).
            SweepChart::LatencyVsQd => ("queue depth (IOs in flight)", "mean latency"),
        }
    }

    /// The line a point belongs to: its block size, or its queue depth for MiB/s vs size.
    fn line_of(self, point: &SweepPoint) -> u64 {
        match self {
            SweepChart::MibpsVsBs => u64::from(point.qd),
            _ => point.bs_bytes,
        }
    }

    fn line_label(self, key: u64) -> String {
        match self {
            SweepChart::MibpsVsBs => format!("QD {key}"),
            _ => format_size_suffix(key, KbBase::Binary).to_uppercase(),
        }
    }

    fn xy(self, point: &SweepPoint) -> (f64, f64) {
        match self {
            SweepChart::IopsVsQd => (f64::from(point.qd), point.iops),
            SweepChart::MibpsVsBs => (
                point.bs_bytes as f64 / 1024.0,
                point.bytes_per_sec / MIB_F64,
            ),
            SweepChart::LatencyVsQd => (f64::from(point.qd), point.lat_mean_ns),
        }
    }
}

/// The chart `which` of one pattern's points; its id is `{anchor}-{kind}`. `about` says
/// what was swept ("randread on /dev/vdb").
pub(crate) fn chart(
    which: SweepChart,
    anchor: &str,
    about: &str,
    points: &[SweepPoint],
) -> ChartSpec {
    let mut keys: Vec<u64> = points.iter().map(|p| which.line_of(p)).collect();
    keys.sort_unstable();
    keys.dedup();
    let series: Vec<SeriesSpec> = keys
        .into_iter()
        .map(|key| {
            let mut line: Vec<(f64, f64)> = points
                .iter()
                .filter(|p| which.line_of(p) == key)
                .map(|p| which.xy(p))
                .collect();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            SeriesSpec {
                label: which.line_label(key),
                x: line.iter().map(|(x, _)| *x).collect(),
                // A point with no IO has no latency: a gap, not a zero.
                y: line
                    .iter()
                    .map(|(_, y)| {
                        (y.is_finite() && !(which == SweepChart::LatencyVsQd && *y <= 0.0))
                            .then_some(*y)
                    })
                    .collect(),
            }
        })
        .collect();
    let (x_label, y_label) = which.axes();
    let mut series: Vec<SeriesSpec> = series;
    let y_label = if which == SweepChart::LatencyVsQd {
        // Latency in the unit its values read best in (usec for a fast device, msec for a
        // throttled one), named in the axis title.
        let max_ns = points.iter().map(|p| p.lat_mean_ns).fold(0.0, f64::max);
        let (unit, scale) = diskmeter_report::format::latency_unit(max_ns);
        for line in &mut series {
            for y in line.y.iter_mut().flatten() {
                *y /= scale;
            }
        }
        format!("{y_label} ({unit})")
    } else {
        y_label.to_string()
    };
    ChartSpec {
        id: format!("{anchor}-{}", which.kind()),
        kind: which.kind().to_string(),
        title: format!("{}: {about}", which.title()),
        style: ChartStyle::LinesPoints,
        x: Axis {
            label: x_label.to_string(),
            scale: Scale::Log10,
            categories: Vec::new(),
        },
        y: Axis::linear(y_label),
        series,
    }
}
