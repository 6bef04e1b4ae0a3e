//! [`DiskSpdError`]: a DiskSpd switch diskmeter cannot take, and why ([`DiskSpdProblem`]).

use diskmeter_workload::OptionError;
use thiserror::Error;

/// A problem with a DiskSpd command line: the switch as given, and why.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("diskspd {switch}: {problem}")]
pub struct DiskSpdError {
    /// The argument as given (`TARGET` when no target was given).
    pub switch: String,
    /// What is wrong.
    #[source]
    pub problem: DiskSpdProblem,
}

/// Why a DiskSpd switch cannot be taken.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DiskSpdProblem {
    /// `#N`: a Windows physical disk number.
    #[error("physical disk numbers are Windows-only: give a block device path such as /dev/sdb")]
    DiskNumber,

    /// A write (`-w`) or random (`-rs`) percentage above 100.
    #[error("the {what} percentage is 0 to 100")]
    PercentAbove100 {
        /// `write` or `random`.
        what: &'static str,
    },

    /// `-Sr`.
    #[error("remote caching (-Sr) is Windows-only")]
    RemoteCaching,

    /// `-Sm`.
    #[error("memory-mapped IO (-Sm) is not supported")]
    MemoryMapped,

    /// A caching mode letter DiskSpd does not have.
    #[error("caching modes are b, h, m, r, u, w")]
    CachingMode,

    /// `-D` with an interval other than 1000 ms.
    #[error("diskmeter samples IOPS per second: use -D or -D1000")]
    SampleInterval,

    /// `-R` with a form other than text or xml.
    #[error("the output forms are text and xml")]
    OutputForm,

    /// `-a`.
    #[error("affinity is set with --cpus_allowed in diskmeter run; -a is not supported")]
    Affinity,

    /// `-n`.
    #[error("NUMA/processor-group affinity control (-n) is Windows-only")]
    Numa,

    /// `-e`.
    #[error("ETW tracing (-e) is Windows-only")]
    Etw,

    /// `-x`.
    #[error("I/O completion routines (-x) are Windows-only")]
    CompletionRoutines,

    /// `-X`.
    #[error("XML profiles (-X) are not supported: give the switches")]
    XmlProfile,

    /// A DiskSpd switch diskmeter does not implement (`-p`, `-i`, `-j`, `-I`, `-N`, `-y`, `-O`).
    #[error("not supported by diskmeter")]
    NotSupported,

    /// A switch DiskSpd does not have.
    #[error("unknown switch")]
    UnknownSwitch,

    /// `-b0`.
    #[error("the block size must be more than 0")]
    ZeroBlockSize,

    /// `-r0`.
    #[error("the random alignment must be more than 0")]
    ZeroAlignment,

    /// `-s` with a stride below the block size.
    #[error(
        "a sequential stride shorter than the block size (overlapping IOs) is not supported; \
         use at least -b"
    )]
    OverlappingStride,

    /// No target.
    #[error("give at least one target file or block device")]
    NoTarget,

    /// A count below its minimum, or not a number.
    #[error("'{text}' is not a whole number of at least {min}")]
    NotANumber {
        /// The value as given.
        text: String,
        /// The smallest value the switch takes.
        min: u64,
    },

    /// A count or rate larger than the job it maps onto can hold.
    #[error("'{text}' is more than {max}")]
    TooLarge {
        /// The value as given.
        text: String,
        /// The largest value the switch takes here.
        max: u64,
    },

    /// An empty argument where a target goes.
    #[error("an empty argument is not a target: give a file or block device")]
    EmptyTarget,

    /// A size that is not DiskSpd's `N[K|M|G|T|b]`.
    #[error("'{text}' is not a size: a number with K, M, G, T (x1024) or b (blocks)")]
    NotASize {
        /// The value as given.
        text: String,
    },

    /// The job option the switch maps onto refused the value.
    #[error(transparent)]
    Option(#[from] OptionError),
}
