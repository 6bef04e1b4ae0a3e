//! fio's `read_iolog` and `write_iolog` in the runner: a replay is another source of what the
//! worker issues (which file, offset, length and direction, and when it is intended), and a
//! recording is a version 3 log of what the worker issued.
//!
//! Planning reads the log once as a stream ([`scan`]): the files it names, how far into each
//! it reaches, its largest IO per direction (the engine's buffers) and its directions; it turns
//! the job into one on those files ([`plan_job`]). The worker then reads the log again, one
//! entry at a time ([`ReplaySource`]), so no log size costs more memory than a line.
//!
//! Timing (fio's `iolog.c` paces each IO by its gap to the previous one and after the previous
//! issue, so lateness accumulates: fio issues #772 and #1537): here each IO is intended at
//! `start + (timestamp - first timestamp) x 100 / replay_time_scale`, on the worker's clock,
//! and its `lat_intended` counts from then, as rate-limited IOs do; a late IO does not make
//! the later ones late.

mod record;
mod scan;
mod source;

pub use record::IoRecorder;
pub use scan::{check_reach, describe, plan_job, scan, LogScan};
pub use source::{ReplayIo, ReplayOp, ReplaySource};

use crate::RunError;
use diskmeter_workload::JobSpec;
use std::path::Path;

/// A worker's `read_iolog` and `write_iolog`, opened before the start gate so a bad log stops
/// the run before any IO. `target_paths` are the worker's targets as opened.
pub(crate) fn open_for_worker<'a>(
    job: &JobSpec,
    target_paths: impl Iterator<Item = &'a Path>,
) -> Result<(Option<ReplaySource>, Option<IoRecorder>), RunError> {
    // The planned job names the log's files in the order its targets were resolved.
    let logged: Vec<String> = job
        .filenames
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let replay = ReplaySource::open(job, &logged)?;
    let used: Vec<String> = target_paths.map(|p| p.display().to_string()).collect();
    let recorder = IoRecorder::create(job, &used)?;
    Ok((replay, recorder))
}
