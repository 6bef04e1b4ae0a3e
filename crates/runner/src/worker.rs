//! One worker thread's IO loop: keep `iodepth` IOs in flight, pace them when rate-limited,
//! time every IO, and count everything into the worker's statistics.
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

use crate::arrivals::PoissonGaps;
use crate::offsets::{FileRegion, MixChooser, OffsetGenerator, OffsetPattern};
use crate::plan::{engine_choice, TargetPlan, WorkerPlan};
use crate::safety::describe_io_error;
use crate::sizes::SizeChooser;
use crate::{LiveCounters, RunError};
use diskmeter_engine::{sys, BufferFill, EngineConfig, IoCompletion, IoOp, IoUnit};
use diskmeter_stats::{CompletedIo, IoLogRecorder};
use diskmeter_stats::{CpuUsage, DepthDistribution, DirectionStats, IntervalRecorder, WorkerStats};
use diskmeter_workload::{Direction, JobSpec, RandomDistribution};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

/// `SlotState::direction` of a file sync (0 and 1 are read and write).
const SYNC: u8 = 2;
/// `SlotState::direction` of an `end_fsync` sync: like fio, not counted in the sync stats.
const END_SYNC: u8 = 3;

/// Per-second samples of the series.
const INTERVAL_NS: u64 = 1_000_000_000;
/// Longest sleep while waiting for a rate-limited IO's turn with IOs in flight: bounds how
/// late a completion can be noticed (and so how much it can inflate a latency).
const RATE_POLL_NS: u64 = 50_000;
/// Longest single sleep with nothing in flight (slow rates): stop and deadline are checked
/// at least this often.
const MAX_SLEEP_NS: u64 = 10_000_000;

#[derive(Debug, Clone, Copy, Default)]
struct SlotState {
    direction: u8,
    len_bytes: u32,
    offset_bytes: u64,
    file: u32,
    intended_ns: u64,
    issue_ns: u64,
    submit_ns: u64,
}

/// An IO waiting for its turn at the shared throttle: chosen, its tokens reserved, not yet
/// submitted.
#[derive(Debug, Clone, Copy)]
struct HeldIo {
    slot: u32,
    direction: usize,
    intended_ns: u64,
    len_bytes: u64,
    /// When the worker wanted to issue it: its latency counts from here.
    wanted_ns: u64,
    /// When the throttle lets it go.
    turn_ns: u64,
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
    /// All workers start together.
    pub start: &'a Barrier,
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
}

/// What a worker hands back: its statistics and the error that ended it early, if any.
pub struct WorkerOutcome {
    /// Statistics of the measured period.
    pub stats: WorkerStats,
    /// Why the worker stopped early.
    pub error: Option<String>,
}

/// Runs one worker to completion. Setup errors are returned after the start barrier has
/// been passed, so siblings are never left waiting.
pub fn run_worker(mut ctx: WorkerContext<'_>) -> WorkerOutcome {
    let mut stats = empty_stats();
    let iolog = ctx.iolog.take();
    let engine = build_engine(&ctx);
    ctx.start.wait();
    let mut engine = match engine {
        Ok(engine) => engine,
        Err(error) => {
            ctx.abort.store(true, Ordering::Relaxed);
            return WorkerOutcome {
                stats,
                error: Some(error.to_string()),
            };
        }
    };
    let error = io_loop(&ctx, engine.as_mut(), &mut stats, iolog)
        .err()
        .map(|e| e.to_string());
    WorkerOutcome { stats, error }
}

fn empty_stats() -> WorkerStats {
    WorkerStats::new()
}

