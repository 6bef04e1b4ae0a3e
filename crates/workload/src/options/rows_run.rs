//! The rows of the options that say how a job runs (fio's runtime, IO type, engine, rate,
//! reporting, random, sync, file-creation, buffer and latency-statistics options): time
//! limits and loops, caching and engine, rate caps, reporting groups and ordering, random
//! sequence, syncs, file handling, CPUs, buffer contents and latency percentiles.
//! `ioengine` defaults to io_uring, `unlink` to 1 and `randseed` to diskmeter's own seed.
//!
//! Names, aliases and defaults are fio's (HOWTO "Job file parameters"), except where the help
//! says "diskmeter"; job files start from fio's own defaults instead
//! (`JobSpec::fio_job_file_default`: psync, unlink=0). The groups' order (`GROUPS` in
//! `mod.rs`) and the rows' order in each are the order `--help` and `describe` list them.
//!
//! The rows' options with logic of their own have their setter (`set_*`) and shower
//! (`show_*`) below the rows, with the conventions of `setters.rs`.

use super::convert::{choice, flag, mismatch};
use super::error::InvalidValue;
use super::limits::{Limits, Range};
use super::pattern_setters::*;
use super::shape::plain;
use super::value::Value;
use super::{Category, OptionDef, OptionKind};
use crate::{EngineKind, JobSpec, SyncMode};

/// `ioengine=` names diskmeter implements (`sync`, `vsync`, `pvsync` and `pvsync2` run as
/// psync, `posixaio` as io_uring).
const ENGINE_CHOICES: &[&str] = &[
    "io_uring", "libaio", "psync", "pvsync", "pvsync2", "sync", "vsync", "posixaio", "null",
];

/// `rate_process=` values.
const RATE_PROCESS_CHOICES: &[&str] = &["linear", "poisson"];

