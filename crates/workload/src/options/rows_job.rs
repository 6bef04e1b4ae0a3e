//! The rows of the option table, in the order `--help` and `describe` list them.
//!
//! Names, aliases and defaults are fio's (HOWTO "Job file parameters"), except where the help
//! says "diskmeter": `ioengine` defaults to io_uring, `unlink` to 1, and `randseed` to
//! diskmeter's own seed. Job files start from fio's own defaults instead
//! (`JobSpec::fio_job_file_default`: psync, unlink=0).

use super::iolog_setters::*;
use super::limits::{Limits, Range, MAX_FILES_PER_RUN, MAX_WORKERS_PER_RUN};
use super::pattern_setters::*;
use super::run_setters::*;
use super::setters::*;
use super::shape::plain;
use super::steady_setters::*;
use super::{OptionDef, OptionKind};
use crate::{KbBase, SyncMode};

/// `rw=` spellings, as fio accepts them.
pub(super) const RW_CHOICES: &[&str] = &[
    "read",
    "write",
    "rw",
    "readwrite",
    "randread",
    "randwrite",
    "randrw",
    "trim",
    "randtrim",
    "trimwrite",
    "randtrimwrite",
];

/// `ioengine=` names diskmeter implements (`sync`, `vsync`, `pvsync` and `pvsync2` run as
/// psync, `posixaio` as io_uring).
const ENGINE_CHOICES: &[&str] = &[
    "io_uring", "libaio", "psync", "pvsync", "pvsync2", "sync", "vsync", "posixaio", "null",
];

/// `rate_process=` values.
const RATE_PROCESS_CHOICES: &[&str] = &["linear", "poisson"];

