//! Why a capture could not read or make sense of what the kernel shows: each variant names
//! the file (and line) it is about, so a user on an odd kernel can see what was expected.

use std::path::PathBuf;

/// What can go wrong while capturing counters.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// A file under /proc or /sys could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line of a /proc file is not in any format a kernel writes.
    #[error("{}: line {line}: {reason}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong with it.
        reason: String,
    },
    /// A device asked for with `--device` is not in /proc/diskstats.
    #[error("no block device '{name}' in /proc/diskstats (devices here: {})", known.join(", "))]
    UnknownDevice {
        /// The name as given.
        name: String,
        /// The devices the kernel lists.
        known: Vec<String>,
    },
    /// No device was asked for and none has done IO since boot.
    #[error("no block device has done any IO since boot; name one with --device")]
    NoActiveDevice,
    /// The sampling interval is zero.
    #[error("the sampling interval must be longer than 0")]
    ZeroInterval,
}
