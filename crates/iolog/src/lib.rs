//! fio's iolog trace format ("I/O Replay" in fio's HOWTO, `iolog.c` in its source): what a
//! log line means, a streaming reader of versions 2 and 3 and a streaming writer of version 3.
//!
//! A log is a header line (`fio version 2 iolog` or `fio version 3 iolog`) followed by one
//! action per line, either a file action (`add`, `open`, `close`) or an IO action (`read`,
//! `write`, `trim`, `sync`, `datasync`, and in version 2 only `wait`) with a byte offset and a
//! byte length. Version 3 puts a timestamp first on every line.
//!
//! Units, as fio 3.33 writes and reads them (checked against the installed binary, because the
//! HOWTO does not state them all):
//! - a version 3 timestamp is **microseconds** since the log was started (fio's `log_io_u`
//!   prints `utime_since_now`); this crate's API speaks nanoseconds (`*_ns`) like the rest of
//!   diskmeter and converts at the edge, so written timestamps are truncated to whole µs;
//! - a version 2 `wait` carries its time in the offset field. The HOWTO calls it a relative
//!   delay in microseconds, but fio's `read_iolog_get` sleeps until that many **milliseconds
//!   since the job started** (a log with `wait 1500` then `wait 3000` takes 3 s under fio
//!   3.33), so [`IoAction::Wait`] names it `since_start_ms`.
//!
//! Both directions stream: the reader holds one line at a time (at most [`MAX_LINE_BYTES`])
//! whatever the log's size (fio issue #25 was a 3 GB trace that ran out of memory), and the
//! writer buffers a fixed amount before it writes.

#![forbid(unsafe_code)]

mod error;
mod read;
mod write;

pub use error::IologError;
pub use read::{IologReader, MAX_LINE_BYTES};
pub use write::IologWriter;

/// Which header a log starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IologVersion {
    /// `fio version 2 iolog`: no timestamps; pacing comes from `wait` actions.
    V2,
    /// `fio version 3 iolog`: every line starts with a timestamp in microseconds.
    V3,
}

impl IologVersion {
    /// The header line (without its newline).
    pub fn header(self) -> &'static str {
        match self {
            IologVersion::V2 => "fio version 2 iolog",
            IologVersion::V3 => "fio version 3 iolog",
        }
    }
}

/// A file management action: `filename add|open|close`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAction {
    /// Make the file known to the replay.
    Add,
    /// Open the file (it has to have been added).
    Open,
    /// Close the file.
    Close,
}

impl FileAction {
    /// The word fio writes for the action.
    pub fn as_str(self) -> &'static str {
        match self {
            FileAction::Add => "add",
            FileAction::Open => "open",
            FileAction::Close => "close",
        }
    }
}

/// The direction of an IO action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoKind {
    /// Read `length` bytes at `offset`.
    Read,
    /// Write `length` bytes at `offset`.
    Write,
    /// Discard `length` bytes at `offset`.
    Trim,
    /// fsync(2) the file (offset and length are written but mean nothing).
    Sync,
    /// fdatasync(2) the file.
    Datasync,
}

impl IoKind {
    /// The word fio writes for the direction.
    pub fn as_str(self) -> &'static str {
        match self {
            IoKind::Read => "read",
            IoKind::Write => "write",
            IoKind::Trim => "trim",
            IoKind::Sync => "sync",
            IoKind::Datasync => "datasync",
        }
    }

    fn parse(word: &str) -> Option<IoKind> {
        Some(match word {
            "read" => IoKind::Read,
            "write" => IoKind::Write,
            "trim" => IoKind::Trim,
            "sync" => IoKind::Sync,
            "datasync" => IoKind::Datasync,
            _ => return None,
        })
    }
}

/// What one line asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoAction {
    /// A file action.
    File(FileAction),
    /// An IO of `length_bytes` at `offset_bytes`.
    Io {
        /// The direction.
        kind: IoKind,
        /// Byte offset in the file.
        offset_bytes: u64,
        /// Byte length.
        length_bytes: u64,
    },
    /// Version 2 only: do not issue the next action before this many milliseconds since the
    /// replay started (fio's implemented meaning; see the crate docs).
    Wait {
        /// Milliseconds since the start of the replay.
        since_start_ms: u64,
    },
}

/// One line of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IologEntry {
    /// 1-based line number in the log (the header is line 1), for error messages.
    pub line: u64,
    /// Version 3: the line's timestamp, converted from the log's microseconds. `None` in
    /// version 2.
    pub timestamp_ns: Option<u64>,
    /// The file the action applies to, as written in the log.
    pub file: String,
    /// The action.
    pub action: IoAction,
}
