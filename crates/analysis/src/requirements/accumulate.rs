//! Feeding a capture's samples into the checklist one at a time: per span (the whole capture
//! and each window) one HDR histogram per counter row, plus exact max and weighted mean, so
//! memory depends on the rows and windows, never on the number of samples.

use super::trace::trace_rows;
use super::{
    Checklist, Figures, Level, LoadInterval, Metric, Requirements, RequirementsError, Row, Source,
    WindowChecklist, WindowSet, ABSOLUTE_RESOLUTION,
};
use diskmeter_capture::{CaptureSample, TraceProfile};
use diskmeter_units::MIB_F64;
use hdrhistogram::Histogram;

/// Significant digits the histograms keep (see [`super::RELATIVE_ERROR`]).
const SIGNIFICANT_DIGITS: u8 = 3;

/// One row's values over a span.
#[derive(Debug, Clone)]
struct Series {
    /// Values in millionths of the row's unit; u32 counts hold 136 years of 1 s intervals.
    histogram: Histogram<u32>,
    min: f64,
    max: f64,
    weighted_sum: f64,
    weight: f64,
}

impl Series {
    fn new() -> Series {
        Series {
            histogram: Histogram::new(SIGNIFICANT_DIGITS).expect("3 significant digits is valid"),
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            weighted_sum: 0.0,
            weight: 0.0,
        }
    }

    /// Records one interval's `value`; `weight` is its share of the mean (seconds, or IOs).
    fn record(&mut self, value: f64, weight: f64) {
        if !value.is_finite() || value < 0.0 {
            return;
        }
        let scaled = (value / ABSOLUTE_RESOLUTION).round();
        let scaled = scaled.min((i64::MAX / 2) as f64) as u64;
        // The histogram grows to hold the value; past i64::MAX / 2 millionths (4.6e12 units)
        // it cannot, and the value is counted at its top instead (max and mean stay exact).
        if self.histogram.record(scaled).is_err() {
            self.histogram.saturating_record(scaled);
        }
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        if weight.is_finite() && weight > 0.0 {
            self.weighted_sum += value * weight;
            self.weight += weight;
        }
    }

    fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// The nearest-rank value at `quantile`, read at its HDR bucket's middle and kept inside
    /// the exact min and max.
    fn quantile(&self, quantile: f64) -> Option<f64> {
        if self.count() == 0 {
            return None;
        }
        let raw = self.histogram.value_at_quantile(quantile);
        let value = self.histogram.median_equivalent(raw) as f64 * ABSOLUTE_RESOLUTION;
        Some(value.clamp(self.min, self.max))
    }

    fn mean(&self) -> Option<f64> {
        if self.weight > 0.0 {
            Some(self.weighted_sum / self.weight)
        } else if self.count() > 0 {
            Some(0.0)
        } else {
            None
        }
    }

    fn figures(&self) -> Figures {
        Figures {
            p50: self.quantile(0.50),
            p90: self.quantile(0.90),
            p99: self.quantile(0.99),
            max: (self.count() > 0).then_some(self.max),
            mean: self.mean(),
        }
    }

    /// Only the mean: the per-interval values are means themselves, not the distribution
    /// the row stands for (a counter capture's IO size).
    fn mean_only(&self) -> Figures {
        Figures {
            mean: self.mean(),
            ..Figures::default()
        }
    }
}

/// The counter rows, in [`Metric::ALL`] order where they appear there.
const COUNTER_METRICS: [Metric; 17] = [
    Metric::IopsTotal,
    Metric::IopsRead,
    Metric::IopsWrite,
    Metric::FlushesPerSec,
    Metric::ReadPercent,
    Metric::IoSizeReadKib,
    Metric::IoSizeWriteKib,
    Metric::ThroughputReadMibps,
    Metric::ThroughputWriteMibps,
    Metric::ThroughputTotalMibps,
    Metric::LatencyReadMs,
    Metric::LatencyWriteMs,
    Metric::FlushLatencyMs,
    Metric::QueueDepth,
    Metric::CpuPercent,
    Metric::MemoryUsedMib,
    Metric::MemoryUsedPercent,
];

