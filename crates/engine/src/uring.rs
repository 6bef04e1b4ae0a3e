//! The io_uring engine: one ring per worker through the `io-uring` crate.
//!
//! The ring is sized to the iodepth (rounded up to a power of two) and asks for
//! SINGLE_ISSUER + DEFER_TASKRUN + COOP_TASKRUN (+ TASKRUN_FLAG, SUBMIT_ALL), falling back to
//! fewer flags on kernels that refuse them with EINVAL. `queue` only writes an SQE
//! (`user_data` = slot), `commit` is one `io_uring_enter`, and `getevents` waits only when it
//! must and drains the CQ in bulk. `commit_and_getevents` submits and waits in the same
//! `io_uring_enter`, so a QD1 loop costs one system call per IO.
//!
//! SINGLE_ISSUER ties the ring to the first thread that submits. To let the runner build the
//! engine on one thread and drive it on another (the trait is `Send`), the ring is created
//! disabled (R_DISABLED) and enabled by the first call that enters the kernel; from then on
//! the engine must stay on that thread.

use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::RawFd;

use io_uring::{opcode, squeue, types, IoUring};

use crate::buffers::AlignedBuffers;
use crate::slots::SlotTracker;
use crate::{
    Capabilities, EngineConfig, EngineError, EngineTuning, IoCompletion, IoEngine, IoOp, IoUnit,
};

/// What the io_uring engine can do. The depth limit is the kernel's IORING_MAX_ENTRIES.
pub(crate) const CAPABILITIES: Capabilities = Capabilities {
    max_iodepth: Some(MAX_ENTRIES),
    synchronous: false,
    fixed_buffers: true,
    registered_files: true,
};

/// The kernel's largest submission ring (IORING_MAX_ENTRIES): a fact of io_uring, not the
/// `iodepth` option's range. That range is the option's own, written once in its table row
/// (diskmeter-workload) and wider; a job deeper than this ring passes validation and is
/// refused here, naming the kernel's figure.
const MAX_ENTRIES: u32 = 32768;

/// The kernel's limit on registered buffers (IORING_MAX_REG_BUFFERS).
const MAX_FIXED_BUFFERS: u32 = 1 << 14;

/// io_uring with the slot buffers, optionally registered, and the caller's files.
pub(crate) struct UringEngine {
    ring: IoUring,
    fds: Vec<RawFd>,
    /// fio's per-IO engine options, when any is set (`None` keeps `queue` on its plain path).
    tuning: Option<Tuned>,
    fixed_buffers: bool,
    registered_files: bool,
    /// False while the ring is still R_DISABLED (see the module docs).
    enabled: bool,
    slots: SlotTracker,
    /// Trims, done at queue time (io_uring has no discard for block devices).
    trimmer: crate::trim::Trimmer,
    /// Completions of trims, handed out by the next `getevents` before the ring's.
    done_at_queue: Vec<IoCompletion>,
    /// Freed by `Drop` only after every in-flight unit completed (or leaked if that fails),
    /// because the kernel may still be writing into it.
    buffers: ManuallyDrop<AlignedBuffers>,
}

/// The per-IO options of [`EngineTuning`] a ring applies in `queue`.
struct Tuned {
    /// One iovec per slot for READV/WRITEV (`nonvectored=0`); empty otherwise.
    iovecs: Vec<libc::iovec>,
    /// RWF_NOWAIT on reads and writes.
    nowait: bool,
    /// IOSQE_ASYNC on every Nth request (0 = never), and requests since the last one.
    force_async_every: u32,
    since_async: u32,
    /// Per slot, the IO priority its next IO carries (`cmdprio_*`); empty when unused.
    ioprio: Vec<u16>,
}

// SAFETY: the iovecs' pointers point into the engine's own buffers, which move with it and
// are touched only by the thread that owns the engine.
unsafe impl Send for Tuned {}

/// Maps an `io_uring_setup` failure: the kernel or a sandbox refusing io_uring outright
/// (ENOSYS: not built in or seccomp; EPERM/EACCES: io_uring_disabled sysctl or LSM) means
/// "unavailable, pick another engine"; anything else is a real setup error.
pub(crate) fn setup_error(err: io::Error) -> EngineError {
    match err.raw_os_error() {
        Some(libc::ENOSYS | libc::EPERM | libc::EACCES) => EngineError::IoUringUnavailable(err),
        _ => EngineError::Syscall {
            call: "io_uring_setup",
            source: err,
        },
    }
}

