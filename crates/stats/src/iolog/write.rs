//! Keeping a log's lines and writing them: entries wait in memory as 32-byte records and are
//! formatted in fio's text format when the log finishes; a log of more than
//! [`MAX_PENDING_ENTRIES`] lines is written out in chunks of that many during the run (a short
//! pause of that worker), so memory stays bounded. The first write error stops the log.

use std::fmt::Write as _;
use std::io::{self, Write};

/// Lines a log holds in memory before they are written out (8 MiB of entries per log).
pub const MAX_PENDING_ENTRIES: usize = 1 << 18;

/// One line of a log before formatting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) time_ms: u64,
    pub(super) value: u64,
    pub(super) offset_bytes: u64,
    pub(super) bs_bytes: u32,
    pub(super) direction: u8,
}

/// The lines of one log on their way to its file.
pub(super) struct LogWriter {
    sink: Box<dyn Write + Send>,
    entries: Vec<Entry>,
    /// fio's `log_offset`: an offset column before the priority.
    with_offset: bool,
    /// The priority column as written (see [`super::LogFormat`]).
    priority: Box<str>,
    /// Added to every time (fio `log_unix_epoch`: the measurement start in Unix ms).
    pub(super) time_offset_ms: u64,
    /// The first write error; nothing more is written after it.
    error: Option<io::Error>,
}

impl LogWriter {
    pub(super) fn new(sink: Box<dyn Write + Send>, with_offset: bool, priority: Box<str>) -> Self {
        LogWriter {
            sink,
            entries: Vec::new(),
            with_offset,
            priority,
            time_offset_ms: 0,
            error: None,
        }
    }

    /// Keeps `entry`; writes the pending lines out when there are [`MAX_PENDING_ENTRIES`].
    #[inline]
    pub(super) fn push(&mut self, entry: Entry) {
        if self.error.is_some() {
            return;
        }
        self.entries.push(entry);
        if self.entries.len() >= MAX_PENDING_ENTRIES {
            self.write_pending();
        }
    }

    /// Writes what is pending and flushes; the first error the log met, if any.
    pub(super) fn finish(mut self) -> io::Result<()> {
        self.write_pending();
        if self.error.is_none() {
            if let Err(e) = self.sink.flush() {
                self.error = Some(e);
            }
        }
        self.error.map_or(Ok(()), Err)
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
            let entry = Entry {
                time_ms: entry.time_ms + self.time_offset_ms,
                ..entry
            };
            format_line(&mut text, &entry, self.with_offset, &self.priority);
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

/// One line in fio's format (`flush_samples` in fio's iolog.c).
fn format_line(out: &mut String, entry: &Entry, with_offset: bool, priority: &str) {
    let _ = if with_offset {
        writeln!(
            out,
            "{}, {}, {}, {}, {}, {priority}",
            entry.time_ms, entry.value, entry.direction, entry.bs_bytes, entry.offset_bytes
        )
    } else {
        writeln!(
            out,
            "{}, {}, {}, {}, {priority}",
            entry.time_ms, entry.value, entry.direction, entry.bs_bytes
        )
    };
}
