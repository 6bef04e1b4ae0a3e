//! What the report is built from: the runner's per-worker results, converted by the CLI.

use diskmeter_stats::WorkerStats;
use diskmeter_workload::JobSpec;
use serde::{Deserialize, Serialize};

/// Everything one run produced, before any merging or formatting.
#[derive(Debug, Clone)]
pub struct RunInput {
    /// Facts about the run as a whole.
    pub meta: RunMeta,
    /// One entry per worker (a job with `numjobs=4` gives four entries), in start order.
    pub jobs: Vec<JobInput>,
}

/// Facts about the run as a whole; copied unchanged into the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// Version of diskmeter that ran, e.g. "0.1.0".
    pub diskmeter_version: String,
    /// When the run started, ms since the Unix epoch (UTC).
    pub started_unix_ms: u64,
    /// When the run finished, ms since the Unix epoch (UTC).
    pub finished_unix_ms: u64,
    /// True when the run was interrupted (Ctrl-C, SIGTERM): the figures cover only the time run.
    pub partial: bool,
    /// Name of the machine that ran the benchmark.
    pub hostname: String,
    /// Free-form remarks the runner or CLI attached (warnings, adjustments made).
    pub notes: Vec<String>,
    /// Wall-clock time each stonewall phase started, ns since the Unix epoch (after the
    /// layout, and in a scale-out run after every rank reached the phase's barrier): with
    /// `io_finished_unix_ns`, what a merge of several hosts' results measures the start
    /// skew and the aggregate bandwidth from. Empty in results of schema 3 and before.
    #[serde(default)]
    pub phase_starts_unix_ns: Vec<u64>,
    /// Wall-clock time the run's IO ended (the last phase's workers done, files synced), ns
    /// since the Unix epoch; 0 in results of schema 3 and before.
    #[serde(default)]
    pub io_finished_unix_ns: u64,
    /// This result's place in a scale-out run (MPI, a Kubernetes Indexed Job, hosts run by
    /// hand with `--rank`); `None` for a run on one host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<RankInfo>,
}

#[cfg(test)]
impl RunMeta {
    /// A whole run of no time on host `h`, for the crate's unit tests.
    pub(crate) fn for_tests() -> RunMeta {
        RunMeta {
            diskmeter_version: "0".into(),
            started_unix_ms: 0,
            finished_unix_ms: 0,
            partial: false,
            hostname: "h".into(),
            notes: Vec::new(),
            phase_starts_unix_ns: Vec::new(),
            io_finished_unix_ns: 0,
            rank: None,
        }
    }
}

/// A result's place among the ranks of a scale-out run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankInfo {
    /// This rank, 0-based.
    pub rank: u32,
    /// How many ranks the run has.
    pub ranks: u32,
}

/// One worker (one clone of one job) and what it measured.
#[derive(Debug, Clone)]
pub struct JobInput {
    /// The job the worker ran.
    pub spec: JobSpec,
    /// Which clone of the job this is, 0-based (fio `numjobs`).
    pub clone_index: u32,
    /// Reporting group (fio's `groupid`; a `stonewall` starts a new one).
    pub group_id: u32,
    /// What the worker measured.
    pub stats: WorkerStats,
    /// Why the worker stopped early, if it did.
    pub error: Option<String>,
    /// The files or devices the worker used.
    pub targets: Vec<TargetInfo>,
    /// How steady-state detection ended for the worker's job (the same for every member of
    /// a `group_reporting` group); `None` when the job did not ask for it.
    pub steady_state: Option<SteadyStateInput>,
}

/// How steady-state detection ended, as the runner saw it; the settings are the job's
/// (`JobSpec::steadystate`).
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyStateInput {
    /// When the criterion held, ns since the job's measurement start; `None` if it never did.
    pub attained_at_ns: Option<u64>,
    /// The last window's IOPS samples, oldest first.
    pub window_iops: Vec<f64>,
    /// The last window's bandwidth samples, bytes per second, oldest first.
    pub window_bw_bytes_per_sec: Vec<f64>,
    /// The figure last compared with the limit (percent for a percentage limit); `None` when
    /// the window never filled or the figure was undefined.
    pub criterion_value: Option<f64>,
    /// The largest distance of a sample from the window's mean (deviation criteria).
    pub max_deviation: f64,
    /// The least-squares slope of the window, per second (slope criteria).
    pub slope: f64,
    /// With a precision rule: the last half-width of the 95 % interval of the mean of every
    /// sample, percent of the mean; `None` without the rule or while undefined.
    pub precision_percent: Option<f64>,
}

/// A file or block device a job used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetInfo {
    /// Path as given or created.
    pub path: String,
    /// "file" or "block".
    pub kind: String,
    /// Size of the file or device, bytes.
    pub size_bytes: u64,
}
