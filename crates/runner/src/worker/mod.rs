//! One worker thread's IO loop: keep `iodepth` IOs in flight, pace them when rate-limited,
//! time every IO, and count everything into the worker's statistics.
//!
//! The loop is a [`Worker`]: its state lives in fields and each pass is a few small steps
//! of [`Worker::run`]: `start_delay` and `start` (in `begin.rs`), `issue` (with `pace`
//! choosing what is due; in `issue.rs`), `reap` and `account` (in `account.rs`); the end of
//! the run (stopping, IOs still waiting for their throttle turn, `end_fsync`) is in `end.rs`.
//! fio's pacing and ending rules (think time, `number_ios`, the latency search, flow) are in
//! `control.rs`, strided zones in `zones.rs` (zbd zones in `crate::zbd`), the offset
//! generator's construction in `placement.rs`. The worker is generic over its [`Clock`] and
//! its engine: in production the TSC clock and the boxed engine, in the unit tests
//! (`tests.rs`) a manual clock and the null engine, so no test waits for real time.
//!
//! Timestamps are the runner's, taken around the engine calls, so every engine is measured
//! the same way: issue (before `queue`), submitted (after `commit` returns) and completed
//! (after `getevents` returns). slat = submitted - issue, clat = completed - submitted,
//! lat = completed - issue. For rate-limited directions each IO also has an intended issue
//! time on a fixed schedule; `lat_intended` = completed - intended, so a stall that delays
//! issuing shows up in the latency instead of being hidden (no coordinated omission).
//!
//! Under the run's shared throttle ([`crate::throttle`]) an IO reserves its turn when a slot
//! is free and waits in the slot until then; its issue time is when it was wanted, so the
//! wait is in slat (clat for synchronous engines) and lat, as a throttled device's queue is.
//!
//! What counts: an IO is done inside the measured period when it was *granted* inside it,
//! i.e. issued (or, under the throttle, given its turn) after the ramp and before the
//! runtime ended. An IO still waiting for its turn when the runtime ends is not issued at
//! all, so a cap holds at any runtime (the over-report of exactly `iodepth` IOs of issue 13).

mod account;
mod begin;
mod cmdprio;
mod connections;
mod control;
mod end;
mod entry;
mod issue;
mod pacing;
mod placement;
mod syncs;
#[cfg(test)]
mod tests;
mod trims;
mod verify;
mod verify_io;
mod zones;

use placement::{identical_every, offsets_for, offsets_for_regions, region_of};

use crate::clock::Clock;
use crate::gate::StartGate;
use crate::offsets::{MixChooser, OffsetGenerator};
use crate::prepare::{TargetPlan, WorkerPlan};
use crate::replay::{IoRecorder, ReplaySource};
use crate::sizes::SizeChooser;
use crate::{LiveCounters, RunError};
use diskmeter_engine::{BufferFill, IoCompletion, IoEngine, IoOp};
use diskmeter_stats::{IoLogRecorder, WorkerStats};
use diskmeter_workload::{Direction, JobSpec};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use syncs::Syncs;

pub use control::FlowGroup;
pub use entry::run_worker;

/// Longest sleep while waiting for a rate-limited IO's turn with IOs in flight, on an engine
/// that cannot wait for a completion with a time limit (io_uring and libaio wait in the
/// kernel instead): bounds how late a completion can be noticed (and so how much it can
/// inflate a latency).
const RATE_POLL_NS: u64 = 50_000;
/// Longest single sleep with nothing in flight (slow rates): stop and deadline are checked
/// at least this often.
const MAX_SLEEP_NS: u64 = 10_000_000;

/// What a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotOp {
    /// A read or a write, counted in its direction.
    Transfer(Direction),
    /// A sync of `fsync=N` or `fdatasync=N`, counted in the sync statistics.
    Sync,
    /// A sync of `end_fsync`: like fio, not counted.
    EndSync,
    /// A trim, counted in the trim statistics.
    Trim,
}

/// The IO in one slot, from its issue to its completion.
#[derive(Debug, Clone, Copy)]
struct SlotState {
    op: SlotOp,
    len_bytes: u32,
    offset_bytes: u64,
    file: u32,
    /// When the rate schedule wanted it (rate-limited directions); for a trim see `trims.rs`.
    intended_ns: u64,
    /// When the worker wanted to issue it: its latency counts from here.
    issue_ns: u64,
    /// When it was granted: issued, or given its turn by the throttle. Decides whether it
    /// is counted inside the measured period.
    granted_ns: u64,
    /// When the engine had it.
    submit_ns: u64,
}

