//! A session's part in a run across hosts: the batch as this rank runs it, the
//! [`PhaseGate`] of each step (the `--start-at` wait and the ranks' barrier), and what
//! follows a step on every rank (the agreement on how it went, the gathering of the
//! results to rank 0 and their merge there).

use crate::error::OrchestrateError;
use crate::ranks::{first_failure, Cluster, Health, RanksError, Stage, Verdict};
use crate::step::{Batch, FinishedStep, Outcome, Step};
use diskmeter_report::{RankInfo, RunResult};
use diskmeter_runner::{GateError, PhaseGate, RunError};
use diskmeter_workload::rank::RankPlace;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// `steps` as the rank at `place` runs them: every job with the rank's names replaced.
pub(crate) fn steps_for_rank(steps: &[Step], place: &RankPlace) -> Vec<Step> {
    steps
        .iter()
        .map(|step| Step {
            name: step.name.clone(),
            jobs: step.jobs.iter().map(|job| place.job(job)).collect(),
        })
        .collect()
}

/// Appends the steps an adaptive run chose (`Session::run_adaptive`) to `batch`, as this
/// rank's (`place`) when it is one of several, or says why they cannot run (invalid options)
/// in `outcome`: false then.
pub(crate) fn add_steps(
    batch: &mut Batch,
    more: Vec<Step>,
    place: Option<&RankPlace>,
    outcome: &mut Outcome,
) -> bool {
    let problems: Vec<_> = more
        .iter()
        .flat_map(|step| step.jobs.iter().flat_map(diskmeter_workload::validate))
        .collect();
    if !problems.is_empty() {
        outcome.error = Some(OrchestrateError::Invalid { problems });
        return false;
    }
    batch.steps.extend(match place {
        Some(place) => steps_for_rank(&more, place),
        None => more,
    });
    outcome.planned_steps = batch.steps.len();
    true
}

/// `batch` as the rank at `place` runs it: every step's jobs with the rank's names
/// replaced, and the shared files, the warmed files and the target likewise.
pub(crate) fn batch_for_rank(batch: &Batch, place: &RankPlace) -> Batch {
    Batch {
        steps: steps_for_rank(&batch.steps, place),
        shared_files: batch.shared_files.iter().map(|p| place.path(p)).collect(),
        warms: batch.warms.iter().map(|p| place.path(p)).collect(),
        target: batch.target.as_deref().map(|p| place.path(p)),
        ..batch.clone()
    }
}

/// The rank's place in a result.
pub(crate) fn rank_info(place: &RankPlace) -> RankInfo {
    RankInfo {
        rank: place.rank,
        ranks: place.ranks,
    }
}

/// Ctrl-C or SIGTERM while waiting for `--start-at`.
#[derive(Debug, thiserror::Error)]
#[error("interrupted while waiting for the start time")]
pub(crate) struct StartInterrupted;

/// The gate of one step: before phase 0 it waits for the start time (`--start-at`, the
/// first step only) and, on the last rank, lets the other ranks plan (their layout comes
/// after its own); before every phase it is the ranks' barrier.
pub(crate) struct StepGate {
    pub cluster: Option<Cluster>,
    pub step: usize,
    pub start_at: Option<SystemTime>,
    pub stop: Arc<AtomicBool>,
    /// Notes for the step's result ("started late by ...").
    pub notes: Mutex<Vec<String>>,
}

impl PhaseGate for StepGate {
    fn before_phase(&self, phase: u32) -> Result<(), GateError> {
        if phase == 0 {
            if let Some(cluster) = self.cluster.as_ref().filter(|c| c.is_last()) {
                cluster.barrier(self.step, Stage::LaidOut)?;
            }
            if let Some(at) = self.start_at {
                self.wait_until(at)?;
            }
        }
        if let Some(cluster) = &self.cluster {
            cluster.barrier(self.step, Stage::Phase(phase))?;
        }
        Ok(())
    }
}

impl StepGate {
    /// Sleeps until `at`, in short naps so Ctrl-C ends the wait; notes a start that came late.
    fn wait_until(&self, at: SystemTime) -> Result<(), StartInterrupted> {
        let now = SystemTime::now();
        if let Ok(late) = now.duration_since(at) {
            if late > Duration::from_millis(1) {
                let note = format!(
                    "the start time had passed after the layout: started late by {}",
                    diskmeter_units::format_duration_ns(
                        late.as_nanos().min(u64::MAX as u128) as u64
                    )
                );
                self.notes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(note);
            }
            return Ok(());
        }
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Err(StartInterrupted);
            }
            let Ok(left) = at.duration_since(SystemTime::now()) else {
                return Ok(());
            };
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    }

    /// The notes the gate took.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The error a runner stopped with, as the session's: the gate's own errors (a wait
