//! The null engine: no IO at all, every unit completes with its full length.
//!
//! It measures the tool's own overhead (fio `engines/null.c`), so the hot path does no
//! allocation and no system call: units go into a reused Vec at `queue`, `commit` marks the
//! queued prefix as done, and `getevents` drains that prefix.
//!
//! Like fio's null engine it moves no data, so its buffers take no memory until the runner
//! asks for a slot's bytes (to stamp a write, check a read or lay a pattern): the slot is
//! filled then, with the same bytes an eager fill would have given it. A read-only job at
//! iodepth 32 of 4 KiB blocks so keeps 128 KiB per worker out of its resident memory.

use crate::buffers::{AlignedBuffers, BufferFill};
use crate::slots::SlotTracker;
use crate::{Capabilities, EngineConfig, EngineError, IoCompletion, IoEngine, IoUnit};

/// What the null engine can do.
pub(crate) const CAPABILITIES: Capabilities = Capabilities {
    max_iodepth: None,
    synchronous: false,
    fixed_buffers: false,
    registered_files: false,
};

/// An engine that completes everything instantly without touching a file.
pub(crate) struct NullEngine {
    buffers: AlignedBuffers,
    /// What each slot is filled with on first use, and the stream's seed; `None` once
    /// every slot was filled up front (a stride the stream cannot be jumped to).
    lazy_fill: Option<(BufferFill, u64)>,
    /// Slots already filled (only read while `lazy_fill` is set).
    filled: Vec<bool>,
    slots: SlotTracker,
    /// Queued units as their future completions; `queued[..committed]` are done.
    queued: Vec<IoCompletion>,
    committed: usize,
}

impl NullEngine {
    /// Builds the engine; it still owns buffers so runners can fill and inspect them.
    pub(crate) fn new(config: &EngineConfig) -> Result<Self, EngineError> {
        let depth = config.iodepth as usize;
        let mut buffers = AlignedBuffers::new_unfilled(
            depth,
            config.buffer_len_bytes,
            config.buffer_align_bytes,
        )?;
        let lazy_fill = if buffers.fills_by_slot() {
            Some((config.fill, config.seed))
        } else {
            buffers.fill(config.fill, config.seed);
            None
        };
        // The null engine has no files to open, but units still name one; accept any index
        // when the runner gave none (a diskless job).
        let files = if config.fds.is_empty() {
            usize::MAX
        } else {
            config.fds.len()
        };
        Ok(NullEngine {
            buffers,
            lazy_fill,
            filled: vec![false; depth],
            slots: SlotTracker::new(depth, config.buffer_len_bytes, files),
            queued: Vec::with_capacity(depth),
            committed: 0,
        })
    }
}

impl IoEngine for NullEngine {
    fn name(&self) -> &'static str {
        "null"
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    #[inline]
    fn queue(&mut self, unit: IoUnit) -> Result<(), EngineError> {
        self.slots.begin(&unit)?;
        self.queued.push(IoCompletion {
            slot: unit.slot,
            result: i64::from(unit.len_bytes),
        });
        Ok(())
    }

    #[inline]
    fn commit(&mut self) -> Result<usize, EngineError> {
        let n = self.queued.len() - self.committed;
        self.committed = self.queued.len();
        Ok(n)
    }

    #[inline]
    fn getevents(
        &mut self,
        _min: usize,
        out: &mut Vec<IoCompletion>,
    ) -> Result<usize, EngineError> {
        // Everything committed is already complete, which satisfies any reachable `min`.
        let n = self.committed;
        for c in self.queued.drain(..n) {
            self.slots.end(c.slot);
            out.push(c);
        }
        self.committed = 0;
        Ok(n)
    }

    fn buffer_mut(&mut self, slot: u32) -> &mut [u8] {
        self.slots.assert_idle(slot);
        let i = slot as usize;
        if let Some((fill, seed)) = self.lazy_fill {
            if !self.filled[i] {
                self.buffers.fill_slot(i, fill, seed);
                self.filled[i] = true;
            }
        }
        self.buffers.slot_mut(i)
    }
}
