//! What one worker measured: per-direction counts and latency histograms, its series, queue
//! depths and CPU use; and merging workers (clones of a job, or a `group_reporting` group).

use crate::depth::DepthDistribution;
use crate::histogram::LatencyHistogram;
use crate::interval::{merge_series, IntervalSample};
use crate::verify::VerifyStats;
use diskmeter_units::Direction;

/// Counts and latencies of one direction (reads or writes) of one worker or merged workers.
///
/// Latencies follow fio: `slat` is submission latency (issue call), `clat` completion latency
/// (from submission to completion), `lat` total latency (from the moment the IO was issued by the
/// worker to its completion). `lat_intended` is measured from the time the rate limiter intended
/// to issue the IO, so a device that falls behind its schedule shows the queueing its users would
/// see (coordinated omission). It is recorded only when the job is rate-limited and has count 0
/// otherwise; for an unlimited job it would equal `lat`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirectionStats {
    /// IOs completed.
    pub ios: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// IOs that transferred fewer bytes than requested.
    pub short_ios: u64,
    /// IOs that completed with an error.
    pub errors: u64,
    /// Submission latency, ns.
    pub slat: LatencyHistogram,
    /// Completion latency, ns.
    pub clat: LatencyHistogram,
    /// Total latency (issue to completion), ns.
    pub lat: LatencyHistogram,
    /// Latency from the intended issue time, ns; only for rate-limited jobs (count 0 otherwise).
    pub lat_intended: LatencyHistogram,
}

impl DirectionStats {
    /// Empty statistics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one completed IO of `bytes` with its submission and completion latencies; the
    /// total latency recorded is their sum.
    #[inline]
    pub fn record_io(&mut self, bytes: u64, slat_ns: u64, clat_ns: u64) {
        self.ios += 1;
        self.bytes += bytes;
        self.slat.record(slat_ns);
        self.clat.record(clat_ns);
        self.lat.record(slat_ns.saturating_add(clat_ns));
    }

    /// Adds `other` (exact: counts add, histograms merge).
    pub fn merge(&mut self, other: &DirectionStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.short_ios += other.short_ios;
        self.errors += other.errors;
        self.slat.merge(&other.slat);
        self.clat.merge(&other.clat);
        self.lat.merge(&other.lat);
        self.lat_intended.merge(&other.lat_intended);
    }
}

/// CPU time and context switches of a worker (the runner reads them from `getrusage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CpuUsage {
    /// CPU time in user mode, ns.
    pub user_ns: u64,
    /// CPU time in the kernel, ns.
    pub sys_ns: u64,
    /// Voluntary context switches (the worker waited, e.g. for IO).
    pub voluntary_ctx: u64,
    /// Involuntary context switches (the scheduler preempted the worker).
    pub involuntary_ctx: u64,
}

impl CpuUsage {
    /// Adds `other` field by field.
    pub fn add(&mut self, other: &CpuUsage) {
        self.user_ns += other.user_ns;
        self.sys_ns += other.sys_ns;
        self.voluntary_ctx += other.voluntary_ctx;
        self.involuntary_ctx += other.involuntary_ctx;
    }
}

/// Everything one worker measured, or several merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkerStats {
    /// Reads.
    pub read: DirectionStats,
    /// Writes.
    pub write: DirectionStats,
    /// Per-interval series (from [`crate::IntervalRecorder::finish`]).
    pub series: Vec<IntervalSample>,
    /// In-flight depth and batch distributions.
    pub depth: DepthDistribution,
    /// CPU use.
    pub cpu: CpuUsage,
    /// Measured time, ns, ramp excluded; the longest worker's for merged stats.
    pub runtime_ns: u64,
    /// Latency of the file syncs (fio `fsync`, `fdatasync`, `end_fsync`); its count is the
    /// number of syncs.
    pub sync: LatencyHistogram,
    /// Read-back verification of the written data (fio `verify`); empty when the job does
    /// not verify.
    pub verify: VerifyStats,
    /// The queue depth fio's `latency_target` search settled on (the deepest that met the
    /// target); `None` when the job did not search. Merged stats keep the smallest.
    pub latency_target_depth: Option<u32>,
    /// Trims (fio `rw=trim`, `randtrim`, `trimwrite`, `trim_backlog`): fio's third direction.
    /// Trims are synchronous in every engine, so `slat` stays empty and `clat` = `lat`.
    pub trim: DirectionStats,
    /// The IO errors the job went on after (fio `continue_on_error`) and the first error.
    pub io_errors: IoErrors,
    /// Iometer's connection-rate test: the connections closed in the measured period.
    pub connections: ConnectionStats,
}

/// Connections of Iometer's connection-rate test (a target opened, used for its
/// transactions and closed), as Iometer counts them: those that closed while results were
/// recorded, with the sum and maximum of their times (open to close, both included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConnectionStats {
    /// Connections closed.
    pub count: u64,
    /// Sum of their times, ns.
    pub total_ns: u64,
    /// The longest, ns.
    pub max_ns: u64,
}

