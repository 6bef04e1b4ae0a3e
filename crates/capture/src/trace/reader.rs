//! The reader thread: drains the instance's `trace_pipe` as the kernel fills it, hands each
//! block event to its device's aggregation and, when asked, streams the issues into an fio
//! iolog. It owns everything it counts and gives it back when it stops.
//!
//! `trace_pipe` is opened non-blocking and read in 64 KiB gulps; when it is empty the thread
//! sleeps [`POLL_INTERVAL`], which the ring buffer ([`super::TraceOptions`]) must cover.
//! Stopping: the session turns tracing off, then raises `stop`; the reader then reads until
//! the pipe is empty once more, so nothing recorded before tracing went off is missed.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use diskmeter_iolog::{FileAction, IoKind, IologWriter};

use super::aggregate::DeviceAggregator;
use super::event::{parse_line, BlockEvent, Direction, EventKind, TraceLine};
use super::TraceError;

/// How long the reader sleeps when the pipe is empty.
pub const POLL_INTERVAL: Duration = Duration::from_millis(10);
/// Bytes read at a time.
const READ_BYTES: usize = 64 * 1024;
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
    pipe: File,
    pipe_path: PathBuf,
    devices: Vec<DeviceAggregator>,
    index: HashMap<(u32, u32), usize>,
    iolog: Option<IologOut>,
    shared: Arc<Shared>,
    window_start_ns: Option<u64>,
    unreadable_events: u64,
    lost_in_text: u64,
    events: u64,
}

impl Reader {
    /// A reader of `pipe` for `devices` (major, minor, counters) that writes an iolog at
    /// `iolog_path` if given, naming each device's file `/dev/NAME`.
    pub fn new(
        pipe: File,
        pipe_path: PathBuf,
        devices: Vec<((u32, u32), String, DeviceAggregator)>,
        iolog_path: Option<&Path>,
        shared: Arc<Shared>,
    ) -> Result<Reader, TraceError> {
        let iolog = match iolog_path {
            Some(path) => Some(IologOut {
                writer: IologWriter::create(path)?,
                path: path.to_path_buf(),
                files: devices
                    .iter()
                    .map(|(_, name, _)| format!("/dev/{name}"))
                    .collect(),
                error: None,
            }),
            None => None,
        };
        let mut index = HashMap::new();
        let mut counters = Vec::new();
        for (i, (id, _, aggregator)) in devices.into_iter().enumerate() {
            index.insert(id, i);
            counters.push(aggregator);
        }
        Ok(Reader {
            pipe,
            pipe_path,
            devices: counters,
            index,
            iolog,
            shared,
            window_start_ns: None,
            unreadable_events: 0,
            lost_in_text: 0,
            events: 0,
        })
    }

    /// Reads until stopped; the error is a failing read of the pipe or write of the iolog.
    pub fn run(mut self) -> Result<ReaderOutput, TraceError> {
        let mut buf = vec![0u8; READ_BYTES];
        let mut partial: Vec<u8> = Vec::new();
        let mut stopping = false;
        loop {
            match self.pipe.read(&mut buf) {
                Ok(n) if n > 0 => {
                    partial.extend_from_slice(&buf[..n]);
                    let end = partial
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |i| i + 1);
                    self.consume(&partial[..end]);
                    partial.drain(..end);
                    self.publish();
                }
                Ok(_) => {
                    if self.idle(&mut stopping)? {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if self.idle(&mut stopping)? {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(TraceError::Read {
                        path: self.pipe_path.clone(),
                        source,
                    })
                }
            }
        }
        if !partial.is_empty() {
            self.consume(&partial);
        }
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
        let Some(&i) = self.index.get(&(event.major, event.minor)) else {
            return;
        };
        let device = &mut self.devices[i];
        if let (Some(out), EventKind::Issue { bytes, .. }) = (&mut self.iolog, event.kind) {
            let kind = match event.direction {
                Direction::Read => Some(IoKind::Read),
                Direction::Write => Some(IoKind::Write),
                Direction::Discard => Some(IoKind::Trim),
                Direction::Other => None,
            };
            if let Some(kind) = kind.filter(|_| bytes > 0 && device.in_window(event.timestamp_ns)) {
                let at = event.timestamp_ns.saturating_sub(start);
                if let Err(e) = out
                    .writer
                    .io(at, &out.files[i], kind, event.sector * 512, bytes)
                {
                    out.error.get_or_insert(e);
                }
            }
        }
        device.record(event);
    }
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
