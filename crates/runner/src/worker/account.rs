//! Reaping and accounting: collecting completions from the engine, counting each into the
//! worker's statistics (only what was granted inside the measured period), fio's `rate_min`
//! check, the live and steady-state counters, and the errors IOs end with.

use super::{engine_error, mark_submitted, SlotOp, SlotState, Worker, WorkerContext};
use crate::clock::Clock;
use crate::error::FailedIo;
use crate::RunError;
use diskmeter_engine::{sys, IoCompletion, IoEngine};
use diskmeter_stats::{CompletedIo, CpuUsage, DepthDistribution, IntervalRecorder, WorkerStats};
use diskmeter_workload::{Direction, JobSpec};

/// What the worker has counted so far.
pub(super) struct Tally {
    /// Reads, writes and syncs of the measured period.
    pub(super) stats: WorkerStats,
    series: IntervalRecorder,
    pub(super) depth: DepthDistribution,
    /// fio's `rate_min` per direction, for the directions the job does.
    rate_min: [Option<u64>; 2],
    rate_cycle_ns: u64,
    rate_window_start: u64,
    rate_window_bytes: [u64; 2],
    /// fio's `rate_iops_min` per direction, for the directions the job does.
    rate_min_ios: [Option<u64>; 2],
    rate_window_ios: [u64; 2],
    /// `[read_ios, read_bytes, write_ios, write_bytes]` not yet published.
    live_pending: [u64; 4],
    /// Bytes issued in the measured period (the size limit).
    pub(super) issued_bytes: u64,
    /// Writes stamped so far (each write's stamp is unique).
    pub(super) writes_issued: u64,
    /// The ramp is over.
    measuring: bool,
    measure_start: u64,
    cpu_start: sys::ThreadCpuUsage,
}

impl Tally {
    pub(super) fn new(job: &JobSpec, issues: [bool; 2]) -> Tally {
        Tally {
            stats: WorkerStats::new(),
            // The job's sample length (per second unless DiskSpd's -D says otherwise): set
            // once here, so the hot path's work per IO does not change with it.
            series: IntervalRecorder::new(u64::from(job.series_interval_ms) * 1_000_000),
            depth: DepthDistribution::new(),
            rate_min: Direction::BOTH.map(|d| {
                job.rate_min_bytes_per_sec
                    .get(d)
                    .filter(|_| issues[d.index()])
            }),
            rate_min_ios: Direction::BOTH.map(|d| {
                job.control
                    .rate_iops_min
                    .get(d)
                    .filter(|_| issues[d.index()])
            }),
            rate_window_ios: [0; 2],
            rate_cycle_ns: job.rate_cycle_ns,
            rate_window_start: 0,
            rate_window_bytes: [0; 2],
            live_pending: [0; 4],
            issued_bytes: 0,
            writes_issued: 0,
            measuring: false,
            measure_start: 0,
            cpu_start: sys::thread_cpu_usage(),
        }
    }

    /// The clock has started; `measuring` when there is no ramp.
    pub(super) fn start(&mut self, measure_start: u64, measuring: bool) {
        self.measure_start = measure_start;
        self.rate_window_start = measure_start;
        self.measuring = measuring;
    }

    /// At the end of the ramp: CPU use and the `rate_min` window start from here.
    #[inline]
    pub(super) fn enter_measurement(&mut self, now: u64) {
        if !self.measuring && now >= self.measure_start {
            self.measuring = true;
            self.cpu_start = sys::thread_cpu_usage();
            self.rate_window_start = now;
        }
    }

    /// Publishes what completed since the last call to the live view and the steady-state
    /// monitor.
    #[inline]
    pub(super) fn publish(&mut self, ctx: &WorkerContext<'_>) {
        if let Some(steady) = ctx.steady {
            steady.counters.add(&self.live_pending);
        }
        ctx.live.add(&mut self.live_pending);
    }

