//! The records a capture is made of, as saved in the history (JSON, one sample per row) and
//! read back by the requirements checklist, the planner and replay.

use serde::{Deserialize, Serialize};

/// One interval of a counter capture: every chosen device plus the whole system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaptureSample {
    /// Start of the interval, ms since the Unix epoch (UTC).
    pub start_unix_ms: u64,
    /// Length of the interval as measured (not as asked), ms.
    pub duration_ms: f64,
    /// One entry per device, in the capture's device order.
    pub devices: Vec<DeviceInterval>,
    /// CPU, memory and IO pressure over the same interval.
    pub system: SystemInterval,
}

/// iostat's extended columns (`iostat -x`, sysstat) for one device over one interval,
/// computed from two `/proc/diskstats` readings exactly as sysstat computes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInterval {
    /// Kernel name (`vda`, `loop0`, `nvme0n1p1`).
    pub device: String,
    /// Reads completed per second (`r/s`).
    pub reads_per_sec: f64,
    /// Writes completed per second (`w/s`).
    pub writes_per_sec: f64,
    /// Discards completed per second (`d/s`).
    pub discards_per_sec: f64,
    /// Flushes completed per second (`f/s`).
    pub flushes_per_sec: f64,
    /// Mean time per completed flush, ms (`f_await`; 0 in captures saved before it was
    /// kept).
    #[serde(default)]
    pub flush_await_ms: f64,
    /// KiB read per second (`rkB/s`).
    pub read_kib_per_sec: f64,
    /// KiB written per second (`wkB/s`).
    pub write_kib_per_sec: f64,
    /// Read requests merged per second (`rrqm/s`).
    pub read_merges_per_sec: f64,
    /// Write requests merged per second (`wrqm/s`).
    pub write_merges_per_sec: f64,
    /// Mean read time per completed read, ms, queue time included (`r_await`).
    pub read_await_ms: f64,
    /// Mean write time per completed write, ms (`w_await`).
    pub write_await_ms: f64,
    /// Mean number of requests in flight (`aqu-sz`).
    pub queue_size: f64,
    /// Mean read size, KiB (`rareq-sz`).
    pub read_request_kib: f64,
    /// Mean write size, KiB (`wareq-sz`).
    pub write_request_kib: f64,
    /// Share of the interval the device had IO in flight, percent (`%util`).
    pub util_percent: f64,
}

/// The whole system over one interval (`/proc/stat`, `/proc/meminfo`, `/proc/pressure/io`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemInterval {
    /// CPU busy (everything but idle and iowait), percent of all CPUs.
    pub cpu_busy_percent: f64,
    /// CPU in user mode (user + nice), percent.
    pub cpu_user_percent: f64,
    /// CPU in the kernel (system + irq + softirq), percent.
    pub cpu_system_percent: f64,
    /// CPU idle waiting for IO, percent.
    pub cpu_iowait_percent: f64,
    /// Memory in use (MemTotal - MemAvailable), bytes, at the interval's end.
    pub memory_used_bytes: u64,
    /// MemTotal, bytes.
    pub memory_total_bytes: u64,
    /// Page cache (Cached), bytes, at the interval's end.
    pub memory_cached_bytes: u64,
    /// Share of the interval some task stalled on IO, percent (`/proc/pressure/io` "some"
    /// total delta); `None` where the kernel has no PSI.
    pub io_pressure_some_percent: Option<f64>,
    /// Share of the interval all non-idle tasks stalled on IO, percent ("full").
    pub io_pressure_full_percent: Option<f64>,
}