fn build_engine(ctx: &WorkerContext<'_>) -> Result<Box<dyn diskmeter_engine::IoEngine>, RunError> {
    if let Some(cpus) = &ctx.job.cpus_allowed {
        sys::set_thread_affinity(cpus).map_err(|e| RunError::Job {
            job: ctx.job.name.clone(),
            message: format!("cannot pin to cpus_allowed ({e})"),
        })?;
    }
    let config = EngineConfig {
        choice: engine_choice(ctx.job.ioengine),
        iodepth: ctx.plan.iodepth,
        buffer_len_bytes: ctx.job.max_bs_bytes() as usize,
        buffer_align_bytes: ctx.buffer_align_bytes,
        fds: ctx.targets.iter().map(|(fd, _)| *fd).collect(),
        fixed_buffers: ctx.job.fixedbufs,
        register_files: ctx.job.registerfiles,
        fill: match (ctx.job.zero_buffers, ctx.job.buffer_compress_percentage) {
            (true, _) => BufferFill::Zero,
            (false, Some(zero_percent)) => BufferFill::Compressible {
                zero_percent,
                chunk_bytes: u32::try_from(ctx.job.buffer_compress_chunk_bytes).unwrap_or(u32::MAX),
            },
            (false, None) => BufferFill::Random,
        },
        seed: ctx.plan.seed,
    };
    diskmeter_engine::open_engine(&config).map_err(|e| RunError::Job {
        job: ctx.job.name.clone(),
        message: e.to_string(),
    })
}

