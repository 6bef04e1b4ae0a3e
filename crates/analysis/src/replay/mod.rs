//! A workload that mimics a captured application, as fio options: the one description that
//! both becomes the job `diskmeter replay` runs and the fio job file it emits, so the two
//! cannot drift apart.
//!
//! What comes from where (docs/GUIDE.md, "Replaying a capture", says the same to the user):
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
use diskmeter_units::{format_size_suffix, format_time_suffix, KbBase};
use serde::{Deserialize, Serialize};

mod exact;
#[cfg(test)]
mod tests;
mod traced;

pub use exact::{build_exact_replay, ExactRequest};

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

/// The (bytes, IOs) list `sizes` less the IOs of `taken` per size.
fn without(sizes: &[(u64, u64)], taken: &[(u64, u64)]) -> Vec<(u64, u64)> {
    sizes
        .iter()
        .map(|&(bytes, ios)| {
            let gone: u64 = taken
                .iter()
                .filter(|(b, _)| *b == bytes)
                .map(|(_, n)| *n)
                .fold(0, u64::saturating_add);
            (bytes, ios.saturating_sub(gone))
        })
        .filter(|(_, ios)| *ios > 0)
        .collect()
}

/// `NAME-suffix`, or `NAME` for the first job.
fn unique_name(name: &str, suffix: &str, first: bool) -> String {
    if first {
        name.to_string()
    } else {
        format!("{name}-{suffix}")
    }
}

/// The share of the traced writes that continued their stream at or above which the replay
/// gives the sequential stream(s) a job of their own: below it they are a few coincidences
/// of random IO, not a log.
pub const SEQUENTIAL_STREAM_MIN_SHARE: f64 = 0.1;

/// How the level's data writes split between the sequential stream(s) and the rest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamSplit {
    /// Share of the traced writes that continued their stream, 0 when under
    /// [`SEQUENTIAL_STREAM_MIN_SHARE`] or untraced.
    pub sequential_share: f64,
    /// Sequential writes per second without a flag (beyond those the `-dsync` job takes).
    pub sequential_plain: u64,
    /// The sequential writes' sizes as (bytes, IOs).
    pub sequential_sizes: Vec<(u64, u64)>,
    /// The random share of the IOs the random job keeps, 0..=1, when writes left it.
    pub random_fraction: Option<f64>,
}

impl StreamSplit {
    /// `request` with the sequential writes' sizes as its write sizes.
    fn sequential_request(&self, request: &ReplayRequest) -> ReplayRequest {
        let mut sequential = request.clone();
        if let Some(trace) = sequential.trace.as_mut() {
            trace.write_sizes = self.sequential_sizes.clone();
        }
        sequential
    }
}

/// Splits `data_writes` per second (of which `dsync` carry their own flush) between the
/// sequential stream(s) the trace saw and the random rest: S = the sequential share of the
/// writes x `data_writes`, rounded up; the `dsync` writes are taken from S first (a log's
/// appends are the writes a database makes durable), the rest of S is a plain sequential
/// job. The random job's random share is then the trace's over the IOs it keeps.
pub fn split_streams(trace: Option<&TracedShape>, data_writes: u64, dsync: u64) -> StreamSplit {
    let Some(trace) = trace else {
        return StreamSplit::default();
    };
    let writes = crate::wide_sum(trace.write_sizes.iter().map(|(_, n)| *n));
    let sequential = crate::wide_sum(trace.sequential_write_sizes.iter().map(|(_, n)| *n));
    if writes == 0 || sequential == 0 {
        return StreamSplit::default();
    }
    let share = (sequential as f64 / writes as f64).min(1.0);
    if share < SEQUENTIAL_STREAM_MIN_SHARE {
        return StreamSplit::default();
    }
    let stream = ((data_writes as f64 * share).ceil() as u64).min(data_writes);
    let sequential_plain = stream
        .saturating_sub(dsync)
        .min(data_writes - dsync.min(data_writes));
    // The trace's random share was over every IO; the sequential writes leave the random job.
    let reads = crate::wide_sum(trace.read_sizes.iter().map(|(_, n)| *n));
    let all = (reads + writes) as f64;
    let kept = all - sequential as f64;
    let random_fraction = (kept > 0.0).then(|| {
        let sequential_kept = (all * (1.0 - trace.random_fraction) - sequential as f64).max(0.0);
        (1.0 - sequential_kept / kept).clamp(0.0, 1.0)
    });
    StreamSplit {
        sequential_share: share,
        sequential_plain,
        sequential_sizes: trace.sequential_write_sizes.clone(),
        random_fraction,
    }
}

