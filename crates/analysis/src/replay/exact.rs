//! `replay --exact`: the traced IO stream itself as a workload (fio's `read_iolog`), built as
//! fio options like the level replay, so the run and the emitted job file are one description.

use super::{depth_cut_note, iodepth, Builder, ReplayWorkload, REPLAY_ENGINE};

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
