//! A workload that mimics a captured application, as fio options: the one description that
//! both becomes the job `diskmeter replay` runs and the fio job file it emits, so the two
//! cannot drift apart.
//!
//! What comes from where (docs/guide/5-rehearse.md, "Replaying a capture", says the same to the user):
//! - the rate (`rate_iops=R,W`, rounded up so the replay can reach the level it is judged
//!   against) is the capture's figure at the chosen level ([`LevelFigures`], one column of
//!   the checklist); a direction with a size split is paced in bytes (`rate=`) at the
//!   split's mean size, since fio paces `rate_iops` at the smallest size;
//! - the queue depth (`iodepth`, [`replay_depth`]) is the larger of the captured depth
//!   (aqu-sz at the level rounded up, the trace's queue depth p99) and what Little's law
//!   needs to keep the level's rate at [`LATENCY_HEADROOM`] times the level's latency, so a
//!   slower target or a latency spike is absorbed by the queue instead of lowering the rate;
//! - flushes (`fdatasync=N`, [`plan_flushes`]): the level's `f/s` as one flush every N
//!   writes, the writes paced net of the empty write the kernel counts for each flush;
//! - the read share (`rwmixread`) is the level's reads over its reads and writes, so the mix
//!   and the two rates agree (a mix that disagreed with the rates would hold neither);
//! - IO sizes (`bssplit`) from the traced size distribution per direction, else the mean
//!   request sizes the counters give (`bs=rareq-sz,wareq-sz`);
//! - the random share (`percentage_random`) from the trace; a counter capture cannot know it,
//!   so it is the user's `--random` or fully random, and a note says which — never invented;
//! - the hot set (`random_distribution=zoned:80/H:20/100-H`) where a trace measured it.
//!
//! Nothing here does IO: the caller reads the capture and hands over its figures.

use crate::requirements::{Checklist, Level, Metric};
use serde::{Deserialize, Serialize};

mod capture;
mod depth;
mod exact;
mod flushes;
mod job;
mod sizes;
mod streams;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_pacing;
mod traced;

pub use capture::{CaptureReplay, CaptureReplayError, CommentedWorkload};
pub use depth::{replay_depth, ReplayDepth};
pub use exact::{build_exact_replay, exact_request, ExactError, ExactRequest};
pub use flushes::{data_write_share, plan_flushes, FlushPlan};
pub use streams::{split_streams, StreamSplit, SEQUENTIAL_STREAM_MIN_SHARE};

use depth::{depth_cut_note, iodepth};
use flushes::{flushes, nearest_interval};
use job::{job, Builder, JobKind};
use sizes::{covering_rate, round_rate};
use streams::without;

/// fio's `BSSPLIT_MAX`: a `bssplit` list keeps at most this many sizes per direction.
pub const BSSPLIT_MAX: usize = 64;
/// Direct IO moves whole sectors: mean request sizes are rounded to a multiple of this.
pub const SECTOR_BYTES: u64 = 512;
/// The engine the replay names: fio's default (psync) would ignore `iodepth`, and libaio is
/// the engine the guides' fio jobs use; diskmeter runs it too.
pub const REPLAY_ENGINE: &str = "libaio";
/// The share of the IOs the hot set is measured for (the trace's "80 % of the IOs").
pub const HOT_IO_PERCENT: u8 = 80;
/// How many times the level's latency the replay's queue is deep enough for (Little's law:
/// IOs in flight = rate x latency). A paced replay issues each IO at its time, so a queue
/// deeper than needed costs nothing while the target keeps up; when it does not, the queue
/// is what lets the rate hold. 4x covers a target 3 times slower than the captured device
/// (the slowest the acceptance replays onto) with a third to spare for its own
/// spikes, and a per-IO p99 a few times the per-second mean `await` the level is read from.
pub const LATENCY_HEADROOM: f64 = 4.0;

