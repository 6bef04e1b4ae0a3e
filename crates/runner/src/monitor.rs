//! The steady-state monitor: one thread per stonewall phase that has watched jobs. Once per
//! sample (a second unless `steadystate_sample` says otherwise) it reads the IOs and bytes
//! the watched workers published, turns them into that sample's IOPS and bandwidth, and when
//! the job's criterion holds over the last `ss_dur` (and its precision rule over every sample
//! so far) it raises the job's stop flag; the workers then drain and end normally.
//!
//! What is judged together follows fio: a job's clones each on their own, or with
//! `group_reporting` every worker of the reporting group summed (fio's `steadystate_check`).
//! Samples are taken on a fixed grid that starts at the job's measurement start (after
//! `startdelay` and `ramp_time`) plus `ss_ramp`; a sample in which a member of the judged set
//! ended is not used, so a job's last, cut-short sample never poses as a dip.
//!
//! Workers only add to two counters of their own per loop pass (as they already do for the
//! live view), so watching costs the IO path nothing measurable; the judging is
//! [`crate::steady`]'s pure functions.

use crate::gate::StartGate;
use crate::prepare::RunPlan;
use crate::steady::{Judgement, SteadyWindow};
use crate::RunError;
use diskmeter_engine::sys;
use diskmeter_workload::SteadyState;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// How steady-state detection ended for one judged job (a clone, or a `group_reporting`
/// group).
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyStateOutcome {
    /// The job's steady-state settings (of the first member of a group).
    pub settings: SteadyState,
    /// The criterion held and the job was stopped because of it.
    pub attained: bool,
    /// When it held, ns since the job's measurement start (after `ramp_time`).
    pub attained_at_ns: Option<u64>,
    /// The last window's IOPS samples, oldest first; fewer than the window's length when the
    /// job ended before filling it.
    pub window_iops: Vec<f64>,
    /// The last window's bandwidth samples, bytes per second, oldest first.
    pub window_bw_bytes_per_sec: Vec<f64>,
    /// The verdict on the last full window; `None` when the window never filled.
    pub last: Option<Judgement>,
}

/// A watched worker's published totals: IOs and bytes of both directions, measured period only.
#[derive(Debug, Default)]
pub(crate) struct SteadyCounters {
    ios: AtomicU64,
    bytes: AtomicU64,
}

impl SteadyCounters {
    /// Adds the worker's not yet published `[read_ios, read_bytes, write_ios, write_bytes]`
    /// (the array the live view is fed from; it is left as it is).
    pub(crate) fn add(&self, pending: &[u64; 4]) {
        let ios = pending[0] + pending[2];
        if ios > 0 {
            self.ios.fetch_add(ios, Ordering::Relaxed);
            self.bytes
                .fetch_add(pending[1] + pending[3], Ordering::Relaxed);
        }
    }