impl ConnectionStats {
    /// Counts a connection that lasted `ns`.
    pub fn record(&mut self, ns: u64) {
        self.count += 1;
        self.total_ns = self.total_ns.saturating_add(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Adds `other`'s connections.
    pub fn merge(&mut self, other: &ConnectionStats) {
        self.count += other.count;
        self.total_ns = self.total_ns.saturating_add(other.total_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }
}

/// IO errors of a worker (or merged workers): the errno of the first, and each error when
/// the job asked for a dump (fio `error_dump`). The counts per direction are
/// [`DirectionStats::errors`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IoErrors {
    /// The errno of the first IO error of the measured period.
    pub first_errno: Option<i32>,
    /// Each error, oldest first, when the job asked for a dump (at most
    /// [`IoErrors::DUMP_LIMIT`] per worker; `dropped` counts the rest).
    pub dump: Vec<IoErrorRecord>,
    /// Errors not kept in `dump` because it was full.
    pub dropped: u64,
}

impl IoErrors {
    /// Most errors one worker keeps for `error_dump`: a failing device can fail every IO,
    /// and the dump is for reading, not for filling memory.
    pub const DUMP_LIMIT: usize = 1000;

    /// Notes an error with `errno`; keeps `record` when dumping.
    pub fn note(&mut self, errno: i32, record: Option<IoErrorRecord>) {
        if self.first_errno.is_none() {
            self.first_errno = Some(errno);
        }
        if let Some(record) = record {
            if self.dump.len() < Self::DUMP_LIMIT {
                self.dump.push(record);
            } else {
                self.dropped += 1;
            }
        }
    }

    /// Adds another worker's errors (its first error counts only if this has none).
    pub fn merge(&mut self, other: &IoErrors) {
        if self.first_errno.is_none() {
            self.first_errno = other.first_errno;
        }
        self.dump.extend(other.dump.iter().cloned());
        self.dropped += other.dropped;
    }
}

/// One IO error as `error_dump` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IoErrorRecord {
    /// `read`, `write` or `trim`.
    pub op: String,
    /// Index of the file among the worker's targets.
    pub file: u32,
    /// Byte offset of the IO.
    pub offset_bytes: u64,
    /// Bytes asked for.
    pub len_bytes: u64,
    /// The kernel's errno.
    pub errno: i32,
    /// The job went on after it (`continue_on_error`).
    pub continued: bool,
}

impl WorkerStats {
    /// Empty statistics.
    pub fn new() -> Self {
        Self::default()
    }

    /// The statistics of `direction`.
    #[inline]
    pub fn direction(&self, direction: Direction) -> &DirectionStats {
        match direction {
            Direction::Read => &self.read,
            Direction::Write => &self.write,
        }
    }

    /// The statistics of `direction`, to add to.
    #[inline]
    pub fn direction_mut(&mut self, direction: Direction) -> &mut DirectionStats {
        match direction {
            Direction::Read => &mut self.read,
            Direction::Write => &mut self.write,
        }
    }

    /// Adds another worker: counts and histograms exactly, series interval by interval, CPU
    /// summed, and the runtime is the longer of the two (workers run side by side, so the merged
    /// work took as long as the slowest one).
    pub fn merge(&mut self, other: &WorkerStats) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        self.series = merge_series(&self.series, &other.series);
        self.depth.merge(&other.depth);
        self.cpu.add(&other.cpu);
        self.runtime_ns = self.runtime_ns.max(other.runtime_ns);
        self.sync.merge(&other.sync);
        self.verify.merge(&other.verify);
        self.latency_target_depth = match (self.latency_target_depth, other.latency_target_depth) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.trim.merge(&other.trim);
        self.io_errors.merge(&other.io_errors);
        self.connections.merge(&other.connections);
    }

    /// IO errors of every direction (trims included).
    pub fn total_errors(&self) -> u64 {
        self.read.errors + self.write.errors + self.trim.errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_counts_and_keeps_longest_runtime() {
        let mut a = WorkerStats::new();
        a.read.record_io(4096, 1_000, 9_000);
        a.runtime_ns = 5;
        a.cpu.user_ns = 10;
        let mut b = WorkerStats::new();
        b.direction_mut(Direction::Read)
            .record_io(4096, 2_000, 8_000);
        b.write.short_ios = 1;
        b.runtime_ns = 7;
        b.cpu.user_ns = 5;
        a.merge(&b);
        assert_eq!((a.read.ios, a.read.bytes), (2, 8192));
        assert_eq!(a.read.lat.min(), 10_000);
        assert_eq!(a.read.slat.mean(), 1_500.0);
        assert_eq!(a.direction(Direction::Write).short_ios, 1);
        assert_eq!((a.runtime_ns, a.cpu.user_ns), (7, 15));
    }
}