/// How long the SQPOLL thread spins without work before it sleeps, ms (the kernel's own
/// default when none is given is one second; fio gives none).
const SQPOLL_IDLE_MS: u32 = 1000;

/// Creates the ring fio's `sqthread_poll` / `hipri` ask for: SQPOLL (on a CPU if given)
/// and/or IOPOLL. The task-run flags of the default ring are not valid with SQPOLL, so this
/// ring has none of them.
fn build_polled_ring(entries: u32, tuning: &EngineTuning) -> Result<IoUring, EngineError> {
    let mut builder = IoUring::builder();
    if tuning.sqthread_poll {
        builder.setup_sqpoll(SQPOLL_IDLE_MS);
        if let Some(cpu) = tuning.sqthread_poll_cpu {
            builder.setup_sqpoll_cpu(cpu);
        }
    }
    if tuning.hipri {
        builder.setup_iopoll();
    }
    builder.build(entries).map_err(setup_error)
}

/// Creates the ring with the best flag set the kernel accepts; returns whether it starts
/// disabled (only the SINGLE_ISSUER set needs that).
fn build_ring(entries: u32) -> Result<(IoUring, bool), EngineError> {
    let mut best = IoUring::builder();
    best.setup_single_issuer()
        .setup_defer_taskrun()
        .setup_coop_taskrun()
        .setup_taskrun_flag()
        .setup_submit_all()
        .setup_r_disabled();
    let mut coop = IoUring::builder();
    coop.setup_coop_taskrun()
        .setup_taskrun_flag()
        .setup_submit_all();
    let plain = IoUring::builder();
    let attempts = [(best, true), (coop, false), (plain, false)];
    let mut last = None;
    for (builder, disabled) in attempts {
        match builder.build(entries) {
            Ok(ring) => return Ok((ring, disabled)),
            // EINVAL: a flag this kernel does not know; try the next, smaller set.
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = Some(e),
            Err(e) => return Err(setup_error(e)),
        }
    }
    Err(setup_error(last.unwrap_or_else(|| {
        io::Error::from_raw_os_error(libc::EINVAL)
    })))
}

