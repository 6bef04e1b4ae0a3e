//! Unit tests of the live tables: a run in progress as its sampler writes it and as the
//! dashboard reads it.

use crate::{HistoryStore, LivePoint, LiveRunHeader, LIVE_KEPT_MS, LIVE_STALE_AFTER_MS};

fn store() -> (tempfile::TempDir, HistoryStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = HistoryStore::open(&dir.path().join("history.db")).unwrap();
    (dir, store)
}

fn header(started_unix_ms: u64) -> LiveRunHeader {
    LiveRunHeader {
        pid: 4242,
        hostname: "bench1".to_string(),
        kind: "run".to_string(),
        name: "randread".to_string(),
        target: "/tmp/target".to_string(),
        started_unix_ms,
    }
}

fn point(step_position: u32, t_unix_ms: u64, ios: u64) -> LivePoint {
    LivePoint {
        step_position,
        step_name: format!("step {step_position}"),
        t_unix_ms,
        read_ios: ios,
        read_bytes: ios * 4096,
        write_ios: 0,
        write_bytes: 0,
    }
}

#[test]
fn a_live_run_reads_back_with_its_points_in_order() {
    let (_dir, mut store) = store();
    let live = store.begin_live(&header(1_000)).unwrap();
    for (second, ios) in [(0, 0), (1, 500), (2, 1_100)] {
        store
            .append_live_point(live, &point(0, 1_000 + second * 1_000, ios))
            .unwrap();
    }
    let runs = store.live_runs().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].header, header(1_000));
    assert_eq!(
        runs[0].heartbeat_unix_ms, 3_000,
        "the last point is the heartbeat"
    );
    assert!(runs[0].is_running(3_000 + LIVE_STALE_AFTER_MS));
    assert!(!runs[0].is_running(3_001 + LIVE_STALE_AFTER_MS));

    let points = store.live_points(live, 0).unwrap();
    let ios: Vec<u64> = points.iter().map(|p| p.point.read_ios).collect();
    assert_eq!(ios, [0, 500, 1_100]);
    assert_eq!(
        store.live_points(live, points[0].id).unwrap(),
        points[1..],
        "a reader asks for what is after the last point it saw"
    );
    assert_eq!(store.newest_live_point_id().unwrap(), points[2].id);
    let (iops, bytes_per_sec) = points[2].point.rates_since(&points[1].point).unwrap();
    assert_eq!((iops, bytes_per_sec), (600.0, 600.0 * 4096.0));
}

#[test]
fn rates_are_not_taken_across_steps() {
    assert_eq!(point(1, 2_000, 10).rates_since(&point(0, 1_000, 500)), None);
    assert_eq!(point(0, 1_000, 10).rates_since(&point(0, 1_000, 0)), None);
}

#[test]
fn points_of_several_runs_stream_in_the_order_they_were_written() {
    let (_dir, mut store) = store();
    let a = store.begin_live(&header(1_000)).unwrap();
    let b = store.begin_live(&header(1_500)).unwrap();
    store.append_live_point(a, &point(0, 2_000, 1)).unwrap();
    store.append_live_point(b, &point(0, 2_100, 2)).unwrap();
    store.append_live_point(a, &point(0, 3_000, 3)).unwrap();
    let all = store.live_points_after(0, 100).unwrap();
    let order: Vec<(i64, u64)> = all.iter().map(|p| (p.live_id, p.point.read_ios)).collect();
    assert_eq!(order, [(a, 1), (b, 2), (a, 3)]);
    assert_eq!(store.live_points_after(all[0].id, 1).unwrap(), all[1..2]);
    assert_eq!(store.live_runs().unwrap()[0].id, b, "newest first");
}

#[test]
fn an_ended_live_run_keeps_its_row_and_link_but_not_its_points() {
    let (_dir, mut store) = store();
    let live = store.begin_live(&header(1_000)).unwrap();
    store.append_live_point(live, &point(0, 2_000, 10)).unwrap();
    store.live_heartbeat(live, 2_500).unwrap();
    store.end_live(live, 3_000, None).unwrap();
    let run = store.live_run(live).unwrap().unwrap();
    assert_eq!(run.ended_unix_ms, Some(3_000));
    assert_eq!(run.run_id, None, "no run was saved");
    assert!(!run.is_running(3_000));
    assert!(store.live_points(live, 0).unwrap().is_empty());
}

#[test]
fn the_link_to_the_saved_run_survives_the_end() {
    let (_dir, mut store) = store();
    let run_id = store
        .begin_run(&crate::RunHeader {
            kind: "run".to_string(),
            name: "randread".to_string(),
            target: "/tmp/target".to_string(),
            command_line: "diskmeter run".to_string(),
            host: crate::HostFacts::default(),
            started_unix_ms: 1_000,
            diskmeter_version: "test".to_string(),
            hostname: "bench1".to_string(),
            capture_id: None,
        })
        .unwrap();
    let live = store.begin_live(&header(1_000)).unwrap();
    store.set_live_run_id(live, run_id).unwrap();
    store.end_live(live, 3_000, None).unwrap();
    assert_eq!(store.live_run(live).unwrap().unwrap().run_id, Some(run_id));
}

#[test]
fn old_ended_and_stale_live_runs_are_pruned_when_the_next_begins() {
    let (_dir, mut store) = store();
    let ended = store.begin_live(&header(1_000)).unwrap();
    store.append_live_point(ended, &point(0, 1_500, 1)).unwrap();
    store.end_live(ended, 2_000, None).unwrap();
    let killed = store.begin_live(&header(1_000)).unwrap();
    store
        .append_live_point(killed, &point(0, 2_000, 1))
        .unwrap();
    let recent = store.begin_live(&header(2_000 + LIVE_KEPT_MS)).unwrap();
    assert_eq!(store.live_run(killed).unwrap().map(|r| r.id), Some(killed));

    store.begin_live(&header(2_001 + LIVE_KEPT_MS)).unwrap();
    let left: Vec<i64> = store.live_runs().unwrap().iter().map(|r| r.id).collect();
    assert!(
        !left.contains(&ended) && !left.contains(&killed),
        "{left:?}"
    );
    assert!(left.contains(&recent));
    assert!(store.live_points_after(0, 100).unwrap().is_empty());
}