/// interrupted, the ranks stopping this one) are told from the runner's.
pub(crate) fn runner_stop(error: RunError, me: u32) -> Result<OrchestrateError, StartInterrupted> {
    let RunError::Stopped(error) = error else {
        return Ok(OrchestrateError::Run(error));
    };
    let error = match error.downcast::<StartInterrupted>() {
        Ok(interrupted) => return Err(*interrupted),
        Err(error) => error,
    };
    Ok(match error.downcast::<RanksError>() {
        Ok(ranks) => OrchestrateError::ranks(*ranks, me),
        Err(error) => OrchestrateError::Run(RunError::Stopped(error)),
    })
}

/// After a step: agrees with the other ranks on how it went and gathers the results to
/// rank 0, which merges them (each result carries its jobs' exact histograms, so the merge
/// has every rank's latencies). `ran` is how the step went on this rank (`Err(None)`:
/// interrupted before its workers started). Rank 0 gets the merged step, the others their
/// own; `Ok(None)` when a rank was interrupted and not every rank has a result; when a rank
/// failed, every rank gets the first failure as its error.
pub(crate) fn conclude_step(
    cluster: &Cluster,
    index: usize,
    ran: Result<FinishedStep, Option<OrchestrateError>>,
) -> Result<Option<FinishedStep>, OrchestrateError> {
    let me = cluster.ranks.rank();
    let health = match &ran {
        Err(None) => Health::Interrupted,
        Ok(step) if step.failed() => Health::Failed(step.errors.join("; ")),
        Ok(step) if step.partial() => Health::Interrupted,
        Ok(_) => Health::Fine,
        Err(Some(OrchestrateError::Ranks { own: false, .. })) => Health::Stopped,
        Err(Some(error)) => Health::Failed(error.to_string()),
    };
    let all = cluster
        .end_step(index, &health)
        .map_err(|error| OrchestrateError::ranks(error, me))?;
    if let Some(failure) = first_failure(&all) {
        return Err(OrchestrateError::ranks(failure, me));
    }
    let every_result = all
        .iter()
        .all(|c| matches!(c.health, Health::Fine | Health::Interrupted))
        && ran.is_ok();
    let some_interrupted = all.iter().any(|c| c.health == Health::Interrupted);
    // Every rank knows `every_result` alike (from the same round), so all gather or none.
    let ran = match ran {
        Ok(step) if every_result => step,
        _ if some_interrupted => return Ok(None),
        Ok(step) => return Ok(Some(step)),
        Err(Some(error)) => return Err(error),
        Err(None) => return Ok(None),
    };
    let mine = diskmeter_report::to_json(&ran.result);
    let gathered = cluster
        .ranks
        .gather(mine.as_bytes())
        .map_err(|error| OrchestrateError::ranks(error, me))?;
    let Some(gathered) = gathered else {
        return Ok(Some(ran));
    };
    let mut results = Vec::with_capacity(gathered.len());
    for (rank, bytes) in gathered.iter().enumerate() {
        let garbled = |message: String| OrchestrateError::Ranks {
            error: RanksError::Transport {
                message: format!("rank {rank}'s result: {message}"),
            },
            own: false,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| garbled(e.to_string()))?;
        results.push(diskmeter_report::from_json(text).map_err(|e| garbled(e.to_string()))?);
    }
    let mut result: RunResult =
        diskmeter_report::merge::merge_ranks(results).map_err(OrchestrateError::Merge)?;
    let mut input = ran.input;
    if some_interrupted {
        input.meta.partial = true;
        result.meta.partial = true;
    }
    Ok(Some(FinishedStep {
        input,
        result,
        ..ran
    }))
}

/// The ranks' verdict after step `index`: whether this rank goes on to the next step. This
/// rank's part is how the step ended here (`outcome`'s error, a failed step, a Ctrl-C seen
/// now or during the step); when another rank failed, its error becomes this rank's (the
/// run failed), and when another was interrupted, this rank's run is interrupted too.
pub(crate) fn ranks_go_on(
    cluster: &Cluster,
    index: usize,
    failed_step: bool,
    stop: &AtomicBool,
    outcome: &mut Outcome,
) -> bool {
    let me = cluster.ranks.rank();
    let health = match &outcome.error {
        Some(error) => Health::Failed(error.to_string()),
        None if failed_step => Health::Failed(format!("step {} failed", index + 1)),
        None if outcome.interrupted || stop.load(Ordering::Relaxed) => Health::Interrupted,
        None => Health::Fine,
    };
    match cluster.verdict(index, &health) {
        Ok(Verdict::GoOn) => true,
        Ok(Verdict::Stop(failure)) => {
            if health == Health::Fine {
                match failure {
                    Some(error) => {
                        outcome.error = Some(OrchestrateError::ranks(error, me));
                    }
                    None => outcome.interrupted = true,
                }
            }
            false
        }
        Err(error) => {
            outcome
                .error
                .get_or_insert(OrchestrateError::ranks(error, me));
            false
        }
    }
}