impl UringEngine {
    /// Builds the ring, registers buffers and files if asked.
    pub(crate) fn new(config: &EngineConfig) -> Result<Self, EngineError> {
        let depth = config.iodepth;
        if depth == 0 || depth > MAX_ENTRIES {
            return Err(EngineError::Unsupported {
                engine: "io_uring",
                problem: format!("supports iodepth 1..={MAX_ENTRIES}, not {depth}"),
            });
        }
        if config.fixed_buffers && depth > MAX_FIXED_BUFFERS {
            return Err(EngineError::Unsupported {
                engine: "io_uring",
                problem: format!("can register at most {MAX_FIXED_BUFFERS} buffers (fixedbufs)"),
            });
        }
        let buffers = AlignedBuffers::new(
            depth as usize,
            config.buffer_len_bytes,
            config.buffer_align_bytes,
            config.fill,
            config.seed,
        )?;
        let tuning = config.tuning;
        let (ring, disabled) = if tuning.sqthread_poll || tuning.hipri {
            (
                build_polled_ring(depth.next_power_of_two(), &tuning)?,
                false,
            )
        } else {
            build_ring(depth.next_power_of_two())?
        };
        if config.fixed_buffers {
            let iovecs = buffers.as_iovecs();
            // SAFETY: the iovecs describe `buffers`, which lives in this engine and is freed
            // only after the ring is drained (see `Drop`), so the registration never outlives
            // the memory while IO can use it.
            unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|source| {
                EngineError::Syscall {
                    call: "io_uring_register(buffers)",
                    source,
                }
            })?;
        }
        // Registering an empty table is EINVAL; with no files there is nothing to speed up.
        let register_files = config.register_files && !config.fds.is_empty();
        if register_files {
            ring.submitter()
                .register_files(&config.fds)
                .map_err(|source| EngineError::Syscall {
                    call: "io_uring_register(files)",
                    source,
                })?;
        }
        let tuned = tuning.vectored
            || tuning.nowait
            || tuning.force_async_every > 0
            || tuning.per_io_priority;
        let iovecs = if tuning.vectored && !config.fixed_buffers {
            buffers.as_iovecs()
        } else {
            Vec::new()
        };
        Ok(UringEngine {
            ring,
            fds: config.fds.clone(),
            tuning: tuned.then_some(Tuned {
                iovecs,
                nowait: tuning.nowait,
                force_async_every: tuning.force_async_every,
                since_async: 0,
                ioprio: if tuning.per_io_priority {
                    vec![0; depth as usize]
                } else {
                    Vec::new()
                },
            }),
            fixed_buffers: config.fixed_buffers,
            registered_files: register_files,
            enabled: !disabled,
            slots: SlotTracker::new(depth as usize, config.buffer_len_bytes, config.fds.len()),
            trimmer: crate::trim::Trimmer::new(&config.fds),
            done_at_queue: Vec::new(),
            buffers: ManuallyDrop::new(buffers),
        })
    }

    /// Enables an R_DISABLED ring, making the calling thread its single issuer.
    #[inline]
    fn enable(&mut self) -> Result<(), EngineError> {
        if !self.enabled {
            self.ring
                .submitter()
                .register_enable_rings()
                .map_err(|source| EngineError::Syscall {
                    call: "io_uring_register(ENABLE_RINGS)",
                    source,
                })?;
            self.enabled = true;
        }
        Ok(())
    }

    /// One `io_uring_enter`: submits every pending SQE and waits for `want` completions.
    /// Returns SQEs submitted. Interruptions and CQ back-pressure are not errors: the caller
    /// reaps and calls again, and unsubmitted SQEs stay in the ring for the next enter.
    #[inline]
    fn enter(&mut self, want: usize) -> Result<usize, EngineError> {
        self.enable()?;
        match self.ring.submit_and_wait(want) {
            Ok(n) => Ok(n),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EINTR | libc::EAGAIN | libc::EBUSY | libc::ETIME)
                ) =>
            {
                Ok(0)
            }
            Err(source) => Err(EngineError::Syscall {
                call: "io_uring_enter",
                source,
            }),
        }
    }

    /// Moves every posted CQE to `out` and frees its slot.
    #[inline]
    fn reap(&mut self, out: &mut Vec<IoCompletion>) -> usize {
        let mut cq = self.ring.completion();
        let n = cq.len();
        out.reserve(n);
        for cqe in &mut cq {
            let slot = cqe.user_data() as u32;
            self.slots.end(slot);
            out.push(IoCompletion {
                slot,
                result: i64::from(cqe.result()),
            });
        }
        n
    }

    /// Waits (entering as often as needed) until `want` completions were reaped in total,
    /// counting `got` already reaped.
    #[inline]
    fn wait_for(
        &mut self,
        want: usize,
        mut got: usize,
        out: &mut Vec<IoCompletion>,
    ) -> Result<usize, EngineError> {
        while got < want {
            self.enter(want - got)?;
            got += self.reap(out);
        }
        Ok(got)
    }

    /// Moves the completions of trims done at queue time to `out`.
    #[cold]
    fn take_done_at_queue(&mut self, out: &mut Vec<IoCompletion>) -> usize {
        let n = self.done_at_queue.len();
        for c in self.done_at_queue.drain(..) {
            self.slots.end(c.slot);
            out.push(c);
        }
        n
    }

    /// Completions that need no enter: trims done at queue time (a cold path, so jobs
    /// without trims pay one length check), then the CQ's.
    #[inline]
    fn reap_ready(&mut self, out: &mut Vec<IoCompletion>) -> usize {
        let early = if self.done_at_queue.is_empty() {
            0
        } else {
            self.take_done_at_queue(out)
        };
        early + self.reap(out)
    }

    /// Units queued but not yet taken by the kernel.
    #[inline]
    fn unsubmitted(&mut self) -> usize {
        self.ring.submission().len()
    }
}

