//! The worker's verify IO (see [`super::verify`] for what is verified and how it counts):
//! the job's IO or, for `verify_only`, the log of its writes rebuilt without writing; the
//! backlog passes and the verify phase, reading logged blocks back through the job's engine
//! at its `iodepth`; reads of a read-only job checked as they complete; the state file of a
//! write phase cut short; and the job's verdict.

use super::verify::{load_state, WrittenBlock, STATE_HEADER};
use super::{engine_error, mark_submitted, Worker};
use crate::clock::Clock;
use crate::RunError;
use diskmeter_engine::{IoEngine, IoOp, IoUnit};
use diskmeter_workload::Direction;
use std::sync::atomic::Ordering;

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// fio's `verify_only`: the job's writes are chosen as a run would choose them (same
    /// seed, offsets, sizes and mix) but not issued; each is logged with its generation.
    pub(super) fn log_writes_without_writing(&mut self) -> Result<(), RunError> {
        let limit = self.shape.io_limit_bytes;
        if limit == u64::MAX {
            return Err(RunError::Job {
                job: self.ctx.job.name.clone(),
                message: "verify_only needs a size-based job (size, io_size or loops): the \
                          writes of a time-based job depend on how fast they ran"
                    .to_string(),
            });
        }
        let job = &self.ctx.job.name;
        let Some(verify) = self.verify.as_deref_mut() else {
            return Ok(());
        };
        let max_writes = match &verify.state_load {
            Some(path) => load_state(path).map_err(|message| RunError::Job {
                job: job.clone(),
                message: format!("verify_state_load: {}: {message}", path.display()),
            })?,
            None => u64::MAX,
        };
        let mut issued = 0u64;
        while issued < limit && verify.next_generation < max_writes && !self.offsets.exhausted() {
            let direction = if self.mix.next_is_read() {
                Direction::Read
            } else {
                Direction::Write
            };
            let len_bytes = self.sizes.next(direction);
            let (file, offset_bytes) = self.offsets.next(
                direction.index(),
                len_bytes,
                self.shape.align[direction.index()],
            );
            if direction == Direction::Write {
                let generation = verify.next_write();
                verify.log_write(WrittenBlock {
                    file,
                    offset_bytes,
                    len_bytes: len_bytes as u32,
                    generation,
                });
            }
            issued += len_bytes;
        }
        Ok(())
    }

    /// fio's `verify_state_save`: when the write phase was cut short (a signal, a failed
    /// sibling, an error), the number of writes issued (every one of them completed or failed
    /// before the loop ended) goes to the state file. A state that cannot be written loses
    /// the state, not the run.
    pub(super) fn save_state_if_cut_short(&mut self) {
        let cut_short = self.ctx.stop.load(Ordering::Relaxed)
            || self.ctx.abort.load(Ordering::Relaxed)
            || self.failure.is_some();
        let Some(verify) = self.verify.as_deref() else {
            return;
        };
        if let (true, Some(path)) = (cut_short, &verify.state_save) {
            let _ = std::fs::write(
                path,
                format!("{STATE_HEADER}\nwrites {}\n", verify.next_generation),
            );
        }
    }

    /// Checks a read of a job that only reads (`check_reads`) as it completes; with
    /// `verify_fatal` a mismatch stops the job.
    pub(super) fn check_completed_read(
        &mut self,
        slot: u32,
        state: &super::SlotState,
        result: i64,
    ) {
        let Some(verify) = self.verify.as_deref_mut() else {
            return;
        };
        if !verify.check_reads || result < 0 {
            return;
        }
        let len = (result as usize).min(state.len_bytes as usize);
        let path = self
            .ctx
            .targets
            .get(state.file as usize)
            .map(|(_, t)| t.path.display().to_string())
            .unwrap_or_default();
        let block = WrittenBlock {
            file: state.file,
            offset_bytes: state.offset_bytes,
            len_bytes: state.len_bytes,
            generation: 0,
        };
        let data = &self.engine.buffer_mut(slot)[..len];
        let started = self.clock.now_ns();
        let failed = verify.check(&block, data, &path).is_some();
        verify.stats.runtime_ns += self.clock.now_ns().saturating_sub(started);
        if failed && verify.fatal {
            self.stopping = true;
        }
    }

    /// The job's own IO: its loop, then the state file if it was cut short; for
    /// `verify_only`, the log of its writes rebuilt without writing. The verify phase after
    /// it is timed apart.
    pub(super) fn run_io(&mut self) -> Result<(), RunError> {
        if self.verify.as_ref().is_some_and(|v| v.only) {
            return self.log_writes_without_writing();
        }
        let ran = self.run_loop();
        if self.verify.is_some() {
            self.save_state_if_cut_short();
        }
        ran
    }

    /// The verify phase once the writes have drained (fio `do_verify`, or `verify_only`),
    /// unless the worker failed or was stopped; then the job's verdict on what it found.
    pub(super) fn after_writes(&mut self) -> Result<(), RunError> {
        let Some(verify) = self.verify.as_deref() else {
            return Ok(());
        };
        let only_verify = verify.only;
        let interrupted =
            self.ctx.stop.load(Ordering::Relaxed) || self.ctx.abort.load(Ordering::Relaxed);
        // Like fio, a job whose runtime ran out (time_based, or a runtime shorter than its
        // size) has no time left for the verify phase; its backlog passes did run.
        let now = self.clock.now_ns();
        let out_of_time = self.window.deadline.is_some_and(|d| now >= d);
        if (verify.after_writes || only_verify)
            && !verify.ended_by_mismatch()
            && self.failure.is_none()
            && !interrupted
            && !out_of_time
        {
            self.verify_phase()?;
        }
        self.verify_outcome();
        Ok(())
    }

    /// fio's `verify_backlog`: once `verify_backlog` writes have completed and nothing is in
    /// flight, the oldest `verify_backlog_batch` logged blocks are checked before more IO is
    /// issued.
    #[inline]
    pub(super) fn verify_backlog_if_due(&mut self) -> Result<(), RunError> {
        if self.verify.is_none() || self.queue.busy() > 0 || !self.queue.held.is_empty() {
            return Ok(());
        }
        let blocks = match self.verify.as_deref_mut() {
            Some(verify) if verify.backlog_due() => verify.take_backlog(),
            _ => return Ok(()),
        };
        self.verify_blocks(blocks)
    }

    /// The verify phase after the writes: every block still in the log.
    pub(super) fn verify_phase(&mut self) -> Result<(), RunError> {
        let blocks = match self.verify.as_deref_mut() {
            Some(verify) => verify.take_all(),
            None => return Ok(()),
        };
        self.verify_blocks(blocks)
    }

    /// Reads `blocks` back through the engine, `iodepth` at a time, and checks each. An IO
    /// error ends the worker; `verify_fatal` stops at the first mismatch; a stop signal ends
    /// the pass early.
    fn verify_blocks(&mut self, blocks: Vec<WrittenBlock>) -> Result<(), RunError> {
        if blocks.is_empty() {
            return Ok(());
        }
        let started = self.clock.now_ns();
        let mut pending: Vec<Option<WrittenBlock>> = vec![None; self.queue.slots.len()];
        let mut next = blocks.into_iter();
        let mut feeding = true;
        let mut in_flight = 0usize;
        loop {
            self.queue.just_queued.clear();
            while feeding {
                let Some(slot) = self.queue.free.pop() else {
                    break;
                };
                let Some(block) = next.next() else {
                    self.queue.free.push(slot);
                    feeding = false;
                    break;
                };
                self.engine
                    .queue(IoUnit {
                        op: IoOp::Read,
                        file: block.file,
                        offset_bytes: block.offset_bytes,
                        len_bytes: block.len_bytes,
                        slot,
                    })
                    .map_err(|e| engine_error(self.ctx.job, e))?;
                pending[slot as usize] = Some(block);
                self.queue.just_queued.push(slot);
            }
            if in_flight + self.queue.just_queued.len() == 0 {
                break;
            }
            self.queue.completions.clear();
            let before = self.clock.now_ns();
            self.engine
                .commit_and_getevents(1, &mut self.queue.completions)
                .map_err(|e| engine_error(self.ctx.job, e))?;
            mark_submitted(&mut self.queue.slots, &self.queue.just_queued, before);
            in_flight += self.queue.just_queued.len();
            for k in 0..self.queue.completions.len() {
                let completion = self.queue.completions[k];
                in_flight -= 1;
                self.queue.free.push(completion.slot);
                let Some(block) = pending[completion.slot as usize].take() else {
                    continue;
                };
                if completion.result < 0 {
                    let slot = &mut self.queue.slots[completion.slot as usize];
                    slot.offset_bytes = block.offset_bytes;
                    slot.len_bytes = block.len_bytes;
                    slot.file = block.file;
                    slot.op = super::SlotOp::Transfer(Direction::Read);
                    let error = self.io_failure(
                        &self.queue.slots[completion.slot as usize],
                        completion.result,
                    );
                    self.fail_with(error);
                    feeding = false;
                    continue;
                }
                let len = (completion.result as usize).min(block.len_bytes as usize);
                let path = self
                    .ctx
                    .targets
                    .get(block.file as usize)
                    .map(|(_, t)| t.path.display().to_string())
                    .unwrap_or_default();
                let data = &self.engine.buffer_mut(completion.slot)[..len];
                let Some(verify) = self.verify.as_deref_mut() else {
                    continue;
                };
                if verify.check(&block, data, &path).is_some() && verify.fatal {
                    feeding = false;
                }
            }
            if self.ctx.stop.load(Ordering::Relaxed) || self.ctx.abort.load(Ordering::Relaxed) {
                feeding = false;
            }
        }
        let elapsed = self.clock.now_ns().saturating_sub(started);
        if let Some(verify) = self.verify.as_deref_mut() {
            verify.stats.runtime_ns += elapsed;
            if verify.ended_by_mismatch() {
                // A backlog pass found one: the job writes no more.
                self.stopping = true;
            }
        }
        Ok(())
    }

    /// After verifying: the job fails when a block did not match (fio ends such a job with
    /// EILSEQ), naming the first mismatch.
    pub(super) fn verify_outcome(&mut self) {
        let Some(verify) = self.verify.as_deref() else {
            return;
        };
        if let Some(first) = verify.stats.failures.first() {
            let error = RunError::VerifyFailed {
                job: self.ctx.job.name.clone(),
                errors: verify.stats.errors,
                blocks: verify.stats.blocks,
                first: Box::new(first.clone()),
            };
            self.fail_with(error);
        }
    }
}
