//! Tests of the pattern, sync, rate_min, file, buffer and log options (one per option, as
//! in `tests.rs`).

use super::tests::{read_as_fio, refused, with};
use crate::{
    BlockSizeShare, BlockSizeSpread, Direction, JobSpec, PerDirection, RandomDistribution, RwMode,
};

// ---- pattern, sync, rate_min, files and buffers -----------------------------------------

#[test]
fn rw_offset_modifier() {
    let random = with(&[("rw", Some("randread:8"))]);
    assert_eq!(
        (random.rw, random.rw_offset_modifier),
        (RwMode::RandRead, 8)
    );
    let holes = with(&[("rw", Some("write:4k"))]);
    assert_eq!((holes.rw, holes.rw_offset_modifier), (RwMode::Write, 4096));
    assert_eq!(describe_value(&holes, "rw"), "write:4k");
    assert_eq!(describe_value(&random, "rw"), "randread:8");
    assert_eq!(read_as_fio("rw", "randread:x").0.rw_offset_modifier, 0);
    let backwards = with(&[("rw", Some("read:-8k"))]);
    assert_eq!(
        (backwards.rw, backwards.rw_offset_modifier),
        (RwMode::Read, -8192)
    );
    assert_eq!(describe_value(&backwards, "rw"), "read:-8k");
    assert!(refused("rw", Some("randread:-8")).contains("only to sequential IO"));
    assert!(refused("rw", Some("radnread")).contains("did you mean 'randread'"));
}

/// Issue 28: fio reads a random job's `:N` with atoi (`randread:4k` is 4 there) and a
/// sequential job's as a size under kb_base (`read:1Mi` skips 1 MiB).
#[test]
fn rw_suffix_reads_as_fio_reads_it() {
    let (fio, note) = read_as_fio("rw", "randread:4k");
    assert_eq!(fio.rw_offset_modifier, 4);
    assert_eq!(
        note,
        "rw=randread:4k: read as fio 3.33 reads it, 4 (fio reads a random job's count with \
         atoi: the leading digits, no unit); write 4096 for 4k"
    );
    assert_eq!(read_as_fio("rw", "randwrite:0x10").0.rw_offset_modifier, 0);
    let (fio, note) = read_as_fio("rw", "write:1.5m");
    assert_eq!(fio.rw_offset_modifier, 1);
    assert!(note.ends_with("write 1536k for 1.5m)"), "{note}");
    assert_eq!(with(&[("rw", Some("randrw:+16"))]).rw_offset_modifier, 16);
    assert_eq!(
        with(&[("rw", Some("read:1Mi"))]).rw_offset_modifier,
        1 << 20
    );
    assert_eq!(
        with(&[("kb_base", Some("1000")), ("rw", Some("write:1MiB"))]).rw_offset_modifier,
        1 << 20
    );
}

#[test]
fn bsrange() {
    let job = with(&[("bsrange", Some("1k-4k,2k-8k"))]);
    assert_eq!(
        job.bs_spread.read,
        BlockSizeSpread::Range {
            min_bytes: 1024,
            max_bytes: 4096
        }
    );
    assert_eq!(job.bs_bounds(Direction::Write), (2048, 8192));
    assert_eq!(
        job.bs_bytes,
        PerDirection {
            read: 1024,
            write: 2048
        }
    );
    // A later bs replaces the range, as in fio.
    let fixed = with(&[("blocksize_range", Some("1k-4k")), ("bs", Some("8k"))]);
    assert_eq!(fixed.bs_spread.read, BlockSizeSpread::Fixed);
    assert!(refused("bsrange", Some("0-4k")).contains("at least 1 byte"));
}

#[test]
fn bssplit() {
    let job = with(&[("bssplit", Some("2k/50:4k/50,4k/90:8k/10"))]);
    assert_eq!(
        job.bs_spread.write,
        BlockSizeSpread::Split(vec![
            BlockSizeShare {
                bytes: 4096,
                percent: 90.0
            },
            BlockSizeShare {
                bytes: 8192,
                percent: 10.0
            },
        ])
    );
    assert_eq!(job.max_bs_bytes(), 4096); // rw=read: only the read sizes matter
    assert_eq!(describe_value(&job, "bssplit"), "2k/50:4k/50,4k/90:8k/10");
    assert!(refused("bssplit", Some("4k/x")).contains("0 to 100"));
}

