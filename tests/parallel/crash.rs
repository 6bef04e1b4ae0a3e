//! SIGKILL at random moments, 200 times: `run` (null engine, and psync on a test file) and
//! `suite` (psync, four steps saved one by one), two at a time into one history, killed in
//! their startup, layout, IO, save or exit. After every kill the history opens, passes
//! `PRAGMA integrity_check` and holds only whole runs: every run has its host facts and at
//! least one step, finished or listed unfinished; every step has all its histogram and series
//! rows; nothing refers to a run or step that is not there; and `diskmeter history` lists
//! every run. The next run then removes the test files the killed ones left (only files
//! diskmeter made and meant to remove: a user's file at such a path, or a file kept with
//! `--keep`, stays).
//!
//! The moments are random (the seed is printed; `DISKMETER_TEST_SEED` replays a failure).

use crate::common;

use common::TestDir;
use diskmeter_history::HistoryStore;
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// SIGKILLs that must land on a running diskmeter.
const KILLS: usize = 200;

/// The tests here share the data folder's records of test files: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// The data folder (XDG_DATA_HOME) of every diskmeter started here: this module's own, as
/// every run sweeps the records of killed runs when it starts, and the other modules of the
/// test binary start runs at any moment.
fn data_home() -> PathBuf {
    let home = common::isolate_history().join("crash");
    std::fs::create_dir_all(&home).expect("create the crash tests' data folder");
    home
}

/// A small xorshift generator: the moments need no more than that, and a printed seed.
struct Moments(u64);

