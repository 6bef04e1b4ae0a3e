//! fio's per-worker log files (`write_bw_log`, `write_iops_log`, `write_lat_log`): one line
//! per IO, or per `log_avg_msec` window, in fio 3.x's text format.
//!
//! A line is `time_ms, value, direction, block_size, priority` (fio's 5 columns), or
//! `time_ms, value, direction, block_size, offset, priority` with `log_offset`; direction is
//! 0 read, 1 write, and priority is 1 for a realtime-class IO and 0 otherwise, or the IO's
//! priority value as `0x%04x` with `log_prio` (averaged lines: no priority, 0), see
//! [`LogFormat`]. Times are ms since the worker's measurement start (after `ramp_time`),
//! rounded down, or Unix ms with `log_unix_epoch`.
//!
//! Values follow fio 3.33's code (stat.c), checked against its output:
//! * one line per IO (`log_avg_msec=0`, [`per_io`]): latencies in ns; bandwidth = bytes x
//!   10^6 / clat ns (fio divides by the completion latency, so this is 1000-byte kB/s of that
//!   IO's clat); IOPS = 1; the block size column is the IO's size.
//! * per window (`log_avg_msec=N`, [`window`]): bandwidth in KiB/s and IOPS over each whole
//!   N ms window, stamped at the window's end; latency means closed inline by the first IO
//!   past the window, as fio does.
//!
//! This module owns the recorder a worker feeds and the choice of line per log; the lines
//! are kept and written by [`write`]. Writing never panics: the first error stops that log
//! and is returned by [`IoLogRecorder::finish`].

mod hist;
mod per_io;
mod window;
mod write;

#[cfg(test)]
mod tests;

use diskmeter_units::Direction;
use serde::Serialize;
use std::io::{self, Write};
use window::Averaging;
use write::LogWriter;

