//! The psync engine: one `pread`/`pwrite` per unit, done inside `commit`.
//!
//! Like fio's psync it is synchronous (`max_iodepth` 1): queued units are performed in order
//! when committed and `getevents` hands back the finished ones. A short transfer is reported
//! as the bytes actually moved, not retried, so the runner sees what the kernel did.

use std::os::fd::RawFd;

use crate::buffers::AlignedBuffers;
use crate::slots::{neg_errno, SlotTracker};
use crate::trim::Trimmer;
use crate::{Capabilities, EngineConfig, EngineError, IoCompletion, IoEngine, IoOp, IoUnit};

/// What the psync engine can do.
pub(crate) const CAPABILITIES: Capabilities = Capabilities {
    max_iodepth: Some(1),
    synchronous: true,
    fixed_buffers: false,
    registered_files: false,
};

/// pread/pwrite on the caller's file descriptors.
pub(crate) struct PsyncEngine {
    fds: Vec<RawFd>,
    buffers: AlignedBuffers,
    slots: SlotTracker,
    pending: Vec<IoUnit>,
    done: Vec<IoCompletion>,
    trimmer: Trimmer,
}

impl PsyncEngine {
    /// Builds the engine. An iodepth above 1 is tolerated (units then run one after another
    /// in `commit`), because the runner clamps it and says so.
    pub(crate) fn new(config: &EngineConfig) -> Result<Self, EngineError> {
        let depth = config.iodepth as usize;
        let buffers = AlignedBuffers::new(
            depth,
            config.buffer_len_bytes,
            config.buffer_align_bytes,
            config.fill,
            config.seed,
        )?;
        Ok(PsyncEngine {
            fds: config.fds.clone(),
            buffers,
            slots: SlotTracker::new(depth, config.buffer_len_bytes, config.fds.len()),
            pending: Vec::with_capacity(depth),
            done: Vec::with_capacity(depth),
            trimmer: Trimmer::new(&config.fds),
        })
    }

    /// Performs one unit; returns bytes moved or a negated errno.
    fn perform(&self, unit: &IoUnit) -> i64 {
        let fd = self.fds[unit.file as usize];
        let buf = self.buffers.slot_ptr(unit.slot as usize);
        let len = unit.len_bytes as usize;
        let Ok(offset) = libc::off_t::try_from(unit.offset_bytes) else {
            return -i64::from(libc::EINVAL);
        };
        loop {
            let n = match unit.op {
                // SAFETY: `buf` points at a live slot of at least `len` bytes (checked by
                // `SlotTracker::begin`) that no Rust reference aliases while the unit is in
                // flight; a bad `fd` only makes the call fail with EBADF.
                IoOp::Read => unsafe { libc::pread(fd, buf.cast(), len, offset) },
                // SAFETY: as above; the kernel only reads the buffer.
                IoOp::Write => unsafe { libc::pwrite(fd, buf.cast(), len, offset) },
                // SAFETY: plain system calls on a descriptor; a bad one fails with EBADF.
                IoOp::Fsync => unsafe { libc::fsync(fd) as isize },
                // SAFETY: as above.
                IoOp::Fdatasync => unsafe { libc::fdatasync(fd) as isize },
                IoOp::Trim => {
                    return self
                        .trimmer
                        .trim(fd, unit.file, unit.offset_bytes, unit.len_bytes)
                }
                // SAFETY: as above; the call touches no memory of ours.
                IoOp::SyncFileRange(flags) => unsafe {
                    libc::sync_file_range(fd, offset, len as libc::off_t, flags) as isize
                },
            };
            if n >= 0 {
                return n as i64;
            }
            let err = std::io::Error::last_os_error();
            // A signal before any byte moved is not an IO error: redo the call.
            if err.raw_os_error() != Some(libc::EINTR) {
                return neg_errno(&err);
            }
        }
    }
}

impl IoEngine for PsyncEngine {
    fn name(&self) -> &'static str {
        "psync"
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn queue(&mut self, unit: IoUnit) -> Result<(), EngineError> {
        self.slots.begin(&unit)?;
        self.pending.push(unit);
        Ok(())
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        let pending = std::mem::take(&mut self.pending);
        for unit in &pending {
            let result = self.perform(unit);
            self.done.push(IoCompletion {
                slot: unit.slot,
                result,
            });
        }
        let n = pending.len();
        // Hand the (now empty) Vec back so its capacity is reused: no allocation per IO.
        self.pending = pending;
        self.pending.clear();
        Ok(n)
    }

    fn getevents(
        &mut self,
        _min: usize,
        out: &mut Vec<IoCompletion>,
    ) -> Result<usize, EngineError> {
        // Every committed unit has finished; uncommitted ones cannot be waited for.
        let n = self.done.len();
        for c in self.done.drain(..) {
            self.slots.end(c.slot);
            out.push(c);
        }
        Ok(n)
    }

    fn buffer_mut(&mut self, slot: u32) -> &mut [u8] {
        self.slots.assert_idle(slot);
        self.buffers.slot_mut(slot as usize)
    }
}
