//! `replay --exact`: the traced IO stream itself as a workload (fio's `read_iolog`), built as
//! fio options like the level replay, so the run and the emitted job file are one description.

use super::{depth_cut_note, iodepth, Builder, ReplayWorkload, REPLAY_ENGINE};
use diskmeter_capture::TraceProfile;

/// Why a capture cannot be replayed exactly: each is the user's to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExactError {
    /// No traced device wrote an iolog.
    #[error("--exact: capture {id} has no traced IO log to replay (capture --trace writes one)")]
    NoLog {
        /// The capture.
        id: i64,
    },
    /// Several traced devices wrote one: which to replay is the user's choice.
    #[error("--exact: capture {id} traced several devices ({}): pick one with --device", devices.join(", "))]
    SeveralDevices {
        /// The capture.
        id: i64,
        /// The devices with a log.
        devices: Vec<String>,
    },
    /// The log was removed since the capture.
    #[error("--exact: capture {id}'s traced IO log {log} is not there any more")]
    LogGone {
        /// The capture.
        id: i64,
        /// The log's path.
        log: String,
    },
    /// Nowhere to replay the traced offsets.
    #[error("--exact replays the traced offsets: give a TARGET (a file or device at least as large as the traced device) or --emulate")]
    NoTarget,
}

/// What `replay --exact` of capture `id` replays: the one traced device (of `traces`, the
/// chosen devices' profiles) that wrote an iolog, onto `target` (or the emulated disk the
/// run fills in when `emulated`). `log_exists` says whether the log is still there (the
/// caller looks: this module does no IO).
pub fn exact_request(
    id: i64,
    traces: &[&TraceProfile],
    target: Option<String>,
    emulated: bool,
    log_exists: impl Fn(&str) -> bool,
) -> Result<ExactRequest, ExactError> {
    let logged: Vec<&&TraceProfile> = traces.iter().filter(|t| t.iolog_path.is_some()).collect();
    let trace = match logged.as_slice() {
        [] => return Err(ExactError::NoLog { id }),
        [one] => **one,
        several => {
            return Err(ExactError::SeveralDevices {
                id,
                devices: several.iter().map(|t| t.device.clone()).collect(),
            })
        }
    };
    let log = trace.iolog_path.clone().unwrap_or_default();
    if !log_exists(&log) {
        return Err(ExactError::LogGone { id, log });
    }
    if target.is_none() && !emulated {
        return Err(ExactError::NoTarget);
    }
    Ok(ExactRequest {
        name: format!("replay-{id}-exact"),
        iolog_path: log,
        redirect: target,
        traced_max_queue_depth: trace.queue_depth.max,
    })
}

/// What `replay --exact` replays: the traced IO stream itself.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactRequest {
    /// The job's name (`replay-12-exact`).
    pub name: String,
    /// The fio iolog (version 3, with timestamps) the trace wrote.
    pub iolog_path: String,
    /// Where to replay it (`replay_redirect`): the log names the traced device.
    pub redirect: Option<String>,
    /// The deepest queue the trace saw at the device.
    pub traced_max_queue_depth: f64,
}

/// The workload that replays a trace's IO stream with its timing: fio's `read_iolog` (the log
/// gives every IO's time, direction, offset and size), redirected onto the target, with as
/// many IOs in flight as the traced device ever had.
pub fn build_exact_replay(request: &ExactRequest) -> ReplayWorkload {
    let mut out = Builder::default();
    out.push("name", request.name.clone());
    out.push("read_iolog", request.iolog_path.clone());
    if let Some(target) = &request.redirect {
        out.push("replay_redirect", target.clone());
    }
    let depth = iodepth(request.traced_max_queue_depth);
    out.push("iodepth", depth.to_string());
    out.push("direct", "1".to_string());
    out.push("ioengine", REPLAY_ENGINE.to_string());
    out.note(
        "exact: every traced IO at its traced time, direction, offset and size (fio's \
         read_iolog); the rate, mix and sizes are the trace's, not a level's"
            .to_string(),
    );
    out.note(format!(
        "iodepth {depth}: the deepest queue the trace saw ({:.0}), so the replay can keep \
         the traced timing where the target is as fast as the traced device",
        request.traced_max_queue_depth
    ));
    if let Some(note) = depth_cut_note(request.traced_max_queue_depth) {
        out.note(note);
    }
    ReplayWorkload {
        options: out.options,
        more_jobs: Vec::new(),
        notes: out.notes,
    }
}
