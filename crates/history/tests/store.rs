//! The history on a real SQLite file: save and load, filters, histograms and series, an older
//! schema that opens, a newer one refused, and a writer killed with SIGKILL in the middle of
//! saves leaving a readable database without half-saved runs.

use diskmeter_history::{
    HistoryError, HistoryStore, HostFacts, NewRun, NewStep, RunFilter, RunPageQuery, SCHEMA_VERSION,
};
use diskmeter_report::{JobInput, RunInput, RunMeta, RunResult};
use diskmeter_stats::{Direction, IntervalRecorder, LatencyHistogram, WorkerStats};
use diskmeter_workload::JobSpec;
use std::path::Path;
use std::time::Duration;

/// A result of `seconds` seconds at `iops` 4 KiB reads (latencies spread 50..60 us).
fn result(started_unix_ms: u64, iops: u64, seconds: u64) -> RunResult {
    let mut stats = WorkerStats::new();
    let mut recorder = IntervalRecorder::new(1_000_000_000);
    let total = iops * seconds;
    for i in 0..total {
        let lat_ns = 50_000 + (i % 10_000);
        stats.read.record_io(4096, 1_000, lat_ns);
        recorder.record(Direction::Read, 4096, lat_ns, i * 1_000_000_000 / iops);
    }
    stats.runtime_ns = seconds * 1_000_000_000;
    stats.series = recorder.finish(stats.runtime_ns);
    RunResult::build(RunInput {
        meta: RunMeta {
            diskmeter_version: "0.1.0".into(),
            started_unix_ms,
            finished_unix_ms: started_unix_ms + seconds * 1000,
            partial: false,
            hostname: "testhost".into(),
            notes: vec![],
            phase_starts_unix_ns: Vec::new(),
            io_finished_unix_ns: 0,
            rank: None,
        },
        jobs: vec![JobInput {
            spec: JobSpec::default(),
            clone_index: 0,
            group_id: 0,
            stats,
            error: None,
            targets: vec![],
            steady_state: None,
        }],
    })
}

fn new_run(kind: &str, name: &str, target: &str, started_unix_ms: u64, steps: usize) -> NewRun {
    NewRun {
        kind: kind.into(),
        name: name.into(),
        target: target.into(),
        command_line: format!("diskmeter {kind} {name}"),
        host: HostFacts::collect(Path::new("/tmp")),
        steps: (0..steps)
            .map(|i| {
                let result = result(started_unix_ms + i as u64 * 3000, 1000 * (i as u64 + 1), 3);
                let mut clat = LatencyHistogram::new();
                clat.record_n(55_000, 3000);
                NewStep {
                    name: format!("step {i}"),
                    result,
                    histograms: vec![("read".into(), "clat".into(), clat)],
                }
            })
            .collect(),
    }
}

#[test]
fn a_saved_run_loads_back_whole_and_lists_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/folder/history.db");
    let mut store = HistoryStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let old = store
        .save(&new_run("run", "job1", "/data/a.dat", 1_700_000_000_000, 1))
        .unwrap();
    let run = new_run("suite", "quick", "/dev/loop7", 1_800_000_000_000, 3);
    let new = store.save(&run).unwrap();

    let all = store.list(&RunFilter::default()).unwrap();
    assert_eq!(all.iter().map(|r| r.id).collect::<Vec<_>>(), vec![new, old]);
    assert_eq!(all[0].steps, 3);
    assert!(all[0].summary.contains("3 steps"), "{}", all[0].summary);

    let loaded = store.load(new).unwrap();
    assert_eq!(loaded.steps.len(), 3);
    for (stored, saved) in loaded.steps.iter().zip(&run.steps) {
        assert_eq!(stored.name, saved.name);
        assert_eq!(stored.result, saved.result);
        assert_eq!(stored.series().len(), 3);
    }
    assert_eq!(loaded.host.as_ref(), Some(&run.host));

    // The step's histogram is its jobs' (stored once, with the jobs: job_histograms.rs).
    let histogram = store.histogram(new, 1, "read", "clat").unwrap().unwrap();
    assert_eq!(histogram.count(), run.steps[1].result.jobs[0].read.ios);
    assert!(store.histogram(new, 1, "write", "clat").unwrap().is_none());

    let series_rows: i64 = store
        .connection()
        .query_row(
            "SELECT COUNT(*) FROM series WHERE run_id = ?1",
            [new],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(series_rows, 9);
    let second_iops: f64 = store
        .connection()
        .query_row(
            "SELECT read_iops FROM series WHERE run_id = ?1 AND position = 1 ORDER BY start_ms LIMIT 1",
            [new],
            |r| r.get(0),
        )
        .unwrap();
    assert!((second_iops - 2000.0).abs() < 1.0, "{second_iops}");
}

