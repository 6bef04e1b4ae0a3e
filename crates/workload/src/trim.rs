//! Trim IO (`rw=trim`, `randtrim`, `trimwrite`, `trim_*`) and what a job does when an IO fails (`continue_on_error`, `ignore_error`, `error_dump`).
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_trim.rs`.

use serde::{Deserialize, Serialize};

/// A job's trim settings and its IO-error policy.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TrimOptions {}