/// A capture's figures at one level: one column of the requirements checklist.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelFigures {
    /// The level they are taken at (`p90`).
    pub level: Level,
    /// Reads per second (`r/s`).
    pub read_iops: f64,
    /// Writes per second (`w/s`).
    pub write_iops: f64,
    /// Mean read size, bytes (`rareq-sz` x 1024); `None` where the capture saw no reads.
    pub read_request_bytes: Option<f64>,
    /// Mean write size, bytes (`wareq-sz` x 1024).
    pub write_request_bytes: Option<f64>,
    /// Requests in flight at the device (`aqu-sz`).
    pub queue_depth: f64,
    /// Read latency at the level, ms (`r_await`); `None` where the capture saw no reads.
    pub read_latency_ms: Option<f64>,
    /// Write latency at the level, ms (`w_await`).
    pub write_latency_ms: Option<f64>,
    /// Cache flushes per second at the level (`f/s`).
    pub flushes_per_sec: f64,
    /// Read throughput at the level, bytes/s (`rkB/s` x 1024): a rate that keeps the level's
    /// r/s may not carry its MiB/s when busy seconds had bigger IOs.
    pub read_bytes_per_sec: Option<f64>,
    /// Write throughput at the level, bytes/s (`wkB/s` x 1024).
    pub write_bytes_per_sec: Option<f64>,
    /// The capture's mean writes per second (`w/s`, time-weighted): with a trace's data
    /// writes per second, how many of the counted writes carried data.
    pub write_iops_mean: Option<f64>,
}

impl LevelFigures {
    /// The checklist's column `level`: IOPS read and write and queue depth at the level, and
    /// the mean IO sizes (IO-weighted over the capture: a counter capture knows only means,
    /// and a size's percentile is not the mean size of a busy interval). A row the capture
    /// has no figure for (no writes at all) counts as 0.
    pub fn from_checklist(checklist: &Checklist, level: Level) -> LevelFigures {
        let kib = |metric| checklist.level(metric, Level::Mean).map(|k| k * 1024.0);
        let mib = |metric| {
            checklist
                .level(metric, level)
                .map(|m| m * (1u64 << 20) as f64)
        };
        LevelFigures {
            level,
            read_iops: checklist.level(Metric::IopsRead, level).unwrap_or(0.0),
            write_iops: checklist.level(Metric::IopsWrite, level).unwrap_or(0.0),
            read_request_bytes: kib(Metric::IoSizeReadKib),
            write_request_bytes: kib(Metric::IoSizeWriteKib),
            queue_depth: checklist.level(Metric::QueueDepth, level).unwrap_or(0.0),
            read_latency_ms: checklist.level(Metric::LatencyReadMs, level),
            write_latency_ms: checklist.level(Metric::LatencyWriteMs, level),
            flushes_per_sec: checklist.level(Metric::FlushesPerSec, level).unwrap_or(0.0),
            read_bytes_per_sec: mib(Metric::ThroughputReadMibps),
            write_bytes_per_sec: mib(Metric::ThroughputWriteMibps),
            write_iops_mean: checklist.level(Metric::IopsWrite, Level::Mean),
        }
    }
}

/// What a block trace adds to the counters: the figures counters cannot give.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TracedShape {
    /// Read sizes as (bytes, IOs), any order.
    pub read_sizes: Vec<(u64, u64)>,
    /// Write sizes as (bytes, IOs).
    pub write_sizes: Vec<(u64, u64)>,
    /// Share of the IOs that did not continue the previous one, 0..=1.
    pub random_fraction: f64,
    /// Share of the touched bytes that took 80 % of the IOs, 0..=1; `None` when not measured.
    pub hot_share: Option<f64>,
    /// Bytes the traced IO touched at least once.
    pub working_set_bytes: Option<u64>,
    /// Requests in flight at the device as each IO was issued, p99 (several traced devices:
    /// the sum of their p99s, as the replay is one queue for all of them).
    #[serde(default)]
    pub queue_depth_p99: Option<f64>,
    /// Writes that carried data per second of the trace (the device never sees an fsync's
    /// empty preflush, which the counters count as a write).
    #[serde(default)]
    pub write_ios_per_sec: Option<f64>,
    /// Sizes of the writes that continued their stream, as (bytes, IOs).
    #[serde(default)]
    pub sequential_write_sizes: Vec<(u64, u64)>,
}

