//! The results history when it cannot take a run, through the real binary: locked by another
//! writer (a transaction held longer than diskmeter waits), read-only (a read-only bind
//! mount, an immutable file), a file or a folder this user may not use (mode 000, a folder of
//! root's, run as nobody), damaged (garbage bytes, a truncated file). Each time the run's
//! results are still printed, one line on stderr names the database, the cause with what to do
//! about it (issue 32) and the spool file that keeps the run (and why it is not beside the
//! database, when it is not), the exit code is 1, and once the fault is gone the next save puts the spooled run
//! into the history, whole and once. The reading commands say what is wrong in one line
//! (exit 1), or read what can be read; nothing panics. (docs/guide/9-reference.md, "What diskmeter does when
//! things go wrong".)

use crate::common;

use common::TestDir;
use diskmeter_history::{HistoryStore, RunFilter};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// How long the runs here wait for a lock, ms (the default 10 s would only slow the tests).
const BUSY_TIMEOUT_MS: &str = "300";

/// `diskmeter ARGS` in `dir` with the short busy timeout.
fn diskmeter(dir: &Path, args: &[&str]) -> Output {
    let env = [("DISKMETER_HISTORY_BUSY_TIMEOUT_MS", BUSY_TIMEOUT_MS)];
    common::diskmeter_with_env(dir, &env, args)
}

