//! Where and how a job's threads and engine run: CPU and NUMA placement, priorities, io_uring and libaio engine options, commands run before and after, and the accepted reporting options (`gtod_reduce`, `clocksource`, histogram logs, ...).
//!
//! Part of [`crate::JobSpec`]; its options are the rows of `options/rows_system.rs`.

use serde::{Deserialize, Serialize};

/// A job's placement, priority, engine and reporting settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SystemOptions {
    /// Write fio's completion-latency histogram log to `PREFIX_clat_hist.N.log` (fio
    /// `write_hist_log`); an empty prefix is the job's name. Lines only with `log_hist_msec`.
    pub write_hist_log: Option<String>,
    /// A histogram line per direction every this many ms (fio `log_hist_msec`); 0 = none.
    pub log_hist_msec: u32,
    /// 2^this of fio's latency bins per histogram-log column (fio `log_hist_coarseness`,
    /// 0 to 6: 1856 to 29 columns).
    pub log_hist_coarseness: u32,
}
