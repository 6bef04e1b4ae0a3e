//! One device's traced IO folded into counters as the events arrive: issues wait in a bounded
//! table until their completion, and a completed IO is counted (size, direction, random or
//! sequential, latency, issuer, region) and forgotten. Nothing is kept per IO once it has
//! completed, so memory is bounded at any rate and duration.

use hdrhistogram::Histogram;

use crate::{QuantileSummary, TraceDetails, TraceDirection, TraceProfile};

use super::event::{BlockEvent, Direction, EventKind};
use super::tables::{IntMap, ProcessSlot, ProcessTable, RegionCounter, SizeTable, StreamTable};

/// Significant digits of every histogram: values within 0.1 % ([`RELATIVE_ERROR`]).
const SIGNIFICANT_DIGITS: u8 = 3;
/// The histograms' relative error bound, as written in the profile.
pub const RELATIVE_ERROR: f64 = 0.001;
/// Longest latency or gap recorded, ns (an hour); longer ones are recorded as this.
const MAX_NS: u64 = 3_600_000_000_000;
/// Deepest queue recorded.
const MAX_QUEUE_DEPTH: u64 = 1 << 20;
/// How long requests already in flight when tracing starts count in the queue depth, ns, at
/// most: they are known only by number (`/sys/block/DEV/inflight`), and one that completes
/// unseen must not inflate the depth for the rest of the capture.
const PREEXISTING_FOR_NS: u64 = 1_000_000_000;

/// The sizes of the bounded tables, per device.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Requests in flight remembered (issued, not yet completed).
    pub in_flight: usize,
    /// Streams (pid + direction) remembered for the sequential test.
    pub streams: usize,
    /// Distinct IO sizes counted per direction.
    pub sizes: usize,
    /// Processes counted.
    pub processes: usize,
    /// Processes listed in the profile.
    pub top_processes: usize,
    /// Regions of the device counted for the hot set.
    pub regions: usize,
    /// Resolution of the event timestamps, ns (reported with the profile).
    pub timestamp_resolution_ns: u64,
}

/// An issued request waiting for its completion.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    issued_ns: u64,
    first_sector: u64,
    bytes: u64,
    sectors_left: u64,
    random: bool,
    process: ProcessSlot,
}

/// One direction's counters.
#[derive(Debug)]
struct DirectionCounters {
    ios: u64,
    bytes: u64,
    random_ios: u64,
    sizes: SizeTable,
    latency_ns: Histogram<u64>,
}

impl DirectionCounters {
    fn new(limits: &Limits) -> DirectionCounters {
        DirectionCounters {
            ios: 0,
            bytes: 0,
            random_ios: 0,
            sizes: SizeTable::new(limits.sizes),
            latency_ns: histogram(MAX_NS),
        }
    }

    fn summary(&self) -> TraceDirection {
        TraceDirection {
            ios: self.ios,
            bytes: self.bytes,
            sizes: self.sizes.shares(),
            random_fraction: fraction(self.random_ios, self.ios),
            latency_ns: summarize(&self.latency_ns),
        }
    }
}

/// Everything counted for one device.
#[derive(Debug)]
pub struct DeviceAggregator {
    name: String,
    device_bytes: Option<u64>,
    limits: Limits,
    /// Start and end of the traced window, ring clock, ns; events outside are not counted.
    window_start_ns: Option<u64>,
    window_end_ns: Option<u64>,
    last_event_ns: u64,
    in_flight: InFlightTable,
    preexisting: u64,
    read: DirectionCounters,
    write: DirectionCounters,
    streams: StreamTable,
    /// Sizes of the writes that continued their stream.
    sequential_writes: SizeTable,
    queue_depth: Histogram<u64>,
    interarrival_ns: Histogram<u64>,
    last_issue_ns: Option<u64>,
    regions: RegionCounter,
    processes: ProcessTable,
    /// Completions seen whose issue was not (not counting requests in flight at the start).
    pub unmatched_completions: u64,
    /// Issues dropped because the in-flight table was full, plus (at the end) issues whose
    /// completion never came.
    pub unmatched_issues: u64,
    other_requests: u64,
    /// Flush requests issued in the window (see [`Direction::Flush`]).
    flushes: u64,
}

impl DeviceAggregator {
    /// A device named `name` of `device_bytes` with `preexisting` requests in flight when
    /// tracing started.
    pub fn new(name: &str, device_bytes: Option<u64>, preexisting: u64, limits: Limits) -> Self {
        DeviceAggregator {
            name: name.to_string(),
            device_bytes,
            limits,
            window_start_ns: None,
            window_end_ns: None,
            last_event_ns: 0,
            in_flight: InFlightTable::default(),
            preexisting,
            read: DirectionCounters::new(&limits),
            write: DirectionCounters::new(&limits),
            streams: StreamTable::new(limits.streams),
            sequential_writes: SizeTable::new(limits.sizes),
            queue_depth: histogram(MAX_QUEUE_DEPTH),
            interarrival_ns: histogram(MAX_NS),
            last_issue_ns: None,
            regions: RegionCounter::new(device_bytes, limits.regions),
            processes: ProcessTable::new(limits.processes),
            unmatched_completions: 0,
            unmatched_issues: 0,
            other_requests: 0,
            flushes: 0,
        }
    }