/// The chosen devices of one interval, summed.
#[derive(Debug, Default, Clone, Copy)]
struct DeviceSum {
    reads_per_sec: f64,
    writes_per_sec: f64,
    read_kib_per_sec: f64,
    write_kib_per_sec: f64,
    /// Σ r_await x r/s, so that / reads is the IO-weighted mean over the devices.
    read_await_x_reads: f64,
    write_await_x_writes: f64,
    flushes_per_sec: f64,
    /// Σ f_await x f/s.
    flush_await_x_flushes: f64,
    queue_size: f64,
}

/// One span's series.
#[derive(Debug, Clone)]
struct Span {
    series: Vec<Series>,
    intervals: u64,
    seconds: f64,
}

impl Span {
    fn new() -> Span {
        Span {
            series: COUNTER_METRICS.iter().map(|_| Series::new()).collect(),
            intervals: 0,
            seconds: 0.0,
        }
    }

    fn series(&mut self, metric: Metric) -> &mut Series {
        let index = COUNTER_METRICS
            .iter()
            .position(|&m| m == metric)
            .expect("a counter metric");
        &mut self.series[index]
    }

    fn record(&mut self, sample: &CaptureSample, devices: Option<&DeviceSum>) {
        let seconds = sample.duration_ms / 1000.0;
        self.intervals += 1;
        self.seconds += seconds.max(0.0);
        let system = &sample.system;
        self.series(Metric::CpuPercent)
            .record(system.cpu_busy_percent, seconds);
        self.series(Metric::MemoryUsedMib)
            .record(system.memory_used_bytes as f64 / MIB_F64, seconds);
        if system.memory_total_bytes > 0 {
            let percent =
                100.0 * system.memory_used_bytes as f64 / system.memory_total_bytes as f64;
            self.series(Metric::MemoryUsedPercent)
                .record(percent, seconds);
        }
        let Some(d) = devices else { return };
        let ios = d.reads_per_sec + d.writes_per_sec;
        self.series(Metric::IopsTotal).record(ios, seconds);
        self.series(Metric::IopsRead)
            .record(d.reads_per_sec, seconds);
        self.series(Metric::IopsWrite)
            .record(d.writes_per_sec, seconds);
        self.series(Metric::ThroughputReadMibps)
            .record(d.read_kib_per_sec / 1024.0, seconds);
        self.series(Metric::ThroughputWriteMibps)
            .record(d.write_kib_per_sec / 1024.0, seconds);
        self.series(Metric::ThroughputTotalMibps)
            .record((d.read_kib_per_sec + d.write_kib_per_sec) / 1024.0, seconds);
        self.series(Metric::QueueDepth)
            .record(d.queue_size, seconds);
        self.series(Metric::FlushesPerSec)
            .record(d.flushes_per_sec, seconds);
        if d.flushes_per_sec > 0.0 {
            self.series(Metric::FlushLatencyMs).record(
                d.flush_await_x_flushes / d.flushes_per_sec,
                d.flushes_per_sec * seconds,
            );
        }
        if ios > 0.0 {
            self.series(Metric::ReadPercent)
                .record(100.0 * d.reads_per_sec / ios, ios * seconds);
        }
        if d.reads_per_sec > 0.0 {
            let reads = d.reads_per_sec * seconds;
            self.series(Metric::IoSizeReadKib)
                .record(d.read_kib_per_sec / d.reads_per_sec, reads);
            self.series(Metric::LatencyReadMs)
                .record(d.read_await_x_reads / d.reads_per_sec, reads);
        }
        if d.writes_per_sec > 0.0 {
            let writes = d.writes_per_sec * seconds;
            self.series(Metric::IoSizeWriteKib)
                .record(d.write_kib_per_sec / d.writes_per_sec, writes);
            self.series(Metric::LatencyWriteMs)
                .record(d.write_await_x_writes / d.writes_per_sec, writes);
        }
    }

