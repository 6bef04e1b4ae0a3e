//! The one result schema: every figure diskmeter reports, with its unit in its name.
//!
//! The terminal view, diskmeter's JSON and the fio-compatible JSON are all rendered from a
//! [`RunResult`], so they cannot disagree. `docs/output-fields.md` explains every field.
//!
//! The schema is a contract (the history stores it): it holds the workload as fio option
//! strings plus a few typed facts, never the internal `JobSpec`, and [`SCHEMA_VERSION`]
//! changes whenever its shape does (`tests/schema_shape.rs` fails otherwise).

use diskmeter_stats::IntervalSample;
use diskmeter_workload::{Direction, SteadyCriterion};
use serde::{Deserialize, Serialize};

use crate::input::{RunMeta, TargetInfo};

/// Version of this schema: changes whenever a field is added, renamed, removed or changes
/// type. 1: jobs carried the internal job specification (`spec`); 2: jobs carry `options`
/// (fio option strings) and `workload` (typed facts) instead; 3: jobs and groups may carry
/// `trim` (fio's third direction), jobs `io_errors` (`continue_on_error`'s counts and
/// `error_dump`) and `latency_target` (fio's queue-depth search and the depth it found);
/// 4: `meta` carries the phases' start times, the end of the IO and the result's rank in a
/// scale-out run (what merging several hosts' results needs), jobs their exact latency
/// histograms (`histograms`), and a merged result the ranks' results (`ranks`) and the
/// aggregate figures (`scale_out`); 6: jobs may carry `connections` (Iometer's
/// connection-rate test).
pub const SCHEMA_VERSION: u32 = 6;

/// The whole run as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Version of this schema ([`SCHEMA_VERSION`] when written by this build).
    pub schema_version: u32,
    /// Facts about the run as a whole.
    pub meta: RunMeta,
    /// Reported jobs: one per clone, or one per `group_reporting` group, in start order.
    pub jobs: Vec<JobResult>,
    /// Totals per reporting group, by ascending group id (fio's "Run status group").
    pub groups: Vec<GroupResult>,
    /// A merge of several ranks' (hosts') results (`diskmeter merge`, `run --mpi`): each
    /// rank's own result, in rank order; empty for a run on one host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<RunResult>,
    /// A merge of several ranks' results: the aggregate figures no rank has (IOR's aggregate
    /// bandwidth, the ranks' start skew); absent for a run on one host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out: Option<crate::scale_out::ScaleOut>,
}

/// One reported job: a single clone, or all clones of a `group_reporting` group merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// Job name (of the first member for a merged group, like fio).
    pub name: String,
    /// Reporting group id.
    pub group_id: u32,
    /// Clone index (0-based) of a single worker; `None` when several workers were merged.
    pub clone_index: Option<u32>,
    /// Number of workers reported here.
    pub workers: u32,
    /// The job's resolved options as fio job-file options, `name` first and `kb_base` before
    /// every size, in the order that rebuilds the job when applied again: every option that
    /// differs from fio's default plus `name`, `rw`, `bs`, `iodepth` and `ioengine` (of the
    /// first member for a merged group).
    pub options: Vec<JobOption>,
    /// The facts of the workload that the views print, typed.
    pub workload: JobWorkload,
    /// Files and devices used, each listed once.
    pub targets: Vec<TargetInfo>,
    /// Measured time, ns, ramp excluded; the longest worker's when merged.
    pub runtime_ns: u64,
    /// Sum of the workers' measured times, ns: the base of the CPU percentages (as fio's
    /// `job_runtime`).
    pub workers_runtime_ns: u64,
    /// Reads.
    pub read: DirectionResult,
    /// Writes.
    pub write: DirectionResult,
    /// Completion latencies of reads and writes together, bucketed like fio's "lat (usec)" lines.
    pub lat_buckets: Vec<LatencyBucket>,
    /// CPU use of the workers.
    pub cpu: CpuResult,
    /// In-flight depth and batch distributions.
    pub depth: DepthResult,
    /// Per-interval series (per second by default), summed over workers.
    pub series: Vec<IntervalSample>,
    /// File syncs (fio `fsync`, `fdatasync`, `end_fsync`): count and latency; absent when
    /// the job issued none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<LatencySummary>,
    /// Read-back verification of the written data (fio `verify`): blocks checked and the
    /// mismatches found; absent when the job read nothing back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyResult>,
    /// Trims (fio `rw=trim`, `randtrim`, `trimwrite`, `trim_backlog`): fio's third
    /// direction; absent when the job issued none. No submission latency (trims are
    /// synchronous in every engine) and no per-interval samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirectionResult>,
    /// IO errors: how many, the first, and each one under `error_dump`; absent when the job
    /// had none and does not go on after errors (fio `continue_on_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_errors: Option<IoErrorSummary>,
    /// Why the job (or a merged worker, prefixed "clone N:") stopped early; `None` if it did not.
    pub error: Option<String>,
    /// Steady-state detection (fio `steadystate`, `ss_dur`, `ss_ramp`; diskmeter's
    /// `ss_sample`, `ss_precision`); absent when the job did not ask for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyStateResult>,
    /// fio's `latency_target` search (`latency_target`, `latency_window`,
    /// `latency_percentile`) and the queue depth it settled on; absent when the job did not
    /// search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<LatencyTargetResult>,
    /// Iometer's connection-rate test (each target closed and opened again every
    /// `transactions_per_connection` IOs): the connections and their times; absent when the
    /// job keeps its files open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<ConnectionResult>,
    /// 95 % confidence interval of the mean IOPS (reads and writes together) over the
    /// full-length samples of `series` (per second unless DiskSpd's `-D` set another length),
    /// by batch means.
    #[serde(default)]
    pub iops_mean_ci: ConfidenceInterval,
    /// The job's latency histograms, exact (base64 of HdrHistogram V2 with diskmeter's
    /// header): what merging results of several hosts needs. Absent in results of older
    /// diskmeters and in the history's stored record (which keeps them as blobs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms: Option<crate::histograms::JobHistograms>,
}

