//! The results history the browser tests show: one of each kind the report and the dashboard
//! draw, made quickly and for real as the other tests make them — two runs of the same job (a
//! baseline and a candidate at a deeper queue, for the comparison), a suite, a sweep
//! (tests/alone/history.rs, tests/alone/sweep.rs), and a capture written through the history API
//! (tests/seed, as tests/parallel/requirements.rs does). Made once per test binary, in the test
//! process's own history folder (removed at exit).
//!
//! The pages are checked for what they draw, not for the figures, so the runs and the suite
//! run on the null engine and the module does no disk IO (it is in tests/parallel, which
//! never runs beside the measuring binaries); with `DISKMETER_SCREENSHOTS` set they run on
//! files with direct IO, so the pictures for docs/images show a real disk's figures.

#![allow(dead_code)]

use crate::common::{isolate_history, sh};
use crate::seed;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The saved runs and their ids.
pub struct History {
    /// The folder the runs ran in (their files are there).
    pub dir: PathBuf,
    /// The history database (`--db`).
    pub db: PathBuf,
    /// A plain run: random 4 KiB reads and writes at queue depth 1, 3 s (the comparison's
    /// baseline).
    pub run: i64,
    /// The same job at queue depth 4 (the comparison's candidate).
    pub candidate: i64,
    /// Reads and writes of two jobs on the null engine, 2 s (a run's CPU chart is per job).
    pub jobs: i64,
    /// The `realworld` suite (4 steps).
    pub suite: i64,
    /// A sweep of 4 points (QD 1 and 4, 4 KiB and 64 KiB) on the null engine; the newest run
    /// (`last`).
    pub sweep: i64,
    /// A capture of two minutes of `vda` (tests/seed).
    pub capture: i64,
    /// The loop, made for real ([`Loop`]).
    pub linked: Loop,
}

/// The loop capture -> requirements -> plan -> replay -> check, each by its command: a
/// counter capture of the test folder's disk for 2 s while a paced job (100 IOPS of direct
/// 4 KiB reads and writes) runs on it, a plan from it, a 2 s replay of it at p50 held to 200
/// IOPS (a few hundred IOs: this module does next to no disk IO), and a check of the replay
/// against the capture's p50. What the disk did besides is in the capture too, so the
/// verdict may be any of the three; the tests look at the links, not the verdict.
pub struct Loop {
    /// The capture.
    pub capture: i64,
    /// The plan made from it (`saved as plan N`).
    pub plan: i64,
    /// The replay of it.
    pub replay: i64,
    /// The check of the replay against it (`saved as check N`).
    pub check: i64,
}

/// The N of `saved as WHAT N` on `stderr`.
pub fn saved_as(stderr: &[u8], what: &str) -> i64 {
    let text = String::from_utf8_lossy(stderr);
    let words = format!("saved as {what} ");
    text.lines()
        .find_map(|l| l.split_once(&words))
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no '{words}N' in: {text}"))
}

/// The disk (kernel name) holding `dir`, from `findmnt`: `vda` for `/dev/vda1` too.
fn disk_of(dir: &Path) -> String {
    let source = crate::common::sh(&format!("findmnt -no SOURCE -T {}", dir.display()));
    let name = source.trim().trim_start_matches("/dev/").to_string();
    let parent = crate::common::sh(&format!("lsblk -no PKNAME /dev/{name} 2>/dev/null || true"));
    match parent.trim() {
        "" => name,
        disk => disk.to_string(),
    }
}