impl Default for SlotState {
    fn default() -> Self {
        SlotState {
            op: SlotOp::Transfer(Direction::Read),
            len_bytes: 0,
            offset_bytes: 0,
            file: 0,
            intended_ns: 0,
            issue_ns: 0,
            granted_ns: 0,
            submit_ns: 0,
        }
    }
}

/// An IO waiting for its turn at the shared throttle: chosen, its tokens reserved, not yet
/// submitted.
#[derive(Debug, Clone, Copy)]
struct HeldIo {
    slot: u32,
    direction: Direction,
    intended_ns: u64,
    len_bytes: u64,
    /// When the worker wanted to issue it: its latency counts from here.
    wanted_ns: u64,
    /// When the throttle lets it go.
    turn_ns: u64,
    /// A replayed IO's file and offset (`None`: the offset generator picks them).
    at: Option<(u32, u64)>,
}

/// Everything a worker needs, borrowed from the executor.
pub struct WorkerContext<'a> {
    /// The worker's plan.
    pub plan: &'a WorkerPlan,
    /// Its job.
    pub job: &'a JobSpec,
    /// Its targets with their open descriptors.
    pub targets: Vec<(RawFd, &'a TargetPlan)>,
    /// Set by Ctrl-C / SIGTERM: stop issuing, drain, report (partial).
    pub stop: &'a AtomicBool,
    /// Set by a worker that failed: the others stop too (the run failed, it is not partial).
    pub abort: &'a AtomicBool,
    /// Progress counters for the live view.
    pub live: &'a LiveCounters,
    /// All workers start together (or none does, when a thread could not be started).
    pub start: &'a StartGate,
    /// Buffer alignment (the devices' logical block size, at least 4 KiB).
    pub buffer_align_bytes: usize,
    /// Sequential positions shared by every worker of the job (DiskSpd `-si`), one per file.
    pub shared_positions: Option<Arc<[AtomicU64]>>,
    /// fio's log files (`write_bw_log` and the like), if the job asks for any.
    pub iolog: Option<&'a mut IoLogRecorder>,
    /// Steady-state detection, if the job asks for it: counters the monitor samples, and
    /// its flag to end the job once it is steady.
    pub steady: Option<crate::monitor::SteadyHooks<'a>>,
    /// The run's shared throttle, if it has caps.
    pub throttle: Option<&'a crate::throttle::Throttle>,
    /// The emulated service time added to each read and write (`--throttle-latency`).
    pub service_time: Option<crate::service_time::ServiceTime>,
    /// What the worker shares with other jobs: `wait_for`, `exitall`, `flow`.
    pub links: crate::coordination::Links<'a>,
}

impl<'a> WorkerContext<'a> {
    /// The context with its links to other jobs.
    pub(crate) fn with_links(mut self, links: crate::coordination::Links<'a>) -> Self {
        self.links = links;
        self
    }
}

/// What a worker hands back: its statistics and the error that ended it early, if any.
pub struct WorkerOutcome {
    /// Statistics of the measured period.
    pub stats: WorkerStats,
    /// Why the worker stopped early.
    pub error: Option<RunError>,
}

/// What the job asks of the loop, read from the job and plan once.
struct Shape {
    /// IO happens inside `commit` (psync): no submission latency.
    synchronous: bool,
    /// IOs per submit call.
    batch: usize,
    /// Fewest completions a blocking reap waits for (fio `iodepth_batch_complete_min`).
    complete_min: usize,
    /// Which directions the job does, indexed by [`Direction::index`].
    issues: [bool; 2],
    /// Random offsets fall on these (fio `blockalign`), per direction.
    align: [u64; 2],
    /// Bytes to issue before stopping (size-based runs); `u64::MAX` for time-only limits.
    io_limit_bytes: u64,
    /// The job trims (`Trims::active_for`), kept here for the hot path's one check.
    trims: bool,
    /// Stamp written sectors so every write is unique (fio `scramble_buffers`).
    scramble: bool,
    /// Hold an IO that overlaps one in flight until that one completes (fio
    /// `serialize_overlap`).
    serialize: bool,
    /// Random IOs shrink to the free run of fio's random map (`placement::shrinks`).
    shrinks: bool,
    stamp_every: usize,
    stamp_len: usize,
}

/// The measured period, on the worker's clock.
#[derive(Debug, Clone, Copy, Default)]
struct Window {
    /// The ramp ends here: IOs granted before are not counted.
    measure_start: u64,
    /// The measured period ends here: IOs granted at or after are not counted.
    measure_end: u64,
    /// The load stops here (after DiskSpd's cool-down, which keeps it on uncounted).
    deadline: Option<u64>,
}

