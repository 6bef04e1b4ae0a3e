//! One result schema and its exporters.
//!
//! The CLI converts the runner's per-worker output into a [`RunInput`]; [`RunResult::build`]
//! merges workers (fio's `group_reporting`) and derives every reported figure once; the
//! [`merge::merge_ranks`] merges the results of several hosts (ranks) exactly; the
//! exporters only format: [`render_terminal`] for people, [`to_json`] for diskmeter's own schema
//! (the one the history database stores) and [`to_fio_json`] for tools written for fio.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod build;
mod diskspd;
mod figures;
pub mod fio_bins;
mod fio_json;
mod fio_terse;
pub mod format;
mod headline;
mod histograms;
mod input;
mod iometer_csv;
mod iometer_summary;
mod legacy;
pub mod merge;
pub mod output_format;
mod record;
mod scale_out;
mod schema;
mod steady;
mod terminal;

pub use build::LAT_BUCKET_EDGES_NS;
pub use diskspd::{render_diskspd, render_diskspd_text, render_diskspd_xml, DiskSpdHeader};
pub use figures::StepFigures;
pub use fio_json::{to_fio_json, to_fio_json_plus, LAT_INTENDED_KEY as FIO_JSON_LAT_INTENDED_KEY};
pub use fio_terse::{to_fio_terse, TerseVersion};
pub use headline::{HeadlineLatency, LatencyClock};
pub use histograms::{
    DecodeError, DirectionHistograms, EncodedHistogram, JobHistograms, HISTOGRAM_KINDS,
};
pub use input::{JobInput, RankInfo, RunInput, RunMeta, SteadyStateInput, TargetInfo};
pub use iometer_csv::{
    render_iometer_csv, IometerCsvManager, IometerCsvStep, IometerCsvWorker, IOMETER_CSV_HEADER,
};
pub use iometer_summary::{iometer_results, iometer_summary};
pub use legacy::upgrade_json;
pub use record::to_job_file;
pub use scale_out::{PhaseStart, RankFigures, ScaleOut};
pub use schema::{
    ConfidenceInterval, ConnectionResult, IoErrorSummary, LatencyTargetResult, SteadyStateResult,
};
pub use schema::{
    CpuResult, DepthResult, DirectionResult, GroupDirection, GroupResult, JobOption, JobResult,
    JobWorkload, LabeledPercent, LatencyBucket, LatencySummary, Percentile, RunResult, SampleStats,
    VerifyResult, SCHEMA_VERSION,
};
pub use terminal::render_terminal;

use thiserror::Error;

/// Why a result could not be read back.
#[derive(Debug, Error)]
pub enum ReportError {
    /// The text is not JSON, or not JSON of the result schema its version names.
    #[error("not a diskmeter result: {0}")]
    Json(#[from] serde_json::Error),
    /// The JSON has no `schema_version`: it is not a diskmeter result (fio's JSON, say).
    #[error("not a diskmeter result: it has no schema_version")]
    NotAResult,
    /// The result is of another schema version than the one asked for: a newer diskmeter's,
    /// or an older one that [`upgrade_json`] reads.
    #[error("diskmeter result schema {found}, but this diskmeter reads schema {known}{}", if *found < *known { " (older results are upgraded when the history opens them)" } else { ": use a newer diskmeter" })]
    UnknownVersion {
        /// The document's version.
        found: u32,
        /// The version this build reads.
        known: u32,
    },
}

/// diskmeter's own JSON: the [`RunResult`] schema, pretty-printed.
pub fn to_json(result: &RunResult) -> String {
    // The schema has only string map keys and finite-or-null floats, so serializing cannot fail.
    serde_json::to_string_pretty(result).expect("RunResult always serializes")
}

/// Reads back what [`to_json`] wrote: a result of this build's [`SCHEMA_VERSION`] only
/// ([`upgrade_json`] reads older ones).
pub fn from_json(text: &str) -> Result<RunResult, ReportError> {
    let doc: serde_json::Value = serde_json::from_str(text)?;
    match legacy::schema_version(&doc)? {
        SCHEMA_VERSION => Ok(serde_json::from_value(doc)?),
        found => Err(ReportError::UnknownVersion {
            found,
            known: SCHEMA_VERSION,
        }),
    }
}
