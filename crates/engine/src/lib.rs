//! IO engines: the only place where diskmeter talks to the kernel's IO interfaces.
//!
//! An engine follows fio's `ioengine_ops` shape (queue -> commit -> getevents): the runner
//! queues IO units, commits them in a batch, then reaps completions. Engines own their IO
//! buffers (aligned, allocated here because this is the only crate allowed `unsafe`) and never
//! take timestamps: the runner does, so every engine is measured the same way.
//!
//! `sys` holds the few other system calls the upper layers need that have no safe wrapper
//! (block-device ioctls, per-thread CPU usage, CPU affinity).

pub mod buffers;
mod libaio;
mod null;
mod psync;
mod slots;
pub mod sys;
mod trim;
mod uring;

use std::os::fd::RawFd;

pub use buffers::{fill_random, mapped_bytes, AlignedBuffers, BufferFill};

/// Which engine to build (mirrors `diskmeter_workload::EngineKind`, kept separate so the
/// engine does not depend on the workload model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineChoice {
    /// io_uring through the io-uring crate.
    IoUring,
    /// Linux native AIO through raw system calls.
    Libaio,
    /// pread/pwrite.
    Psync,
    /// No IO.
    Null,
}

/// The operation of one IO unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoOp {
    /// Read `len` bytes at `offset` into the slot's buffer.
    Read,
    /// Write `len` bytes from the slot's buffer at `offset`.
    Write,
    /// fsync(2) the file: data and metadata reach stable storage (`len` and `offset` unused).
    Fsync,
    /// fdatasync(2) the file: data, and the metadata needed to read it back.
    Fdatasync,
    /// Discard `len` bytes at `offset`: BLKDISCARD on a block device, a punched hole in a
    /// file (fio's trim). Done synchronously by every engine; the buffer is unused.
    Trim,
    /// sync_file_range(2) of `len` bytes at `offset` (0 bytes: to the end of the file) with
    /// these `SYNC_FILE_RANGE_*` flags (fio `sync_file_range`).
    SyncFileRange(u32),
}

/// One IO to perform. `slot` names both the buffer and the in-flight tag (0..iodepth):
/// a slot is reused only after its completion was reaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoUnit {
    /// Read or write.
    pub op: IoOp,
    /// Index into the engine's file list.
    pub file: u32,
    /// Byte offset in the file.
    pub offset_bytes: u64,
    /// Bytes to transfer (<= the engine's buffer length).
    pub len_bytes: u32,
    /// Buffer and tag, `0..iodepth`.
    pub slot: u32,
}

/// A finished IO unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoCompletion {
    /// The slot given when the unit was queued.
    pub slot: u32,
    /// Bytes transferred (>= 0) or a negated errno.
    pub result: i64,
}

/// What an engine can do; checked once before a run by [`check_capabilities`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Most IOs the engine can have in flight per worker (`None` = no engine limit).
    pub max_iodepth: Option<u32>,
    /// IO happens inside `commit` (psync): submission latency is meaningless and not recorded.
    pub synchronous: bool,
    /// Can register buffers with the kernel (io_uring `fixedbufs`).
    pub fixed_buffers: bool,
    /// Can register files with the kernel (io_uring `registerfiles`).
    pub registered_files: bool,
}

/// fio's engine options of io_uring and libaio; the default is what the engines do without
/// them. Engines ignore the options that are not theirs (the runner refuses such jobs first).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineTuning {
    /// io_uring `sqthread_poll`: a kernel thread polls the submission queue
    /// (IORING_SETUP_SQPOLL), so submitting needs no system call while it is awake.
    pub sqthread_poll: bool,
    /// io_uring `sqthread_poll_cpu`: the CPU of that kernel thread.
    pub sqthread_poll_cpu: Option<u32>,
    /// io_uring `hipri`: polled completions (IORING_SETUP_IOPOLL); needs O_DIRECT and a
    /// device with poll queues.
    pub hipri: bool,
    /// io_uring `nonvectored=0`: READV/WRITEV with one iovec instead of READ/WRITE.
    pub vectored: bool,
    /// io_uring and libaio `nowait`: RWF_NOWAIT on reads and writes (EAGAIN instead of
    /// blocking).
    pub nowait: bool,
    /// io_uring `force_async=N`: IOSQE_ASYNC on every Nth request; 0 = never.
    pub force_async_every: u32,
    /// libaio `userspace_reap`: a non-blocking reap reads the completion ring in user space
    /// instead of calling io_getevents.
    pub userspace_reap: bool,
    /// io_uring and libaio `cmdprio_*`: IOs carry a priority of their own, given per slot
    /// with [`IoEngine::set_ioprio`].
    pub per_io_priority: bool,
}