#[test]
fn filters_select_by_kind_name_target_and_date() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(&dir.path().join("h.db")).unwrap();
    let a = store
        .save(&new_run("suite", "quick", "/mnt/a/x.dat", 1_000_000, 1))
        .unwrap();
    let b = store
        .save(&new_run("suite", "matrix", "/mnt/b/x.dat", 2_000_000, 1))
        .unwrap();
    let c = store
        .save(&new_run("run", "job", "/mnt/a/y.dat", 3_000_000, 1))
        .unwrap();
    let ids = |filter: RunFilter| -> Vec<i64> {
        store
            .list(&filter)
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect()
    };
    assert_eq!(
        ids(RunFilter {
            kind: Some("suite".into()),
            ..Default::default()
        }),
        vec![b, a]
    );
    assert_eq!(
        ids(RunFilter {
            name: Some("quick".into()),
            ..Default::default()
        }),
        vec![a]
    );
    assert_eq!(
        ids(RunFilter {
            target_contains: Some("/mnt/a/".into()),
            ..Default::default()
        }),
        vec![c, a]
    );
    assert_eq!(
        ids(RunFilter {
            since_unix_ms: Some(2_000_000),
            until_unix_ms: Some(3_000_000),
            ..Default::default()
        }),
        vec![b]
    );
    assert_eq!(
        ids(RunFilter {
            limit: Some(1),
            ..Default::default()
        }),
        vec![c]
    );
    assert!(matches!(
        store.load(999),
        Err(diskmeter_history::HistoryError::NoSuchRun(999))
    ));
}

#[test]
fn a_database_of_schema_version_1_opens_and_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let old = HistoryStore::open_at_version(&path, 1).unwrap();
        assert_eq!(old.schema_version().unwrap(), 1);
        // A run as version 1 wrote it: no host facts, no series rows, no summary column.
        let result = result(1_600_000_000_000, 500, 2);
        old.connection()
            .execute(
                "INSERT INTO runs (kind, name, target, started_unix_ms, finished_unix_ms, partial,
                     diskmeter_version, hostname, command_line)
                 VALUES ('run', 'old', '/old.dat', 1600000000000, 1600000002000, 0, '0.0.9', 'h', 'diskmeter run')",
                [],
            )
            .unwrap();
        old.connection()
            .execute(
                "INSERT INTO steps (run_id, position, name, workload_json, result_json)
                 VALUES (1, 0, 'old', '[]', ?1)",
                [diskmeter_report::to_json(&result)],
            )
            .unwrap();
    }
    let mut store = HistoryStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let listed = store.list(&RunFilter::default()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].summary, "");
    let run = store.load(1).unwrap();
    assert!(run.host.is_none());
    assert_eq!(run.steps[0].result.jobs[0].read.ios, 1000);
    // and the upgraded database takes new runs
    store
        .save(&new_run("run", "new", "/new.dat", 1_700_000_000_000, 1))
        .unwrap();
    assert_eq!(store.list(&RunFilter::default()).unwrap().len(), 2);
}

#[test]
fn a_database_from_a_newer_diskmeter_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    {
        let store = HistoryStore::open(&path).unwrap();
        store
            .connection()
            .pragma_update(None, "user_version", SCHEMA_VERSION + 7)
            .unwrap();
    }
    let error = HistoryStore::open(&path).err().expect("refused");
    assert!(error.to_string().contains("newer"), "{error}");
}

