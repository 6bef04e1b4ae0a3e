//! What paces and ends a job beyond its size and runtime: think time, IO counts, latency targets, flow, waiting for and ending other jobs, and submission modes.
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_control.rs`.

use serde::{Deserialize, Serialize};

/// A job's pacing and ending rules (fio `thinktime`, `number_ios`, `latency_target`, `flow`, `wait_for`, `exitall`, `io_submit_mode`, zone stepping).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ControlOptions {}
