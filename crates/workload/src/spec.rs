//! The typed description of one job: what to read or write, where, how hard and for how long.
//!
//! A `JobSpec` is pure data. It is produced by the front-ends (command-line options today,
//! job files later), checked by [`crate::validate`], and resolved by the runner into a plan.
//! Field names follow fio's option names so a user can map one onto the other.

use crate::patterns::{BlockSizeSpread, RandomDistribution};
pub use diskmeter_units::Direction;
use diskmeter_units::KbBase;
use serde::{Deserialize, Serialize};

pub use crate::modes::{EngineKind, RwMode, SyncMode};
use std::path::PathBuf;

/// A value kept separately for reads and writes, like fio's `bs=4k,64k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PerDirection<T> {
    /// The value for reads.
    pub read: T,
    /// The value for writes.
    pub write: T,
}

impl<T: Copy> PerDirection<T> {
    /// The same value for both directions.
    pub fn both(value: T) -> Self {
        PerDirection {
            read: value,
            write: value,
        }
    }

    /// The value for `direction`.
    pub fn get(&self, direction: Direction) -> T {
        match direction {
            Direction::Read => self.read,
            Direction::Write => self.write,
        }
    }
}

impl<T> PerDirection<T> {
    /// Borrows the value for `direction` (for values that are not `Copy`).
    pub fn get_ref(&self, direction: Direction) -> &T {
        match direction {
            Direction::Read => &self.read,
            Direction::Write => &self.write,
        }
    }

    /// Mutable access to the value for `direction`.
    pub fn get_mut(&mut self, direction: Direction) -> &mut T {
        match direction {
            Direction::Read => &mut self.read,
            Direction::Write => &mut self.write,
        }
    }
}