pub use hist::{fio_bucket_bounds, fio_bucket_index, FIO_PLAT_BUCKETS, MAX_HIST_COARSENESS};
pub use write::MAX_PENDING_ENTRIES;

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
    /// Completion-latency histograms (`write_hist_log`; see
    /// [`IoLogRecorder::add_hist_log`]).
    ClatHist,
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
            LogKind::ClatHist => "clat_hist",
        }
    }

    /// The latency a latency log records for `io`: None for a slat log of an IO without a
    /// submission latency (and for the bandwidth and IOPS logs, which record no latency).
    fn latency_ns(self, io: &CompletedIo) -> Option<u64> {
        match self {
            LogKind::Lat => Some(io.lat_ns),
            LogKind::Clat => Some(io.clat_ns),
            LogKind::Slat => io.slat_ns,
            LogKind::Bw | LogKind::Iops | LogKind::ClatHist => None,
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

/// One log file being recorded.
struct IoLog {
    kind: LogKind,
    label: String,
    averaging: Averaging,
    writer: LogWriter,
}

/// How a worker's logs are written beyond their averaging: fio's `log_max_value`,
/// `log_unix_epoch` and `log_prio`, and the job's IO priority for the priority column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LogFormat {
    /// Averaged latency lines carry the window's largest value, not its mean
    /// (`log_max_value`).
    pub max_value: bool,
    /// Times are Unix ms, not ms since the measurement start (`log_unix_epoch`).
    pub unix_epoch: bool,
    /// The priority column is the IO priority as `0x%04x` (`log_prio`), not 1 for the
    /// realtime class and 0 otherwise.
    pub log_prio: bool,
    /// The IO priority of the worker's IOs, as the kernel's ioprio value (class << 13 |
    /// level); 0 when none is set.
    pub ioprio: u16,
}

impl LogFormat {
    /// The priority column as fio 3.33 writes it: the IOs' priority in a line per IO; an
    /// averaged line has none (0).
    fn priority_column(&self, averaged: bool) -> Box<str> {
        let ioprio = if averaged { 0 } else { self.ioprio };
        if self.log_prio {
            format!("0x{ioprio:04x}").into()
        } else if ioprio >> 13 == 1 {
            "1".into()
        } else {
            "0".into()
        }
    }
}

/// Records the logs of one worker. Not shared between threads: one per worker.
pub struct IoLogRecorder {
    avg_ms: u64,
    with_offset: bool,
    format: LogFormat,
    /// With `log_unix_epoch`: the Unix ms of the measurement start, found at the first IO.
    epoch_ms: Option<u64>,
    logs: Vec<IoLog>,
    /// The completion-latency histogram log (`write_hist_log`), with its label.
    hist: Option<(String, hist::HistLog)>,
    /// Completion time of the latest IO recorded, ms: an IO issued inside the measured period
    /// may complete after its end, so this can be later than the end [`Self::finish`] gets.
    last_completion_ms: u64,
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
            format: LogFormat::default(),
            epoch_ms: None,
            logs: Vec::new(),
            hist: None,
            last_completion_ms: 0,
        }
    }

    /// The same recorder writing its logs as `format` says; call before adding logs.
    pub fn with_format(mut self, format: LogFormat) -> Self {
        self.format = format;
        self
    }

    /// Adds a log of `kind` written to `sink`; `label` names it in errors (its path).
    pub fn add_log(&mut self, kind: LogKind, label: String, sink: Box<dyn Write + Send>) {
        self.logs.push(IoLog {
            kind,
            label,
            averaging: Averaging::new(self.avg_ms, kind, self.format.max_value),
            writer: LogWriter::new(
                sink,
                self.with_offset,
                self.format.priority_column(self.avg_ms > 0),
            ),
        });
    }

    /// Adds fio's completion-latency histogram log (`write_hist_log`) written to `sink`: a
    /// line per direction every `msec` ms (none when 0, as fio), with 2^`coarseness` of fio's
    /// bins per column (see `hist.rs`); `label` names it in errors.
    pub fn add_hist_log(
        &mut self,
        label: String,
        sink: Box<dyn Write + Send>,
        msec: u64,
        coarseness: u32,
    ) {
        self.hist = Some((label, hist::HistLog::new(sink, msec, coarseness)));
    }

    /// Records one completed IO in every log. Times must not go backwards.
    #[inline]
    pub fn record(&mut self, io: &CompletedIo) {
        let now_ms = io.since_start_ns / 1_000_000;
        self.last_completion_ms = now_ms;
        if self.format.unix_epoch && self.epoch_ms.is_none() {
            self.start_unix_epoch(now_ms);
        }
        for log in &mut self.logs {
            log.record(io, now_ms);
        }
        if let Some((_, hist)) = &mut self.hist {
            hist.record(io, now_ms);
        }
    }

    /// Ends every log at `end_ns` (ns since measurement start), writes what is pending and
    /// flushes. Returns the first error of any log (each log stops at its own first error).
    ///
    /// The windows still open are stamped at the later of `end_ns` and the last completion
    /// recorded, so no line is ever stamped before one already written: an IO completing
    /// after the runtime (counted, with its real completion time) may have closed a window
    /// after `end_ns`. fio stamps them when it finalizes its logs, after the last completion.
    pub fn finish(self, end_ns: u64) -> Result<(), IoLogError> {
        let end_ms = (end_ns / 1_000_000).max(self.last_completion_ms);
        let mut first_error = None;
        for mut log in self.logs {
            for entry in log.averaging.close(log.kind, end_ms).into_iter().flatten() {
                log.writer.push(entry);
            }
            if let (None, Err(source)) = (&first_error, log.writer.finish()) {
                first_error = Some(IoLogError {
                    label: log.label,
                    source,
                });
            }
        }
        if let Some((label, hist)) = self.hist {
            if let (None, Err(source)) = (&first_error, hist.finish(end_ms)) {
                first_error = Some(IoLogError { label, source });
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl IoLogRecorder {
    /// `log_unix_epoch`: finds the Unix ms of the measurement start from the first IO's
    /// time and has every log add it, before any line is written.
    #[cold]
    fn start_unix_epoch(&mut self, now_ms: u64) {
        let unix_now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let epoch_ms = unix_now_ms.saturating_sub(now_ms);
        self.epoch_ms = Some(epoch_ms);
        for log in &mut self.logs {
            log.writer.time_offset_ms = epoch_ms;
        }
        if let Some((_, hist)) = &mut self.hist {
            hist.time_offset_ms = epoch_ms;
        }
    }
}

impl IoLog {
    #[inline]
    fn record(&mut self, io: &CompletedIo, now_ms: u64) {
        match &mut self.averaging {
            Averaging::PerIo => {
                if let Some(entry) = per_io::entry(self.kind, io, now_ms) {
                    self.writer.push(entry);
                }
            }
            averaging => {
                for entry in averaging
                    .record(self.kind, io, now_ms)
                    .into_iter()
                    .flatten()
                {
                    self.writer.push(entry);
                }
            }
        }
    }
}