/// What the user asked of the replay.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayRequest {
    /// The job's name (`replay-12-p90`).
    pub name: String,
    /// The capture's figures at the chosen level.
    pub level: LevelFigures,
    /// The trace of the same device, when the capture has one.
    pub trace: Option<TracedShape>,
    /// `--random PCT`: the random share to use, percent (overrides the trace's).
    pub random_percent: Option<u8>,
    /// The region to replay on, bytes (`size=`).
    pub size_bytes: u64,
    /// How long to run, ns (`runtime=`, time based).
    pub runtime_ns: u64,
}

/// The workload built: fio options in the order a job file lists them, and what the reader
/// must know about where each came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayWorkload {
    /// `(option, value)` in job-file order, starting with `name`.
    pub options: Vec<(String, String)>,
    /// Further jobs that run beside the first, each its own `(option, value)` list starting
    /// with `name` (the writes that carry their own flush).
    #[serde(default)]
    pub more_jobs: Vec<Vec<(String, String)>>,
    /// One sentence per choice the capture did not dictate (or dictated approximately).
    pub notes: Vec<String>,
}

/// Why a replay cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// Both rates at the level are zero: there is nothing to mimic.
    #[error(
        "the capture did no IO at {level} (0 reads and 0 writes per second): nothing to replay"
    )]
    NoIo {
        /// The level asked for.
        level: Level,
    },
    /// A figure is not a finite number (a damaged capture).
    #[error("the capture's {what} at {level} is {value}, not a number of IOs")]
    NotFinite {
        /// Which figure.
        what: &'static str,
        /// The level.
        level: Level,
        /// Its value.
        value: f64,
    },
    /// `--random` above 100.
    #[error("--random {0}: a share of the IOs, 0 to 100")]
    RandomOutOfRange(u8),
    /// The built options do not parse: a bug of the builder, said plainly.
    #[error("the replay workload does not parse: {0}")]
    Unparsable(String),
}

