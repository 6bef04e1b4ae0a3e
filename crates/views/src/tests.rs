//! Test fixtures: realistic runs saved into a history in a temporary folder, the way the
//! orchestrator saves them (each step's full result, its merged clat and lat histograms per
//! direction, its per-second series), so the views are tested on what a real history holds.
//!
//! - [`save_plain_run`]: one `run` step of a 70/30 random read/write job (two directions,
//!   two `group_reporting` clones, steady state asked for and attained);
//! - [`save_suite`]: a `suite` of three steps (sequential 1 MiB reads, random 4 KiB reads,
//!   random 4 KiB writes);
//! - [`save_sweep`]: a `sweep` of random reads over 4 KiB and 64 KiB at QD 1, 4, 16 and 32,
//!   with step names as `diskmeter sweep` writes them ("randread 4k QD32 x1").
//!
//! [`Load`] and [`step`] make any other step; [`Fixture::save`] saves any [`NewRun`].

#![allow(dead_code)] // each test module uses a few of the fixtures

use diskmeter_history::{DeviceFacts, FilesystemFacts, HistoryStore, HostFacts, NewRun, NewStep};
use diskmeter_report::{JobInput, RunInput, RunMeta, RunResult, SteadyStateInput, TargetInfo};
use diskmeter_stats::{CpuUsage, Direction, IntervalRecorder, LatencyHistogram, WorkerStats};
use diskmeter_workload::{JobSpec, PerDirection, RwMode, SteadyCriterion, SteadyLimit};

const SEC_NS: u64 = 1_000_000_000;
/// When the fixtures' first run started: 2026-11-23 14:20:08 UTC.
pub(crate) const STARTED_UNIX_MS: u64 = 1_795_443_608_000;

/// A history in a temporary folder, removed when dropped.
pub(crate) struct Fixture {
    /// Keeps the folder alive as long as the store.
    _dir: tempfile::TempDir,
    /// The open history.
    pub store: HistoryStore,
}

impl Fixture {
    /// An empty history.
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = HistoryStore::open(&dir.path().join("history.db")).expect("a new history");
        Fixture { _dir: dir, store }
    }

    /// Saves `run` and returns its id.
    pub fn save(&mut self, run: &NewRun) -> i64 {
        self.store.save(run).expect("the fixture run saves")
    }
}

/// What one step of a fixture does: one job, possibly several clones.
#[derive(Debug, Clone)]
pub(crate) struct Load {
    /// The job's name (fio `name`).
    pub job: &'static str,
    /// fio `rw`.
    pub rw: RwMode,
    /// Block size of both directions, bytes.
    pub bs_bytes: u64,
    /// fio `iodepth`.
    pub iodepth: u32,
    /// fio `numjobs` (reported as one `group_reporting` job when above 1).
    pub numjobs: u32,
    /// Reads per second of all clones together.
    pub read_iops: u64,
    /// Writes per second of all clones together.
    pub write_iops: u64,
    /// Measured time, whole seconds.
    pub seconds: u64,
    /// The fastest completion latency; IOs spread over 1..3 times it, one in 500 at 20 times.
    pub base_clat_ns: u64,
    /// Steady state asked for (`ss=iops:5%`, `ss_dur=3`) and attained after 3 s.
    pub steady: bool,
}

impl Load {
    /// Random 4 KiB reads at QD `iodepth`, `iops` per second, 3 s.
    pub fn randread(bs_bytes: u64, iodepth: u32, iops: u64) -> Load {
        Load {
            job: "randread",
            rw: RwMode::RandRead,
            bs_bytes,
            iodepth,
            numjobs: 1,
            read_iops: iops,
            write_iops: 0,
            seconds: 3,
            base_clat_ns: 40_000 + 20_000 * u64::from(iodepth),
            steady: false,
        }
    }
}

/// The completion latency of IO `i`: spread over `base ..< 3 x base`, and one IO in 500 a
/// tail at 20 x `base`, so the percentile curve has a knee and the histogram a long tail.
fn clat_ns(i: u64, base_ns: u64) -> u64 {
    if i % 500 == 499 {
        base_ns * 20 + i % 1000
    } else {
        base_ns + (i * 7_919) % (base_ns * 2)
    }
}

/// When IO `i` of `ios` spread over `runtime_ns` completes: evenly, plus a gentle wave (one
/// period per 3 s, always moving forward) so the per-second series are not flat lines.
fn wavy_time_ns(i: u64, ios: u64, runtime_ns: u64) -> u64 {
    let t = i as f64 / ios as f64;
    let cycles = (runtime_ns as f64 / 3e9).max(1.0);
    let angle = 2.0 * std::f64::consts::PI * cycles * t;
    let warped = t + 0.3 * angle.sin() / (2.0 * std::f64::consts::PI * cycles);
    ((warped.clamp(0.0, 1.0) * runtime_ns as f64) as u64).min(runtime_ns - 1)
}

