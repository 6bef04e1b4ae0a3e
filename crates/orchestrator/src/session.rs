//! The session: the environment a batch runs in (stop signal, emulated disk, throttle caps,
//! safety choices, history) and the one loop that runs the steps of every command.

use crate::convert;
use crate::emulation::{EmulateRequest, EmulatedDisk};
use crate::error::OrchestrateError;
use crate::history::{HistoryChoice, HistorySink};
use crate::leftovers::{self, FileRecord};
use crate::live::LiveFeed;
use crate::ranks::{Cluster, Health, Ranks, Stage};
use crate::scale_out::{self, StepGate};
use crate::signals;
use crate::sink::{Note, Sink, StepContext};
use crate::step::{Batch, FinishedStep, Outcome, Step};
use diskmeter_report::RunResult;
use diskmeter_runner::layout::identity_at;
use diskmeter_runner::memory;
use diskmeter_runner::prepare::RunPlan;
use diskmeter_runner::{ExecuteOptions, LiveCounters, PlanOptions, RunError, ThrottleLimits};
use diskmeter_workload::rank::RankPlace;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// How a session runs its batches: the user's choices that hold for every step.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Plan every step and deliver the plans, but do no IO (`--dry-run`).
    pub dry_run: bool,
    /// Allow writing to files diskmeter did not create and to devices holding data
    /// (`--allow-destroy`).
    pub allow_destroy: bool,
    /// Keep the test files diskmeter creates (`--keep`).
    pub keep_files: bool,
    /// Run the commands of jobs' `exec_prerun` and `exec_postrun` (`--allow-exec`).
    pub allow_exec: bool,
    /// The in-engine throttle's caps, shared by every worker of a step.
    pub throttle: ThrottleLimits,
    /// Which history finished runs are saved into.
    pub history: HistoryChoice,
    /// An emulated disk to make for the session and run on.
    pub emulate: Option<EmulateRequest>,
    /// This process's place in a run across hosts (`--rank`/`--ranks`, or MPI's): its
    /// results carry it, and `$rank`, `$nranks`, `$hostname` in the jobs' paths stand for it.
    pub rank: Option<RankPlace>,
    /// The other ranks to run in step with (MPI): a barrier before every stonewall phase,
    /// one rank's failure stops all, rank 0 merges and saves each step. `None`: this process
    /// runs alone (a single host, or a rank started by other means).
    pub cluster: Option<Arc<dyn Ranks>>,
    /// Wait after the first step's layout until this time before its first phase
    /// (`--start-at`), so ranks started apart begin their IO together.
    pub start_at: Option<SystemTime>,
}

/// Whether a file is warm in the host cache, as far as the history knows.
#[derive(Debug, Clone, PartialEq)]
pub enum Warmth {
    /// Warmed in this boot.
    Warm(diskmeter_history::Warmup),
    /// Not warmed since the last boot: `last` is the last warm-up, from an earlier boot.
    Cold {
        /// The last warm-up recorded, if any.
        last: Option<diskmeter_history::Warmup>,
    },
    /// No history to ask (`--no-history`, or it cannot be read).
    Unknown,
}

/// What a step's progress is measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressGoal {
    /// The step ends after this long (ramps included).
    Time(Duration),
    /// The step ends after this many bytes.
    Bytes(u64),
}

/// An open session: the stop signal is installed and the emulated disk, if any, exists
/// until the session is dropped.
pub struct Session {
    settings: Settings,
    stop: Arc<AtomicBool>,
    emulated: Option<EmulatedDisk>,
}

impl Session {
    /// Installs the stop signal (once per process) and makes the emulated disk, if asked
    /// (not in a dry run).
    pub fn open(mut settings: Settings) -> Result<Session, OrchestrateError> {
        if settings.cluster.as_ref().is_some_and(|c| c.rank() != 0) {
            // Rank 0 saves the merged run; the others keep no history of their own.
            settings.history = HistoryChoice::Off;
        }
        let stop = signals::stop_flag().map_err(OrchestrateError::Signals)?;
        let emulated = match &settings.emulate {
            Some(request) if !settings.dry_run => Some(EmulatedDisk::create(request)?),
            _ => None,
        };
        Ok(Session {
            settings,
            stop,
            emulated,
        })
    }

    /// The emulated disk's device, for the command to aim its steps at.
    pub fn emulated_device(&self) -> Option<&Path> {
        self.emulated.as_ref().map(EmulatedDisk::device)
    }