/// A short null-engine run named `name` saving into `db`, its results as JSON on stdout.
fn run_into(dir: &Path, db: &Path, name: &str) -> Output {
    let args = run_args(db, name);
    diskmeter(dir, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The arguments of [`run_into`]'s run: a 20 ms null-engine job saving into `db`.
fn run_args(db: &Path, name: &str) -> Vec<String> {
    let db = db.display().to_string();
    [
        "run",
        "--quiet",
        &format!("--name={name}"),
        "--ioengine=null",
        "--size=1m",
        "--runtime=20ms",
        "--time_based",
        "--output-format=json",
        "--db",
        &db,
    ]
    .map(str::to_string)
    .to_vec()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A run the history refused: exit 1, its results printed, and one line on stderr naming
/// the database, `cause` and the spool file, which holds the run. Returns the spool file and
/// the printed results.
fn refused(output: &Output, db: &Path, cause: &str) -> (PathBuf, Value) {
    let line = common::one_line_failure(output, &[&db.display().to_string(), cause]);
    let results: Value = serde_json::from_slice(&output.stdout).expect("the results printed");
    assert!(
        results["jobs"][0]["read"]["ios"].as_u64() > Some(0),
        "{results}"
    );
    let spool = line
        .split("the run is kept in ")
        .nth(1)
        .and_then(|rest| rest.split(" and goes into the history").next())
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no spool file named: {line}"));
    assert!(spool.is_file(), "{}", spool.display());
    (spool, results)
}

/// A reading command that cannot read `db`: exit 1, one line naming it and `cause`.
fn read_refused(dir: &Path, args: &[&str], db: &Path, cause: &str) {
    let db_arg = db.display().to_string();
    let mut args = args.to_vec();
    args.extend(["--db", &db_arg]);
    common::one_line_failure(&diskmeter(dir, &args), &[&db_arg, cause]);
}

/// The names `diskmeter history` lists for `db`.
fn listed(dir: &Path, db: &Path) -> Vec<String> {
    let db = db.display().to_string();
    let output = diskmeter(dir, &["history", "--format", "json", "--db", &db]);
    let runs: Value = serde_json::from_str(&common::ok(output)).unwrap();
    let names = runs.as_array().unwrap().iter();
    names
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

/// Once the fault is gone, the next run into `db` saves the spooled run `name` first: both
/// are listed once, the spooled one with the figures it printed, and the spool file is gone.
fn spooled_run_comes_back(dir: &Path, db: &Path, name: &str, spool: &Path, printed: &Value) {
    let output = run_into(dir, db, "after");
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("saved 1 earlier run(s) kept in the spool"),
        "{stderr}"
    );
    assert!(!spool.exists(), "{} is still there", spool.display());
    let store = HistoryStore::open(db).unwrap();
    let runs = store.list(&RunFilter::default()).unwrap();
    let spooled: Vec<_> = runs.iter().filter(|r| r.name == name).collect();
    assert_eq!(spooled.len(), 1, "{runs:?}");
    assert_eq!(runs.iter().filter(|r| r.name == "after").count(), 1);
    assert!(!spooled[0].unfinished && spooled[0].steps == 1, "{runs:?}");
    let run = store.load(spooled[0].id).unwrap();
    let stored = serde_json::to_value(&run.steps[0].result).unwrap();
    assert_eq!(
        stored["jobs"][0]["read"]["ios"],
        printed["jobs"][0]["read"]["ios"]
    );
    assert_eq!(stored["meta"], printed["meta"], "the same run, whole");
    let histogram = store.histogram(spooled[0].id, 0, "read", "clat").unwrap();
    assert!(
        histogram.is_some_and(|h| h.count() > 0),
        "its histogram too"
    );
    assert!(store.integrity_ok().unwrap());
}

/// Holds `db`'s write lock (an open write transaction) until dropped; with `readers_too`,
/// in SQLite's exclusive locking mode, which shuts readers out as well.
struct Locker(HistoryStore);

impl Locker {
    fn new(db: &Path, readers_too: bool) -> Locker {
        let store = HistoryStore::open(db).unwrap();
        if readers_too {
            store
                .connection()
                .execute_batch("PRAGMA locking_mode = EXCLUSIVE")
                .unwrap();
        }
        store
            .connection()
            .execute_batch(
                "BEGIN EXCLUSIVE;
                 INSERT INTO warmups (target, device, file, warmed_unix_ms, boot_id)
                     VALUES ('lock', 'lock', 'lock', 0, 'lock');",
            )
            .unwrap();
        Locker(store)
    }
}

impl Drop for Locker {
    fn drop(&mut self) {
        let _ = self.0.connection().execute_batch("ROLLBACK");
    }
}

#[test]
fn a_history_locked_by_another_writer_keeps_the_run_in_the_spool() {
    let (work, history) = (TestDir::new(), TestDir::new());
    let db = history.path().join("history.db");
    common::ok(run_into(work.path(), &db, "before"));
    let locker = Locker::new(&db, false);
    let cause = "locked by another process (another diskmeter saving, or a program holding";
    let (spool, printed) = refused(&run_into(work.path(), &db, "locked"), &db, cause);
    assert!(spool.starts_with(diskmeter_history::spool_folder(&db)));
    // Readers are not held up by a writer (WAL): the history lists what it holds.
    assert_eq!(listed(work.path(), &db), ["before"]);
    drop(locker);
    spooled_run_comes_back(work.path(), &db, "locked", &spool, &printed);
}

#[test]
fn a_history_locked_against_readers_too_is_said_in_one_line() {
    let (work, history) = (TestDir::new(), TestDir::new());
    let db = history.path().join("history.db");
    common::ok(run_into(work.path(), &db, "before"));
    let locker = Locker::new(&db, true);
    read_refused(work.path(), &["history"], &db, "locked");
    read_refused(work.path(), &["show", "last"], &db, "locked");
    let (spool, printed) = refused(&run_into(work.path(), &db, "locked"), &db, "locked");
    drop(locker);
    spooled_run_comes_back(work.path(), &db, "locked", &spool, &printed);
}

/// A read-only bind mount of a folder, unmounted on drop.
struct ReadOnlyView(PathBuf);

impl ReadOnlyView {
    fn new(folder: &Path, at: &Path) -> ReadOnlyView {
        std::fs::create_dir_all(at).unwrap();
        let (folder, at_text) = (folder.display(), at.display());
        common::sh(&format!("mount --bind '{folder}' '{at_text}'"));
        let view = ReadOnlyView(at.to_path_buf());
        common::sh(&format!("mount -o remount,ro,bind '{at_text}'"));
        view
    }
}

impl Drop for ReadOnlyView {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_read_only_history_keeps_the_run_in_the_data_folders_spool() {
    if !common::require_root("a_read_only_history_keeps_the_run_in_the_data_folders_spool") {
        return;
    }
    let (work, history) = (TestDir::new(), TestDir::new());
    let writable = history.path().join("rw");
    std::fs::create_dir_all(&writable).unwrap();
    common::ok(run_into(
        work.path(),
        &writable.join("history.db"),
        "before",
    ));
    let view = ReadOnlyView::new(&writable, &history.path().join("ro"));
    let db = view.0.join("history.db");
    let cause = "the file is on a read-only filesystem (Read-only file system (os error 30)); \
                 give another --db on a writable filesystem";
    let output = run_into(work.path(), &db, "read-only");
    let (spool, printed) = refused(&output, &db, cause);
    // Its own folder cannot be written: the spool is in the user's data folder, and the
    // line says why.
    let data_spool = common::isolate_history().join("diskmeter/spool");
    assert!(spool.starts_with(&data_spool), "{}", spool.display());
    let why = format!(
        "(in the data folder: {} beside the database cannot be written: Read-only file system",
        diskmeter_history::spool_folder(&db).display()
    );
    assert!(
        text(&output.stderr).contains(&why),
        "{}",
        text(&output.stderr)
    );
    // Reading needs no writing.
    assert_eq!(listed(work.path(), &db), ["before"]);
    common::ok(diskmeter(
        work.path(),
        &["show", "last", "--db", &db.display().to_string()],
    ));
    drop(view);
    // The same file, written through its own folder, takes the spooled run.
    let db = writable.join("history.db");
    spooled_run_comes_back(work.path(), &db, "read-only", &spool, &printed);
}

/// `chattr +i` or `-i` on `path`; false where the filesystem (or the system) has no such flag.
fn immutable(path: &Path, on: bool) -> bool {
    let flag = if on { "+i" } else { "-i" };
    std::process::Command::new("chattr")
        .arg(flag)
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn an_immutable_history_file_keeps_the_run_in_the_spool_beside_it() {
    if !common::require_root("an_immutable_history_file_keeps_the_run_in_the_spool_beside_it") {
        return;
    }
    let (work, history) = (TestDir::new(), TestDir::new());
    let db = history.path().join("history.db");
    common::ok(run_into(work.path(), &db, "before"));
    if !immutable(&db, true) {
        // Not a failure of diskmeter's: the read-only mount above covers the fault.
        eprintln!("NOTE: chattr +i is not available here; the immutable case was not run");
        return;
    }
    let output = run_into(work.path(), &db, "immutable");
    let listing = diskmeter(work.path(), &["history", "--db", &db.display().to_string()]);
    immutable(&db, false);
    let cause = "the file is immutable, so read-only (Operation not permitted (os error 1); \
                 lsattr shows the i flag): remove the flag (chattr -i ";
    let (spool, printed) = refused(&output, &db, cause);
    assert!(spool.starts_with(diskmeter_history::spool_folder(&db)));
    assert!(common::ok(listing).contains("before"));
    spooled_run_comes_back(work.path(), &db, "immutable", &spool, &printed);
}

/// A history holding a few runs, closed, at `db`.
fn history_with_runs(work: &Path, db: &Path) {
    for n in 0..3 {
        common::ok(run_into(work, db, &format!("old{n}")));
    }
    // Every page in the file itself, as a history at rest is.
    let store = HistoryStore::open(db).unwrap();
    store
        .connection()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
}

#[test]
fn a_damaged_history_is_refused_and_the_run_kept_beside_it() {
    let work = TestDir::new();
    for damage in ["garbage", "truncated"] {
        let history = TestDir::new();
        let db = history.path().join("history.db");
        match damage {
            "garbage" => {
                let bytes: Vec<u8> = (0..64_000u32)
                    .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
                    .collect();
                std::fs::write(&db, bytes).unwrap();
            }
            _ => {
                history_with_runs(work.path(), &db);
                let len = std::fs::metadata(&db).unwrap().len();
                let file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
                file.set_len(len * 2 / 3).unwrap();
            }
        }
        let before = std::fs::read(&db).unwrap();
        let cause = "damaged";
        let (spool, printed) = refused(&run_into(work.path(), &db, damage), &db, cause);
        let what_to_do = "move it aside (rename it: the next run makes a new one, and \
                          sqlite3's .recover may get its runs back), or give another --db";
        read_refused(work.path(), &["history"], &db, what_to_do);
        assert!(spool.starts_with(diskmeter_history::spool_folder(&db)));
        read_refused(work.path(), &["history"], &db, "damaged");
        read_refused(work.path(), &["show", "last"], &db, "damaged");
        assert!(
            std::fs::read(&db).unwrap() == before,
            "{damage}: left as it was"
        );
        // Moved aside, a new history is made and takes the spooled run.
        std::fs::rename(&db, history.path().join("damaged.db")).unwrap();
        spooled_run_comes_back(work.path(), &db, damage, &spool, &printed);
    }
}

/// The user nobody runs diskmeter where root would bypass file modes.
const NOBODY: &str = "65534";

/// `diskmeter ARGS` in `dir` as the user nobody (setpriv), with `data` as its data folder
/// (XDG_DATA_HOME), and the short busy timeout.
fn as_nobody(dir: &Path, data: &Path, args: &[&str]) -> Output {
    std::process::Command::new("setpriv")
        .args([
            &format!("--reuid={NOBODY}"),
            &format!("--regid={NOBODY}"),
            "--clear-groups",
            "--",
        ])
        .arg(common::binary())
        .args(args)
        .current_dir(dir)
        .env("XDG_DATA_HOME", data)
        .env("DISKMETER_HISTORY_BUSY_TIMEOUT_MS", BUSY_TIMEOUT_MS)
        .output()
        .expect("run diskmeter as nobody")
}

/// Folders the user nobody may enter (`chmod 755`) and, with `own`, write (`chown`).
fn open_to_nobody(folders: &[&Path], own: bool) {
    for folder in folders {
        let own = if own {
            format!(" && chown {NOBODY}:{NOBODY} '{}'", folder.display())
        } else {
            String::new()
        };
        common::sh(&format!("chmod 755 '{}'{own}", folder.display()));
    }
}

/// The null-engine run of [`run_into`], as nobody.
fn run_as_nobody(dir: &Path, data: &Path, db: &Path, name: &str) -> Output {
    let args = run_args(db, name);
    as_nobody(
        dir,
        data,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    )
}

/// A history file of mode 000 (issue 32): the hint is the file's permissions, naming its
/// mode, its owner, `chmod` and `--db`, not "is its folder writable?"; its folder can be
/// written, so the run is spooled beside it, and reading says the same. Root reads any
/// file, so diskmeter runs as nobody.
#[test]
fn an_unreadable_history_file_gets_the_permission_hint() {
    let test = "an_unreadable_history_file_gets_the_permission_hint";
    if !common::require_root(test) || !common::require_tool(test, "setpriv") {
        return;
    }
    let (work, history, data) = (TestDir::new(), TestDir::new(), TestDir::new());
    open_to_nobody(&[work.path(), data.path()], true);
    open_to_nobody(&[history.path()], true);
    let db = history.path().join("history.db");
    common::ok(run_into(work.path(), &db, "before"));
    common::sh(&format!("chmod 000 '{}'", db.display()));
    let hint = "this user (uid 65534) may neither read nor write the file (mode 0000, owned by \
                uid 0; Permission denied (os error 13)): let it (as its owner or root: chmod \
                a+rw ";
    let output = run_as_nobody(work.path(), data.path(), &db, "unreadable");
    let (spool, printed) = refused(&output, &db, hint);
    let line = text(&output.stderr);
    assert!(line.contains("or give another --db"), "{line}");
    assert!(!line.contains("folder"), "{line}");
    assert!(spool.starts_with(diskmeter_history::spool_folder(&db)));
    let db_arg = db.display().to_string();
    let reading = as_nobody(work.path(), data.path(), &["history", "--db", &db_arg]);
    let line = common::one_line_failure(&reading, &[&db_arg, "cannot be read: ", hint]);
    assert!(!line.contains("folder"), "{line}");
    common::sh(&format!("chmod 644 '{}'", db.display()));
    spooled_run_comes_back(work.path(), &db, "unreadable", &spool, &printed);
}

/// A history whose folder this user may not write: the hint is the folder, and the run is
/// kept in the data folder's spool, the line saying where and why not beside the database;
/// a save with that data folder puts it in once the folder can be written.
#[test]
fn a_history_folder_that_is_not_writable_spools_to_the_data_folder_and_says_why() {
    let test = "a_history_folder_that_is_not_writable_spools_to_the_data_folder_and_says_why";
    if !common::require_root(test) || !common::require_tool(test, "setpriv") {
        return;
    }
    let (work, history, data) = (TestDir::new(), TestDir::new(), TestDir::new());
    open_to_nobody(&[work.path(), data.path()], true);
    open_to_nobody(&[history.path()], false);
    let db = history.path().join("history.db");
    let output = run_as_nobody(work.path(), data.path(), &db, "elsewhere");
    let folder = history.path().display().to_string();
    let (spool, _) = refused(
        &output,
        &db,
        &format!(
            "its folder {folder} is not writable by this user (Permission denied (os error 13))"
        ),
    );
    assert!(spool.starts_with(data.path().join("diskmeter/spool")));
    let line = text(&output.stderr);
    let why = format!(
        "(in the data folder: {} beside the database cannot be written: Permission denied",
        diskmeter_history::spool_folder(&db).display()
    );
    assert!(line.contains(&why), "{line}");
    assert!(
        line.contains("or give another --db in a folder you can write"),
        "{line}"
    );
    // As root (who may write the folder), with that data folder: the run goes in.
    let env = [("XDG_DATA_HOME", data.path().to_str().unwrap())];
    let db_arg = db.display().to_string();
    let args = [
        "run",
        "--quiet",
        "--name=after",
        "--ioengine=null",
        "--size=1m",
    ];
    let output = common::diskmeter_with_env(
        work.path(),
        &env,
        &[
            &args[..],
            &["--runtime=20ms", "--time_based", "--db", &db_arg],
        ]
        .concat(),
    );
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("saved 1 earlier run(s) kept in the spool"),
        "{stderr}"
    );
    assert!(!spool.exists(), "{} is still there", spool.display());
    assert_eq!(listed(work.path(), &db).len(), 2);
}