/// One worker of `load` (clone `clone` of `numjobs`): its share of the IOs of both
/// directions spread evenly over the run, its series, CPU and depth figures.
fn worker(load: &Load, clone: u32) -> WorkerStats {
    let mut stats = WorkerStats::new();
    let mut series = IntervalRecorder::new(SEC_NS);
    let runtime_ns = load.seconds * SEC_NS;
    let clones = u64::from(load.numjobs.max(1));
    for (direction, iops, base) in [
        (Direction::Read, load.read_iops, load.base_clat_ns),
        (Direction::Write, load.write_iops, load.base_clat_ns * 3 / 2),
    ] {
        let ios = iops * load.seconds / clones;
        for i in 0..ios {
            let slat = 800 + (i * 31 + u64::from(clone)) % 1_200;
            let clat = clat_ns(i + u64::from(clone) * 13, base);
            let now = wavy_time_ns(i, ios, runtime_ns);
            stats
                .direction_mut(direction)
                .record_io(load.bs_bytes, slat, clat);
            series.record(direction, load.bs_bytes, slat + clat, now);
            stats.depth.record(load.iodepth);
        }
    }
    stats.series = series.finish(runtime_ns);
    stats.runtime_ns = runtime_ns;
    stats.cpu = CpuUsage {
        user_ns: runtime_ns / 25,
        sys_ns: runtime_ns / 6,
        voluntary_ctx: (load.read_iops + load.write_iops) * load.seconds / clones / 2,
        involuntary_ctx: 11,
    };
    stats
}

/// The result of one step of `load` that started at `started_unix_ms`, and its merged
/// histograms per direction (clat and lat), as the orchestrator saves them.
pub(crate) fn step(name: &str, load: &Load, started_unix_ms: u64) -> NewStep {
    let mut spec = JobSpec {
        name: load.job.to_string(),
        rw: load.rw,
        bs_bytes: PerDirection::both(load.bs_bytes),
        iodepth: load.iodepth,
        numjobs: load.numjobs.max(1),
        size_bytes: Some(1 << 30),
        runtime_ns: Some(load.seconds * SEC_NS),
        time_based: true,
        direct: true,
        group_reporting: load.numjobs > 1,
        ..JobSpec::default()
    };
    if load.rw == RwMode::RandRw && load.read_iops + load.write_iops > 0 {
        spec.rwmixread = (load.read_iops * 100 / (load.read_iops + load.write_iops)) as u8;
    }
    if load.steady {
        spec.steadystate.criterion = SteadyCriterion::Iops;
        spec.steadystate.limit = SteadyLimit::Percent(5.0);
        spec.steadystate.duration_ns = 3 * SEC_NS;
    }
    let total_iops = (load.read_iops + load.write_iops) as f64;
    let bs = load.bs_bytes as f64;
    let jobs: Vec<JobInput> = (0..load.numjobs.max(1))
        .map(|clone| JobInput {
            spec: spec.clone(),
            clone_index: clone,
            group_id: 0,
            stats: worker(load, clone),
            error: None,
            targets: vec![TargetInfo {
                path: "/mnt/data/diskmeter.0.0".to_string(),
                kind: "file".to_string(),
                size_bytes: 1 << 30,
            }],
            steady_state: load.steady.then(|| SteadyStateInput {
                attained_at_ns: Some(3 * SEC_NS),
                window_iops: vec![total_iops; 3],
                window_bw_bytes_per_sec: vec![total_iops * bs; 3],
                criterion_value: Some(0.8),
                max_deviation: total_iops * 0.008,
                slope: 0.0,
                precision_percent: None,
            }),
        })
        .collect();
    let histograms = merged_histograms(&jobs);
    let result = RunResult::build(RunInput {
        meta: RunMeta {
            diskmeter_version: "0.1.0".to_string(),
            started_unix_ms,
            finished_unix_ms: started_unix_ms + load.seconds * 1000 + 150,
            partial: false,
            hostname: "benchhost".to_string(),
            notes: vec![],
            phase_starts_unix_ns: Vec::new(),
            io_finished_unix_ns: 0,
            rank: None,
        },
        jobs,
    });
    NewStep {
        name: name.to_string(),
        result,
        histograms,
    }
}

