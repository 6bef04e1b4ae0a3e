//! Where and how a job's threads and engine run: CPU and NUMA placement, priorities, io_uring and libaio engine options, commands run before and after, and the accepted reporting options (`gtod_reduce`, `clocksource`, histogram logs, ...).
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_system.rs`.

use serde::{Deserialize, Serialize};

/// A job's placement, priority, engine and reporting settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SystemOptions {}