#[test]
fn blocksize_unaligned_and_blockalign() {
    assert!(with(&[("bs_unaligned", None)]).blocksize_unaligned);
    let job = with(&[("ba", Some("512,4k"))]);
    assert_eq!(
        job.blockalign_bytes,
        PerDirection {
            read: Some(512),
            write: Some(4096)
        }
    );
}

#[test]
fn random_distribution() {
    assert_eq!(
        with(&[("random_distribution", Some("pareto:0.2"))]).random_distribution,
        RandomDistribution::Pareto {
            h: 0.2,
            center: None
        }
    );
    assert!(refused("random_distribution", Some("zipf:1.0")).contains("not 1.0"));
    assert!(
        refused("random_distribution", Some("zoned:60/10,50/50:50/50"))
            .contains("per-direction lists are not supported")
    );
    assert_eq!(
        with(&[("random_distribution", Some("zoned_abs:60/10m:40/90m"))])
            .random_distribution
            .show(),
        "zoned_abs:60/10m:40/90m"
    );
}

#[test]
fn fsync_fdatasync_end_fsync() {
    let job = with(&[
        ("fsync", Some("32")),
        ("fdatasync", Some("8")),
        ("end_fsync", Some("1")),
        ("rw", Some("write")),
    ]);
    assert_eq!(
        (job.fsync_every, job.fdatasync_every, job.end_fsync),
        (32, 8, true)
    );
    assert!(job.syncs());
    assert!(!with(&[("end_fsync", None)]).syncs()); // a read job writes nothing to sync
}

#[test]
fn rate_min_and_rate_cycle() {
    let job = with(&[("rate_min", Some("10m")), ("rate_cycle", Some("500"))]);
    assert_eq!(job.rate_min_bytes_per_sec.read, Some(10 << 20));
    assert_eq!(job.rate_cycle_ns, 500_000_000);
    assert!(refused("rate_cycle", Some("0")).contains("at least 1"));
}

#[test]
fn filesize() {
    assert_eq!(
        with(&[("filesize", Some("1m"))]).filesize_bytes,
        Some((1 << 20, 1 << 20))
    );
    assert_eq!(
        with(&[("filesize", Some("4m-1m"))]).filesize_bytes,
        Some((1 << 20, 4 << 20))
    );
    assert!(refused("filesize", Some("0")).contains("at least 1 byte"));
    let (fio, note) = read_as_fio("filesize", "1.5m-4m");
    assert_eq!(fio.filesize_bytes, Some((1, 4 << 20)));
    assert!(note.starts_with("filesize=1.5m-4m: '1.5m' read as fio 3.33 reads it, 1 ("));
}

#[test]
fn file_creation_and_safety_flags() {
    let job = with(&[
        ("create_on_open", None),
        ("fill_fs", None),
        ("allow_mounted_write", Some("1")),
    ]);
    assert!(job.create_on_open && job.fill_device && job.allow_mounted_write);
}

#[test]
fn buffer_compress_percentage_and_chunk() {
    let job = with(&[
        ("buffer_compress_percentage", Some("50")),
        ("buffer_compress_chunk", Some("4k")),
    ]);
    assert_eq!(job.buffer_compress_percentage, Some(50));
    assert_eq!(job.buffer_compress_chunk_bytes, 4096);
    assert!(refused("buffer_compress_percentage", Some("101")).contains("0 to 100"));
}

fn describe_value(job: &JobSpec, name: &str) -> String {
    crate::describe(job)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
        .unwrap_or_default()
}

#[test]
fn write_bw_iops_and_lat_log() {
    let spec = with(&[
        ("write_bw_log", Some("results/bw")),
        ("write_iops_log", None),
        ("write_lat_log", Some("lat")),
    ]);
    assert_eq!(spec.write_bw_log.as_deref(), Some("results/bw"));
    // Without a value fio takes the job's name, which is only known when the job runs.
    assert_eq!(spec.write_iops_log.as_deref(), Some(""));
    assert_eq!(spec.write_lat_log.as_deref(), Some("lat"));
    assert_eq!(JobSpec::default().write_lat_log, None);
}

