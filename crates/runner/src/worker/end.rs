//! The end of a run: when to stop, what happens to IOs still waiting for their throttle
//! turn, fio's `end_fsync` once the job has drained, and the measured time.

use super::{engine_error, mark_submitted, SlotOp, Worker, WorkerOutcome, MAX_SLEEP_NS};
use crate::clock::Clock;
use crate::RunError;
use diskmeter_engine::{IoEngine, IoOp};
use std::sync::atomic::Ordering;

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// True when the job has nothing left to do before its size: every file's random map
    /// filled in its last loop (`OffsetGenerator::exhausted`), or a random trim-only job's
    /// emulated zones hold no data (`EmulatedZones::ended`).
    #[inline]
    pub(super) fn out_of_work(&self) -> bool {
        self.offsets.exhausted() || self.zbd.as_ref().is_some_and(|z| z.ended())
    }

    /// Raises `stopping` when the run should end: a signal, a failed sibling, the deadline,
    /// steady state reached, the size limit issued, or no work left.
    #[inline]
    pub(super) fn check_stop(&mut self, now: u64) {
        if !self.stopping
            && (self.ctx.stop.load(Ordering::Relaxed)
                || self.ctx.abort.load(Ordering::Relaxed)
                || self.window.deadline.is_some_and(|d| now >= d)
                || self
                    .ctx
                    .steady
                    .is_some_and(|s| s.stop.load(Ordering::Relaxed))
                || self.tally.issued_bytes >= self.shape.io_limit_bytes
                || self.out_of_work()
                || self.replay.as_ref().is_some_and(|r| r.finished())
                || self.controls.as_ref().is_some_and(|c| c.done())
                || (self.watch_exit && self.ctx.links.told_to_exit()))
        {
            self.stopping = true;
        }
    }

    /// At the end, IOs waiting for their throttle turn that had not been granted it are not
    /// issued: they were not done inside the runtime, and issuing them would count up to
    /// `iodepth` IOs the cap never allowed in it. Those granted by now (and before the
    /// measured period ended) go at once. Interrupts, failures and a met size limit drop
    /// them all.
    pub(super) fn cancel_held(&mut self, now: u64) {
        let at_once = self.ctx.stop.load(Ordering::Relaxed)
            || self.ctx.abort.load(Ordering::Relaxed)
            || self.failure.is_some()
            || self.tally.issued_bytes >= self.shape.io_limit_bytes;
        let measure_end = self.window.measure_end;
        let queue = &mut self.queue;
        let mut k = 0;
        while k < queue.held.len() {
            let held = queue.held[k];
            let granted = held.turn_ns <= now && held.turn_ns < measure_end;
            if at_once || !granted {
                queue.free.push(queue.held.swap_remove(k).slot);
            } else {
                k += 1;
            }
        }
    }

    /// Nothing in flight: the end syncs once the job has drained, the end, or a wait for the
    /// next due IO. False when the loop is over.
    pub(super) fn idle(&mut self, wake_at: Option<u64>) -> Result<bool, RunError> {
        let interrupted =
            self.ctx.stop.load(Ordering::Relaxed) || self.ctx.abort.load(Ordering::Relaxed);
        let drained = self.queue.held.is_empty() && self.queue.delayed.is_empty();
        if self.stopping
            && drained
            && self.failure.is_none()
            && !self.syncs.end_done
            && !interrupted
        {
            self.issue_end_sync()?;
            return Ok(true);
        }
        if (self.stopping && drained) || self.failure.is_some() {
            return Ok(false);
        }
        if let Some(due) = wake_at {
            // Short slices, so Ctrl-C and the deadline are seen during long waits. Past the
            // deadline only held IOs are waited for.
            let until = match self.window.deadline {
                Some(d) if !self.stopping => due.min(d),
                _ => due,
            };
            let now = self.clock.now_ns();
            self.clock.sleep_until(until.min(now + MAX_SLEEP_NS));
        }
        Ok(true)
    }

    /// A failure that ends the worker after in-flight IO drains (the first one is kept).
    pub(super) fn fail_with(&mut self, error: RunError) {
        if self.failure.is_none() {
            self.failure = Some(error);
        }
        self.stopping = true;
    }

    /// The statistics of the measured period, which ended at `end` (the job's last IO; a
    /// verify phase after it is timed apart), and the error that ended it early, if any.
    pub(super) fn finish(mut self, end: u64) -> WorkerOutcome {
        if let Some(recorder) = self.recorder.take() {
            if let Err(error) = recorder.finish(end) {
                self.failure.get_or_insert(error);
            }
        }
        let window = self.window;
        let runtime_ns = end
            .min(window.measure_end)
            .saturating_sub(window.measure_start.min(end));
        let mut stats = self.tally.finish(runtime_ns);
        if let Some(verify) = self.verify.take() {
            stats.verify = verify.stats;
        }
        stats.latency_target_depth = self.controls.as_ref().and_then(|c| c.latency_depth());
        if let Some(connections) = &self.connections {
            stats.connections = connections.stats;
        }
        WorkerOutcome {
            stats,
            error: self.failure,
        }
    }

    /// fio's `end_fsync`: each file once, after the job's writes have all completed.
    pub(super) fn issue_end_sync(&mut self) -> Result<(), RunError> {
        let file = self.syncs.end_next_file;
        self.syncs.end_next_file += 1;
        self.syncs.end_done = self.syncs.end_next_file as usize >= self.ctx.targets.len();
        let slot = self.queue.free.pop().unwrap_or_default();
        let now = self.clock.now_ns();
        self.queue_sync(slot, SlotOp::EndSync, IoOp::Fsync, file, now)?;
        self.engine
            .commit()
            .map_err(|e| engine_error(self.ctx.job, e))?;
        let submitted = self.clock.now_ns();
        mark_submitted(&mut self.queue.slots, &[slot], submitted);
        self.queue.in_flight += 1;
        Ok(())
    }
}
