//! The reader thread: drains the instance's ring buffer as the kernel fills it, hands each
//! block event to its device's aggregation and, when asked, streams the issues into an fio
//! iolog. It owns everything it counts and gives it back when it stops.
//!
//! Two sources ([`Source`]): the binary per-CPU `trace_pipe_raw` files (the default: the
//! kernel copies pages instead of formatting text, see [`super::raw`]), whose records are
//! put in time order across CPUs before they are counted, holding back the newest
//! [`RAW_HOLD_NS`] in case another CPU's older events are still to be read; or the text
//! `trace_pipe`, already merged by the kernel. Both are opened non-blocking; when nothing is
//! left the thread sleeps [`POLL_INTERVAL`], which the ring buffer
//! ([`super::TraceOptions`]) must cover. Stopping: the session turns tracing off, then raises
//! `stop`; the reader then reads until everything is empty once more, so nothing recorded
//! before tracing went off is missed.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use diskmeter_iolog::{FileAction, IoKind, IologWriter};

use super::aggregate::DeviceAggregator;
use super::event::{parse_line, BlockEvent, Direction, EventKind, TraceLine};
use super::raw::{comm_str, RawEvent, RawKind, RawLayout};
use super::tables::IntMap;
use super::TraceError;

/// How long the reader sleeps when the pipe is empty.
pub const POLL_INTERVAL: Duration = Duration::from_millis(10);
/// Bytes read at a time.
const READ_BYTES: usize = 64 * 1024;
/// How far behind the newest raw record the reader counts, ns: records of another CPU
/// that are older than this but read later would be counted out of order (and show as an
/// unmatched pair, counted as lost).
pub const RAW_HOLD_NS: u64 = 20_000_000;
/// Pages read from one CPU before the reader moves to the next.
const RAW_PAGES_PER_TURN: usize = 256;

/// Where the events come from.
pub enum Source {
    /// The text `trace_pipe` and its path.
    Text(File, PathBuf),
    /// One `trace_pipe_raw` per CPU (with its path) and the page layout.
    Raw(Vec<(File, PathBuf)>, Box<RawLayout>),
}

/// What one pass over the source found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Nothing.
    Empty,
    /// Everything there was.
    Read,
    /// As much as one pass takes: more is waiting.
    Backlog,
}

/// The `trace_marker` text that opens the traced window.
pub const START_MARKER: &str = "diskmeter-trace-start";
/// The `trace_marker` text that closes it.
pub const END_MARKER: &str = "diskmeter-trace-end";

/// What the session and the reader share while the trace runs.
#[derive(Debug, Default)]
pub struct Shared {
    /// Raised (after tracing is off) to make the reader drain the pipe and return.
    pub stop: AtomicBool,
    /// The reader has seen the end marker.
    pub end_seen: AtomicBool,
    /// Events lost so far that the reader knows of (unpaired, unreadable, `LOST` lines).
    pub lost_so_far: AtomicU64,
    /// IOs completed and counted so far, all devices.
    pub ios_so_far: AtomicU64,
}

/// The iolog being written, with each device's file name in it.
struct IologOut {
    writer: IologWriter<File>,
    path: PathBuf,
    files: Vec<String>,
    error: Option<diskmeter_iolog::IologError>,
}

/// A traced device as its requests show it: requests of a partition carry its disk's
/// numbers and sectors counted from the disk's start.
pub struct TracedDevice {
    /// The disk's (major, minor).
    pub disk: (u32, u32),
    /// The device's first sector on the disk (0 for a whole disk).
    pub first_sector: u64,
    /// The sector after its last (`u64::MAX` for a whole disk).
    pub end_sector: u64,
    /// Kernel name of the device (the iolog's file is `/dev/NAME`).
    pub name: String,
    /// Its counters.
    pub counters: DeviceAggregator,
}

/// What the reader hands back when it stops.
pub struct ReaderOutput {
    /// The devices' counters, in the session's target order.
    pub devices: Vec<DeviceAggregator>,
    /// Lines that named a block event or marker but did not parse, plus `LOST` counts.
    pub unreadable_events: u64,
    /// Events the kernel announced as lost in the text (`[LOST N EVENTS]`).
    pub lost_in_text: u64,
    /// Block events read.
    pub events: u64,
    /// CPU time the reader thread used, ns (`/proc/thread-self/schedstat`).
    pub cpu_ns: Option<u64>,
    /// The iolog written, if any.
    pub iolog_path: Option<PathBuf>,
}

