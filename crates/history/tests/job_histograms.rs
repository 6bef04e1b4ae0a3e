//! The jobs' exact histograms are stored once: as blobs, out of the stored result JSON, put
//! back when the run loads (also a merged run's ranks'), and merged into the step's histogram
//! without a second copy in the `histograms` table.

use diskmeter_history::{HistoryStore, HostFacts, NewRun, NewStep};
use diskmeter_report::merge::merge_ranks;
use diskmeter_report::{JobInput, RunInput, RunMeta, RunResult};
use diskmeter_stats::{LatencyHistogram, WorkerStats};
use diskmeter_workload::JobSpec;
use std::path::Path;

fn result(host: &str, seed: u64, sync: bool) -> RunResult {
    let mut stats = WorkerStats::new();
    for i in 0..2_000u64 {
        stats
            .read
            .record_io(4096, 300, 20_000 + (i * 7_919 + seed) % 90_000);
    }
    stats.trim.record_io(4096, 0, 5_000);
    if sync {
        stats.sync.record(1_000_000);
    }
    stats.runtime_ns = 1_000_000_000;
    RunResult::build(RunInput {
        meta: RunMeta {
            diskmeter_version: "0.1.0".into(),
            started_unix_ms: 1_790_000_000_000,
            finished_unix_ms: 1_790_000_001_000,
            partial: false,
            hostname: host.into(),
            notes: vec![],
            phase_starts_unix_ns: vec![1_790_000_000_000_000_000],
            io_finished_unix_ns: 1_790_000_001_000_000_000,
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

fn save(store: &mut HistoryStore, result: &RunResult) -> i64 {
    let mut clat = LatencyHistogram::new();
    clat.record(1);
    store
        .save(&NewRun {
            kind: "run".into(),
            name: "histograms".into(),
            target: "/tmp".into(),
            command_line: "diskmeter run".into(),
            host: HostFacts::collect(Path::new("/tmp")),
            steps: vec![NewStep {
                name: "step".into(),
                result: result.clone(),
                histograms: vec![("read".into(), "clat".into(), clat)],
            }],
        })
        .unwrap()
}

#[test]
fn histograms_are_stored_once_and_load_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    let mut store = HistoryStore::open(&path).unwrap();
    let merged = merge_ranks(vec![result("a", 1, true), result("b", 2, false)]).unwrap();
    for original in [result("a", 1, true), merged] {
        let id = save(&mut store, &original);
        let loaded = store.load(id).unwrap();
        assert_eq!(
            loaded.steps[0].result, original,
            "the result loads back whole"
        );
        let from_jobs = store.histogram(id, 0, "read", "clat").unwrap().unwrap();
        let expected = original.jobs[0]
            .histograms
            .as_ref()
            .unwrap()
            .read
            .clat
            .decode()
            .unwrap();
        assert_eq!(
            from_jobs, expected,
            "the step's histogram is its jobs' merged"
        );
    }
    let (rows, with_text): (i64, i64) = store
        .connection()
        .query_row(
            "SELECT (SELECT COUNT(*) FROM histograms),
                    (SELECT COUNT(*) FROM steps WHERE result_json LIKE '%\"histograms\"%')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (rows, with_text),
        (0, 0),
        "stored once: as the jobs' blobs only"
    );
}
