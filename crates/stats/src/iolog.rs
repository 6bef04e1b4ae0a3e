//! fio's per-worker log files (`write_bw_log`, `write_iops_log`, `write_lat_log`): one line
//! per IO, or per `log_avg_msec` window, in fio 3.x's text format.
//!
//! A line is `time_ms, value, direction, block_size, priority` (fio's 5 columns), or
//! `time_ms, value, direction, block_size, offset, priority` with `log_offset`; direction is
//! 0 read, 1 write, and priority is always 0 (diskmeter sets no IO priorities). Times are ms
//! since the worker's measurement start (after `ramp_time`), rounded down.
//!
//! Values follow fio 3.33's code (stat.c), checked against its output:
//! * one line per IO (`log_avg_msec=0`): latencies in ns; bandwidth = bytes x 10^6 / clat ns
//!   (fio divides by the completion latency, so this is 1000-byte kB/s of that IO's clat);
//!   IOPS = 1; the block size column is the IO's size.
//! * per window (`log_avg_msec=N`): bandwidth in KiB/s and IOPS over each whole N ms window,
//!   stamped at the window's end; a window without IOs in a direction gives no line for it,
//!   and the last, partial window is not logged (fio's sampling thread stops first).
//!   Latency logs keep fio's inline averaging: a direction's window is closed by the first IO
//!   that completes N ms or more after the window began; that IO is counted in it and its
//!   time stamps the line, whose value is the mean rounded half up. What is left when the
//!   worker ends is written stamped with the end time. The block size column is 0.
//!
//! Entries are kept in memory as 32-byte records and formatted by [`IoLogRecorder::finish`],
//! after the run; a log of more than [`MAX_PENDING_ENTRIES`] lines is written out in chunks
//! of that many during the run (a short pause of that worker), so memory stays bounded. Writing never panics: the first error stops that log
//! and is returned by [`IoLogRecorder::finish`].

use diskmeter_units::Direction;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Lines a log holds in memory before they are written out (8 MiB of entries per log).
pub const MAX_PENDING_ENTRIES: usize = 1 << 18;

/// Which of fio's logs a file is; the name of its file ends `_<suffix>.N.log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogKind {
    /// Bandwidth (`write_bw_log`).
    Bw,
    /// IOs per second (`write_iops_log`).
    Iops,
    /// Total latency, issue to completion (`write_lat_log`).
    Lat,
    /// Completion latency, submission to completion (`write_lat_log`).
    Clat,
    /// Submission latency, issue to submission (`write_lat_log`; no lines for engines that
    /// complete IOs inside the submit call, as in fio).
    Slat,
}

impl LogKind {
    /// The part of the file name after the prefix: `bw`, `iops`, `lat`, `clat`, `slat`.
    pub fn suffix(self) -> &'static str {
        match self {
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
            LogKind::Lat => "lat",
            LogKind::Clat => "clat",
            LogKind::Slat => "slat",
        }
    }
}

/// One completed IO, as the worker measured it.
#[derive(Debug, Clone, Copy)]
pub struct CompletedIo {
    /// Completion time, ns since the worker's measurement start.
    pub since_start_ns: u64,
    /// Read or write.
    pub direction: Direction,
    /// Bytes transferred.
    pub bytes: u64,
    /// Offset of the IO in its file.
    pub offset_bytes: u64,
    /// Issue to completion, ns.
    pub lat_ns: u64,
    /// Submission to completion, ns.
    pub clat_ns: u64,
    /// Issue to submission, ns; `None` for engines that complete IOs inside the submit call.
    pub slat_ns: Option<u64>,
}

/// Why a log could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the log file {label}: {source}")]
pub struct IoLogError {
    /// The log's label (its path).
    pub label: String,
    /// What the write or flush returned.
    #[source]
    pub source: io::Error,
}

/// One line of a log before formatting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    time_ms: u64,
    value: u64,
    offset_bytes: u64,
    bs_bytes: u32,
    direction: u8,
}

/// fio's inline averaging window of one direction (latency logs).
#[derive(Debug, Clone, Copy, Default)]
struct MeanWindow {
    sum: u128,
    samples: u64,
    /// Start of the open window, ms (fio's `avg_last`).
    start_ms: u64,
}

impl MeanWindow {
    /// The mean rounded half up, as fio's `mean + 0.50` truncated.
    fn mean(&self) -> u64 {
        (self.sum as f64 / self.samples as f64 + 0.5) as u64
    }
}

/// Fixed windows `[k x N, (k+1) x N)` counting both directions (bandwidth and IOPS logs).
#[derive(Debug, Clone, Copy, Default)]
struct RateWindow {
    end_ms: u64,
    ios: [u64; 2],
    bytes: [u64; 2],
}