    fn snapshot(&self) -> (u64, u64) {
        (
            self.ios.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}

/// What a worker of a watched job is handed: where to publish, and when to stop.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SteadyHooks<'a> {
    /// The worker's own counters.
    pub counters: &'a SteadyCounters,
    /// Raised by the monitor when the job has reached steady state.
    pub stop: &'a AtomicBool,
}

/// One judged set of workers.
struct Unit {
    settings: SteadyState,
    /// Phase start to the earliest member's measurement start (startdelay + ramp_time), ns.
    measure_offset_ns: u64,
    /// Worker indices in the plan.
    members: Vec<usize>,
    counters: Vec<SteadyCounters>,
    finished: Vec<AtomicBool>,
    stop: AtomicBool,
}

/// The watched jobs of one stonewall phase.
pub(crate) struct PhaseWatch {
    units: Vec<Unit>,
}

impl PhaseWatch {
    /// The watched jobs among `members` (worker indices of one phase); `None` when no job
    /// of the phase asks for steady state, so no monitor runs.
    pub(crate) fn for_phase(plan: &RunPlan, members: &[usize]) -> Option<PhaseWatch> {
        // (group id or worker index, is a group) -> unit
        let mut keys: Vec<(usize, bool)> = Vec::new();
        let mut units: Vec<Unit> = Vec::new();
        for &index in members {
            let worker = &plan.workers[index];
            let job = &plan.jobs[worker.job_index];
            if !job.steadystate.enabled() {
                continue;
            }
            let key = if job.group_reporting {
                (worker.group_id as usize, true)
            } else {
                (index, false)
            };
            let offset = job.startdelay_ns.saturating_add(job.ramp_time_ns);
            match keys.iter().position(|k| *k == key) {
                Some(at) => {
                    let unit = &mut units[at];
                    unit.measure_offset_ns = unit.measure_offset_ns.min(offset);
                    unit.members.push(index);
                    unit.counters.push(SteadyCounters::default());
                    unit.finished.push(AtomicBool::new(false));
                }
                None => {
                    keys.push(key);
                    units.push(Unit {
                        settings: job.steadystate,
                        measure_offset_ns: offset,
                        members: vec![index],
                        counters: vec![SteadyCounters::default()],
                        finished: vec![AtomicBool::new(false)],
                        stop: AtomicBool::new(false),
                    });
                }
            }
        }
        (!units.is_empty()).then_some(PhaseWatch { units })
    }

    fn find(&self, worker: usize) -> Option<(&Unit, usize)> {
        self.units.iter().find_map(|unit| {
            let slot = unit.members.iter().position(|&m| m == worker)?;
            Some((unit, slot))
        })
    }

    /// The hooks for worker `worker`, if its job is watched.
    pub(crate) fn hooks(&self, worker: usize) -> Option<SteadyHooks<'_>> {
        self.find(worker).map(|(unit, slot)| SteadyHooks {
            counters: &unit.counters[slot],
            stop: &unit.stop,
        })
    }

    /// Marks worker `worker` as ended (after its last IO was published).
    pub(crate) fn finished(&self, worker: usize) {
        if let Some((unit, slot)) = self.find(worker) {
            unit.finished[slot].store(true, Ordering::Release);
        }
    }

    /// The outcome for worker `worker`'s judged set, from [`PhaseWatch::run`]'s result.
    pub(crate) fn outcome_for(
        &self,
        outcomes: &[SteadyStateOutcome],
        worker: usize,
    ) -> Option<SteadyStateOutcome> {
        let at = self
            .units
            .iter()
            .position(|unit| unit.members.contains(&worker))?;
        outcomes.get(at).cloned()
    }

    /// The monitor thread's body: starts with the phase's workers (`start`), samples every
    /// watched job once per second until each has ended or reached steady state, or until
    /// `phase_over` disconnects. Returns one outcome per judged set (none when the start was
    /// cancelled).
    pub(crate) fn run(
        &self,
        start: &StartGate,
        phase_over: &Receiver<()>,
    ) -> Vec<SteadyStateOutcome> {
        if !start.wait() {
            return Vec::new();
        }
        let t0 = sys::monotonic_ns();
        let mut states: Vec<UnitState> = self
            .units
            .iter()
            .map(|unit| UnitState::new(unit, t0))
            .collect();
        while let Some(next) = states
            .iter()
            .filter(|s| !s.over)
            .map(|s| s.next_tick_ns)
            .min()
        {
            let now = sys::monotonic_ns();
            if next > now {
                match phase_over.recv_timeout(Duration::from_nanos(next - now)) {
                    Err(RecvTimeoutError::Timeout) => {}
                    _ => break,
                }
            }
            for (unit, state) in self.units.iter().zip(states.iter_mut()) {
                if !state.over && state.next_tick_ns <= sys::monotonic_ns() {
                    state.tick(unit, t0);
                }
            }
        }
        states
            .into_iter()
            .zip(&self.units)
            .map(|(state, unit)| state.outcome(unit))
            .collect()
    }
}

