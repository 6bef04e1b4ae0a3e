//! One place runs the steps of every command that does IO.
//!
//! A command (`run`, `suite`, `sweep`, `diskspd`, `iometer`; later replay and an MPI rank's
//! share) parses its input into a [`Batch`] of [`Step`]s — a plain run is one step, a suite
//! N, a sweep a grid — and hands it to a [`Session`]. The session owns everything between
//! parsing and rendering, once for every command:
//!
//! 1. validation of every step before any runs (a bad step 5 must not cost steps 1-4),
//! 2. planning ([`diskmeter_runner::resolve`]) and the guards ([`diskmeter_runner::guard`]):
//!    the safety checks that refuse to destroy data and the memory guard that refuses buffers
//!    larger than the memory available; a batch of several steps is planned and guarded
//!    whole before its first step runs, so a refusal comes before any IO (a dry run shows
//!    the memory guard's refusal as a note),
//! 3. the environment: an emulated cloud disk made for the session and removed after it, the
//!    in-engine throttle's caps, and the stop signal (Ctrl-C, SIGTERM) installed once per
//!    process ([`signals`]),
//! 4. running each step and converting the runner's per-worker output into the one result
//!    schema ([`diskmeter_report::RunResult`]),
//! 5. delivering each finished step to [`Sink`]s as it finishes — the command's own
//!    renderers and progress views, and the results history, which every session feeds
//!    through one path ([`history`]) unless told not to; a session that saves also writes
//!    its running steps' counters once a second for the dashboard (`live.rs`),
//! 6. cleaning up the shared test files the batch created; the test files a run means to
//!    remove are recorded before they are made, so the next run removes those of a process
//!    that was killed before it could ([`leftovers`]).
//!
//! In a run across hosts ([`Settings::rank`], [`Settings::cluster`]) the session runs the
//! batch as its rank: `$rank` and friends in the jobs' paths are replaced, every stonewall
//! phase starts at a barrier of all ranks (the runner's `PhaseGate`), one rank's failure
//! stops every rank, and rank 0 merges each step ([`Ranks`] is the transport; `ranks.rs`
//! the protocol, `scale_out.rs` the gate and the merge).
//!
//! A capture (`diskmeter capture`) runs no steps but is a session too: [`run_capture`]
//! samples the devices' counters (and traces them when asked) until its duration or the
//! stop signal, hands each interval to the command's [`CaptureView`] and saves it in the
//! history as it goes (`capture_session.rs`).
//!
//! A rehearsal (`plan --rehearse`, [`rehearse`]) is a session too: it builds the planned
//! configuration from emulated disks striped by btrfs (`diskmeter_emulate::stripe`), runs the
//! requirement's workload on it under the VM's cap, and removes the volume when it ends.
//!
//! An interrupt ends the current step as partial and skips the rest; what finished is
//! delivered and saved, files are removed. The command then renders the [`Outcome`] and
//! picks the exit code from [`Outcome::status`].

#![forbid(unsafe_code)]

mod capture_session;
mod convert;
mod emulation;
mod error;
pub mod history;
mod job_files;
mod leftovers;
mod live;
mod ranks;
mod rehearse;
mod scale_out;
mod session;
pub mod signals;
mod sink;
mod step;
mod test_file;

pub use capture_session::{
    run_capture, sampler_config, CaptureOutcome, CaptureRunError, CaptureSettings, CaptureView,
    SamplingError,
};
/// Whether a path is a block device: the one test every command uses to tell a device
/// target from a file.
pub use diskmeter_engine::sys::is_block_device;
pub use diskmeter_history::Warmup;
pub use diskmeter_runner::prepare::RunPlan;
pub use diskmeter_runner::{LiveCounters, ServiceTime, ThrottleLimits};
pub use diskmeter_workload::rank::RankPlace;
pub use emulation::{EmulateRequest, HeldEmulation};
pub use error::OrchestrateError;
pub use history::{
    save_linked, CaptureHeader, CaptureRecorder, HistoryChoice, HistorySaveError, LinkedRecord,
    SavedRun,
};
pub use job_files::FileSources;
pub use ranks::{Ranks, RanksError};
pub use rehearse::{rehearse, Rehearsal, RehearseRequest};
pub use session::{progress_goal, ProgressGoal, Session, Settings, Warmth};
pub use sink::{Note, Sink, SinkError, StepContext};
pub use step::{Batch, CommandKind, FinishedStep, Outcome, OutcomeStatus, Step};
pub use test_file::{default_suite_file_bytes, test_file};
