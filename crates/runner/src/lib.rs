//! The runner: turns job specs into a plan, prepares the targets, runs one thread per job
//! clone and collects each worker's statistics.
//!
//! Order of work: [`prepare::resolve`] (reads metadata only) -> [`guard`] (refuses destructive
//! writes, [`check_safety`], and buffers that would not fit in memory, [`memory`]) ->
//! [`execute`] (lays out files, runs workers, cleans up). A stop flag
//! shared with the signal handlers ends a run early; the results gathered so far are
//! returned and marked partial. Jobs that ask for steady state are watched by a monitor
//! thread per phase ([`monitor`], criteria in [`steady`]) that ends each once it is steady.
//! A plan with caps ([`throttle`]) runs every worker of the run against one shared set of
//! token buckets, as a cloud VM or volume throttles everything behind it.

#![forbid(unsafe_code)]

mod arrivals;
mod block_map;
pub mod buffer_contents;
mod clock;
mod coordination;
mod engine_options;
mod error;
mod exec;
pub mod file_lock;
pub mod file_service;
mod gate;
pub mod layout;
pub mod logs;
pub mod memory;
mod monitor;
mod mounts;
pub mod offsets;
pub mod placement;
pub mod prepare;
pub mod replay;
pub mod safety;
pub mod service_time;
mod sizes;
mod skew;
pub mod space;
pub mod steady;
#[cfg(test)]
mod test_jobs;
pub mod throttle;
mod worker;
mod zbd;

use diskmeter_stats::{IoLogRecorder, WorkerStats};
use gate::StartGate;
use prepare::RunPlan;
use safety::TargetKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

pub use error::{FailedIo, RunError, ThrottleError};
pub use monitor::SteadyStateOutcome;
pub use prepare::{resolve, PlanOptions};
pub use service_time::{ServiceTime, ServiceTimeError};
pub use throttle::ThrottleLimits;

/// Counters the workers add to as IOs complete, read by the live progress view.
#[derive(Debug, Default)]
pub struct LiveCounters {
    /// Reads completed.
    pub read_ios: AtomicU64,
    /// Bytes read.
    pub read_bytes: AtomicU64,
    /// Writes completed.
    pub write_ios: AtomicU64,
    /// Bytes written.
    pub write_bytes: AtomicU64,
}

impl LiveCounters {
    /// Adds `[read_ios, read_bytes, write_ios, write_bytes]` and zeroes the array.
    pub fn add(&self, pending: &mut [u64; 4]) {
        let counters = [
            &self.read_ios,
            &self.read_bytes,
            &self.write_ios,
            &self.write_bytes,
        ];
        for (counter, value) in counters.iter().zip(pending.iter_mut()) {
            if *value > 0 {
                counter.fetch_add(*value, Ordering::Relaxed);
                *value = 0;
            }
        }
    }

    /// The current `[read_ios, read_bytes, write_ios, write_bytes]`.
    pub fn snapshot(&self) -> [u64; 4] {
        [
            self.read_ios.load(Ordering::Relaxed),
            self.read_bytes.load(Ordering::Relaxed),
            self.write_ios.load(Ordering::Relaxed),
            self.write_bytes.load(Ordering::Relaxed),
        ]
    }
}

/// One worker's result.
#[derive(Debug)]
pub struct WorkerResult {
    /// Index of the job in the plan.
    pub job_index: usize,
    /// Clone number within the job.
    pub clone_index: u32,
    /// Reporting group.
    pub group_id: u32,
    /// Measured statistics (ramp excluded).
    pub stats: WorkerStats,
    /// Why the worker stopped early, if it did.
    pub error: Option<String>,
    /// Paths of the worker's targets.
    pub targets: Vec<usize>,
    /// How steady-state detection ended for the worker's job (the same for every member of
    /// a `group_reporting` group); `None` when the job did not ask for it.
    pub steady_state: Option<SteadyStateOutcome>,
}

