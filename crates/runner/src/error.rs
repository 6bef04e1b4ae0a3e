//! Why a run could not start or could not finish: [`RunError`] and the typed causes it
//! carries (a throttle that cannot work, an IO that failed).

use crate::safety::{describe_io_error, ProbeError, WriteRefusal};
use diskmeter_units::{format_rate_binary, Direction};
use std::path::PathBuf;

/// Why a run could not start or could not finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A target cannot be used as asked.
    #[error("{}: {message}", path.display())]
    Target {
        /// The file or device.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A target could not be looked at.
    #[error("{}: {source}", path.display())]
    Probe {
        /// The file or device.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: ProbeError,
    },
    /// Writing to a target could destroy data, and `--allow-destroy` was not given.
    #[error("{}: {refusal}", path.display())]
    Refused {
        /// The file or device.
        path: PathBuf,
        /// Why it looks like it holds data.
        refusal: WriteRefusal,
    },
    /// The test files would not fit on their filesystem ([`crate::space`]).
    #[error("{0}")]
    NoSpace(#[from] crate::space::SpaceShortfall),
    /// The step's IO buffers would not fit in the memory available ([`crate::memory`]).
    #[error("{0}")]
    Memory(#[from] crate::memory::MemoryShortfall),
    /// A job cannot run as specified.
    #[error("job {job}: {message}")]
    Job {
        /// The job's name.
        job: String,
        /// What is wrong.
        message: String,
    },
    /// The job's iolog (`read_iolog`, `write_iolog`) cannot be read or written; the cause
    /// names the log and, for bad text, the line.
    #[error("job {job}: {source}")]
    Iolog {
        /// The job's name.
        job: String,
        /// What went wrong.
        #[source]
        source: diskmeter_iolog::IologError,
    },
    /// The user stopped the run before the workers started.
    #[error("interrupted")]
    Interrupted,
    /// The run's [`crate::PhaseGate`] stopped it before a phase (in a scale-out run: another
    /// rank failed); the cause is the gate's own error, kept whole for the caller.
    #[error("{0}")]
    Stopped(#[source] crate::GateError),
    /// The in-engine throttle cannot work as asked.
    #[error("throttle: {0}")]
    Throttle(#[from] ThrottleError),
    /// A worker or monitor thread could not be started; no worker of the run did any IO.
    #[error("cannot start a worker thread: {0}")]
    Spawn(std::io::Error),
    /// A worker thread panicked (a bug); its statistics are lost.
    #[error("worker thread panicked")]
    WorkerPanicked,
    /// The kernel refused a worker's placement or priority (`cpus_allowed`,
    /// `numa_mem_policy`, `nice`, `prio`/`prioclass`).
    #[error("job {job}: cannot apply {option} ({source})")]
    Placement {
        /// The job's name.
        job: String,
        /// The option the kernel refused.
        option: &'static str,
        /// The kernel's answer.
        #[source]
        source: std::io::Error,
    },
    /// The job's IO engine could not be built, or one of its calls failed.
    #[error("job {job}: {source}")]
    Engine {
        /// The job's name.
        job: String,
        /// The engine's error.
        #[source]
        source: diskmeter_engine::EngineError,
    },
    /// An IO completed with an error.
    #[error("job {job}: {io} failed: {}", describe_io_error(source))]
    IoFailed {
        /// The job's name.
        job: String,
        /// Which IO.
        io: FailedIo,
        /// The errno it completed with.
        #[source]
        source: std::io::Error,
    },
    /// A direction moved less than fio's `rate_min` over a `rate_cycle`.
    #[error(
        "job {job}: rate_min not met: {} moved {} over the last {window_ms} ms, below the \
         minimum {} (fio ends such a job too)",
        match direction { Direction::Read => "reads", Direction::Write => "writes" },
        format_rate_binary(*moved_bytes_per_sec as f64),
        format_rate_binary(*min_bytes_per_sec as f64)
    )]
    RateMinNotMet {
        /// The job's name.
        job: String,
        /// The direction that fell short.
        direction: Direction,
        /// What it moved over the window, bytes per second.
        moved_bytes_per_sec: u64,
        /// The window, ms.
        window_ms: u64,
        /// The minimum, bytes per second.
        min_bytes_per_sec: u64,
    },
    /// Blocks read back did not hold what was written (fio `verify`); fio ends such a job
    /// with EILSEQ.
    #[error(
        "job {job}: verify failed: {errors} of {blocks} blocks checked did not match; first at \
         {} offset {}: {}, expected {}, found {}",
        first.path, first.offset_bytes, first.kind, first.expected, first.found
    )]
    VerifyFailed {
        /// The job's name.
        job: String,
        /// Blocks that did not match.
        errors: u64,
        /// Blocks checked.
        blocks: u64,
        /// The first mismatch found.
        first: Box<diskmeter_stats::VerifyFailure>,
    },
    /// fio's `rate_iops_min` was not met over a `rate_cycle`.
    #[error(
        "job {job}: rate_iops_min not met: {} did {moved_iops} IOPS over the last {window_ms} \
         ms, below the minimum {min_iops} (fio ends such a job too)",
        match direction { Direction::Read => "reads", Direction::Write => "writes" }
    )]
    RateIopsMinNotMet {
        /// The job's name.
        job: String,
        /// The direction that fell short.
        direction: Direction,
        /// Its IOPS over the window.
        moved_iops: u64,
        /// The window, ms.
        window_ms: u64,
        /// The minimum.
        min_iops: u64,
    },
    /// An IO took longer than fio's `max_latency` (fio ends the job with ETIMEDOUT).
    #[error(
        "job {job}: an IO took {}, over max_latency={} (ETIMEDOUT, as fio ends it)",
        diskmeter_units::format_time_suffix(*latency_ns),
        diskmeter_units::format_time_suffix(*max_ns)
    )]
    MaxLatencyExceeded {
        /// The job's name.
        job: String,
        /// The IO's latency, ns.
        latency_ns: u64,
        /// The limit, ns.
        max_ns: u64,
    },
    /// An IO missed a `latency_target` with `latency_percentile=100` at queue depth 1: no
    /// depth meets it (fio ends the job with ETIMEDOUT).
    #[error(
        "job {job}: an IO took {} at queue depth 1, over latency_target={}: no depth meets \
         the target (ETIMEDOUT, as fio ends it; a latency_percentile below 100 tolerates \
         single slow IOs)",
        diskmeter_units::format_time_suffix(*latency_ns),
        diskmeter_units::format_time_suffix(*target_ns)
    )]
    LatencyTargetUnmet {
        /// The job's name.
        job: String,
        /// The IO's latency, ns.
        latency_ns: u64,
        /// The target, ns.
        target_ns: u64,
    },
    /// `wait_for` names no job before this one (fio: the waitee must come first).
    #[error(
        "job {job}: wait_for={waitee} names no job before it (fio waits only for an earlier \
         job, by its name)"
    )]
    WaitForUnknown {
        /// The waiting job.
        job: String,
        /// The name it waits for.
        waitee: String,
    },
}

