//! One worker thread's IO loop: keep `iodepth` IOs in flight, pace them when rate-limited,
//! time every IO, and count everything into the worker's statistics.
//!
//! Timestamps are the runner's, taken around the engine calls, so every engine is measured
//! the same way: issue (before `queue`), submitted (after `commit` returns) and completed
//! (after `getevents` returns). slat = submitted - issue, clat = completed - submitted,
//! lat = completed - issue. For rate-limited directions each IO also has an intended issue
//! time on a fixed schedule; `lat_intended` = completed - intended, so a stall that delays
//! issuing shows up in the latency instead of being hidden (no coordinated omission).

use crate::offsets::{FileRegion, MixChooser, OffsetGenerator, OffsetPattern};
use crate::plan::{engine_choice, TargetPlan, WorkerPlan};
use crate::safety::describe_io_error;
use crate::{LiveCounters, RunError};
use diskmeter_engine::{sys, BufferFill, EngineConfig, IoCompletion, IoOp, IoUnit};
use diskmeter_stats::{CompletedIo, IoLogRecorder};
use diskmeter_stats::{CpuUsage, DepthDistribution, DirectionStats, IntervalRecorder, WorkerStats};
use diskmeter_workload::{Direction, JobSpec};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;

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
    /// fio's log files (`write_bw_log` and the like), if the job asks for any.
    pub iolog: Option<&'a mut IoLogRecorder>,
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
        fill: if ctx.job.zero_buffers {
            BufferFill::Zero
        } else {
            BufferFill::Random
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
    let pattern = match (job.rw.is_random(), job.norandommap) {
        (false, _) => OffsetPattern::Sequential,
        (true, false) => OffsetPattern::RandomMap,
        (true, true) => OffsetPattern::Uniform,
    };
    let grid = match (job.rw.reads(), job.rw.writes()) {
        (true, true) => job.bs_bytes.read.min(job.bs_bytes.write),
        (true, false) => job.bs_bytes.read,
        _ => job.bs_bytes.write,
    };
    let mut offsets = OffsetGenerator::new(&regions, pattern, grid, plan.seed)
        .with_random_percent(job.percentage_random);
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
    let issues = [job.rw.reads(), job.rw.writes()];
    let rate_limited = (0..2).any(|d| issues[d] && rate_period[d].is_some());
    // The direction a rate-limited mixed job issues between its limited IOs, if any.
    let free_running = (0..2).find(|&d| issues[d] && rate_period[d].is_none());
    if rate_limited {
        // Best effort: without it sleeps overshoot by the default 50 us slack.
        let _ = sys::set_timer_slack_ns(1);
    }
    let bs = [job.bs_bytes.read, job.bs_bytes.write];

    let mut slots = vec![SlotState::default(); depth];
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut completions: Vec<IoCompletion> = Vec::with_capacity(depth);
    let mut just_queued: Vec<u32> = Vec::with_capacity(batch);
    let mut in_flight = 0usize;
    let mut issued_bytes = 0u64;
    let scramble = !job.zero_buffers;
    let mut writes_issued = 0u64;
    let io_limit = plan.io_limit_bytes.unwrap_or(u64::MAX);

    if job.startdelay_ns > 0 {
        // In short slices, so Ctrl-C is seen during a long delay.
        let until = sys::monotonic_ns().saturating_add(job.startdelay_ns);
        while !ctx.stop.load(Ordering::Relaxed) && sys::monotonic_ns() < until {
            sleep_until(until.min(sys::monotonic_ns() + MAX_SLEEP_NS));
        }
    }
    let t0 = sys::monotonic_ns();
    let measure_start = t0 + job.ramp_time_ns;
    let deadline = plan.runtime_ns.map(|r| measure_start.saturating_add(r));
    let mut next_intended = [t0; 2];
    let mut arrivals = PoissonGaps::new(plan.seed);
    let mut measuring = job.ramp_time_ns == 0;
    let mut cpu_start = sys::thread_cpu_usage();
    let mut series = IntervalRecorder::new(INTERVAL_NS);
    let mut depth_dist = DepthDistribution::new();
    let mut read_stats = DirectionStats::new();
    let mut write_stats = DirectionStats::new();
    let mut live_pending = [0u64; 4];
    let mut stopping = false;
    let mut failure: Option<RunError> = None;

    loop {
        let now = sys::monotonic_ns();
        if !measuring && now >= measure_start {
            measuring = true;
            cpu_start = sys::thread_cpu_usage();
        }
        if !stopping
            && (ctx.stop.load(Ordering::Relaxed)
                || ctx.abort.load(Ordering::Relaxed)
                || deadline.is_some_and(|d| now >= d)
                || issued_bytes >= io_limit)
        {
            stopping = true;
        }
        let mut wake_at: Option<u64> = None;
        just_queued.clear();
        if !stopping {
            while just_queued.len() < batch && !free.is_empty() && issued_bytes < io_limit {
                let (direction, intended) = if !rate_limited {
                    (if mix.next_is_read() { 0 } else { 1 }, now)
                } else {
                    // Each limited direction keeps its own schedule (so rates, not rwmixread,
                    // set the mix); an unlimited direction fills the time between.
                    let earliest = (0..2)
                        .filter(|&d| issues[d] && rate_period[d].is_some())
                        .min_by_key(|&d| next_intended[d]);
                    match (earliest, free_running) {
                        (Some(d), _) if next_intended[d] <= now => {
                            let due = next_intended[d];
                            let period = rate_period[d].unwrap_or(0);
                            next_intended[d] = due
                                + if job.rate_poisson {
                                    arrivals.exponential_gap(period)
                                } else {
                                    period
                                };
                            (d, due)
                        }
                        (_, Some(d)) => (d, now),
                        (Some(d), None) => {
                            wake_at = Some(next_intended[d]);
                            break;
                        }
                        (None, None) => break,
                    }
                };
                // Like fio, the last IO is whole even if it passes the limit: a cut IO could
                // break O_DIRECT alignment.
                let len = bs[direction];
                let (file, offset) = offsets.next(len);
                let slot = free.pop().unwrap_or_default();
                if direction == 1 && scramble {
                    // Like fio's scramble_buffers: every written 512-byte sector is unique, so
                    // deduplicating storage cannot make writes look cheaper than they are.
                    let stamp = (writes_issued ^ plan.seed).to_le_bytes();
                    writes_issued += 1;
                    let buffer = engine.buffer_mut(slot);
                    for sector in buffer[..len as usize].chunks_mut(512) {
                        let n = sector.len().min(8);
                        sector[..n].copy_from_slice(&stamp[..n]);
                    }
                }
                slots[slot as usize] = SlotState {
                    direction: direction as u8,
                    len_bytes: len as u32,
                    offset_bytes: offset,
                    file,
                    intended_ns: intended,
                    issue_ns: now,
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
        let pending = if stopping { 0 } else { just_queued.len() };
        if in_flight + pending == 0 {
            if stopping || failure.is_some() {
                break;
            }
            if let Some(due) = wake_at {
                // Short slices, so Ctrl-C and the deadline are seen during long waits.
                let until = deadline.map_or(due, |d| due.min(d));
                sleep_until(until.min(sys::monotonic_ns() + MAX_SLEEP_NS));
            }
            continue;
        }
        let min = if wake_at.is_some() && !free.is_empty() {
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
            if slot.issue_ns < measure_start {
                continue;
            }
            let bytes = completion.result as u64;
            let direction = slot.direction as usize;
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
            series.record(direction, bytes, lat, done - measure_start);
            if let Some(log) = iolog.as_deref_mut() {
                log.record(&CompletedIo {
                    since_start_ns: done - measure_start,
                    direction,
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
        ctx.live.add(&mut live_pending);
    }
    let end = sys::monotonic_ns();
    let cpu_end = sys::thread_cpu_usage();
    let runtime_ns = end.saturating_sub(measure_start.min(end));
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
    let direction = if slot.direction == 0 {
        Direction::Read
    } else {
        Direction::Write
    };
    let path = ctx
        .targets
        .get(slot.file as usize)
        .map(|(_, t)| t.path.display().to_string())
        .unwrap_or_default();
    let error = std::io::Error::from_raw_os_error((-result) as i32);
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

/// Exponentially distributed gaps with a given mean: the arrivals of a Poisson process
/// (fio `rate_process=poisson`).
struct PoissonGaps {
    rng: rand_xoshiro::Xoshiro256PlusPlus,
}

impl PoissonGaps {
    fn new(seed: u64) -> Self {
        use rand_xoshiro::rand_core::SeedableRng;
        PoissonGaps {
            rng: rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x3c6e_f372_fe94_f82b),
        }
    }

    /// A gap with mean `mean_ns`: -ln(U) x mean, U uniform in (0, 1].
    fn exponential_gap(&mut self, mean_ns: u64) -> u64 {
        use rand_xoshiro::rand_core::RngCore;
        let u = ((self.rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
        (-u.ln() * mean_ns as f64).round() as u64
    }
}

#[cfg(test)]
mod poisson_tests {
    use super::PoissonGaps;

    #[test]
    fn gaps_have_the_mean_and_the_spread_of_an_exponential() {
        let mut g = PoissonGaps::new(5);
        let gaps: Vec<f64> = (0..200_000)
            .map(|_| g.exponential_gap(1_000_000) as f64)
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((mean / 1e6 - 1.0).abs() < 0.01, "mean {mean}");
        // An exponential's standard deviation equals its mean (coefficient of variation 1).
        assert!(
            (var.sqrt() / mean - 1.0).abs() < 0.02,
            "cv {}",
            var.sqrt() / mean
        );
    }
}
