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

use super::WorkerContext;
use diskmeter_stats::{VerifyFailure, VerifyStats};
use diskmeter_verify::{Failure, GenerationCheck, Mismatch, Stamp, Verifier};
use diskmeter_workload::verify::VerifyPhase;
use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;

/// The generation of a logged block the job trimmed after writing it (fio's
/// `trim_percentage`): read back, it must hold zeros when `trim_verify_zero` is on (fio's
/// `IO_U_F_TRIMMED` check), anything otherwise.
pub(super) const TRIMMED: u64 = u64::MAX;

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
    pub(super) verifier: Verifier,
    /// What every block of this worker is stamped with besides its offset and generation.
    pub(super) seed: u64,
    pub(super) job: u32,
    /// The next write's generation.
    pub(super) next_generation: u64,
    /// The generation of the write in each slot (by slot number), until it completes.
    slot_generations: Vec<u64>,
    /// The latest write of each block, by file and offset (the order fio reads them back in).
    pub(super) written: BTreeMap<(u32, u64), (u32, u64)>,
    /// Written blocks in completion order, for the backlog (entries whose block was written
    /// again or verified since are skipped).
    pub(super) order: VecDeque<(u32, u64, u64)>,
    /// The largest block written, bytes: how far back an overlapping block can start.
    pub(super) max_len_bytes: u64,
    /// fio `verify_backlog` (0: off) and `verify_backlog_batch`.
    pub(super) backlog_every: u64,
    pub(super) backlog_batch: u64,
    pub(super) writes_since_backlog: u64,
    /// Run the verify phase after the writes (fio `do_verify`).
    pub(super) after_writes: bool,
    /// Only verify: rebuild the log without writing (fio `verify_only` on a job that writes).
    pub(super) only: bool,
    /// Check every read as it completes, at any generation (fio's verify on a job that only
    /// reads: the data of an earlier run of a writing job).
    pub(super) check_reads: bool,
    /// How generations are compared: exactly when the worker knows each block's last write
    /// (it wrote them, or rebuilt its log for `verify_only`), any for a read-only job.
    pub(super) generations: GenerationCheck,
    /// Stop at the first mismatch: fio's default, unless `continue_on_error` takes verify
    /// errors and `verify_fatal` is off.
    pub(super) fatal: bool,
    /// The engine moves no data (null): blocks are read back and counted but not checked,
    /// as fio does on its null engine (a read there leaves the buffer as it was).
    pub(super) no_data: bool,
    /// Where `verify_dump` writes blocks that did not match.
    pub(super) dump_dir: Option<PathBuf>,
    /// fio `verify_state_save`: a write phase cut short leaves this file saying how far it
    /// got. `None` for a job that does not write.
    pub(super) state_save: Option<PathBuf>,
    /// fio `verify_state_load`: `verify_only` checks only the writes this file counts.
    pub(super) state_load: Option<PathBuf>,
    /// fio `trim_verify_zero`: a trimmed block reads back as zeros.
    pub(super) trimmed_reads_zero: bool,
    pub(super) stats: VerifyStats,
}

impl VerifyRun {
    /// The state for the worker's job, or `None` when it does not verify.
    pub(super) fn for_job(ctx: &WorkerContext<'_>) -> Option<Box<VerifyRun>> {
        let job = ctx.job;
        let options = &job.verify;
        // Blocks are filled for verification whenever a kind is set (so a later verify_only
        // run can check them), read back as the phase says. A layout the verifier refuses
        // never gets here: validating the job refused it, naming the option.
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
            slot_generations: vec![0; ctx.plan.iodepth.max(1) as usize],
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
            trimmed_reads_zero: options.trim_verify_zero,
            stats: VerifyStats::default(),
        }))
    }

    /// Fills `buffer` (the write in `slot`, at `offset_bytes`) for the next generation.
    #[inline]
    pub(super) fn fill(&mut self, slot: u32, buffer: &mut [u8], offset_bytes: u64) {
        let generation = self.next_write();
        self.slot_generations[slot as usize] = generation;
        self.verifier
            .fill(buffer, &self.stamp(offset_bytes, generation));
    }

    /// The generation of the next write, counted.
    #[inline]
    pub(super) fn next_write(&mut self) -> u64 {
        let generation = self.next_generation;
        self.next_generation += 1;
        generation
    }

    /// The generation of the write in `slot`.
    #[inline]
    pub(super) fn generation_in(&self, slot: u32) -> u64 {
        self.slot_generations[slot as usize]
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

    /// The job trimmed the logged block at `offset_bytes` of `file` (a backlog trim takes
    /// whole written blocks): its data is gone, so it is checked as trimmed ([`TRIMMED`]).
    pub(super) fn log_trim(&mut self, file: u32, offset_bytes: u64) {
        if let Some((_, generation)) = self.written.get_mut(&(file, offset_bytes)) {
            *generation = TRIMMED;
        }
    }

    /// A mismatch was found and it ends the job.
    pub(super) fn ended_by_mismatch(&self) -> bool {
        self.fatal && self.stats.errors > 0
    }

    /// True when `verify_backlog` writes have completed since the last backlog pass.
    #[inline]
    pub(super) fn backlog_due(&self) -> bool {
        self.backlog_every > 0 && self.writes_since_backlog >= self.backlog_every
    }

    /// The oldest `verify_backlog_batch` logged blocks, taken out of the log.
    pub(super) fn take_backlog(&mut self) -> Vec<WrittenBlock> {
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
    pub(super) fn take_all(&mut self) -> Vec<WrittenBlock> {
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
    pub(super) fn check(
        &mut self,
        block: &WrittenBlock,
        data: &[u8],
        path: &str,
    ) -> Option<VerifyFailure> {
        let id = self.stamp(block.offset_bytes, block.generation);
        let failure = if self.no_data {
            None
        } else if block.generation == TRIMMED {
            let nonzero = data.iter().position(|&b| b != 0);
            match nonzero {
                Some(at) if self.trimmed_reads_zero => Some(VerifyFailure {
                    path: path.to_string(),
                    offset_bytes: block.offset_bytes,
                    len_bytes: u64::from(block.len_bytes),
                    damage_offset_bytes: block.offset_bytes + at as u64,
                    kind: "trimmed_not_zero".to_string(),
                    expected: "zeros (trimmed, trim_verify_zero=1)".to_string(),
                    found: format!("byte {:#04x} at {at}", data[at]),
                }),
                _ => None,
            }
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

/// fio's `continue_on_error=verify` (or `all`, with EILSEQ in `ignore_error`'s verify list
/// or that list at fio's default): the job goes on after a mismatch, counting it.
fn goes_on_after_verify_errors(job: &diskmeter_workload::JobSpec) -> bool {
    use diskmeter_workload::trim::{ErrorClass, EILSEQ};
    job.trim.continues_after(ErrorClass::Verify, EILSEQ)
}

/// The first line of a verify state file (diskmeter's own text format: fio's is a binary
/// dump of its thread state).
pub(super) const STATE_HEADER: &str = "diskmeter verify state 1";

/// The number of writes a verify state file counts.
pub(super) fn load_state(path: &std::path::Path) -> Result<u64, String> {
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