/// One job as the user described it (before `numjobs` cloning and target resolution).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    /// Job name (fio `name=`); also the stem of test files the job creates.
    pub name: String,
    /// Explicit targets (fio `filename=`, ':'-separated): files or block devices.
    pub filenames: Vec<PathBuf>,
    /// Folder for the test files diskmeter names itself (fio `directory=`); the current folder when unset.
    pub directory: Option<PathBuf>,
    /// Number of files per job when diskmeter names them (fio `nrfiles=`).
    pub nrfiles: u32,
    /// Bytes of the target region per job, split over its files (fio `size=`); `None` = the targets' own size.
    pub size_bytes: Option<u64>,
    /// Bytes to transfer before the job stops (fio `io_size=`); `None` = `size_bytes` per loop.
    pub io_size_bytes: Option<u64>,
    /// Start of the target region inside each file, bytes (fio `offset=`).
    pub offset_bytes: u64,
    /// Directions and offset pattern (fio `rw=`).
    pub rw: RwMode,
    /// Percentage of reads in a mixed job, 0..=100 (fio `rwmixread=`; `rwmixwrite=` sets 100 - it).
    pub rwmixread: u8,
    /// Block size per direction, bytes (fio `bs=`, `bs=r,w`).
    pub bs_bytes: PerDirection<u64>,
    /// IOs kept in flight per worker (fio `iodepth=`).
    pub iodepth: u32,
    /// IOs handed to the kernel per submit call (fio `iodepth_batch_submit=`); 0 = diskmeter's default.
    pub iodepth_batch_submit: u32,
    /// Minimum completions reaped per call (fio `iodepth_batch_complete_min=`).
    pub iodepth_batch_complete_min: u32,
    /// Number of identical workers (clones) of this job (fio `numjobs=`).
    pub numjobs: u32,
    /// Run time limit, nanoseconds (fio `runtime=`; seconds by default).
    pub runtime_ns: Option<u64>,
    /// Keep running until `runtime` even when `size` has been covered (fio `time_based`).
    pub time_based: bool,
    /// Warm-up before measurement starts, nanoseconds; IOs in it are not counted (fio `ramp_time=`).
    pub ramp_time_ns: u64,
    /// Passes over the region for size-based runs (fio `loops=`).
    pub loops: u32,
    /// Open with O_DIRECT, bypassing the page cache (fio `direct=1`).
    pub direct: bool,
    /// The IO engine (fio `ioengine=`).
    pub ioengine: EngineKind,
    /// IOPS cap per worker and direction (fio `rate_iops=r,w`).
    pub rate_iops: PerDirection<Option<u64>>,
    /// Bandwidth cap per worker and direction, bytes per second (fio `rate=r,w`).
    pub rate_bytes_per_sec: PerDirection<Option<u64>>,
    /// Report all workers of a group as one (fio `group_reporting`).
    pub group_reporting: bool,
    /// Start only when every job before it has finished; starts a new reporting group
    /// (fio `stonewall`, `wait_for_previous`).
    pub stonewall: bool,
    /// Start a new reporting group without waiting (fio `new_group`).
    pub new_group: bool,
    /// Wait this long after the run starts before this job starts, ns (fio `startdelay`).
    pub startdelay_ns: u64,
    /// The same random sequence every run (fio `randrepeat`, default on); off mixes the
    /// start time into the seed.
    pub randrepeat: bool,
    /// Drop the file's pages from the page cache before a buffered job (fio `invalidate`).
    pub invalidate: bool,
    /// Open for synchronous writes: `O_SYNC` or `O_DSYNC` (fio `sync`).
    pub sync: SyncMode,
    /// Report completion-latency percentiles (fio `clat_percentiles`, default on).
    pub clat_percentiles: bool,
    /// Report total-latency percentiles in fio's JSON too (fio `lat_percentiles`, default off;
    /// diskmeter's own output always has them).
    pub lat_percentiles: bool,
    /// `size=N%`: the region is this share of each existing file or device (then
    /// `size_bytes` is unset).
    pub size_percent: Option<f64>,
    /// `offset=N%`: the region starts at this share of each existing file or device, added
    /// to `offset_bytes`.
    pub offset_percent: Option<f64>,
    /// Each clone's region starts this much after the previous clone's (fio
    /// `offset_increment`: clone `k` starts at `offset + k x offset_increment`).
    pub offset_increment_bytes: u64,
    /// Rate-limited IOs arrive as a Poisson process (exponential gaps with the rate's mean)
    /// instead of at fixed intervals (fio `rate_process=poisson`).
    pub rate_poisson: bool,
    /// Seed of the offset and mix generators (fio `randseed=`).
    pub randseed: u64,
    /// Pick random offsets uniformly with repeats instead of covering every block once per pass (fio `norandommap`).
    pub norandommap: bool,
    /// Share of a random job's IOs that go to a random offset, 0-100; the others continue
    /// sequentially from the previous IO (fio `percentage_random`, DiskSpd `-rs`).
    pub percentage_random: u8,
    /// Remove the test files diskmeter created when the job ends (fio `unlink=`; diskmeter defaults to 1).
    pub unlink: bool,
    /// Register the IO buffers with the kernel (io_uring `fixedbufs`).
    pub fixedbufs: bool,
    /// Register the files with the kernel (io_uring `registerfiles`).
    pub registerfiles: bool,
    /// CPUs the workers may run on (fio `cpus_allowed=`); `None` = any.
    pub cpus_allowed: Option<Vec<usize>>,
    /// Fill write buffers with zeros instead of incompressible random data (fio `zero_buffers`).
    pub zero_buffers: bool,
    /// Percentiles to report, in percent (fio `percentile_list=`).
    pub percentile_list: Vec<f64>,
    /// How IO sizes vary per direction (fio `bsrange`, `bssplit`); `Fixed` = `bs_bytes`.
    #[serde(default)]
    pub bs_spread: PerDirection<BlockSizeSpread>,
    /// Sizes from a range need not be multiples of its minimum (fio `blocksize_unaligned`).
    #[serde(default)]
    pub blocksize_unaligned: bool,
    /// Random offsets fall on multiples of this, per direction (fio `blockalign`); `None` =
    /// the direction's smallest block size.
    #[serde(default)]
    pub blockalign_bytes: PerDirection<Option<u64>>,
    /// fio's `rw=...:N` suffix: a random job takes a new random offset every N IOs
    /// (sequential in between); a sequential job skips N bytes after each IO, or with a
    /// negative N (`rw=read:-8k`) moves back |N| bytes from the end of each IO, i.e. runs
    /// backwards. 0 = none.
    #[serde(default)]
    pub rw_offset_modifier: i64,
    /// How random offsets are spread (fio `random_distribution`).
    #[serde(default)]
    pub random_distribution: RandomDistribution,
    /// fsync(2) the file after every N writes (fio `fsync`); 0 = never.
    #[serde(default)]
    pub fsync_every: u32,
    /// fdatasync(2) the file after every N writes (fio `fdatasync`); 0 = never.
    #[serde(default)]
    pub fdatasync_every: u32,
    /// fsync(2) every file when a writing job ends (fio `end_fsync`).
    #[serde(default)]
    pub end_fsync: bool,
    /// The job fails if a direction's bandwidth over a `rate_cycle` falls below this, bytes
    /// per second (fio `rate_min`).
    #[serde(default)]
    pub rate_min_bytes_per_sec: PerDirection<Option<u64>>,
    /// The window `rate_min` is checked over, ns (fio `rate_cycle`, 1000 ms).
    #[serde(default = "default_rate_cycle_ns")]
    pub rate_cycle_ns: u64,
    /// Size of each file diskmeter creates, or a range to draw each file's size from
    /// (fio `filesize`); then `size` only bounds the IO done.
    #[serde(default)]
    pub filesize_bytes: Option<(u64, u64)>,
    /// Create the job's files when it starts instead of before the run (fio `create_on_open`).
    #[serde(default)]
    pub create_on_open: bool,
    /// Write buffers compress to about this share: each chunk is random data then zeros
    /// (fio `buffer_compress_percentage`).
    #[serde(default)]
    pub buffer_compress_percentage: Option<u8>,
    /// The chunk `buffer_compress_percentage` repeats over, bytes (fio `buffer_compress_chunk`,
    /// 512; 0 = the whole block).
    #[serde(default = "default_compress_chunk")]
    pub buffer_compress_chunk_bytes: u64,
    /// Write until the filesystem is full; ENOSPC ends the job normally (fio `fill_device`).
    #[serde(default)]
    pub fill_device: bool,
    /// Allow writes to a mounted device (fio `allow_mounted_write`); diskmeter still asks for
    /// `--allow-destroy` before overwriting a filesystem signature.
    #[serde(default)]
    pub allow_mounted_write: bool,
    /// Keep the load running this long after the measured period, not counted (DiskSpd `-C`).
    #[serde(default)]
    pub cooldown_ns: u64,
    /// All clones of the job share one sequential position (DiskSpd `-si`).
    #[serde(default)]
    pub shared_sequential: bool,
    /// `size_bytes` is at most how much of a target IO covers (DiskSpd `-f`, `<MaxFileSize>`):
    /// on an existing file or device that ends sooner, the region ends at its end and the
    /// file is used as it is, never laid out larger (fio's `size` lays it out larger).
    #[serde(default)]
    pub size_capped_by_target: bool,
    /// Length of each sample of the job's per-interval series (the result's `series`), ms;
    /// 1,000 (per second) unless a front-end asks otherwise (DiskSpd `-D<ms>`). Not a fio
    /// option: fio's `iopsavgtime`/`bwavgtime` (500 ms, one window each) only shape fio's
    /// sample statistics, and diskmeter keeps its series per second for fio jobs.
    #[serde(default = "default_series_interval_ms")]
    pub series_interval_ms: u32,
    /// How unit prefixes in this job's later size and count options are read (fio `kb_base=`):
    /// `k` = 1024 by default, 1000 with `kb_base=1000`. Kept so job copies parse alike.
    #[serde(default)]
    pub kb_base: KbBase,
    /// Write fio's bandwidth log to `PREFIX_bw.N.log` (fio `write_bw_log=PREFIX`); an empty
    /// prefix (the option without a value) means the job's name. `None` = no log.
    #[serde(default)]
    pub write_bw_log: Option<String>,
    /// Write fio's IOPS log to `PREFIX_iops.N.log` (fio `write_iops_log`); prefix as for
    /// `write_bw_log`.
    #[serde(default)]
    pub write_iops_log: Option<String>,
    /// Write fio's latency logs to `PREFIX_lat.N.log`, `PREFIX_clat.N.log` and
    /// `PREFIX_slat.N.log` (fio `write_lat_log`); prefix as for `write_bw_log`.
    #[serde(default)]
    pub write_lat_log: Option<String>,
    /// Log windows, ms: 0 = one line per IO, N = one line per N ms and direction with the
    /// window's average (fio `log_avg_msec`).
    #[serde(default)]
    pub log_avg_msec: u32,
    /// Add each IO's offset as a column of the logs (fio `log_offset`).
    #[serde(default)]
    pub log_offset: bool,
    /// Number the log files by worker (`PREFIX_bw.N.log`); off, every worker of every job
    /// with the same prefix appends to `PREFIX_bw.log` (fio `per_job_logs`, default on).
    #[serde(default = "default_per_job_logs")]
    pub per_job_logs: bool,
    /// Steady-state detection: end the job once its per-second IOPS or bandwidth settle
    /// (fio `steadystate`, `steadystate_duration`, `steadystate_ramp_time`); off by default.
    #[serde(default)]
    pub steadystate: crate::steady::SteadyState,
    /// Replaying a trace and recording one (fio `read_iolog`, `write_iolog`, `replay_*`).
    #[serde(default)]
    pub iolog: crate::iolog::IologOptions,
    /// Free text describing the job, kept in the results and the history (fio `description`).
    #[serde(default)]
    pub description: Option<String>,
    /// How the job's files are named, created and opened, and what its buffers hold.
    #[serde(default)]
    pub files: crate::files::FileOptions,
    /// Think time, IO counts, latency targets, flow and the rules that end or wait for jobs.
    #[serde(default)]
    pub control: crate::control::ControlOptions,
    /// Trim IO and the IO-error policy.
    #[serde(default)]
    pub trim: crate::trim::TrimOptions,
    /// Data verification (fio `verify` and its family).
    #[serde(default)]
    pub verify: crate::verify::VerifyOptions,
    /// CPU, NUMA, priorities, engine options, pre/post commands and reporting options.
    #[serde(default)]
    pub system: crate::system::SystemOptions,
    /// fio options accepted for compatibility that do not change the IO (reporting, clock,
    /// random generator name); `crate::fio_reading_notes` says what each means here.
    #[serde(default)]
    pub compat: crate::compat::CompatOptions,
    /// The options as the user typed them, for fio's `"job options"` and `"global options"`;
    /// `None` when the job did not come from fio options (DiskSpd, Iometer, diskmeter's own
    /// commands), and then the resolved options stand in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<crate::given::GivenOptions>,
}