/// The workers' clat and lat histograms merged per direction (what the orchestrator does).
fn merged_histograms(jobs: &[JobInput]) -> Vec<(String, String, LatencyHistogram)> {
    let mut out = Vec::new();
    for direction in Direction::BOTH {
        let mut clat = LatencyHistogram::new();
        let mut lat = LatencyHistogram::new();
        for job in jobs {
            clat.merge(&job.stats.direction(direction).clat);
            lat.merge(&job.stats.direction(direction).lat);
        }
        let name = direction.as_str();
        if !clat.is_empty() {
            out.push((name.to_string(), "clat".to_string(), clat));
        }
        if !lat.is_empty() {
            out.push((name.to_string(), "lat".to_string(), lat));
        }
    }
    out
}

/// Host facts of a file on an ext4 filesystem on an NVMe disk (fixed, not this machine's).
pub(crate) fn host() -> HostFacts {
    HostFacts {
        kernel: "6.1.0-28-amd64".to_string(),
        cpu_model: "AMD EPYC 7B13".to_string(),
        cpu_count: 8,
        memory_bytes: 32 << 30,
        device: Some(DeviceFacts {
            name: "nvme0n1".to_string(),
            model: "Samsung SSD 980 PRO 1TB".to_string(),
            size_bytes: 1_000_204_886_016,
            logical_block_bytes: 512,
            physical_block_bytes: 4096,
            scheduler: "none".to_string(),
            rotational: false,
        }),
        filesystem: Some(FilesystemFacts {
            fs_type: "ext4".to_string(),
            mount_point: "/mnt/data".to_string(),
            options: "rw,relatime".to_string(),
            source: "/dev/nvme0n1p1".to_string(),
        }),
    }
}

/// A run of `kind` named `name` on /mnt/data made of `steps`.
pub(crate) fn new_run(kind: &str, name: &str, command_line: &str, steps: Vec<NewStep>) -> NewRun {
    NewRun {
        kind: kind.to_string(),
        name: name.to_string(),
        target: "/mnt/data".to_string(),
        command_line: command_line.to_string(),
        host: host(),
        steps,
    }
}

/// A plain run of one step with reads and writes: `randrw` 70/30 of 4 KiB at QD16 with two
/// `group_reporting` clones, 6 s, steady state attained. Returns its id.
pub(crate) fn save_plain_run(fixture: &mut Fixture) -> i64 {
    let load = Load {
        job: "mixed",
        rw: RwMode::RandRw,
        bs_bytes: 4096,
        iodepth: 16,
        numjobs: 2,
        read_iops: 2_800,
        write_iops: 1_200,
        seconds: 6,
        base_clat_ns: 90_000,
        steady: true,
    };
    let step = step("mixed", &load, STARTED_UNIX_MS);
    fixture.save(&new_run(
        "run",
        "mixed",
        "diskmeter run --name mixed --rw randrw --rwmixread 70 --bs 4k --iodepth 16 \
         --numjobs 2 --group_reporting --runtime 6 --time_based --filename /mnt/data/f",
        vec![step],
    ))
}

/// The names of [`save_suite`]'s steps, in order.
pub(crate) const SUITE_STEPS: [&str; 3] =
    ["SEQ1M Q8T1 read", "RND4K Q32T1 read", "RND4K Q1T1 write"];

/// A suite of three steps: sequential 1 MiB reads at QD8, random 4 KiB reads at QD32, random
/// 4 KiB writes at QD1, 3 s each. Returns its id.
pub(crate) fn save_suite(fixture: &mut Fixture) -> i64 {
    let loads = [
        Load {
            job: "seq1m-read",
            rw: RwMode::Read,
            ..Load::randread(1 << 20, 8, 1_800)
        },
        Load {
            job: "rnd4k-read",
            ..Load::randread(4096, 32, 9_000)
        },
        Load {
            job: "rnd4k-write",
            rw: RwMode::RandWrite,
            read_iops: 0,
            write_iops: 2_500,
            ..Load::randread(4096, 1, 0)
        },
    ];
    let steps = loads
        .iter()
        .zip(SUITE_STEPS)
        .enumerate()
        .map(|(i, (load, name))| step(name, load, STARTED_UNIX_MS + 3_500 * i as u64))
        .collect();
    fixture.save(&new_run(
        "suite",
        "crystal-quick",
        "diskmeter suite crystal-quick /mnt/data",
        steps,
    ))
}

/// A sweep of random reads: 4 KiB and 64 KiB at QD 1, 4, 16 and 32, 3 s a point; IOPS
/// flatten at 12,000 (4 KiB) and bandwidth at 1,200 MiB/s (64 KiB). Returns its id.
pub(crate) fn save_sweep(fixture: &mut Fixture) -> i64 {
    let mut steps = Vec::new();
    for (bs_bytes, bs_name) in [(4096u64, "4k"), (65_536, "64k")] {
        for qd in [1u32, 4, 16, 32] {
            let cap = if bs_bytes == 4096 {
                12_000
            } else {
                1_200 * (1 << 20) / bs_bytes
            };
            let iops = (u64::from(qd) * 4_000).min(cap);
            let started = STARTED_UNIX_MS + 3_200 * steps.len() as u64;
            steps.push(step(
                &format!("randread {bs_name} QD{qd} x1"),
                &Load::randread(bs_bytes, qd, iops),
                started,
            ));
        }
    }
    fixture.save(&new_run(
        "sweep",
        "randread",
        "diskmeter sweep /mnt/data --bs 4k,64k --qd 1,4,16,32",
        steps,
    ))
}

