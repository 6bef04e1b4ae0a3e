//! The worker's side of data verification (fio's `verify` family): every write's buffer is
//! filled by the verify crate for its offset and generation; every completed write is logged;
//! the blocks are read back and checked after the writes (`do_verify`, the verify phase), or
//! every `verify_backlog` writes in batches of `verify_backlog_batch`; `verify_only` rebuilds
//! the log from the job's own offsets without writing and checks what is on the device.
//!
//! Verify reads are not the job's reads: they are counted in [`VerifyStats`] (blocks, bytes,
//! time, mismatches), not in the read statistics, so a write job's figures stay the writes'.
//! A mismatch is counted and kept with its offset, kind, expected and found values. As fio
//! 3.33 does, the first mismatch ends the job (it is an EILSEQ error, and fio goes on after
//! one only with `continue_on_error=verify`, where `verify_fatal` still stops it); the IO in
//! flight then drains and is checked too. `verify_dump` writes the block read and the block
//! expected to files.

use super::{engine_error, mark_submitted, Worker, WorkerContext};
use crate::clock::Clock;
use crate::RunError;
use diskmeter_engine::{IoEngine, IoOp, IoUnit};
use diskmeter_stats::{VerifyFailure, VerifyStats};
use diskmeter_verify::{Failure, GenerationCheck, Mismatch, Stamp, Verifier};
use diskmeter_workload::verify::VerifyPhase;
use diskmeter_workload::Direction;
use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// A block the worker wrote and will read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct WrittenBlock {
    pub(super) file: u32,
    pub(super) offset_bytes: u64,
    pub(super) len_bytes: u32,
    /// The write's generation: the worker's count of writes before it.
    pub(super) generation: u64,
}

/// The worker's verification state: the checker, the log of written blocks, the backlog and
/// what was found.
pub(super) struct VerifyRun {
    verifier: Verifier,
    /// What every block of this worker is stamped with besides its offset and generation.
    seed: u64,
    job: u32,
    /// The next write's generation.
    next_generation: u64,
    /// The latest write of each block, by file and offset (the order fio reads them back in).
    written: BTreeMap<(u32, u64), (u32, u64)>,
    /// Written blocks in completion order, for the backlog (entries whose block was written
    /// again or verified since are skipped).
    order: VecDeque<(u32, u64, u64)>,
    /// The largest block written, bytes: how far back an overlapping block can start.
    max_len_bytes: u64,
    /// fio `verify_backlog` (0: off) and `verify_backlog_batch`.
    backlog_every: u64,
    backlog_batch: u64,
    writes_since_backlog: u64,
    /// Run the verify phase after the writes (fio `do_verify`).
    pub(super) after_writes: bool,
    /// Only verify: rebuild the log without writing (fio `verify_only` on a job that writes).
    pub(super) only: bool,
    /// Check every read as it completes, at any generation (fio's verify on a job that only
    /// reads: the data of an earlier run of a writing job).
    pub(super) check_reads: bool,
    /// How generations are compared: exactly when the worker knows each block's last write
    /// (it wrote them, or rebuilt its log for `verify_only`), any for a read-only job.
    generations: GenerationCheck,
    /// Stop at the first mismatch: fio's default, unless `continue_on_error` takes verify
    /// errors and `verify_fatal` is off.
    fatal: bool,
    /// The engine moves no data (null): blocks are read back and counted but not checked,
    /// as fio does on its null engine (a read there leaves the buffer as it was).
    no_data: bool,
    /// Where `verify_dump` writes blocks that did not match.
    dump_dir: Option<PathBuf>,
    /// fio `verify_state_save`: a write phase cut short leaves this file saying how far it
    /// got. `None` for a job that does not write.
    state_save: Option<PathBuf>,
    /// fio `verify_state_load`: `verify_only` checks only the writes this file counts.
    state_load: Option<PathBuf>,
    pub(super) stats: VerifyStats,
}