/// serde's default for `per_job_logs` missing from an older record: its row's default.
fn default_per_job_logs() -> bool {
    JobSpec::default().per_job_logs
}

/// fio's default percentile list (`percentile_list`).
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

impl Default for JobSpec {
    /// diskmeter's defaults: every option row's default (`[default: ...]` in `--help`)
    /// applied to a blank job (`JobSpec::blank`). They are fio's, except `unlink` (diskmeter
    /// removes what it creates) and `ioengine` (io_uring).
    fn default() -> Self {
        crate::options::default_job().clone()
    }
}

impl JobSpec {
    /// Every field an option row sets holds a placeholder (zero, empty, unset; an enum with
    /// no `Default` of its own, any variant), which [`crate::JobSpec::default`] replaces with
    /// the row's default; the other fields hold their defaults here.
    pub(crate) fn blank() -> Self {
        JobSpec {
            name: String::new(),
            filenames: Vec::new(),
            directory: None,
            nrfiles: 0,
            size_bytes: None,
            io_size_bytes: None,
            offset_bytes: 0,
            rw: RwMode::Read,
            rwmixread: 0,
            bs_bytes: Default::default(),
            iodepth: 0,
            iodepth_batch_submit: 0,
            iodepth_batch_complete_min: 0,
            numjobs: 0,
            runtime_ns: None,
            time_based: false,
            ramp_time_ns: 0,
            loops: 0,
            direct: false,
            ioengine: EngineKind::IoUring,
            rate_iops: Default::default(),
            rate_bytes_per_sec: Default::default(),
            group_reporting: false,
            stonewall: false,
            new_group: false,
            startdelay_ns: 0,
            randrepeat: false,
            invalidate: false,
            sync: Default::default(),
            rate_poisson: false,
            offset_increment_bytes: 0,
            size_percent: None,
            offset_percent: None,
            clat_percentiles: false,
            lat_percentiles: false,
            randseed: 0,
            norandommap: false,
            percentage_random: 0,
            unlink: false,
            fixedbufs: false,
            registerfiles: false,
            cpus_allowed: None,
            zero_buffers: false,
            percentile_list: Vec::new(),
            kb_base: Default::default(),
            bs_spread: Default::default(),
            blocksize_unaligned: false,
            blockalign_bytes: Default::default(),
            rw_offset_modifier: 0,
            random_distribution: Default::default(),
            fsync_every: 0,
            fdatasync_every: 0,
            end_fsync: false,
            rate_min_bytes_per_sec: Default::default(),
            rate_cycle_ns: 0,
            filesize_bytes: None,
            create_on_open: false,
            buffer_compress_percentage: None,
            buffer_compress_chunk_bytes: 0,
            fill_device: false,
            allow_mounted_write: false,
            cooldown_ns: 0,
            shared_sequential: false,
            size_capped_by_target: false,
            series_interval_ms: DEFAULT_SERIES_INTERVAL_MS,
            write_bw_log: None,
            write_iops_log: None,
            write_lat_log: None,
            log_avg_msec: 0,
            log_offset: false,
            per_job_logs: false,
            steadystate: crate::steady::SteadyState::blank(),
            iolog: crate::iolog::IologOptions::blank(),
            description: None,
            files: crate::files::FileOptions::blank(),
            control: crate::control::ControlOptions::blank(),
            trim: Default::default(),
            verify: crate::verify::VerifyOptions::blank(),
            system: crate::system::SystemOptions::blank(),
            compat: Default::default(),
            given: None,
        }
    }
}

