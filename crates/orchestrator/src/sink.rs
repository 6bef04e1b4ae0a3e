//! Where a session delivers what happens: the [`Sink`] trait, with a default for every
//! event so a sink implements only what it shows (as ripgrep's `Sink`).
//!
//! Commands give the session their sinks (a terminal or JSON renderer, a progress bar, the
//! notes on stderr); the session adds the history itself, so no command can forget to save.

use crate::session::ProgressGoal;
use crate::step::{Batch, FinishedStep, Outcome};
use diskmeter_runner::prepare::RunPlan;
use diskmeter_runner::LiveCounters;
use std::path::Path;
use std::sync::Arc;

/// Why a sink could not take an event (its output could not be written).
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// Writing the output failed.
    #[error("cannot write {what}: {source}")]
    Write {
        /// What was being written (a file name, "standard output").
        what: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Which step of which batch an event is about.
#[derive(Debug, Clone, Copy)]
pub struct StepContext<'a> {
    /// The batch.
    pub batch: &'a Batch,
    /// The step's position, 0-based.
    pub index: usize,
}

impl StepContext<'_> {
    /// The step's name.
    pub fn name(&self) -> &str {
        &self.batch.steps[self.index].name
    }

    /// How many steps the batch has.
    pub fn total(&self) -> usize {
        self.batch.steps.len()
    }
}

/// A remark for the user that is not a result.
#[derive(Debug, Clone)]
pub enum Note<'a> {
    /// The planner adjusted or warns about something (from the plan's notes).
    Plan(&'a str),
    /// A test file is being laid out before the step's IO starts.
    LayingOut {
        /// The file.
        path: &'a Path,
        /// Its size.
        bytes: u64,
    },
}

/// Receives a session's events. Every method has a default that ignores the event.
pub trait Sink {
    /// The step's plan is resolved. In a dry run this is all that happens to a step.
    fn step_planned(&mut self, _step: StepContext<'_>, _plan: &RunPlan) {}

    /// The step's IO is about to start; `live` counts its IOs as they complete.
    fn step_started(
        &mut self,
        _step: StepContext<'_>,
        _live: &Arc<LiveCounters>,
        _goal: ProgressGoal,
    ) {
    }

    /// A remark about the current step.
    fn note(&mut self, _step: StepContext<'_>, _note: &Note<'_>) {}

    /// The step ran (fully, or until an interrupt or a failure).
    fn step_finished(&mut self, _step: &FinishedStep) -> Result<(), SinkError> {
        Ok(())
    }

    /// The batch is over: every step that will run has run.
    fn batch_finished(&mut self, _outcome: &Outcome) -> Result<(), SinkError> {
        Ok(())
    }
}