/// How the job runs.
pub(super) static ROWS: &[OptionDef] = &[
    plain!(
        "runtime" | "timeout" => runtime_ns: TimeLimit,
        category Timing,
        default "", unit "s",
        help "Time limit after ramp_time; seconds unless a unit is given (500ms, 2m = 2 \
              minutes); unset or 0 = no limit",
    ),
    plain!(
        "time_based" => time_based: Flag,
        category Timing,
        default "0",
        help "Keep going for the whole runtime even when size has been covered (needs runtime)",
    ),
    plain!(
        "ramp_time" => ramp_time_ns: Time,
        category Timing,
        default "0", unit "s",
        help "Warm-up before measuring; its IOs are not counted and it adds to the run time",
    ),
    plain!(
        "loops" => loops: Count,
        category Timing,
        default "1", unit "passes",
        limits Limits::at_least(1),
        help "Passes over the region for size-based jobs",
    ),
    plain!(
        "direct" => direct: Flag,
        category Engine,
        default "0",
        help "1 = O_DIRECT, bypassing the page cache (what disk benchmarks usually want)",
    ),
    OptionDef {
        name: "buffered",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Flag,
        default: "1",
        unit: "",
        help: "The inverse of direct: 1 = through the page cache",
        limits: None,
        set: set_buffered,
        show: None,
    },
    OptionDef {
        name: "ioengine",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Choice(ENGINE_CHOICES),
        default: "io_uring",
        unit: "",
        help: "How IO is issued: io_uring (diskmeter's default; job files default to fio's \
               psync), libaio, psync (sync, vsync, pvsync and pvsync2 run as psync), posixaio \
               (runs as io_uring) or null (no IO; measures diskmeter itself)",
        limits: None,
        set: set_ioengine,
        show: Some(show_ioengine),
    },
    plain!(
        "rate" => rate_bytes_per_sec: SizeCap,
        category Rates,
        default "", unit "bytes/s",
        help "Bandwidth cap per worker: 100m for both directions, 100m,20m for read,write; \
              0 or unset = no cap",
    ),
    plain!(
        "rate_iops" => rate_iops: IntCap,
        category Rates,
        default "", unit "IOPS",
        help "IOPS cap per worker: 3200 for both directions, 5000,3200 for read,write; 0 or \
              unset = no cap; not together with rate for the same direction",
    ),
    OptionDef {
        name: "rate_process",
        category: Category::Rates,
        aliases: &[],
        kind: OptionKind::Choice(RATE_PROCESS_CHOICES),
        default: "linear",
        unit: "",
        help: "How rate-limited IOs are spaced: linear (fixed intervals) or poisson (random \
               exponential gaps with the same mean, like independent requests arriving)",
        limits: None,
        set: set_rate_process,
        show: Some(show_rate_process),
    },
    plain!(
        "group_reporting" => group_reporting: Flag,
        category Output,
        default "0",
        help "Report all workers of a job (its numjobs clones) as one",
    ),
    plain!(
        "stonewall" | "wait_for_previous" => stonewall: Flag,
        category Timing,
        default "0",
        help "Start this job only when every job before it has finished; it also starts a new \
              reporting group",
    ),
    plain!(
        "new_group" => new_group: Flag,
        category Output,
        default "0",
        help "Start a new reporting group with this job (it still runs alongside the others)",
    ),
    plain!(
        "startdelay" => startdelay_ns: Time,
        category Timing,
        default "0", unit "s",
        help "Wait this long after the run (or the job's stonewall phase) starts before starting the job",
    ),
    plain!(
        "randrepeat" => randrepeat: Flag,
        category Workload,
        default "1",
        help "Repeat the same random sequence every run (0: mix the start time into the seed)",
    ),
    plain!(
        "invalidate" => invalidate: Flag,
        category Files,
        default "1",
        help "Drop the files' pages from the page cache before a buffered job, so reads reach the device",
    ),
    plain!(
        "sync" => sync: Choice<SyncMode>,
        category Engine,
        default "none",
        help "Synchronous writes: 1/sync opens with O_SYNC, dsync with O_DSYNC, 0/none plain",
    ),
    OptionDef {
        name: "thread",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Flag,
        default: "1",
        unit: "",
        help: "Accepted for fio job files: diskmeter always runs workers as threads",
        limits: None,
        set: set_always_so,
        show: None,
    },
    OptionDef {
        name: "refill_buffers",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Flag,
        default: "1",
        unit: "",
        help: "Accepted for fio job files: diskmeter always makes every written buffer unique \
               (random data, stamped per write), so deduplication and compression gain nothing",
        limits: None,
        set: set_always_so,
        show: None,
    },
    plain!(
        "randseed" => randseed: Int,
        category Workload,
        default "0x123456789abcdef",
        help "Seed of the random offsets and read/write mix (diskmeter's default seed), so \
              runs repeat",
    ),
    plain!(
        "norandommap" => norandommap: Flag,
        category Workload,
        default "0",
        help "Pick random offsets with repeats instead of covering every block once per pass",
    ),
    plain!(
        "percentage_random" => percentage_random: Percent,
        category Workload,
        default "100", unit "%",
        limits Limits {
            range: Range::Percent {
                min: 0.0,
                max: 100.0,
                whole: true,
            },
            why: "",
        },
        help "Share of a random job's IOs at random offsets; the rest continue \
              sequentially from the previous IO (0 = sequential)",
    ),
    plain!(
        "unlink" => unlink: Flag,
        category Files,
        default "1",
        help "Remove the files diskmeter created when the job ends (diskmeter's default is 1)",
    ),
    plain!(
        "fixedbufs" => fixedbufs: Flag,
        category Engine,
        default "0",
        help "Register the IO buffers with the kernel once (io_uring only)",
    ),
    plain!(
        "registerfiles" => registerfiles: Flag,
        category Engine,
        default "0",
        help "Register the files with the kernel once (io_uring only)",
    ),
    plain!(
        "cpus_allowed" => cpus_allowed: Cpus,
        category Engine,
        default "", unit "CPUs",
        help "CPUs the workers may run on, e.g. 0-3,6; unset = any",
    ),
    plain!(
        "zero_buffers" => zero_buffers: Flag,
        category Files,
        default "0",
        help "Write zeros instead of incompressible random data (flatters compressing or \
              deduplicating storage)",
    ),
    OptionDef {
        name: "random_distribution",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::Str,
        default: "random",
        unit: "",
        help: "Random offsets: random (uniform), zipf:THETA, pareto:H or normal:DEV%, each with an optional :CENTER (0-1), or zoned:ACCESS%/SIZE%:... (zones from the region's start)",
        limits: None,
        set: set_random_distribution,
        show: Some(show_random_distribution),
    },
    plain!(
        "fsync" => fsync_every: Count,
        category Engine,
        default "0", unit "writes",
        help "fsync(2) the file after every N writes, timed as sync IOs; 0 = never",
    ),
    plain!(
        "fdatasync" => fdatasync_every: Count,
        category Engine,
        default "0", unit "writes",
        help "fdatasync(2) the file after every N writes, timed as sync IOs; 0 = never",
    ),
    plain!(
        "end_fsync" => end_fsync: Flag,
        category Engine,
        default "0",
        help "fsync(2) each file when a writing job ends (counted as a sync IO)",
    ),
    plain!(
        "rate_min" | "ratemin" => rate_min_bytes_per_sec: SizeCap,
        category Rates,
        default "", unit "bytes/s",
        help "The job fails if a direction's bandwidth over a rate_cycle falls below this",
    ),
    OptionDef {
        name: "rate_cycle",
        category: Category::Rates,
        aliases: &["ratecycle"],
        kind: OptionKind::Int,
        default: "1000",
        unit: "ms",
        help: "Window over which rate_min is checked",
        limits: Some(Limits::at_least(1)),
        set: set_rate_cycle,
        show: Some(show_rate_cycle),
    },
    OptionDef {
        name: "filesize",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "bytes",
        help: "Size of each file the job creates, or a range (1m-4m) each file's size is drawn from; size then only caps the IO",
        limits: None,
        set: set_filesize,
        show: Some(show_filesize),
    },
    plain!(
        "create_on_open" => create_on_open: Flag,
        category Files,
        default "0",
        help "Create the files when the job starts instead of before the run",
    ),
    plain!(
        "fill_device" | "fill_fs" => fill_device: Flag,
        category Files,
        default "0",
        help "Sequential writes until the filesystem is full; ENOSPC ends the job normally",
    ),
    plain!(
        "allow_mounted_write" => allow_mounted_write: Flag,
        category Files,
        default "0",
        help "Let a job write to a mounted device (diskmeter still wants --allow-destroy over a filesystem)",
    ),
    OptionDef {
        name: "buffer_compress_percentage",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "%",
        help: "Write buffers compress by about this much: each chunk is random data followed by zeros",
        limits: Some(Limits {
            range: Range::Int {
                min: 0,
                max: Some(100),
            },
            why: "",
        }),
        set: set_buffer_compress_percentage,
        show: Some(show_buffer_compress_percentage),
    },
    plain!(
        "buffer_compress_chunk" => buffer_compress_chunk_bytes: Bytes,
        category Files,
        default "512", unit "bytes",
        help "The chunk buffer_compress_percentage repeats over; 0 = the whole block",
    ),
    plain!(
        "clat_percentiles" => clat_percentiles: Flag,
        category Output,
        default "1",
        help "List completion-latency percentiles in fio-json (clat_ns.percentile)",
    ),
    plain!(
        "lat_percentiles" => lat_percentiles: Flag,
        category Output,
        default "0",
        help "Also list total-latency percentiles in fio-json (lat_ns.percentile); diskmeter's \
              own output always has them",
    ),
    plain!(
        "percentile_list" => percentile_list: Floats,
        category Output,
        default "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99", unit "%",
        limits Limits {
            range: Range::List {
                max_items: 20,
                min: 0.0,
                max: 100.0,
                item: "percentile",
            },
            why: "fio's limit, FIO_IO_U_LIST_MAX_LEN",
        },
        help "Latency percentiles to report, separated by ':'",
    ),
];

