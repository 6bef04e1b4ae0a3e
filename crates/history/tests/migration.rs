//! A database written by diskmeter at commit f43a725 (history schema 2, result schema 1 with
//! the internal job specification in every job; `fixtures/README.md` lists how it was made)
//! opens with this diskmeter: every run lists, loads with its figures unchanged and its
//! workload as fio options, renders, and the originals are kept.

use diskmeter_history::{HistoryStore, NewRun, RunFilter, StoredRun, SCHEMA_VERSION};
use diskmeter_report::{render_terminal, to_fio_json, FIO_JSON_LAT_INTENDED_KEY};
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURE: &str = "tests/fixtures/history-v2-f43a725.db";

/// A copy of the fixture in `dir` (opening upgrades a database in place).
fn fixture_copy(dir: &Path) -> PathBuf {
    let path = dir.join("history.db");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE), &path).unwrap();
    path
}

/// The v2 rows as the old diskmeter stored them: (run, position) -> result JSON.
fn old_results(dir: &Path) -> Vec<((i64, i64), Value)> {
    let store = HistoryStore::open_at_version(&fixture_copy(dir), 2).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        2,
        "the fixture is schema 2"
    );
    let mut statement = store
        .connection()
        .prepare("SELECT run_id, position, result_json FROM steps ORDER BY run_id, position")
        .unwrap();
    let rows = statement
        .query_map([], |row| {
            Ok((
                (row.get(0)?, row.get(1)?),
                serde_json::from_str(&row.get::<_, String>(2)?).unwrap(),
            ))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

fn load_all(store: &HistoryStore) -> Vec<StoredRun> {
    (1..=8).map(|id| store.load(id).unwrap()).collect()
}

#[test]
fn a_database_written_by_main_at_f43a725_opens_lists_and_loads() {
    let dir = tempfile::tempdir().unwrap();
    let old_dir = tempfile::tempdir().unwrap();
    let old = old_results(old_dir.path());
    let store = HistoryStore::open(&fixture_copy(dir.path())).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(store.integrity_ok().unwrap());

    let listed = store.list(&RunFilter::default()).unwrap();
    let kinds: Vec<(i64, &str, u32, bool)> = listed
        .iter()
        .map(|r| (r.id, r.kind.as_str(), r.steps, r.partial))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (8, "suite", 2, true),
            (7, "run", 1, true),
            (6, "iometer", 1, false),
            (5, "diskspd", 1, false),
            (4, "sweep", 4, false),
            (3, "suite", 8, false),
            (2, "run", 1, false),
            (1, "run", 1, false),
        ]
    );
    assert!(listed.iter().all(|r| !r.unfinished));
    assert_eq!(
        listed[5].summary,
        "8 steps, up to 89597 IOPS and 6319.0 MiB/s"
    );

    let runs = load_all(&store);
    let steps: usize = runs.iter().map(|r| r.steps.len()).sum();
    assert_eq!(steps, old.len());
    for ((id, position), old) in &old {
        let step = &runs[*id as usize - 1].steps[*position as usize];
        let new = serde_json::to_value(&step.result).unwrap();
        assert_eq!(new["schema_version"], diskmeter_report::SCHEMA_VERSION);
        // Every figure is kept: only the job specification became options and facts.
        let mut old = old.clone();
        let mut new = new.clone();
        // Schema 4's timing facts read as "not known" in a result written before them.
        assert_eq!(new["meta"]["phase_starts_unix_ns"], serde_json::json!([]));
        assert_eq!(new["meta"]["io_finished_unix_ns"], 0);
        // Schema 5's intended-time means per interval read as 0 (not kept).
        for job in new["jobs"].as_array_mut().unwrap() {
            for sample in job["series"].as_array_mut().unwrap() {
                for direction in ["read", "write"] {
                    let d = sample[direction].as_object_mut().unwrap();
                    assert_eq!(d.remove("lat_intended_mean_ns"), Some(Value::from(0.0)));
                }
            }
        }
        for doc in [&mut old, &mut new] {
            doc["schema_version"] = Value::Null;
            let meta = doc["meta"].as_object_mut().unwrap();
            meta.remove("phase_starts_unix_ns");
            meta.remove("io_finished_unix_ns");
            for job in doc["jobs"].as_array_mut().unwrap() {
                let job = job.as_object_mut().unwrap();
                for key in ["spec", "options", "workload"] {
                    job.remove(key);
                }
            }
        }
        assert_eq!(old, new, "run {id} step {position}");
        // and the terminal view and fio's JSON render from the upgraded result
        assert!(render_terminal(&step.result).contains("ioengine="));
        assert!(to_fio_json(&step.result)["jobs"][0]["job options"]["name"].is_string());
    }
}