impl VerifyRun {
    /// The state for the worker's job, or `None` when it does not verify.
    pub(super) fn for_job(ctx: &WorkerContext<'_>) -> Option<Box<VerifyRun>> {
        let job = ctx.job;
        let options = &job.verify;
        // Blocks are filled for verification whenever a kind is set (so a later verify_only
        // run can check them), read back as the phase says.
        let verifier = Verifier::new(options.setup()?).ok()?;
        let writes = job.rw.writes();
        // fio's name for a local job's state: <type>-<jobname>-<index>-verify.state, in the
        // working directory.
        let state_file = PathBuf::from(format!(
            "local-{}-{}-verify.state",
            job.name, ctx.plan.clone_index
        ));
        let (after_writes, existing, (backlog_every, backlog_batch)) =
            match options.phase(job.rw.writes()) {
                VerifyPhase::None => (false, false, (0, 0)),
                VerifyPhase::AfterWrite => (true, false, (0, 0)),
                VerifyPhase::Backlog {
                    every_blocks,
                    batch_blocks,
                } => (true, false, (every_blocks, batch_blocks.max(1))),
                VerifyPhase::Existing => (false, true, (0, 0)),
            };
        Some(Box::new(VerifyRun {
            verifier,
            seed: ctx.plan.seed,
            job: ctx.plan.job_index as u32,
            next_generation: 0,
            written: BTreeMap::new(),
            order: VecDeque::new(),
            max_len_bytes: 0,
            backlog_every,
            backlog_batch,
            writes_since_backlog: 0,
            after_writes,
            only: existing && writes,
            check_reads: existing && !writes,
            generations: if existing && !writes {
                GenerationCheck::Any
            } else {
                GenerationCheck::Exact
            },
            fatal: options.fatal || !goes_on_after_verify_errors(job),
            state_save: (options.state_save && writes && !existing).then(|| state_file.clone()),
            state_load: (options.state_load && existing && writes).then_some(state_file),
            no_data: job.ioengine == diskmeter_workload::EngineKind::Null,
            dump_dir: options
                .dump
                .then(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))),
            stats: VerifyStats::default(),
        }))
    }

    /// Fills `buffer` (one write of `len` bytes at `offset_bytes` of `file`) for the next
    /// generation and returns that generation.
    #[inline]
    pub(super) fn fill(&mut self, buffer: &mut [u8], offset_bytes: u64) -> u64 {
        let generation = self.next_generation;
        self.next_generation += 1;
        self.verifier
            .fill(buffer, &self.stamp(offset_bytes, generation));
        generation
    }

    /// The stamp of this worker's write of generation `generation` at `offset_bytes`.
    #[inline]
    fn stamp(&self, offset_bytes: u64, generation: u64) -> Stamp {
        Stamp {
            offset: offset_bytes,
            generation,
            seed: self.seed,
            job: self.job,
        }
    }

    /// Logs a completed write; a later write of the same block (or one overlapping it)
    /// replaces it.
    pub(super) fn log_write(&mut self, block: WrittenBlock) {
        let WrittenBlock {
            file,
            offset_bytes,
            len_bytes,
            generation,
        } = block;
        let end = offset_bytes + u64::from(len_bytes);
        let from = offset_bytes.saturating_sub(self.max_len_bytes.saturating_sub(1));
        // Blocks the new one overlaps were overwritten (in part): their old contents are gone.
        // One range scan when nothing overlaps, the common case; no allocation per write.
        while let Some(key) = self
            .written
            .range((file, from)..(file, end))
            .find(|(&(_, start), &(len, _))| start + u64::from(len) > offset_bytes)
            .map(|(&key, _)| key)
        {
            self.written.remove(&key);
        }
        self.written
            .insert((file, offset_bytes), (len_bytes, generation));
        if self.backlog_every > 0 {
            self.order.push_back((file, offset_bytes, generation));
        }
        self.max_len_bytes = self.max_len_bytes.max(u64::from(len_bytes));
        self.writes_since_backlog += 1;
    }

    /// A mismatch was found and it ends the job.
    fn ended_by_mismatch(&self) -> bool {
        self.fatal && self.stats.errors > 0
    }

    /// True when `verify_backlog` writes have completed since the last backlog pass.
    #[inline]
    pub(super) fn backlog_due(&self) -> bool {
        self.backlog_every > 0 && self.writes_since_backlog >= self.backlog_every
    }

    /// The oldest `verify_backlog_batch` logged blocks, taken out of the log.
    fn take_backlog(&mut self) -> Vec<WrittenBlock> {
        self.writes_since_backlog = 0;
        let mut blocks = Vec::new();
        while (blocks.len() as u64) < self.backlog_batch {
            let Some((file, offset_bytes, generation)) = self.order.pop_front() else {
                break;
            };
            // Still the latest write of its block (not written again, not verified yet).
            if let Some(&(len_bytes, g)) = self.written.get(&(file, offset_bytes)) {
                if g == generation {
                    self.written.remove(&(file, offset_bytes));
                    blocks.push(WrittenBlock {
                        file,
                        offset_bytes,
                        len_bytes,
                        generation,
                    });
                }
            }
        }
        blocks
    }

    /// Every logged block, by file and offset, taken out of the log.
    fn take_all(&mut self) -> Vec<WrittenBlock> {
        self.order.clear();
        std::mem::take(&mut self.written)
            .into_iter()
            .map(
                |((file, offset_bytes), (len_bytes, generation))| WrittenBlock {
                    file,
                    offset_bytes,
                    len_bytes,
                    generation,
                },
            )
            .collect()
    }

    /// Checks the block read into `data` and counts it; the failure when it did not match.
    fn check(&mut self, block: &WrittenBlock, data: &[u8], path: &str) -> Option<VerifyFailure> {
        let id = self.stamp(block.offset_bytes, block.generation);
        let failure = if self.no_data {
            None
        } else if data.len() < block.len_bytes as usize {
            Some(VerifyFailure {
                path: path.to_string(),
                offset_bytes: block.offset_bytes,
                len_bytes: u64::from(block.len_bytes),
                damage_offset_bytes: block.offset_bytes + data.len() as u64,
                kind: "short_read".to_string(),
                expected: format!("{} bytes", block.len_bytes),
                found: format!("{} bytes", data.len()),
            })
        } else {
            self.verifier
                .check_with(data, &id, self.generations)
                .err()
                .map(|mismatch| {
                    let (expected, found) = expected_and_found(&mismatch);
                    VerifyFailure {
                        path: path.to_string(),
                        offset_bytes: block.offset_bytes,
                        len_bytes: u64::from(block.len_bytes),
                        damage_offset_bytes: mismatch.damage_offset(),
                        kind: mismatch.class().name().to_string(),
                        expected,
                        found,
                    }
                })
        };
        if let (Some(failure), Some(dir)) = (&failure, &self.dump_dir) {
            // A dump that cannot be written loses the dump, not the finding.
            let _ = self.dump(dir.clone(), failure, &id, data);
        }
        self.stats
            .record(u64::from(block.len_bytes), failure.clone());
        failure
    }

    /// fio's `verify_dump`: the block as read and as expected, in files named after the
    /// target and the offset (`<name>.<offset>.received` and `.expected`).
    fn dump(
        &self,
        dir: PathBuf,
        failure: &VerifyFailure,
        id: &Stamp,
        data: &[u8],
    ) -> std::io::Result<()> {
        let name = std::path::Path::new(&failure.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "target".to_string());
        let offset = failure.offset_bytes;
        std::fs::write(dir.join(format!("{name}.{offset}.received")), data)?;
        let mut stamp = *id;
        if self.generations == GenerationCheck::Any {
            // A read-only job does not know which write it should find: the expected block
            // is the one of the generation the header names, when it is readable.
            let at = self.verifier.setup().header_offset_bytes as usize;
            let kind = self.verifier.setup().kind;
            let header_end = at + self.verifier.header_len();
            if let Some(header) = data
                .get(at..header_end)
                .and_then(|bytes| diskmeter_verify::header::Header::decode(bytes, kind).ok())
            {
                stamp.generation = header.generation;
            }
        }
        let mut expected = vec![0u8; data.len()];
        self.verifier.fill(&mut expected, &stamp);
        std::fs::write(dir.join(format!("{name}.{offset}.expected")), expected)
    }
}

