//! The guides' requirements checklist (shared/reference/workloads.md section 5) from a capture:
//! one row per metric (IOPS, read share, random share, IO sizes, throughput, latency, queue
//! depth, CPU, memory), columns p50, p90, p99, max and mean, for the whole capture and for
//! named time-of-day windows. Pure: samples are fed one at a time ([`ChecklistBuilder::push`])
//! and each row keeps an HDR histogram, so a 24-hour capture at 1 s (86,400 samples) takes the
//! same memory as a minute's.
//!
//! What the rows mean:
//! - Rate rows (IOPS, throughput, queue depth, CPU, memory) take one value per interval; p50 to
//!   max are over the intervals (p90 = 90 % of the intervals were at or below it), the mean is
//!   time-weighted (total IOs / total seconds for IOPS).
//! - Ratio rows (read %, IO size, latency from `r_await`/`w_await`/`f_await`) take one value
//!   per interval that had IO in that direction (an interval with no reads has no read
//!   latency, one with no flushes no flush latency); their mean is weighted by IOs (flushes),
//!   so it is the mean over every IO of the capture.
//! - Rows only a block trace can fill (random %, the IO size distribution, device latency and
//!   queue depth as the device saw them) come from [`TraceProfile`]s; a counter capture leaves
//!   them `None` ("unknown"), never a guess. A trace is not split into intervals, so its rows
//!   are for the whole capture and unknown inside a window.
//!
//! Percentiles are nearest-rank values read from the histogram: each is within
//! [`RELATIVE_ERROR`] of the exact nearest-rank value (or within [`ABSOLUTE_RESOLUTION`] of the
//! row's unit for values near zero). Max and mean are exact.

mod accumulate;
mod demand;
mod format;
mod trace;
mod window;

#[cfg(test)]
mod tests;

pub use accumulate::ChecklistBuilder;
pub use demand::{capture_demand, capture_load, demand_from, NoIntervals};
pub use format::{format_figure, format_span, format_utc_offset};
pub use window::{format_clock, parse_utc_offset, Window, WindowSet};

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Upper bound of a percentile's relative error: the histograms keep 3 significant digits
/// (HDR sub-buckets of 1/1024 of their magnitude, read at the bucket's middle).
pub const RELATIVE_ERROR: f64 = 0.001;
/// Values are recorded in millionths of the row's unit: below this a percentile is 0.
pub const ABSOLUTE_RESOLUTION: f64 = 1e-6;

/// Why a checklist could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequirementsError {
    /// A `--window` entry is not `NAME=HH:MM-HH:MM`.
    #[error("window `{text}`: {why} (expected NAME=HH:MM-HH:MM, e.g. peak=12:00-13:00)")]
    BadWindow {
        /// The entry as given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// Two windows share a name.
    #[error("window `{0}` is given twice")]
    DuplicateWindow(String),
    /// A UTC offset is not `+HH:MM` / `-HH:MM`.
    #[error("UTC offset `{0}` is not +HH:MM or -HH:MM (between -14:00 and +14:00)")]
    BadUtcOffset(String),
    /// A level is not p50, p90, p99, max or mean.
    #[error("level `{0}` is not one of p50, p90, p99, max, mean")]
    BadLevel(String),
    /// A metric name is not one of the checklist's rows.
    #[error("metric `{0}` is not a checklist row (see `diskmeter requirements --help`)")]
    BadMetric(String),
    /// A device asked for is in none of the capture's samples.
    #[error("device `{asked}` is not in the capture (it has: {captured})")]
    DeviceNotCaptured {
        /// The device asked for.
        asked: String,
        /// The devices the capture has, comma-separated.
        captured: String,
    },
}

/// A column of the checklist: the level a requirement is read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Median.
    P50,
    /// 90th percentile.
    P90,
    /// 99th percentile.
    P99,
    /// Largest value.
    Max,
    /// Mean (time- or IO-weighted, see the module docs).
    Mean,
}

impl Level {
    /// Every column, in the checklist's order.
    pub const ALL: [Level; 5] = [Level::P50, Level::P90, Level::P99, Level::Max, Level::Mean];

    /// The column's name as printed and parsed (`p90`).
    pub fn name(self) -> &'static str {
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
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = RequirementsError;

