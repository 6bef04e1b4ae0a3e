//! Unit tests of the live part: the block the run list shows and what a stream sends, over
//! a real history in a temp folder written as a running diskmeter's sampler writes it.

use super::{runs_in_progress, Feed, LiveMessage, PointMessage, RunMessage};
use diskmeter_history::{HistoryStore, HostFacts, LivePoint, LiveRunHeader, RunHeader};

fn store() -> (tempfile::TempDir, HistoryStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = HistoryStore::open(&dir.path().join("history.db")).unwrap();
    (dir, store)
}

fn now_ms() -> u64 {
    super::now_unix_ms()
}

fn begin(store: &mut HistoryStore, name: &str) -> i64 {
    store
        .begin_live(&LiveRunHeader {
            pid: 77,
            hostname: "bench1".to_string(),
            kind: "run".to_string(),
            name: name.to_string(),
            target: "/data/t".to_string(),
            started_unix_ms: now_ms(),
        })
        .unwrap()
}

/// A point `seconds_ago` seconds back with `ios` 4 KiB reads so far.
fn point(store: &mut HistoryStore, live_id: i64, t_unix_ms: u64, ios: u64) -> i64 {
    store
        .append_live_point(
            live_id,
            &LivePoint {
                step_position: 0,
                step_name: "randread".to_string(),
                t_unix_ms,
                read_ios: ios,
                read_bytes: ios * 4096,
                write_ios: 0,
                write_bytes: 0,
            },
        )
        .unwrap()
}

/// The block without its script (whose comments name the markup too).
fn markup(html: &str) -> &str {
    html.split("<script>").next().unwrap()
}

fn points(messages: &[LiveMessage]) -> Vec<&PointMessage> {
    messages
        .iter()
        .filter_map(|m| match m {
            LiveMessage::Point(p) => Some(p),
            LiveMessage::Run(_) => None,
        })
        .collect()
}

fn runs(messages: &[LiveMessage]) -> Vec<&RunMessage> {
    messages
        .iter()
        .filter_map(|m| match m {
            LiveMessage::Run(r) => Some(r),
            LiveMessage::Point(_) => None,
        })
        .collect()
}

#[test]
fn the_block_is_there_empty_before_any_run() {
    let html = runs_in_progress(None).unwrap();
    assert!(html.contains(r#"<section id="live""#), "{html}");
    assert!(html.contains("Runs in progress"));
    assert!(!markup(&html).contains(r#"class="live-run""#));
    assert!(
        html.contains("new EventSource(\"/events\")"),
        "the script is inlined"
    );
}

#[test]
fn a_running_run_has_its_block_with_its_name_escaped() {
    let (_dir, mut store) = store();
    let live = begin(&mut store, "<b>nightly</b>");
    point(&mut store, live, now_ms(), 10);
    let ended = begin(&mut store, "done");
    store.end_live(ended, now_ms(), None).unwrap();
    let html = runs_in_progress(Some(&store)).unwrap();
    let html = markup(&html);
    let block = format!(r#"<div class="live-run" data-run="{live}" data-points="0""#);
    assert!(html.contains(&block), "{html}");
    assert!(
        !html.contains(&format!(r#"data-run="{ended}""#)),
        "an ended run is not live"
    );
    assert!(html.contains("nightly"), "{html}");
    assert!(!html.contains("<b>"), "the name is escaped: {html}");
}

#[test]
fn a_stream_sends_the_running_runs_points_then_only_new_ones_with_rates() {
    let (_dir, mut store) = store();
    let t0 = now_ms() - 2_000;
    let live = begin(&mut store, "randread");
    point(&mut store, live, t0, 0);
    point(&mut store, live, t0 + 1_000, 2_000);
    let mut feed = Feed::resuming(None);

    let first = feed.poll(&store, now_ms()).unwrap();
    assert_eq!(runs(&first).len(), 1);
    assert_eq!(runs(&first)[0].live_id, live);
    assert!(runs(&first)[0].running);
    let sent = points(&first);
    assert_eq!(sent.len(), 2);
    assert_eq!((sent[0].iops, sent[1].iops), (None, Some(2_000.0)));
    assert_eq!(sent[1].mib_per_sec, Some(2_000.0 * 4096.0 / 1048576.0));

    assert!(
        feed.poll(&store, now_ms()).unwrap().is_empty(),
        "nothing new"
    );
    let third = point(&mut store, live, t0 + 2_000, 3_000);
    let next = feed.poll(&store, now_ms()).unwrap();
    assert_eq!(points(&next).len(), 1);
    assert_eq!(points(&next)[0].id, third);
    assert_eq!(points(&next)[0].iops, Some(1_000.0));
    assert!(runs(&next).is_empty(), "the run did not change");
}

#[test]
fn a_run_that_starts_later_is_announced_before_its_first_point() {
    let (_dir, mut store) = store();
    let mut feed = Feed::resuming(None);
    assert!(feed.poll(&store, now_ms()).unwrap().is_empty());
    let live = begin(&mut store, "later");
    point(&mut store, live, now_ms(), 0);
    let messages = feed.poll(&store, now_ms()).unwrap();
    assert!(matches!(&messages[0], LiveMessage::Run(r) if r.live_id == live && r.name == "later"));
    assert!(matches!(&messages[1], LiveMessage::Point(p) if p.live_id == live));
}

#[test]
fn the_end_of_a_run_is_sent_with_the_run_it_was_saved_as() {
    let (_dir, mut store) = store();
    let live = begin(&mut store, "randread");
    let mut feed = Feed::resuming(None);
    feed.poll(&store, now_ms()).unwrap();
    let run_id = store
        .begin_run(&RunHeader {
            kind: "run".to_string(),
            name: "randread".to_string(),
            target: "/data/t".to_string(),
            command_line: "diskmeter run".to_string(),
            host: HostFacts::default(),
            started_unix_ms: now_ms(),
            diskmeter_version: "test".to_string(),
            hostname: "bench1".to_string(),
            capture_id: None,
        })
        .unwrap();
    store.end_live(live, now_ms(), Some(run_id)).unwrap();
    let messages = feed.poll(&store, now_ms()).unwrap();
    let ended = runs(&messages);
    assert_eq!(ended.len(), 1);
    assert!(!ended[0].running);
    assert_eq!(ended[0].run_id, Some(run_id));
    assert!(ended[0].ended_unix_ms.is_some());
}

#[test]
fn a_reconnecting_client_gets_only_the_points_after_its_last_event_id() {
    let (_dir, mut store) = store();
    let t0 = now_ms() - 2_000;
    let live = begin(&mut store, "randread");
    let seen = point(&mut store, live, t0, 0);
    let unseen = point(&mut store, live, t0 + 1_000, 10);
    let messages = Feed::resuming(Some(seen)).poll(&store, now_ms()).unwrap();
    assert_eq!(runs(&messages).len(), 1, "its block is announced");
    let ids: Vec<i64> = points(&messages).iter().map(|p| p.id).collect();
    assert_eq!(ids, [unseen]);
}

#[test]
fn a_database_older_than_the_live_tables_shows_no_run_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    drop(HistoryStore::open_at_version(&path, 5).unwrap());
    let store = HistoryStore::open_read_only(&path).unwrap();
    let html = runs_in_progress(Some(&store)).unwrap();
    assert!(!markup(&html).contains(r#"class="live-run""#));
    assert!(Feed::resuming(None)
        .poll(&store, now_ms())
        .unwrap()
        .is_empty());
}