/// The state of the reader thread.
pub struct Reader {
    source: Option<Source>,
    /// Raw records read, waiting to be counted in time order.
    pending: Vec<RawEvent>,
    /// Passes over the raw pipes in a row that found nothing.
    empty_raw_passes: u32,
    devices: Vec<DeviceAggregator>,
    /// The devices (indexes) whose requests carry each disk's numbers.
    index: IntMap<(u32, u32), Vec<usize>>,
    /// Each device's sectors on its disk: all of a disk, a partition's range.
    ranges: Vec<(u64, u64)>,
    iolog: Option<IologOut>,
    shared: Arc<Shared>,
    window_start_ns: Option<u64>,
    unreadable_events: u64,
    lost_in_text: u64,
    events: u64,
}

impl Reader {
    /// A reader of `source` for `devices` that writes an iolog at `iolog_path` if given,
    /// naming each device's file `/dev/NAME` with offsets from the device's own start.
    pub fn new(
        source: Source,
        devices: Vec<TracedDevice>,
        iolog_path: Option<&Path>,
        shared: Arc<Shared>,
    ) -> Result<Reader, TraceError> {
        let iolog = match iolog_path {
            Some(path) => Some(IologOut {
                writer: IologWriter::create(path)?,
                path: path.to_path_buf(),
                files: devices.iter().map(|d| format!("/dev/{}", d.name)).collect(),
                error: None,
            }),
            None => None,
        };
        let mut index: IntMap<(u32, u32), Vec<usize>> = IntMap::default();
        let mut ranges = Vec::new();
        let mut counters = Vec::new();
        for (i, device) in devices.into_iter().enumerate() {
            index.entry(device.disk).or_default().push(i);
            ranges.push((device.first_sector, device.end_sector));
            counters.push(device.counters);
        }
        Ok(Reader {
            source: Some(source),
            pending: Vec::new(),
            empty_raw_passes: 0,
            devices: counters,
            index,
            ranges,
            iolog,
            shared,
            window_start_ns: None,
            unreadable_events: 0,
            lost_in_text: 0,
            events: 0,
        })
    }

    /// Reads until stopped; the error is a failing read of the ring or write of the iolog.
    pub fn run(mut self) -> Result<ReaderOutput, TraceError> {
        let mut source = self.source.take().expect("a reader has its source");
        let page_bytes = match &source {
            Source::Raw(_, layout) => layout.page_bytes,
            Source::Text(..) => 0,
        };
        let mut buf = vec![0u8; READ_BYTES.max(page_bytes)];
        let mut partial: Vec<u8> = Vec::new();
        let mut stopping = false;
        loop {
            let got = match &mut source {
                Source::Text(pipe, path) => self.read_text(pipe, path, &mut buf, &mut partial)?,
                Source::Raw(pipes, layout) => self.read_raw(pipes, layout, &mut buf, stopping)?,
            };
            match got {
                // More is waiting: read on.
                Pass::Backlog => self.publish(),
                // Drained: let the ring fill for a while, so each pass (and each sort of the
                // raw records held back) covers many events.
                Pass::Read => {
                    self.publish();
                    if !stopping {
                        std::thread::sleep(POLL_INTERVAL);
                    }
                }
                Pass::Empty => {
                    if self.idle(&mut stopping)? {
                        break;
                    }
                }
            }
        }
        if !partial.is_empty() {
            self.consume(&partial);
        }
        self.count_pending(u64::MAX);
        let cpu_ns = thread_cpu_ns();
        let iolog_path = match self.iolog.take() {
            Some(out) => {
                if let Some(error) = out.error {
                    return Err(error.into());
                }
                out.writer.finish()?;
                Some(out.path)
            }
            None => None,
        };
        self.publish();
        Ok(ReaderOutput {
            devices: self.devices,
            unreadable_events: self.unreadable_events,
            lost_in_text: self.lost_in_text,
            events: self.events,
            cpu_ns,
            iolog_path,
        })
    }

