//! Measurement data of a run: latency histograms, per-interval series, queue-depth and CPU
//! accounting, exact merging of all of them across workers, and fio's per-IO log files.
//!
//! This crate holds numbers only. It knows nothing of job specs or devices, so the runner can
//! fill it on the hot path and the report crate can merge and present it; the log recorder
//! writes fio's text lines to whatever `Write` the runner opened for it. Directions are
//! addressed by index, [`READ`] (0) and [`WRITE`] (1), the same numbering as
//! `diskmeter_workload::Direction::index()`; keeping the index here (rather than depending on the
//! workload crate) keeps this crate a leaf that every other crate may use.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod confidence;
mod depth;
mod histogram;
mod interval;
mod iolog;
mod worker;

pub use confidence::{batch_means, compare_means, mann_whitney_p, MeanEstimate, Verdict};
pub use depth::{DepthDistribution, DEPTH_LABELS, SUBMIT_LABELS};
pub use histogram::{HistogramError, LatencyHistogram, MAX_LATENCY_NS, SIGNIFICANT_DIGITS};
pub use interval::{merge_series, IntervalDirection, IntervalRecorder, IntervalSample};
pub use iolog::{CompletedIo, IoLogError, IoLogRecorder, LogKind, MAX_PENDING_ENTRIES};
pub use worker::{CpuUsage, DirectionStats, WorkerStats};

/// Index of the read direction in every two-element per-direction array of this crate.
pub const READ: usize = 0;
/// Index of the write direction in every two-element per-direction array of this crate.
pub const WRITE: usize = 1;