    /// The statistics, with `runtime_ns` of measured time.
    pub(super) fn finish(self, runtime_ns: u64) -> WorkerStats {
        let cpu_end = sys::thread_cpu_usage();
        let mut stats = self.stats;
        stats.series = self.series.finish(runtime_ns);
        stats.depth = self.depth;
        let cpu_start = &self.cpu_start;
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
        stats
    }
}

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// Submits what `issue` queued and collects completions: waiting for at least
    /// `iodepth_batch_complete_min` of them, or only polling when a rate or throttle turn
    /// is due (`wake_at`) and a slot could take it; when polling with IO in flight, waits in
    /// the engine until a completion or the turn. Returns the minimum asked for, and whether
    /// it already waited.
    #[inline]
    pub(super) fn reap(&mut self, wake_at: Option<u64>) -> Result<Reaped, RunError> {
        let queue = &mut self.queue;
        let pending = queue.just_queued.len();
        // Held IOs must go at their turn, so completions are polled, not waited for.
        // So are the IOs serving a service time, which must leave when it ends.
        let min = if wake_at.is_some()
            && (!queue.free.is_empty() || !queue.held.is_empty() || !queue.delayed.is_empty())
        {
            0
        } else {
            self.shape.complete_min.min(queue.in_flight + pending)
        };
        queue.completions.clear();
        let job = self.ctx.job;
        if pending > 0 && min > 0 {
            // Submit and wait in one call where the engine can: the submission time then
            // falls inside that call, so slat ends at the call and clat starts there.
            let before = self.clock.now_ns();
            self.engine
                .commit_and_getevents(min, &mut queue.completions)
                .map_err(|e| engine_error(job, e))?;
            mark_submitted(&mut queue.slots, &queue.just_queued, before);
        } else {
            if pending > 0 {
                self.engine.commit().map_err(|e| engine_error(job, e))?;
                let submitted = self.clock.now_ns();
                mark_submitted(&mut queue.slots, &queue.just_queued, submitted);
            }
            self.engine
                .getevents(min, &mut queue.completions)
                .map_err(|e| engine_error(job, e))?;
        }
        if pending > 0 {
            queue.in_flight += pending;
            self.tally.depth.record(queue.busy() as u32);
        }
        let mut waited = false;
        if let (0, Some(due)) = (min, wake_at) {
            if self.queue.completions.is_empty() && self.queue.in_flight > 0 {
                // Waiting for a rate-limited IO's turn with IO in flight: wait in the engine
                // for a completion or the turn, so a completion is timed when it happens.
                let now = self.clock.now_ns();
                // The wait ends SPIN_NS early: the clock's precise sleep spins the rest.
                let limit = due
                    .saturating_sub(now)
                    .saturating_sub(crate::clock::SPIN_NS)
                    .min(super::MAX_SLEEP_NS);
                if limit > 0 {
                    waited = self
                        .engine
                        .getevents_within(limit, &mut self.queue.completions)
                        .map_err(|e| engine_error(job, e))?
                        .is_some();
                }
            }
        }
        Ok(Reaped { min, waited })
    }

    /// Counts the completions of the last reap; under an emulated service time a read or
    /// write that succeeded first serves it in its slot ([`Self::release_served`]).
    #[inline]
    pub(super) fn account(&mut self) {
        let done = self.clock.now_ns();
        for k in 0..self.queue.completions.len() {
            let completion = self.queue.completions[k];
            if let Some(delays) = &mut self.delays {
                let slot = &self.queue.slots[completion.slot as usize];
                if matches!(slot.op, SlotOp::Transfer(_)) && completion.result >= 0 {
                    let end = done + delays.next_ns();
                    self.queue.in_flight -= 1;
                    self.queue.delayed.push((end, completion));
                    continue;
                }
            }
            self.account_one(completion, done);
        }
    }

    /// Counts the IOs whose service time has ended by `now`, as completed now: the time they
    /// served is in their latencies, and their slots are free again.
    #[cold]
    pub(super) fn release_served(&mut self, now: u64) {
        let mut k = 0;
        while k < self.queue.delayed.len() {
            let (end, completion) = self.queue.delayed[k];
            if end <= now {
                self.queue.delayed.swap_remove(k);
                // account_one takes it out of the engine's count: it was taken out already.
                self.queue.in_flight += 1;
                self.account_one(completion, now);
            } else {
                k += 1;
            }
        }
    }

    /// Frees the slot of one completion and counts it: a sync in the sync statistics, a
    /// read or write in its direction if it was granted inside the measured period; an
    /// error ends the worker (ENOSPC ends a `fill_device` job normally).
    ///
    /// Out of line on purpose: callgrind counted fewer instructions per IO this way than
    /// with it inlined into the loop (1,078 against 1,122 at QD 1 on the null engine, 880
    /// against 914 at QD 32), the histogram updates compiling tighter in a small function.
    #[inline(never)]
    fn account_one(&mut self, completion: IoCompletion, done: u64) {
        let slot = self.queue.slots[completion.slot as usize];
        self.queue.free.push(completion.slot);
        self.queue.in_flight -= 1;
        let window = self.window;
        // One compare for reads and writes; syncs and trims are counted out of line.
        let SlotOp::Transfer(direction) = slot.op else {
            self.account_sync_or_trim(&slot, completion.result, done);
            return;
        };
        if completion.result < 0 {
            let errno = -completion.result;
            let full = errno == i64::from(libc::ENOSPC) || errno == i64::from(libc::EDQUOT);
            if self.ctx.job.fill_device && full {
                // fill_device ends here: the filesystem is full, as asked.
                self.stopping = true;
                return;
            }
            self.io_error(&slot, completion.result);
            return;
        }
        if let (SlotOp::Transfer(Direction::Write), Some(verify)) = (slot.op, &mut self.verify) {
            // Every write is read back, ramp included; a short one left part of the block old.
            if completion.result as u64 == u64::from(slot.len_bytes) {
                verify.log_write(super::verify::WrittenBlock {
                    file: slot.file,
                    offset_bytes: slot.offset_bytes,
                    len_bytes: slot.len_bytes,
                    generation: verify.generation_in(completion.slot),
                });
            }
        }
        if slot.op == SlotOp::Transfer(Direction::Read) && self.verify.is_some() {
            self.check_completed_read(completion.slot, &slot, completion.result);
        }
        if let Some(controls) = &mut self.controls {
            let lat = done.saturating_sub(slot.issue_ns);
            let on_target = controls.completed(done, lat);
            if lat > controls.max_latency_ns || !on_target {
                self.fail_slow(lat, on_target);
                return;
            }
        }
        if !window.counts(slot.granted_ns) {
            return;
        }
        let bytes = completion.result as u64;
        let synchronous = self.shape.synchronous;
        let lat = done.saturating_sub(slot.issue_ns);
        let clat = if synchronous {
            lat
        } else {
            done.saturating_sub(slot.submit_ns)
        };
        let slat = (!synchronous).then(|| slot.submit_ns.saturating_sub(slot.issue_ns));
        if self.shape.trims && direction == Direction::Write {
            if let Some(backlog) = &mut self.trims.backlog {
                backlog.written(slot.file, slot.offset_bytes, bytes);
            }
        }
        let tally = &mut self.tally;
        tally.rate_window_bytes[direction.index()] += bytes;
        tally.rate_window_ios[direction.index()] += 1;
        let stats = tally.stats.direction_mut(direction);
        stats.ios += 1;
        stats.bytes += bytes;
        if bytes < u64::from(slot.len_bytes) {
            stats.short_ios += 1;
        }
        stats.clat.record(clat);
        if let Some(slat) = slat {
            stats.slat.record(slat);
        }
        stats.lat.record(lat);
        let since_start_ns = done - window.measure_start;
        tally.series.record(direction, bytes, lat, since_start_ns);
        if self.pace.is_limited(direction) {
            let intended = done.saturating_sub(slot.intended_ns);
            stats.lat_intended.record(intended);
            tally.series.record_intended(direction, intended);
        }
        if let Some(log) = self.iolog.as_deref_mut() {
            log.record(&CompletedIo {
                since_start_ns,
                direction,
                bytes,
                offset_bytes: slot.offset_bytes,
                lat_ns: lat,
                clat_ns: clat,
                slat_ns: slat,
            });
        }
        tally.live_pending[direction.index() * 2] += 1;
        tally.live_pending[direction.index() * 2 + 1] += bytes;
    }

    /// fio's `max_latency` (an IO slower than it), or a `latency_target` missed at depth 1
    /// (`on_target` false): the job ends with an error, as fio's does with ETIMEDOUT.
    #[cold]
    fn fail_slow(&mut self, latency_ns: u64, on_target: bool) {
        if self.failure.is_none() {
            let job = self.ctx.job.name.clone();
            let controls = self.controls.as_ref();
            self.failure = Some(if on_target {
                RunError::MaxLatencyExceeded {
                    job,
                    latency_ns,
                    max_ns: controls.map_or(0, |c| c.max_latency_ns),
                }
            } else {
                RunError::LatencyTargetUnmet {
                    job,
                    latency_ns,
                    target_ns: controls.map_or(0, |c| c.latency_target_ns()),
                }
            });
        }
        self.stopping = true;
    }

    /// Counts a completed sync in the sync statistics (one of `end_fsync`: not counted, as
    /// fio) or a trim in the trim statistics; a failed sync ends the worker.
    #[cold]
    fn account_sync_or_trim(&mut self, slot: &SlotState, result: i64, done: u64) {
        if slot.op == SlotOp::Trim {
            self.account_trim(slot, result, done);
        } else if result < 0 {
            self.fail(slot, result);
        } else if slot.op == SlotOp::Sync && slot.issue_ns >= self.window.measure_start {
            self.tally
                .stats
                .sync
                .record(done.saturating_sub(slot.issue_ns));
        }
    }

    /// The first error ends the worker (after its in-flight IO has drained).
    #[cold]
    pub(super) fn fail(&mut self, slot: &SlotState, result: i64) {
        if self.failure.is_none() {
            self.failure = Some(self.io_failure(slot, result));
        }
        self.stopping = true;
    }

    /// fio's `rate_min`: every `rate_cycle` of the measured period, each direction must have
    /// moved at least its minimum, or the job fails (as fio ends it).
    #[inline]
    pub(super) fn check_rate_min(&mut self, now: u64) {
        let tally = &mut self.tally;
        if !tally.measuring
            || self.failure.is_some()
            || now < tally.rate_window_start + tally.rate_cycle_ns
        {
            return;
        }
        let window_ns = now - tally.rate_window_start;
        for direction in Direction::BOTH {
            let d = direction.index();
            if let Some(min) = tally.rate_min[d] {
                let got = tally.rate_window_bytes[d] as u128 * 1_000_000_000 / window_ns as u128;
                if got < u128::from(min) && now < self.window.measure_end {
                    self.failure = Some(RunError::RateMinNotMet {
                        job: self.ctx.job.name.clone(),
                        direction,
                        moved_bytes_per_sec: u64::try_from(got).unwrap_or(u64::MAX),
                        window_ms: window_ns / 1_000_000,
                        min_bytes_per_sec: min,
                    });
                    self.stopping = true;
                }
            }
            if let Some(min) = tally.rate_min_ios[d] {
                let got = u128::from(tally.rate_window_ios[d]) * 1_000_000_000 / window_ns as u128;
                if got < u128::from(min) && now < self.window.measure_end {
                    self.failure.get_or_insert(RunError::RateIopsMinNotMet {
                        job: self.ctx.job.name.clone(),
                        direction,
                        moved_iops: u64::try_from(got).unwrap_or(u64::MAX),
                        window_ms: window_ns / 1_000_000,
                        min_iops: min,
                    });
                    self.stopping = true;
                }
            }
        }
        tally.rate_window_bytes = [0; 2];
        tally.rate_window_ios = [0; 2];
        tally.rate_window_start = now;
    }

    /// The error of an IO that completed with `-errno` = `result`.
    pub(super) fn io_failure(&self, slot: &SlotState, result: i64) -> RunError {
        let path = self
            .ctx
            .targets
            .get(slot.file as usize)
            .map(|(_, t)| t.path.clone())
            .unwrap_or_default();
        let io = match slot.op {
            SlotOp::Transfer(direction) => FailedIo::Transfer {
                direction,
                len_bytes: slot.len_bytes,
                offset_bytes: slot.offset_bytes,
                path,
            },
            SlotOp::Sync | SlotOp::EndSync => FailedIo::Sync { path },
            SlotOp::Trim => FailedIo::Trim {
                len_bytes: slot.len_bytes,
                offset_bytes: slot.offset_bytes,
                path,
            },
        };
        RunError::IoFailed {
            job: self.ctx.job.name.clone(),
            io,
            source: std::io::Error::from_raw_os_error((-result) as i32),
        }
    }
}

/// What a reap did.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reaped {
    /// The completions it waited for (0: it polled).
    pub min: usize,
    /// It polled, then waited in the engine until a completion or the next turn.
    pub waited: bool,
}