/// Share of the counted writes that carried data: the trace's data writes per second over
/// the counters' mean `w/s` (an fsync's empty preflush is a write to the counters and no
/// request to the driver). `None` without a trace or a write rate to compare.
pub fn data_write_share(level: &LevelFigures, trace: Option<&TracedShape>) -> Option<f64> {
    let traced = trace?.write_ios_per_sec?;
    let counted = level.write_iops_mean?;
    (traced.is_finite() && counted.is_finite() && counted > 0.0)
        .then(|| (traced / counted).clamp(0.0, 1.0))
}

/// One job's options: reads and writes at `rates`, the sizes, randomness, depth and pacing
/// of the module docs; `sync` opens it with fio's `sync=` (`dsync`).
fn job(
    request: &ReplayRequest,
    name: String,
    [read_rate, write_rate]: [u64; 2],
    kind: JobKind,
    fdatasync: Option<u64>,
    out: &mut Builder,
) -> Vec<(String, String)> {
    let level = &request.level;
    // The first job's notes say where every figure came from; a later job's would repeat
    // them (the caller notes what is its own).
    out.notes_closed = out.jobs_built > 0;
    let sequential = matches!(kind, JobKind::Sequential | JobKind::SequentialDsync);
    out.options.clear();
    out.push("name", name);
    out.push(
        "size",
        format_size_suffix(request.size_bytes, KbBase::Binary),
    );
    let rw = match (read_rate > 0, write_rate > 0) {
        (_, true) if sequential => "write",
        (true, true) => "randrw",
        (true, false) => "randread",
        _ => "randwrite",
    };
    out.push("rw", rw.to_string());
    if read_rate > 0 && write_rate > 0 {
        // In floating point: rates from a damaged capture can be near u64::MAX each.
        let share = read_rate as f64 / (read_rate as f64 + write_rate as f64) * 100.0;
        out.push("rwmixread", format!("{}", share.round() as u64));
        if (share - share.round()).abs() > 0.05 {
            out.note(format!(
                "rwmixread {}: the level's read share {share:.1} % rounded to fio's whole percent",
                share.round()
            ));
        }
    }
    let split_means = sizes(request, read_rate > 0, write_rate > 0, out);
    if !sequential {
        randomness(request, out);
    }
    let depth = replay_depth(
        level,
        [read_rate, write_rate],
        request.trace.as_ref().and_then(|t| t.queue_depth_p99),
    );
    if matches!(kind, JobKind::RandomDsync | JobKind::SequentialDsync) {
        // One write and its flush at a time, as a log writer commits: the block layer merges
        // flushes that wait together into one (blk-flush), so a deeper queue of O_DSYNC
        // writes would send fewer flushes than the application did.
        out.push("iodepth", "1".to_string());
    } else {
        out.push("iodepth", depth.iodepth.to_string());
        out.note(depth.note(level.level));
        if let Some(note) = depth_cut_note(depth.wanted) {
            out.note(note);
        }
    }
    rates([read_rate, write_rate], split_means, out);
    if let Some(every) = fdatasync.filter(|_| write_rate > 0) {
        out.push("fdatasync", every.to_string());
    }
    if matches!(kind, JobKind::RandomDsync | JobKind::SequentialDsync) {
        out.push("sync", "dsync".to_string());
    }
    out.push("runtime", format_time_suffix(request.runtime_ns));
    out.push("time_based", "1".to_string());
    out.push("direct", "1".to_string());
    out.push("ioengine", REPLAY_ENGINE.to_string());
    out.jobs_built += 1;
    out.notes_closed = false;
    std::mem::take(&mut out.options)
}

/// What a job of the replay does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobKind {
    /// Reads and writes at the traced random share and hot set.
    Random,
    /// Writes with their own flush (`sync=dsync`) at random places.
    RandomDsync,
    /// A sequential stream's writes (`rw=write`).
    Sequential,
    /// A sequential stream's writes with their own flush.
    SequentialDsync,
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
}

/// Options and notes in the order they are decided.
#[derive(Default)]
struct Builder {
    options: Vec<(String, String)>,
    notes: Vec<String>,
    /// Notes of a second job that would repeat the first's are dropped.
    notes_closed: bool,
    /// Jobs built so far.
    jobs_built: usize,
}