impl Moments {
    fn new(seed: u64) -> Moments {
        Moments(seed | 1)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A moment uniformly in [0, `within`).
    fn next(&mut self, within: Duration) -> Duration {
        within.mul_f64((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

fn seed() -> u64 {
    let seed = std::env::var("DISKMETER_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    eprintln!("crash tests: DISKMETER_TEST_SEED={seed}");
    seed
}

/// One of the commands killed, and a span its kill moment is drawn from (a little less than
/// it takes a debug build, so most kills land while it runs).
fn command(pick: u64, db: &Path) -> (Vec<String>, Duration) {
    let db = db.display().to_string();
    let (args, within_ms): (&[&str], u64) = match pick % 3 {
        0 => (&["run", "--name=n", "--ioengine=null", "--size=1m"], 150),
        1 => (&["run", "--name=f", "--ioengine=psync", "--size=1m"], 200),
        _ => (
            &["suite", "peak", ".", "--ioengine=psync", "--size=2m"],
            450,
        ),
    };
    let timing: &[&str] = match pick % 3 {
        2 => &["--runtime=30ms", "--no-auto-stop"],
        _ => &["--runtime=50ms", "--time_based"],
    };
    let all = args.iter().chain(timing).chain(&["--quiet", "--db"]);
    let mut all: Vec<String> = all.map(|s| s.to_string()).collect();
    all.push(db);
    (all, Duration::from_millis(within_ms))
}

fn spawn(dir: &Path, args: &[String]) -> Child {
    common::process()
        .current_dir(dir)
        .env("XDG_DATA_HOME", data_home())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start diskmeter")
}

/// A number from one SQL query.
fn count(store: &HistoryStore, sql: &str) -> i64 {
    store.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A number from one SQL query about one step (`?1` its run, `?2` its position).
fn count_of_step(store: &HistoryStore, sql: &str, (run_id, position): (i64, u32)) -> i64 {
    let conn = store.connection();
    conn.query_row(sql, [run_id, i64::from(position)], |r| r.get(0))
        .unwrap()
}

/// Checks that `db` holds only whole runs (see the module's documentation) and returns the
/// ids of its runs. Steps already checked (in `checked`) are not loaded again: a saved step
/// never changes.
fn check_whole(db: &Path, checked: &Mutex<HashSet<(i64, u32)>>) -> Result<Vec<i64>, String> {
    if !db.exists() {
        return Ok(Vec::new());
    }
    let store = HistoryStore::open(db).map_err(|e| format!("does not open: {e}"))?;
    if !store.integrity_ok().map_err(|e| e.to_string())? {
        return Err("PRAGMA integrity_check is not ok".into());
    }
    // One read snapshot for every question below (the other diskmeter keeps writing).
    store.connection().execute_batch("BEGIN").unwrap();
    let broken = [
        (
            "steps of no run",
            "SELECT COUNT(*) FROM steps WHERE run_id NOT IN (SELECT id FROM runs)",
        ),
        (
            "host facts of no run",
            "SELECT COUNT(*) FROM host_facts WHERE run_id NOT IN (SELECT id FROM runs)",
        ),
        (
            "histograms of no step",
            "SELECT COUNT(*) FROM histograms h WHERE NOT EXISTS
            (SELECT 1 FROM steps s WHERE s.run_id = h.run_id AND s.position = h.position)",
        ),
        (
            "job histograms of no step",
            "SELECT COUNT(*) FROM job_histograms h WHERE NOT EXISTS
            (SELECT 1 FROM steps s WHERE s.run_id = h.run_id AND s.position = h.position)",
        ),
        (
            "series of no step",
            "SELECT COUNT(*) FROM series x WHERE NOT EXISTS
            (SELECT 1 FROM steps s WHERE s.run_id = x.run_id AND s.position = x.position)",
        ),
        (
            "runs without a step",
            "SELECT COUNT(*) FROM runs r WHERE NOT EXISTS
            (SELECT 1 FROM steps s WHERE s.run_id = r.id)",
        ),
        (
            "runs without host facts",
            "SELECT COUNT(*) FROM runs r WHERE NOT EXISTS
            (SELECT 1 FROM host_facts f WHERE f.run_id = r.id)",
        ),
        (
            "runs with a gap in their steps",
            "SELECT COUNT(*) FROM (SELECT run_id FROM steps
            GROUP BY run_id HAVING MAX(position) + 1 != COUNT(*))",
        ),
        (
            "unfinished runs not partial",
            "SELECT COUNT(*) FROM runs WHERE unfinished AND NOT partial",
        ),
        (
            "finished runs without a headline",
            "SELECT COUNT(*) FROM runs WHERE NOT unfinished AND summary = ''",
        ),
    ];
    for (what, sql) in broken {
        let n = count(&store, sql);
        if n != 0 {
            return Err(format!("{n} {what}"));
        }
    }
    let ids: Vec<i64> = {
        let mut statement = store.connection().prepare("SELECT id FROM runs").unwrap();
        let rows = statement.query_map([], |r| r.get::<_, i64>(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    // Only the runs with steps not checked yet are loaded.
    let unchecked: Vec<i64> = {
        let mut statement = store
            .connection()
            .prepare("SELECT run_id, position FROM steps")
            .unwrap();
        let rows = statement.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, u32>(1)?)));
        let done = checked.lock().unwrap();
        let mut runs: Vec<i64> = rows
            .unwrap()
            .map(Result::unwrap)
            .filter(|key| !done.contains(key))
            .map(|(id, _)| id)
            .collect();
        runs.dedup();
        runs
    };
    for id in unchecked {
        let run = store
            .load(id)
            .map_err(|e| format!("run {id} does not load: {e}"))?;
        for (position, step) in run.steps.iter().enumerate() {
            let key = (id, position as u32);
            if checked.lock().unwrap().contains(&key) {
                continue;
            }
            let directions = step.result.jobs.iter().fold([0u64; 2], |[r, w], job| {
                [r + job.read.ios, w + job.write.ios]
            });
            let want_histograms = 2 * directions.iter().filter(|&&ios| ios > 0).count() as i64;
            // The step's clat and lat per direction: rows of its own (steps saved before the
            // jobs carried histograms), or merged from its jobs' rows (stored once).
            let histograms = count_of_step(
                &store,
                "SELECT (SELECT COUNT(*) FROM histograms WHERE run_id = ?1 AND position = ?2)
                    + (SELECT COUNT(DISTINCT direction || '/' || kind) FROM job_histograms
                       WHERE run_id = ?1 AND position = ?2 AND rank = -1
                         AND direction IN ('read', 'write') AND kind IN ('clat', 'lat'))",
                key,
            );
            let series = count_of_step(
                &store,
                "SELECT COUNT(*) FROM series WHERE run_id = ?1 AND position = ?2",
                key,
            );
            if histograms != want_histograms || series != step.series().len() as i64 {
                return Err(format!(
                    "run {id} step {position} is not whole: {histograms} histograms \
                     ({want_histograms} due), {series} series rows ({} due)",
                    step.series().len()
                ));
            }
            checked.lock().unwrap().insert(key);
        }
    }
    store.connection().execute_batch("COMMIT").unwrap();
    Ok(ids)
}

/// `diskmeter history` lists every run of `ids`.
fn listing_has(dir: &Path, db: &Path, ids: &[i64]) -> Result<(), String> {
    if ids.is_empty() {
        return Ok(());
    }
    let db = db.display().to_string();
    let args = [
        "history", "--format", "json", "--limit", "100000", "--db", &db,
    ];
    let home = data_home();
    let env = [("XDG_DATA_HOME", home.to_str().expect("a UTF-8 path"))];
    let output = common::diskmeter_with_env(dir, &env, &args);
    if !output.status.success() {
        return Err(format!(
            "diskmeter history failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let listed: Value = serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    let listed: HashSet<i64> = listed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["id"].as_i64())
        .collect();
    match ids.iter().find(|id| !listed.contains(id)) {
        Some(missing) => Err(format!("diskmeter history does not list run {missing}")),
        None => Ok(()),
    }
}

#[test]
fn sigkill_at_random_moments_leaves_only_whole_runs_and_no_test_files() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let seed = seed();
    let history = TestDir::new();
    let db = history.path().join("history.db");
    let landed = Arc::new(AtomicUsize::new(0));
    let checked = Arc::new(Mutex::new(HashSet::new()));
    let folders: Vec<TestDir> = (0..2).map(|_| TestDir::new()).collect();
    let slots: Vec<_> = folders
        .iter()
        .enumerate()
        .map(|(slot, folder)| {
            let (db, landed, checked) = (db.clone(), landed.clone(), checked.clone());
            let dir = folder.path().to_path_buf();
            std::thread::spawn(move || {
                let mut moments = Moments::new(seed.wrapping_add(slot as u64 * 0x9e37_79b9));
                let (mut trial, mut exits) = (0, 0);
                while landed.load(Ordering::Relaxed) < KILLS {
                    trial += 1;
                    assert!(trial < 4 * KILLS, "seed {seed}: the kills do not land");
                    let (args, within) = command(moments.next_u64() >> 33, &db);
                    let moment = moments.next(within);
                    let mut child = spawn(&dir, &args);
                    std::thread::sleep(moment);
                    let killed = child.try_wait().unwrap().is_none();
                    if killed {
                        child.kill().expect("SIGKILL diskmeter");
                        landed.fetch_add(1, Ordering::Relaxed);
                    }
                    let output = child.wait_with_output().unwrap();
                    assert!(
                        killed || output.status.success(),
                        "seed {seed}, slot {slot}, trial {trial}: {args:?} failed: {}",
                        String::from_utf8_lossy(&output.stderr)
                    );
                    exits += usize::from(!killed);
                    let after = if killed { "a kill" } else { "an exit" };
                    let whole =
                        check_whole(&db, &checked).and_then(|ids| listing_has(&dir, &db, &ids));
                    if let Err(problem) = whole {
                        panic!(
                            "seed {seed}, slot {slot}, trial {trial}: after {after} at \
                             {moment:?} of {args:?}: the history {problem}"
                        );
                    }
                }
                exits
            })
        })
        .collect();
    let exits: usize = slots
        .into_iter()
        .map(|s| s.join().expect("a slot failed"))
        .sum();
    let store = HistoryStore::open(&db).unwrap();
    let unfinished = count(&store, "SELECT COUNT(*) FROM runs WHERE unfinished");
    eprintln!(
        "seed {seed}: {} kills and {exits} exits left {} runs, {unfinished} of them unfinished",
        landed.load(Ordering::Relaxed),
        count(&store, "SELECT COUNT(*) FROM runs"),
    );
    // The next run removes what the killed ones left behind.
    let last = TestDir::new();
    let (args, _) = command(0, &db);
    let output = spawn(last.path(), &args).wait_with_output().unwrap();
    assert!(output.status.success());
    for folder in &folders {
        for name in folder.files() {
            let path = folder.path().join(&name);
            let bytes = std::fs::metadata(&path).unwrap().len();
            // Killed between creating the file and marking it, a microsecond apart: the
            // file is empty and unmarked, and an unmarked file is never removed.
            if bytes == 0 {
                eprintln!(
                    "seed {seed}: an empty unmarked file stays: {}",
                    path.display()
                );
                continue;
            }
            panic!(
                "seed {seed}: {} ({bytes} bytes) was left behind",
                path.display()
            );
        }
    }
}

/// Starts `diskmeter run` of a psync job on a 4 MiB file `k.0.0` in `dir` that runs for a
/// minute unless killed; returns it and its file.
fn long_run(dir: &Path, more: &[&str]) -> (Child, PathBuf) {
    let args: Vec<String> = ["run", "--name=k", "--ioengine=psync", "--size=4m"]
        .iter()
        .chain(&["--runtime=60", "--time_based", "--quiet", "--no-save"])
        .chain(more)
        .map(|s| s.to_string())
        .collect();
    (spawn(dir, &args), dir.join("k.0.0"))
}

/// Waits (at most 12 s) until a [`long_run`]'s 4 MiB file is laid out.
fn wait_for_layout(file: &Path) {
    for _ in 0..600 {
        if std::fs::metadata(file).is_ok_and(|m| m.len() == 4 << 20) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills (SIGKILL) `child` once its file is laid out and its IO has begun.
fn kill_in_its_io((mut child, file): (Child, PathBuf)) -> PathBuf {
    wait_for_layout(&file);
    // The layout ends with the file at its size; the IO follows.
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended by itself"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(file.exists(), "the killed run left {}", file.display());
    file
}

#[test]
fn a_test_file_left_by_a_killed_run_is_removed_by_the_next_run() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (ours, replaced, kept, next) = (
        TestDir::new(),
        TestDir::new(),
        TestDir::new(),
        TestDir::new(),
    );
    // All three run at once (a run sweeps when it starts), then are killed.
    let runs = [
        long_run(ours.path(), &[]),
        long_run(replaced.path(), &[]),
        long_run(kept.path(), &["--keep"]),
    ];
    // Each run sweeps the records of dead runs when it starts: none is killed before all three
    // are in their IO, or a late starter would sweep the first one's file before `next` does.
    for (_, file) in &runs {
        wait_for_layout(file);
    }
    let [left, users, keep] = runs.map(kill_in_its_io);
    // A file the user put where a killed run's file was: not diskmeter's, never removed.
    std::fs::remove_file(&users).unwrap();
    std::fs::write(&users, b"the user's data").unwrap();
    let home = data_home();
    let output = common::diskmeter_with_env(
        next.path(),
        &[("XDG_DATA_HOME", home.to_str().expect("a UTF-8 path"))],
        &[
            "run",
            "--name=next",
            "--ioengine=null",
            "--size=1m",
            "--runtime=10ms",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert!(!left.exists(), "{} is still there", left.display());
    assert!(
        stderr.contains(&format!("removed {}", left.display())),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&users).unwrap(), b"the user's data");
    // A file kept on purpose (--keep) was never recorded for removal.
    assert!(keep.exists(), "the kept file was removed");
    assert!(!stderr.contains(&users.display().to_string()), "{stderr}");
    // The records are swept with the files.
    let records = data_home().join("diskmeter/state/files");
    let left_records: Vec<_> = std::fs::read_dir(&records)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left_records.is_empty(), "{left_records:?}");
}