fn io_loop(
    ctx: &WorkerContext<'_>,
    engine: &mut dyn diskmeter_engine::IoEngine,
    stats: &mut WorkerStats,
    mut iolog: Option<&mut IoLogRecorder>,
) -> Result<(), RunError> {
    let job = ctx.job;
    let plan = ctx.plan;
    let synchronous = engine.capabilities().synchronous;
    let depth = plan.iodepth.max(1) as usize;
    let batch = plan.submit_batch.clamp(1, depth as u32) as usize;
    let complete_min = job.iodepth_batch_complete_min.max(1) as usize;
    let regions: Vec<FileRegion> = ctx
        .targets
        .iter()
        .map(|(_, t)| FileRegion {
            start_bytes: t.region_start_bytes,
            len_bytes: t.region_len_bytes,
        })
        .collect();
    let issues = [job.rw.reads(), job.rw.writes()];
    // Random offsets fall on `blockalign`, by default the direction's smallest block size.
    let align = Direction::BOTH.map(|d| {
        job.blockalign_bytes
            .get(d)
            .unwrap_or(job.bs_bounds(d).0)
            .max(1)
    });
    let grid = (0..2)
        .filter(|&d| issues[d])
        .map(|d| align[d])
        .min()
        .unwrap_or(4096);
    let no_map = job.norandommap
        || job.blockalign_bytes.read.is_some()
        || job.blockalign_bytes.write.is_some();
    let pattern = match (job.rw.is_random(), job.random_distribution, no_map) {
        (false, _, _) => OffsetPattern::Sequential,
        (true, RandomDistribution::Uniform, false) => OffsetPattern::RandomMap,
        (true, RandomDistribution::Uniform, true) => OffsetPattern::Uniform,
        (true, skewed, _) => OffsetPattern::Skewed(skewed),
    };
    let mut offsets = OffsetGenerator::new(&regions, pattern, grid, plan.seed)
        .with_random_percent(job.percentage_random)
        .with_offset_modifier(job.rw_offset_modifier);
    if let Some(shared) = &ctx.shared_positions {
        offsets = offsets.with_shared_positions(Arc::clone(shared));
    }
    let mut sizes = SizeChooser::new(job, plan.seed);
    let mut mix = MixChooser::new(
        if job.rw.is_mixed() {
            job.rwmixread
        } else if job.rw.reads() {
            100
        } else {
            0
        },
        plan.seed,
    );
    let rate_period = [plan.rate_period_ns.read, plan.rate_period_ns.write];
    // A bandwidth cap paces each IO by its own size (sizes vary with bsrange/bssplit).
    let rate_bytes = Direction::BOTH.map(|d| {
        job.rate_bytes_per_sec
            .get(d)
            .filter(|&r| r > 0 && job.rate_iops.get(d).is_none())
    });
    let gap_for = |d: usize, len: u64| match rate_bytes[d] {
        Some(rate) => ((u128::from(len) * 1_000_000_000) / u128::from(rate)).max(1) as u64,
        None => rate_period[d].unwrap_or(0),
    };
    let rate_limited = (0..2).any(|d| issues[d] && rate_period[d].is_some());
    // The direction a rate-limited mixed job issues between its limited IOs, if any.
    let free_running = (0..2).find(|&d| issues[d] && rate_period[d].is_none());
    if rate_limited || ctx.throttle.is_some() {
        // Best effort: without it sleeps overshoot by the default 50 us slack.
        let _ = sys::set_timer_slack_ns(1);
    }
    let sync_every = [
        (job.fsync_every, diskmeter_engine::IoOp::Fsync),
        (job.fdatasync_every, diskmeter_engine::IoOp::Fdatasync),
    ];
    let mut writes_since_sync = [0u32; 2];
    let mut pending_sync: Option<(diskmeter_engine::IoOp, u32)> = None;
    let mut end_sync_done = !(job.end_fsync && job.rw.writes());
    let mut end_sync_next = 0u32;
    let rate_min = Direction::BOTH.map(|d| {
        job.rate_min_bytes_per_sec
            .get(d)
            .filter(|_| issues[d.index()])
    });
    let mut rate_window_bytes = [0u64; 2];

    let mut slots = vec![SlotState::default(); depth];
    // IOs that have reserved their turn at the throttle and wait for it, each in its slot.
    let mut held: Vec<HeldIo> = Vec::with_capacity(if ctx.throttle.is_some() { depth } else { 0 });
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut completions: Vec<IoCompletion> = Vec::with_capacity(depth);
    let mut just_queued: Vec<u32> = Vec::with_capacity(batch);
    let mut in_flight = 0usize;
    let mut issued_bytes = 0u64;
    let scramble = !job.zero_buffers && job.buffer_compress_percentage != Some(100);
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
    let mut writes_issued = 0u64;
    let io_limit = plan.io_limit_bytes.unwrap_or(u64::MAX);

    // Allocated before the clock starts: setup is not measured time.
    let mut series = IntervalRecorder::new(INTERVAL_NS);
    let mut depth_dist = DepthDistribution::new();
    let mut read_stats = DirectionStats::new();
    let mut write_stats = DirectionStats::new();
    if job.startdelay_ns > 0 {
        // In short slices, so Ctrl-C is seen during a long delay.
        let until = sys::monotonic_ns().saturating_add(job.startdelay_ns);
        while !ctx.stop.load(Ordering::Relaxed) && sys::monotonic_ns() < until {
            sleep_until(until.min(sys::monotonic_ns() + MAX_SLEEP_NS));
        }
    }
    let t0 = sys::monotonic_ns();
    let measure_start = t0 + job.ramp_time_ns;
    // The measured period ends at `measure_end`; DiskSpd's cool-down keeps the load on after
    // it, uncounted, until `deadline`.
    let measure_end = plan
        .runtime_ns
        .map_or(u64::MAX, |r| measure_start.saturating_add(r));
    let deadline = plan
        .runtime_ns
        .map(|_| measure_end.saturating_add(job.cooldown_ns));
    let mut rate_window_start = measure_start;
    let mut next_intended = [t0; 2];
    let mut arrivals = PoissonGaps::new(plan.seed);
    let mut measuring = job.ramp_time_ns == 0;
    let mut cpu_start = sys::thread_cpu_usage();
    let mut live_pending = [0u64; 4];
    let mut stopping = false;
    let mut failure: Option<RunError> = None;

    loop {
        let now = sys::monotonic_ns();
        if !measuring && now >= measure_start {
            measuring = true;
            cpu_start = sys::thread_cpu_usage();
            rate_window_start = now;
        }
        if measuring && failure.is_none() && now >= rate_window_start + job.rate_cycle_ns {
            let window_ns = now - rate_window_start;
            for d in 0..2 {
                if let Some(min) = rate_min[d] {
                    let got = rate_window_bytes[d] as u128 * 1_000_000_000 / window_ns as u128;
                    if got < u128::from(min) && now < measure_end {
                        failure = Some(RunError::Job {
                            job: job.name.clone(),
                            message: format!(
                                "rate_min not met: {} {} over the last {} ms, below the minimum {} \
                                 (fio ends such a job too)",
                                if d == 0 { "reads moved" } else { "writes moved" },
                                diskmeter_units::format_rate_binary(got as f64),
                                window_ns / 1_000_000,
                                diskmeter_units::format_rate_binary(min as f64),
                            ),
                        });
                        stopping = true;
                    }
                }
            }
            rate_window_bytes = [0; 2];
            rate_window_start = now;
        }
        if !stopping
            && (ctx.stop.load(Ordering::Relaxed)
                || ctx.abort.load(Ordering::Relaxed)
                || deadline.is_some_and(|d| now >= d)
                || ctx.steady.is_some_and(|s| s.stop.load(Ordering::Relaxed))
                || issued_bytes >= io_limit)
        {
            stopping = true;
        }
        if stopping && !held.is_empty() {
            // At the end of the time (or once steady), IOs already waiting for their turn
            // were wanted inside the measured period: they go at their turn and count, or the
            // rate would be short by the queue's length. Interrupts, failures and a met size
            // limit end at once, and IOs wanted in a cool-down are never measured.
            let at_once = ctx.stop.load(Ordering::Relaxed)
                || ctx.abort.load(Ordering::Relaxed)
                || failure.is_some()
                || issued_bytes >= io_limit;
            let mut k = 0;
            while k < held.len() {
                if at_once || held[k].wanted_ns >= measure_end {
                    free.push(held.swap_remove(k).slot);
                } else {
                    k += 1;
                }
            }
        }
        let mut wake_at: Option<u64> = None;
        just_queued.clear();
        if !stopping || !held.is_empty() {
            while just_queued.len() < batch && issued_bytes < io_limit {
                // A throttled IO whose turn has come goes first, the earliest turn first.
                let due = held
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.turn_ns <= now)
                    .min_by_key(|(_, h)| h.turn_ns)
                    .map(|(i, _)| i);
                let (slot, direction, intended, len, wanted) = if let Some(i) = due {
                    let h = held.swap_remove(i);
                    (h.slot, h.direction, h.intended_ns, h.len_bytes, h.wanted_ns)
                } else {
                    if stopping || free.is_empty() {
                        break;
                    }
                    if let Some((op, file)) = pending_sync {
                        // A sync covers the writes before it: wait until they have completed,
                        // then issue it alone.
                        if in_flight + just_queued.len() > 0 {
                            break;
                        }
                        let slot = free.pop().unwrap_or_default();
                        queue_sync(engine, &mut slots, (slot, SYNC), op, file, now)
                            .map_err(|e| engine_error(job, e))?;
                        just_queued.push(slot);
                        pending_sync = None;
                        break;
                    }
                    let (direction, intended, len) = if !rate_limited {
                        let direction = if mix.next_is_read() { 0 } else { 1 };
                        (direction, now, sizes.next(direction))
                    } else {
                        // Each limited direction keeps its own schedule (so rates, not rwmixread,
                        // set the mix); an unlimited direction fills the time between.
                        let earliest = (0..2)
                            .filter(|&d| issues[d] && rate_period[d].is_some())
                            .min_by_key(|&d| next_intended[d]);
                        match (earliest, free_running) {
                            (Some(d), _) if next_intended[d] <= now => {
                                let due = next_intended[d];
                                let len = sizes.next(d);
                                let period = gap_for(d, len);
                                next_intended[d] = due
                                    + if job.rate_poisson {
                                        arrivals.exponential_gap(period)
                                    } else {
                                        period
                                    };
                                (d, due, len)
                            }
                            (_, Some(d)) => (d, now, sizes.next(d)),
                            (Some(d), None) => {
                                wake_at = Some(next_intended[d]);
                                break;
                            }
                            (None, None) => break,
                        }
                    };
                    let slot = free.pop().unwrap_or_default();
                    if let Some(throttle) = ctx.throttle {
                        // The IO takes its place in the shared queue now; if its turn is later
                        // it waits in its slot, its clock already running from `now`.
                        let turn_ns = throttle.reserve(direction, len, now);
                        if turn_ns > now {
                            held.push(HeldIo {
                                slot,
                                direction,
                                intended_ns: intended,
                                len_bytes: len,
                                wanted_ns: now,
                                turn_ns,
                            });
                            continue;
                        }
                    }
                    (slot, direction, intended, len, now)
                };
                // Like fio, the last IO is whole even if it passes the limit: a cut IO could
                // break O_DIRECT alignment.
                let (file, offset) = offsets.next(len, align[direction]);
                if direction == 1 && scramble {
                    // Like fio's scramble_buffers: every written 512-byte sector (every chunk
                    // of a compressible buffer) is unique, so deduplicating storage cannot
                    // make writes look cheaper than they are.
                    let stamp = (writes_issued ^ plan.seed).to_le_bytes();
                    writes_issued += 1;
                    let buffer = engine.buffer_mut(slot);
                    for sector in buffer[..len as usize].chunks_mut(stamp_every) {
                        let n = sector.len().min(stamp_len);
                        sector[..n].copy_from_slice(&stamp[..n]);
                    }
                }
                if direction == 1 {
                    for (k, &(every, op)) in sync_every.iter().enumerate() {
                        if every > 0 {
                            writes_since_sync[k] += 1;
                            if writes_since_sync[k] >= every {
                                writes_since_sync[k] = 0;
                                pending_sync = Some((op, file));
                            }
                        }
                    }
                }
                slots[slot as usize] = SlotState {
                    direction: direction as u8,
                    len_bytes: len as u32,
                    offset_bytes: offset,
                    file,
                    intended_ns: intended,
                    issue_ns: wanted,
                    submit_ns: now,
                };
                engine
                    .queue(IoUnit {
                        op: if direction == 0 {
                            IoOp::Read
                        } else {
                            IoOp::Write
                        },
                        file,
                        offset_bytes: offset,
                        len_bytes: len as u32,
                        slot,
                    })
                    .map_err(|e| engine_error(job, e))?;
                just_queued.push(slot);
                // The size limit counts measured IO only: a fast device must not finish
                // `size` inside the ramp and report nothing.
                if now >= measure_start {
                    issued_bytes += len;
                }
            }
            if let Some(turn) = held.iter().map(|h| h.turn_ns).min() {
                wake_at = Some(wake_at.map_or(turn, |w| w.min(turn)));
            }
            let more_now =
                !free.is_empty() && wake_at.is_none() && issued_bytes < io_limit && !synchronous;
            if !just_queued.is_empty() && more_now {
                // Keep filling while slots are free and nothing asks us to wait.
                engine.commit().map_err(|e| engine_error(job, e))?;
                let submitted = sys::monotonic_ns();
                mark_submitted(&mut slots, &just_queued, submitted);
                in_flight += just_queued.len();
                depth_dist.record(in_flight as u32);
                continue;
            }
        }
        let pending = just_queued.len();
        if in_flight + pending == 0 {
            let interrupted = ctx.stop.load(Ordering::Relaxed) || ctx.abort.load(Ordering::Relaxed);
            let drained = held.is_empty();
            if stopping && drained && failure.is_none() && !end_sync_done && !interrupted {
                // fio's end_fsync: each file once the job's writes have all completed.
                let file = end_sync_next;
                end_sync_next += 1;
                end_sync_done = end_sync_next as usize >= ctx.targets.len();
                let slot = free.pop().unwrap_or_default();
                let op = diskmeter_engine::IoOp::Fsync;
                let now = sys::monotonic_ns();
                queue_sync(engine, &mut slots, (slot, END_SYNC), op, file, now)
                    .map_err(|e| engine_error(job, e))?;
                engine.commit().map_err(|e| engine_error(job, e))?;
                mark_submitted(&mut slots, &[slot], sys::monotonic_ns());
                in_flight += 1;
                continue;
            }
            if (stopping && drained) || failure.is_some() {
                break;
            }
            if let Some(due) = wake_at {
                // Short slices, so Ctrl-C and the deadline are seen during long waits.
                // Past the deadline only held IOs are waited for.
                let until = match deadline {
                    Some(d) if !stopping => due.min(d),
                    _ => due,
                };
                sleep_until(until.min(sys::monotonic_ns() + MAX_SLEEP_NS));
            }
            continue;
        }
        // Held IOs must go at their turn, so completions are polled, not waited for.
        let min = if wake_at.is_some() && (!free.is_empty() || !held.is_empty()) {
            0
        } else {
            complete_min.min(in_flight + pending)
        };
        completions.clear();
        if pending > 0 && min > 0 {
            // Submit and wait in one call where the engine can: the submission time then
            // falls inside that call, so slat ends at the call and clat starts there.
            let before = sys::monotonic_ns();
            engine
                .commit_and_getevents(min, &mut completions)
                .map_err(|e| engine_error(job, e))?;
            mark_submitted(&mut slots, &just_queued, before);
        } else {
            if pending > 0 {
                engine.commit().map_err(|e| engine_error(job, e))?;
                mark_submitted(&mut slots, &just_queued, sys::monotonic_ns());
            }
            engine
                .getevents(min, &mut completions)
                .map_err(|e| engine_error(job, e))?;
        }
        if pending > 0 {
            in_flight += pending;
            depth_dist.record(in_flight as u32);
        }
        let done = sys::monotonic_ns();
        for completion in &completions {
            let slot = slots[completion.slot as usize];
            free.push(completion.slot);
            in_flight -= 1;
            if slot.direction >= SYNC {
                if completion.result < 0 {
                    if failure.is_none() {
                        failure = Some(io_failure(ctx, &slot, completion.result));
                    }
                    stopping = true;
                } else if slot.direction == SYNC && slot.issue_ns >= measure_start {
                    stats.sync.record(done.saturating_sub(slot.issue_ns));
                }
                continue;
            }
            let full = -completion.result == i64::from(libc::ENOSPC)
                || -completion.result == i64::from(libc::EDQUOT);
            if completion.result < 0 && job.fill_device && full {
                // fill_device ends here: the filesystem is full, as asked.
                stopping = true;
                continue;
            }
            if completion.result < 0 {
                if slot.issue_ns >= measure_start {
                    let stats = if slot.direction == 0 {
                        &mut read_stats
                    } else {
                        &mut write_stats
                    };
                    stats.errors += 1;
                }
                if failure.is_none() {
                    failure = Some(io_failure(ctx, &slot, completion.result));
                }
                stopping = true;
                continue;
            }
            if slot.issue_ns < measure_start || slot.issue_ns >= measure_end {
                continue;
            }
            let bytes = completion.result as u64;
            let direction = slot.direction as usize;
            rate_window_bytes[direction] += bytes;
            let stats = if direction == 0 {
                &mut read_stats
            } else {
                &mut write_stats
            };
            stats.ios += 1;
            stats.bytes += bytes;
            if bytes < slot.len_bytes as u64 {
                stats.short_ios += 1;
            }
            let lat = done.saturating_sub(slot.issue_ns);
            if synchronous {
                stats.clat.record(lat);
            } else {
                stats
                    .slat
                    .record(slot.submit_ns.saturating_sub(slot.issue_ns));
                stats.clat.record(done.saturating_sub(slot.submit_ns));
            }
            stats.lat.record(lat);
            if rate_period[direction].is_some() {
                stats
                    .lat_intended
                    .record(done.saturating_sub(slot.intended_ns));
            }
            series.record(Direction::BOTH[direction], bytes, lat, done - measure_start);
            if let Some(log) = iolog.as_deref_mut() {
                log.record(&CompletedIo {
                    since_start_ns: done - measure_start,
                    direction: Direction::BOTH[direction],
                    bytes,
                    offset_bytes: slot.offset_bytes,
                    lat_ns: lat,
                    clat_ns: if synchronous {
                        lat
                    } else {
                        done.saturating_sub(slot.submit_ns)
                    },
                    slat_ns: (!synchronous).then(|| slot.submit_ns.saturating_sub(slot.issue_ns)),
                });
            }
            live_pending[direction * 2] += 1;
            live_pending[direction * 2 + 1] += bytes;
        }
        if min == 0 && completions.is_empty() {
            if let Some(due) = wake_at {
                sleep_until(due.min(sys::monotonic_ns() + RATE_POLL_NS));
            }
        }
        if let Some(steady) = ctx.steady {
            steady.counters.add(&live_pending);
        }
        ctx.live.add(&mut live_pending);
    }
    let end = sys::monotonic_ns();
    let cpu_end = sys::thread_cpu_usage();
    let runtime_ns = end.min(measure_end).saturating_sub(measure_start.min(end));
    stats.read = read_stats;
    stats.write = write_stats;
    stats.series = series.finish(runtime_ns);
    stats.depth = depth_dist;
    stats.cpu = CpuUsage {
        user_ns: cpu_end.user_ns.saturating_sub(cpu_start.user_ns),
        sys_ns: cpu_end.sys_ns.saturating_sub(cpu_start.sys_ns),
        voluntary_ctx: cpu_end
            .voluntary_ctx_switches
            .saturating_sub(cpu_start.voluntary_ctx_switches),
        involuntary_ctx: cpu_end
            .involuntary_ctx_switches
            .saturating_sub(cpu_start.involuntary_ctx_switches),
    };
    stats.runtime_ns = runtime_ns;
    match failure {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Queues a file sync (fsync or fdatasync) of `file` in `slot`.
fn queue_sync(
    engine: &mut dyn diskmeter_engine::IoEngine,
    slots: &mut [SlotState],
    (slot, kind): (u32, u8),
    op: IoOp,
    file: u32,
    now: u64,
) -> Result<(), diskmeter_engine::EngineError> {
    slots[slot as usize] = SlotState {
        direction: kind,
        len_bytes: 0,
        offset_bytes: 0,
        file,
        intended_ns: now,
        issue_ns: now,
        submit_ns: now,
    };
    engine.queue(IoUnit {
        op,
        file,
        offset_bytes: 0,
        len_bytes: 0,
        slot,
    })
}

fn mark_submitted(slots: &mut [SlotState], queued: &[u32], submitted_ns: u64) {
    for &slot in queued {
        slots[slot as usize].submit_ns = submitted_ns;
    }
}

fn sleep_until(deadline_ns: u64) {
    let now = sys::monotonic_ns();
    if deadline_ns > now {
        std::thread::sleep(std::time::Duration::from_nanos(deadline_ns - now));
    }
}

fn engine_error(job: &JobSpec, error: diskmeter_engine::EngineError) -> RunError {
    RunError::Job {
        job: job.name.clone(),
        message: error.to_string(),
    }
}

fn io_failure(ctx: &WorkerContext<'_>, slot: &SlotState, result: i64) -> RunError {
    let path = ctx
        .targets
        .get(slot.file as usize)
        .map(|(_, t)| t.path.display().to_string())
        .unwrap_or_default();
    let error = std::io::Error::from_raw_os_error((-result) as i32);
    let direction = match slot.direction {
        0 => Direction::Read,
        1 => Direction::Write,
        _ => {
            return RunError::Job {
                job: ctx.job.name.clone(),
                message: format!("syncing {path} failed: {}", describe_io_error(&error)),
            }
        }
    };
    RunError::Job {
        job: ctx.job.name.clone(),
        message: format!(
            "{} of {} bytes at offset {} of {} failed: {}",
            direction.as_str(),
            slot.len_bytes,
            slot.offset_bytes,
            path,
            describe_io_error(&error)
        ),
    }
}