    /// The traced window starts at `timestamp_ns` (ring clock): earlier events are not
    /// counted. Without it, the window starts at the first event.
    pub fn start_window(&mut self, timestamp_ns: u64) {
        self.window_start_ns = Some(timestamp_ns);
    }

    /// The traced window ends at `timestamp_ns`: later issues are not counted, later
    /// completions of earlier issues are.
    pub fn end_window(&mut self, timestamp_ns: u64) {
        self.window_end_ns = Some(timestamp_ns);
    }

    /// Whether an issue at `timestamp_ns` falls in the traced window (the iolog writes the
    /// same IOs the profile counts).
    pub fn in_window(&self, timestamp_ns: u64) -> bool {
        let after_start = self
            .window_start_ns
            .is_none_or(|start| timestamp_ns >= start);
        let before_end = self.window_end_ns.is_none_or(|end| timestamp_ns <= end);
        after_start && before_end
    }

    /// Completed IOs counted so far.
    pub fn ios(&self) -> u64 {
        self.read.ios + self.write.ios
    }

    /// Counts one event of this device.
    pub fn record(&mut self, event: &BlockEvent<'_>) {
        if self.window_start_ns.is_none() {
            self.window_start_ns = Some(event.timestamp_ns);
        }
        self.last_event_ns = self.last_event_ns.max(event.timestamp_ns);
        match event.kind {
            EventKind::Issue { bytes, command } => self.issue(event, bytes, command),
            EventKind::Complete { .. } => self.complete(event),
        }
    }

    fn issue(&mut self, event: &BlockEvent<'_>, bytes: u64, command: &str) {
        if !self.in_window(event.timestamp_ns) {
            return;
        }
        if event.direction == Direction::Flush {
            // Counted at issue, as the iolog writes it: one flush request each, the count
            // `/proc/diskstats` keeps (a flush carries no data, size or place to pair).
            self.flushes += 1;
            return;
        }
        if !matches!(event.direction, Direction::Read | Direction::Write) || bytes == 0 {
            self.other_requests += 1;
            return;
        }
        let now = event.timestamp_ns;
        if let Some(last) = self.last_issue_ns {
            record(&mut self.interarrival_ns, now.saturating_sub(last), MAX_NS);
        }
        self.last_issue_ns = Some(now);
        if self.in_flight.len() >= self.limits.in_flight {
            self.unmatched_issues += 1;
            return;
        }
        let random =
            !self
                .streams
                .is_sequential(event.pid, event.direction, event.sector, event.sectors);
        let process = self.processes.slot(event.pid, command);
        self.in_flight.insert(
            (event.sector, event.direction),
            InFlight {
                issued_ns: now,
                first_sector: event.sector,
                bytes,
                sectors_left: event.sectors.max(1),
                random,
                process,
            },
        );
        let depth = self.in_flight.len() as u64 + self.preexisting_at(now);
        record(&mut self.queue_depth, depth, MAX_QUEUE_DEPTH);
    }

    /// Whether a completion without a traced issue at `now` can be one of the requests in
    /// flight when tracing started: the requests the device had then (`preexisting`), or
    /// any within the first [`PREEXISTING_FOR_NS`] (`inflight` is read just after the events
    /// are enabled, so a request issued and completed around that moment is in neither).
    fn started_before_window(&self, now: u64) -> bool {
        let early = self
            .window_start_ns
            .is_some_and(|start| now.saturating_sub(start) < PREEXISTING_FOR_NS);
        self.preexisting > 0 || early
    }

    /// Requests in flight before tracing started that may still be in flight at `now`.
    fn preexisting_at(&self, now: u64) -> u64 {
        match self.window_start_ns {
            Some(start) if now.saturating_sub(start) < PREEXISTING_FOR_NS => self.preexisting,
            _ => 0,
        }
    }

    fn complete(&mut self, event: &BlockEvent<'_>) {
        if event.sectors == 0 && matches!(event.direction, Direction::Read | Direction::Write) {
            // The end of a flush sequence: a write with a preflush or FUA completes once at
            // the driver (its sectors, paired here) and once more, with no sectors left, when
            // its postflush is done (blk-flush ends the original request). Not a lost event.
            return;
        }
        let Some(mut io) = self.in_flight.remove((event.sector, event.direction)) else {
            if !matches!(event.direction, Direction::Read | Direction::Write)
                || self
                    .window_end_ns
                    .is_some_and(|end| event.timestamp_ns > end)
            {
                // Not counted at issue either.
            } else if self.started_before_window(event.timestamp_ns) {
                // Issued before the events were on (known only by number): not a loss.
                self.preexisting = self.preexisting.saturating_sub(1);
            } else {
                self.unmatched_completions += 1;
            }
            return;
        };
        if event.sectors > 0 && event.sectors < io.sectors_left {
            // A partial completion: the rest completes later, further on.
            io.sectors_left -= event.sectors;
            self.in_flight
                .insert((event.sector + event.sectors, event.direction), io);
            return;
        }
        let counters = match event.direction {
            Direction::Read => &mut self.read,
            _ => &mut self.write,
        };
        counters.ios += 1;
        counters.bytes += io.bytes;
        counters.random_ios += u64::from(io.random);
        counters.sizes.record(io.bytes);
        if event.direction == Direction::Write && !io.random {
            self.sequential_writes.record(io.bytes);
        }
        let latency = event.timestamp_ns.saturating_sub(io.issued_ns);
        record(&mut counters.latency_ns, latency, MAX_NS);
        self.regions.record(io.first_sector * 512);
        self.processes.record(io.process, io.bytes);
    }