/// The outcome of fio's `latency_target` search for a reported job.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyTargetResult {
    /// The latency IOs had to meet, ns (fio `latency_target`).
    pub target_ns: u64,
    /// How long each depth was tried, ns (fio `latency_window`).
    pub window_ns: u64,
    /// The share of a window's IOs that had to meet it, percent (fio `latency_percentile`).
    pub percentile: f64,
    /// The deepest queue that met it (the smallest over a merged group's workers); fio's
    /// `latency_depth`.
    pub depth: u32,
}

/// Iometer's connection-rate test of a reported job, counted as Iometer counts it: the
/// connections (a target opened, used for its IOs, closed) that closed in the measured
/// period.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ConnectionResult {
    /// IOs per connection (Iometer's "Transactions per Connection").
    pub transactions_per_connection: u32,
    /// Connections closed in the measured period (Iometer's "Connections").
    pub count: u64,
    /// `count` over the measured time (Iometer's "Connections per Second"; summed over a
    /// merged group's workers).
    pub per_second: f64,
    /// Sum of the connections' times, open to close, ns.
    pub total_ns: u64,
    /// Their mean, ns (Iometer's "Average Connection Time", in ms there).
    pub mean_ns: f64,
    /// The longest, ns (Iometer's "Maximum Connection Time").
    pub max_ns: u64,
}

impl ConnectionResult {
    /// The result of `count` connections lasting `total_ns` in all, the longest `max_ns`,
    /// closed in `runtime_ns` of measured time.
    pub fn of(every: u32, count: u64, total_ns: u64, max_ns: u64, runtime_ns: u64) -> Self {
        ConnectionResult {
            transactions_per_connection: every,
            count,
            per_second: if runtime_ns == 0 {
                0.0
            } else {
                count as f64 * 1e9 / runtime_ns as f64
            },
            total_ns,
            mean_ns: if count == 0 {
                0.0
            } else {
                total_ns as f64 / count as f64
            },
            max_ns,
        }
    }
}

/// A job's IO errors (fio's `total_err` and `first_error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IoErrorSummary {
    /// IO errors of the measured period, every direction (reads, writes, trims).
    pub total: u64,
    /// The errno of the first of them.
    pub first_errno: Option<i32>,
    /// The kernel's text for `first_errno` ("No space left on device").
    pub first_error: Option<String>,
    /// The job goes on after some errors (fio `continue_on_error` or `ignore_error`).
    pub continue_on_error: bool,
    /// Each error under fio's `error_dump` (at most 1000 per worker), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dump: Vec<diskmeter_stats::IoErrorRecord>,
    /// Errors left out of `dump` because it was full.
    #[serde(default)]
    pub dump_dropped: u64,
}

/// One fio job-file option: `name=value` (flags as `1`/`0`, sizes with fio's suffixes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobOption {
    /// fio's name of the option (`bs`, `rate_iops`).
    pub name: String,
    /// Its value as a job file would give it (`4k`, `3200`, `1`).
    pub value: String,
}