/// The core rows: targets, sizes, patterns, engines, rates, logs and steady state.
pub(super) static ROWS: &[OptionDef] = &[
    OptionDef {
        name: "name",
        aliases: &[],
        kind: OptionKind::Str,
        default: "job",
        unit: "",
        help: "Job name. On the command line each name= starts a new job that begins as a copy \
               of the options given before the first name (name=global starts a global section)",
        limits: None,
        set: set_name,
        show: Some(show_name),
    },
    plain!(
        "kb_base" => kb_base: Choice<KbBase>,
        default "1024",
        help "How sizes and counts read unit prefixes (later ones on the command line, the \
              whole section in a job file): 1024 = k (and ki) is 1024 and KiB is 1000 (fio's \
              compatibility mode); 1000 = k (and ki) is 1000 and KiB is 1024",
    ),
    OptionDef {
        name: "filename",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "path",
        help: "Files or block devices to use, separated by ':' (write \\: for a ':' in a path); \
               unset = diskmeter creates files named after the job",
        limits: None,
        set: set_filename,
        show: Some(show_filename),
    },
    OptionDef {
        name: "directory",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "path",
        help: "Folder for the files diskmeter creates when no filename is given; unset = the \
               current folder",
        limits: None,
        set: set_directory,
        show: Some(show_directory),
    },
    plain!(
        "nrfiles" | "nr_files" => nrfiles: Count,
        default "1", unit "files", limits
            Limits {
                range: Range::Int {
                    min: 1,
                    max: Some(MAX_FILES_PER_RUN),
                },
                why: "",
            }
            .because("diskmeter plans every file before the run starts"),
        help "Files per job when diskmeter names them; size is split between them",
    ),
    OptionDef {
        name: "size",
        aliases: &[],
        kind: OptionKind::SizeOrPercent,
        default: "",
        unit: "bytes",
        help: "Bytes of the region each job works on, split over its files (e.g. 1g), or a \
               percentage of each existing file or device (25%); unset = the size of the given \
               files or devices",
        limits: Some(Limits {
            range: Range::Percent {
                min: 1.0,
                max: 100.0,
                whole: false,
            },
            why: "",
        }),
        set: set_size,
        show: Some(show_size),
    },
    OptionDef {
        name: "io_size",
        aliases: &["io_limit"],
        kind: OptionKind::Size,
        default: "",
        unit: "bytes",
        help: "Bytes to transfer before the job stops, looping over the region if needed; \
               unset = size times loops",
        limits: None,
        set: set_io_size,
        show: Some(show_io_size),
    },
    OptionDef {
        name: "offset",
        aliases: &["fileoffset"],
        kind: OptionKind::SizeOrPercent,
        default: "0",
        unit: "bytes",
        help: "Start of the region inside each file or device, in bytes or as a percentage of \
               an existing file or device (aligned down to the block size)",
        limits: Some(Limits {
            range: Range::Percent {
                min: 0.0,
                max: 100.0,
                whole: false,
            },
            why: "",
        }),
        set: set_offset,
        show: Some(show_offset),
    },
    plain!(
        "offset_increment" => offset_increment_bytes: Bytes,
        default "0", unit "bytes",
        help "Clone k of a job (numjobs) starts its region at offset + k x offset_increment, \
              so clones split a file or device",
    ),
    OptionDef {
        name: "rw",
        aliases: &["readwrite"],
        kind: OptionKind::Str,
        default: "read",
        unit: "",
        help: "IO pattern: read, write, rw (mixed), randread, randwrite, randrw, trim, randtrim, \
               trimwrite or randtrimwrite (each block trimmed, then written); a :N suffix skips N \
               bytes after each sequential IO (a negative N runs backwards), or takes a new \
               random offset every N IOs",
        limits: None,
        set: set_rw,
        show: Some(show_rw),
    },
    plain!(
        "rwmixread" => rwmixread: Percent,
        default "50", unit "%", limits Limits {
            range: Range::Percent {
                min: 0.0,
                max: 100.0,
                whole: true,
            },
            why: "",
        },
        help "Share of reads in a mixed job (rw, randrw)",
    ),
    OptionDef {
        name: "rwmixwrite",
        aliases: &[],
        kind: OptionKind::Percent,
        default: "50",
        unit: "%",
        help: "Share of writes in a mixed job; sets rwmixread to 100 minus it",
        limits: Some(Limits {
            range: Range::Percent {
                min: 0.0,
                max: 100.0,
                whole: true,
            },
            why: "",
        }),
        set: set_rwmixwrite,
        show: None,
    },
    OptionDef {
        name: "bs",
        aliases: &["blocksize"],
        kind: OptionKind::SizePair,
        default: "4k",
        unit: "bytes",
        help: "Block size of each IO: 4k for both directions, 4k,64k for read,write, ,64k for \
               writes only; a multiple of 512 with direct=1",
        limits: None,
        set: set_bs,
        show: Some(show_bs),
    },
    OptionDef {
        name: "bsrange",
        aliases: &["blocksize_range"],
        kind: OptionKind::Str,
        default: "",
        unit: "bytes",
        help: "Block sizes drawn uniformly from a range, per direction: 4k-64k or 1k-4k,8k-64k; multiples of the smallest unless blocksize_unaligned",
        limits: None,
        set: set_bsrange,
        show: Some(show_bsrange),
    },
    OptionDef {
        name: "bssplit",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Weighted block sizes, per direction: 4k/10:64k/90 or 2k/50:4k/50,4k/90:8k/10; blank shares split what is left",
        limits: None,
        set: set_bssplit,
        show: Some(show_bssplit),
    },
    plain!(
        "blocksize_unaligned" | "bs_unaligned" => blocksize_unaligned: Flag,
        default "0",
        help "Sizes from bsrange may be any byte count, not only multiples of the smallest (not with direct=1)",
    ),
    plain!(
        "blockalign" | "ba" => blockalign_bytes: SizeCap,
        default "", unit "bytes",
        help "Random offsets fall on multiples of this, per direction (default: the smallest block size)",
    ),
    plain!(
        "iodepth" => iodepth: Count,
        default "1", unit "IOs", limits Limits {
            range: Range::Int {
                min: 1,
                max: Some(65_536),
            },
            why: "",
        },
        help "IOs kept in flight per worker; the range is diskmeter's (fio sets none), and the \
              io_uring engine also stops at its kernel ring's size",
    ),
    plain!(
        "iodepth_batch_submit" | "iodepth_batch" => iodepth_batch_submit: Count,
        default "0", unit "IOs",
        help "IOs handed to the kernel per submit call; 0 = diskmeter chooses, at most iodepth",
    ),
    plain!(
        "iodepth_batch_complete_min" | "iodepth_batch_complete" => iodepth_batch_complete_min: Count,
        default "1", unit "IOs",
        help "Fewest completions to wait for per reap call",
    ),
    plain!(
        "numjobs" => numjobs: Count,
        default "1", unit "workers", limits
            Limits {
                range: Range::Int {
                    min: 1,
                    max: Some(MAX_WORKERS_PER_RUN),
                },
                why: "",
            }
            .because("fio runs at most 4,096 jobs in all"),
        help "Identical workers (clones) running this job",
    ),
    plain!(
        "runtime" | "timeout" => runtime_ns: TimeLimit,
        default "", unit "s",
        help "Time limit after ramp_time; seconds unless a unit is given (500ms, 2m = 2 \
              minutes); unset or 0 = no limit",
    ),
    plain!(
        "time_based" => time_based: Flag,
        default "0",
        help "Keep going for the whole runtime even when size has been covered (needs runtime)",
    ),
    plain!(
        "ramp_time" => ramp_time_ns: Time,
        default "0", unit "s",
        help "Warm-up before measuring; its IOs are not counted and it adds to the run time",
    ),
    plain!(
        "loops" => loops: Count,
        default "1", unit "passes", limits Limits::at_least(1),
        help "Passes over the region for size-based jobs",
    ),
    plain!(
        "direct" => direct: Flag,
        default "0",
        help "1 = O_DIRECT, bypassing the page cache (what disk benchmarks usually want)",
    ),
    OptionDef {
        name: "buffered",
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
        default "", unit "bytes/s",
        help "Bandwidth cap per worker: 100m for both directions, 100m,20m for read,write; \
              0 or unset = no cap",
    ),
    plain!(
        "rate_iops" => rate_iops: IntCap,
        default "", unit "IOPS",
        help "IOPS cap per worker: 3200 for both directions, 5000,3200 for read,write; 0 or \
              unset = no cap; not together with rate for the same direction",
    ),
    OptionDef {
        name: "rate_process",
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
        default "0",
        help "Report all workers of a job (its numjobs clones) as one",
    ),
    plain!(
        "stonewall" | "wait_for_previous" => stonewall: Flag,
        default "0",
        help "Start this job only when every job before it has finished; it also starts a new \
              reporting group",
    ),
    plain!(
        "new_group" => new_group: Flag,
        default "0",
        help "Start a new reporting group with this job (it still runs alongside the others)",
    ),
    plain!(
        "startdelay" => startdelay_ns: Time,
        default "0", unit "s",
        help "Wait this long after the run (or the job's stonewall phase) starts before starting the job",
    ),
    plain!(
        "randrepeat" => randrepeat: Flag,
        default "1",
        help "Repeat the same random sequence every run (0: mix the start time into the seed)",
    ),
    plain!(
        "invalidate" => invalidate: Flag,
        default "1",
        help "Drop the files' pages from the page cache before a buffered job, so reads reach the device",
    ),
    plain!(
        "sync" => sync: Choice<SyncMode>,
        default "none",
        help "Synchronous writes: 1/sync opens with O_SYNC, dsync with O_DSYNC, 0/none plain",
    ),
    OptionDef {
        name: "thread",
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
        default "0x123456789abcdef",
        help "Seed of the random offsets and read/write mix (diskmeter's default seed), so \
              runs repeat",
    ),
    plain!(
        "norandommap" => norandommap: Flag,
        default "0",
        help "Pick random offsets with repeats instead of covering every block once per pass",
    ),
    plain!(
        "percentage_random" => percentage_random: Percent,
        default "100", unit "%", limits Limits {
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
        default "1",
        help "Remove the files diskmeter created when the job ends (diskmeter's default is 1)",
    ),
    plain!(
        "fixedbufs" => fixedbufs: Flag,
        default "0",
        help "Register the IO buffers with the kernel once (io_uring only)",
    ),
    plain!(
        "registerfiles" => registerfiles: Flag,
        default "0",
        help "Register the files with the kernel once (io_uring only)",
    ),
    plain!(
        "cpus_allowed" => cpus_allowed: Cpus,
        default "", unit "CPUs",
        help "CPUs the workers may run on, e.g. 0-3,6; unset = any",
    ),
    plain!(
        "zero_buffers" => zero_buffers: Flag,
        default "0",
        help "Write zeros instead of incompressible random data (flatters compressing or \
              deduplicating storage)",
    ),
    OptionDef {
        name: "random_distribution",
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
        default "0", unit "writes",
        help "fsync(2) the file after every N writes, timed as sync IOs; 0 = never",
    ),
    plain!(
        "fdatasync" => fdatasync_every: Count,
        default "0", unit "writes",
        help "fdatasync(2) the file after every N writes, timed as sync IOs; 0 = never",
    ),
    plain!(
        "end_fsync" => end_fsync: Flag,
        default "0",
        help "fsync(2) each file when a writing job ends (counted as a sync IO)",
    ),
    plain!(
        "rate_min" | "ratemin" => rate_min_bytes_per_sec: SizeCap,
        default "", unit "bytes/s",
        help "The job fails if a direction's bandwidth over a rate_cycle falls below this",
    ),
    OptionDef {
        name: "rate_cycle",
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
        default "0",
        help "Create the files when the job starts instead of before the run",
    ),
    plain!(
        "fill_device" | "fill_fs" => fill_device: Flag,
        default "0",
        help "Sequential writes until the filesystem is full; ENOSPC ends the job normally",
    ),
    plain!(
        "allow_mounted_write" => allow_mounted_write: Flag,
        default "0",
        help "Let a job write to a mounted device (diskmeter still wants --allow-destroy over a filesystem)",
    ),
    OptionDef {
        name: "buffer_compress_percentage",
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
        default "512", unit "bytes",
        help "The chunk buffer_compress_percentage repeats over; 0 = the whole block",
    ),
    plain!(
        "clat_percentiles" => clat_percentiles: Flag,
        default "1",
        help "List completion-latency percentiles in fio-json (clat_ns.percentile)",
    ),
    plain!(
        "lat_percentiles" => lat_percentiles: Flag,
        default "0",
        help "Also list total-latency percentiles in fio-json (lat_ns.percentile); diskmeter's \
              own output always has them",
    ),
    plain!(
        "percentile_list" => percentile_list: Floats,
        default "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99", unit "%", limits Limits {
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
    plain!(
        "write_bw_log" => write_bw_log: MaybeOptionalText,
        default "",
        help "Write fio's bandwidth log to PREFIX_bw.N.log (N = the worker's number in the \
              run, from 1); without a value the job's name is the prefix",
    ),
    plain!(
        "write_iops_log" => write_iops_log: MaybeOptionalText,
        default "",
        help "Write fio's IOPS log to PREFIX_iops.N.log; without a value the job's name is \
              the prefix",
    ),
    plain!(
        "write_lat_log" => write_lat_log: MaybeOptionalText,
        default "",
        help "Write fio's latency logs to PREFIX_lat.N.log, PREFIX_clat.N.log and \
              PREFIX_slat.N.log (ns); without a value the job's name is the prefix",
    ),
    plain!(
        "log_avg_msec" => log_avg_msec: Count,
        default "0", unit "ms",
        help "0 = a log line per IO; N = a line per N ms window and direction with the \
              window's average (bandwidth in KiB/s, IOPS, mean latency in ns)",
    ),
    plain!(
        "log_offset" => log_offset: Flag,
        default "0",
        help "Add each IO's offset as a column of the logs (0 in averaged lines)",
    ),
    plain!(
        "per_job_logs" => per_job_logs: Flag,
        default "1",
        help "1 = one log file per worker (PREFIX_bw.N.log); 0 = workers with the same \
              prefix append to PREFIX_bw.log, across runs too (as fio)",
    ),
    OptionDef {
        name: "steadystate",
        aliases: &["ss"],
        kind: OptionKind::Str,
        default: "iops_slope:0.01%",
        unit: "",
        help: "Steady-state criterion:limit, judged once per second over the last \
               steadystate_duration: iops or bw (every sample within the limit of the mean), \
               iops_slope or bw_slope (least-squares slope within the limit), or diskmeter's \
               iops_bw (iops and bw both); the limit is N% of the mean, IOPS, or bytes/s (10m)",
        limits: None,
        set: set_steadystate,
        show: Some(show_steadystate),
    },
    plain!(
        "steadystate_duration" | "ss_dur" => steadystate.duration_ns: Time,
        default "0", unit "s",
        help "Window of steady-state detection, in whole steadystate_samples (at least one); the job stops \
              when its criterion holds over it; 0 = no detection",
    ),
    plain!(
        "steadystate_ramp_time" | "ss_ramp" => steadystate.ramp_ns: Time,
        default "0", unit "s",
        help "Time after measurement starts (after ramp_time) before steady-state samples \
              are collected",
    ),
    plain!(
        "steadystate_sample" | "ss_sample" => steadystate.sample_ns: Time,
        default "1s", unit "s", limits Limits {
            range: Range::TimeAtLeast {
                min_ns: 100_000_000,
            },
            why: "shorter samples would be mostly timer noise",
        },
        help "diskmeter's own (fio samples once per second): how often steady-state samples \
              are taken; steadystate_duration counts whole samples",
    ),
    OptionDef {
        name: "steadystate_precision",
        aliases: &["ss_precision"],
        kind: OptionKind::Percent,
        default: "0",
        unit: "%",
        help: "diskmeter's own (fio has none): steady state also needs the 95% confidence \
               interval of the mean of every sample so far (batch means) within this many \
               percent of the mean, for IOPS and/or bandwidth as the criterion judges; 0 = \
               not judged",
        limits: None,
        set: set_steadystate_precision,
        show: Some(show_steadystate_precision),
    },
    OptionDef {
        name: "read_iolog",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "path",
        help: "Replay the IOs of this fio iolog (version 2 or 3): each logged read, write and \
               sync in order, on the logged file, at the logged time; the log is read as a \
               stream (any size); a blktrace file or several logs are not supported",
        limits: None,
        set: set_read_iolog,
        show: Some(show_read_iolog),
    },
    OptionDef {
        name: "read_iolog_chunked",
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "Accepted for fio's job files; diskmeter always reads read_iolog as a stream",
        limits: None,
        set: set_read_iolog_chunked,
        show: None,
    },
    OptionDef {
        name: "write_iolog",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "path",
        help: "Write every IO the job issues (ramp included) to this file as a version 3 \
               iolog that read_iolog and fio replay; the file is replaced, not appended to",
        limits: None,
        set: set_write_iolog,
        show: Some(show_write_iolog),
    },
    plain!(
        "replay_no_stall" => iolog.replay_no_stall: Flag,
        default "0",
        help "Replay the log as fast as the queue depth allows, in its order, ignoring its \
              timestamps and waits",
    ),
    OptionDef {
        name: "replay_redirect",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "path",
        help: "Replay every logged IO onto this file or device, whatever file the log names",
        limits: None,
        set: set_replay_redirect,
        show: Some(show_replay_redirect),
    },
    OptionDef {
        name: "replay_align",
        aliases: &[],
        kind: OptionKind::Int,
        default: "0",
        unit: "bytes",
        help: "Round each replayed offset down to a multiple of this power of two (after \
               replay_scale); 0 = as logged",
        limits: None,
        set: set_replay_align,
        show: Some(show_replay_align),
    },
    plain!(
        "replay_scale" => iolog.replay_scale: Int,
        default "1",
        help "Divide each replayed offset by this (a log of a bigger device); 0 or 1 = as \
              logged",
    ),
    plain!(
        "replay_time_scale" => iolog.replay_time_scale_percent: Count,
        default "100", unit "%", limits Limits {
            range: Range::Int { min: 1, max: None },
            why: "",
        },
        help "Replay at this percentage of the log's IO rate: 50 = half as fast, 200 = \
              twice as fast",
    ),
    OptionDef {
        name: "replay_skip",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Logged actions not to replay, separated by ',': read, write, trim, sync \
               (sync also skips datasync)",
        limits: None,
        set: set_replay_skip,
        show: Some(show_replay_skip),
    },
];