#[derive(Debug, Clone, Copy)]
enum Averaging {
    PerIo,
    Mean([MeanWindow; 2]),
    Rate(RateWindow),
}

/// One log file being recorded.
struct IoLog {
    kind: LogKind,
    label: String,
    sink: Box<dyn Write + Send>,
    entries: Vec<Entry>,
    averaging: Averaging,
    with_offset: bool,
    error: Option<io::Error>,
}

/// Records the logs of one worker. Not shared between threads: one per worker.
pub struct IoLogRecorder {
    avg_ms: u64,
    with_offset: bool,
    logs: Vec<IoLog>,
}

impl std::fmt::Debug for IoLogRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let logs: Vec<&str> = self.logs.iter().map(|l| l.label.as_str()).collect();
        f.debug_struct("IoLogRecorder")
            .field("avg_ms", &self.avg_ms)
            .field("with_offset", &self.with_offset)
            .field("logs", &logs)
            .finish()
    }
}

impl IoLogRecorder {
    /// A recorder with no logs yet: `avg_ms` is fio's `log_avg_msec` (0 = a line per IO),
    /// `with_offset` its `log_offset` (an offset column before the priority).
    pub fn new(avg_ms: u64, with_offset: bool) -> Self {
        IoLogRecorder {
            avg_ms,
            with_offset,
            logs: Vec::new(),
        }
    }

    /// Adds a log of `kind` written to `sink`; `label` names it in errors (its path).
    pub fn add_log(&mut self, kind: LogKind, label: String, sink: Box<dyn Write + Send>) {
        let averaging = match (self.avg_ms, kind) {
            (0, _) => Averaging::PerIo,
            (avg, LogKind::Bw | LogKind::Iops) => Averaging::Rate(RateWindow {
                end_ms: avg,
                ..RateWindow::default()
            }),
            _ => Averaging::Mean([MeanWindow::default(); 2]),
        };
        self.logs.push(IoLog {
            kind,
            label,
            sink,
            entries: Vec::new(),
            averaging,
            with_offset: self.with_offset,
            error: None,
        });
    }

    /// Records one completed IO in every log. Times must not go backwards.
    #[inline]
    pub fn record(&mut self, io: &CompletedIo) {
        let now_ms = io.since_start_ns / 1_000_000;
        for log in &mut self.logs {
            log.record(io, now_ms, self.avg_ms);
        }
    }