#[test]
fn log_avg_msec() {
    assert_eq!(with(&[("log_avg_msec", Some("100"))]).log_avg_msec, 100);
    assert_eq!(with(&[("log_avg_msec", Some("1k"))]).log_avg_msec, 1024);
    // An int to fio, read by its size parser: the 'm' of "ms" is mebi.
    assert_eq!(
        read_as_fio("log_avg_msec", "100ms").0.log_avg_msec,
        100 << 20
    );
    assert!(refused("log_avg_msec", None).starts_with("log_avg_msec needs a value"));
}

#[test]
fn log_offset_and_per_job_logs() {
    assert!(with(&[("log_offset", None)]).log_offset);
    assert!(!with(&[("per_job_logs", Some("0"))]).per_job_logs);
    assert!(JobSpec::default().per_job_logs);
    assert!(refused("per_job_logs", Some("no")).contains("use 1 or 0"));
}

// ---- steady state -----------------------------------------------------------------------

#[test]
fn steadystate() {
    use crate::{SteadyCriterion, SteadyLimit};
    let job = with(&[("ss", Some("iops:2%"))]);
    assert_eq!(job.steadystate.criterion, SteadyCriterion::Iops);
    assert_eq!(job.steadystate.limit, SteadyLimit::Percent(2.0));
    let job = with(&[("steadystate", Some("bw_slope:1m"))]);
    assert_eq!(job.steadystate.limit, SteadyLimit::Absolute(1_048_576.0));
    assert_eq!(describe_value(&job, "steadystate"), "bw_slope:1m");
    // Without a window the setting is kept but nothing is watched (fio's rule).
    assert!(!job.steadystate.enabled());
    assert!(refused("ss", Some("iops")).starts_with("ss=iops: give a criterion and a limit"));
    assert!(refused("ss", Some("IOPS:2%")).contains("did you mean 'iops'"));
}

#[test]
fn steadystate_duration() {
    let job = with(&[("ss_dur", Some("5"))]);
    assert_eq!(job.steadystate.duration_ns, 5_000_000_000);
    assert!(job.steadystate.enabled());
    assert_eq!(describe_value(&job, "steadystate_duration"), "5s");
    let job = with(&[("steadystate_duration", Some("1m"))]);
    assert_eq!(job.steadystate.window_samples(), 60);
    assert!(refused("ss_dur", Some("x")).starts_with("ss_dur=x:"));
}

#[test]
fn steadystate_ramp_time() {
    let job = with(&[("ss_ramp", Some("10"))]);
    assert_eq!(job.steadystate.ramp_ns, 10_000_000_000);
    assert_eq!(
        with(&[("steadystate_ramp_time", Some("500ms"))])
            .steadystate
            .ramp_ns,
        500_000_000
    );
    assert!(refused("ss_ramp", None).starts_with("ss_ramp needs a value"));
}

#[test]
fn steadystate_sample() {
    let job = with(&[("ss_sample", Some("250ms")), ("ss_dur", Some("1"))]);
    assert_eq!(job.steadystate.sample_ns, 250_000_000);
    assert_eq!(job.steadystate.window_samples(), 4);
    assert_eq!(describe_value(&job, "steadystate_sample"), "250ms");
    assert_eq!(JobSpec::default().steadystate.sample_ns, 1_000_000_000);
    assert!(refused("ss_sample", Some("fast")).starts_with("ss_sample=fast:"));
}

#[test]
fn steadystate_precision() {
    let job = with(&[("ss_precision", Some("1.5%"))]);
    assert_eq!(job.steadystate.precision_percent, Some(1.5));
    assert_eq!(describe_value(&job, "steadystate_precision"), "1.5%");
    let off = with(&[("steadystate_precision", Some("0"))]);
    assert_eq!(off.steadystate.precision_percent, None);
    assert!(refused("ss_precision", Some("150")).contains("between 0 and 100"));
}
