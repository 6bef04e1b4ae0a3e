//! Runs in progress through the real binary: a saving `diskmeter run` writes its live row and
//! per-second counters into the history while it runs (read here through the history
//! crate's read API, as the dashboard reads them), and when it ends the row is marked ended
//! and links to the run it was saved as; `--no-save` writes nothing. `diskmeter serve`
//! streams the points as server-sent events (`/events`, read here with ureq) and lists the
//! run in its "Runs in progress" block.

use crate::common;

use common::serve::Server;
use common::TestDir;
use diskmeter_history::{HistoryStore, StoredLivePoint, LIVE_STALE_AFTER_MS};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// `diskmeter run --quiet ARGS` in `t`: a null-engine job paced at 2,000 IO/s for 3 s
/// (unless `extra` says otherwise).
fn spawn_run(t: &TestDir, extra: &[&str]) -> Child {
    common::process()
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

#[test]
fn a_dry_run_writes_no_live_rows() {
    let t = TestDir::new();
    let db = t.path().join("history.db");
    let output = spawn_run(&t, &["--db", db.to_str().unwrap(), "--dry-run"])
        .wait_with_output()
        .unwrap();
    assert!(output.status.success());
    assert!(!db.exists(), "--dry-run created the database");
}

#[test]
fn a_killed_runs_live_row_stops_beating_and_never_ends() {
    let t = TestDir::new();
    let db = t.path().join("history.db");
    let mut child = spawn_run(&t, &["--db", db.to_str().unwrap(), "--runtime=60"]);
    let deadline = Instant::now() + Duration::from_secs(60);
    let live_id = loop {
        assert!(Instant::now() < deadline, "no live point appeared");
        if db.exists() {
            let store = HistoryStore::open(&db).unwrap();
            let points = store.live_points_after(0, 10).unwrap();
            if points.len() >= 2 {
                break points[0].live_id;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    child.kill().unwrap(); // SIGKILL: no chance to end the row
    child.wait().unwrap();
    let store = HistoryStore::open(&db).unwrap();
    let killed = store.live_run(live_id).unwrap().unwrap();
    assert_eq!(killed.ended_unix_ms, None);
    std::thread::sleep(Duration::from_millis(1_500));
    let later = store.live_run(live_id).unwrap().unwrap();
    assert_eq!(
        later.heartbeat_unix_ms, killed.heartbeat_unix_ms,
        "nothing beats for it"
    );
    assert!(!later.is_running(later.heartbeat_unix_ms + LIVE_STALE_AFTER_MS + 1));
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// GET `url`: (status, body).
fn get(url: &str) -> (u16, String) {
    let mut response = agent().get(url).call().unwrap();
    let status = response.status().as_u16();
    (status, response.body_mut().read_to_string().unwrap())
}

/// The next server-sent event of `stream`: (event name, data as JSON).
fn next_event(stream: &mut impl BufRead) -> (String, Value) {
    let (mut name, mut data) = (String::new(), String::new());
    loop {
        let mut line = String::new();
        assert!(stream.read_line(&mut line).unwrap() > 0, "the stream ended");
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if !data.is_empty() {
                return (name, serde_json::from_str(&data).unwrap());
            }
            continue; // a keep-alive comment's end
        }
        if let Some(value) = line.strip_prefix("event:") {
            name = value.trim().to_string();
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push_str(value.trim_start());
        }
    }
}

#[test]
fn the_dashboard_streams_a_running_runs_points_and_links_the_run_when_it_ends() {
    let t = TestDir::new();
    let db = t.path().join("history.db");
    let server = Server::start(&db, &["--port", "0"]);
    let response = agent()
        .get(&format!("{}events", server.url))
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let mut stream = BufReader::new(response.into_body().into_reader());

    // Long enough never to end by itself before it is stopped below.
    let mut run = spawn_run(&t, &["--db", db.to_str().unwrap(), "--runtime=60"]);
    let (event, announced) = next_event(&mut stream);
    assert_eq!(event, "run", "{announced}");
    assert_eq!(announced["name"], "live");
    assert_eq!(announced["running"], true);
    let live_id = announced["live_id"].as_i64().unwrap();

    // The step's first point, then the next one, with its rate since the first.
    let (event, first) = next_event(&mut stream);
    assert_eq!(
        (event.as_str(), first["live_id"].as_i64()),
        ("point", Some(live_id))
    );
    assert_eq!(first["step_name"], "live");
    assert!(
        first["iops"].is_null(),
        "a step's first point has no rate: {first}"
    );
    let (event, second) = next_event(&mut stream);
    assert_eq!(event, "point");
    assert!(
        second["read_ios"].as_u64() > first["read_ios"].as_u64(),
        "{second}"
    );
    assert!(second["iops"].as_f64().unwrap() > 0.0, "{second}");
    assert_eq!(
        second["read_bytes"],
        second["read_ios"].as_u64().unwrap() * 4096
    );

    // The run list shows it in its block while it runs.
    let (status, page) = get(&server.url);
    assert_eq!(status, 200);
    assert!(page.contains(r#"<section id="live""#), "{page}");
    assert!(
        page.contains(&format!(
            r#"<div class="live-run" data-run="{live_id}" data-points="0""#
        )),
        "{page}"
    );

    // Stopped (as Ctrl-C stops it), it is saved, and the stream says which run it is.
    interrupt(&run);
    let saved_as = loop {
        let (event, data) = next_event(&mut stream);
        if event == "run" && data["live_id"] == live_id && data["running"] == false {
            break data;
        }
    };
    run.wait().unwrap();
    let run_id = saved_as["run_id"]
        .as_i64()
        .expect("linked to the saved run");
    assert!(saved_as["ended_unix_ms"].is_u64(), "{saved_as}");
    let (status, page) = get(&format!("{}run/{run_id}", server.url));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("live"), "{page}");

    // Ctrl-C stops the server with the stream open: the stream ends, the server exits 0.
    let mut server = server;
    interrupt(&server.child);
    let mut rest = String::new();
    while stream.read_line(&mut rest).unwrap_or(0) > 0 {}
    assert_eq!(server.child.wait().unwrap().code(), Some(0));
}

fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}
