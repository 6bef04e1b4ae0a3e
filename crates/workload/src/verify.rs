//! fio's data verification options (`verify` and its family): what a written block carries and when it is read back and checked.
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_verify.rs`.

use serde::{Deserialize, Serialize};

/// How a job verifies the data it writes (fio `verify=`, `do_verify`, `verify_*`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct VerifyOptions {}