#[test]
fn the_old_job_specifications_become_fio_options() {
    let dir = tempfile::tempdir().unwrap();
    let store = HistoryStore::open(&fixture_copy(dir.path())).unwrap();
    let runs = load_all(&store);

    let plain = &runs[0].steps[0].result;
    let reader = &plain.jobs[0];
    assert_eq!(reader.option("rate_iops"), Some("2000"));
    assert_eq!(reader.option("ioengine"), Some("null"));
    assert_eq!(reader.workload.iodepth, 4);
    let writers = &plain.jobs[1];
    assert_eq!(
        (writers.option("numjobs"), writers.option("group_reporting")),
        (Some("2"), Some("1"))
    );
    let fio = to_fio_json(plain);
    assert!(
        fio["jobs"][0]["read"][FIO_JSON_LAT_INTENDED_KEY]["N"]
            .as_u64()
            .unwrap()
            > 0,
        "the rate-limited reader has its intended-time latency in fio's JSON"
    );
    let job_file = store.job_file(1, 0).unwrap().unwrap();
    assert!(
        job_file.starts_with("[reader]\nname=reader\n"),
        "{job_file}"
    );
    assert!(job_file.contains("\n[writers]\n") && job_file.contains("\nnumjobs=2\n"));

    let direct = &runs[1].steps[0].result.jobs[0];
    assert_eq!(direct.option("direct"), Some("1"));
    assert_eq!(direct.option("rwmixread"), Some("70"));
    assert_eq!(direct.workload.rw, "randrw");

    // Suite steps stop once steady: their steady-state options came along.
    let suite = &runs[2].steps[0].result.jobs[0];
    assert!(suite.option("steadystate").is_some(), "{:?}", suite.options);
    assert!(suite.steady_state.is_some());

    let sweep = &runs[3];
    assert_eq!(sweep.steps[0].name, "randread 4k QD1 x1");
    assert_eq!(sweep.steps[0].result.jobs[0].workload.iodepth, 1);

    assert_eq!(runs[4].steps[0].result.jobs[0].option("bs"), Some("8k"));
    assert!(runs[6].steps[0].result.meta.partial);
    for run in &runs {
        for step in &run.steps {
            assert!(step
                .result
                .meta
                .notes
                .iter()
                .all(|n| !n.contains("upgraded")));
        }
    }
    // The merged histograms are where they were.
    assert!(
        store
            .histogram(2, 0, "read", "clat")
            .unwrap()
            .unwrap()
            .count()
            > 0
    );
}

#[test]
fn the_upgrade_keeps_the_old_rows_and_the_database_takes_new_runs() {
    let dir = tempfile::tempdir().unwrap();
    let old_dir = tempfile::tempdir().unwrap();
    let old = old_results(old_dir.path());
    let mut store = HistoryStore::open(&fixture_copy(dir.path())).unwrap();
    let mut statement = store
        .connection()
        .prepare("SELECT run_id, position, result_json FROM legacy_steps ORDER BY run_id, position")
        .unwrap();
    let kept: Vec<((i64, i64), Value)> = statement
        .query_map([], |row| {
            Ok((
                (row.get(0)?, row.get(1)?),
                serde_json::from_str(&row.get::<_, String>(2)?).unwrap(),
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    drop(statement);
    assert_eq!(kept, old, "legacy_steps holds the rows as they were");

    let step = store.load(2).unwrap().steps.remove(0);
    let id = store
        .save(&NewRun {
            kind: "run".into(),
            name: "after the upgrade".into(),
            target: "/x".into(),
            command_line: "diskmeter run".into(),
            host: Default::default(),
            steps: vec![diskmeter_history::NewStep {
                name: step.name,
                result: step.result,
                histograms: Vec::new(),
            }],
        })
        .unwrap();
    assert_eq!(id, 9);
    assert_eq!(store.list(&RunFilter::default()).unwrap().len(), 9);
    // Opening again finds nothing left to do.
    drop(store);
    let again = HistoryStore::open(&dir.path().join("history.db")).unwrap();
    assert_eq!(again.load(9).unwrap().steps.len(), 1);
}
