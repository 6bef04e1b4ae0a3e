//! How a job's files are named, created, opened and laid out (`filename_format`, `openfiles`, `file_service_type`, `fallocate`, `overwrite`, `lockfile`, ...) and what data its write buffers hold (`buffer_pattern`, `dedupe_*`).
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_files.rs`.

use serde::{Deserialize, Serialize};

/// A job's file handling and buffer contents.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FileOptions {}