/// What a block-tracepoint capture learned about one device: the figures counters cannot give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceProfile {
    /// Kernel name of the device traced.
    pub device: String,
    /// Device size in bytes (for the hot-set share), when known.
    pub device_bytes: Option<u64>,
    /// Traced span, ns.
    pub duration_ns: u64,
    /// Completed IOs matched to their issue.
    pub ios: u64,
    /// Events the kernel's ring buffer dropped (overrun) or that could not be paired: the
    /// figures cover the rest, and this says how much is missing.
    pub lost_events: u64,
    /// Reads.
    pub read: TraceDirection,
    /// Writes.
    pub write: TraceDirection,
    /// Share of all IOs that did not start where the previous IO of the same stream ended,
    /// 0..=1.
    pub random_fraction: f64,
    /// Requests in flight at the device when each IO was issued.
    pub queue_depth: QuantileSummary,
    /// Time between successive issues, ns.
    pub interarrival_ns: QuantileSummary,
    /// Where on the device the IOs went.
    pub hot_set: HotSet,
    /// Who issued the IO, most IOs first.
    pub processes: Vec<ProcessShare>,
    /// fio iolog (version 3, with timestamps) of the traced IO, when one was written.
    pub iolog_path: Option<String>,
    /// Sizes of the writes that continued the previous write of their stream (same process,
    /// starting where its last write ended): a commit log's appends, which a replay keeps as
    /// a sequential job of their own (empty in profiles saved before it was kept).
    #[serde(default)]
    pub sequential_writes: Vec<SizeShare>,
    /// Where `lost_events` come from and what the figures above leave out (absent in
    /// profiles saved before it existed).
    #[serde(default)]
    pub details: TraceDetails,
}

/// The parts of a traced profile that say what is missing from it, and the trace's precision.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceDetails {
    /// Events the kernel's ring buffer overwrote or dropped before they were read (its
    /// per-CPU `overrun` and `dropped events`), or that could not be read: counted for all
    /// traced devices together, since a lost event's device is unknown.
    pub ring_lost_events: u64,
    /// Issues never paired with a completion (completion lost, the in-flight table full, or
    /// still in flight at the end after the grace time).
    pub unmatched_issues: u64,
    /// Completions whose issue was not seen (beyond the requests in flight at the start).
    pub unmatched_completions: u64,
    /// Requests that move no data or are no read or write (discards, driver-private
    /// requests): not counted in the figures (discards are written to the iolog as `trim`).
    pub other_requests: u64,
    /// Flush requests issued to the device in the window (`REQ_OP_FLUSH`: an empty preflush
    /// such as a block device's fsync, a write's preflush, a FUA write's emulated postflush),
    /// the requests `/proc/diskstats` counts as flushes (iostat's `f/s` x seconds); written
    /// to the iolog as `sync` (0 in profiles saved before they were counted, which left them
    /// in `other_requests`).
    #[serde(default)]
    pub flush_requests: u64,
    /// Reads whose size did not fit in the bounded size table (not in `read.sizes`).
    pub read_other_size_ios: u64,
    /// Writes whose size did not fit in the bounded size table (not in `write.sizes`).
    pub write_other_size_ios: u64,
    /// IOs of the processes not listed in `processes`.
    pub other_process_ios: u64,
    /// Bytes of those IOs.
    pub other_process_bytes: u64,
    /// Resolution of the event timestamps, ns (1,000: tracefs text gives whole µs), the
    /// latency and inter-arrival figures' absolute error on top of their `relative_error`.
    pub timestamp_resolution_ns: u64,
}

/// One direction's traced IO.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceDirection {
    /// IOs completed.
    pub ios: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// IO sizes, most frequent first (the bssplit of a replay).
    pub sizes: Vec<SizeShare>,
    /// Share of this direction's IOs that were random, 0..=1.
    pub random_fraction: f64,
    /// Device latency (issue to completion), ns.
    pub latency_ns: QuantileSummary,
}

/// How many IOs had one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeShare {
    /// IO size, bytes.
    pub bytes: u64,
    /// IOs of that size.
    pub ios: u64,
}

/// Percentiles of a distribution from an HDR histogram, with its error bound.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QuantileSummary {
    /// Values recorded.
    pub count: u64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
    /// Relative error bound of the percentiles (the histogram's precision), e.g. 0.001.
    pub relative_error: f64,
}

/// Where the IOs landed: the working set and its skew.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HotSet {
    /// Granularity of the count, bytes (IOs are counted per region of this size).
    pub region_bytes: u64,
    /// Bytes of the device touched at least once (regions touched x region size).
    pub working_set_bytes: u64,
    /// Share of the touched bytes that took 80 % of the IOs, 0..=1.
    pub share_for_80_percent_of_ios: f64,
    /// Share of the whole device that took 80 % of the IOs, when its size is known.
    pub device_share_for_80_percent_of_ios: Option<f64>,
}

/// One process's share of the traced IO.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessShare {
    /// Process name as the kernel reports it (`comm`).
    pub command: String,
    /// Process id at issue time.
    pub pid: u32,
    /// IOs it issued.
    pub ios: u64,
    /// Bytes it moved.
    pub bytes: u64,
}