/// Builds the workload that mimics `request`'s capture (see the module docs).
pub fn build_replay(request: &ReplayRequest) -> Result<ReplayWorkload, ReplayError> {
    let level = &request.level;
    for (what, value) in [
        ("r/s", level.read_iops),
        ("w/s", level.write_iops),
        ("aqu-sz", level.queue_depth),
        ("f/s", level.flushes_per_sec),
    ] {
        if !value.is_finite() || value < 0.0 {
            return Err(ReplayError::NotFinite {
                what,
                level: level.level,
                value,
            });
        }
    }
    if let Some(pct) = request.random_percent.filter(|p| *p > 100) {
        return Err(ReplayError::RandomOutOfRange(pct));
    }
    let mut carried = Vec::new();
    let read_rate = round_rate(covering_rate(
        "reads",
        level.read_iops,
        level.read_bytes_per_sec,
        level.read_request_bytes,
        &mut carried,
    ));
    // Writes with flushes count the flushes' empty writes (their mean size is not the data's):
    // their rate stays the level's w/s.
    let counted_writes = round_rate(if level.flushes_per_sec > 0.0 {
        level.write_iops
    } else {
        covering_rate(
            "writes",
            level.write_iops,
            level.write_bytes_per_sec,
            level.write_request_bytes,
            &mut carried,
        )
    });
    let data_share = data_write_share(level, request.trace.as_ref());
    let flush_plan = plan_flushes(level.flushes_per_sec, counted_writes, data_share);
    let (write_rate, dsync_rate) = flush_plan.map_or((counted_writes, 0), |plan| {
        (plan.plain_writes, plan.dsync_writes)
    });
    if read_rate == 0 && write_rate == 0 && dsync_rate == 0 {
        return Err(ReplayError::NoIo { level: level.level });
    }
    // Without a trace the write size is wareq-sz, whose count includes the flushes' empty
    // writes: the writes that carry data are that much larger.
    let mut sized = request.clone();
    if let (Some(plan), Some(bytes), None) = (flush_plan, level.write_request_bytes, &request.trace)
    {
        let data = (plan.plain_writes + plan.dsync_writes).max(1);
        sized.level.write_request_bytes = Some(bytes * counted_writes as f64 / data as f64);
    }
    let mut out = Builder::default();
    for note in carried {
        out.note(note);
    }
    let syncs = flush_plan.map_or(0.0, |plan| plan.syncs_per_sec());
    let split = split_streams(request.trace.as_ref(), write_rate + dsync_rate, dsync_rate);
    // The random job keeps the reads and the writes no other job takes, with the fsyncs'
    // share of the syncs (on the sequential job when it has every plain write).
    let random_writes = write_rate - split.sequential_plain;
    let every = |writes: u64| {
        (syncs >= 1.0 && writes > 0)
            .then(|| nearest_interval(writes as f64, syncs.min(writes as f64)))
    };
    let (random_every, sequential_every) = if random_writes > 0 {
        (every(random_writes), None)
    } else {
        (None, every(split.sequential_plain))
    };
    let mut random_request = sized.clone();
    if let (Some(trace), Some(random)) = (random_request.trace.as_mut(), split.random_fraction) {
        trace.random_fraction = random;
        // The random job's writes are the ones that did not continue a stream.
        trace.write_sizes = without(&trace.write_sizes, &split.sequential_sizes);
    }
    let sequential_request = split.sequential_request(&sized);
    let mut jobs = Vec::new();
    if read_rate > 0 || random_writes > 0 {
        jobs.push(job(
            &random_request,
            request.name.clone(),
            [read_rate, random_writes],
            JobKind::Random,
            random_every,
            &mut out,
        ));
        let synced = random_every
            .map(|n| (n, random_writes))
            .or(sequential_every.map(|n| (n, split.sequential_plain)));
        flushes(level, counted_writes, flush_plan, synced, &mut out);
    }
    if split.sequential_plain > 0 {
        let name = unique_name(&request.name, "seq", jobs.is_empty());
        jobs.push(job(
            &sequential_request,
            name.clone(),
            [0, split.sequential_plain],
            JobKind::Sequential,
            sequential_every,
            &mut out,
        ));
        out.note(format!(
            "{name}: {} writes/s of the traced sequential stream(s) ({:.0} % of the traced \
             writes continued their stream: a log's appends), rw=write at their own sizes, so \
             the block layer sees and merges them as it did the application's{}",
            split.sequential_plain,
            split.sequential_share * 100.0,
            if sequential_every.is_some() {
                "; they carry the fdatasync"
            } else {
                ""
            }
        ));
    }
    if dsync_rate > 0 {
        let name = unique_name(&request.name, "dsync", jobs.is_empty());
        let (kind, what) = if split.sequential_share > 0.0 {
            (JobKind::SequentialDsync, "rw=write at the sequential stream's sizes (a log's appends are what a database makes durable)")
        } else {
            (JobKind::RandomDsync, "randwrite at the traced write sizes")
        };
        let dsync_request = if split.sequential_share > 0.0 {
            &sequential_request
        } else {
            &random_request
        };
        jobs.push(job(
            dsync_request,
            name.clone(),
            [0, dsync_rate],
            kind,
            None,
            &mut out,
        ));
        let plan = flush_plan.unwrap_or_default();
        out.note(format!(
            "{name}: {dsync_rate} of the level's data writes/s carry their own flush \
             (sync=dsync: O_DSYNC, a FUA write; on a device without FUA the write and a flush, \
             as a journal commit's or a preflush write's), {what}, one at a time (iodepth 1: \
             flushes that wait together are merged into one by the block layer, and a log \
             writer commits one by one): the trace saw {:.0} % of the \
             counted writes carry data, so at most {} of the level's {:.1} f/s came with an \
             empty write",
            data_share.unwrap_or(1.0) * 100.0,
            counted_writes.saturating_sub(plan.plain_writes + plan.dsync_writes),
            level.flushes_per_sec
        ));
    }
    let mut jobs = jobs.into_iter();
    Ok(ReplayWorkload {
        options: jobs.next().unwrap_or_default(),
        more_jobs: jobs.collect(),
        notes: out.notes,
    })
}

