//! The store under faults and races, on real SQLite files: many threads opening one new (or
//! one old, rollback-journal) database at the same moment all get the whole schema in WAL
//! mode; a damaged file (garbage, truncated) is refused as damaged and never written; and the
//! spool: a run kept there is imported whole, exactly once (also by two importers at once),
//! completing the part of it the history took before the fault.

mod common;

use common::{header, step};
use diskmeter_history::{
    HistoryError, HistoryStore, NewStep, RunEnd, RunFilter, SpooledRun, SpooledRunBegun,
    SCHEMA_VERSION,
};
use std::path::Path;
use std::sync::{Arc, Barrier};

fn end(finished_unix_ms: u64) -> RunEnd {
    RunEnd {
        finished_unix_ms,
        partial: false,
        summary: None,
    }
}

/// `threads` threads open `path` at the same moment; every open must succeed.
fn open_at_once(path: &Path, threads: usize) {
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (barrier, path) = (barrier.clone(), path.to_path_buf());
            std::thread::spawn(move || {
                barrier.wait();
                HistoryStore::open(&path).map(|store| store.schema_version().unwrap())
            })
        })
        .collect();
    for handle in handles {
        match handle.join().unwrap() {
            Ok(version) => assert_eq!(version, SCHEMA_VERSION),
            Err(error) => panic!("{}: an open failed: {error}", path.display()),
        }
    }
}

fn journal_mode(store: &HistoryStore) -> String {
    store
        .connection()
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap()
}

#[test]
fn threads_opening_one_new_database_at_once_all_get_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..40 {
        let path = dir.path().join(format!("new-{round}.db"));
        open_at_once(&path, 4);
        let store = HistoryStore::open(&path).unwrap();
        assert_eq!(journal_mode(&store), "wal");
        assert!(store.integrity_ok().unwrap());
    }
    // Nothing is left of the builds that lost their race.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn threads_upgrading_one_old_rollback_journal_database_at_once_upgrade_it_once() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..10 {
        let path = dir.path().join(format!("old-{round}.db"));
        {
            let old = HistoryStore::open_at_version(&path, 2).unwrap();
            // As the earliest diskmeters left it: a rollback journal, not WAL.
            old.connection()
                .query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))
                .unwrap();
            old.connection()
                .execute(
                    "INSERT INTO runs (kind, name, target, started_unix_ms, finished_unix_ms,
                         partial, diskmeter_version, hostname, command_line)
                     VALUES ('run', 'old', '/old.dat', 1, 2, 0, '0.0.9', 'h', 'diskmeter run')",
                    [],
                )
                .unwrap();
        }
        open_at_once(&path, 4);
        let store = HistoryStore::open(&path).unwrap();
        assert_eq!(journal_mode(&store), "wal");
        assert_eq!(store.list(&RunFilter::default()).unwrap().len(), 1);
        assert!(store.integrity_ok().unwrap());
    }
}

/// A database holding one saved run, closed.
fn database_with_a_run(path: &Path) {
    let mut store = HistoryStore::open(path).unwrap();
    let id = store.begin_run(&header("kept", 1_000)).unwrap();
    for i in 0..20 {
        store
            .append_step(id, &step(&format!("s{i}"), 1_000 + i * 2000, 500))
            .unwrap();
    }
    store.finish_run(id, &end(50_000)).unwrap();
}

#[test]
fn a_damaged_database_is_refused_as_damaged_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.db");
    let bytes: Vec<u8> = (0..40_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&garbage, &bytes).unwrap();
    let truncated = dir.path().join("truncated.db");
    database_with_a_run(&truncated);
    let len = std::fs::metadata(&truncated).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&truncated)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    for (path, left) in [(&garbage, bytes.len() as u64), (&truncated, len / 2)] {
        match HistoryStore::open(path) {
            Err(error @ HistoryError::Corrupt(_)) => {
                assert!(error.to_string().contains("damaged"), "{error}")
            }
            Err(other) => panic!("{}: {other}", path.display()),
            Ok(_) => panic!("{} opened", path.display()),
        }
        assert_eq!(std::fs::metadata(path).unwrap().len(), left, "untouched");
    }
}

/// The ids of the runs in `path`, with their step counts and whether unfinished.
fn runs(store: &HistoryStore) -> Vec<(String, u32, bool)> {
    let mut runs: Vec<_> = store
        .list(&RunFilter::default())
        .unwrap()
        .into_iter()
        .map(|r| (r.name, r.steps, r.unfinished))
        .collect();
    runs.sort();
    runs
}