    /// The profile of the window, with `ring_lost_events` (lost by the kernel for all traced
    /// devices together) and the iolog written, if any. Issues still waiting now never
    /// completed in the window's grace time and count as lost.
    pub fn profile(&self, ring_lost_events: u64, iolog_path: Option<String>) -> TraceProfile {
        let unmatched_issues = self.unmatched_issues + self.in_flight.len() as u64;
        let (other_process_ios, other_process_bytes) =
            self.processes.beyond_top(self.limits.top_processes);
        let ios = self.ios();
        TraceProfile {
            device: self.name.clone(),
            device_bytes: self.device_bytes,
            // Without the end marker (lost in an overrun), the window ends at the last event.
            duration_ns: match (self.window_start_ns, self.window_end_ns) {
                (Some(start), Some(end)) => end.saturating_sub(start),
                (Some(start), None) => self.last_event_ns.saturating_sub(start),
                _ => 0,
            },
            ios,
            lost_events: ring_lost_events + unmatched_issues + self.unmatched_completions,
            read: self.read.summary(),
            write: self.write.summary(),
            random_fraction: fraction(self.read.random_ios + self.write.random_ios, ios),
            queue_depth: summarize(&self.queue_depth),
            interarrival_ns: summarize(&self.interarrival_ns),
            hot_set: self.regions.hot_set(self.device_bytes),
            processes: self.processes.top(self.limits.top_processes),
            iolog_path,
            sequential_writes: self.sequential_writes.shares(),
            details: TraceDetails {
                ring_lost_events,
                unmatched_issues,
                unmatched_completions: self.unmatched_completions,
                other_requests: self.other_requests,
                flush_requests: self.flushes,
                read_other_size_ios: self.read.sizes.other_ios,
                write_other_size_ios: self.write.sizes.other_ios,
                other_process_ios,
                other_process_bytes,
                timestamp_resolution_ns: self.limits.timestamp_resolution_ns,
            },
        }
    }
}

/// Requests in flight by place (first sector, direction). Two requests for the same place
/// may be in flight at once (random IO does that); they are kept in issue order under
/// duplicate numbers 0, 1, ... and the oldest is paired with the next completion, as the
/// events cannot tell them apart.
#[derive(Debug, Default)]
struct InFlightTable {
    by_place: IntMap<(u64, Direction, u32), InFlight>,
}

impl InFlightTable {
    fn len(&self) -> usize {
        self.by_place.len()
    }

    fn insert(&mut self, (sector, direction): (u64, Direction), io: InFlight) {
        let mut n = 0;
        while self.by_place.contains_key(&(sector, direction, n)) {
            n += 1;
        }
        self.by_place.insert((sector, direction, n), io);
    }

    fn remove(&mut self, (sector, direction): (u64, Direction)) -> Option<InFlight> {
        let oldest = self.by_place.remove(&(sector, direction, 0))?;
        let mut n = 1;
        while let Some(next) = self.by_place.remove(&(sector, direction, n)) {
            self.by_place.insert((sector, direction, n - 1), next);
            n += 1;
        }
        Some(oldest)
    }
}

fn histogram(max: u64) -> Histogram<u64> {
    Histogram::new_with_bounds(1, max, SIGNIFICANT_DIGITS)
        .expect("static histogram bounds are valid")
}

/// Records `value` clamped to the histogram's range (0 as 1: the text timestamps have 1 µs
/// resolution, so 0 means "under a microsecond").
fn record(histogram: &mut Histogram<u64>, value: u64, max: u64) {
    histogram
        .record(value.clamp(1, max))
        .expect("a clamped value is in range");
}

fn summarize(histogram: &Histogram<u64>) -> QuantileSummary {
    if histogram.is_empty() {
        return QuantileSummary {
            relative_error: RELATIVE_ERROR,
            ..QuantileSummary::default()
        };
    }
    QuantileSummary {
        count: histogram.len(),
        mean: histogram.mean(),
        p50: histogram.value_at_quantile(0.50) as f64,
        p90: histogram.value_at_quantile(0.90) as f64,
        p99: histogram.value_at_quantile(0.99) as f64,
        max: histogram.max() as f64,
        relative_error: RELATIVE_ERROR,
    }
}

fn fraction(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