impl Window {
    /// True for an IO granted inside the measured period.
    #[inline]
    fn counts(&self, granted_ns: u64) -> bool {
        granted_ns >= self.measure_start && granted_ns < self.measure_end
    }
}

/// The queue: slots, IOs waiting for their throttle turn, and what is in flight.
struct Queue {
    slots: Vec<SlotState>,
    /// IOs that have reserved their turn at the throttle and wait for it, each in its slot.
    held: Vec<HeldIo>,
    free: Vec<u32>,
    completions: Vec<IoCompletion>,
    /// Slots queued in this pass, not yet committed.
    just_queued: Vec<u32>,
    /// IOs the engine has.
    in_flight: usize,
    /// Completed reads and writes serving their emulated service time (`--throttle-latency`),
    /// with when it ends: their slots stay busy until then.
    delayed: Vec<(u64, IoCompletion)>,
}

impl Queue {
    /// IOs outstanding as the emulated device sees them: the engine's and those serving their
    /// service time.
    #[inline]
    fn busy(&self) -> usize {
        self.in_flight + self.delayed.len()
    }
}

/// The worker: one job clone's IO loop and everything it counts.
pub(crate) struct Worker<'a, C: Clock, E: IoEngine + ?Sized> {
    ctx: &'a WorkerContext<'a>,
    engine: &'a mut E,
    clock: C,
    iolog: Option<&'a mut IoLogRecorder>,
    /// The run's shared throttle (`ctx.throttle`, kept at hand for the hot path).
    throttle: Option<&'a crate::throttle::Throttle>,
    shape: Shape,
    pace: pacing::Pacing,
    window: Window,
    offsets: OffsetGenerator,
    sizes: SizeChooser,
    mix: MixChooser,
    queue: Queue,
    syncs: Syncs,
    tally: account::Tally,
    /// The job's `read_iolog`: where replayed IOs come from.
    replay: Option<ReplaySource>,
    /// The job's `write_iolog`: where issued IOs are recorded.
    recorder: Option<IoRecorder>,
    /// Think time, `number_ios`, the latency search, flow, `iodepth_low`, `max_latency`
    /// (`None` when the job uses none of them).
    controls: Option<Box<control::Controls>>,
    /// Some job of the run has `exitall`: watch its flags.
    watch_exit: bool,
    /// fio `zonemode=strided`: the zone the offsets come from.
    zones: Option<Box<zones::Zones>>,
    /// fio `zonemode=zbd`: the emulated zones' write pointers.
    zbd: Option<Box<crate::zbd::EmulatedZones>>,
    /// fio's `dedupe_percentage`: each write's data generated (`None` when off).
    dedupe: Option<Box<crate::buffer_contents::DedupeFill>>,
    /// Each IO's own priority (`cmdprio_*`), when the job gives IOs one.
    cmdprio: Option<cmdprio::CmdPrioChooser>,
    /// fio `rw_sequencer=identical`: each random offset used `rw=rand...:N` times.
    identical: Option<zones::Identical>,
    /// Iometer's connection-rate test: targets closed and opened every N IOs.
    connections: Option<Box<connections::Connections>>,
    /// What trimming owes: trimwrite's writes, backlog and replayed trims.
    trims: trims::Trims,
    /// No new IO is chosen; in-flight IO drains.
    stopping: bool,
    /// What ended the worker early, if anything did.
    failure: Option<RunError>,
    /// Data verification (fio `verify`); its writes are unique, so they get no stamps.
    verify: Option<Box<verify::VerifyRun>>,
    /// Draws of the emulated service time (`--throttle-latency`), when there is one.
    delays: Option<crate::service_time::ServiceDelays>,
}

/// What a pass of the loop does next after issuing.
enum AfterIssue {
    /// A batch was committed and slots are free: issue again.
    IssueMore,
    /// Reap (or wait), waking by this time when a rate or throttle turn is due.
    Reap { wake_at: Option<u64> },
}

