//! Counting trims into their own statistics, and fio's IO-error policy
//! (`continue_on_error`, `ignore_error`, `error_dump`): an IO error either ends the worker
//! or, when the job goes on after it, is counted (per direction, with the first errno) and
//! the worker carries on. Kept out of `account.rs` so the read/write path stays as it was.

use backlog::TrimBacklog;

#[path = "backlog.rs"]
mod backlog;
use super::{SlotOp, SlotState, Worker};
use crate::clock::Clock;
use diskmeter_engine::IoEngine;
use diskmeter_stats::IoErrorRecord;
use diskmeter_workload::trim::ErrorClass;
use diskmeter_workload::{BlockSizeSpread, Direction, JobSpec};

/// What a trimming worker owes besides its chosen IO. A trim the engine did while queueing
/// it keeps its end in `SlotState::intended_ns` (0 otherwise): a trim has no intended time.
pub(super) struct Trims {
    /// Every IO is a trim (`trim`, `randtrim`), chosen as writes are.
    pub(super) only: bool,
    /// Each write's block is trimmed just before it (`trimwrite`, `randtrimwrite`).
    pub(super) before_write: bool,
    /// `trimwrite`: the write due after the trim of its block (file, offset, bytes).
    pub(super) write_after: Option<(u32, u64, u64)>,
    /// fio's `trim_backlog`: written blocks waiting for their trim.
    pub(super) backlog: Option<TrimBacklog>,
    /// A replayed trim due next (file, offset, bytes).
    pub(super) replayed: Option<(u32, u64, u64)>,
}

impl Trims {
    /// Whether a job trims (any `rw` trim mode, `trim_backlog`, a replay: its log may hold
    /// trims): `Shape::trims`, the one check on the hot path of jobs that do not.
    pub(super) fn active_for(job: &JobSpec) -> bool {
        job.rw.trims() || backlog_trims(job) || job.iolog.read_iolog.is_some()
    }

    pub(super) fn new(job: &JobSpec, seed: u64) -> Trims {
        Trims {
            only: job.rw.trims_only(),
            before_write: job.rw.trims() && !job.rw.trims_only(),
            write_after: None,
            backlog: backlog_trims(job)
                .then(|| TrimBacklog::of(&job.trim, seed))
                .flatten(),
            replayed: None,
        }
    }
}

/// Whether the job trims a share of its writes (`trim_backlog` with `trim_percentage`): only
/// when it verifies them, as fio, whose trims are taken from its verify log (fio's backend.c
/// logs a write only when the job writes with `do_verify` and a `verify` other than none;
/// `trim_percentage` is a child of `verify` in its options.c). Without verify fio trims
/// nothing, and neither does diskmeter (the plan's notes say so).
fn backlog_trims(job: &JobSpec) -> bool {
    job.trim.backlog_trims()
        && job.rw.writes()
        && job.verify.do_verify
        && job.verify.effective_kind().is_some()
}

/// A trim-only job's IOs are chosen as writes of the trim size: for a trim-only job whose
/// trims have their own size (fio's third `bs` value), the job as
/// its IOs are chosen: writes of the trim size. `None` for every other job.
pub(super) fn trim_sized(job: &JobSpec) -> Option<JobSpec> {
    let trim_bs = job.trim.bs_bytes.filter(|_| job.rw.trims_only())?;
    let mut sized = job.clone();
    sized.bs_bytes.write = trim_bs;
    sized.bs_spread.write = BlockSizeSpread::Fixed;
    Some(sized)
}

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// Counts one finished trim: an error goes through the error policy; a trim granted
    /// inside the measured period is counted with its latency (trims are synchronous in
    /// every engine, so there is no submission latency and clat is lat, as in fio), which
    /// ends when the engine's call returned, not when the batch around it was reaped.
    #[cold]
    pub(super) fn account_trim(&mut self, slot: &SlotState, result: i64, done: u64) {
        if result < 0 {
            self.io_error(slot, result);
            return;
        }
        if !self.window.counts(slot.granted_ns) {
            return;
        }
        let bytes = result as u64;
        // `intended_ns` holds the end of a trim done while queueing (see `SlotState`).
        let end = if slot.intended_ns > 0 {
            slot.intended_ns
        } else {
            done
        };
        let lat = end.saturating_sub(slot.issue_ns);
        let trim = &mut self.tally.stats.trim;
        trim.ios += 1;
        trim.bytes += bytes;
        if bytes < u64::from(slot.len_bytes) {
            trim.short_ios += 1;
        }
        trim.clat.record(lat);
        trim.lat.record(lat);
    }

    /// An IO (read, write or trim) failed with `-errno` = `result`: counted in its
    /// direction, then the job goes on when `continue_on_error` and `ignore_error` say so,
    /// else the worker ends with the error (after its in-flight IO has drained).
    #[cold]
    pub(super) fn io_error(&mut self, slot: &SlotState, result: i64) {
        let errno = i32::try_from(-result).unwrap_or(i32::MAX);
        let (class, op) = match slot.op {
            SlotOp::Transfer(Direction::Read) => (ErrorClass::Read, "read"),
            SlotOp::Transfer(Direction::Write) => (ErrorClass::Write, "write"),
            SlotOp::Trim => (ErrorClass::Write, "trim"),
            SlotOp::Sync | SlotOp::EndSync => (ErrorClass::Write, "sync"),
        };
        let policy = &self.ctx.job.trim;
        let continued = policy.continues_after(class, errno);
        if slot.granted_ns >= self.window.measure_start {
            let stats = &mut self.tally.stats;
            match slot.op {
                SlotOp::Transfer(direction) => stats.direction_mut(direction).errors += 1,
                SlotOp::Trim => stats.trim.errors += 1,
                SlotOp::Sync | SlotOp::EndSync => {}
            }
            let record = policy.error_dump.then(|| IoErrorRecord {
                op: op.to_string(),
                file: slot.file,
                offset_bytes: slot.offset_bytes,
                len_bytes: u64::from(slot.len_bytes),
                errno,
                continued,
            });
            stats.io_errors.note(errno, record);
        }
        if !continued {
            self.fail(slot, result);
        }
    }
}