    /// The settings the session was opened with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Runs `batch` step by step, delivering each event to `sinks` and each finished step to
    /// the history; see the crate documentation for the order of work.
    pub fn run(&mut self, batch: &Batch, sinks: &mut [&mut dyn Sink]) -> Outcome {
        self.run_adaptive(batch, sinks, &mut |_| Vec::new())
    }

    /// Runs `batch` as [`Session::run`] does, then the steps `next_steps` chooses from the
    /// steps finished so far (a sweep's curve: maximum, shares, bisection), each time those
    /// have run, until it chooses none: one run in the history, ended by an interrupt, a
    /// failed step or an error as a fixed batch is. A cluster runs `batch` only.
    pub fn run_adaptive(
        &mut self,
        batch: &Batch,
        sinks: &mut [&mut dyn Sink],
        next_steps: &mut dyn FnMut(&[FinishedStep]) -> Vec<Step>,
    ) -> Outcome {
        let mut batch = match &self.settings.rank {
            Some(place) => scale_out::batch_for_rank(batch, place),
            None => batch.clone(),
        };
        let cluster = self.cluster();
        let mut outcome = Outcome {
            steps: Vec::new(),
            planned_steps: batch.steps.len(),
            dry_run: self.settings.dry_run,
            interrupted: false,
            error: None,
            saved: None,
            history_error: None,
            leftover_files: Vec::new(),
            swept_files: Vec::new(),
        };
        let problems: Vec<_> = batch
            .steps
            .iter()
            .flat_map(|step| step.jobs.iter().flat_map(diskmeter_workload::validate))
            .collect();
        if !problems.is_empty() {
            outcome.error = Some(OrchestrateError::Invalid { problems });
        } else if !self.settings.dry_run && batch.steps.len() > 1 {
            if let Err(error) = self.guard_ahead(&batch) {
                outcome.error = Some(OrchestrateError::Run(error));
            }
        }
        if let Some(cluster) = &cluster {
            // The barrier at the start: every rank validated and guarded every step.
            let health = match &outcome.error {
                Some(error) => Health::Failed(error.to_string()),
                None => Health::Fine,
            };
            if let Err(error) = cluster.start(&health) {
                let me = cluster.ranks.rank();
                outcome
                    .error
                    .get_or_insert(OrchestrateError::ranks(error, me));
            }
        }
        if outcome.error.is_some() {
            return self.finish(outcome, None, None, sinks);
        }
        let (mut history, mut live) = (None, None);
        // The test files this batch will remove, written down before they are made.
        let mut record = FileRecord::new();
        if !self.settings.dry_run {
            outcome.swept_files = leftovers::sweep();
            match self.settings.history.path() {
                Ok(path) => {
                    // A session that saves also shows its run live (`live.rs`).
                    live = path.clone().map(LiveFeed::new);
                    history = path.map(HistorySink::new);
                }
                Err(error) => outcome.history_error = Some(error),
            }
        }
        let preexisting: Vec<bool> = batch.shared_files.iter().map(|p| p.exists()).collect();
        // The shared files the steps made (device, inode), as their runner took them.
        let mut made: Vec<Option<(u64, u64)>> = vec![None; batch.shared_files.len()];
        if !self.settings.keep_files && !self.settings.dry_run {
            let made_here = batch.shared_files.iter().zip(&preexisting);
            record.add(
                made_here
                    .filter(|(path, existed)| !**existed && !batch.warms.contains(path))
                    .map(|(path, _)| path.clone()),
            );
        }
        let mut index = 0;
        loop {
            if index == batch.steps.len() {
                let more = match &cluster {
                    None if !self.settings.dry_run => next_steps(&outcome.steps),
                    _ => Vec::new(),
                };
                if more.is_empty()
                    || !scale_out::add_steps(
                        &mut batch,
                        more,
                        self.settings.rank.as_ref(),
                        &mut outcome,
                    )
                {
                    break;
                }
            }
            let batch = &batch;
            // Ranks stop together, after a step's verdict (below); a rank that sees a signal
            // between two steps says so in the next step's rounds.
            if cluster.is_none() && self.stop.load(Ordering::Relaxed) {
                outcome.interrupted = true;
                break;
            }
            let step = StepContext { batch, index };
            let mut taken = Vec::new();
            let ran = match &cluster {
                Some(cluster) => self.run_step_ranked(
                    cluster,
                    step,
                    sinks,
                    live.as_mut(),
                    &mut record,
                    &mut taken,
                ),
                None => self.run_step(step, sinks, live.as_mut(), &mut record, &mut taken, None),
            };
            for ((path, existed), made) in
                batch.shared_files.iter().zip(&preexisting).zip(&mut made)
            {
                if !existed && made.is_none() {
                    // As the step's runner took it, before its IO: a file a user put at the
                    // path while the step ran, or while a step that did not use it ran, is
                    // not the step's.
                    *made = taken
                        .iter()
                        .find(|(taken, _)| taken == path)
                        .map(|(_, identity)| *identity);
                }
            }
            let mut failed_step = false;
            match ran {
                Ok(None) => {}
                Ok(Some(finished)) => {
                    let (partial, failed) = (finished.partial(), finished.failed());
                    for sink in sinks.iter_mut() {
                        if let Err(error) = sink.step_finished(&finished) {
                            outcome.error.get_or_insert(error.into());
                        }
                    }
                    if let Some(history) = &mut history {
                        history.add(batch, &finished);
                        if let (Some(live), Some(run_id)) = (&mut live, history.run_id()) {
                            live.saved_as(run_id);
                        }
                    }
                    outcome.steps.push(finished);
                    outcome.interrupted |= partial;
                    failed_step = failed;
                }
                Err(StepStop::Interrupted) => outcome.interrupted = true,
                Err(StepStop::Error(error)) => outcome.error = Some(error),
            }
            let stop_here = outcome.interrupted || failed_step || outcome.error.is_some();
            if let Some(cluster) = &cluster {
                if !scale_out::ranks_go_on(cluster, index, failed_step, &self.stop, &mut outcome) {
                    break;
                }
            } else if stop_here {
                break;
            }
            index += 1;
        }
        if !self.settings.keep_files && !self.settings.dry_run {
            for (path, made) in batch.shared_files.iter().zip(made) {
                // Only the file a step made: one removed while a step ran (its IO went on
                // on the open descriptor) and replaced by a user's is not ours to remove.
                let ours = made.is_some() && identity_at(path) == made;
                if ours && path.is_file() && !batch.warms.contains(path) {
                    if let Err(error) = std::fs::remove_file(path) {
                        outcome.leftover_files.push((path.clone(), error));
                    }
                }
            }
        }
        // Every file is removed or kept as asked by now: nothing is left to sweep.
        drop(record);
        if let Some(history) = &mut history {
            let whole = !outcome.interrupted
                && outcome.error.is_none()
                && outcome.steps.len() == outcome.planned_steps
                && outcome.steps.iter().all(|s| !s.failed());
            if whole {
                history.record_warmups(&batch);
            }
        }
        self.finish(outcome, history, live, sinks)
    }