/// The monitor's bookkeeping for one judged set.
struct UnitState {
    next_tick_ns: u64,
    /// (ios, bytes, time, members ended) at the previous tick; `None` before the first.
    previous: Option<(u64, u64, u64, usize)>,
    window: SteadyWindow,
    last: Option<Judgement>,
    attained_at_ns: Option<u64>,
    over: bool,
}

impl UnitState {
    fn new(unit: &Unit, t0: u64) -> Self {
        UnitState {
            next_tick_ns: t0
                .saturating_add(unit.measure_offset_ns)
                .saturating_add(unit.settings.ramp_ns),
            previous: None,
            window: SteadyWindow::new(unit.settings.window_samples()),
            last: None,
            attained_at_ns: None,
            over: false,
        }
    }

    fn tick(&mut self, unit: &Unit, t0: u64) {
        // Counters first, then the ended flags: a member that ended before the read is seen
        // as ended, so its cut-short second is not used.
        let (ios, bytes) = unit
            .counters
            .iter()
            .map(SteadyCounters::snapshot)
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        let now = sys::monotonic_ns();
        let ended = unit
            .finished
            .iter()
            .filter(|f| f.load(Ordering::Acquire))
            .count();
        // The grid stays fixed; a monitor that fell behind skips the missed ticks.
        let sample_ns = unit.settings.sample_ns;
        self.next_tick_ns = (self.next_tick_ns + sample_ns).max(now + sample_ns / 2);
        if ended == unit.members.len() {
            self.over = true;
            return;
        }
        let previous = self.previous.replace((ios, bytes, now, ended));
        let Some((prev_ios, prev_bytes, prev_ns, prev_ended)) = previous else {
            return;
        };
        if ended != prev_ended || now <= prev_ns {
            return;
        }
        let seconds = (now - prev_ns) as f64 / 1e9;
        self.window.push(
            (ios - prev_ios) as f64 / seconds,
            (bytes - prev_bytes) as f64 / seconds,
        );
        if let Some(judgement) = self.window.judge(&unit.settings) {
            self.last = Some(judgement);
            if judgement.holds {
                self.attained_at_ns =
                    Some(now.saturating_sub(t0.saturating_add(unit.measure_offset_ns)));
                self.over = true;
                unit.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    fn outcome(self, unit: &Unit) -> SteadyStateOutcome {
        SteadyStateOutcome {
            settings: unit.settings,
            attained: self.attained_at_ns.is_some(),
            attained_at_ns: self.attained_at_ns,
            window_iops: self.window.iops(),
            window_bw_bytes_per_sec: self.window.bw_bytes_per_sec(),
            last: self.last,
        }
    }
}

/// fio's rule: every job of a reporting group has the same steady-state settings (fio
/// rejects the job otherwise), so a group is judged one way.
pub(crate) fn check_groups(plan: &RunPlan) -> Result<(), RunError> {
    let key = |ss: &SteadyState| {
        ss.enabled().then(|| {
            (
                ss.criterion,
                ss.limit,
                ss.window_samples(),
                ss.ramp_ns,
                ss.sample_ns,
                ss.precision_percent,
            )
        })
    };
    for (i, worker) in plan.workers.iter().enumerate() {
        let first = plan.workers[..i]
            .iter()
            .find(|w| w.group_id == worker.group_id);
        let Some(first) = first else { continue };
        let (a, b) = (&plan.jobs[first.job_index], &plan.jobs[worker.job_index]);
        if key(&a.steadystate) != key(&b.steadystate) {
            return Err(RunError::Job {
                job: b.name.clone(),
                message: format!(
                    "its steady-state options (steadystate, ss_dur, ss_ramp, ss_sample, \
                     ss_precision) differ from job {}'s in the same reporting group; fio \
                     refuses this too: give them the same, or start a new group with \
                     new_group or stonewall",
                    a.name
                ),
            });
        }
    }
    Ok(())
}
