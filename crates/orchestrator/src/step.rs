//! What a command hands the orchestrator (a [`Batch`] of [`Step`]s) and what it gets back
//! (an [`Outcome`] of [`FinishedStep`]s).

use crate::error::OrchestrateError;
use crate::history::SavedRun;
use diskmeter_report::{RunInput, RunResult};
use diskmeter_workload::JobSpec;
use std::path::PathBuf;

/// The command a batch comes from; the history files runs under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandKind {
    /// `diskmeter run` (fio options or job files).
    Run,
    /// `diskmeter suite`.
    Suite,
    /// `diskmeter sweep`.
    Sweep,
    /// `diskmeter diskspd`.
    DiskSpd,
    /// `diskmeter iometer`.
    Iometer,
    /// `diskmeter replay` (a workload built from a capture).
    Replay,
}

impl CommandKind {
    /// The name the history stores ("run", "suite", ...).
    pub fn as_str(self) -> &'static str {
        match self {
            CommandKind::Run => "run",
            CommandKind::Suite => "suite",
            CommandKind::Sweep => "sweep",
            CommandKind::DiskSpd => "diskspd",
            CommandKind::Iometer => "iometer",
            CommandKind::Replay => "replay",
        }
    }
}

/// One step: a resolved workload (its jobs say how they end: runtime, size or steady state)
/// that runs as one diskmeter run and gives one result.
#[derive(Debug, Clone)]
pub struct Step {
    /// Its name in tables and the history ("SEQ1M Q8T1 read", a sweep point's name).
    pub name: String,
    /// The jobs, run together (stonewall phases inside them as fio's).
    pub jobs: Vec<JobSpec>,
}

impl Step {
    /// The step `name` running `jobs`.
    pub fn new(name: impl Into<String>, jobs: Vec<JobSpec>) -> Step {
        Step {
            name: name.into(),
            jobs,
        }
    }
}

/// The steps of one command, run one after another.
#[derive(Debug, Clone)]
pub struct Batch {
    /// Which command.
    pub kind: CommandKind,
    /// The name the history lists (a suite's name); `None`: the first step's name (a plain
    /// run's step is named after its jobs).
    pub name: Option<String>,
    /// The target the history lists; `None`: the first file or device the first step used.
    pub target: Option<PathBuf>,
    /// The command line as given, for the history.
    pub command_line: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Test files several steps share (a suite's or sweep's file, an Iometer `iobw.tst`):
    /// those that did not exist when the batch started are removed at its end, also after an
    /// error or an interrupt, unless files are kept.
    pub shared_files: Vec<PathBuf>,
    /// Files the batch exists to warm (a warm-up suite's file): kept at its end whoever
    /// made them (the warmth is the point), and recorded in the history as warm, with the
    /// boot they belong to, when every step ran to its end.
    pub warms: Vec<PathBuf>,
    /// The capture a replay replays: saved with the run, so the run links its capture.
    pub capture_id: Option<i64>,
}

impl Batch {
    /// A batch of `kind` with these steps and nothing else set.
    pub fn new(kind: CommandKind, steps: Vec<Step>) -> Batch {
        Batch {
            kind,
            name: None,
            target: None,
            command_line: std::env::args().collect::<Vec<_>>().join(" "),
            steps,
            shared_files: Vec::new(),
            warms: Vec::new(),
            capture_id: None,
        }
    }
}

/// A step that ran (to its end, or until an interrupt or a failure).
#[derive(Debug, Clone)]
pub struct FinishedStep {
    /// Its position in the batch, 0-based.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// The workers' results as measured (the histograms the history merges come from here).
    /// On rank 0 of a run across hosts, rank 0's own, while `result` is every rank's merge.
    pub input: RunInput,
    /// The result in the one schema.
    pub result: RunResult,
    /// Why workers or log files failed, one line each; empty when none did.
    pub errors: Vec<String>,
}

impl FinishedStep {
    /// An interrupt cut the step short.
    pub fn partial(&self) -> bool {
        self.input.meta.partial
    }

    /// A worker failed (an IO error, a missed `rate_min`) or a log file could not be written.
    pub fn failed(&self) -> bool {
        !self.errors.is_empty()
    }
}

/// What a session's run of a batch gave.
#[derive(Debug)]
pub struct Outcome {
    /// The steps that ran, in order.
    pub steps: Vec<FinishedStep>,
    /// How many steps the batch had.
    pub planned_steps: usize,
    /// It was a dry run: plans were delivered, nothing ran.
    pub dry_run: bool,
    /// An interrupt (Ctrl-C, SIGTERM) stopped it; the last step is partial or never began.
    pub interrupted: bool,
    /// Why the batch stopped before its end, other than an interrupt or a failed step (a
    /// refused target, a step that could not be planned, a failed layout).
    pub error: Option<OrchestrateError>,
    /// Where the history keeps it, when it was saved.
    pub saved: Option<SavedRun>,
    /// Why it could not be saved in the history (the run itself is unaffected).
    pub history_error: Option<crate::history::HistorySaveError>,
    /// Shared test files the session made but could not remove, with why.
    pub leftover_files: Vec<(PathBuf, std::io::Error)>,
    /// Test files of diskmeters that were killed before they could remove them, removed
    /// before this batch ran.
    pub swept_files: Vec<PathBuf>,
}

/// How a batch ended, from which the command's exit code follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeStatus {
    /// Every step ran to its end (or the dry run planned them all).
    Completed,
    /// Interrupted: what finished was delivered.
    Interrupted,
    /// A step failed, could not run, or the history could not save it.
    Failed,
    /// A step's options were invalid: nothing ran.
    Usage,
}

impl Outcome {
    /// How the batch ended. An error that is a usage error wins (nothing ran), then an
    /// interrupt, then any failure.
    pub fn status(&self) -> OutcomeStatus {
        if self.error.as_ref().is_some_and(OrchestrateError::is_usage) {
            OutcomeStatus::Usage
        } else if self.interrupted {
            OutcomeStatus::Interrupted
        } else if self.error.is_some()
            || self.history_error.is_some()
            || self.steps.iter().any(FinishedStep::failed)
        {
            OutcomeStatus::Failed
        } else {
            OutcomeStatus::Completed
        }
    }

    /// The results of the finished steps, in order.
    pub fn results(&self) -> impl Iterator<Item = &RunResult> {
        self.steps.iter().map(|s| &s.result)
    }
}
