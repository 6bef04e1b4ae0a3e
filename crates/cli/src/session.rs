//! What every IO-running command shares around the orchestrator: the sinks that show a
//! session's events on the terminal (notes and live progress, dry-run plans), [`conclude`],
//! which turns an [`Outcome`] into the closing messages and the exit status, and
//! [`run_and_conclude`], the whole path from a batch to the exit status (run on the
//! terminal, write the command's output, conclude) that a command taking the terminal's
//! sinks calls once; a command with sinks of its own (sweep) runs its batch and calls
//! [`conclude_after`].

use crate::progress::LiveProgress;
use crate::Status;
use diskmeter_orchestrator::{
    Batch, Note, Outcome, OutcomeStatus, ProgressGoal, RunPlan, Session, Sink, SinkError,
    StepContext,
};
use diskmeter_orchestrator::{FinishedStep, LiveCounters};
use std::sync::Arc;

/// A line announcing a step ("suite quick: step 2/5: ..."), or none.
pub(crate) type Announce = Box<dyn Fn(StepContext<'_>) -> Option<String>>;

/// The terminal of a run: notes on stderr (the planner's remarks, files being laid out and,
/// for multi-step commands, which step is starting) and each step's live progress bar (a
/// terminal only). Silent with `--quiet`.
struct Terminal {
    quiet: bool,
    announce: Option<Announce>,
    progress: Option<LiveProgress>,
}

impl Sink for Terminal {
    fn step_planned(&mut self, step: StepContext<'_>, _plan: &RunPlan) {
        if self.quiet {
            return;
        }
        if let Some(line) = self.announce.as_ref().and_then(|announce| announce(step)) {
            eprintln!("diskmeter: {line}");
        }
    }

    fn note(&mut self, _step: StepContext<'_>, note: &Note<'_>) {
        if self.quiet {
            return;
        }
        match note {
            Note::Plan(text) => eprintln!("diskmeter: note: {text}"),
            Note::LayingOut { path, bytes } => eprintln!(
                "diskmeter: laying out {} ({})",
                path.display(),
                diskmeter_units::format_bytes_binary(*bytes)
            ),
        }
    }

    fn step_started(
        &mut self,
        _step: StepContext<'_>,
        live: &Arc<LiveCounters>,
        goal: ProgressGoal,
    ) {
        self.progress = Some(LiveProgress::start(live.clone(), goal, self.quiet));
    }

    fn step_finished(&mut self, _step: &FinishedStep) -> Result<(), SinkError> {
        self.progress = None;
        Ok(())
    }

    fn batch_finished(&mut self, _outcome: &Outcome) -> Result<(), SinkError> {
        self.progress = None;
        Ok(())
    }
}

/// `--dry-run`: each step's resolved jobs and plan on stdout, under a heading when the
/// command has several steps.
struct DryRunPlans {
    heading: Option<Announce>,
}

impl Sink for DryRunPlans {
    fn step_planned(&mut self, step: StepContext<'_>, plan: &RunPlan) {
        if let Some(line) = self.heading.as_ref().and_then(|heading| heading(step)) {
            println!("{line}");
        }
        print!("{}", diskmeter_views::session::describe_plan(plan));
    }
}

/// The dry run's heading of a step in a batch of several: `## step N/M: NAME`.
pub(crate) fn step_heading(step: StepContext<'_>) -> Option<String> {
    Some(format!(
        "## step {}/{}: {}",
        step.index + 1,
        step.total(),
        step.name()
    ))
}

/// Runs `batch` with the terminal sinks every command shows: in a dry run each step's plan
/// (under `heading`), otherwise the notes (announcing each step with `announce`) and the
/// live progress.
pub(crate) fn run_on_terminal(
    session: &mut Session,
    batch: &Batch,
    quiet: bool,
    announce: Option<Announce>,
    heading: Option<Announce>,
) -> Outcome {
    if session.settings().dry_run {
        session.run(batch, &mut [&mut DryRunPlans { heading }])
    } else {
        let mut terminal = Terminal {
            quiet,
            announce,
            progress: None,
        };
        session.run(batch, &mut [&mut terminal])
    }
}

/// Runs `batch` on the terminal ([`run_on_terminal`]), writes the command's output with
/// `write` and concludes ([`conclude_after`]).
pub(crate) fn run_and_conclude(
    session: &mut Session,
    batch: &Batch,
    quiet: bool,
    announce: Option<Announce>,
    heading: Option<Announce>,
    write: impl FnOnce(&Outcome) -> anyhow::Result<()>,
) -> anyhow::Result<Status> {
    let outcome = run_on_terminal(session, batch, quiet, announce, heading);
    conclude_after(outcome, quiet, write)
}

/// Writes the command's output of `outcome` with `write` (which decides what a dry run or
/// a batch that ran no step writes), then the closing messages ([`conclude`]); a failed
/// write is the error once the messages are out.
pub(crate) fn conclude_after(
    outcome: Outcome,
    quiet: bool,
    write: impl FnOnce(&Outcome) -> anyhow::Result<()>,
) -> anyhow::Result<Status> {
    let written = write(&outcome);
    let status = conclude(outcome, quiet)?;
    written?;
    Ok(status)
}

/// The closing messages of a session on stderr (where it was saved, why it stopped), and
/// the exit status; an error that stopped the batch comes back as the error to print.
pub(crate) fn conclude(outcome: Outcome, quiet: bool) -> anyhow::Result<Status> {
    for line in diskmeter_views::session::closing_messages(&outcome, quiet) {
        eprintln!("diskmeter: {line}");
    }
    let status = outcome.status();
    if let Some(error) = outcome.error {
        return Err(error.into());
    }
    Ok(match status {
        OutcomeStatus::Completed => Status::Success,
        _ => Status::Failure,
    })
}