impl Builder {
    fn push(&mut self, option: &str, value: String) {
        self.options.push((option.to_string(), value));
    }

    fn note(&mut self, note: String) {
        if !self.notes_closed {
            self.notes.push(note);
        }
    }
}

/// The IOPS that carry both a direction's level of IOs per second and its level of throughput
/// at the capture's mean size: the p90 of the MiB/s is often a little above the p90 of the
/// IOPS times the mean size (busy seconds carry bigger IOs), and a replay paced below it could
/// never show the level's MiB/s to `check --capture ID --level L`. Says so in `notes` when the
/// throughput sets the rate.
fn covering_rate(
    what: &str,
    iops: f64,
    bytes_per_sec: Option<f64>,
    mean_bytes: Option<f64>,
    notes: &mut Vec<String>,
) -> f64 {
    let (Some(bytes), Some(size)) = (bytes_per_sec, mean_bytes.filter(|s| *s > 0.0)) else {
        return iops;
    };
    let by_bytes = bytes / size;
    if !by_bytes.is_finite() || by_bytes <= iops * 1.001 {
        return iops;
    }
    notes.push(format!(
        "{what}: {by_bytes:.1}/s, the level's {:.2} MiB/s at the mean size of {size:.0} bytes, \
         more than its {iops:.1}/s (busy seconds carried bigger IOs), so the replay carries \
         both the level's IOPS and its MiB/s",
        bytes / (1u64 << 20) as f64
    ));
    by_bytes
}

/// A level's rate as fio's whole IOPS, rounded up: a replay checked against its own level
/// (`check --capture ID --level L`) can then reach it (a p90 of 1,400.4 paced at 1,400 could
/// not); a direction that did any IO keeps at least 1.
fn round_rate(iops: f64) -> u64 {
    if iops <= 0.0 {
        0
    } else {
        (iops.ceil() as u64).max(1)
    }
}

/// The replay's queue depth and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayDepth {
    /// `iodepth`: the largest of the figures below, at least 1, at most what `iodepth` takes.
    pub iodepth: u64,
    /// The largest of the figures before the cut to `iodepth`'s limit.
    pub wanted: f64,
    /// aqu-sz at the level, rounded up.
    pub captured: u64,
    /// The trace's queue depth p99, rounded up, where traced.
    pub traced_p99: Option<u64>,
    /// Little's law at [`LATENCY_HEADROOM`] x the level's latency: IOs in flight the level's
    /// rate needs; `None` when the capture has no latency for a direction with IO.
    pub littles_law: Option<u64>,
    /// The level's latency weighted by the two rates, ms (what the law was applied to).
    pub latency_ms: Option<f64>,
}

impl ReplayDepth {
    /// The `#` note saying how the depth was chosen.
    pub fn note(&self, level: Level) -> String {
        let mut parts = vec![format!("aqu-sz at {level} rounded up ({})", self.captured)];
        if let Some(p99) = self.traced_p99 {
            parts.push(format!("the trace's queue depth p99 ({p99})"));
        }
        match (self.littles_law, self.latency_ms) {
            (Some(law), Some(ms)) => parts.push(format!(
                "Little's law for the level's rate at {LATENCY_HEADROOM:.0}x its latency \
                 (rate x {ms:.3} ms x {LATENCY_HEADROOM:.0} = {law})"
            )),
            _ => parts.push(
                "Little's law: not applied, the capture has no latency at the level".to_string(),
            ),
        }
        format!(
            "iodepth {}: the largest of {}; the headroom lets a target up to \
             {LATENCY_HEADROOM:.0}x slower than the captured device, or a latency spike, keep \
             the rate from its queue (paced IOs still go out at their times: the depth only \
             bounds how many may be in flight)",
            self.iodepth,
            parts.join(", ")
        )
    }
}

