//! A capture's per-device series (`capture-iops`, `capture-bandwidth`, `capture-latency`,
//! `capture-queue`): iostat's r/s, w/s, rkB/s, wkB/s, r_await, w_await and aqu-sz of each
//! interval, on a time axis from the capture's start.
//!
//! A day at 1 s is 86,400 intervals, more than a chart can show or a report should carry:
//! beyond [`MAX_POINTS`] consecutive intervals are merged into buckets the way iostat would
//! have measured the longer interval (rates weighted by time, awaits by IOs of their
//! direction), and the note says so. Peaks inside a bucket are flattened; the checklist's
//! p99 and max are computed from every interval.

use crate::{Axis, ChartSpec, ChartStyle, SeriesSpec};
use diskmeter_capture::{CaptureSample, DeviceInterval};

/// At most this many points per series (an hour at 1 s).
pub(crate) const MAX_POINTS: usize = 3_600;

/// One device's figures over one interval (or a bucket of them).
#[derive(Debug, Clone, Copy, Default)]
struct Point {
    /// End of the interval, seconds after the capture's first interval began.
    end_s: f64,
    /// Its length, seconds.
    seconds: f64,
    reads_per_sec: f64,
    writes_per_sec: f64,
    read_kib_per_sec: f64,
    write_kib_per_sec: f64,
    read_await_ms: f64,
    write_await_ms: f64,
    queue_size: f64,
}

impl Point {
    fn of(device: &DeviceInterval, end_s: f64, seconds: f64) -> Point {
        Point {
            end_s,
            seconds,
            reads_per_sec: device.reads_per_sec,
            writes_per_sec: device.writes_per_sec,
            read_kib_per_sec: device.read_kib_per_sec,
            write_kib_per_sec: device.write_kib_per_sec,
            read_await_ms: device.read_await_ms,
            write_await_ms: device.write_await_ms,
            queue_size: device.queue_size,
        }
    }

    /// The points as one longer interval: rates and queue size weighted by time, awaits by
    /// the IOs of their direction; it ends where the last one ends.
    fn merged(points: &[Point]) -> Point {
        let seconds: f64 = points.iter().map(|p| p.seconds).sum();
        let by_time = |f: fn(&Point) -> f64| {
            if seconds > 0.0 {
                points.iter().map(|p| f(p) * p.seconds).sum::<f64>() / seconds
            } else {
                0.0
            }
        };
        let by_ios = |await_ms: fn(&Point) -> f64, rate: fn(&Point) -> f64| {
            let ios: f64 = points.iter().map(|p| rate(p) * p.seconds).sum();
            if ios > 0.0 {
                points
                    .iter()
                    .map(|p| await_ms(p) * rate(p) * p.seconds)
                    .sum::<f64>()
                    / ios
            } else {
                0.0
            }
        };
        Point {
            end_s: points.last().map_or(0.0, |p| p.end_s),
            seconds,
            reads_per_sec: by_time(|p| p.reads_per_sec),
            writes_per_sec: by_time(|p| p.writes_per_sec),
            read_kib_per_sec: by_time(|p| p.read_kib_per_sec),
            write_kib_per_sec: by_time(|p| p.write_kib_per_sec),
            read_await_ms: by_ios(|p| p.read_await_ms, |p| p.reads_per_sec),
            write_await_ms: by_ios(|p| p.write_await_ms, |p| p.writes_per_sec),
            queue_size: by_time(|p| p.queue_size),
        }
    }
}

/// Every device's points, gathered one sample at a time.
#[derive(Debug, Default)]
pub(crate) struct DeviceSeries {
    first_start_ms: Option<u64>,
    devices: Vec<(String, Vec<Point>)>,
}

impl DeviceSeries {
    /// Adds one interval of every device in it.
    pub fn push(&mut self, sample: &CaptureSample) {
        let first = *self.first_start_ms.get_or_insert(sample.start_unix_ms);
        let seconds = sample.duration_ms / 1000.0;
        let end_s = sample.start_unix_ms.saturating_sub(first) as f64 / 1000.0 + seconds;
        for device in &sample.devices {
            let point = Point::of(device, end_s, seconds);
            match self.devices.iter_mut().find(|(d, _)| *d == device.device) {
                Some((_, points)) => points.push(point),
                None => self.devices.push((device.device.clone(), vec![point])),
            }
        }
    }

    /// The charts of the devices `shown` (those the checklist sums), ids `{anchor}-{kind}`,
    /// and how many intervals a point stands for (1 unless the capture was bucketed). No
    /// chart when no shown device has a point.
    pub fn charts(&self, anchor: &str, shown: &[String]) -> (Vec<ChartSpec>, usize) {
        let longest = self
            .devices
            .iter()
            .filter(|(d, _)| shown.contains(d))
            .map(|(_, p)| p.len())
            .max()
            .unwrap_or(0);
        if longest == 0 {
            return (Vec::new(), 1);
        }
        let per_point = longest.div_ceil(MAX_POINTS);
        let devices: Vec<(&str, Vec<Point>)> = self
            .devices
            .iter()
            .filter(|(d, _)| shown.contains(d))
            .map(|(d, points)| {
                let points = if per_point > 1 {
                    points.chunks(per_point).map(Point::merged).collect()
                } else {
                    points.clone()
                };
                (d.as_str(), points)
            })
            .collect();
        let chart = |kind: &str, title: &str, y_label: &str, lines: &[(&str, Figure)]| {
            let series = devices
                .iter()
                .flat_map(|(device, points)| {
                    lines.iter().map(move |(suffix, figure)| SeriesSpec {
                        label: format!("{device} {suffix}").trim_end().to_string(),
                        x: points.iter().map(|p| p.end_s).collect(),
                        y: points
                            .iter()
                            .map(|p| figure(p).filter(|v| v.is_finite()))
                            .collect(),
                    })
                })
                .collect();
            ChartSpec {
                id: format!("{anchor}-{kind}"),
                kind: kind.to_string(),
                title: title.to_string(),
                style: ChartStyle::Lines,
                x: Axis::linear("time since the capture began (s)"),
                y: Axis::linear(y_label),
                series,
            }
        };
        let charts = vec![
            chart(
                "capture-iops",
                "IOPS per device (r/s, w/s)",
                "IOPS",
                &[
                    ("read", |p| Some(p.reads_per_sec)),
                    ("write", |p| Some(p.writes_per_sec)),
                ],
            ),
            chart(
                "capture-bandwidth",
                "Throughput per device (rkB/s, wkB/s)",
                "MiB/s",
                &[
                    ("read", |p| Some(p.read_kib_per_sec / 1024.0)),
                    ("write", |p| Some(p.write_kib_per_sec / 1024.0)),
                ],
            ),
            chart(
                "capture-latency",
                "Latency per device, queue time included (r_await, w_await)",
                "latency (ms)",
                // An interval with no IO in a direction has no latency there: a gap.
                &[
                    ("read", |p| {
                        (p.reads_per_sec > 0.0).then_some(p.read_await_ms)
                    }),
                    ("write", |p| {
                        (p.writes_per_sec > 0.0).then_some(p.write_await_ms)
                    }),
                ],
            ),
            chart(
                "capture-queue",
                "Requests in flight per device (aqu-sz)",
                "queue depth",
                &[("", |p| Some(p.queue_size))],
            ),
        ];
        (charts, per_point)
    }
}

/// One figure of a point, `None` where it does not exist.
type Figure = fn(&Point) -> Option<f64>;
