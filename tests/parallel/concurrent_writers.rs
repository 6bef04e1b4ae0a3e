//! Two writers at once, nothing lost: two loops of 100 short null-engine runs each, started
//! at the same moment, save into one history that does not exist yet (the first runs of
//! both race to create it), and into one an old diskmeter left (schema version 1, rollback
//! journal: the first runs of both race to upgrade it). Every run exits 0 and all 200 are
//! listed, each once, whole.

use crate::common;

use common::TestDir;
use diskmeter_history::{HistoryStore, RunFilter, SCHEMA_VERSION};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Barrier};

/// Runs per writer.
const RUNS: usize = 100;

/// Two writers, each running `RUNS` diskmeters one after another in its own folder, all
/// saving into `db`; the runs are named `wW-N`. Fails on the first run that does not exit 0.
fn two_writers(db: &Path) {
    let barrier = Arc::new(Barrier::new(2));
    let writers: Vec<_> = (0..2)
        .map(|writer| {
            let (barrier, db) = (barrier.clone(), db.to_path_buf());
            std::thread::spawn(move || {
                let folder = TestDir::new();
                barrier.wait();
                for n in 0..RUNS {
                    let name = format!("--name=w{writer}-{n}");
                    let db = db.display().to_string();
                    let args = [
                        "run",
                        "--quiet",
                        &name,
                        "--ioengine=null",
                        "--size=1m",
                        "--runtime=1ms",
                        "--time_based",
                        "--output-format=json",
                        "--db",
                        &db,
                    ];
                    let output = common::diskmeter(folder.path(), &args);
                    assert!(
                        output.status.success(),
                        "writer {writer}, run {n}: exit {:?}: {}",
                        output.status.code(),
                        String::from_utf8_lossy(&output.stderr)
                    );
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().expect("a writer failed");
    }
}

/// Every run of both writers is listed once, with its one step, finished; nothing went to
/// the spool.
fn all_saved_once(db: &Path) {
    let store = HistoryStore::open(db).unwrap();
    assert!(store.integrity_ok().unwrap());
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let runs = store.list(&RunFilter::default()).unwrap();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for run in runs.iter().filter(|r| r.name.starts_with('w')) {
        assert_eq!(run.steps, 1, "{run:?}");
        assert!(!run.unfinished && !run.partial, "{run:?}");
        *seen.entry(run.name.clone()).or_default() += 1;
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "saved more than once: {twice:?}");
    assert_eq!(seen.len(), 2 * RUNS, "saved: {:?}", seen.keys());
    // And the listing of the binary says the same.
    let listing = common::ok(common::diskmeter(
        ".",
        &[
            "history",
            "--limit",
            "1000",
            "--format",
            "json",
            "--db",
            &db.display().to_string(),
        ],
    ));
    let listed: Value = serde_json::from_str(&listing).unwrap();
    let names = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["name"].as_str().is_some_and(|n| n.starts_with('w')));
    assert_eq!(names.count(), 2 * RUNS);
    assert!(
        !diskmeter_history::spool_folder(db).exists(),
        "nothing spooled"
    );
}

#[test]
fn two_writers_saving_100_runs_each_into_a_new_history_save_all_200() {
    let history = TestDir::new();
    let db = history.path().join("new/history.db");
    two_writers(&db);
    all_saved_once(&db);
}

#[test]
fn two_writers_upgrading_an_old_history_at_once_save_all_200() {
    let history = TestDir::new();
    let db = history.path().join("old.db");
    {
        let old = HistoryStore::open_at_version(&db, 1).unwrap();
        // As the earliest diskmeters left it: a rollback journal, not WAL.
        let mode: String = old
            .connection()
            .query_row("PRAGMA journal_mode = DELETE", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "delete");
    }
    two_writers(&db);
    all_saved_once(&db);
}
