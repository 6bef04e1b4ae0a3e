//! The libaio engine: Linux native AIO through raw system calls (no libaio.so needed).
//!
//! `struct iocb` and `struct io_event` are declared here from `linux/aio_abi.h`. Each slot
//! owns one iocb whose `aio_data` is the slot; `commit` hands every queued iocb to one
//! `io_submit`, resubmitting the rest after a partial submission. An iocb the kernel refuses
//! at submission (bad fd, bad opcode) becomes a completion carrying that negated errno, so
//! the runner sees every error in the same place; EAGAIN (no room in the context) leaves the
//! rest queued for the next `commit`/`getevents`.

use std::io;
use std::os::fd::RawFd;

use crate::buffers::AlignedBuffers;
use crate::slots::SlotTracker;
use crate::{Capabilities, EngineConfig, EngineError, IoCompletion, IoEngine, IoOp, IoUnit};

/// What the libaio engine can do.
pub(crate) const CAPABILITIES: Capabilities = Capabilities {
    max_iodepth: None,
    synchronous: false,
    fixed_buffers: false,
    registered_files: false,
};

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
/// IOCB_CMD_NOOP (aio_abi.h).
const IOCB_CMD_NOOP: u16 = 6;
const IOCB_CMD_FDSYNC: u16 = 3;