/// Makes [`Loop`] in `dir`'s history `db`.
fn make_loop(dir: &Path, db: &str) -> Loop {
    let app = crate::common::process()
        .current_dir(dir)
        .args([
            "run",
            "--quiet",
            "--no-save",
            "--name=loop-app",
            "--filename=loop-app.dat",
            "--rw=randrw",
            "--bs=4k",
            "--size=4m",
            "--direct=1",
            "--rate_iops=50",
            "--runtime=3",
            "--time_based",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start the paced job");
    let mut args = vec!["capture", "--duration", "2s", "--interval", "500ms"];
    // The disk the job writes to; where the folder is on no block device (an overlay),
    // every disk with IO.
    let device = disk_of(dir);
    if Path::new("/sys/class/block").join(&device).exists() {
        args.extend(["--device", &device]);
    }
    args.extend(["--name", "loop-app", "--db", db]);
    let capture = crate::common::diskmeter(dir, &args);
    assert!(
        capture.status.success(),
        "capture: {}",
        String::from_utf8_lossy(&capture.stderr)
    );
    let capture = saved_as(&capture.stderr, "capture");
    let _ = app.wait_with_output();
    let id = capture.to_string();
    let plan = crate::common::diskmeter(
        dir,
        &[
            "plan",
            "--from-capture",
            &id,
            "--level",
            "p90",
            "--vm",
            "D8ds_v5",
            "--disks",
            "2xP30",
            "--db",
            db,
        ],
    );
    let plan = saved_as(&plan.stderr, "plan");
    let replay = crate::common::diskmeter(
        dir,
        &[
            "replay",
            &id,
            "loop-replay.dat",
            "--level",
            "p50",
            "--size",
            "4m",
            "--runtime",
            "2",
            "--throttle-iops",
            "200",
            "--quiet",
            "--db",
            db,
        ],
    );
    crate::common::ok(replay);
    let replay = last_id(dir, db);
    let check = crate::common::diskmeter(
        dir,
        &[
            "check",
            &replay.to_string(),
            "--capture",
            &id,
            "--level",
            "p50",
            "--db",
            db,
        ],
    );
    let check = saved_as(&check.stderr, "check");
    Loop {
        capture,
        plan,
        replay,
        check,
    }
}

impl History {
    /// The `--db` argument.
    pub fn db_arg(&self) -> &str {
        self.db.to_str().expect("a UTF-8 path")
    }
}

/// The history of this test binary, made by the first caller.
pub fn history() -> &'static History {
    static HISTORY: OnceLock<History> = OnceLock::new();
    HISTORY.get_or_init(make)
}

/// Runs the diskmeter binary with `args` in `dir`, asserting it succeeds.
pub fn diskmeter(dir: &Path, args: &[&str]) -> String {
    crate::common::ok(crate::common::diskmeter(dir, args))
}

/// The id of the newest run in `db`.
pub fn last_id(dir: &Path, db: &str) -> i64 {
    let list = diskmeter(dir, &["history", "--format=json", "--db", db]);
    let list: serde_json::Value = serde_json::from_str(&list).expect("history JSON");
    list.as_array()
        .and_then(|runs| runs.iter().filter_map(|r| r["id"].as_i64()).max())
        .expect("a run in the history")
}

fn make() -> History {
    let dir = isolate_history().join("browser-history");
    std::fs::create_dir_all(&dir).expect("create the browser tests' folder");
    let db = dir.join("history.db");
    let db_arg = db.to_str().expect("a UTF-8 path").to_string();
    let with_db = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--db", &db_arg]);
        diskmeter(&dir, &all);
        last_id(&dir, &db_arg)
    };
    let real_io = std::env::var_os(crate::common::browser::SCREENSHOTS_ENV).is_some();
    let engine = if real_io {
        "--ioengine=io_uring"
    } else {
        "--ioengine=null"
    };
    let job = |iodepth: &'static str| {
        [
            "run",
            "--quiet",
            "--name=browser-randrw",
            "--filename=randrw.dat",
            "--rw=randrw",
            "--bs=4k",
            "--size=16m",
            "--direct=1",
            engine,
            iodepth,
            "--runtime=3",
            "--time_based",
        ]
    };
    // First, as it started in 2025 (`last` is the newest start): the sweep is `last`.
    let capture = seed::seed_capture(&db);
    let linked = make_loop(&dir, &db_arg);
    let run = with_db(&job("--iodepth=1"));
    let candidate = with_db(&job("--iodepth=4"));
    let jobs = with_db(&[
        "run",
        "--quiet",
        "--name=browser-jobs",
        "--ioengine=null",
        "--rw=randrw",
        "--size=8m",
        "--runtime=2",
        "--time_based",
        "--numjobs=2",
    ]);
    let suite = with_db(&[
        "suite",
        "realworld",
        "suite.dat",
        "--quiet",
        engine,
        "--runtime=2",
        "--size=16m",
    ]);
    let sweep = with_db(&[
        "sweep",
        "sweep.dat",
        "--quiet",
        "--ioengine=null",
        "--qd=1,4",
        "--bs=4k,64k",
        "--point-time=1s",
        "--ramp=100ms",
        "--size=16m",
        "--charts=sweep-charts",
    ]);
    // Nothing of the runs' files is needed: the pages show only the history.
    sh(&format!(
        "rm -rf {0}/randrw.dat {0}/suite.dat {0}/sweep.dat {0}/sweep-charts {0}/loop-*.dat",
        dir.display()
    ));
    History {
        dir,
        db,
        run,
        candidate,
        jobs,
        suite,
        sweep,
        capture,
        linked,
    }
}