impl<'a, C: Clock, E: IoEngine + ?Sized> Worker<'a, C, E> {
    /// A worker for `ctx` on `engine`, reading `clock`. Everything is allocated here, before
    /// the clock starts: setup is not measured time.
    pub(crate) fn new(
        ctx: &'a WorkerContext<'a>,
        engine: &'a mut E,
        clock: C,
        iolog: Option<&'a mut IoLogRecorder>,
    ) -> Self {
        let (job, plan) = (ctx.job, ctx.plan);
        let depth = plan.iodepth.max(1) as usize;
        let batch = plan.submit_batch.clamp(1, depth as u32) as usize;
        let issues = [job.rw.reads(), job.rw.writes()];
        let sized = &trims::trim_sized(job).unwrap_or_else(|| job.clone());
        // Random offsets fall on `blockalign`, by default the direction's smallest block size.
        let align = Direction::BOTH.map(|d| {
            job.blockalign_bytes
                .get(d)
                .unwrap_or(sized.bs_bounds(d).0)
                .max(1)
        });
        let verify = verify::VerifyRun::for_job(ctx);
        // Verified writes carry their own unique contents: no stamps over them.
        let scramble = verify.is_none() && crate::buffer_contents::scrambles(job);
        crate::buffer_contents::fill_slots_with_pattern(&mut *engine, job, depth as u32);
        // Stamp each sector; in a compressible buffer only the random head of each chunk, so
        // the stamps do not eat into the zeros.
        let (stamp_every, stamp_len) = match job.buffer_compress_percentage {
            Some(percent) => {
                let chunk = match job.buffer_compress_chunk_bytes {
                    0 => job.max_bs_bytes(),
                    n => n,
                } as usize;
                (
                    chunk.max(1),
                    BufferFill::random_prefix_bytes(percent, chunk).min(8),
                )
            }
            None => (512, 8),
        };
        let shape = Shape {
            synchronous: engine.capabilities().synchronous,
            batch,
            complete_min: job.iodepth_batch_complete_min.max(1) as usize,
            issues,
            align,
            io_limit_bytes: plan.io_limit_bytes.unwrap_or(u64::MAX),
            trims: trims::Trims::active_for(job),
            scramble,
            serialize: job.control.serialize_overlap && depth > 1,
            shrinks: placement::shrinks(job, sized, issues),
            stamp_every,
            stamp_len,
        };
        let pace = pacing::Pacing::new(job, plan, issues);
        if pace.rate_limited || ctx.throttle.is_some() || ctx.service_time.is_some() {
            clock.want_precise_sleeps();
        }
        let throttled = ctx.throttle.is_some();
        let zones = job.control.strided_zones().map(|z| {
            Box::new(zones::Zones::new(
                z,
                ctx.targets.iter().map(|(_, t)| region_of(t)).collect(),
            ))
        });
        let offsets = match &zones {
            Some(zones) => offsets_for_regions(ctx, &shape, &zones.zone_regions()),
            None => offsets_for(ctx, &shape),
        };
        let zbd = job.control.zbd_zones().map(|z| {
            let regions: Vec<_> = ctx.targets.iter().map(|(_, t)| region_of(t)).collect();
            Box::new(
                crate::zbd::EmulatedZones::new(z, &regions, plan.seed)
                    .with_random_trims_only(random_trims_on_own_files(job)),
            )
        });
        Worker {
            offsets,
            zones,
            zbd,
            identical: identical_every(job).map(zones::Identical::new),
            connections: connections::Connections::for_job(job, ctx.targets.len()),
            sizes: SizeChooser::new(sized, plan.seed),
            mix: MixChooser::new(
                if job.rw.is_mixed() {
                    job.rwmixread
                } else if job.rw.reads() {
                    100
                } else {
                    0
                },
                plan.seed,
            ),
            queue: Queue {
                slots: vec![SlotState::default(); depth],
                held: Vec::with_capacity(if throttled || shape.serialize {
                    depth
                } else {
                    0
                }),
                free: (0..depth as u32).rev().collect(),
                completions: Vec::with_capacity(depth),
                just_queued: Vec::with_capacity(batch),
                in_flight: 0,
                delayed: Vec::with_capacity(if ctx.service_time.is_some() { depth } else { 0 }),
            },
            syncs: Syncs {
                every: [
                    (job.fsync_every, IoOp::Fsync),
                    (job.fdatasync_every, IoOp::Fdatasync),
                    crate::layout::sync_file_range_every(job),
                ],
                writes_since: [0; 3],
                pending: None,
                end_done: !(job.end_fsync && job.rw.writes()),
                end_next_file: 0,
            },
            tally: account::Tally::new(job, issues),
            pace,
            shape,
            window: Window::default(),
            throttle: ctx.throttle,
            ctx,
            engine,
            clock,
            iolog,
            replay: None,
            recorder: None,
            controls: control::Controls::for_job(job, depth as u32, ctx.links.flow.clone()),
            watch_exit: ctx.links.exit.is_some(),
            dedupe: crate::buffer_contents::DedupeFill::for_worker(job, &ctx.targets, plan.seed),
            cmdprio: cmdprio::CmdPrioChooser::new(job, plan.seed),
            trims: trims::Trims::new(job, plan.seed),
            stopping: false,
            failure: None,
            verify,
            delays: ctx
                .service_time
                .map(|model| crate::service_time::ServiceDelays::new(model, plan.seed)),
        }
    }

