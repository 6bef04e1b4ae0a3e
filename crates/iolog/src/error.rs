//! Why a log could not be read or written; every variant that comes from the log's text names
//! the log and the line.

use std::io;

/// An error reading or writing an iolog.
#[derive(Debug, thiserror::Error)]
pub enum IologError {
    /// The log could not be read (or written) at the operating-system level.
    #[error("{log}: {source}")]
    Io {
        /// The log's name as given to the reader or writer.
        log: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The first line is not a version 2 or 3 header (fio dropped version 1 in 2008).
    #[error("{log}:1: not an fio iolog: the first line is {found:?}, expected \"fio version 2 iolog\" or \"fio version 3 iolog\"")]
    BadHeader {
        /// The log's name.
        log: String,
        /// What the first line holds (cut to 80 characters).
        found: String,
    },
    /// A line does not parse as an action of the log's version.
    #[error("{log}:{line}: {reason}")]
    BadLine {
        /// The log's name.
        log: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// A line is longer than the reader holds, so it cannot be an iolog line (fio reads at
    /// most 4096 bytes a line).
    #[error("{log}:{line}: line longer than {limit_bytes} bytes; is this an fio iolog?")]
    LineTooLong {
        /// The log's name.
        log: String,
        /// 1-based line number.
        line: u64,
        /// The reader's limit.
        limit_bytes: usize,
    },
    /// A file name the writer was given cannot be read back (fio splits lines on whitespace).
    #[error(
        "{log}: file name {file:?} contains whitespace or is empty; fio could not read it back"
    )]
    UnwritableFileName {
        /// The log's name.
        log: String,
        /// The offending name.
        file: String,
    },
}