#[test]
fn a_read_only_open_reads_and_never_writes_or_upgrades() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    let mut store = HistoryStore::open(&path).unwrap();
    let id = store
        .save(&new_run("run", "job1", "/data/a.dat", 1_700_000_000_000, 1))
        .unwrap();
    drop(store);
    let reader = HistoryStore::open_read_only(&path).unwrap();
    assert_eq!(reader.load(id).unwrap().summary.name, "job1");
    let refused = reader
        .connection()
        .execute("DELETE FROM runs", [])
        .expect_err("a read-only connection refuses writes");
    assert!(refused.to_string().contains("readonly"), "{refused}");

    let old = dir.path().join("old.db");
    drop(HistoryStore::open_at_version(&old, 3).unwrap());
    let error = HistoryStore::open_read_only(&old).err().expect("refused");
    assert!(
        matches!(error, HistoryError::NeedsUpgrade { found: 3, .. }),
        "{error}"
    );
    assert!(
        error.to_string().contains("run any diskmeter command"),
        "{error}"
    );
    let still_old = HistoryStore::open_at_version(&old, 3).unwrap();
    assert_eq!(still_old.schema_version().unwrap(), 3);
}

#[test]
fn a_page_of_runs_counts_every_match_and_filters_by_host() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(&dir.path().join("history.db")).unwrap();
    let mut ids = Vec::new();
    for i in 0..5u64 {
        let mut run = new_run(
            "run",
            "job",
            "/data/a.dat",
            1_700_000_000_000 + i * 60_000,
            1,
        );
        if i % 2 == 1 {
            run.steps[0].result.meta.hostname = "otherhost".into();
        }
        ids.push(store.save(&run).unwrap());
    }
    store
        .save(&new_run(
            "suite",
            "quick",
            "/dev/loop7",
            1_600_000_000_000,
            2,
        ))
        .unwrap();
    let query = |hostname: Option<&str>, offset: u64| RunPageQuery {
        filter: RunFilter {
            kind: Some("run".into()),
            ..Default::default()
        },
        hostname: hostname.map(str::to_string),
        offset,
        page_size: 2,
    };
    let page = store.list_page(&query(None, 0)).unwrap();
    assert_eq!(page.total, 5);
    assert_eq!(
        page.runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        [ids[4], ids[3]]
    );
    let last = store.list_page(&query(None, 4)).unwrap();
    assert_eq!(last.runs.iter().map(|r| r.id).collect::<Vec<_>>(), [ids[0]]);
    let other = store.list_page(&query(Some("otherhost"), 0)).unwrap();
    assert_eq!(other.total, 2);
    assert!(other.runs.iter().all(|r| r.hostname == "otherhost"));

    let facets = store.facets().unwrap();
    assert_eq!(facets.kinds, ["run", "suite"]);
    assert_eq!(facets.suites, ["quick"]);
    assert_eq!(facets.hosts, ["otherhost", "testhost"]);
}

/// The writer of the kill test, not a test of its own: saves 20-step runs until it is killed.
/// Ignored, so a test run does not count it; the kill test starts this test binary with
/// `--ignored --exact kill_writer_child` and the database in the environment.
#[test]
#[ignore = "the child process of sigkill_in_the_middle_of_saves_..., which starts it"]
fn kill_writer_child() {
    let path = std::env::var("DISKMETER_HISTORY_KILL_TEST_DB").expect(
        "DISKMETER_HISTORY_KILL_TEST_DB: only sigkill_in_the_middle_of_saves_... runs this",
    );
    let mut store = HistoryStore::open(Path::new(&path)).unwrap();
    for i in 0.. {
        store
            .save(&new_run("suite", "kill", "/x", 1_000 + i, 20))
            .unwrap();
    }
}