    /// `p50`, `p90`, `p99`, `max`, `mean` (any case; `median` and `avg` too).
    fn from_str(text: &str) -> Result<Level, RequirementsError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "p50" | "median" => Ok(Level::P50),
            "p90" => Ok(Level::P90),
            "p99" => Ok(Level::P99),
            "max" | "p100" => Ok(Level::Max),
            "mean" | "avg" | "average" => Ok(Level::Mean),
            _ => Err(RequirementsError::BadLevel(text.to_string())),
        }
    }
}

/// A row of the checklist. The key (`iops_total`) carries the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "&'static str")]
pub enum Metric {
    /// Reads + writes completed per second (`r/s` + `w/s`).
    IopsTotal,
    /// Reads per second (`r/s`).
    IopsRead,
    /// Writes per second (`w/s`).
    IopsWrite,
    /// Flushes of the device's write cache per second (`f/s`: an fsync's or a journal
    /// commit's cache flushes, as `/proc/diskstats` counts them); not in the IOPS rows.
    FlushesPerSec,
    /// Share of IOs that are reads, percent.
    ReadPercent,
    /// Share of IOs that are random, percent (trace only).
    RandomPercent,
    /// Read size, KiB: the counters' mean (`rareq-sz`); percentiles over IOs where traced.
    IoSizeReadKib,
    /// Write size, KiB (`wareq-sz`).
    IoSizeWriteKib,
    /// Read throughput, MiB/s (`rkB/s` / 1024).
    ThroughputReadMibps,
    /// Write throughput, MiB/s (`wkB/s` / 1024).
    ThroughputWriteMibps,
    /// Read + write throughput, MiB/s (its own row: percentiles of a sum are not the sum of
    /// percentiles).
    ThroughputTotalMibps,
    /// Read latency per interval (`r_await`), ms: block layer queue + device.
    LatencyReadMs,
    /// Write latency per interval (`w_await`), ms.
    LatencyWriteMs,
    /// Flush latency per interval (`f_await`), ms: mean time of the interval's flushes.
    FlushLatencyMs,
    /// Read latency per IO at the device (issue to completion), ms (trace only).
    DeviceLatencyReadMs,
    /// Write latency per IO at the device, ms (trace only).
    DeviceLatencyWriteMs,
    /// Mean requests in flight per interval (`aqu-sz`).
    QueueDepth,
    /// Requests in flight at the device as each IO was issued (trace only).
    DeviceQueueDepth,
    /// CPU busy, percent of all CPUs.
    CpuPercent,
    /// Memory in use (MemTotal - MemAvailable), MiB.
    MemoryUsedMib,
    /// Memory in use, percent of MemTotal.
    MemoryUsedPercent,
}

impl Metric {
    /// Every row, in the checklist's order.
    pub const ALL: [Metric; 21] = [
        Metric::IopsTotal,
        Metric::IopsRead,
        Metric::IopsWrite,
        Metric::FlushesPerSec,
        Metric::ReadPercent,
        Metric::RandomPercent,
        Metric::IoSizeReadKib,
        Metric::IoSizeWriteKib,
        Metric::ThroughputReadMibps,
        Metric::ThroughputWriteMibps,
        Metric::ThroughputTotalMibps,
        Metric::LatencyReadMs,
        Metric::LatencyWriteMs,
        Metric::FlushLatencyMs,
        Metric::DeviceLatencyReadMs,
        Metric::DeviceLatencyWriteMs,
        Metric::QueueDepth,
        Metric::DeviceQueueDepth,
        Metric::CpuPercent,
        Metric::MemoryUsedMib,
        Metric::MemoryUsedPercent,
    ];

