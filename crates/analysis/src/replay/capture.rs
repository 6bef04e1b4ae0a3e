//! A saved capture's replay as `diskmeter replay` asks for it: the capture's checklist and
//! the traces of its chosen devices made into the workload of one level, or into the exact
//! replay of the traced IO stream, each with the job file's opening comment saying what was
//! replayed.

use super::{build_exact_replay, build_replay, exact_request, ExactError, LevelFigures};
use super::{ReplayError, ReplayRequest, ReplayWorkload, TracedShape};
use crate::requirements::{Checklist, Level, Requirements};
use diskmeter_capture::TraceProfile;

/// A capture with device samples, ready to replay.
#[derive(Debug, Clone)]
pub struct CaptureReplay<'a> {
    /// The capture's run id.
    id: i64,
    /// Its chosen devices joined with `+`.
    device: String,
    /// The whole capture's checklist.
    checklist: Checklist,
    /// The traces of the chosen devices that were traced.
    traces: Vec<&'a TraceProfile>,
}

/// Why a capture cannot be replayed: each is the user's to fix.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CaptureReplayError {
    /// The capture (or the chosen devices) has no sample to take figures from.
    #[error("capture {id} has no device samples: nothing to replay")]
    NoSamples {
        /// The capture.
        id: i64,
    },
    /// `--exact` cannot replay it.
    #[error(transparent)]
    Exact(#[from] ExactError),
    /// The level's workload cannot be built.
    #[error("capture {id} (device {device}): {error}")]
    Level {
        /// The capture.
        id: i64,
        /// Its devices joined with `+`.
        device: String,
        /// Why.
        #[source]
        error: ReplayError,
    },
}

/// A replay workload and the comment lines its job file opens with.
pub type CommentedWorkload = (ReplayWorkload, Vec<String>);

impl<'a> CaptureReplay<'a> {
    /// Capture `id` with the `requirements` of its chosen devices and all its `traces`.
    pub fn new(
        id: i64,
        requirements: Requirements,
        traces: &'a [TraceProfile],
    ) -> Result<CaptureReplay<'a>, CaptureReplayError> {
        let Requirements {
            devices,
            traced_devices,
            whole: checklist,
            ..
        } = requirements;
        if devices.is_empty() || checklist.intervals == 0 {
            return Err(CaptureReplayError::NoSamples { id });
        }
        let traces = (traces.iter())
            .filter(|t| traced_devices.contains(&t.device))
            .collect();
        Ok(CaptureReplay {
            id,
            device: devices.join("+"),
            checklist,
            traces,
        })
    }

    /// `--exact`: the traced IO stream onto `target` (or the emulated disk when `emulated`);
    /// `log_exists` says whether the trace's log is still there.
    pub fn exact(
        &self,
        target: Option<String>,
        emulated: bool,
        log_exists: impl Fn(&str) -> bool,
    ) -> Result<CommentedWorkload, CaptureReplayError> {
        let (id, device) = (self.id, &self.device);
        let request = exact_request(id, &self.traces, target, emulated, log_exists)?;
        let comments = vec![format!(
            "diskmeter replay --exact of capture {id} (device {device}): the traced IO stream"
        )];
        Ok((build_exact_replay(&request), comments))
    }

    /// The workload of the capture at `level`, of `size_bytes` for `runtime_ns`, with the
    /// random share `random_percent` where given.
    pub fn at_level(
        &self,
        level: Level,
        random_percent: Option<u8>,
        size_bytes: u64,
        runtime_ns: u64,
    ) -> Result<CommentedWorkload, CaptureReplayError> {
        let (id, device) = (self.id, &self.device);
        let request = ReplayRequest {
            name: format!("replay-{id}-{level}"),
            level: LevelFigures::from_checklist(&self.checklist, level),
            trace: TracedShape::from_traces(&self.traces),
            random_percent,
            size_bytes,
            runtime_ns,
        };
        let workload = build_replay(&request).map_err(|error| CaptureReplayError::Level {
            id,
            device: device.clone(),
            error,
        })?;
        Ok((workload, self.header(&request.level)))
    }

    /// The job file's opening comment: what was replayed, at which figures.
    fn header(&self, level: &LevelFigures) -> Vec<String> {
        let (id, device, intervals) = (self.id, &self.device, self.checklist.intervals);
        vec![
            format!(
                "diskmeter replay of capture {id} (device {device}, {intervals} intervals) at {}",
                level.level
            ),
            format!(
                "at {}: {:.1} r/s, {:.1} w/s, {:.1} f/s, aqu-sz {:.2}",
                level.level,
                level.read_iops,
                level.write_iops,
                level.flushes_per_sec,
                level.queue_depth
            ),
        ]
    }
}
