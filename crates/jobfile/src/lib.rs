//! Front-ends that turn what users already have into diskmeter jobs: fio job files, DiskSpd
//! command lines and Iometer access specifications with the guides' scenario tables.
//!
//! Every error names the file, the line and the option. Nothing here does IO: files and
//! environment variables arrive through [`fio::Sources`].
#![forbid(unsafe_code)]

pub mod diskspd;
pub mod fio;
pub mod iometer;
pub mod refusals;

use diskmeter_workload::OptionError;
use thiserror::Error;

/// fio's `rw` for a front-end's workload that is random or sequential with this share of
/// reads (DiskSpd's `-r`/`-s` and `-w`, Iometer's % random and % reads): reads, writes, or both
/// (the mix is `rwmixread`/`rwmixwrite`, a partly random mix `percentage_random`).
pub(crate) fn rw_for(random: bool, read_percent: u8) -> &'static str {
    match (random, read_percent) {
        (false, 100) => "read",
        (false, 0) => "write",
        (false, _) => "rw",
        (true, 100) => "randread",
        (true, 0) => "randwrite",
        (true, _) => "randrw",
    }
}

/// A problem in a job file, located.
#[derive(Debug, Error)]
#[error("{file}:{line}: {}{problem}", option.as_ref().map(|o| format!("{o}: ")).unwrap_or_default())]
pub struct JobFileError {
    /// The file as named.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// The option on that line, if the problem is one option.
    pub option: Option<String>,
    /// What is wrong, and what to write instead.
    #[source]
    pub problem: JobFileProblem,
}

impl JobFileError {
    /// A real fio option that diskmeter does not implement (a warning with
    /// `--ignore-unsupported`).
    pub fn unsupported(&self) -> bool {
        matches!(
            self.problem,
            JobFileProblem::Unsupported { .. } | JobFileProblem::Refused { .. }
        )
    }

    /// A warning rather than an error: an unsupported option skipped under
    /// `--ignore-unsupported`, one fio itself ignores, or a value read as fio reads it.
    pub fn skipped(&self) -> bool {
        matches!(
            self.problem,
            JobFileProblem::Unsupported { skipped: true, .. }
                | JobFileProblem::Refused { skipped: true, .. }
                | JobFileProblem::ReadAsFio { .. }
        )
    }
}

/// What is wrong on a job-file line.
#[derive(Debug, Error)]
pub enum JobFileProblem {
    /// `[` without a name and `]`.
    #[error("a section header is [name] with a name")]
    SectionHeader,

    /// `include` nested deeper than [`fio::MAX_INCLUDE_DEPTH`].
    #[error(
        "include {path}: nested more than {} deep (a loop?)",
        fio::MAX_INCLUDE_DEPTH
    )]
    IncludeTooDeep {
        /// The path as written.
        path: String,
    },

    /// An `include` of a file that is being read: it would include itself without end.
    #[error("include {path}: an include loop ({chain})")]
    IncludeLoop {
        /// The path as written.
        path: String,
        /// The files being read when it came, outermost first, and the file again.
        chain: String,
    },

    /// More `include`s than [`fio::MAX_INCLUDES`] in one job file.
    #[error(
        "include {path}: more than {} includes in one job file (files that include each \
         other several times?)",
        fio::MAX_INCLUDES
    )]
    TooManyIncludes {
        /// The path as written.
        path: String,
    },

    /// An `include` whose file cannot be had.
    #[error("include {path}: {source}")]
    Include {
        /// The path as written.
        path: String,
        /// Why the sources could not give it.
        #[source]
        source: fio::IncludeError,
    },

    /// `=value` with no key.
    #[error("an option line is key=value or key")]
    NoKey,

    /// A `$` variable that cannot be expanded.
    #[error(transparent)]
    Variable(#[from] fio::ExpandError),

    /// An option before any section.
    #[error("outside any [section]: put it under [global] or a job")]
    OutsideSection,

    /// A real fio option diskmeter does not implement.
    #[error(
        "fio option '{name}' is not supported by diskmeter{}",
        if *skipped { ": skipped" } else { " (--ignore-unsupported skips it with a warning)" }
    )]
    Unsupported {
        /// The option's name.
        name: String,
        /// Skipped with a warning (`--ignore-unsupported`) rather than refused.
        skipped: bool,
    },

    /// A real fio option (or value) that cannot apply in diskmeter, with the reason.
    #[error(
        "fio option '{name}' cannot apply in diskmeter: {reason}{}",
        if *skipped { "; skipped" } else { " (--ignore-unsupported skips it with a warning)" }
    )]
    Refused {
        /// The option's name.
        name: String,
        /// Why it cannot apply.
        reason: refusals::Refusal,
        /// Skipped with a warning (`--ignore-unsupported`) rather than refused.
        skipped: bool,
    },

    /// A name neither diskmeter nor fio knows.
    #[error(
        "unknown option '{name}'{}",
        suggestion.map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default()
    )]
    UnknownOption {
        /// The name as written.
        name: String,
        /// The nearest option name, diskmeter's or fio's.
        suggestion: Option<&'static str>,
    },

    /// A value fio 3.33 reads other than written (`runtime=30sec`: 30 us), read as fio
    /// reads it: a warning, never an error. `note` starts with the option and value.
    #[error("{note}")]
    ReadAsFio {
        /// `runtime=30sec: read as fio 3.33 reads it, 30us (...); write 30s for 30 seconds`.
        note: String,
    },

    /// An option diskmeter knows, with a value it cannot use.
    #[error(transparent)]
    Option(OptionError),
}