/// How to build an engine for one worker.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Which engine.
    pub choice: EngineChoice,
    /// IOs in flight (also the number of buffer slots).
    pub iodepth: u32,
    /// Bytes per buffer slot (the largest block size the worker uses).
    pub buffer_len_bytes: usize,
    /// Buffer alignment in bytes (the device's logical block size, at least 4096).
    pub buffer_align_bytes: usize,
    /// Open file descriptors the worker's IO units refer to by index; owned by the caller,
    /// who keeps them open for the engine's lifetime.
    pub fds: Vec<RawFd>,
    /// Register the buffers with the kernel where the engine can.
    pub fixed_buffers: bool,
    /// Register the files with the kernel where the engine can.
    pub register_files: bool,
    /// What the buffers are filled with before the first write.
    pub fill: BufferFill,
    /// Seed for the random fill.
    pub seed: u64,
    /// fio's engine options (io_uring, libaio).
    pub tuning: EngineTuning,
}

/// Why an engine could not be built or could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The kernel refused io_uring (old kernel, seccomp, or io_uring_disabled).
    #[error(
        "io_uring is not available on this system ({0}); use --ioengine=psync (or libaio) instead"
    )]
    IoUringUnavailable(std::io::Error),
    /// The kernel refused native AIO.
    #[error("Linux native AIO (libaio) is not available ({0}); use --ioengine=psync instead")]
    AioUnavailable(std::io::Error),
    /// A system call of the engine failed.
    #[error("{call} failed: {source}")]
    Syscall {
        /// The call that failed.
        call: &'static str,
        /// The kernel's error.
        source: std::io::Error,
    },
    /// Buffer memory could not be allocated.
    #[error(
        "could not allocate {bytes} bytes of IO buffers aligned to {align}; lower iodepth, bs \
         or numjobs"
    )]
    BufferAlloc {
        /// Bytes asked for.
        bytes: usize,
        /// Alignment asked for.
        align: usize,
    },
    /// The job asked for something this engine cannot do.
    #[error("the {engine} engine {problem}")]
    Unsupported {
        /// Engine name.
        engine: &'static str,
        /// What it cannot do.
        problem: String,
    },
    /// More units were queued than the engine has slots for.
    #[error("engine queue is full ({0} units)")]
    QueueFull(u32),
    /// The runner broke the unit contract (slot busy or out of range, length over the
    /// buffer, unknown file); refused because the kernel would touch memory it must not.
    #[error("IO unit for slot {slot} {problem}")]
    BadUnit {
        /// The unit's slot.
        slot: u32,
        /// What is wrong with it.
        problem: &'static str,
    },
}

/// The queue -> commit -> getevents contract every engine implements.
///
/// The runner calls `queue` for each unit of a batch, `commit` once, then `getevents`
/// until it has reaped what it needs. A unit is in flight from `queue` until its completion
/// is returned by `getevents`. Engines never block in `queue`.
pub trait IoEngine: Send {
    /// The engine's name as fio spells it.
    fn name(&self) -> &'static str;

    /// Fixed facts about the engine.
    fn capabilities(&self) -> Capabilities;

    /// Adds one unit to the pending batch. Fails with [`EngineError::BadUnit`] if the slot is
    /// out of range or still in flight, the length exceeds the buffer slot, or the file index
    /// is unknown.
    fn queue(&mut self, unit: IoUnit) -> Result<(), EngineError>;

    /// Hands the pending batch to the kernel; returns how many units were submitted.
    fn commit(&mut self) -> Result<usize, EngineError>;