impl JobSpec {
    /// The job `diskmeter run` runs with no options: 4 KiB random reads at QD 32 on a 1 GiB file
    /// in the current folder for 10 seconds, direct IO.
    pub fn newcomer_default() -> JobSpec {
        JobSpec {
            name: "diskmeter-default".to_string(),
            rw: RwMode::RandRead,
            iodepth: 32,
            size_bytes: Some(1 << 30),
            runtime_ns: Some(10_000_000_000),
            time_based: true,
            direct: true,
            ..JobSpec::default()
        }
    }

    /// The defaults of a job in an fio job file: fio's own, so a file means what it means to
    /// fio. They differ from [`JobSpec::default`] (diskmeter's, for its own commands) in
    /// `ioengine` (fio: psync, one IO at a time, whatever `iodepth` says) and `unlink` (fio: 0,
    /// the files stay).
    pub fn fio_job_file_default() -> JobSpec {
        JobSpec {
            ioengine: EngineKind::Psync,
            unlink: false,
            ..JobSpec::default()
        }
    }

    /// The smallest and largest block size of `direction` (from `bs`, `bsrange` or `bssplit`).
    pub fn bs_bounds(&self, direction: Direction) -> (u64, u64) {
        self.bs_spread
            .get_ref(direction)
            .bounds(self.bs_bytes.get(direction))
    }