/// The depth a replay of `level` at `rates` (reads, writes per second) keeps: the larger of
/// the captured depth (aqu-sz at the level rounded up; the traced queue depth p99 where
/// there is one) and Little's law for the rates at [`LATENCY_HEADROOM`] x the level's
/// latency (`r_await`, `w_await`), at least 1, at most what `iodepth` takes.
pub fn replay_depth(level: &LevelFigures, rates: [u64; 2], traced_p99: Option<f64>) -> ReplayDepth {
    let captured = level.queue_depth.ceil().max(1.0);
    let traced = traced_p99
        .filter(|d| d.is_finite() && *d >= 0.0)
        .map(f64::ceil);
    let latencies = [level.read_latency_ms, level.write_latency_ms];
    let known =
        (0..2).all(|d| rates[d] == 0 || latencies[d].is_some_and(|ms| ms.is_finite() && ms >= 0.0));
    let (littles, latency_ms) = if known && rates.iter().any(|r| *r > 0) {
        // IOs in flight = Σ rate x latency (seconds), per direction.
        let in_flight: f64 = (0..2)
            .filter(|&d| rates[d] > 0)
            .map(|d| rates[d] as f64 * latencies[d].unwrap_or(0.0) / 1000.0)
            .sum();
        let total = (rates[0] as f64) + (rates[1] as f64);
        let mean_ms = in_flight * 1000.0 / total;
        (Some((in_flight * LATENCY_HEADROOM).ceil()), Some(mean_ms))
    } else {
        (None, None)
    };
    let wanted = [Some(captured), traced, littles]
        .into_iter()
        .flatten()
        .fold(1.0f64, f64::max);
    let as_depth = |d: f64| -> u64 { d.min(u64::MAX as f64) as u64 };
    ReplayDepth {
        iodepth: (wanted.min(max_iodepth() as f64) as u64).clamp(1, max_iodepth()),
        wanted,
        captured: as_depth(captured),
        traced_p99: traced.map(as_depth),
        littles_law: littles.map(as_depth),
        latency_ms,
    }
}

/// How a level's flushes are replayed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlushPlan {
    /// Data writes per second without a flag, of which every `every`-th is followed by an
    /// `fdatasync` (the flushes that came with an empty write: an fsync's).
    pub plain_writes: u64,
    /// One `fdatasync` after every this many plain writes (fio's `fdatasync=N`); `None`
    /// when no flush came with an empty write.
    pub every: Option<u64>,
    /// Data writes per second that carry their own flush (`sync=dsync`: a FUA write, on a
    /// device without FUA the write and a flush; a journal commit's or a preflush write's).
    pub dsync_writes: u64,
}

impl FlushPlan {
    /// Syncs per second the plain writes get.
    pub fn syncs_per_sec(&self) -> f64 {
        self.every
            .map_or(0.0, |n| self.plain_writes as f64 / n as f64)
    }
}

/// Replays `flushes_per_sec` within `counted_writes` (`w/s` at the level, rounded up), of
/// which `data_share` carried data (from a trace; `None` without one).
///
/// The kernel counts an fsync's empty preflush as a write of 0 bytes besides the flush (100
/// fsyncs of a block device add 100 writes, 0 sectors and 100 flushes to
/// `/proc/diskstats`); a flush that rides on a data write (a preflush write, a FUA write on a
/// device without FUA) adds no write. So of w counted writes, D = w x share carried data and
/// E = w - D were fsyncs' empty writes; the other f - E flushes rode on data writes.
/// Replayed: E syncs/s as `fdatasync` every N plain writes (N the whole number nearest the
/// plain writes over E), and f - E of the D data writes (rounded up) with their own flush
/// (`sync=dsync`), so the counted writes (D + E), the flushes and the bytes are the
/// level's again. Without a trace every flush is taken for an fsync's (E = f, at most half
/// the writes: one sync per data write), D = w x N / (N + 1) rounded up. `None` without
/// flushes or without writes.
pub fn plan_flushes(
    flushes_per_sec: f64,
    counted_writes: u64,
    data_share: Option<f64>,
) -> Option<FlushPlan> {
    if !(flushes_per_sec.is_finite() && flushes_per_sec > 0.0) || counted_writes == 0 {
        return None;
    }
    let writes = counted_writes as f64;
    let Some(share) = data_share.filter(|s| s.is_finite()) else {
        let data = (writes - flushes_per_sec).max(writes / 2.0);
        let every = nearest_interval(data, flushes_per_sec);
        let plain_writes = (writes * every as f64 / (every as f64 + 1.0)).ceil() as u64;
        return Some(FlushPlan {
            plain_writes: plain_writes.max(1),
            every: Some(every),
            dsync_writes: 0,
        });
    };
    let data = (writes * share.clamp(0.0, 1.0)).ceil().max(1.0);
    let empty = writes - data;
    let carried = (flushes_per_sec - empty).max(0.0).ceil().min(data);
    let plain = data - carried;
    // Under one empty write a second is the counters' and the trace's windows not meeting
    // exactly, not an fsync.
    let every = (empty >= 1.0 && plain >= 1.0).then(|| nearest_interval(plain, empty.min(plain)));
    Some(FlushPlan {
        plain_writes: plain as u64,
        every,
        dsync_writes: carried as u64,
    })
}