/// `struct iocb` of linux/aio_abi.h (64 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    #[cfg(target_endian = "little")]
    aio_key: u32,
    #[cfg(target_endian = "little")]
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_key: u32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event` of linux/aio_abi.h.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);
const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);

/// A native AIO context with one iocb per slot.
pub(crate) struct AioEngine {
    ctx: libc::c_ulong,
    fds: Vec<RawFd>,
    /// One iocb per slot; never resized, so pointers into it stay valid.
    iocbs: Vec<Iocb>,
    /// Slots queued but not yet accepted by the kernel, in queue order.
    pending: Vec<u32>,
    /// `io_submit`'s argument array, rebuilt from `pending` (kept to avoid allocating).
    ptrs: Vec<*mut Iocb>,
    /// Completions produced without the kernel (iocbs refused at submission).
    refused: Vec<IoCompletion>,
    events: Vec<IoEvent>,
    /// Units the kernel accepted and has not yet completed.
    in_kernel: usize,
    /// RWF_NOWAIT on reads and writes (fio `nowait`).
    nowait: bool,
    /// Non-blocking reaps read the completion ring in user space (fio `userspace_reap`).
    userspace_reap: bool,
    /// Per slot, the IO priority its next IO carries (`cmdprio_*`); empty when unused.
    ioprio: Vec<u16>,
    slots: SlotTracker,
    /// Trims are done at queue time (native AIO has no discard) and land in `refused`.
    trimmer: crate::trim::Trimmer,
    /// Declared last and freed in `Drop` only after the kernel is done with it.
    buffers: AlignedBuffers,
}

// SAFETY: the raw pointers in `ptrs` point into `self.iocbs` only and are rebuilt before
// every use; the AIO context is a kernel handle usable from any thread of the process.
unsafe impl Send for AioEngine {}

fn syscall_error(call: &'static str) -> EngineError {
    EngineError::Syscall {
        call,
        source: io::Error::last_os_error(),
    }
}

impl AioEngine {
    /// Creates an AIO context of `iodepth` events.
    pub(crate) fn new(config: &EngineConfig) -> Result<Self, EngineError> {
        let depth = config.iodepth as usize;
        if depth == 0 {
            return Err(EngineError::Unsupported {
                engine: "libaio",
                problem: "needs an iodepth of at least 1".to_string(),
            });
        }
        let buffers = AlignedBuffers::new(
            depth,
            config.buffer_len_bytes,
            config.buffer_align_bytes,
            config.fill,
            config.seed,
        )?;
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes one aio_context_t (an unsigned long) to `ctx`, which is
        // zeroed as the call requires.
        let rc = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx) };
        if rc < 0 {
            return Err(EngineError::AioUnavailable(io::Error::last_os_error()));
        }
        Ok(AioEngine {
            ctx,
            fds: config.fds.clone(),
            iocbs: vec![Iocb::default(); depth],
            pending: Vec::with_capacity(depth),
            ptrs: Vec::with_capacity(depth),
            refused: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
            in_kernel: 0,
            nowait: config.tuning.nowait,
            userspace_reap: config.tuning.userspace_reap,
            ioprio: if config.tuning.per_io_priority {
                vec![0; depth]
            } else {
                Vec::new()
            },
            slots: SlotTracker::new(depth, config.buffer_len_bytes, config.fds.len()),
            trimmer: crate::trim::Trimmer::new(&config.fds),
            buffers,
        })
    }

    /// Submits pending iocbs until all are accepted or the kernel says EAGAIN.
    fn submit_pending(&mut self) -> Result<usize, EngineError> {
        if self.pending.is_empty() {
            return Ok(0);
        }
        let base = self.iocbs.as_mut_ptr();
        self.ptrs.clear();
        // SAFETY: pointer arithmetic only; every pending slot was checked `< iocbs.len()`.
        self.ptrs.extend(
            self.pending
                .iter()
                .map(|&s| unsafe { base.add(s as usize) }),
        );
        let mut done = 0;
        let mut accepted = 0;
        while done < self.ptrs.len() {
            let rest = &mut self.ptrs[done..];
            // SAFETY: `rest` is an array of valid iocb pointers into `self.iocbs`, whose
            // buffers are live slots of the right length (checked at queue time).
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    rest.len() as libc::c_long,
                    rest.as_mut_ptr(),
                )
            };
            if rc > 0 {
                done += rc as usize;
                accepted += rc as usize;
                continue;
            }
            let err = if rc == 0 {
                io::Error::from_raw_os_error(libc::EAGAIN)
            } else {
                io::Error::last_os_error()
            };
            match err.raw_os_error() {
                Some(libc::EINTR) => continue,
                // The context is full: keep the rest queued; reaping makes room.
                Some(libc::EAGAIN) if self.in_kernel + accepted > 0 => break,
                Some(libc::EAGAIN) => {
                    return Err(EngineError::Syscall {
                        call: "io_submit",
                        source: err,
                    })
                }
                // The first iocb of `rest` was refused: report it as that unit's result.
                Some(errno) => {
                    let slot = self.pending[done];
                    self.refused.push(IoCompletion {
                        slot,
                        result: -i64::from(errno),
                    });
                    done += 1;
                }
                None => return Err(syscall_error("io_submit")),
            }
        }
        self.in_kernel += accepted;
        self.pending.drain(..done);
        Ok(accepted)
    }

    /// Moves refused units to `out`.
    fn take_refused(&mut self, out: &mut Vec<IoCompletion>) -> usize {
        let n = self.refused.len();
        for c in self.refused.drain(..) {
            self.slots.end(c.slot);
            out.push(c);
        }
        n
    }

    /// Takes the completions the kernel has posted to the context's ring, in user space
    /// (fio's `userspace_reap`); 0 when the ring is not the layout this reads.
    fn reap_user_space(&mut self, out: &mut Vec<IoCompletion>) -> usize {
        use std::sync::atomic::{AtomicU32, Ordering};
        /// `struct aio_ring`'s magic (fs/aio.c): the ring has the layout below.
        const AIO_RING_MAGIC: u32 = 0xa10a10a1;
        /// The ring's header: id, nr, head, tail, magic, compat, incompat, header_length.
        const HEADER_BYTES: usize = 32;
        let ring = self.ctx as usize as *mut u32;
        // SAFETY: an AIO context id is the address of the kernel's `struct aio_ring`, mapped
        // into this process for as long as the context lives; its 32-byte header is eight
        // u32s, read here as atomics because the kernel writes `tail` concurrently.
        let field = |index: usize| unsafe { &*(ring.add(index) as *const AtomicU32) };
        if field(4).load(Ordering::Relaxed) != AIO_RING_MAGIC {
            return 0;
        }
        let nr = field(1).load(Ordering::Relaxed);
        let head_field = field(2);
        let mut head = head_field.load(Ordering::Relaxed);
        let tail = field(3).load(Ordering::Acquire);
        let mut n = 0;
        while head != tail && nr > 0 {
            // SAFETY: the events follow the header; `head < nr` indexes the ring's array of
            // `nr` io_events, which the kernel filled before publishing `tail` (acquired).
            let event = unsafe {
                ((ring as *const u8).add(HEADER_BYTES) as *const IoEvent)
                    .add(head as usize)
                    .read_volatile()
            };
            let slot = event.data as u32;
            self.slots.end(slot);
            out.push(IoCompletion {
                slot,
                result: event.res,
            });
            head = (head + 1) % nr;
            n += 1;
        }
        if n > 0 {
            head_field.store(head, Ordering::Release);
            self.in_kernel -= n;
        }
        n
    }

    /// One `io_getevents` for at least `min` (<= in_kernel) events.
    /// Moves the first `n` reaped io_events to `out` and frees their slots.
    fn take_events(&mut self, n: usize, out: &mut Vec<IoCompletion>) -> usize {
        for ev in &self.events[..n] {
            let slot = ev.data as u32;
            self.slots.end(slot);
            out.push(IoCompletion {
                slot,
                result: ev.res,
            });
        }
        self.in_kernel -= n;
        n
    }

    fn reap(&mut self, min: usize, out: &mut Vec<IoCompletion>) -> Result<usize, EngineError> {
        if self.in_kernel == 0 {
            return Ok(0);
        }
        if min == 0 && self.userspace_reap {
            let got = self.reap_user_space(out);
            if got > 0 {
                return Ok(got);
            }
        }
        let max = self.in_kernel.min(self.events.len());
        let rc = loop {
            // SAFETY: `events` has room for `max` io_events; a null timeout waits without
            // limit, which `min <= in_kernel` makes finite.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if rc >= 0 {
                break rc as usize;
            }
            if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return Err(syscall_error("io_getevents"));
            }
        };
        Ok(self.take_events(rc, out))
    }
}

impl IoEngine for AioEngine {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn queue(&mut self, unit: IoUnit) -> Result<(), EngineError> {
        self.slots.begin(&unit)?;
        let buf = self.buffers.slot_ptr(unit.slot as usize);
        let Ok(offset) = i64::try_from(unit.offset_bytes) else {
            self.refused.push(IoCompletion {
                slot: unit.slot,
                result: -i64::from(libc::EINVAL),
            });
            return Ok(());
        };
        if unit.op == IoOp::Trim {
            let fd = self.fds[unit.file as usize];
            let result = self
                .trimmer
                .trim(fd, unit.file, unit.offset_bytes, unit.len_bytes);
            self.refused.push(IoCompletion {
                slot: unit.slot,
                result,
            });
            return Ok(());
        }
        let sync = matches!(unit.op, IoOp::Fsync | IoOp::Fdatasync);
        let opcode = match unit.op {
            IoOp::Read => IOCB_CMD_PREAD,
            IoOp::Write => IOCB_CMD_PWRITE,
            IoOp::Fsync => IOCB_CMD_FSYNC,
            IoOp::Fdatasync => IOCB_CMD_FDSYNC,
            // Not reached: trims were done above.
            IoOp::Trim => IOCB_CMD_NOOP,
            // Native AIO has no sync_file_range command: done here, as fio's libaio does,
            // and completed at the next reap.
            IoOp::SyncFileRange(flags) => {
                let fd = self.fds[unit.file as usize];
                let len = libc::off64_t::from(unit.len_bytes);
                // SAFETY: a plain system call on a descriptor; it touches no memory of ours.
                let ret = unsafe { libc::sync_file_range(fd, offset, len, flags) };
                let result = if ret == 0 {
                    0
                } else {
                    -i64::from(
                        std::io::Error::last_os_error()
                            .raw_os_error()
                            .unwrap_or(libc::EIO),
                    )
                };
                self.refused.push(IoCompletion {
                    slot: unit.slot,
                    result,
                });
                return Ok(());
            }
        };
        let prio = self.ioprio.get(unit.slot as usize).copied().unwrap_or(0);
        self.iocbs[unit.slot as usize] = Iocb {
            aio_data: u64::from(unit.slot),
            aio_lio_opcode: opcode,
            // A negative fd (closed or placeholder) becomes a huge one: EBADF either way.
            aio_fildes: self.fds[unit.file as usize] as u32,
            // The kernel refuses a sync that names a buffer or a range (EINVAL).
            aio_buf: if sync { 0 } else { buf as u64 },
            aio_nbytes: if sync { 0 } else { u64::from(unit.len_bytes) },
            aio_offset: if sync { 0 } else { offset },
            aio_rw_flags: if self.nowait && !sync {
                libc::RWF_NOWAIT
            } else {
                0
            },
            // IOCB_FLAG_IOPRIO: the kernel takes aio_reqprio as the IO's priority.
            aio_flags: if prio != 0 { 1 << 1 } else { 0 },
            aio_reqprio: prio as i16,
            ..Iocb::default()
        };
        self.pending.push(unit.slot);
        Ok(())
    }

    fn commit(&mut self) -> Result<usize, EngineError> {
        self.submit_pending()
    }

    fn getevents(&mut self, min: usize, out: &mut Vec<IoCompletion>) -> Result<usize, EngineError> {
        // Units left queued by an earlier EAGAIN get another chance first.
        self.submit_pending()?;
        let mut got = self.take_refused(out);
        let want = min.min(self.slots.in_flight());
        loop {
            let need = want.saturating_sub(got).min(self.in_kernel);
            got += self.reap(need, out)?;
            if got >= want || (self.in_kernel == 0 && self.pending.is_empty()) {
                return Ok(got);
            }
            self.submit_pending()?;
            got += self.take_refused(out);
        }
    }

    fn getevents_within(
        &mut self,
        timeout_ns: u64,
        out: &mut Vec<IoCompletion>,
    ) -> Result<Option<usize>, EngineError> {
        self.submit_pending()?;
        let got = self.take_refused(out);
        if got > 0 || self.in_kernel == 0 || !self.pending.is_empty() {
            return Ok(Some(got));
        }
        let max = self.in_kernel.min(self.events.len());
        let mut timeout = libc::timespec {
            tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: `events` has room for `max` io_events and `timeout` lives through the call;
        // io_getevents returns after one completion or when the timeout passes.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                1 as libc::c_long,
                max as libc::c_long,
                self.events.as_mut_ptr(),
                &mut timeout as *mut libc::timespec,
            )
        };
        if rc < 0 {
            if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                return Ok(Some(0));
            }
            return Err(syscall_error("io_getevents"));
        }
        Ok(Some(self.take_events(rc as usize, out)))
    }

    fn set_ioprio(&mut self, slot: u32, ioprio: u16) {
        if let Some(prio) = self.ioprio.get_mut(slot as usize) {
            *prio = ioprio;
        }
    }

    fn buffer_mut(&mut self, slot: u32) -> &mut [u8] {
        self.slots.assert_idle(slot);
        self.buffers.slot_mut(slot as usize)
    }
}

impl Drop for AioEngine {
    fn drop(&mut self) {
        // Wait for what the kernel holds before the buffers go (io_destroy also waits, but
        // reaping first keeps that guarantee explicit and independent of kernel version).
        let mut sink = Vec::new();
        while self.in_kernel > 0 {
            if self.reap(self.in_kernel, &mut sink).is_err() {
                break;
            }
            sink.clear();
        }
        // SAFETY: `ctx` came from io_setup and is destroyed once; io_destroy blocks until any
        // remaining request finished, so freeing the buffers afterwards is safe.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}