/// The facts of a job's workload that the terminal view and the fio-compatible JSON print,
/// typed so that they need not parse [`JobResult::options`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobWorkload {
    /// fio's `rw`: `read`, `write`, `randread`, `randwrite`, `rw`, `randrw`, ...
    pub rw: String,
    /// Block size of reads, bytes (fio `bs`; a spread, when set, decides the sizes instead).
    pub bs_read_bytes: u64,
    /// Block size of writes, bytes.
    pub bs_write_bytes: u64,
    /// The spread of read sizes as fio writes it (`bsrange` `1k-8k`, `bssplit`
    /// `4k/50:64k/50`); `None` for a fixed size.
    pub bs_read_spread: Option<String>,
    /// The spread of write sizes; `None` for a fixed size.
    pub bs_write_spread: Option<String>,
    /// fio's `ioengine`: `io_uring`, `libaio`, `psync`, `null`.
    pub ioengine: String,
    /// IOs in flight per worker (fio `iodepth`).
    pub iodepth: u32,
    /// Completion-latency percentiles were asked for (fio `clat_percentiles`, default 1).
    pub clat_percentiles: bool,
    /// Total-latency percentiles were asked for (fio `lat_percentiles`, default 0).
    pub lat_percentiles: bool,
    /// Pacing per worker in IOs per second, reads then writes (fio `rate_iops`); 0 = none.
    /// With `rate_bytes_per_sec`, the most a rate requirement can see of this job
    /// (`diskmeter check`'s paced rule); 0 in results saved before it was kept.
    #[serde(default)]
    pub rate_iops: [u64; 2],
    /// Pacing per worker in bytes per second, reads then writes (fio `rate`); 0 = none.
    #[serde(default)]
    pub rate_bytes_per_sec: [u64; 2],
}

/// How steady-state detection went for a reported job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateResult {
    /// What was judged: `iops`, `iops_slope`, `bw`, `bw_slope` (fio's) or `iops_bw`
    /// (diskmeter's: `iops` and `bw` both).
    pub criterion: SteadyCriterion,
    /// The limit: percent of the window's mean when `limit_is_percent`, else in the
    /// criterion's unit (IOPS, bytes/s, or those per second for a slope).
    pub limit: f64,
    /// Whether `limit` is a percentage of the window's mean.
    pub limit_is_percent: bool,
    /// The rolling window, ns (whole samples).
    pub window_ns: u64,
    /// One sample per this many ns (a second, as fio, unless `ss_sample` said otherwise).
    #[serde(default = "one_second_ns")]
    pub sample_ns: u64,
    /// Time after measurement start before samples were collected, ns (fio `ss_ramp`).
    pub ramp_ns: u64,
    /// The precision asked for (`ss_precision`): the 95 % interval of the mean of every
    /// sample within this many percent of the mean; `None` when not judged.
    #[serde(default)]
    pub precision_limit_percent: Option<f64>,
    /// With a precision rule: the last half-width of that interval, percent of the mean
    /// (the larger of IOPS and bandwidth for `iops_bw`); `None` without the rule or while
    /// undefined (fewer than 9 samples: 3 batches, the fewest the rule trusts).
    #[serde(default)]
    pub precision_percent: Option<f64>,
    /// The criterion held and ended the job early.
    pub attained: bool,
    /// When it held, ns since the job's measurement start (ramp_time excluded); `None` when
    /// it never did (the job ran its whole runtime or size).
    pub attained_at_ns: Option<u64>,
    /// The figure last compared with the limit, in the limit's unit (a slope with its sign,
    /// compared by its size; for `iops_bw` the larger of the two); `None` when the window
    /// never filled or the mean was 0.
    pub criterion_value: Option<f64>,
    /// Largest distance of a judged sample from the window's mean, IOPS or bytes/s (0 for
    /// the slope criteria, as fio).
    pub max_deviation: f64,
    /// Least-squares slope of the judged samples per second (0 for the deviation criteria,
    /// as fio).
    pub slope: f64,
    /// Mean of the window's IOPS samples.
    pub window_iops_mean: f64,
    /// Mean of the window's bandwidth samples, bytes per second.
    pub window_bw_mean_bytes_per_sec: f64,
    /// The window's IOPS samples, oldest first (fewer than the window holds when the job
    /// ended before filling it).
    pub window_iops: Vec<f64>,
    /// The window's bandwidth samples, bytes per second, oldest first.
    pub window_bw_bytes_per_sec: Vec<f64>,
}

fn one_second_ns() -> u64 {
    diskmeter_workload::STEADY_SAMPLE_NS
}

