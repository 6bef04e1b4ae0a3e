//! Runs in progress through the real binary: a saving `diskmeter run` writes its live row and
//! per-second counters into the history while it runs (read here through the history
//! crate's read API, as the dashboard reads them), and when it ends the row is marked ended
//! and links to the run it was saved as; `--no-save` writes nothing.

mod common;

use common::TestDir;
use diskmeter_history::{HistoryStore, StoredLivePoint};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// `diskmeter run --quiet ARGS` in `t`: a null-engine job paced at 2,000 IO/s for 3 s.
fn spawn_run(t: &TestDir, extra: &[&str]) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("diskmeter"))
        .current_dir(t.path())
        .args([
            "run",
            "--quiet",
            "--name=live",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=8m",
            "--rate_iops=2000",
            "--runtime=3",
            "--time_based",
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start diskmeter")
}

fn now_unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The points of the newest live run in `db`, read while `child` runs (the last read before
/// it exited), and whether the run was seen running.
fn watch_while_running(db: &Path, child: &mut Child) -> (Vec<StoredLivePoint>, bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut points, mut seen_running) = (Vec::new(), false);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the run did not end");
        if db.exists() {
            let store = HistoryStore::open(db).unwrap();
            if let Some(live) = store.live_runs().unwrap().first() {
                if live.is_running(now_unix_ms()) {
                    seen_running = true;
                    let now = store.live_points(live.id, 0).unwrap();
                    if now.len() >= points.len() {
                        points = now;
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    (points, seen_running)
}

#[test]
fn a_saving_run_shows_growing_live_points_then_ends_linked_to_its_saved_run() {
    let t = TestDir::new();
    let db = t.path().join("history.db");
    let mut child = spawn_run(&t, &["--db", db.to_str().unwrap()]);
    let (points, seen_running) = watch_while_running(&db, &mut child);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    assert!(seen_running, "the live run was never seen running");
    // A point at the step's start and one a second: a 3 s run shows at least 3 while it runs.
    assert!(points.len() >= 3, "{points:#?}");
    assert!(points.iter().all(|p| p.point.step_position == 0));
    assert!(points.iter().all(|p| p.point.step_name == "live"));
    for pair in points.windows(2) {
        let (a, b) = (&pair[0].point, &pair[1].point);
        assert!(
            a.t_unix_ms < b.t_unix_ms && a.read_ios <= b.read_ios,
            "{pair:#?}"
        );
        assert_eq!(b.read_bytes, b.read_ios * 4096);
        assert_eq!(b.write_ios, 0);
    }
    let (first, last) = (&points[0].point, &points.last().unwrap().point);
    assert!(last.read_ios > first.read_ios, "{points:#?}");

    let store = HistoryStore::open(&db).unwrap();
    let run_id = store.newest_id().unwrap().expect("the run was saved");
    let saved = store.load(run_id).unwrap();
    assert_eq!(saved.steps.len(), 1);
    assert!(!saved.summary.unfinished);
    let live = store.live_runs().unwrap();
    assert_eq!(live.len(), 1, "{live:#?}");
    assert_eq!(
        live[0].run_id,
        Some(run_id),
        "the live row links to the saved run"
    );
    assert_eq!(live[0].header.kind, "run");
    assert_eq!(live[0].header.name, "live");
    assert!(live[0].ended_unix_ms.is_some(), "marked ended");
    assert!(!live[0].is_running(now_unix_ms()));
    assert!(
        store.live_points(live[0].id, 0).unwrap().is_empty(),
        "an ended run's points are deleted: the saved run holds its series"
    );
}

#[test]
fn no_save_writes_no_live_rows() {
    let t = TestDir::new();
    let db = t.path().join("history.db");
    let output = spawn_run(&t, &["--db", db.to_str().unwrap(), "--no-save"])
        .wait_with_output()
        .unwrap();
    assert!(output.status.success());
    assert!(!db.exists(), "--no-save created the database");
}
