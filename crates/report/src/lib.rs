//! One result schema and its exporters.
//!
//! The CLI converts the runner's per-worker output into a [`RunInput`]; [`RunResult::build`]
//! merges workers (fio's `group_reporting`) and derives every reported figure once; the
//! exporters only format: [`render_terminal`] for people, [`to_json`] for diskmeter's own schema
//! (the one the history database stores) and [`to_fio_json`] for tools written for fio.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod build;
mod diskspd;
mod fio_json;
pub mod format;
mod input;
mod schema;
mod steady;
mod terminal;

pub use build::LAT_BUCKET_EDGES_NS;
pub use diskspd::{render_diskspd_text, render_diskspd_xml, DiskSpdHeader};
pub use fio_json::to_fio_json;
pub use input::{JobInput, RunInput, RunMeta, SteadyStateInput, TargetInfo};
pub use schema::{ConfidenceInterval, SteadyStateResult};
pub use schema::{
    CpuResult, DepthResult, DirectionResult, GroupDirection, GroupResult, JobResult,
    LabeledPercent, LatencyBucket, LatencySummary, Percentile, RunResult, SampleStats,
    SCHEMA_VERSION,
};
pub use terminal::render_terminal;

use thiserror::Error;

/// Why a result could not be read back.
#[derive(Debug, Error)]
pub enum ReportError {
    /// The text is not JSON of diskmeter's result schema (wrong file, or a newer schema).
    #[error("not a diskmeter result: {0}")]
    Json(#[from] serde_json::Error),
}

/// diskmeter's own JSON: the [`RunResult`] schema, pretty-printed.
pub fn to_json(result: &RunResult) -> String {
    // The schema has only string map keys and finite-or-null floats, so serializing cannot fail.
    serde_json::to_string_pretty(result).expect("RunResult always serializes")
}

/// Reads back what [`to_json`] wrote.
pub fn from_json(text: &str) -> Result<RunResult, ReportError> {
    Ok(serde_json::from_str(text)?)
}
