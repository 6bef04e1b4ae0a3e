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

    /// `-Sm` / `-N` / `<MemoryMappedIo>`.
    #[error("memory-mapped IO (-Sm, and its flush modes -N) is not supported: diskmeter's engines issue reads and writes")]
    MemoryMapped,

    /// A caching mode letter DiskSpd does not have.
    #[error("caching modes are b, h, m, r, u, w (and d, s of DiskSpd for Linux)")]
    CachingMode,

    /// `-R` with a form other than text or xml.
    #[error("the output forms are text and xml")]
    OutputForm,

    /// `-Z<size>,<file>` / `<RandomDataSource><FilePath>`.
    #[error("a write source read from a file is not supported (the writes' content would differ): use -Z<size> or -Zr for random content")]
    BufferFromFile,

    /// `-I` other than 1-3.
    #[error("the IO priorities are 1 (very low), 2 (low) and 3 (normal)")]
    Priority,

    /// `-p` / `<ParallelAsyncIO>`.
    #[error("parallel IOs from the same offset (-p) have no counterpart in diskmeter's engines; leave -p out")]
    ParallelSameOffset,

    /// `-ye`.
    #[error(
        "-ye only sets a Windows named event for other DiskSpd processes: there is nothing to run"
    )]
    Events,

    /// `-?`.
    #[error("for the switches see diskmeter diskspd --help and docs/guide/2-job-files.md")]
    Help,

    /// `-ag1,...`: a processor group above 0.
    #[error("processor groups are Windows'; Linux numbers CPUs from 0 across the machine: give -a with Linux CPU numbers")]
    ProcessorGroup,

    /// `-n` with `-a`.
    #[error("-n and -a cannot be used together")]
    AffinityConflict,

    /// A bad `-rdpct` / `-rdabs`.
    #[error("random distribution: {why}")]
    Distribution {
        /// What is wrong.
        why: String,
    },

    /// `-rd` on sequential IO.
    #[error("random distributions (-rd) apply to random IO: add -r")]
    DistributionSequential,

    /// `-i` without `-j` or the other way round.
    #[error("a burst (-i) needs a think time (-j), and a think time a burst")]
    BurstWithoutThink,

    /// `X:` or `X:\path` that does not exist here.
    #[error("a Windows drive path: give a file or block device path of this machine")]
    WindowsDrive,

    /// `-X` with nothing after it.
    #[error("give the XML profile's file: -X<file> or -X <file>")]
    NoProfile,

    /// The profile could not be read.
    #[error("cannot read the profile '{file}': {why}")]
    CannotRead {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },

    /// The profile is not well-formed XML.
    #[error("the profile is not XML: {why}")]
    NotXml {
        /// The parser's message.
        why: String,
    },

    /// A problem with an element of the profile.
    #[error("<{element}> at line {line}: {why}")]
    Xml {
        /// The element's name.
        element: String,
        /// Its line, from 1.
        line: u32,
        /// What is wrong.
        why: String,
    },

    /// `-X` with switches that describe the workload.
    #[error("the workload comes from the profile with -X: only -d, -W, -C, -z, -R, -v, -P, -L (and targets for template paths) may be given with it")]
    XmlWithSwitches,

    /// Targets on the command line with a profile that has no template paths.
    #[error(
        "targets after -X replace the profile's template paths *1, *2 ...; this profile has none"
    )]
    NoTemplates,

    /// A switch DiskSpd does not have.
    #[error("unknown switch")]
    UnknownSwitch,

    /// `-b0`.
    #[error("the block size must be more than 0")]
    ZeroBlockSize,

    /// `-r0` / `-s0`.
    #[error("the alignment or stride must be more than 0")]
    ZeroAlignment,

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