    /// The largest block size the job uses in any direction it issues.
    pub fn max_bs_bytes(&self) -> u64 {
        let mut max = 0;
        if self.rw.reads() {
            max = max.max(self.bs_bounds(Direction::Read).1);
        }
        if self.rw.writes() {
            max = max.max(self.bs_bounds(Direction::Write).1);
        }
        max
    }

    /// Whether the job issues syncs (fsync, fdatasync or end_fsync) that the stats count.
    pub fn syncs(&self) -> bool {
        self.rw.writes()
            && (self.fsync_every > 0
                || self.fdatasync_every > 0
                || self.end_fsync
                || self.files.sync_file_range.is_some())
    }
}

/// serde's default for `rate_cycle_ns` missing from an older record: its row's default.
fn default_rate_cycle_ns() -> u64 {
    JobSpec::default().rate_cycle_ns
}

/// serde's default for `buffer_compress_chunk_bytes` missing from an older record: its row's
/// default.
fn default_compress_chunk() -> u64 {
    JobSpec::default().buffer_compress_chunk_bytes
}

/// The per-interval series' sample length unless a front-end sets one: a second, as fio's
/// logs and every per-second chart.
pub const DEFAULT_SERIES_INTERVAL_MS: u32 = 1000;

fn default_series_interval_ms() -> u32 {
    DEFAULT_SERIES_INTERVAL_MS
}