    /// Replays `replay` instead of generating IO: its IOs, at its times.
    pub(crate) fn with_replay(mut self, replay: Option<ReplaySource>) -> Self {
        if let Some(source) = &replay {
            if source.timed() {
                self.pace.replay_timed = true;
                self.clock.want_precise_sleeps();
            }
        }
        self.replay = replay;
        self
    }

    /// Records every issued IO to `recorder` (fio `write_iolog`).
    pub(crate) fn with_recorder(mut self, recorder: Option<IoRecorder>) -> Self {
        self.recorder = recorder;
        self
    }

    /// Runs the job to its end: start delay, ramp, measured period, drain, end syncs.
    /// An engine error ends it at once with empty statistics; an IO error, `rate_min` or a
    /// stop ends it after the in-flight IO has drained, with what was measured.
    pub(crate) fn run(mut self) -> WorkerOutcome {
        self.start_delay();
        self.start();
        let ran = self.run_io();
        let io_end = self.clock.now_ns();
        // fio's job ends after its verify phase: flow (when run_worker drops the worker's
        // membership), wait_for and exitall see it then.
        let ended = ran.and_then(|()| self.after_writes());
        match ended {
            Ok(()) => self.finish(io_end),
            Err(error) => WorkerOutcome {
                stats: WorkerStats::new(),
                error: Some(error),
            },
        }
    }

    /// The loop: each pass issues what is due, then reaps and accounts what completed.
    fn run_loop(&mut self) -> Result<(), RunError> {
        loop {
            self.verify_backlog_if_due()?;
            let now = self.clock.now_ns();
            self.tally.enter_measurement(now);
            if let Some(controls) = &mut self.controls {
                controls.tick(now);
            }
            self.check_rate_min(now);
            self.check_stop(now);
            if self.stopping && !self.queue.held.is_empty() {
                self.cancel_held(now);
            }
            if !self.queue.delayed.is_empty() {
                self.release_served(now);
            }
            let wake_at = match self.issue(now)? {
                AfterIssue::IssueMore => continue,
                AfterIssue::Reap { wake_at } => wake_at,
            };
            // An IO serving its service time is due out at its end.
            let wake_at = match self.queue.delayed.iter().map(|&(end, _)| end).min() {
                Some(end) => Some(wake_at.map_or(end, |w| w.min(end))),
                None => wake_at,
            };
            if self.queue.in_flight + self.queue.just_queued.len() == 0 {
                if self.idle(wake_at)? {
                    continue;
                }
                break;
            }
            let reaped = self.reap(wake_at)?;
            self.account();
            if reaped.min == 0 && !reaped.waited && self.queue.completions.is_empty() {
                // Polling for a turn that is due soon: sleep a little, not until it.
                if let Some(due) = wake_at {
                    let now = self.clock.now_ns();
                    self.clock.sleep_until(due.min(now + RATE_POLL_NS));
                }
            }
            self.tally.publish(self.ctx);
        }
        Ok(())
    }
}

/// Records when the engine had the slots of `queued`.
#[inline]
fn mark_submitted(slots: &mut [SlotState], queued: &[u32], submitted_ns: u64) {
    for &slot in queued {
        slots[slot as usize].submit_ns = submitted_ns;
    }
}

/// The job's engine failed.
fn engine_error(job: &JobSpec, source: diskmeter_engine::EngineError) -> RunError {
    RunError::Engine {
        job: job.name.clone(),
        source,
    }
}

/// True when a job trims only, at random, files that are its own (no `filename=` or
/// `filename_format`: fio names them after the job), so no other job writes their zones:
/// its emulated zones end it when none holds data (`EmulatedZones::ended`). fio shares a
/// target's zones over the jobs on it (a trim job there trims what a writing job wrote, as
/// in fio's zbd-rand-write-trim-gc.fio); diskmeter's zones are each job's own, so a trim job
/// on a named target keeps trimming.
fn random_trims_on_own_files(job: &JobSpec) -> bool {
    job.rw.trims_only()
        && job.rw.is_random()
        && job.filenames.is_empty()
        && job.files.filename_format.is_none()
}
