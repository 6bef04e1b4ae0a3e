//! fio's `trim_percentage`, `trim_backlog` and `trim_backlog_batch`: a writing job trims
//! some of the blocks it wrote. Each completed write is listed for a trim with probability
//! `trim_percentage`; whenever the count of completed writes reaches a multiple of
//! `trim_backlog`, a batch of up to `trim_backlog_batch` (default `trim_backlog`) listed
//! blocks is trimmed, oldest first, before any new write is chosen (fio's `get_next_trim`).
//!
//! A block is listed only once its write completed, so a trim never races the write it
//! undoes. The trims are counted in the trim statistics and not towards `size` (as fio
//! counts a writing job's size in writes).

use crate::clock::Clock;
use crate::worker::{engine_error, SlotOp, SlotState, Worker};
use crate::RunError;
use diskmeter_engine::{IoEngine, IoOp, IoUnit};
use diskmeter_workload::trim::TrimOptions;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// The blocks written and waiting for their trim, and the batch being trimmed.
pub(in crate::worker) struct TrimBacklog {
    percent: u64,
    every: u64,
    batch: u64,
    rng: Xoshiro256PlusPlus,
    /// (file, offset, bytes) of listed blocks, oldest first.
    listed: VecDeque<(u32, u64, u64)>,
    /// Writes completed so far.
    writes: u64,
    /// Trims left in the current batch.
    due: u64,
}

impl TrimBacklog {
    /// The backlog of a job with `trim_backlog` and `trim_percentage` set, else `None`.
    pub(in crate::worker) fn of(trim: &TrimOptions, seed: u64) -> Option<TrimBacklog> {
        trim.backlog_trims().then(|| TrimBacklog {
            percent: u64::from(trim.trim_percentage.min(100)),
            every: trim.trim_backlog,
            batch: match trim.trim_backlog_batch {
                0 => trim.trim_backlog,
                n => n,
            },
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7217_3d5a_11c9_0b4f),
            listed: VecDeque::new(),
            writes: 0,
            due: 0,
        })
    }

    /// A write of `len` bytes at `offset` of `file` completed: list it for a trim with the
    /// job's probability, and start a batch at every `trim_backlog`th write.
    pub(in crate::worker) fn written(&mut self, file: u32, offset: u64, len: u64) {
        self.writes += 1;
        if self.rng.next_u64() % 100 < self.percent {
            self.listed.push_back((file, offset, len));
        }
        if self.writes.is_multiple_of(self.every) {
            self.due = self.batch;
        }
    }

    /// The next block to trim, while a batch is under way.
    pub(in crate::worker) fn next(&mut self) -> Option<(u32, u64, u64)> {
        if self.due == 0 {
            return None;
        }
        match self.listed.pop_front() {
            Some(block) => {
                self.due -= 1;
                Some(block)
            }
            None => {
                self.due = 0;
                None
            }
        }
    }
}

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// Queues a trim of `len` bytes at `offset` of `file` in `slot` (a backlog's or a
    /// replayed one: its place is given, not chosen).
    #[cold]
    pub(in crate::worker) fn queue_trim_at(
        &mut self,
        slot: u32,
        (file, offset_bytes, len): (u32, u64, u64),
        now: u64,
    ) -> Result<(), RunError> {
        self.queue.slots[slot as usize] = SlotState {
            op: SlotOp::Trim,
            len_bytes: len as u32,
            offset_bytes,
            file,
            intended_ns: 0,
            issue_ns: now,
            granted_ns: now,
            submit_ns: now,
        };
        self.engine
            .queue(IoUnit {
                op: IoOp::Trim,
                file,
                offset_bytes,
                len_bytes: len as u32,
                slot,
            })
            .map_err(|e| engine_error(self.ctx.job, e))?;
        if !self.shape.synchronous {
            self.queue.slots[slot as usize].intended_ns = self.clock.now_ns();
        }
        if let Some(recorder) = &mut self.recorder {
            recorder.record(now, IoOp::Trim, file, offset_bytes, len)?;
        }
        self.queue.just_queued.push(slot);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(percent: u8, every: u64, batch: u64) -> TrimOptions {
        TrimOptions {
            trim_percentage: percent,
            trim_backlog: every,
            trim_backlog_batch: batch,
            ..TrimOptions::default()
        }
    }

    #[test]
    fn every_backlog_of_writes_starts_a_batch_of_listed_blocks() {
        let mut backlog = TrimBacklog::of(&options(100, 4, 2), 1).unwrap();
        for k in 0..3 {
            backlog.written(0, k * 4096, 4096);
            assert_eq!(backlog.next(), None, "no batch before the 4th write");
        }
        backlog.written(0, 3 * 4096, 4096);
        assert_eq!(backlog.next(), Some((0, 0, 4096)));
        assert_eq!(backlog.next(), Some((0, 4096, 4096)));
        assert_eq!(backlog.next(), None, "the batch is 2");
    }

    #[test]
    fn about_trim_percentage_of_the_writes_are_listed() {
        let mut backlog = TrimBacklog::of(&options(25, 1_000_000, 0), 7).unwrap();
        for k in 0..10_000 {
            backlog.written(0, k * 4096, 4096);
        }
        let listed = backlog.listed.len();
        assert!((2_300..2_700).contains(&listed), "{listed}");
        assert!(TrimBacklog::of(&options(0, 8, 0), 1).is_none());
        assert!(TrimBacklog::of(&options(50, 0, 0), 1).is_none());
    }
}