    /// Whether `file` was warmed (by a warm-up batch, see [`Batch::warms`]) since the machine
    /// last booted, according to the session's history.
    pub fn warmth(&self, file: &Path) -> Warmth {
        let Ok(Some(path)) = self.settings.history.path() else {
            return Warmth::Unknown;
        };
        if !path.exists() {
            return Warmth::Cold { last: None };
        }
        let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        let last = match diskmeter_history::HistoryStore::open(&path)
            .and_then(|store| store.last_warmup(&file.display().to_string()))
        {
            Ok(last) => last,
            Err(_) => return Warmth::Unknown,
        };
        match (last, crate::history::boot_id()) {
            (Some(warmup), Some(boot)) if warmup.boot_id == boot => Warmth::Warm(warmup),
            (last, _) => Warmth::Cold { last },
        }
    }

    /// Saves what finished, ends the live feed, then tells the sinks the batch is over.
    fn finish(
        &self,
        mut outcome: Outcome,
        history: Option<HistorySink>,
        live: Option<LiveFeed>,
        sinks: &mut [&mut dyn Sink],
    ) -> Outcome {
        if let Some(history) = history {
            // A batch cut short is partial even when every step that ran was whole.
            let partial = outcome.interrupted || outcome.steps.len() < outcome.planned_steps;
            match history.finish(partial, &outcome.steps) {
                Ok(saved) => outcome.saved = saved,
                Err(error) => outcome.history_error = Some(error),
            }
        }
        // After the run is closed, so a reader that sees the live row end finds it whole.
        if let Some(live) = live {
            live.end(outcome.saved.as_ref().map(|saved| saved.id));
        }
        for sink in sinks.iter_mut() {
            if let Err(error) = sink.batch_finished(&outcome) {
                outcome.error.get_or_insert(error.into());
            }
        }
        outcome
    }