    /// Waits for at least `min` completions (0 = don't wait) and appends all that are ready
    /// to `out`; returns how many were appended. `min` is clamped to the units in flight, so
    /// the call never waits for IO that was not queued.
    fn getevents(&mut self, min: usize, out: &mut Vec<IoCompletion>) -> Result<usize, EngineError>;

    /// `commit` then `getevents(min, out)`, in one system call where the engine can (io_uring
    /// submits and waits in a single `io_uring_enter`, so a QD1 loop costs one call per IO).
    /// Returns (units submitted, completions appended).
    fn commit_and_getevents(
        &mut self,
        min: usize,
        out: &mut Vec<IoCompletion>,
    ) -> Result<(usize, usize), EngineError> {
        let submitted = self.commit()?;
        let reaped = self.getevents(min, out)?;
        Ok((submitted, reaped))
    }

    /// Waits until a unit in flight completes or `timeout_ns` passes, whichever is first, and
    /// appends what is ready to `out`: `Some(appended)`. A rate-limited runner waits this way
    /// for its next turn, so a completion is timed when it happens, not at the next poll.
    /// `None` when the engine cannot wait with a limit (the caller polls and sleeps instead);
    /// that is the default.
    fn getevents_within(
        &mut self,
        _timeout_ns: u64,
        _out: &mut Vec<IoCompletion>,
    ) -> Result<Option<usize>, EngineError> {
        Ok(None)
    }

    /// The IO priority (the kernel's ioprio value, class << 13 | level; 0 = the thread's)
    /// the next unit queued in `slot` carries (fio's `cmdprio_*`). Engines that cannot
    /// carry one per IO ignore it; the runner refuses such jobs first.
    fn set_ioprio(&mut self, _slot: u32, _ioprio: u16) {}

    /// The buffer of `slot`, to fill before a write or inspect after a read.
    ///
    /// Panics if `slot` is out of range or in flight (between `queue` and the `getevents` that
    /// returned it), because the kernel may be reading or writing those bytes.
    fn buffer_mut(&mut self, slot: u32) -> &mut [u8];
}

/// Builds the engine `config` asks for.
pub fn open_engine(config: &EngineConfig) -> Result<Box<dyn IoEngine>, EngineError> {
    match config.choice {
        EngineChoice::IoUring => Ok(Box::new(uring::UringEngine::new(config)?)),
        EngineChoice::Libaio => Ok(Box::new(libaio::AioEngine::new(config)?)),
        EngineChoice::Psync => Ok(Box::new(psync::PsyncEngine::new(config)?)),
        EngineChoice::Null => Ok(Box::new(null::NullEngine::new(config)?)),
    }
}

/// The capabilities of an engine without building it.
pub fn capabilities_of(choice: EngineChoice) -> Capabilities {
    match choice {
        EngineChoice::IoUring => uring::CAPABILITIES,
        EngineChoice::Libaio => libaio::CAPABILITIES,
        EngineChoice::Psync => psync::CAPABILITIES,
        EngineChoice::Null => null::CAPABILITIES,
    }
}

/// Checks a job's needs against an engine's capabilities before anything runs.
/// (An iodepth above `max_iodepth` is not an error: like fio, the runner clamps it and says so.)
pub fn check_capabilities(
    choice: EngineChoice,
    fixed_buffers: bool,
    register_files: bool,
) -> Result<(), EngineError> {
    let caps = capabilities_of(choice);
    let engine = engine_name(choice);
    if fixed_buffers && !caps.fixed_buffers {
        return Err(EngineError::Unsupported {
            engine,
            problem: "cannot register buffers (fixedbufs is an io_uring option)".to_string(),
        });
    }
    if register_files && !caps.registered_files {
        return Err(EngineError::Unsupported {
            engine,
            problem: "cannot register files (registerfiles is an io_uring option)".to_string(),
        });
    }
    Ok(())
}

/// fio's name for an engine.
pub fn engine_name(choice: EngineChoice) -> &'static str {
    match choice {
        EngineChoice::IoUring => "io_uring",
        EngineChoice::Libaio => "libaio",
        EngineChoice::Psync => "psync",
        EngineChoice::Null => "null",
    }
}