/// Why the in-engine throttle cannot work as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThrottleError {
    /// A cap of zero would stop all IO.
    #[error("a {cap} cap of 0 would stop all IO")]
    ZeroCap {
        /// Which cap ("IOPS", "write bandwidth", ...).
        cap: &'static str,
    },
    /// A burst setting that makes no sense (`--throttle-burst-iops` without `--throttle-iops`,
    /// below it, without `--throttle-burst-time`, ...); the text names the option.
    #[error("{0}")]
    Burst(String),
}

/// An IO that completed with an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailedIo {
    /// A read or a write.
    Transfer {
        /// Read or write.
        direction: Direction,
        /// Bytes asked for.
        len_bytes: u32,
        /// Where in the file.
        offset_bytes: u64,
        /// The file or device.
        path: PathBuf,
    },
    /// A file sync (`fsync`, `fdatasync`, `end_fsync`).
    Sync {
        /// The file or device.
        path: PathBuf,
    },
    /// A trim (BLKDISCARD on a device, a punched hole in a file).
    Trim {
        /// Bytes asked for.
        len_bytes: u32,
        /// Where in the file.
        offset_bytes: u64,
        /// The file or device.
        path: PathBuf,
    },
}

impl std::fmt::Display for FailedIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FailedIo::Transfer {
                direction,
                len_bytes,
                offset_bytes,
                path,
            } => write!(
                f,
                "{} of {len_bytes} bytes at offset {offset_bytes} of {}",
                direction.as_str(),
                path.display()
            ),
            FailedIo::Sync { path } => write!(f, "syncing {}", path.display()),
            FailedIo::Trim {
                len_bytes,
                offset_bytes,
                path,
            } => write!(
                f,
                "trim of {len_bytes} bytes at offset {offset_bytes} of {}",
                path.display()
            ),
        }
    }
}