    /// The checklist of this span; `traced` fills the trace rows (whole capture only).
    fn checklist(&self, traced: Option<&[TraceProfile]>) -> Checklist {
        let traced_rows = traced.map(trace_rows).unwrap_or_default();
        let rows = Metric::ALL
            .iter()
            .map(|&metric| {
                let counter = COUNTER_METRICS
                    .iter()
                    .position(|&m| m == metric)
                    .map(|i| &self.series[i]);
                let trace = traced_rows.iter().find(|(m, _, _)| *m == metric);
                row(metric, counter, trace.map(|(_, f, n)| (*f, *n)))
            })
            .collect();
        Checklist {
            rows,
            intervals: self.intervals,
            seconds: self.seconds,
        }
    }
}

/// Merges a row's counter series and trace figures into the row the checklist shows.
fn row(metric: Metric, counter: Option<&Series>, trace: Option<(Figures, u64)>) -> Row {
    let is_size = matches!(metric, Metric::IoSizeReadKib | Metric::IoSizeWriteKib);
    let (figures, source, count) = match (counter, trace) {
        (Some(series), Some((traced, traced_ios))) if is_size => {
            // The counters saw every IO of the capture, so their mean stands; the trace adds
            // the per-IO percentiles counters cannot give.
            let mean = series.mean().or(traced.mean);
            let figures = Figures { mean, ..traced };
            (figures, Source::CountersAndTrace, traced_ios)
        }
        (Some(series), _) if is_size => (series.mean_only(), Source::Counters, series.count()),
        (Some(series), _) => (series.figures(), Source::Counters, series.count()),
        (None, Some((traced, traced_ios))) => (traced, Source::Trace, traced_ios),
        (None, None) => (Figures::default(), Source::Unknown, 0),
    };
    let source = if figures.is_unknown() {
        Source::Unknown
    } else {
        source
    };
    Row {
        metric,
        figures,
        percentiles_over: source.percentiles_over(metric),
        source,
        count,
    }
}

/// True when `child` is a partition of `parent` by the kernel's naming (`vda1` of `vda`,
/// `nvme0n1p2` of `nvme0n1`: a `p` before the number when the disk's name ends in a digit).
pub(super) fn is_partition_of(child: &str, parent: &str) -> bool {
    let Some(rest) = child.strip_prefix(parent) else {
        return false;
    };
    let number = if parent.ends_with(|c: char| c.is_ascii_digit()) {
        match rest.strip_prefix('p') {
            Some(n) => n,
            None => return false,
        }
    } else {
        rest
    };
    !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
}

/// Builds the checklist from samples fed one at a time.
///
/// Device rows are summed over the chosen devices: the named ones, or by default every
/// captured device except partitions of another captured device (so a capture of `vda` and
/// `vda1` counts their IO once). Rates and queue sizes add up; latency and IO size are
/// IO-weighted over the devices.
#[derive(Debug, Clone)]
pub struct ChecklistBuilder {
    named: Option<Vec<String>>,
    windows: WindowSet,
    whole: Span,
    spans: Vec<Span>,
    devices: Vec<String>,
    skipped: Vec<String>,
    captured: Vec<String>,
    traces: Vec<TraceProfile>,
    /// The load interval by interval, when asked for ([`ChecklistBuilder::keeping_load`]).
    load: Option<Vec<LoadInterval>>,
}

impl ChecklistBuilder {
    /// A builder summing `devices` (all captured whole devices when `None`) with `windows`.
    pub fn new(devices: Option<Vec<String>>, windows: WindowSet) -> ChecklistBuilder {
        let spans = windows.windows.iter().map(|_| Span::new()).collect();
        ChecklistBuilder {
            named: devices,
            windows,
            whole: Span::new(),
            spans,
            devices: Vec::new(),
            skipped: Vec::new(),
            captured: Vec::new(),
            traces: Vec::new(),
            load: None,
        }
    }