/// Builds the SQE for `unit` with `fd` either a raw descriptor or a registered file index.
macro_rules! rw_entry {
    ($fd:expr, $unit:expr, $buf:expr, $fixed:expr) => {{
        let (len, off, idx) = ($unit.len_bytes, $unit.offset_bytes, $unit.slot as u16);
        match ($unit.op, $fixed) {
            (IoOp::Read, false) => opcode::Read::new($fd, $buf, len).offset(off).build(),
            (IoOp::Write, false) => opcode::Write::new($fd, $buf, len).offset(off).build(),
            (IoOp::Read, true) => opcode::ReadFixed::new($fd, $buf, len, idx)
                .offset(off)
                .build(),
            (IoOp::Write, true) => opcode::WriteFixed::new($fd, $buf, len, idx)
                .offset(off)
                .build(),
            (IoOp::Fsync, _) => opcode::Fsync::new($fd).build(),
            (IoOp::Fdatasync, _) => opcode::Fsync::new($fd)
                .flags(types::FsyncFlags::DATASYNC)
                .build(),
            // Not reached: `queue` does trims itself.
            (IoOp::Trim, _) => opcode::Nop::new().build(),
            (IoOp::SyncFileRange(flags), _) => opcode::SyncFileRange::new($fd, len)
                .offset(off)
                .flags(flags)
                .build(),
        }
    }};
}

impl Tuned {
    /// Counts a request for `force_async`; true when this one gets IOSQE_ASYNC.
    #[inline]
    fn take_async_turn(&mut self) -> bool {
        if self.force_async_every == 0 {
            return false;
        }
        self.since_async += 1;
        if self.since_async >= self.force_async_every {
            self.since_async = 0;
            return true;
        }
        false
    }
}

/// Builds the SQE for `unit` with the job's per-IO options (`Tuned`): vectored opcodes with
/// the slot's iovec, RWF_NOWAIT, IOSQE_ASYNC every Nth request.
macro_rules! tuned_entry {
    ($fd:expr, $unit:expr, $buf:expr, $fixed:expr, $tuned:expr) => {{
        let (len, off, idx) = ($unit.len_bytes, $unit.offset_bytes, $unit.slot as u16);
        let flags = if $tuned.nowait { libc::RWF_NOWAIT } else { 0 };
        let prio = $tuned.ioprio.get($unit.slot as usize).copied().unwrap_or(0);
        let vectored = !$tuned.iovecs.is_empty();
        let entry = match ($unit.op, $fixed, vectored) {
            (IoOp::Read, true, _) => opcode::ReadFixed::new($fd, $buf, len, idx)
                .offset(off)
                .rw_flags(flags)
                .ioprio(prio)
                .build(),
            (IoOp::Write, true, _) => opcode::WriteFixed::new($fd, $buf, len, idx)
                .offset(off)
                .rw_flags(flags)
                .ioprio(prio)
                .build(),
            (IoOp::Read | IoOp::Write, false, true) => {
                let iovec = &mut $tuned.iovecs[$unit.slot as usize];
                iovec.iov_len = len as usize;
                let iovec: *const libc::iovec = iovec;
                if $unit.op == IoOp::Read {
                    opcode::Readv::new($fd, iovec, 1)
                        .offset(off)
                        .rw_flags(flags)
                        .ioprio(prio)
                        .build()
                } else {
                    opcode::Writev::new($fd, iovec, 1)
                        .offset(off)
                        .rw_flags(flags)
                        .ioprio(prio)
                        .build()
                }
            }
            (IoOp::Read, false, false) => opcode::Read::new($fd, $buf, len)
                .offset(off)
                .rw_flags(flags)
                .ioprio(prio)
                .build(),
            (IoOp::Write, false, false) => opcode::Write::new($fd, $buf, len)
                .offset(off)
                .rw_flags(flags)
                .ioprio(prio)
                .build(),
            _ => rw_entry!($fd, $unit, $buf, $fixed),
        };
        if $tuned.take_async_turn() {
            entry.flags(squeue::Flags::ASYNC)
        } else {
            entry
        }
    }};
}