    /// The pipe is empty: true when the reader should return (stop raised and the pipe
    /// read empty once more since); otherwise sleeps.
    fn idle(&mut self, stopping: &mut bool) -> Result<bool, TraceError> {
        if *stopping {
            return Ok(true);
        }
        if self.shared.stop.load(Ordering::Acquire) {
            *stopping = true;
            return Ok(false);
        }
        if let Some(out) = &mut self.iolog {
            // What is traced so far is on disk, so a replay of a killed capture has it.
            if let Err(e) = out.writer.flush() {
                out.error.get_or_insert(e);
            }
        }
        std::thread::sleep(POLL_INTERVAL);
        Ok(false)
    }

    /// One read of the text pipe.
    fn read_text(
        &mut self,
        pipe: &mut File,
        path: &Path,
        buf: &mut [u8],
        partial: &mut Vec<u8>,
    ) -> Result<Pass, TraceError> {
        match pipe.read(buf) {
            Ok(0) => Ok(Pass::Empty),
            Ok(n) => {
                partial.extend_from_slice(&buf[..n]);
                let end = partial
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                self.consume(&partial[..end]);
                partial.drain(..end);
                // A read of `trace_pipe` gives at most a page of text: read on until empty.
                Ok(Pass::Backlog)
            }
            Err(e) if would_block(&e) => Ok(Pass::Empty),
            Err(source) => Err(TraceError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Reads the pages each CPU has, then counts the records older than the hold (all of
    /// them once stopping).
    fn read_raw(
        &mut self,
        pipes: &mut [(File, PathBuf)],
        layout: &RawLayout,
        buf: &mut [u8],
        stopping: bool,
    ) -> Result<Pass, TraceError> {
        let page_bytes = layout.page_bytes.min(buf.len());
        let page = &mut buf[..page_bytes];
        let mut got = false;
        let mut backlog = false;
        for (pipe, path) in pipes.iter_mut() {
            for turn in 0..RAW_PAGES_PER_TURN {
                match pipe.read(page) {
                    Ok(0) => break,
                    Ok(n) => {
                        got = true;
                        backlog |= turn + 1 == RAW_PAGES_PER_TURN;
                        self.unreadable_events += layout.decode_page(&page[..n], &mut self.pending);
                    }
                    Err(e) if would_block(&e) => break,
                    Err(source) => {
                        return Err(TraceError::Read {
                            path: path.clone(),
                            source,
                        })
                    }
                }
            }
        }
        self.empty_raw_passes = if got { 0 } else { self.empty_raw_passes + 1 };
        let newest = self
            .pending
            .iter()
            .map(|e| e.timestamp_ns)
            .max()
            .unwrap_or(0);
        // Two passes in a row found nothing, a sleep apart: every event stamped before the
        // first has been committed and read, so the held-back records can all be counted.
        let cutoff = if stopping || self.empty_raw_passes >= 2 {
            u64::MAX
        } else {
            newest.saturating_sub(RAW_HOLD_NS)
        };
        self.count_pending(cutoff);
        Ok(match (got, backlog) {
            (_, true) => Pass::Backlog,
            (true, false) => Pass::Read,
            (false, false) => Pass::Empty,
        })
    }

    /// Counts the pending raw records up to `cutoff_ns`, oldest first.
    fn count_pending(&mut self, cutoff_ns: u64) {
        if self.pending.is_empty() {
            return;
        }
        // Each CPU's records are in order already: a stable sort merges them cheaply.
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_by_key(|e| e.timestamp_ns);
        let ready = pending.partition_point(|e| e.timestamp_ns <= cutoff_ns);
        for record in &pending[..ready] {
            self.raw_event(record);
        }
        pending.drain(..ready);
        self.pending = pending;
    }

    fn raw_event(&mut self, record: &RawEvent) {
        match record.kind {
            RawKind::Marker(start) => {
                let text = if start { START_MARKER } else { END_MARKER };
                self.marker(record.timestamp_ns, text);
            }
            RawKind::Block {
                major,
                minor,
                direction,
                sector,
                sectors,
                ref issue,
                error,
            } => {
                let kind = match issue {
                    Some((bytes, comm)) => EventKind::Issue {
                        bytes: *bytes,
                        command: comm_str(comm),
                    },
                    None => EventKind::Complete { error },
                };
                let event = BlockEvent {
                    pid: record.pid,
                    timestamp_ns: record.timestamp_ns,
                    major,
                    minor,
                    direction,
                    sector,
                    sectors,
                    kind,
                };
                self.block_event(&event);
            }
        }
    }

    fn publish(&self) {
        let lost: u64 = self
            .devices
            .iter()
            .map(|d| d.unmatched_completions + d.unmatched_issues)
            .sum::<u64>()
            + self.unreadable_events
            + self.lost_in_text;
        self.shared.lost_so_far.store(lost, Ordering::Relaxed);
        let ios = self.devices.iter().map(DeviceAggregator::ios).sum();
        self.shared.ios_so_far.store(ios, Ordering::Relaxed);
    }

    /// Counts every whole line of `text`.
    pub fn consume(&mut self, text: &[u8]) {
        for line in text.split(|&b| b == b'\n') {
            let Ok(line) = std::str::from_utf8(line) else {
                self.unreadable_events += 1;
                continue;
            };
            match parse_line(line) {
                Some(TraceLine::Block(event)) => self.block_event(&event),
                Some(TraceLine::Marker { timestamp_ns, text }) => self.marker(timestamp_ns, text),
                Some(TraceLine::Lost(count)) => self.lost_in_text += count,
                Some(TraceLine::Other) => {}
                None => self.unreadable_events += 1,
            }
        }
    }

    fn marker(&mut self, timestamp_ns: u64, text: &str) {
        if text == START_MARKER && self.window_start_ns.is_none() {
            self.window_start_ns = Some(timestamp_ns);
            for device in &mut self.devices {
                device.start_window(timestamp_ns);
            }
            if let Some(out) = &mut self.iolog {
                for file in &out.files {
                    for action in [FileAction::Add, FileAction::Open] {
                        if let Err(e) = out.writer.file_action(0, file, action) {
                            out.error.get_or_insert(e);
                        }
                    }
                }
            }
        } else if text == END_MARKER && !self.shared.end_seen.load(Ordering::Relaxed) {
            for device in &mut self.devices {
                device.end_window(timestamp_ns);
            }
            if let (Some(out), Some(start)) = (&mut self.iolog, self.window_start_ns) {
                for file in &out.files {
                    let at = timestamp_ns.saturating_sub(start);
                    if let Err(e) = out.writer.file_action(at, file, FileAction::Close) {
                        out.error.get_or_insert(e);
                    }
                }
            }
            self.shared.end_seen.store(true, Ordering::Release);
        }
    }

    fn block_event(&mut self, event: &BlockEvent<'_>) {
        self.events += 1;
        // Events before the start marker belong to no window (the marker is written before
        // the events are enabled, so there are none unless the marker was lost).
        let Some(start) = self.window_start_ns else {
            return;
        };
        let Some(targets) = self.index.get(&(event.major, event.minor)) else {
            return;
        };
        for &i in targets {
            let (first, end) = self.ranges[i];
            if event.sector < first || event.sector >= end {
                continue;
            }
            // Sectors from the device's own start (a partition's, not its disk's).
            let event = BlockEvent {
                sector: event.sector - first,
                ..*event
            };
            let device = &mut self.devices[i];
            if let (Some(out), EventKind::Issue { bytes, .. }) = (&mut self.iolog, event.kind) {
                let kind = match event.direction {
                    Direction::Read => Some(IoKind::Read),
                    Direction::Write => Some(IoKind::Write),
                    Direction::Discard => Some(IoKind::Trim),
                    // fio's `sync` action: an fsync of the replay's target, which on a block
                    // device is one flush (blkdev_fsync -> REQ_PREFLUSH).
                    Direction::Flush => Some(IoKind::Sync),
                    Direction::Other => None,
                };
                let moves_data = bytes > 0 || kind == Some(IoKind::Sync);
                if let Some(kind) =
                    kind.filter(|_| moves_data && device.in_window(event.timestamp_ns))
                {
                    let at = event.timestamp_ns.saturating_sub(start);
                    let (offset, bytes) = if kind == IoKind::Sync {
                        (0, 0)
                    } else {
                        (event.sector * 512, bytes)
                    };
                    if let Err(e) = out.writer.io(at, &out.files[i], kind, offset, bytes) {
                        out.error.get_or_insert(e);
                    }
                }
            }
            device.record(&event);
        }
    }
}

fn would_block(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
    )
}

/// The calling thread's CPU time, ns: the first field of `/proc/thread-self/schedstat`.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