/// `NAME-suffix`, or `NAME` for the first job.
fn unique_name(name: &str, suffix: &str, first: bool) -> String {
    if first {
        name.to_string()
    } else {
        format!("{name}-{suffix}")
    }
}

impl ReplayWorkload {
    /// The workload as an fio job file fio runs unchanged: `comments` first (each line
    /// prefixed with `# `), then one section per job named after it with its options; `extra`
    /// options (a `filename=`) go after the built ones of each.
    pub fn job_file(&self, comments: &[String], extra: &[(String, String)]) -> String {
        let mut text = String::new();
        for line in comments.iter().chain(self.notes.iter()) {
            text.push_str(&format!("# {line}\n"));
        }
        for (index, options) in self.jobs().enumerate() {
            if index > 0 {
                text.push('\n');
            }
            let name = options
                .iter()
                .find(|(option, _)| option == "name")
                .map_or("replay", |(_, value)| value.as_str());
            text.push_str(&format!("[{name}]\n"));
            for (option, value) in options.iter().chain(extra) {
                if option != "name" {
                    text.push_str(&format!("{option}={value}\n"));
                }
            }
        }
        text
    }

    /// Every job as the runner takes it, each parsed on its own with `extra` options (the
    /// target) after its own: [`ReplayWorkload::job_file`] writes the same sections, so the
    /// run and the file are one description.
    pub fn job_specs(
        &self,
        extra: &[(String, String)],
    ) -> Result<Vec<diskmeter_workload::JobSpec>, ReplayError> {
        let mut jobs = Vec::new();
        for job_options in self.jobs() {
            let options: Vec<(String, Option<String>)> = job_options
                .iter()
                .chain(extra)
                .cloned()
                .map(|(name, value)| (name, Some(value)))
                .collect();
            let parsed = diskmeter_workload::jobs_from_options(&options).map_err(|errors| {
                let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
                ReplayError::Unparsable(errors.join("; "))
            })?;
            jobs.extend(parsed);
        }
        Ok(jobs)
    }

    /// Every job's options, the first job first.
    pub fn jobs(&self) -> impl Iterator<Item = &Vec<(String, String)>> {
        std::iter::once(&self.options).chain(self.more_jobs.iter())
    }

    /// The value of `option` in the first job, if it sets it.
    pub fn option(&self, option: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(name, _)| name == option)
            .map(|(_, value)| value.as_str())
    }

    /// The options that aim the workload at `target` in its job file and jobs: `filename=`, or
    /// `directory=` for a folder (`target_is_dir`); none without a target, on an emulated disk
    /// (the run aims the jobs at it) or for an exact replay, which names its target in
    /// `replay_redirect`.
    pub fn target_options(
        &self,
        target: Option<&str>,
        target_is_dir: bool,
        emulated: bool,
    ) -> Vec<(String, String)> {
        match target {
            Some(_) if emulated || self.option("read_iolog").is_some() => Vec::new(),
            Some(path) if target_is_dir => vec![("directory".into(), path.to_string())],
            Some(path) => vec![("filename".into(), path.to_string())],
            None => Vec::new(),
        }
    }
}
