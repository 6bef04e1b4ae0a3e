//! A fixed, deterministic run used by every report test: two `group_reporting` clones of a
//! random-read job in group 0, and two separately reported clones of a rate-limited random-write
//! job in group 1, one of which failed.

use diskmeter_report::{JobInput, RunInput, RunMeta, SteadyStateInput, TargetInfo};
use diskmeter_stats::{CpuUsage, Direction, IntervalRecorder, WorkerStats};
use diskmeter_workload::{JobSpec, PerDirection, RwMode};

/// Start of the fixed run: fio printed "Mon Nov 23 14:20:08 2026" for this instant.
pub const STARTED_UNIX_MS: u64 = 1_795_443_608_000;
const SEC: u64 = 1_000_000_000;

/// The completion latency of IO `i` of a worker with `base_ns` and `seed`: spread over
/// `base_ns ..< 3 x base_ns`, so tests can work out any percentile without the report's code.
#[allow(dead_code)] // not every test crate uses it
pub fn clat_ns(i: u64, base_ns: u64, seed: u64) -> u64 {
    base_ns + (i * 7_919 + seed * 13) % (base_ns * 2)
}

/// One worker doing `ios` IOs of `bs` bytes evenly over `runtime_ns`, latencies from a fixed
/// formula, so every figure of the report is reproducible.
fn worker(
    direction: Direction,
    ios: u64,
    bs: u64,
    runtime_ns: u64,
    base_ns: u64,
    seed: u64,
) -> WorkerStats {
    let mut stats = WorkerStats::new();
    let mut series = IntervalRecorder::new(SEC);
    for i in 0..ios {
        let slat = 500 + (i * 31 + seed) % 1_500;
        let clat = clat_ns(i, base_ns, seed);
        let now = i * runtime_ns / ios;
        stats.direction_mut(direction).record_io(bs, slat, clat);
        series.record(direction, bs, slat + clat, now);
        stats.depth.record(32);
        stats.depth.record_submit(if i % 4 == 0 { 1 } else { 8 });
        stats.depth.record_complete(8);
        if direction == Direction::Write {
            // Rate-limited: the intended issue time is a little earlier than the real one.
            stats
                .write
                .lat_intended
                .record(slat + clat + (i % 10) * 1_000);
        }
    }
    stats.series = series.finish(runtime_ns);
    stats.runtime_ns = runtime_ns;
    stats.cpu = CpuUsage {
        user_ns: runtime_ns / 20,
        sys_ns: runtime_ns / 4,
        voluntary_ctx: ios / 2,
        involuntary_ctx: 7,
    };
    stats
}

fn target(path: &str) -> TargetInfo {
    TargetInfo {
        path: path.to_string(),
        kind: "file".to_string(),
        size_bytes: 1 << 30,
    }
}

/// The fixed run; `partial` sets the interrupted flag.
pub fn sample_input(partial: bool) -> RunInput {
    let reader = JobSpec {
        name: "randread-4k".to_string(),
        rw: RwMode::RandRead,
        iodepth: 32,
        numjobs: 2,
        size_bytes: Some(1 << 30),
        runtime_ns: Some(3 * SEC),
        time_based: true,
        direct: true,
        group_reporting: true,
        ..JobSpec::default()
    };
    let writer = JobSpec {
        name: "randwrite-limited".to_string(),
        rw: RwMode::RandWrite,
        bs_bytes: PerDirection::both(8192),
        iodepth: 4,
        numjobs: 2,
        rate_iops: PerDirection {
            read: None,
            write: Some(500),
        },
        ..JobSpec::default()
    };
    let mut jobs = Vec::new();
    for clone in 0..2u32 {
        jobs.push(JobInput {
            spec: reader.clone(),
            clone_index: clone,
            group_id: 0,
            stats: worker(
                Direction::Read,
                3_000,
                4096,
                3 * SEC - u64::from(clone) * 1_000_000,
                40_000,
                u64::from(clone),
            ),
            error: None,
            targets: vec![target("/data/randread-4k.0.0")],
            steady_state: None,
        });
    }
    for clone in 0..2u32 {
        jobs.push(JobInput {
            spec: writer.clone(),
            clone_index: clone,
            group_id: 1,
            stats: worker(
                Direction::Write,
                1_000,
                8192,
                2 * SEC + SEC / 2,
                800_000,
                u64::from(clone) + 5,
            ),
            error: (clone == 1)
                .then(|| "write /data/w.1.0: Input/output error (os error 5)".to_string()),
            targets: vec![target(&format!("/data/randwrite-limited.{clone}.0"))],
            steady_state: None,
        });
    }
    RunInput {
        meta: RunMeta {
            diskmeter_version: "0.1.0".to_string(),
            started_unix_ms: STARTED_UNIX_MS,
            finished_unix_ms: STARTED_UNIX_MS + 5_600,
            partial,
            hostname: "testhost".to_string(),
            notes: vec!["fixed test input".to_string()],
            phase_starts_unix_ns: Vec::new(),
            io_finished_unix_ns: 0,
            rank: None,
        },
        jobs,
    }
}

/// The fixed run with steady state (`ss=iops:2%`, `ss_dur=2`) asked for and attained after
/// 2 s in its first, grouped job.
#[allow(dead_code)] // not every test crate uses it
pub fn steady_input() -> RunInput {
    let mut input = sample_input(false);
    for job in input.jobs.iter_mut().filter(|j| j.group_id == 0) {
        job.spec.steadystate.criterion = diskmeter_workload::SteadyCriterion::Iops;
        job.spec.steadystate.limit = diskmeter_workload::SteadyLimit::Percent(2.0);
        job.spec.steadystate.duration_ns = 2 * SEC;
        job.steady_state = Some(SteadyStateInput {
            attained_at_ns: Some(2 * SEC),
            window_iops: vec![2000.0, 2000.5],
            window_bw_bytes_per_sec: vec![8_192_000.0, 8_194_048.0],
            criterion_value: Some(0.0125),
            max_deviation: 0.25,
            slope: 0.0,
            precision_percent: None,
        });
    }
    input
}