impl IoEngine for UringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    #[inline]
    fn queue(&mut self, unit: IoUnit) -> Result<(), EngineError> {
        self.slots.begin(&unit)?;
        if unit.op == IoOp::Trim {
            let fd = self.fds[unit.file as usize];
            let result = self
                .trimmer
                .trim(fd, unit.file, unit.offset_bytes, unit.len_bytes);
            self.done_at_queue.push(IoCompletion {
                slot: unit.slot,
                result,
            });
            return Ok(());
        }
        let buf = self.buffers.slot_ptr(unit.slot as usize);
        let entry: squeue::Entry = match (&mut self.tuning, self.registered_files) {
            (None, true) => rw_entry!(types::Fixed(unit.file), unit, buf, self.fixed_buffers),
            (None, false) => {
                let fd = self.fds[unit.file as usize];
                rw_entry!(types::Fd(fd), unit, buf, self.fixed_buffers)
            }
            (Some(tuned), true) => {
                tuned_entry!(
                    types::Fixed(unit.file),
                    unit,
                    buf,
                    self.fixed_buffers,
                    tuned
                )
            }
            (Some(tuned), false) => {
                let fd = self.fds[unit.file as usize];
                tuned_entry!(types::Fd(fd), unit, buf, self.fixed_buffers, tuned)
            }
        };
        let entry = entry.user_data(u64::from(unit.slot));
        // SAFETY: the SQE points at slot `unit.slot`, whose `len_bytes` bytes lie inside the
        // buffer allocation (checked by `begin`). The slot is marked busy, so no Rust
        // reference to it is lent out until its CQE is reaped, and `Drop` keeps the memory
        // alive until every CQE arrived.
        let pushed = unsafe { self.ring.submission().push(&entry) };
        if pushed.is_err() {
            self.slots.end(unit.slot);
            return Err(EngineError::QueueFull(self.ring.params().sq_entries()));
        }
        Ok(())
    }

    #[inline]
    fn commit(&mut self) -> Result<usize, EngineError> {
        if self.unsubmitted() == 0 {
            return Ok(0);
        }
        self.enter(0)
    }

    #[inline]
    fn getevents(&mut self, min: usize, out: &mut Vec<IoCompletion>) -> Result<usize, EngineError> {
        let want = min.min(self.slots.in_flight());
        let got = self.reap_ready(out);
        // Completions can be parked as deferred task work that only an enter with GETEVENTS
        // turns into CQEs; the kernel says so with the TASKRUN flag, so even `min == 0` looks.
        let needs_enter = self.unsubmitted() > 0 || {
            let sq = self.ring.submission();
            sq.taskrun() || sq.cq_overflow()
        };
        if got < want || (got == 0 && needs_enter) {
            let more = want.saturating_sub(got);
            self.enter(more)?;
            let got = got + self.reap(out);
            return self.wait_for(want, got, out);
        }
        Ok(got)
    }

    fn getevents_within(
        &mut self,
        timeout_ns: u64,
        out: &mut Vec<IoCompletion>,
    ) -> Result<Option<usize>, EngineError> {
        self.wait_within(timeout_ns, out)
    }

    #[inline]
    fn commit_and_getevents(
        &mut self,
        min: usize,
        out: &mut Vec<IoCompletion>,
    ) -> Result<(usize, usize), EngineError> {
        if self.unsubmitted() == 0 {
            return Ok((0, self.getevents(min, out)?));
        }
        let want = min.min(self.slots.in_flight());
        // Trims done at queue time count towards `want` without the ring.
        let early = if self.done_at_queue.is_empty() {
            0
        } else {
            self.take_done_at_queue(out)
        };
        let submitted = self.enter(want.saturating_sub(early))?;
        let got = early + self.reap(out);
        Ok((submitted, self.wait_for(want, got, out)?))
    }

    fn set_ioprio(&mut self, slot: u32, ioprio: u16) {
        if let Some(prio) = self
            .tuning
            .as_mut()
            .and_then(|t| t.ioprio.get_mut(slot as usize))
        {
            *prio = ioprio;
        }
    }

    fn buffer_mut(&mut self, slot: u32) -> &mut [u8] {
        self.slots.assert_idle(slot);
        self.buffers.slot_mut(slot as usize)
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        // The kernel may still read or write the buffers of in-flight units: reap them all
        // (submitting any still in the SQ so that they complete) before freeing the memory.
        let mut sink = Vec::new();
        while self.slots.in_flight() > 0 {
            let want = self.slots.in_flight();
            if self.getevents(want, &mut sink).is_err() {
                // Cannot prove the kernel is done (e.g. dropped on a thread that is not the
                // ring's issuer): leak the buffers rather than let the kernel write freed memory.
                return;
            }
            sink.clear();
        }
        // SAFETY: nothing is in flight, so the kernel no longer touches the buffers, and
        // `buffers` is not used after this point.
        unsafe { ManuallyDrop::drop(&mut self.buffers) }
    }
}

#[cfg(test)]
mod tests;
mod wait;