    /// This builder, also keeping the chosen devices' IOPS interval by interval
    /// ([`Requirements::load`], 24 bytes an interval): `plan` plays it through burst buckets;
    /// the checklist alone keeps bounded memory however long the capture is.
    pub fn keeping_load(mut self) -> ChecklistBuilder {
        self.load = Some(Vec::new());
        self
    }

    /// Adds one interval.
    pub fn push(&mut self, sample: &CaptureSample) {
        let mut sum = DeviceSum::default();
        let mut any = false;
        for device in &sample.devices {
            remember(&mut self.captured, &device.device);
            let chosen = match &self.named {
                Some(named) => named.contains(&device.device),
                None => !sample
                    .devices
                    .iter()
                    .any(|other| is_partition_of(&device.device, &other.device)),
            };
            if !chosen {
                if self.named.is_none() {
                    remember(&mut self.skipped, &device.device);
                }
                continue;
            }
            remember(&mut self.devices, &device.device);
            any = true;
            sum.reads_per_sec += device.reads_per_sec;
            sum.writes_per_sec += device.writes_per_sec;
            sum.read_kib_per_sec += device.read_kib_per_sec;
            sum.write_kib_per_sec += device.write_kib_per_sec;
            sum.read_await_x_reads += device.read_await_ms * device.reads_per_sec;
            sum.write_await_x_writes += device.write_await_ms * device.writes_per_sec;
            sum.flushes_per_sec += device.flushes_per_sec;
            sum.flush_await_x_flushes += device.flush_await_ms * device.flushes_per_sec;
            sum.queue_size += device.queue_size;
        }
        let devices = any.then_some(&sum);
        if let (true, Some(load)) = (any, self.load.as_mut()) {
            load.push(LoadInterval {
                start_unix_ms: sample.start_unix_ms,
                seconds: (sample.duration_ms / 1000.0).max(0.0),
                iops: sum.reads_per_sec + sum.writes_per_sec,
            });
        }
        self.whole.record(sample, devices);
        let matching: Vec<usize> = self.windows.matching(sample.start_unix_ms).collect();
        for index in matching {
            self.spans[index].record(sample, devices);
        }
    }

    /// Adds a device's trace profile (used when its device is among the chosen ones).
    pub fn add_trace(&mut self, trace: &TraceProfile) {
        self.traces.push(trace.clone());
    }

    /// The checklists. Fails when a named device is in no sample.
    pub fn finish(self) -> Result<Requirements, RequirementsError> {
        if let Some(named) = &self.named {
            if let Some(missing) = named.iter().find(|n| !self.captured.contains(n)) {
                return Err(RequirementsError::DeviceNotCaptured {
                    asked: missing.clone(),
                    captured: if self.captured.is_empty() {
                        "no devices".to_string()
                    } else {
                        self.captured.join(", ")
                    },
                });
            }
        }
        let traces: Vec<TraceProfile> = self
            .traces
            .into_iter()
            .filter(|t| self.devices.contains(&t.device))
            .collect();
        let whole = self.whole.checklist(Some(&traces));
        let windows = self
            .windows
            .windows
            .iter()
            .zip(&self.spans)
            .map(|(window, span)| WindowChecklist {
                window: window.clone(),
                checklist: span.checklist(None),
            })
            .collect();
        Ok(Requirements {
            devices: self.devices,
            skipped_devices: self.skipped,
            traced_devices: traces.iter().map(|t| t.device.clone()).collect(),
            whole,
            windows,
            load: self.load.unwrap_or_default(),
        })
    }
}

fn remember(list: &mut Vec<String>, name: &str) {
    if !list.iter().any(|n| n == name) {
        list.push(name.to_string());
    }
}

/// The level a [`Figures`] column is read at, for callers that only hold a quantile.
pub(super) fn quantile_of(level: Level) -> Option<f64> {
    match level {
        Level::P50 => Some(0.50),
        Level::P90 => Some(0.90),
        Level::P99 => Some(0.99),
        Level::Max => Some(1.0),
        Level::Mean => None,
    }
}