#[test]
fn a_spooled_run_is_imported_whole_once_with_its_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    let steps = [step("a", 1_000, 300), step("b", 3_000, 400)];
    let spooled = SpooledRun::new(&path, header("spooled", 1_000), &steps, end(5_000), None);
    let written = spooled.write().unwrap();
    assert!(written.not_beside.is_none(), "beside its database");
    let file = written.path;
    assert!(
        file.starts_with(diskmeter_history::spool_folder(&path)),
        "{}",
        file.display()
    );
    let mut store = HistoryStore::open(&path).unwrap();
    let ids = store.import_spool().unwrap();
    assert_eq!(ids.len(), 1);
    assert!(!file.exists(), "the imported file is removed");
    let run = store.load(ids[0]).unwrap();
    assert_eq!(run.summary.name, "spooled");
    assert!(!run.summary.unfinished && !run.summary.partial);
    assert_eq!(run.steps.len(), 2);
    assert_eq!(run.steps[1].result.jobs[0].read.ios, 800);
    let histogram = store.histogram(ids[0], 1, "read", "clat").unwrap().unwrap();
    assert_eq!(histogram.count(), 800);
    // The same file again (a process killed between the commit and the removal): nothing.
    spooled.write().unwrap();
    assert_eq!(store.import_spool().unwrap(), Vec::<i64>::new());
    assert_eq!(runs(&store).len(), 1);
}

#[test]
fn a_spooled_replay_keeps_the_link_to_its_capture() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    let mut store = HistoryStore::open(&path).unwrap();
    let mut capture = header("app", 500);
    capture.kind = diskmeter_history::CAPTURE_KIND.to_string();
    let capture = store.begin_run(&capture).unwrap();
    drop(store);
    // The replay's header as the orchestrator writes it, kept in the spool (the history
    // refused it) and imported by the next save: the link travels with the run.
    let mut replay = header("replay", 1_000);
    replay.kind = "replay".to_string();
    replay.capture_id = Some(capture);
    let steps = [step("replay", 1_000, 300)];
    SpooledRun::new(&path, replay, &steps, end(3_000), None)
        .write()
        .unwrap();
    let mut store = HistoryStore::open(&path).unwrap();
    let ids = store.import_spool().unwrap();
    assert_eq!(store.capture_of(ids[0]).unwrap(), Some(capture));
    assert_eq!(store.replays_of(capture).unwrap(), ids);
}

#[test]
fn two_stores_importing_one_spool_at_once_import_each_run_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    HistoryStore::open(&path).unwrap();
    for i in 0..12u64 {
        let steps = [step(&format!("r{i}"), 1_000 + i, 200)];
        SpooledRun::new(
            &path,
            header(&format!("r{i:02}"), 1_000 + i),
            &steps,
            end(4_000),
            None,
        )
        .write()
        .unwrap();
    }
    let barrier = Arc::new(Barrier::new(2));
    let importers: Vec<_> = (0..2)
        .map(|_| {
            let (barrier, path) = (barrier.clone(), path.clone());
            std::thread::spawn(move || {
                let mut store = HistoryStore::open(&path).unwrap();
                barrier.wait();
                store.import_spool().unwrap()
            })
        })
        .collect();
    let mut imported: Vec<i64> = importers
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    imported.sort();
    imported.dedup();
    let store = HistoryStore::open(&path).unwrap();
    let all = runs(&store);
    assert_eq!(all.len(), 12, "{all:?}");
    assert_eq!(imported.len(), 12);
    assert!(all
        .iter()
        .all(|(_, steps, unfinished)| *steps == 1 && !unfinished));
    assert!(
        !diskmeter_history::spool_folder(&path).exists(),
        "the spool is emptied"
    );
}

#[test]
fn a_spooled_run_completes_the_part_the_history_took_before_the_fault() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    let mut store = HistoryStore::open(&path).unwrap();
    let steps: Vec<NewStep> = (0..4)
        .map(|i| step(&format!("s{i}"), 1_000 + i * 2000, 100 + i))
        .collect();
    let run_id = store.begin_run(&header("cut", 1_000)).unwrap();
    store.append_step(run_id, &steps[0]).unwrap();
    store.append_step(run_id, &steps[1]).unwrap();
    // The history failed at the third step: the whole run goes to the spool.
    let begun = SpooledRunBegun {
        run_id,
        steps_saved: 2,
    };
    SpooledRun::new(&path, header("cut", 1_000), &steps, end(9_000), Some(begun))
        .write()
        .unwrap();
    assert_eq!(store.import_spool().unwrap(), vec![run_id]);
    let run = store.load(run_id).unwrap();
    assert!(!run.summary.unfinished);
    let names: Vec<&str> = run.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["s0", "s1", "s2", "s3"]);
    assert_eq!(run.steps[3].result.jobs[0].read.ios, 206);
    assert_eq!(runs(&store).len(), 1);
    assert!(store.integrity_ok().unwrap());
}

#[test]
fn a_run_spooled_for_a_database_named_by_a_symlink_is_imported_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.db");
    let link = dir.path().join("history.db");
    HistoryStore::open(&real).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let steps = [step("a", 1_000, 300)];
    let file = SpooledRun::new(&link, header("linked", 1_000), &steps, end(3_000), None)
        .write()
        .unwrap()
        .path;
    // The next save goes through the same name the run was spooled under.
    let mut store = HistoryStore::open(&link).unwrap();
    let ids = store.import_spool().unwrap();
    assert_eq!(ids.len(), 1, "{} was not imported", file.display());
    assert!(!file.exists(), "the imported file is removed");
    assert_eq!(runs(&store), [("linked".to_string(), 1, false)]);
}
