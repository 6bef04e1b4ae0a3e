//! What every IO-running command shares around the orchestrator: the sinks that show a
//! session's events on the terminal (notes, live progress, dry-run plans), [`conclude`],
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

/// Notes on stderr: the planner's remarks, files being laid out and, for multi-step
/// commands, which step is starting. Silent with `--quiet`.
pub(crate) struct Notes {
    quiet: bool,
    announce: Option<Announce>,
}

impl Notes {
    /// Notes unless `quiet`, announcing each step with `announce` if given.
    pub(crate) fn new(quiet: bool, announce: Option<Announce>) -> Notes {
        Notes { quiet, announce }
    }
}

impl Sink for Notes {
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
}

/// The live progress bar of each step (a terminal only, not with `--quiet`).
pub(crate) struct Progress {
    quiet: bool,
    current: Option<LiveProgress>,
}

impl Progress {
    /// Progress unless `quiet`.
    pub(crate) fn new(quiet: bool) -> Progress {
        Progress {
            quiet,
            current: None,
        }
    }
}

impl Sink for Progress {
    fn step_started(
        &mut self,
        _step: StepContext<'_>,
        live: &Arc<LiveCounters>,
        goal: ProgressGoal,
    ) {
        self.current = Some(LiveProgress::start(live.clone(), goal, self.quiet));
    }

    fn step_finished(&mut self, _step: &FinishedStep) -> Result<(), SinkError> {
        self.current = None;
        Ok(())
    }

    fn batch_finished(&mut self, _outcome: &Outcome) -> Result<(), SinkError> {
        self.current = None;
        Ok(())
    }
}

/// `--dry-run`: each step's resolved jobs and plan on stdout, under a heading when the
/// command has several steps.
pub(crate) struct DryRunPlans {
    heading: Option<Announce>,
}

impl DryRunPlans {
    /// Prints plans, each under `heading` if given.
    pub(crate) fn new(heading: Option<Announce>) -> DryRunPlans {
        DryRunPlans { heading }
    }
}

impl Sink for DryRunPlans {
    fn step_planned(&mut self, step: StepContext<'_>, plan: &RunPlan) {
        if let Some(line) = self.heading.as_ref().and_then(|heading| heading(step)) {
            println!("{line}");
        }
        print!("{}", describe_plan(plan));
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
        session.run(batch, &mut [&mut DryRunPlans::new(heading)])
    } else {
        let (mut notes, mut progress) = (Notes::new(quiet, announce), Progress::new(quiet));
        session.run(batch, &mut [&mut notes, &mut progress])
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
    if !quiet {
        for path in &outcome.swept_files {
            eprintln!(
                "diskmeter: removed {}, a test file left behind by a diskmeter that was killed",
                path.display()
            );
        }
    }
    for step in &outcome.steps {
        for error in &step.errors {
            eprintln!("diskmeter: {error}");
        }
    }
    if let Some(saved) = &outcome.saved {
        if !saved.from_spool.is_empty() {
            let ids: Vec<String> = saved.from_spool.iter().map(i64::to_string).collect();
            eprintln!(
                "diskmeter: saved {} earlier run(s) kept in the spool in {} (runs {})",
                ids.len(),
                saved.path.display(),
                ids.join(", ")
            );
        }
        if !quiet {
            eprintln!(
                "diskmeter: saved as run {} in {} (diskmeter show {})",
                saved.id,
                saved.path.display(),
                saved.id
            );
        }
    }
    if let Some(error) = &outcome.history_error {
        eprintln!(
            "diskmeter: could not save the run in the history: {error} (--no-save runs without it)"
        );
    }
    for (path, error) in &outcome.leftover_files {
        eprintln!(
            "diskmeter: could not remove the test file {}: {error}",
            path.display()
        );
    }
    if outcome.interrupted {
        if outcome.steps.is_empty() {
            eprintln!("diskmeter: interrupted before the workers started; nothing was measured");
        } else {
            eprintln!("diskmeter: interrupted: the results above are partial");
        }
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

/// The resolved jobs and what the runner will do, for `--dry-run`.
pub(crate) fn describe_plan(plan: &RunPlan) -> String {
    let mut out = String::new();
    for (index, job) in plan.jobs.iter().enumerate() {
        out.push_str(&format!("[{}]\n", job.name));
        for (name, value) in diskmeter_workload::describe(job) {
            out.push_str(&format!("  {name}={value}\n"));
        }
        let workers: Vec<_> = plan
            .workers
            .iter()
            .filter(|w| w.job_index == index)
            .collect();
        out.push_str(&format!("  # {} worker(s)\n", workers.len()));
        if let Some(every) = job.control.transactions_per_connection {
            out.push_str(&format!(
                "  # Iometer's connection-rate test: each target closed and opened again every \
                 {every} IOs\n"
            ));
        }
        for worker in workers {
            out.push_str(&format!(
                "  # clone {}: iodepth {} (submit batch {}), {}{}\n",
                worker.clone_index,
                worker.iodepth,
                worker.submit_batch,
                match worker.io_limit_bytes {
                    Some(b) => format!("stops after {}", diskmeter_units::format_bytes_binary(b)),
                    None if job.iolog.read_iolog.is_some() => "stops at the log's end".to_string(),
                    None => "time-based".to_string(),
                },
                match worker.runtime_ns {
                    Some(ns) => format!(", at most {}", diskmeter_units::format_duration_ns(ns)),
                    None => String::new(),
                }
            ));
            if let Some(cpus) = &worker.placement.cpus {
                out.push_str(&format!(
                    "  #   on CPUs {}\n",
                    diskmeter_units::format_cpu_list(cpus)
                ));
            }
            for &t in &worker.targets {
                let target = &plan.targets[t];
                out.push_str(&format!(
                    "  #   {} ({:?}, {:?}): bytes {}..{}\n",
                    target.path.display(),
                    target.kind,
                    target.preparation,
                    target.region_start_bytes,
                    target.region_start_bytes + target.region_len_bytes
                ));
            }
            if !worker.logs.is_empty() {
                let paths: Vec<String> = worker
                    .logs
                    .iter()
                    .map(|log| log.path.display().to_string())
                    .collect();
                out.push_str(&format!("  #   logs: {}\n", paths.join(", ")));
            }
        }
    }
    for note in &plan.notes {
        out.push_str(&format!("# note: {note}\n"));
    }
    out
}