#[test]
fn sigkill_in_the_middle_of_saves_leaves_a_readable_database_without_half_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("killed.db");
    let exe = std::env::current_exe().unwrap();
    for round in 0..4u64 {
        let mut child = std::process::Command::new(&exe)
            .args([
                "--ignored",
                "--exact",
                "kill_writer_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("DISKMETER_HISTORY_KILL_TEST_DB", &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait until it has saved something, then a little more so the kill lands mid-save
        // at a different point each round.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            std::thread::sleep(Duration::from_millis(50));
            let saved = HistoryStore::open(&path)
                .ok()
                .and_then(|s| s.list(&RunFilter::default()).ok())
                .map_or(0, |runs| runs.len());
            if saved > round as usize || std::time::Instant::now() > deadline {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(37 * (round + 1)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        let store = HistoryStore::open(&path).unwrap();
        assert!(store.integrity_ok().unwrap(), "round {round}");
        let runs = store.list(&RunFilter::default()).unwrap();
        assert!(!runs.is_empty(), "round {round}: nothing was saved");
        for run in &runs {
            assert_eq!(run.steps, 20, "round {round}: run {} is half-saved", run.id);
            let loaded = store.load(run.id).unwrap();
            assert_eq!(loaded.steps.len(), 20);
            let series: i64 = store
                .connection()
                .query_row(
                    "SELECT COUNT(*) FROM series WHERE run_id = ?1",
                    [run.id],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(series, 60, "round {round}: run {}", run.id);
        }
    }
}

#[test]
fn a_capture_keeps_its_samples_and_trace_and_lists_as_a_run() {
    use diskmeter_capture::{CaptureSample, SystemInterval, TraceProfile};
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(&dir.path().join("h.db")).unwrap();
    let header = diskmeter_history::RunHeader {
        kind: diskmeter_history::CAPTURE_KIND.into(),
        name: "vda".into(),
        target: "vda".into(),
        command_line: "diskmeter capture".into(),
        host: diskmeter_history::HostFacts::default(),
        started_unix_ms: 1_000,
        diskmeter_version: "t".into(),
        hostname: "h".into(),
        capture_id: None,
    };
    let id = store.begin_run(&header).unwrap();
    let system = SystemInterval {
        cpu_busy_percent: 1.0,
        cpu_user_percent: 0.5,
        cpu_system_percent: 0.5,
        cpu_iowait_percent: 0.0,
        memory_used_bytes: 1,
        memory_total_bytes: 2,
        memory_cached_bytes: 0,
        io_pressure_some_percent: None,
        io_pressure_full_percent: None,
    };
    for i in 0..3 {
        let sample = CaptureSample {
            start_unix_ms: 1_000 + i * 1_000,
            duration_ms: 1_000.0,
            devices: vec![],
            system: system.clone(),
        };
        assert_eq!(store.append_capture_sample(id, &sample).unwrap(), i);
    }
    let profile = TraceProfile {
        device: "vda".into(),
        device_bytes: None,
        duration_ns: 1,
        ios: 0,
        lost_events: 0,
        read: Default::default(),
        write: Default::default(),
        random_fraction: 0.0,
        queue_depth: Default::default(),
        interarrival_ns: Default::default(),
        hot_set: Default::default(),
        processes: vec![],
        iolog_path: None,
        sequential_writes: Vec::new(),
        details: Default::default(),
    };
    store.save_trace_profile(id, &profile).unwrap();
    store
        .finish_run(
            id,
            &diskmeter_history::RunEnd {
                finished_unix_ms: 4_000,
                partial: false,
                summary: Some("3 samples".into()),
            },
        )
        .unwrap();
    let capture = store.load_capture(id).unwrap();
    assert_eq!(capture.samples.len(), 3);
    assert_eq!(capture.traces, vec![profile]);
    assert_eq!(store.newest_capture_id().unwrap(), Some(id));
    assert!(!capture.summary.unfinished);
}

#[test]
fn verify_errors_are_counted_in_the_step_and_the_headline() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(&dir.path().join("history.db")).unwrap();
    let mut run = new_run("run", "verified", "/dev/loop7", 1_700_000_000_000, 1);
    let failure = diskmeter_stats::VerifyFailure {
        path: "/dev/loop7".into(),
        offset_bytes: 327_680,
        len_bytes: 16_384,
        damage_offset_bytes: 327_680,
        kind: "lost_write".into(),
        expected: "generation 84".into(),
        found: "generation 20".into(),
    };
    run.steps[0].result.jobs[0].verify = Some(diskmeter_report::VerifyResult {
        blocks: 64,
        bytes: 64 * 16_384,
        errors: 3,
        runtime_ns: 1_000_000,
        bw_bytes_per_sec: 1e9,
        failures: vec![failure.clone()],
    });
    let id = store.save(&run).unwrap();

    let (blocks, errors): (i64, i64) = store
        .connection()
        .query_row(
            "SELECT verify_blocks, verify_errors FROM steps WHERE run_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((blocks, errors), (64, 3));
    let listed = &store.list(&RunFilter::default()).unwrap()[0];
    assert!(
        listed.summary.ends_with(", 3 verify errors"),
        "{}",
        listed.summary
    );
    let loaded = store.load(id).unwrap();
    let verify = loaded.steps[0].result.jobs[0].verify.as_ref().unwrap();
    assert_eq!(verify.failures, [failure]);
}
