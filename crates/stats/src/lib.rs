//! Measurement data of a run: latency histograms, per-interval series, queue-depth and CPU
//! accounting, exact merging of all of them across workers, and fio's per-IO log files.
//!
//! This crate holds numbers only. It knows nothing of job specs or devices, so the runner can
//! fill it on the hot path and the report crate can merge and present it; the log recorder
//! writes fio's text lines to whatever `Write` the runner opened for it.
//! Directions are [`Direction`]s of the shared vocabulary crate (`diskmeter_units`), the type
//! the workload model uses too, so this crate stays a leaf that every other crate may use.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod buckets;
pub mod confidence;
mod depth;
mod histogram;
mod interval;
mod iolog;
mod verify;
mod worker;

pub use diskmeter_units::Direction;

pub use confidence::{batch_means, compare_means, mann_whitney_p, MeanEstimate, Verdict};
pub use depth::{DepthDistribution, DEPTH_LABELS, SUBMIT_LABELS};
pub use histogram::{HistogramError, LatencyHistogram, MAX_LATENCY_NS, SIGNIFICANT_DIGITS};
pub use interval::{
    merge_direction, merge_series, resample_series, IntervalDirection, IntervalRecorder,
    IntervalSample,
};
pub use iolog::{
    fio_bucket_bounds, fio_bucket_index, CompletedIo, IoLogError, IoLogRecorder, LogFormat,
    LogKind, FIO_PLAT_BUCKETS, MAX_HIST_COARSENESS, MAX_PENDING_ENTRIES,
};
pub use verify::{VerifyFailure, VerifyStats, MAX_KEPT_VERIFY_FAILURES};
pub use worker::{ConnectionStats, CpuUsage, DirectionStats, IoErrorRecord, IoErrors, WorkerStats};