// ---- setters and showers of the options above with logic of their own ----------------

pub(crate) fn set_buffered(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.direct = !flag(value)?;
    Ok(())
}

pub(crate) fn set_ioengine(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let choice = choice(value)?;
    spec.ioengine = EngineKind::parse(choice).ok_or_else(|| mismatch(&Value::Choice(choice)))?;
    // Kept so the plan can say that `posixaio` runs as io_uring (and `vsync` as psync).
    spec.compat.ioengine_as_written = (choice != spec.ioengine.as_str()
        && !matches!(choice, "sync" | "pvsync"))
    .then(|| choice.to_string());
    Ok(())
}

pub(crate) fn show_ioengine(spec: &JobSpec) -> Option<String> {
    Some(spec.ioengine.as_str().to_string())
}

/// Options that state what diskmeter always does (`thread`: workers are threads;
/// `refill_buffers`: every write is made unique anyway): the value is checked, nothing changes.
pub(crate) fn set_always_so(_spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    flag(value).map(|_| ())
}

pub(crate) fn set_rate_process(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.rate_poisson = choice(value)? == "poisson";
    Ok(())
}

pub(crate) fn show_rate_process(spec: &JobSpec) -> Option<String> {
    Some(
        if spec.rate_poisson {
            "poisson"
        } else {
            "linear"
        }
        .to_string(),
    )
}