    /// The planner's choices that hold for every step of the session.
    fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            throttle: self.settings.throttle,
            allow_exec: self.settings.allow_exec,
            // Ranks may share a file, MPI or not.
            files_shared_by_ranks: self.settings.rank.is_some(),
            ..PlanOptions::default()
        }
    }

    /// Plans and guards every step of a batch of several before the first runs, so a step
    /// that would be refused (a write to a device holding data, buffers too large for
    /// memory) ends the batch before the steps ahead of it do any IO: a suite's reads must
    /// not run for minutes and then stop at its first write. A step that cannot be planned
    /// yet (it may need a file an earlier step lays out) is left to be planned, and every
    /// step is guarded again, just before it runs.
    fn guard_ahead(&self, batch: &Batch) -> Result<(), RunError> {
        let options = self.plan_options();
        for step in &batch.steps {
            if let Ok(plan) = diskmeter_runner::resolve(&step.jobs, &options) {
                diskmeter_runner::guard(&plan, self.settings.allow_destroy)?;
            }
        }
        Ok(())
    }

    /// The ranks to run in step with, outside a dry run (which does no IO to agree on).
    fn cluster(&self) -> Option<Cluster> {
        let ranks = self
            .settings
            .cluster
            .clone()
            .filter(|_| !self.settings.dry_run)?;
        let host = self.settings.rank.as_ref().map(|p| p.hostname.clone());
        Some(Cluster {
            ranks,
            host: host.unwrap_or_default(),
        })
    }

    /// One step as a rank of a run across hosts: the ranks other than the last plan after
    /// the last one laid its files out (a file they share is then made once, to the size
    /// of the region that reaches furthest), every phase starts at a barrier, and after the
    /// step every rank learns how it went everywhere; rank 0 gets the merged step.
    fn run_step_ranked(
        &self,
        cluster: &Cluster,
        step: StepContext<'_>,
        sinks: &mut [&mut dyn Sink],
        live_feed: Option<&mut LiveFeed>,
        record: &mut FileRecord,
        taken: &mut Vec<(PathBuf, (u64, u64))>,
    ) -> Result<Option<FinishedStep>, StepStop> {
        let me = cluster.ranks.rank();
        let waited = match cluster.is_last() {
            true => Ok(()),
            false => cluster.barrier(step.index, Stage::LaidOut),
        };
        let ran = match waited {
            Err(error) => Err(Some(OrchestrateError::ranks(error, me))),
            Ok(()) => match self.run_step(step, sinks, live_feed, record, taken, Some(cluster)) {
                Ok(Some(finished)) => Ok(finished),
                Ok(None) => return Ok(None),
                Err(StepStop::Interrupted) => Err(None),
                Err(StepStop::Error(error)) => Err(Some(error)),
            },
        };
        match scale_out::conclude_step(cluster, step.index, ran) {
            Ok(Some(finished)) => Ok(Some(finished)),
            Ok(None) => Err(StepStop::Interrupted),
            Err(error) => Err(StepStop::Error(error)),
        }
    }

    /// Plans, guards and runs one step; `Ok(None)` in a dry run. The test files its run took
    /// go in `taken`, with their device and inode (see [`diskmeter_runner::execute`]).
    /// `cluster`: the ranks whose barrier gates each phase.
    fn run_step(
        &self,
        step: StepContext<'_>,
        sinks: &mut [&mut dyn Sink],
        mut live_feed: Option<&mut LiveFeed>,
        record: &mut FileRecord,
        taken: &mut Vec<(PathBuf, (u64, u64))>,
        cluster: Option<&Cluster>,
    ) -> Result<Option<FinishedStep>, StepStop> {
        let jobs = &step.batch.steps[step.index].jobs;
        // How the jobs are written can make planning fail (a usage error); the machine can
        // too (a missing folder).
        let mut plan =
            diskmeter_runner::resolve(jobs, &self.plan_options()).map_err(|e| match e {
                // A throttle that cannot work as asked (a burst without its baseline) is the
                // flags' fault, as a job's problem is.
                RunError::Job { .. } | RunError::Throttle(_) => {
                    StepStop::Error(OrchestrateError::Job(e))
                }
                e => StepStop::Error(OrchestrateError::Run(e)),
            })?;
        plan.notes
            .extend(self.emulated.as_ref().and_then(EmulatedDisk::note));
        if self.settings.dry_run {
            // A dry run shows what the memory guard and the space check would refuse.
            plan.notes.extend(memory_note(&plan));
            let space = diskmeter_runner::layout::check_room(&plan).err();
            plan.notes
                .extend(space.map(|s| format!("{s}; a run would be refused")));
        }
        for sink in sinks.iter_mut() {
            sink.step_planned(step, &plan);
        }
        if self.settings.dry_run {
            return Ok(None);
        }
        diskmeter_runner::guard(&plan, self.settings.allow_destroy).map_err(StepStop::run)?;
        if !self.settings.keep_files {
            record.add(diskmeter_runner::layout::removed_at_end(&plan));
        }
        for note in &plan.notes {
            for sink in sinks.iter_mut() {
                sink.note(step, &Note::Plan(note));
            }
        }
        let live = Arc::new(LiveCounters::default());
        for sink in sinks.iter_mut() {
            sink.step_started(step, &live, progress_goal(&plan));
        }
        if let Some(feed) = live_feed.as_deref_mut() {
            feed.step_started(step, &plan, &live);
        }
        // The start time holds for the first step only: the later ones follow it.
        let start_at = self.settings.start_at.filter(|_| step.index == 0);
        let gate = (cluster.is_some() || start_at.is_some()).then(|| {
            Arc::new(StepGate {
                cluster: cluster.cloned(),
                step: step.index,
                start_at,
                stop: self.stop.clone(),
                notes: Default::default(),
            })
        });
        let options = ExecuteOptions {
            keep_files: self.settings.keep_files,
            stop: self.stop.clone(),
            live,
            phase_gate: gate
                .clone()
                .map(|g| g as Arc<dyn diskmeter_runner::PhaseGate>),
        };
        let started = SystemTime::now();
        let mut announced: HashSet<PathBuf> = HashSet::new();
        let outcome = diskmeter_runner::execute(&plan, &options, taken, |path, _done, total| {
            if announced.insert(path.to_path_buf()) {
                let note = Note::LayingOut { path, bytes: total };
                for sink in sinks.iter_mut() {
                    sink.note(step, &note);
                }
            }
        });
        if let Some(feed) = live_feed {
            feed.step_ended();
        }
        let me = self.settings.rank.as_ref().map_or(0, |p| p.rank);
        let outcome = outcome.map_err(|error| match error {
            RunError::Stopped(_) => match scale_out::runner_stop(error, me) {
                Ok(error) => StepStop::Error(error),
                Err(_) => StepStop::Interrupted,
            },
            error => StepStop::run(error),
        })?;
        let (mut input, errors) = convert::report_input(&plan, outcome, started, SystemTime::now());
        input.meta.rank = self.settings.rank.as_ref().map(scale_out::rank_info);
        if let Some(gate) = &gate {
            input.meta.notes.extend(gate.take_notes());
        }
        let result = RunResult::build_from(&input);
        Ok(Some(FinishedStep {
            index: step.index,
            name: step.name().to_string(),
            input,
            result,
            errors,
        }))
    }
}