    /// The row's key in JSON and CSV (`iops_total`).
    pub fn key(self) -> &'static str {
        match self {
            Metric::IopsTotal => "iops_total",
            Metric::IopsRead => "iops_read",
            Metric::IopsWrite => "iops_write",
            Metric::FlushesPerSec => "flushes_per_sec",
            Metric::ReadPercent => "read_percent",
            Metric::RandomPercent => "random_percent",
            Metric::IoSizeReadKib => "io_size_read_kib",
            Metric::IoSizeWriteKib => "io_size_write_kib",
            Metric::ThroughputReadMibps => "throughput_read_mibps",
            Metric::ThroughputWriteMibps => "throughput_write_mibps",
            Metric::ThroughputTotalMibps => "throughput_total_mibps",
            Metric::LatencyReadMs => "latency_read_ms",
            Metric::LatencyWriteMs => "latency_write_ms",
            Metric::FlushLatencyMs => "latency_flush_ms",
            Metric::DeviceLatencyReadMs => "device_latency_read_ms",
            Metric::DeviceLatencyWriteMs => "device_latency_write_ms",
            Metric::QueueDepth => "queue_depth",
            Metric::DeviceQueueDepth => "device_queue_depth",
            Metric::CpuPercent => "cpu_percent",
            Metric::MemoryUsedMib => "memory_used_mib",
            Metric::MemoryUsedPercent => "memory_used_percent",
        }
    }

    /// Whether the row is a latency, its figures in ms (a view prints each in its own unit).
    pub fn is_latency(self) -> bool {
        matches!(
            self,
            Metric::LatencyReadMs
                | Metric::LatencyWriteMs
                | Metric::FlushLatencyMs
                | Metric::DeviceLatencyReadMs
                | Metric::DeviceLatencyWriteMs
        )
    }

    /// The row's label in the text table.
    pub fn label(self) -> &'static str {
        match self {
            Metric::IopsTotal => "IOPS total",
            Metric::IopsRead => "IOPS read",
            Metric::IopsWrite => "IOPS write",
            Metric::FlushesPerSec => "flushes/s (f/s)",
            Metric::ReadPercent => "read %",
            Metric::RandomPercent => "random %",
            Metric::IoSizeReadKib => "IO size read (KiB)",
            Metric::IoSizeWriteKib => "IO size write (KiB)",
            Metric::ThroughputReadMibps => "throughput read (MiB/s)",
            Metric::ThroughputWriteMibps => "throughput write (MiB/s)",
            Metric::ThroughputTotalMibps => "throughput total (MiB/s)",
            Metric::LatencyReadMs => "read await, interval means (ms, r_await)",
            Metric::LatencyWriteMs => "write await, interval means (ms, w_await)",
            Metric::FlushLatencyMs => "flush await, interval means (ms, f_await)",
            Metric::DeviceLatencyReadMs => "read latency per IO, device (ms)",
            Metric::DeviceLatencyWriteMs => "write latency per IO, device (ms)",
            Metric::QueueDepth => "queue depth (aqu-sz)",
            Metric::DeviceQueueDepth => "device queue depth",
            Metric::CpuPercent => "CPU %",
            Metric::MemoryUsedMib => "memory used (MiB)",
            Metric::MemoryUsedPercent => "memory used %",
        }
    }
}

impl From<Metric> for &'static str {
    fn from(metric: Metric) -> &'static str {
        metric.key()
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl FromStr for Metric {
    type Err = RequirementsError;

    /// A row's key (`iops_total`; `-` may stand for `_`).
    fn from_str(text: &str) -> Result<Metric, RequirementsError> {
        let wanted = text.trim().to_ascii_lowercase().replace('-', "_");
        Metric::ALL
            .into_iter()
            .find(|m| m.key() == wanted)
            .ok_or_else(|| RequirementsError::BadMetric(text.to_string()))
    }
}

/// One row's five figures; `None` where the capture cannot know it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Figures {
    /// Median.
    pub p50: Option<f64>,
    /// 90th percentile.
    pub p90: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
    /// Mean.
    pub mean: Option<f64>,
}

impl Figures {
    /// The figure at `level`.
    pub fn get(&self, level: Level) -> Option<f64> {
        match level {
            Level::P50 => self.p50,
            Level::P90 => self.p90,
            Level::P99 => self.p99,
            Level::Max => self.max,
            Level::Mean => self.mean,
        }
    }

    /// The same figure in every column (a whole-trace share).
    pub fn constant(value: f64) -> Figures {
        Figures {
            p50: Some(value),
            p90: Some(value),
            p99: Some(value),
            max: Some(value),
            mean: Some(value),
        }
    }

