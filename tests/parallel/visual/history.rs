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
        "rm -rf {0}/randrw.dat {0}/suite.dat {0}/sweep.dat {0}/sweep-charts",
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
    }
}