/// The results of a run.
#[derive(Debug)]
pub struct RunOutcome {
    /// One entry per worker, in plan order.
    pub workers: Vec<WorkerResult>,
    /// Wall-clock time each stonewall phase that ran started, ns since the Unix epoch: taken
    /// after the layout and after the [`PhaseGate`], just before the phase's workers start.
    pub phase_starts_unix_ns: Vec<u64>,
    /// Wall-clock time the last phase's workers had all ended and the files were synced
    /// (`fsync_on_close`), ns since the Unix epoch.
    pub io_finished_unix_ns: u64,
    /// The run was stopped by a signal before it finished.
    pub partial: bool,
    /// Files removed at the end.
    pub removed_files: Vec<PathBuf>,
    /// Log files (`write_bw_log` and the like) that could not be written, one line each;
    /// the measurements are unaffected.
    pub log_errors: Vec<String>,
}

/// How to execute a plan.
pub struct ExecuteOptions {
    /// Keep the files diskmeter created.
    pub keep_files: bool,
    /// Set by signal handlers: stop, drain, report partial results.
    pub stop: Arc<AtomicBool>,
    /// Live counters for a progress view.
    pub live: Arc<LiveCounters>,
    /// Called before each stonewall phase starts (the first after the layout); `None` for a
    /// run on its own.
    pub phase_gate: Option<Arc<dyn PhaseGate>>,
}

/// What a run waits on before each stonewall phase: in a scale-out run, the barrier every
/// rank reaches before any starts the phase. The runner knows nothing of who is behind it.
pub trait PhaseGate: Send + Sync {
    /// Called on the run's thread before phase `phase` (0-based) starts, after the files are
    /// laid out. An error stops the run: no more phases start and [`execute`] returns
    /// [`RunError::Stopped`] with it. A run that stops early for its own reasons
    /// (a failed worker, a signal, `exitall`) does not call the gate for the phases it skips;
    /// the gate's owner accounts for them.
    fn before_phase(&self, phase: u32) -> Result<(), GateError>;
}

/// Why a [`PhaseGate`] stopped a run: the gate owner's own error type, boxed so the runner
/// need not know it (the caller downcasts it back).
pub type GateError = Box<dyn std::error::Error + Send + Sync>;

/// Everything a plan must pass before any file is laid out or any IO issued: the safety
/// rules ([`check_safety`]), then the memory guard ([`memory::check_memory`] against
/// `MemAvailable`; skipped where the kernel does not say how much that is).
pub fn guard(plan: &RunPlan, allow_destroy: bool) -> Result<(), RunError> {
    check_safety(plan, allow_destroy)?;
    if let Some(available_bytes) = memory::available_memory_bytes() {
        memory::check_memory(plan, available_bytes)?;
    }
    Ok(())
}