/// Why a step ended without a result.
enum StepStop {
    /// Ctrl-C or SIGTERM before its workers started.
    Interrupted,
    /// It could not be planned, was refused, or failed before its workers started.
    Error(OrchestrateError),
}

impl StepStop {
    fn run(error: RunError) -> StepStop {
        match error {
            RunError::Interrupted => StepStop::Interrupted,
            error => StepStop::Error(OrchestrateError::Run(error)),
        }
    }
}

/// The memory guard's refusal of `plan`, as a dry run's note.
fn memory_note(plan: &RunPlan) -> Option<String> {
    let available_bytes = memory::available_memory_bytes()?;
    let shortfall = memory::check_memory(plan, available_bytes).err()?;
    Some(format!("{shortfall}; a run would be refused"))
}

/// What a plan's progress is measured against: its time when every worker is time-bound
/// (stonewall phases one after another), else the bytes it will move.
pub fn progress_goal(plan: &RunPlan) -> ProgressGoal {
    let last_phase = plan.workers.iter().map(|w| w.phase).max().unwrap_or(0);
    let mut total_ns = 0;
    for phase in 0..=last_phase {
        total_ns += plan
            .workers
            .iter()
            .filter(|w| w.phase == phase)
            .filter_map(|w| {
                w.runtime_ns
                    .map(|r| r + plan.jobs[w.job_index].ramp_time_ns)
            })
            .max()
            .unwrap_or(0);
    }
    let time_only = plan.workers.iter().all(|w| w.io_limit_bytes.is_none());
    if total_ns > 0 && (time_only || plan.workers.iter().all(|w| w.runtime_ns.is_some())) {
        ProgressGoal::Time(Duration::from_nanos(total_ns))
    } else {
        ProgressGoal::Bytes(plan.workers.iter().filter_map(|w| w.io_limit_bytes).sum())
    }
}