/// A mean with its 95 % confidence interval from the method of batch means (Law & Kelton,
/// "Simulation Modeling and Analysis", ch. 9), which allows for per-second samples that are
/// correlated with their neighbours.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceInterval {
    /// Mean of the samples.
    pub mean: f64,
    /// Half-width: the interval is `mean +- half_width`; `None` with fewer than 4 samples
    /// (too few for two batches of two).
    pub half_width: Option<f64>,
    /// Number of batches the spread came from (0 with too few samples).
    pub batches: u32,
    /// Number of per-second samples.
    pub samples: u64,
}

/// One direction of one reported job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionResult {
    /// IOs completed.
    pub ios: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// IOs that transferred fewer bytes than requested.
    pub short_ios: u64,
    /// IOs that completed with an error.
    pub errors: u64,
    /// Time over which the direction's rates are computed, ns: the job's runtime if the
    /// direction did any IO, else 0 (like fio).
    pub runtime_ns: u64,
    /// IOs per second: `ios / runtime`.
    pub iops: f64,
    /// Bandwidth, bytes per second: `bytes / runtime`.
    pub bw_bytes_per_sec: f64,
    /// This job's bandwidth as a percentage of its group's aggregate bandwidth (fio's `per=`).
    pub bw_percent_of_group: f64,
    /// Submission latency.
    pub slat: LatencySummary,
    /// Completion latency.
    pub clat: LatencySummary,
    /// Total latency (issue to completion).
    pub lat: LatencySummary,
    /// Latency from the intended issue time of a rate-limited job; count 0 when not rate-limited.
    pub lat_intended: LatencySummary,
    /// Statistics of the per-interval bandwidths, bytes per second (full intervals only).
    pub bw_samples_bytes_per_sec: SampleStats,
    /// Statistics of the per-interval IOPS (full intervals only).
    pub iops_samples: SampleStats,
}

/// Summary of one latency histogram. Count, min, max, mean and stddev are exact; percentiles
/// are within 0.1 % of the true value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Number of latencies recorded.
    pub count: u64,
    /// Smallest, ns (0 when `count` is 0).
    pub min_ns: u64,
    /// Largest, ns (0 when `count` is 0).
    pub max_ns: u64,
    /// Arithmetic mean, ns.
    pub mean_ns: f64,
    /// Sample standard deviation, ns.
    pub stddev_ns: f64,
    /// Latencies above one hour, recorded as one hour.
    pub saturated: u64,
    /// Percentiles from the job's `percentile_list`, in its order.
    pub percentiles: Vec<Percentile>,
}

impl LatencySummary {
    /// The latency of the listed percentile `percent` (e.g. 99.0), ns; `None` when the
    /// job's `percentile_list` did not ask for it or nothing was recorded.
    pub fn percentile(&self, percent: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        self.percentiles
            .iter()
            .find(|p| (p.percent - percent).abs() < 1e-9)
            .map(|p| p.value_ns)
    }
}

/// One percentile of a latency distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    /// Which percentile, in percent (e.g. 99.9).
    pub percent: f64,
    /// Latency at or below which `percent` % of the IOs completed, ns.
    pub value_ns: u64,
}

/// Min/max/mean/stddev over the samples of a per-interval series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleStats {
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Mean of the samples.
    pub mean: f64,
    /// Sample standard deviation (n - 1).
    pub stddev: f64,
    /// Number of samples.
    pub samples: u64,
}

/// Share of IOs whose completion latency fell in `lower_ns..upper_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyBucket {
    /// Inclusive lower bound, ns.
    pub lower_ns: u64,
    /// Exclusive upper bound, ns; `None` for the last, open-ended bucket (>= 2 s).
    pub upper_ns: Option<u64>,
    /// IOs in the bucket.
    pub count: u64,
    /// IOs in the bucket as a percentage of all IOs of the job.
    pub percent: f64,
}

/// CPU use of the workers of a reported job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuResult {
    /// User CPU time as a percentage of the workers' summed runtime (100 = one CPU per worker).
    pub usr_percent: f64,
    /// Kernel CPU time as a percentage of the workers' summed runtime.
    pub sys_percent: f64,
    /// User CPU time, ns.
    pub user_ns: u64,
    /// Kernel CPU time, ns.
    pub sys_ns: u64,
    /// Voluntary context switches.
    pub voluntary_ctx: u64,
    /// Involuntary context switches.
    pub involuntary_ctx: u64,
    /// All context switches (fio's `ctx`).
    pub ctx: u64,
}

/// A labelled percentage, as in fio's "IO depths : 1=0.1%, 2=0.2%, ...".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabeledPercent {
    /// fio's bucket label ("1", "2", ..., ">=64").
    pub label: String,
    /// Share of the bucket, percent.
    pub percent: f64,
}