/// Refuses writes that could destroy data, before anything is opened for writing.
pub fn check_safety(plan: &RunPlan, allow_destroy: bool) -> Result<(), RunError> {
    for (index, target) in plan.targets.iter().enumerate() {
        let written = plan
            .workers
            .iter()
            .any(|w| w.targets.contains(&index) && job_writes(&plan.jobs[w.job_index]));
        if !written {
            continue;
        }
        let user_file = target.kind == TargetKind::File && !target.created_by_diskmeter;
        // fio's allow_mounted_write: every job writing here must ask for it.
        let allow_mounted = plan
            .workers
            .iter()
            .filter(|w| w.targets.contains(&index) && job_writes(&plan.jobs[w.job_index]))
            .all(|w| plan.jobs[w.job_index].allow_mounted_write);
        let via_symlink = std::fs::symlink_metadata(&target.path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        safety::check_write_allowed(
            &target.path,
            target.kind,
            user_file,
            via_symlink,
            allow_destroy,
            allow_mounted,
        )
        .map_err(|refusal| RunError::Refused {
            path: target.path.clone(),
            refusal,
        })?;
    }
    // `write_iolog` is written at the path as given (other logs get a suffix): a log aimed
    // at a device would write its text over whatever the device holds, so a device there
    // passes the same rules as a target that is written.
    for log in plan
        .jobs
        .iter()
        .filter_map(|job| job.iolog.write_iolog.as_ref())
    {
        let Ok(probe) = safety::probe_target(log) else {
            continue;
        };
        if probe.kind == TargetKind::BlockDevice {
            safety::check_write_allowed(
                &probe.path,
                probe.kind,
                false,
                probe.via_symlink,
                allow_destroy,
                false,
            )
            .map_err(|refusal| RunError::Refused {
                path: probe.path,
                refusal,
            })?;
        }
    }
    Ok(())
}

/// True when the job writes to its targets: its `rw` writes and it is not `verify_only`
/// (which only reads back what an earlier run wrote).
pub(crate) fn job_writes(job: &diskmeter_workload::JobSpec) -> bool {
    job.rw.writes() && !job.verify.verify_only
}

/// Buffer alignment for a set of targets: the largest logical block size among them, and
/// at least 4 KiB (O_DIRECT needs the former; page alignment costs nothing).
fn buffer_alignment(files: &[std::fs::File], kinds: &[TargetKind]) -> usize {
    let mut align = 4096usize;
    for (file, kind) in files.iter().zip(kinds) {
        if *kind == TargetKind::BlockDevice {
            if let Ok(size) = diskmeter_engine::sys::logical_block_size(file) {
                align = align.max(size as usize);
            }
        }
    }
    align
}

/// Lays out files, runs every worker, removes created files (unless kept) and returns the
/// statistics. A signal during the run gives partial results, not an error.
///
/// The test files the run took (made, or re-used as diskmeter's) are added to `taken` with
/// their device and inode when it took them, before its IO, also when it fails: what tells
/// them from a file put at the same path while the run went on.
pub fn execute(
    plan: &RunPlan,
    options: &ExecuteOptions,
    taken: &mut Vec<(PathBuf, (u64, u64))>,
    layout_progress: impl FnMut(&Path, u64, u64),
) -> Result<RunOutcome, RunError> {
    let mut created = layout::CreatedFiles::default();
    let result = execute_inner(plan, options, &mut created, layout_progress);
    taken.extend(created.identities());
    let removed = created.remove(options.keep_files);
    result.map(|ran| RunOutcome {
        workers: ran.workers,
        phase_starts_unix_ns: ran.phase_starts_unix_ns,
        io_finished_unix_ns: ran.io_finished_unix_ns,
        partial: ran.partial,
        removed_files: removed,
        log_errors: ran.log_errors,
    })
}

/// What [`execute_inner`] gives back on success.
struct Ran {
    workers: Vec<WorkerResult>,
    phase_starts_unix_ns: Vec<u64>,
    io_finished_unix_ns: u64,
    partial: bool,
    log_errors: Vec<String>,
}

/// Now, ns since the Unix epoch (0 for a clock set before 1970).
fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn execute_inner(
    plan: &RunPlan,
    options: &ExecuteOptions,
    created: &mut layout::CreatedFiles,
    layout_progress: impl FnMut(&Path, u64, u64),
) -> Result<Ran, RunError> {
    layout::prepare_files(plan, created, &options.stop, layout_progress)?;
    if options.stop.load(Ordering::Relaxed) {
        return Err(RunError::Interrupted);
    }
    // Each worker opens its own descriptors, as fio does: no shared file offset or lock.
    let mut worker_files: Vec<Vec<std::fs::File>> = Vec::with_capacity(plan.workers.len());
    for worker in &plan.workers {
        let job = &plan.jobs[worker.job_index];
        let mut files = Vec::new();
        for &t in &worker.targets {
            let target = &plan.targets[t];
            if target.kind == TargetKind::Virtual {
                continue;
            }
            files.push(layout::open_target(target, job)?);
        }
        worker_files.push(files);
    }
    let mut recorders: Vec<Option<IoLogRecorder>> = plan
        .workers
        .iter()
        .map(|w| logs::open_recorder(&plan.jobs[w.job_index], &w.logs))
        .collect::<Result<_, _>>()?;
    let mut log_errors = Vec::new();
    let abort = AtomicBool::new(false);
    let last_phase = plan.workers.iter().map(|w| w.phase).max().unwrap_or(0);
    let mut outcomes: Vec<Option<worker::WorkerOutcome>> =
        (0..plan.workers.len()).map(|_| None).collect();
    let mut steady: Vec<Option<SteadyStateOutcome>> = vec![None; plan.workers.len()];
    // One set of buckets for the whole run: the cap is the device's (or the VM's), not a
    // job's, so every worker of every phase draws from it.
    let throttle = throttle::Throttle::new(&plan.throttle);
    let coordination = coordination::Coordination::new(plan)?;
    let mut phase_starts_unix_ns = Vec::new();
    for phase in 0..=last_phase {
        // A stop (or a failed worker) between phases leaves the later jobs unstarted, as
        // does a finished `exitall` job with `exit_what=all`.
        if phase > 0 && (options.stop.load(Ordering::Relaxed) || abort.load(Ordering::Relaxed)) {
            break;
        }
        if !coordination.next_phase() {
            break;
        }
        if let Some(gate) = &options.phase_gate {
            gate.before_phase(phase).map_err(RunError::Stopped)?;
        }
        phase_starts_unix_ns.push(unix_now_ns());
        let members: Vec<usize> = (0..plan.workers.len())
            .filter(|&i| plan.workers[i].phase == phase)
            .collect();
        let phase_outcomes = run_phase(
            plan,
            options,
            &members,
            &worker_files,
            &abort,
            &mut recorders,
            (throttle.as_ref(), &coordination),
        )?;
        for (i, outcome, steady_state) in phase_outcomes {
            steady[i] = steady_state;
            // Written after the phase, so no worker of it is measured while logs are written.
            if let Some(recorder) = recorders[i].take() {
                if let Err(error) = recorder.finish(outcome.stats.runtime_ns) {
                    let job = &plan.jobs[plan.workers[i].job_index].name;
                    log_errors.push(format!("job {job}: {error}"));
                }
            }
            outcomes[i] = Some(outcome);
        }
    }
    layout::fsync_on_close(plan, &worker_files);
    drop(worker_files);
    let io_finished_unix_ns = unix_now_ns();
    let partial = options.stop.load(Ordering::Relaxed);
    let results = plan
        .workers
        .iter()
        .zip(outcomes.into_iter().zip(steady))
        .filter_map(|(w, (outcome, steady))| outcome.map(|outcome| (w, outcome, steady)))
        .map(|(w, outcome, steady_state)| WorkerResult {
            job_index: w.job_index,
            clone_index: w.clone_index,
            group_id: w.group_id,
            stats: outcome.stats,
            error: outcome.error.map(|e| e.to_string()),
            targets: w.targets.clone(),
            steady_state,
        })
        .collect();
    Ok(Ran {
        workers: results,
        phase_starts_unix_ns,
        io_finished_unix_ns,
        partial,
        log_errors,
    })
}

/// Starts the workers `members` (one stonewall phase) together and waits for all of them;
/// each comes back with its job's steady-state outcome when the job asked for one. When a
/// thread cannot be started the start is cancelled, so no worker of the phase does IO and
/// none is left waiting, and the error is returned.
fn run_phase(
    plan: &RunPlan,
    options: &ExecuteOptions,
    members: &[usize],
    worker_files: &[Vec<std::fs::File>],
    abort: &AtomicBool,
    recorders: &mut [Option<IoLogRecorder>],
    (throttle, coordination): (Option<&throttle::Throttle>, &coordination::Coordination),
) -> Result<Vec<(usize, worker::WorkerOutcome, Option<SteadyStateOutcome>)>, RunError> {
    let watch = monitor::PhaseWatch::for_phase(plan, members);
    // The monitor passes the start gate with the workers, so its clock starts with theirs.
    let gate = StartGate::new(members.len() + usize::from(watch.is_some()));
    // DiskSpd -si: the workers of a job share one sequential position per file.
    let shared: std::collections::HashMap<usize, Arc<[AtomicU64]>> = members
        .iter()
        .map(|&index| &plan.workers[index])
        .filter(|w| plan.jobs[w.job_index].shared_sequential)
        .map(|w| {
            let positions: Arc<[AtomicU64]> = w.targets.iter().map(|_| AtomicU64::new(0)).collect();
            (w.job_index, positions)
        })
        .collect();
    // Each member gets its own recorder, borrowed for the phase.
    let mut iologs: Vec<Option<&mut IoLogRecorder>> =
        recorders.iter_mut().map(Option::as_mut).collect();
    std::thread::scope(|scope| {
        let (phase_over, phase_over_rx) = std::sync::mpsc::channel::<()>();
        let mut spawn_error = None;
        let monitor = match watch.as_ref().map(|watch| {
            let (gate, rx) = (&gate, phase_over_rx);
            std::thread::Builder::new()
                .name("dm-steady".to_string())
                .spawn_scoped(scope, move || watch.run(gate, &rx))
        }) {
            Some(Ok(handle)) => Some(handle),
            Some(Err(error)) => {
                spawn_error = Some(error);
                None
            }
            None => None,
        };
        let mut handles = Vec::with_capacity(members.len());
        for &index in members {
            if spawn_error.is_some() {
                break;
            }
            let context = worker_context(
                plan,
                options,
                index,
                &worker_files[index],
                (abort, &gate, throttle),
                shared.get(&plan.workers[index].job_index).cloned(),
                iologs[index].take(),
                watch.as_ref().and_then(|w| w.hooks(index)),
            )
            .with_links(coordination.links(plan, index));
            let job = &plan.jobs[plan.workers[index].job_index];
            let name = format!("dm-{}-{}", job.name, plan.workers[index].clone_index);
            let watch = watch.as_ref();
            let spawned = std::thread::Builder::new()
                .name(name.chars().take(15).collect())
                .spawn_scoped(scope, move || {
                    let job_index = context.plan.job_index;
                    let outcome = worker::run_worker(context);
                    coordination.worker_finished(job_index);
                    if let Some(watch) = watch {
                        watch.finished(index);
                    }
                    outcome
                });
            match spawned {
                Ok(handle) => handles.push((index, handle)),
                Err(error) => spawn_error = Some(error),
            }
        }
        if spawn_error.is_some() {
            // The gate counts every thread; the ones started would wait for the missing one
            // forever, so the start is called off and they return without doing IO.
            gate.cancel();
        }
        let outcomes: Vec<(usize, worker::WorkerOutcome)> = handles
            .into_iter()
            .map(|(index, h)| {
                let outcome = h.join().unwrap_or_else(|_| worker::WorkerOutcome {
                    stats: WorkerStats::new(),
                    error: Some(RunError::WorkerPanicked),
                });
                (index, outcome)
            })
            .collect();
        // Every worker has ended: the monitor stops waiting for its next tick.
        drop(phase_over);
        let steady = monitor.and_then(|m| m.join().ok()).unwrap_or_default();
        if let Some(error) = spawn_error {
            return Err(RunError::Spawn(error));
        }
        Ok(outcomes
            .into_iter()
            .map(|(index, outcome)| {
                let steady = watch.as_ref().and_then(|w| w.outcome_for(&steady, index));
                (index, outcome, steady)
            })
            .collect())
    })
}

/// The context of worker `index`: its plan, job, targets with their descriptors, and what
/// it shares with the phase (`abort`, the start gate, the throttle).
#[allow(clippy::too_many_arguments)]
fn worker_context<'a>(
    plan: &'a RunPlan,
    options: &'a ExecuteOptions,
    index: usize,
    files: &'a [std::fs::File],
    (abort, start, throttle): (
        &'a AtomicBool,
        &'a StartGate,
        Option<&'a throttle::Throttle>,
    ),
    shared_positions: Option<Arc<[AtomicU64]>>,
    iolog: Option<&'a mut IoLogRecorder>,
    steady: Option<monitor::SteadyHooks<'a>>,
) -> worker::WorkerContext<'a> {
    let worker_plan = &plan.workers[index];
    let kinds: Vec<TargetKind> = worker_plan
        .targets
        .iter()
        .map(|&t| plan.targets[t].kind)
        .collect();
    let mut fd_iter = files.iter().map(std::os::fd::AsRawFd::as_raw_fd);
    let targets: Vec<(i32, &prepare::TargetPlan)> = worker_plan
        .targets
        .iter()
        .map(|&t| {
            let target = &plan.targets[t];
            let fd = if target.kind == TargetKind::Virtual {
                -1
            } else {
                fd_iter.next().unwrap_or(-1)
            };
            (fd, target)
        })
        .collect();
    worker::WorkerContext {
        plan: worker_plan,
        job: &plan.jobs[worker_plan.job_index],
        targets,
        stop: &options.stop,
        abort,
        live: &options.live,
        start,
        buffer_align_bytes: buffer_alignment(files, &kinds),
        shared_positions,
        iolog,
        steady,
        throttle,
        service_time: plan.throttle.latency,
        links: coordination::Links::default(),
    }
}