/// The whole N (at least 1, at most what `fdatasync` takes) whose `writes / N` is nearest
/// `syncs`.
fn nearest_interval(writes: f64, syncs: f64) -> u64 {
    let ratio = writes / syncs;
    let below = ratio.floor().max(1.0);
    let above = ratio.ceil().max(1.0);
    let off = |n: f64| (writes / n - syncs).abs();
    let every = if off(above) < off(below) {
        above
    } else {
        below
    };
    // A damaged capture's rates can be any number; the job must still parse.
    let most = match diskmeter_workload::limits_of("fdatasync").map(|limits| limits.range) {
        Some(diskmeter_workload::Range::Int { max: Some(max), .. }) => max,
        _ => u64::from(u32::MAX),
    };
    (every.min(most as f64) as u64).max(1)
}

/// The note on the level's flushes, if it had any.
fn flushes(
    level: &LevelFigures,
    counted_writes: u64,
    plan: Option<FlushPlan>,
    synced: Option<(u64, u64)>,
    out: &mut Builder,
) {
    let flushes = level.flushes_per_sec;
    if flushes <= 0.0 {
        return;
    }
    let Some(plan) = plan else {
        out.note(format!(
            "flushes: the capture's {flushes:.1} f/s at {} are not replayed: fio syncs after \
             writes, and the level has none",
            level.level
        ));
        return;
    };
    let Some((every, writes)) = synced else {
        return;
    };
    let syncs = writes as f64 / every as f64;
    let replayed = syncs + plan.dsync_writes as f64;
    let short = if replayed < flushes * 0.95 {
        format!(
            " (a sync after each write is the most fio issues: {:.0} % of the level's flushes)",
            replayed / flushes * 100.0
        )
    } else {
        String::new()
    };
    out.note(format!(
        "fdatasync {every}: one sync every {every} of {writes} data writes/s = {syncs:.1} syncs/s \
         for the level's {flushes:.1} f/s{short}; the kernel counts each sync's empty \
         preflush as a write too, so the level's {counted_writes} w/s are paced as data \
         writes plus the syncs; on a block device each sync is one cache flush \
         (blkdev_fsync), on a file fdatasync's flush with what the filesystem adds"
    ));
}

/// The queue depth to keep: aqu-sz rounded up, at least 1 (a rate needs one IO in flight),
/// at most what `iodepth` takes.
fn iodepth(queue_depth: f64) -> u64 {
    (queue_depth.ceil() as u64).clamp(1, max_iodepth())
}

/// The most IOs in flight `iodepth` takes, from its row in the option table (a damaged
/// capture's aqu-sz can be any number; the job must still parse).
fn max_iodepth() -> u64 {
    match diskmeter_workload::limits_of("iodepth").map(|limits| limits.range) {
        Some(diskmeter_workload::Range::Int { max: Some(max), .. }) => max,
        _ => u64::MAX,
    }
}

/// The note for a queue deeper than `iodepth` takes, if `queue_depth` is.
fn depth_cut_note(queue_depth: f64) -> Option<String> {
    let max = max_iodepth();
    (queue_depth.ceil() > max as f64).then(|| {
        format!("iodepth {max}: the capture's queue of {queue_depth:.0} is more than iodepth takes")
    })
}

