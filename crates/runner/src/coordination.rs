//! What jobs of one run share to wait for, end and pace each other: fio's `wait_for` (a job
//! starts once every worker of another has finished), `exitall` / `exit_what` (a finishing
//! job ends others) and `flow` (jobs of a flow group do IO in the ratio of their weights).
//!
//! [`Coordination`] is built once per run from the plan, and only holds what the plan's jobs
//! use; each worker gets its [`Links`] into it, so a run that uses none of these costs the
//! workers nothing.

use crate::prepare::RunPlan;
use crate::worker::FlowGroup;
use crate::RunError;
use diskmeter_workload::control::ExitWhat;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// The run's shared state for `wait_for`, `exitall` and `flow`.
pub(crate) struct Coordination {
    /// Workers finished, per job (for `wait_for`).
    finished: Vec<AtomicU32>,
    /// Workers per job.
    workers_of_job: Vec<u32>,
    /// The job each job waits for (`wait_for`), by index.
    waits_for: Vec<Option<usize>>,
    /// `exitall` flags, when some job sets it.
    exit: Option<ExitFlags>,
    /// Flow groups by `flow_id`.
    flows: HashMap<u32, Arc<FlowGroup>>,
}

/// Flags raised by a finishing `exitall` job.
pub(crate) struct ExitFlags {
    /// End the running jobs of this reporting group.
    groups: Vec<AtomicBool>,
    /// End every running job (`exit_what=stonewall` and `all`); lowered between phases.
    phase: AtomicBool,
    /// Start nothing more (`exit_what=all`).
    all: AtomicBool,
}

/// One worker's links into the run's [`Coordination`].
#[derive(Default, Clone)]
pub struct Links<'a> {
    /// Wait until this counter reaches the count before starting (`wait_for`).
    pub(crate) wait_for: Option<(&'a AtomicU32, u32)>,
    /// The run's exit flags and the worker's group, when some job uses `exitall`.
    pub(crate) exit: Option<(&'a ExitFlags, u32)>,
    /// The worker's own `exitall`, if set: what its finishing ends.
    pub(crate) exits: Option<ExitWhat>,
    /// The worker's flow group.
    pub(crate) flow: Option<Arc<FlowGroup>>,
}

impl Coordination {
    /// The shared state `plan` needs. A `wait_for` naming no earlier job is refused, as fio
    /// refuses it (the waitee must come first).
    pub(crate) fn new(plan: &RunPlan) -> Result<Coordination, RunError> {
        let jobs = &plan.jobs;
        let mut workers_of_job = vec![0u32; jobs.len()];
        for worker in &plan.workers {
            workers_of_job[worker.job_index] += 1;
        }
        let mut waits_for = Vec::with_capacity(jobs.len());
        for (index, job) in jobs.iter().enumerate() {
            let Some(name) = &job.control.wait_for else {
                waits_for.push(None);
                continue;
            };
            let waitee = jobs[..index].iter().position(|j| &j.name == name);
            match waitee {
                Some(waitee) => waits_for.push(Some(waitee)),
                None => {
                    return Err(RunError::WaitForUnknown {
                        job: job.name.clone(),
                        waitee: name.clone(),
                    })
                }
            }
        }
        let groups = plan.workers.iter().map(|w| w.group_id).max().unwrap_or(0) as usize + 1;
        let exit = jobs.iter().any(|j| j.control.exitall).then(|| ExitFlags {
            groups: (0..groups).map(|_| AtomicBool::new(false)).collect(),
            phase: AtomicBool::new(false),
            all: AtomicBool::new(false),
        });
        let flows = jobs
            .iter()
            .filter_map(|j| j.control.flow())
            .map(|flow| (flow.id, Arc::new(FlowGroup::new())))
            .collect();
        Ok(Coordination {
            finished: jobs.iter().map(|_| AtomicU32::new(0)).collect(),
            workers_of_job,
            waits_for,
            exit,
            flows,
        })
    }

    /// The links of worker `index` of `plan`.
    pub(crate) fn links(&self, plan: &RunPlan, index: usize) -> Links<'_> {
        let worker = &plan.workers[index];
        let job = &plan.jobs[worker.job_index];
        Links {
            wait_for: self.waits_for[worker.job_index]
                .map(|waitee| (&self.finished[waitee], self.workers_of_job[waitee])),
            exit: self.exit.as_ref().map(|flags| (flags, worker.group_id)),
            exits: job.control.exitall.then_some(job.control.exit_what),
            flow: job
                .control
                .flow()
                .and_then(|flow| self.flows.get(&flow.id).cloned()),
        }
    }

    /// A worker of job `job_index` has finished.
    pub(crate) fn worker_finished(&self, job_index: usize) {
        self.finished[job_index].fetch_add(1, Ordering::Relaxed);
    }

    /// Before a phase starts: false when an `exit_what=all` job has ended everything.
    pub(crate) fn next_phase(&self) -> bool {
        match &self.exit {
            Some(flags) => {
                flags.phase.store(false, Ordering::Relaxed);
                !flags.all.load(Ordering::Relaxed)
            }
            None => true,
        }
    }
}

impl Links<'_> {
    /// True when an `exitall` job has ended this worker's group or phase.
    #[inline]
    pub(crate) fn told_to_exit(&self) -> bool {
        self.exit.is_some_and(|(flags, group)| {
            flags.phase.load(Ordering::Relaxed)
                || flags.groups[group as usize].load(Ordering::Relaxed)
        })
    }

    /// True once the job this one waits for has finished (or when it waits for none).
    pub(crate) fn may_start(&self) -> bool {
        self.wait_for
            .is_none_or(|(finished, workers)| finished.load(Ordering::Relaxed) >= workers)
    }

    /// This worker has finished: with `exitall`, end what `exit_what` names.
    pub(crate) fn finished(&self) {
        let (Some(what), Some((flags, group))) = (self.exits, self.exit) else {
            return;
        };
        match what {
            ExitWhat::Group => flags.groups[group as usize].store(true, Ordering::Relaxed),
            ExitWhat::Stonewall => flags.phase.store(true, Ordering::Relaxed),
            ExitWhat::All => {
                flags.phase.store(true, Ordering::Relaxed);
                flags.all.store(true, Ordering::Relaxed);
            }
        }
    }
}
