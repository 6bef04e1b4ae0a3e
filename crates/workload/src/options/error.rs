//! [`InvalidValue`]: why a value of the right form cannot be used for its option. It is the
//! reason inside [`crate::OptionError::Invalid`], which adds the option and value as written.

use super::limits::LimitError;
use crate::patterns::PatternError;
use crate::steady::SteadyStateError;
use diskmeter_units::UnitError;
use thiserror::Error;

/// Why a value cannot be used for its option.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum InvalidValue {
    /// Outside the range in the option's table row.
    #[error(transparent)]
    Limit(#[from] LimitError),

    /// A count that does not fit the job's field (32 bits).
    #[error("must be at most {max}")]
    TooLarge {
        /// The largest value the field holds.
        max: u64,
    },

    /// A word that is not one of the option's choices.
    #[error(
        "use one of {}{}",
        choices.join(", "),
        suggestion.map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default()
    )]
    NotAChoice {
        /// The choices the option takes.
        choices: &'static [&'static str],
        /// The nearest choice, when the word looks like a misspelling of one.
        suggestion: Option<&'static str>,
    },

    /// `4k-64k` or `4k:64k` where a read,write pair is expected: fio would silently read it as
    /// read 4k, write 64k.
    #[error(
        "separate the read and write values with ',' (e.g. 4k,64k); for a range of sizes use \
         bsrange=4k-64k"
    )]
    PairSeparator,

    /// `,` alone: a pair with neither direction.
    #[error("give a value for reads, writes or both (e.g. 4k,64k)")]
    PairEmpty,

    /// More than read,write(,trim).
    #[error("at most two values: read,write (e.g. 4k,64k)")]
    PairTooMany,

    /// A per-direction pattern (`bsrange`, `bssplit`) with neither direction.
    #[error("give a value for reads, writes or both")]
    DirectionsEmpty,

    /// A blank job name.
    #[error("a job name can't be empty")]
    EmptyName,

    /// An empty entry in a `filename` list.
    #[error("a file name is empty (filename takes paths separated by ':')")]
    EmptyFileName,

    /// A blank `directory`.
    #[error("the directory can't be empty")]
    EmptyDirectory,

    /// fio's list of several directories.
    #[error(
        "give one directory (fio's ':'-separated list of several is not supported; write '\\:' \
         for a ':' in the name)"
    )]
    SeveralDirectories,

    /// The number after `rw=...:` is not one.
    #[error("after ':': {0}")]
    RwSuffix(#[source] UnitError),

    /// The number after `rw=...:` does not fit a signed 64-bit byte count.
    #[error("after ':': the skip is larger than 8 EiB")]
    RwSuffixTooLarge,

    /// An `ignore_error` list fio would refuse.
    #[error(transparent)]
    IgnoreError(#[from] crate::trim::IgnoreErrorProblem),

    /// `rw=randread:-N`: a negative suffix only means something for sequential IO.
    #[error(
        "after ':': a negative number (backwards IO) applies only to sequential IO \
         (read, write, rw); a random job's :N is a count of IOs"
    )]
    NegativeRandomSuffix,

    /// A `filesize` end the size parser refused.
    #[error(transparent)]
    FileSize(UnitError),

    /// A `filesize` of 0 bytes.
    #[error("file sizes must be at least 1 byte")]
    ZeroFileSize,

    /// A `bsrange`, `bssplit` or `random_distribution` problem.
    #[error(transparent)]
    Pattern(#[from] PatternError),

    /// A `steadystate` problem.
    #[error(transparent)]
    SteadyState(#[from] SteadyStateError),

    /// A `verify` kind or `verify_pattern` problem.
    #[error(transparent)]
    Verify(#[from] diskmeter_verify::VerifyError),
    /// A files or buffer option's value (`file_service_type`, `buffer_pattern`, `mem`, ...).
    #[error(transparent)]
    Files(#[from] crate::files::FilesError),
    /// A system option's problem (placement, priorities, engine options).
    #[error(transparent)]
    System(#[from] crate::system::SystemValueError),

    /// A value that must be a power of two (`replay_align`).
    #[error("must be a power of two (or 0 for none)")]
    NotPowerOfTwo,

    /// A size in zones (`size=8z`) before any `zonesize` was set.
    #[error(
        "a size in zones (the z suffix) needs a zonesize set before it (zonemode=zbd and \
         zonesize in [global] or earlier in the job)"
    )]
    ZonesWithoutZoneSize,

    /// `zone_reset_threshold` / `zone_reset_frequency` outside 0 to 1.
    #[error("must be from 0 to 1 (a share of the zones' bytes or of the writes)")]
    ZoneFraction,

    /// The table pairs the option with a setter of another value kind: a defect the
    /// per-option tests keep out, never the user's input.
    #[error("internal error: unexpected value {value} for this option")]
    KindMismatch {
        /// The value as parsed (debug form).
        value: String,
    },
}