/// The rate of each direction at the level: `rate_iops=R,W`, except when a direction's IO
/// sizes are a split of several sizes: then `rate=` (bytes per second) at each direction's
/// mean size. fio turns `rate_iops` into bytes at the direction's *smallest* size (backend.c,
/// `__setup_rate`), so with 8k/60:64k/40 it would run well under the level, and it refuses
/// `rate` and `rate_iops` together; a byte rate at the mean size runs the level's IOPS in fio
/// and in diskmeter alike (which paces each IO by its own size).
fn rates(iops: [u64; 2], split_means: Option<[(f64, bool); 2]>, out: &mut Builder) {
    let value = |pair: [u64; 2]| match (iops[0] > 0, iops[1] > 0) {
        (true, true) => format!("{},{}", pair[0], pair[1]),
        (true, false) => pair[0].to_string(),
        // One value sets both directions; only writes happen.
        _ => pair[1].to_string(),
    };
    let means = match split_means {
        Some(means) if (0..2).any(|d| iops[d] > 0 && means[d].1) => means,
        _ => {
            out.push("rate_iops", value(iops));
            return;
        }
    };
    let bytes = [0, 1].map(|d| (iops[d] as f64 * means[d].0).ceil() as u64);
    out.push("rate", value(bytes));
    for (d, name) in ["reads", "writes"].iter().enumerate() {
        if iops[d] > 0 {
            out.note(format!(
                "{name}: rate {} bytes/s = {} IOPS x mean size {:.0} bytes (a size split: fio \
                 paces rate_iops at the smallest size, so a byte rate keeps fio and diskmeter \
                 at the level's IOPS)",
                bytes[d], iops[d], means[d].0
            ));
        }
    }
}

/// `bssplit` from the traced sizes, else `bs` from the counters' mean request sizes. With a
/// `bssplit`, returns each direction's mean size and whether it has more than one size.
fn sizes(
    request: &ReplayRequest,
    reads: bool,
    writes: bool,
    out: &mut Builder,
) -> Option<[(f64, bool); 2]> {
    let traced = request.trace.as_ref().map(|trace| {
        (
            split(&trace.read_sizes, out, "read"),
            split(&trace.write_sizes, out, "write"),
        )
    });
    if let Some((read_split, write_split)) = traced {
        let wanted_known = (!reads || read_split.is_some()) && (!writes || write_split.is_some());
        if wanted_known {
            let means = [&read_split, &write_split].map(|s| {
                s.as_ref()
                    .map_or((0.0, false), |s| (mean_bytes(s), s.len() > 1))
            });
            let show = |s: Option<Vec<(u64, u64)>>| s.map(|s| show_split(&s)).unwrap_or_default();
            let value = match (reads, writes) {
                (true, true) => format!("{},{}", show(read_split), show(write_split)),
                (true, false) => show(read_split),
                _ => show(write_split),
            };
            out.push("bssplit", value);
            out.note("IO sizes: the traced size distribution per direction".to_string());
            return Some(means);
        }
        out.note(
            "IO sizes: the trace saw no sizes for a direction the level has IO in; \
             using the counters' mean request sizes"
                .to_string(),
        );
    }
    let level = &request.level;
    let mean = |bytes: Option<f64>| -> u64 {
        let bytes = bytes
            .filter(|b| b.is_finite() && *b > 0.0)
            .unwrap_or(4096.0);
        // Whole sectors, at least one and at most as many as a u64 of bytes holds (a
        // damaged capture's mean size can be any number).
        ((bytes / SECTOR_BYTES as f64).round() as u64).clamp(1, u64::MAX / SECTOR_BYTES)
            * SECTOR_BYTES
    };
    let read_bs = mean(level.read_request_bytes);
    let write_bs = mean(level.write_request_bytes);
    let show = |b: u64| format_size_suffix(b, KbBase::Binary);
    out.push(
        "bs",
        match (reads, writes) {
            (true, true) => format!("{},{}", show(read_bs), show(write_bs)),
            (true, false) => show(read_bs),
            _ => show(write_bs),
        },
    );
    out.note(format!(
        "IO sizes: the counters' mean request sizes over the capture (rareq-sz, wareq-sz) \
         rounded to {SECTOR_BYTES}-byte sectors; a counter capture does not know their \
         spread (capture --trace measures it)"
    ));
    None
}

/// The mean size of a split of (bytes, percent) entries.
fn mean_bytes(split: &[(u64, u64)]) -> f64 {
    split
        .iter()
        .map(|(b, p)| *b as f64 * *p as f64)
        .sum::<f64>()
        / 100.0
}

/// A split as fio writes it: `8k/60:64k/40`.
fn show_split(split: &[(u64, u64)]) -> String {
    split
        .iter()
        .map(|(bytes, p)| format!("{}/{p}", format_size_suffix(*bytes, KbBase::Binary)))
        .collect::<Vec<_>>()
        .join(":")
}