/// fio's `continue_on_error=verify` (or `all`): the job goes on after a mismatch.
///
/// `continue_on_error` is the trim-errors part's (`TrimOptions::continue_on_error`, on its
/// branch, not yet merged here); until it is, every mismatch ends the job as fio's default
/// does. When it lands this is `job.trim.continue_on_error.verify`.
fn goes_on_after_verify_errors(_job: &diskmeter_workload::JobSpec) -> bool {
    false
}

/// The first line of a verify state file (diskmeter's own text format: fio's is a binary
/// dump of its thread state).
const STATE_HEADER: &str = "diskmeter verify state 1";

/// The number of writes a verify state file counts.
fn load_state(path: &std::path::Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut lines = text.lines();
    if lines.next() != Some(STATE_HEADER) {
        return Err(format!(
            "not a diskmeter verify state (first line is not \"{STATE_HEADER}\")"
        ));
    }
    lines
        .find_map(|line| line.strip_prefix("writes "))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| "no \"writes N\" line".to_string())
}

/// What the block should have held and what it held, as the results print them.
fn expected_and_found(mismatch: &Mismatch) -> (String, String) {
    let interval = mismatch.offset;
    match &mismatch.failure {
        Failure::FlippedBits {
            at,
            bits,
            expected,
            found,
        } => (
            format!("{expected:#04x} at offset {at}"),
            format!("{found:#04x} ({bits} bits differ in the interval)"),
        ),
        Failure::Torn {
            at,
            foreign_bytes,
            header_generation,
        } => (
            "every sector from the last write".to_string(),
            match header_generation {
                Some(g) => format!(
                    "{foreign_bytes} bytes from another write from offset {at} (header generation {g})"
                ),
                None => format!("{foreign_bytes} bytes from another write from offset {at}"),
            },
        ),
        Failure::LostWrite {
            expected_generation,
            found_generation,
        }
        | Failure::NewerGeneration {
            expected_generation,
            found_generation,
        } => (
            format!("generation {expected_generation}"),
            format!("generation {found_generation}"),
        ),
        Failure::Misdirected {
            found_offset,
            found_generation,
        } => (
            format!("the block of offset {interval}"),
            match found_generation {
                Some(g) => format!("the block of offset {found_offset} (generation {g})"),
                None => format!("the block of offset {found_offset}"),
            },
        ),
        Failure::OtherJob {
            expected_seed,
            found_seed,
            found_job,
        } => (
            format!("seed {expected_seed:#x}"),
            format!("seed {found_seed:#x} of job {found_job}"),
        ),
        Failure::Unwritten => ("written data".to_string(), "all zeros".to_string()),
        Failure::BadHeader { fault } => ("a valid header".to_string(), fault.to_string()),
        Failure::Checksum { expected, found } => {
            (format!("checksum {expected}"), format!("checksum {found}"))
        }
        Failure::Corrupt {
            at,
            expected,
            found,
        } => (
            format!("{expected:#04x} at offset {at}"),
            format!("{found:#04x}, data differs throughout"),
        ),
    }
}

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
        while issued < limit && verify.next_generation < max_writes {
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
                let generation = verify.next_generation;
                verify.next_generation += 1;
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

    /// The verify phase once the writes have drained (fio `do_verify`, or `verify_only`),
    /// unless the worker failed or was stopped; then the job's verdict on what it found.
    pub(super) fn after_writes(&mut self, only_verify: bool) -> Result<(), RunError> {
        let Some(verify) = self.verify.as_deref() else {
            return Ok(());
        };
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
    pub(super) fn verify_backlog_if_due(&mut self) -> Result<(), RunError> {
        if self.queue.in_flight > 0 || !self.queue.held.is_empty() {
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