    /// True when no column is known.
    pub fn is_unknown(&self) -> bool {
        Level::ALL.iter().all(|&l| self.get(l).is_none())
    }
}

/// Where a row's figures came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Interval counters (`/proc/diskstats`, `/proc/stat`, `/proc/meminfo`).
    Counters,
    /// The counters' mean, with percentiles from the trace's per-IO distribution.
    CountersAndTrace,
    /// A block trace only.
    Trace,
    /// Nothing in the capture measures it.
    Unknown,
}

/// What a row's percentile columns are percentiles of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PercentilesOver {
    /// The capture's intervals: one value per interval (a rate, or an interval's mean such as
    /// `r_await`: its p99 is the p99 of interval means, never a per-IO p99).
    Intervals,
    /// Every traced IO (per-IO latency, size, queue depth at issue).
    Ios,
    /// One figure for the whole trace, the same in every column (random %).
    WholeTrace,
    /// The row has no percentiles (unknown, or a mean only).
    None,
}

impl Source {
    /// What the percentile columns of a row of `metric` from this source are over.
    pub fn percentiles_over(self, metric: Metric) -> PercentilesOver {
        match self {
            Source::Unknown => PercentilesOver::None,
            Source::Counters
                if matches!(metric, Metric::IoSizeReadKib | Metric::IoSizeWriteKib) =>
            {
                PercentilesOver::None
            }
            Source::Counters => PercentilesOver::Intervals,
            Source::Trace if metric == Metric::RandomPercent => PercentilesOver::WholeTrace,
            Source::Trace | Source::CountersAndTrace => PercentilesOver::Ios,
        }
    }
}

/// One row of the checklist.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// What the row measures.
    pub metric: Metric,
    /// Its figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// What its percentiles are over: `intervals` (a latency row from the counters gives
    /// percentiles of interval means), `ios` (per IO, traced), `whole_trace`, `none`.
    pub percentiles_over: PercentilesOver,
    /// Where they came from.
    #[serde(skip)]
    pub source: Source,
    /// Intervals (or traced IOs) behind the percentiles.
    #[serde(skip)]
    pub count: u64,
}

/// The checklist of one span (the whole capture or one window).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checklist {
    /// One row per [`Metric::ALL`], in that order.
    pub rows: Vec<Row>,
    /// Intervals that fell in the span.
    #[serde(skip)]
    pub intervals: u64,
    /// Their total length, seconds.
    #[serde(skip)]
    pub seconds: f64,
}

impl Checklist {
    /// The row of `metric`.
    pub fn row(&self, metric: Metric) -> &Row {
        self.rows
            .iter()
            .find(|r| r.metric == metric)
            .expect("a checklist has every metric's row")
    }

    /// The figure of `metric` at `level`, `None` when the capture cannot know it (or had no
    /// interval with that IO).
    pub fn level(&self, metric: Metric, level: Level) -> Option<f64> {
        self.row(metric).figures.get(level)
    }
}

/// A window's checklist.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowChecklist {
    /// The window.
    pub window: Window,
    /// Its checklist (trace rows unknown: a trace is not split into intervals).
    pub checklist: Checklist,
}

/// Everything `diskmeter requirements` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Requirements {
    /// The devices the device rows cover, summed when more than one.
    pub devices: Vec<String>,
    /// Captured devices left out by default because another captured device contains them
    /// (a partition of a captured disk), so their IO is not counted twice.
    pub skipped_devices: Vec<String>,
    /// The devices whose traces filled the trace rows.
    pub traced_devices: Vec<String>,
    /// The whole capture.
    pub whole: Checklist,
    /// One per window asked for, in the order given.
    pub windows: Vec<WindowChecklist>,
    /// The chosen devices' IOPS interval by interval, when the builder kept it
    /// ([`ChecklistBuilder::keeping_load`]); empty otherwise.
    #[serde(skip)]
    pub load: Vec<LoadInterval>,
}

/// One interval of a capture's load: when it started, how long it was and its IOPS, summed
/// over the chosen devices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadInterval {
    /// Start, Unix milliseconds.
    pub start_unix_ms: u64,
    /// Length, seconds.
    pub seconds: f64,
    /// Reads and writes per second.
    pub iops: f64,
}