/// One direction's `bssplit` list as (bytes, percent): whole percents of the IOs (largest
/// remainders, so they add up to 100), most frequent first, at most [`BSSPLIT_MAX`] sizes;
/// `None` with no IOs.
fn split(sizes: &[(u64, u64)], out: &mut Builder, direction: &str) -> Option<Vec<(u64, u64)>> {
    let mut sizes: Vec<(u64, u64)> = sizes
        .iter()
        .copied()
        .filter(|(bytes, ios)| *bytes > 0 && *ios > 0)
        .collect();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total = crate::wide_sum(sizes.iter().map(|(_, ios)| *ios));
    if total == 0 {
        return None;
    }
    let exact: Vec<f64> = sizes
        .iter()
        .map(|(_, ios)| *ios as f64 * 100.0 / total as f64)
        .collect();
    let mut percents: Vec<u64> = exact.iter().map(|p| p.floor() as u64).collect();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    let missing = 100 - percents.iter().sum::<u64>();
    for &i in order.iter().take(missing as usize) {
        percents[i] += 1;
    }
    let mut kept: Vec<(u64, u64)> = sizes
        .iter()
        .zip(&percents)
        .filter(|(_, p)| **p > 0)
        .map(|((bytes, _), p)| (*bytes, *p))
        .collect();
    let dropped = sizes.len() - kept.len();
    if kept.len() > BSSPLIT_MAX {
        let cut: u64 = kept[BSSPLIT_MAX..].iter().map(|(_, p)| p).sum();
        kept.truncate(BSSPLIT_MAX);
        kept[0].1 += cut;
        out.note(format!(
            "{direction} sizes: only the {BSSPLIT_MAX} most frequent kept (fio's BSSPLIT_MAX); \
             the rest ({cut} %) go to the most frequent"
        ));
    }
    if dropped > 0 {
        out.note(format!(
            "{direction} sizes: {dropped} size(s) under half a percent of the IOs left out"
        ));
    }
    Some(kept)
}

/// `percentage_random` (trace, `--random`, or 100 with a note) and the hot set.
fn randomness(request: &ReplayRequest, out: &mut Builder) {
    let traced = request.trace.as_ref();
    let percent = match (request.random_percent, traced) {
        (Some(pct), Some(trace)) => {
            out.note(format!(
                "random share: {pct} % as --random gave it (the trace measured {:.0} %)",
                trace.random_fraction * 100.0
            ));
            pct
        }
        (Some(pct), None) => {
            out.note(format!(
                "random share: {pct} % as --random gave it (a counter capture does not know it)"
            ));
            pct
        }
        (None, Some(trace)) => {
            let pct = (trace.random_fraction.clamp(0.0, 1.0) * 100.0).round() as u8;
            out.note(format!("random share: {pct} %, traced"));
            pct
        }
        (None, None) => {
            out.note(
                "random share: unknown (a counter capture does not know it): replaying fully \
                 random IO; give --random PCT for the application's share (capture --trace \
                 measures it)"
                    .to_string(),
            );
            100
        }
    };
    if percent < 100 {
        out.push("percentage_random", percent.to_string());
    }
    let Some(trace) = traced else {
        return;
    };
    match trace.hot_share {
        Some(share) if share.is_finite() && share > 0.0 && share < 0.8 => {
            let hot = ((share * 100.0).round() as u64).clamp(1, 99);
            out.push(
                "random_distribution",
                format!(
                    "zoned:{HOT_IO_PERCENT}/{hot}:{}/{}",
                    100 - HOT_IO_PERCENT,
                    100 - hot
                ),
            );
            let set = trace
                .working_set_bytes
                .map(|b| {
                    format!(
                        "; the traced working set was {} (--size {} replays it over the same span)",
                        diskmeter_units::format_bytes_binary(b),
                        format_size_suffix(b.max(SECTOR_BYTES), KbBase::Binary)
                    )
                })
                .unwrap_or_default();
            out.note(format!(
                "hot set: {HOT_IO_PERCENT} % of the IOs on the first {hot} % of the region, \
                 as traced ({HOT_IO_PERCENT} % of the IOs went to {hot} % of the bytes touched){set}"
            ));
        }
        Some(_) => out.note(
            "hot set: the traced IOs were spread evenly (80 % of them took 80 % or more of \
             the bytes touched): uniform offsets"
                .to_string(),
        ),
        None => out.note("hot set: not measured by the trace: uniform offsets".to_string()),
    }
}