/// In-flight depth and batch distributions of a reported job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DepthResult {
    /// IOs in flight at each submission (fio "IO depths"), percent of submissions.
    pub iodepth: Vec<LabeledPercent>,
    /// IOs per submit call (fio "submit"), percent of calls; all 0 if not measured.
    pub submit: Vec<LabeledPercent>,
    /// Completions per reap call (fio "complete"), percent of calls; all 0 if not measured.
    pub complete: Vec<LabeledPercent>,
}

/// Totals of one reporting group (fio's "Run status group N").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupResult {
    /// Reporting group id.
    pub group_id: u32,
    /// Workers in the group.
    pub workers: u32,
    /// Reads of all jobs of the group.
    pub read: GroupDirection,
    /// Writes of all jobs of the group.
    pub write: GroupDirection,
    /// Trims of all jobs of the group (fio's `TRIM:` line); absent when none trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<GroupDirection>,
}

/// One direction of a group's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupDirection {
    /// IOs of all jobs.
    pub ios: u64,
    /// Bytes of all jobs (fio `io=`).
    pub io_bytes: u64,
    /// Aggregate bandwidth: `io_bytes / max_runtime`, bytes per second (fio `bw=`, `aggrb=`).
    pub bw_bytes_per_sec: f64,
    /// Lowest bandwidth of a reported job in the group, bytes per second (fio `minb=`).
    pub min_bw_bytes_per_sec: f64,
    /// Highest bandwidth of a reported job in the group, bytes per second (fio `maxb=`).
    pub max_bw_bytes_per_sec: f64,
    /// Shortest runtime of a reported job that did IO in this direction, ns (fio `mint=`).
    pub min_runtime_ns: u64,
    /// Longest runtime of a reported job that did IO in this direction, ns (fio `maxt=`).
    pub max_runtime_ns: u64,
}

impl RunResult {
    /// Why this result must not be analysed as a whole measurement, or `None` when it is
    /// whole: an interrupt (Ctrl-C, SIGTERM) cut it short, or a job stopped early on an
    /// error (ENOSPC, an IO error, a missed `rate_min`). Sweep and suite analyses leave such
    /// results out and every view marks them partial; `check` asks it too.
    pub fn partial_reason(&self) -> Option<String> {
        if self.meta.partial {
            return Some("interrupted (Ctrl-C or SIGTERM): it covers only the time it ran".into());
        }
        self.jobs.iter().find_map(|job| {
            let error = job.error.as_ref()?;
            // The runner's errors name their job already ("job seq: write of ...").
            Some(if error.starts_with(&format!("job {}", job.name)) {
                format!("failed: {error}")
            } else {
                format!("failed: job {}: {error}", job.name)
            })
        })
    }

    /// Whether [`RunResult::partial_reason`] finds a reason.
    pub fn is_partial(&self) -> bool {
        self.partial_reason().is_some()
    }
}

impl JobResult {
    /// The job was paced (fio `rate`, `rate_iops`) or replayed a log on its timestamps
    /// (`read_iolog` without `replay_no_stall`): its latency is judged from the intended issue time
    /// ([`DirectionResult::lat_intended`]), which counts the time an IO waited behind a slow
    /// device, not from when it was finally issued.
    pub fn paced(&self) -> bool {
        self.read.lat_intended.count > 0
            || self.write.lat_intended.count > 0
            || self
                .options
                .iter()
                .any(|o| matches!(o.name.as_str(), "rate" | "rate_iops"))
            || (self.option("read_iolog").is_some()
                && self.option("replay_no_stall").is_none_or(|v| v == "0"))
    }

    /// The value of option `name` in [`JobResult::options`], if the job lists it.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|o| o.name == name)
            .map(|o| o.value.as_str())
    }

    /// The figures of one direction.
    pub fn direction(&self, direction: Direction) -> &DirectionResult {
        match direction {
            Direction::Read => &self.read,
            Direction::Write => &self.write,
        }
    }
}

/// What a job's read-back verification found (fio `verify`, `do_verify`, `verify_backlog`,
/// `verify_only`). Verify reads are counted here, not in [`JobResult::read`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyResult {
    /// Blocks read back and checked.
    pub blocks: u64,
    /// Bytes read back and checked.
    pub bytes: u64,
    /// Blocks that did not hold what was written.
    pub errors: u64,
    /// Time spent reading back and checking, ns (the longest worker's when merged).
    pub runtime_ns: u64,
    /// Bytes checked per second of that time.
    pub bw_bytes_per_sec: f64,
    /// The first mismatches (up to 64 per job), each with its file, offset, kind, expected
    /// and found values, in the order they were found.
    pub failures: Vec<diskmeter_stats::VerifyFailure>,
}