/// Asserts that every chart of `section` and its children can be drawn: at least one series,
/// each with as many y as x and at least one point, every value finite, x ascending for
/// lines, positive values on log axes, percentiles in 0..100 on a nines axis, and bars with
/// one category per x index.
pub(crate) fn assert_charts_drawable(section: &crate::Section) {
    use crate::{ChartStyle, Scale};
    for chart in section.all_charts() {
        let id = &chart.id;
        assert!(!chart.series.is_empty(), "{id}: no series");
        for series in &chart.series {
            let label = &series.label;
            assert!(!series.x.is_empty(), "{id} {label}: no points");
            assert_eq!(
                series.x.len(),
                series.y.len(),
                "{id} {label}: x and y differ"
            );
            assert!(
                series.y.iter().any(Option::is_some),
                "{id} {label}: only gaps"
            );
            for (x, y) in series.x.iter().zip(&series.y) {
                assert!(x.is_finite(), "{id} {label}: x {x}");
                if let Some(y) = y {
                    assert!(y.is_finite(), "{id} {label}: y {y} at x {x}");
                    if chart.y.scale == Scale::Log10 {
                        assert!(*y > 0.0, "{id} {label}: y {y} on a log axis");
                    }
                }
                match chart.x.scale {
                    Scale::Log10 => assert!(*x > 0.0, "{id} {label}: x {x} on a log axis"),
                    Scale::Nines => {
                        assert!((0.0..100.0).contains(x), "{id} {label}: percentile {x}")
                    }
                    Scale::Linear => {}
                }
            }
            match chart.style {
                ChartStyle::Bars => {
                    assert_eq!(
                        chart.x.categories.len(),
                        series.x.len(),
                        "{id} {label}: a category per bar"
                    );
                    for (i, x) in series.x.iter().enumerate() {
                        assert_eq!(*x, i as f64, "{id} {label}: bars at category indices");
                    }
                }
                ChartStyle::Lines | ChartStyle::LinesPoints => assert!(
                    series.x.windows(2).all(|w| w[0] < w[1]),
                    "{id} {label}: x not ascending"
                ),
            }
        }
    }
}

/// Asserts that the anchors of every section and the ids of every chart of `sections` are
/// unique together (they are HTML ids of one page), and that each chart's id is
/// `{anchor}-{kind}` of the section holding it.
pub(crate) fn assert_unique_ids(sections: &[crate::Section]) {
    fn walk(section: &crate::Section, seen: &mut std::collections::HashSet<String>) {
        assert!(
            seen.insert(section.anchor.clone()),
            "anchor {} twice",
            section.anchor
        );
        for chart in &section.charts {
            assert_eq!(chart.id, format!("{}-{}", section.anchor, chart.kind));
            assert!(seen.insert(chart.id.clone()), "chart id {} twice", chart.id);
        }
        for child in &section.children {
            walk(child, seen);
        }
    }
    let mut seen = std::collections::HashSet::new();
    for section in sections {
        walk(section, &mut seen);
    }
}

#[test]
fn the_fixtures_save_results_histograms_and_series() {
    let mut fixture = Fixture::new();
    let plain = save_plain_run(&mut fixture);
    let suite = save_suite(&mut fixture);
    let sweep = save_sweep(&mut fixture);
    let run = fixture.store.load(plain).unwrap();
    assert_eq!(run.steps.len(), 1);
    let job = &run.steps[0].result.jobs[0];
    assert!(job.read.ios > 0 && job.write.ios > 0);
    assert!(job.steady_state.is_some());
    assert_eq!(run.steps[0].series().len(), 6);
    for direction in ["read", "write"] {
        for kind in ["clat", "lat"] {
            let histogram = fixture.store.histogram(plain, 0, direction, kind).unwrap();
            assert!(
                histogram.is_some_and(|h| !h.is_empty()),
                "{direction} {kind}"
            );
        }
    }
    assert!(fixture.store.job_file(plain, 0).unwrap().is_some());
    let suite = fixture.store.load(suite).unwrap();
    let names: Vec<&str> = suite.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, SUITE_STEPS);
    assert_eq!(fixture.store.load(sweep).unwrap().steps.len(), 8);
}
