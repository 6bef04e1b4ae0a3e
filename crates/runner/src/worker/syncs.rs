//! The file syncs of a worker: fio's `fsync=N`, `fdatasync=N` and `sync_file_range=FLAGS:N`
//! (every Nth write makes a sync of its file due) and `end_fsync`, queued like any IO.

use super::{engine_error, SlotOp, SlotState, Worker};
use crate::clock::Clock;
use crate::RunError;
use diskmeter_engine::{IoEngine, IoOp, IoUnit};

/// fio's `fsync=N`, `fdatasync=N`, `sync_file_range=FLAGS:N` and `end_fsync`.
pub(super) struct Syncs {
    /// (every N writes, op) for fsync, fdatasync and sync_file_range; N = 0 is off.
    pub(super) every: [(u32, IoOp); 3],
    pub(super) writes_since: [u32; 3],
    /// A sync due once the writes before it have completed: (op, file).
    pub(super) pending: Option<(IoOp, u32)>,
    pub(super) end_done: bool,
    pub(super) end_next_file: u32,
}

impl<C: Clock, E: IoEngine + ?Sized> Worker<'_, C, E> {
    /// fio's `fsync=N` / `fdatasync=N`: every Nth write makes a sync of its file due.
    #[inline]
    pub(super) fn count_write_for_syncs(&mut self, file: u32) {
        let syncs = &mut self.syncs;
        for (k, &(every, op)) in syncs.every.iter().enumerate() {
            if every > 0 {
                syncs.writes_since[k] += 1;
                if syncs.writes_since[k] >= every {
                    syncs.writes_since[k] = 0;
                    syncs.pending = Some((op, file));
                }
            }
        }
    }

    /// Queues a file sync (`op` is fsync or fdatasync) of `file` in `slot`.
    pub(super) fn queue_sync(
        &mut self,
        slot: u32,
        kind: SlotOp,
        op: IoOp,
        file: u32,
        now: u64,
    ) -> Result<(), RunError> {
        self.queue.slots[slot as usize] = SlotState {
            op: kind,
            len_bytes: 0,
            offset_bytes: 0,
            file,
            intended_ns: now,
            issue_ns: now,
            granted_ns: now,
            submit_ns: now,
        };
        self.engine
            .queue(IoUnit {
                op,
                file,
                offset_bytes: 0,
                len_bytes: 0,
                slot,
            })
            .map_err(|e| engine_error(self.ctx.job, e))?;
        match &mut self.recorder {
            Some(recorder) => recorder.record(now, op, file, 0, 0),
            None => Ok(()),
        }
    }
}