    /// Ends every log at `end_ns` (ns since measurement start), writes what is pending and
    /// flushes. Returns the first error of any log (each log stops at its own first error).
    pub fn finish(self, end_ns: u64) -> Result<(), IoLogError> {
        let end_ms = end_ns / 1_000_000;
        let mut first_error = None;
        for mut log in self.logs {
            log.close(end_ms, self.avg_ms);
            log.write_pending();
            if log.error.is_none() {
                if let Err(e) = log.sink.flush() {
                    log.error = Some(e);
                }
            }
            if let (None, Some(source)) = (&first_error, log.error) {
                first_error = Some(IoLogError {
                    label: log.label,
                    source,
                });
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl IoLog {
    #[inline]
    fn record(&mut self, io: &CompletedIo, now_ms: u64, avg_ms: u64) {
        let direction = io.direction.index();
        match &mut self.averaging {
            Averaging::PerIo => {
                let value = match self.kind {
                    LogKind::Lat => io.lat_ns,
                    LogKind::Clat => io.clat_ns,
                    LogKind::Slat => match io.slat_ns {
                        Some(slat) => slat,
                        None => return,
                    },
                    // fio's add_bw_sample: bytes x 10^6 / clat, 0 for a zero clat.
                    LogKind::Bw => (u128::from(io.bytes) * 1_000_000)
                        .checked_div(u128::from(io.clat_ns))
                        .map_or(0, saturate),
                    LogKind::Iops => 1,
                };
                self.push(Entry {
                    time_ms: now_ms,
                    value,
                    offset_bytes: io.offset_bytes,
                    bs_bytes: io.bytes.min(u64::from(u32::MAX)) as u32,
                    direction: direction as u8,
                });
            }
            Averaging::Mean(windows) => {
                let value = match self.kind {
                    LogKind::Clat => io.clat_ns,
                    LogKind::Slat => match io.slat_ns {
                        Some(slat) => slat,
                        None => return,
                    },
                    _ => io.lat_ns,
                };
                let window = &mut windows[direction];
                window.sum += u128::from(value);
                window.samples += 1;
                if now_ms.saturating_sub(window.start_ms) >= avg_ms {
                    let entry = window_entry(now_ms, window.mean(), direction);
                    *window = MeanWindow {
                        start_ms: now_ms - now_ms % avg_ms,
                        ..MeanWindow::default()
                    };
                    self.push(entry);
                }
            }
            Averaging::Rate(window) => {
                let mut closed = [None; 2];
                if now_ms >= window.end_ms {
                    closed = close_rate_window(window, self.kind, avg_ms);
                    // Skip the empty windows of an idle gap in one step.
                    window.end_ms = (now_ms / avg_ms + 1) * avg_ms;
                }
                window.ios[direction] += 1;
                window.bytes[direction] += io.bytes;
                for entry in closed.into_iter().flatten() {
                    self.push(entry);
                }
            }
        }
    }

    /// Logs what the windows still hold at the end of the run.
    fn close(&mut self, end_ms: u64, avg_ms: u64) {
        let mut closed = [None; 2];
        match &mut self.averaging {
            Averaging::PerIo => {}
            Averaging::Mean(windows) => {
                // fio's finalize_logs: the open windows are written at the end time.
                for (direction, window) in windows.iter_mut().enumerate() {
                    if window.samples > 0 {
                        closed[direction] = Some(window_entry(end_ms, window.mean(), direction));
                        *window = MeanWindow::default();
                    }
                }
            }
            Averaging::Rate(window) => {
                // Only a whole window; the partial one at the end is not logged (as fio).
                if end_ms >= window.end_ms {
                    closed = close_rate_window(window, self.kind, avg_ms);
                    window.end_ms += avg_ms;
                }
            }
        }
        for entry in closed.into_iter().flatten() {
            self.push(entry);
        }
    }

    #[inline]
    fn push(&mut self, entry: Entry) {
        if self.error.is_some() {
            return;
        }
        self.entries.push(entry);
        if self.entries.len() >= MAX_PENDING_ENTRIES {
            self.write_pending();
        }
    }

    /// Formats and writes the pending entries, in chunks so a line is never split between
    /// two writes (clones may append to one file with `per_job_logs=0`).
    #[cold]
    fn write_pending(&mut self) {
        const CHUNK_BYTES: usize = 1 << 20;
        let mut text = String::with_capacity(CHUNK_BYTES + 128);
        for entry in self.entries.drain(..) {
            if self.error.is_some() {
                break;
            }
            format_line(&mut text, &entry, self.with_offset);
            if text.len() >= CHUNK_BYTES {
                if let Err(e) = self.sink.write_all(text.as_bytes()) {
                    self.error = Some(e);
                }
                text.clear();
            }
        }
        if self.error.is_none() && !text.is_empty() {
            if let Err(e) = self.sink.write_all(text.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.entries.clear();
    }
}

/// A window line: fio writes 0 for the block size and offset of averaged entries.
fn window_entry(time_ms: u64, value: u64, direction: usize) -> Entry {
    Entry {
        time_ms,
        value,
        offset_bytes: 0,
        bs_bytes: 0,
        direction: direction as u8,
    }
}

/// The rate lines of the window ending at `window.end_ms`; clears its counts (the caller
/// moves its end).
fn close_rate_window(window: &mut RateWindow, kind: LogKind, avg_ms: u64) -> [Option<Entry>; 2] {
    let mut lines = [None; 2];
    for (direction, line) in lines.iter_mut().enumerate() {
        if window.ios[direction] == 0 {
            continue;
        }
        // fio's __add_samples: integer KiB/s and IOPS over the window's length.
        let per_second = |count: u64| u128::from(count) * 1000 / u128::from(avg_ms);
        let value = saturate(match kind {
            LogKind::Bw => per_second(window.bytes[direction]) / 1024,
            _ => per_second(window.ios[direction]),
        });
        *line = Some(window_entry(window.end_ms, value, direction));
    }
    window.ios = [0; 2];
    window.bytes = [0; 2];
    lines
}

/// `value` as a u64, capped (only absurd windows could exceed it).
fn saturate(value: u128) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// One line in fio's format (`flush_samples` in fio's iolog.c).
fn format_line(out: &mut String, entry: &Entry, with_offset: bool) {
    let _ = if with_offset {
        writeln!(
            out,
            "{}, {}, {}, {}, {}, 0",
            entry.time_ms, entry.value, entry.direction, entry.bs_bytes, entry.offset_bytes
        )
    } else {
        writeln!(
            out,
            "{}, {}, {}, {}, 0",
            entry.time_ms, entry.value, entry.direction, entry.bs_bytes
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    const MS: u64 = 1_000_000;

    /// A sink the test can read after the recorder is done with it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn lines(&self) -> Vec<String> {
            String::from_utf8(self.0.lock().unwrap().clone())
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    /// A sink that fails every write, like a full disk.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(28))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn io(at_ns: u64, direction: Direction, lat_ns: u64) -> CompletedIo {
        CompletedIo {
            since_start_ns: at_ns,
            direction,
            bytes: 4096,
            offset_bytes: 8192,
            lat_ns,
            clat_ns: lat_ns - 10,
            slat_ns: Some(10),
        }
    }

    /// Runs `ios` through a recorder with one log of each kind; the lines per kind.
    fn record(
        avg_ms: u64,
        with_offset: bool,
        ios: &[CompletedIo],
        end_ns: u64,
    ) -> Vec<Vec<String>> {
        let kinds = [
            LogKind::Bw,
            LogKind::Iops,
            LogKind::Lat,
            LogKind::Clat,
            LogKind::Slat,
        ];
        let sinks: Vec<Shared> = kinds.iter().map(|_| Shared::default()).collect();
        let mut recorder = IoLogRecorder::new(avg_ms, with_offset);
        for (kind, sink) in kinds.iter().zip(&sinks) {
            recorder.add_log(*kind, kind.suffix().to_string(), Box::new(sink.clone()));
        }
        for io in ios {
            recorder.record(io);
        }
        recorder.finish(end_ns).unwrap();
        sinks.iter().map(Shared::lines).collect()
    }

    #[test]
    fn per_io_lines_have_fios_columns_and_values() {
        let logs = record(
            0,
            false,
            &[
                io(1_500_000, Direction::Read, 2_000),
                io(2 * MS, Direction::Write, 1_010),
            ],
            3 * MS,
        );
        let [bw, iops, lat, clat, slat] = &logs[..] else {
            unreachable!()
        };
        // bw = bytes x 10^6 / clat: 4096e6 / 1990 and 4096e6 / 1000.
        assert_eq!(bw, &["1, 2058291, 0, 4096, 0", "2, 4096000, 1, 4096, 0"]);
        assert_eq!(iops, &["1, 1, 0, 4096, 0", "2, 1, 1, 4096, 0"]);
        assert_eq!(lat, &["1, 2000, 0, 4096, 0", "2, 1010, 1, 4096, 0"]);
        assert_eq!(clat, &["1, 1990, 0, 4096, 0", "2, 1000, 1, 4096, 0"]);
        assert_eq!(slat, &["1, 10, 0, 4096, 0", "2, 10, 1, 4096, 0"]);
    }

    #[test]
    fn log_offset_adds_the_offset_before_the_priority() {
        let logs = record(0, true, &[io(MS, Direction::Read, 100)], MS);
        assert_eq!(logs[2], ["1, 100, 0, 4096, 8192, 0"]);
        let logs = record(100, true, &[io(MS, Direction::Read, 100)], 50 * MS);
        assert_eq!(logs[2], ["50, 100, 0, 0, 0, 0"], "windows log offset 0");
    }

    #[test]
    fn engines_without_a_submit_latency_leave_the_slat_log_empty() {
        let mut sync_io = io(MS, Direction::Read, 100);
        sync_io.slat_ns = None;
        for avg_ms in [0, 100] {
            let logs = record(avg_ms, false, &[sync_io], 500 * MS);
            assert!(logs[4].is_empty(), "{:?}", logs[4]);
            assert!(!logs[2].is_empty());
        }
    }

    #[test]
    fn rate_windows_are_whole_windows_stamped_at_their_end() {
        // 10 reads in [0, 100) ms, 5 writes in [100, 200), 1 read in [200, 250); end at 250.
        let mut ios: Vec<CompletedIo> = (0..10)
            .map(|i| io(i * 10 * MS, Direction::Read, 100))
            .collect();
        ios.extend((0..5).map(|i| io((100 + i * 20) * MS, Direction::Write, 100)));
        ios.push(io(210 * MS, Direction::Read, 100));
        let logs = record(100, false, &ios, 250 * MS);
        // 10 x 4 KiB in 100 ms = 400 KiB/s; the partial window at the end is not logged.
        assert_eq!(logs[0], ["100, 400, 0, 0, 0", "200, 200, 1, 0, 0"]);
        assert_eq!(logs[1], ["100, 100, 0, 0, 0", "200, 50, 1, 0, 0"]);
    }

    #[test]
    fn rate_windows_without_io_give_no_line() {
        let ios = [
            io(10 * MS, Direction::Read, 100),
            io(350 * MS, Direction::Read, 100),
            io(360 * MS, Direction::Write, 100),
        ];
        let logs = record(100, false, &ios, 400 * MS);
        assert_eq!(
            logs[1],
            ["100, 10, 0, 0, 0", "400, 10, 0, 0, 0", "400, 10, 1, 0, 0"],
            "read then write at the same time, as fio's loop over directions"
        );
    }

    #[test]
    fn a_window_ending_exactly_at_the_end_is_whole() {
        let logs = record(100, false, &[io(50 * MS, Direction::Read, 100)], 100 * MS);
        assert_eq!(logs[1], ["100, 10, 0, 0, 0"]);
        let logs = record(
            100,
            false,
            &[io(50 * MS, Direction::Read, 100)],
            100 * MS - 1,
        );
        assert!(logs[1].is_empty());
    }

    #[test]
    fn latency_windows_close_on_the_first_io_past_them_as_fio_does() {
        // fio 3.33 with rate_iops=4, log_avg_msec=100: IOs at 0, 250, 500 and 750 ms give
        // lines at 250 (the IOs at 0 and 250), 500 and 750; nothing is left for the end.
        let ios = [
            io(0, Direction::Read, 7_000),
            io(250 * MS, Direction::Read, 2_001),
            io(500 * MS, Direction::Read, 3_000),
            io(750 * MS + 400_000, Direction::Read, 4_000),
        ];
        let logs = record(100, false, &ios, 1_000 * MS);
        assert_eq!(
            logs[2],
            [
                "250, 4501, 0, 0, 0",
                "500, 3000, 0, 0, 0",
                "750, 4000, 0, 0, 0"
            ]
        );
    }

    #[test]
    fn latency_windows_restart_on_the_boundary_and_the_rest_is_logged_at_the_end() {
        // Flushed at 105 ms, the next window starts at 100 (fio: elapsed - elapsed % N), so
        // an IO at 200 closes it; the write after it is written at the end time, 230. Each
        // direction has its own window: the first read, at 221 ms, closes the read window
        // that began at 0.
        let ios = [
            io(10 * MS, Direction::Write, 100),
            io(105 * MS, Direction::Write, 300),
            io(150 * MS, Direction::Write, 1_000),
            io(200 * MS, Direction::Write, 2_000),
            io(220 * MS, Direction::Write, 17),
            io(221 * MS, Direction::Read, 18),
        ];
        let logs = record(100, false, &ios, 230 * MS);
        assert_eq!(
            logs[2],
            [
                "105, 200, 1, 0, 0",
                "200, 1500, 1, 0, 0",
                "221, 18, 0, 0, 0",
                "230, 17, 1, 0, 0"
            ]
        );
        assert_eq!(logs[3][0], "105, 190, 1, 0, 0", "clat is lat - 10 here");
        assert_eq!(logs[4][0], "105, 10, 1, 0, 0");
    }

    #[test]
    fn long_per_io_logs_are_written_in_chunks_and_lose_nothing() {
        let n = MAX_PENDING_ENTRIES as u64 * 2 + 3;
        let ios: Vec<CompletedIo> = (0..n)
            .map(|i| io(i * 1_000, Direction::Read, 100))
            .collect();
        let sink = Shared::default();
        let mut recorder = IoLogRecorder::new(0, false);
        recorder.add_log(LogKind::Iops, "iops".to_string(), Box::new(sink.clone()));
        for (i, io) in ios.iter().enumerate() {
            recorder.record(io);
            if i == MAX_PENDING_ENTRIES {
                // The first chunk is already out: memory stays bounded.
                assert!(!sink.0.lock().unwrap().is_empty());
            }
        }
        recorder.finish(n * 1_000).unwrap();
        let lines = sink.lines();
        assert_eq!(lines.len() as u64, n);
        assert_eq!(
            lines.last().unwrap(),
            &format!("{}, 1, 0, 4096, 0", (n - 1) / 1_000)
        );
    }

    #[test]
    fn write_errors_are_returned_not_panicked() {
        let mut recorder = IoLogRecorder::new(0, false);
        recorder.add_log(
            LogKind::Lat,
            "ok.log".to_string(),
            Box::new(Shared::default()),
        );
        recorder.add_log(LogKind::Clat, "x_clat.1.log".to_string(), Box::new(Full));
        recorder.record(&io(MS, Direction::Read, 100));
        let error = recorder.finish(MS).unwrap_err();
        assert_eq!(error.label, "x_clat.1.log");
        assert!(
            error
                .to_string()
                .starts_with("cannot write the log file x_clat.1.log: No space left"),
            "{error}"
        );
    }
}
