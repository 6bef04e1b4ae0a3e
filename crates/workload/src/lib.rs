//! The typed description of a run: what each job reads or writes, where, how hard and for how
//! long, and the fio options that build it.
//!
//! * [`spec`]: [`JobSpec`] and its parts, pure data.
//! * [`options`]: the option table ([`all_options`]) that drives parsing, `--help` and the docs;
//!   each option's range ([`Limits`]) is written once, in its row.
//! * [`apply_option`] and [`jobs_from_options`]: fio option text into jobs, with fio's
//!   command-line rules for `name=` and every error collected.
//! * [`validate`]: whether a job makes sense as a whole; [`describe`]: a job back as options.
//! * [`steady`]: steady-state detection settings and [`JobSpec::with_auto_stop`].
//! * [`given`]: the options as typed, for fio's `"job options"` and `"global options"`.
//! * [`rank`]: a job as one rank of a run across hosts runs it ([`rank::RankPlace`]).
//!
//! Nothing here does IO: parsing and validation are pure functions of their input (STYLE
//! rule 2, "spec, then plan, then run").
#![forbid(unsafe_code)]

mod apply;
pub mod byte_pattern;
pub mod compat;
pub mod control;
mod describe;
pub mod files;
pub mod given;
pub mod iolog;
mod jobs;
mod modes;
pub mod options;
pub mod patterns;
pub mod rank;
pub mod spec;
pub mod steady;
pub mod system;
pub mod trim;
mod validate;
pub mod verify;
pub mod zones;

pub use apply::{apply_option, apply_option_exact, OptionError};
pub use compat::{fio_reading_notes, CompatOptions};
pub use describe::{describe, describe_against, ALWAYS_DESCRIBED};
pub use diskmeter_units::KbBase;
pub use given::GivenOptions;
pub use iolog::{IologOptions, ReplaySkip, UnknownSkipWord};
pub use jobs::{command_line_jobs, job_file_defaults, job_names, jobs_from_options};
pub use jobs::{jobs_from_options_over, mark_value_readings};
pub use options::{
    all_options, find_option, limits_of, nearest, suggest_option, Category, InvalidValue,
    LimitError, Limits, OptionDef, OptionKind, Range, COMMON_OPTIONS, MAX_FILES_PER_RUN,
    MAX_WORKERS_PER_RUN,
};
pub use patterns::{
    fit_abs_zones, AbsZone, BlockSizeShare, BlockSizeSpread, FittedZone, PatternError,
    RandomDistribution, Zone, ZoneFitError, ZonesPastEnd,
};
pub use spec::{
    Direction, EngineKind, JobSpec, PerDirection, RwMode, SyncMode, DEFAULT_PERCENTILES,
    DEFAULT_SERIES_INTERVAL_MS,
};
pub use steady::{
    parse_steadystate, AutoStop, SteadyCriterion, SteadyLimit, SteadyState, SteadyStateError,
    STEADY_SAMPLE_NS,
};
pub use validate::{validate, ValidationError, DIRECT_ALIGNMENT};
