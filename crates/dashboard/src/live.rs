//! Runs in progress: per-second points read from the history as the running diskmeter
//! writes them (`live_runs`, `live_points`: `docs/history.md`), pushed to the page as
//! server-sent events, and the "Runs in progress" block of the run list that draws them.
//!
//! `GET /events` is a stream of `event: run` (a live run appeared, ended, was saved, or went
//! stale) and `event: point` (one new point, with the IO/s and MiB/s since the point
//! before; its SSE `id` is the point's id, so a reconnecting browser resumes after the last
//! point it saw). Each stream polls the database on a thread of its own with its own
//! read-only connection, every [`POLL_PERIOD`]; it ends when the client goes away or the
//! server begins to stop ([`AppState::is_stopping`]), so graceful shutdown is not held open.
//!
//! The dashboard calls two things here: [`routes`] and [`runs_in_progress`]. A database
//! older than schema v6 has no live tables: it shows no run in progress.

use crate::AppState;
use askama::Template;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use axum::Router;
use diskmeter_history::{HistoryError, HistoryStore, LivePoint, LiveRun};
use diskmeter_units::MIB_F64;
use serde::Serialize;
use std::collections::HashMap;
use std::convert::Infallible;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};

/// How often a stream looks for new points (the sampler writes one a second).
pub const POLL_PERIOD: Duration = Duration::from_millis(400);

/// Points sent per poll at most; more wait for the next poll.
const POINTS_PER_POLL: u32 = 2_000;

/// The live part's routes, merged into the dashboard's router: `GET /events`.
pub fn routes() -> Router<AppState> {
    Router::new().route("/events", get(events))
}

/// The "Runs in progress" block of the run list: one `.live-run` per run running now
/// (their points arrive by `/events`) and the script that keeps it up to date. The block is
/// there, empty, when nothing runs (or the history does not exist yet: `store` is `None`),
/// so a run started later appears without a reload.
pub fn runs_in_progress(store: Option<&HistoryStore>) -> Result<String, HistoryError> {
    let now_unix_ms = now_unix_ms();
    let live = match store {
        Some(store) => store.live_runs()?,
        None => Vec::new(),
    };
    let runs: Vec<RunMessage> = live
        .iter()
        .filter(|run| run.is_running(now_unix_ms))
        .map(|run| RunMessage::of(run, now_unix_ms))
        .collect();
    let block = LiveBlock {
        runs,
        script: LIVE_JS,
        iops_colour: LIVE_IOPS_COLOUR,
        mibps_colour: LIVE_MIBPS_COLOUR,
    };
    // The template only formats strings; it cannot fail on data we give it.
    Ok(block.render().unwrap_or_default())
}

/// The script of the block: draws each live run's points with uPlot as they arrive.
const LIVE_JS: &str = include_str!("../assets/live.js");

/// The live chart's IO/s line, from the one palette: black, as no direction is (a live
/// run's figures are both directions together).
const LIVE_IOPS_COLOUR: &str = diskmeter_views::palette::SEQUENCE[6];
/// Its MiB/s line: reddish purple, no direction's colour either.
const LIVE_MIBPS_COLOUR: &str = diskmeter_views::palette::SEQUENCE[3];

#[derive(Template)]
#[template(path = "live.html")]
struct LiveBlock {
    runs: Vec<RunMessage>,
    script: &'static str,
    /// The colours live.js draws with (`data-iops-colour`, `data-mibps-colour`).
    iops_colour: &'static str,
    mibps_colour: &'static str,
}

/// What `event: run` says of a live run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunMessage {
    /// The live run's id (`data-run` of its block).
    pub live_id: i64,
    /// "run", "suite", ...
    pub kind: String,
    /// The name the run is listed under.
    pub name: String,
    /// Its target.
    pub target: String,
    /// The machine and process running it.
    pub hostname: String,
    /// The process.
    pub pid: u32,
    /// Start, ms since the Unix epoch.
    pub started_unix_ms: u64,
    /// Running now (not ended, heartbeat fresh).
    pub running: bool,
    /// When it ended; `None` while running, or when its process stopped beating (killed).
    pub ended_unix_ms: Option<u64>,
    /// The run it is saved as, once saved: its page is `/run/ID`.
    pub run_id: Option<i64>,
}

impl RunMessage {
    fn of(run: &LiveRun, now_unix_ms: u64) -> RunMessage {
        RunMessage {
            live_id: run.id,
            kind: run.header.kind.clone(),
            name: run.header.name.clone(),
            target: run.header.target.clone(),
            hostname: run.header.hostname.clone(),
            pid: run.header.pid,
            started_unix_ms: run.header.started_unix_ms,
            running: run.is_running(now_unix_ms),
            ended_unix_ms: run.ended_unix_ms,
            run_id: run.run_id,
        }
    }
}

/// What `event: point` says: the counters, and the rates since the previous point of the
/// same step (`None` for a step's first point).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointMessage {
    /// The point's id (the SSE event id).
    pub id: i64,
    /// The live run.
    pub live_id: i64,
    /// The sample, cumulative since the step's IO started.
    #[serde(flatten)]
    pub point: LivePoint,
    /// Reads and writes per second since the previous point.
    pub iops: Option<f64>,
    /// MiB/s read and written since the previous point.
    pub mib_per_sec: Option<f64>,
}

/// One server-sent event of the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveMessage {
    /// A run appeared or changed.
    Run(RunMessage),
    /// A new point.
    Point(PointMessage),
}

impl LiveMessage {
    fn to_event(&self) -> Event {
        let (name, json, id) = match self {
            LiveMessage::Run(run) => ("run", serde_json::to_string(run), None),
            LiveMessage::Point(point) => (
                "point",
                serde_json::to_string(point),
                Some(point.id.to_string()),
            ),
        };
        let event = Event::default()
            .event(name)
            .data(json.unwrap_or_else(|_| "null".to_string()));
        match id {
            Some(id) => event.id(id),
            None => event,
        }
    }
}

/// What one stream has told its client, to tell it only what is new.
#[derive(Debug, Default)]
pub struct Feed {
    /// The last point id sent (or resumed from).
    after_id: Option<i64>,
    /// The runs announced, as last announced.
    announced: HashMap<i64, RunMessage>,
    /// The last point sent of each run, for rates.
    last_points: HashMap<i64, LivePoint>,
}

impl Feed {
    /// A feed for a client that saw the points up to `last_event_id` (a reconnecting
    /// EventSource's `Last-Event-ID`), or none.
    pub fn resuming(last_event_id: Option<i64>) -> Feed {
        Feed {
            after_id: last_event_id,
            ..Feed::default()
        }
    }

    /// The messages since the last poll. The first poll announces every running run with
    /// the points it has so far (unless resuming); later ones the runs that appear or
    /// change and the new points.
    pub fn poll(
        &mut self,
        store: &HistoryStore,
        now_unix_ms: u64,
    ) -> Result<Vec<LiveMessage>, HistoryError> {
        let mut out = Vec::new();
        let first = self.after_id.is_none();
        // Fixed before anything is read, so a point written meanwhile is sent exactly once.
        let after_id = match self.after_id {
            Some(id) => id,
            None => store.newest_live_point_id()?,
        };
        let mut runs = store.live_runs()?;
        runs.reverse(); // oldest first, the order blocks are added in
        for run in &runs {
            let message = RunMessage::of(run, now_unix_ms);
            self.announce(message, &mut out);
            if first && run.is_running(now_unix_ms) {
                for stored in store.live_points(run.id, 0)? {
                    if stored.id <= after_id {
                        out.push(self.point(stored.id, stored.live_id, stored.point));
                    }
                }
            }
        }
        self.after_id = Some(after_id);
        for stored in store.live_points_after(after_id, POINTS_PER_POLL)? {
            self.after_id = Some(stored.id);
            if !self.announced.contains_key(&stored.live_id) {
                // Begun since the runs were read.
                match store.live_run(stored.live_id)? {
                    Some(run) => {
                        let message = RunMessage {
                            running: true,
                            ..RunMessage::of(&run, now_unix_ms)
                        };
                        self.announce(message, &mut out);
                    }
                    None => continue,
                }
            }
            out.push(self.point(stored.id, stored.live_id, stored.point));
        }
        Ok(out)
    }

    /// Announces a run that runs, or a change of one announced before (an old, ended run
    /// is not news).
    fn announce(&mut self, message: RunMessage, out: &mut Vec<LiveMessage>) {
        let changed = match self.announced.get(&message.live_id) {
            Some(before) => *before != message,
            None => message.running,
        };
        if changed {
            self.announced.insert(message.live_id, message.clone());
            out.push(LiveMessage::Run(message));
        }
    }

    fn point(&mut self, id: i64, live_id: i64, point: LivePoint) -> LiveMessage {
        let rates = self
            .last_points
            .get(&live_id)
            .and_then(|before| point.rates_since(before));
        self.last_points.insert(live_id, point.clone());
        LiveMessage::Point(PointMessage {
            id,
            live_id,
            point,
            iops: rates.map(|(iops, _)| iops),
            mib_per_sec: rates.map(|(_, bytes)| bytes / MIB_F64),
        })
    }
}

/// `GET /events`: the live stream.
async fn events(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok());
    let (sender, receiver) = tokio::sync::mpsc::channel(64);
    // The database is read with blocking calls: on a thread of the stream's own, which
    // ends with the stream.
    let spawned = std::thread::Builder::new()
        .name("dashboard-live".to_string())
        .spawn(move || stream(state, Feed::resuming(resume), sender));
    drop(spawned);
    let events = ReceiverStream::new(receiver).map(|message: LiveMessage| Ok(message.to_event()));
    Sse::new(events).keep_alive(KeepAlive::default())
}

/// Polls the database and sends what is new until the client is gone or the server stops.
fn stream(state: AppState, mut feed: Feed, sender: tokio::sync::mpsc::Sender<LiveMessage>) {
    let mut store = None;
    while !state.is_stopping() && !sender.is_closed() {
        if store.is_none() && state.db().exists() {
            store = HistoryStore::open_read_only(state.db()).ok();
        }
        if let Some(open) = &store {
            match feed.poll(open, now_unix_ms()) {
                Ok(messages) => {
                    for message in messages {
                        if sender.blocking_send(message).is_err() {
                            return;
                        }
                    }
                }
                // Opened again at the next poll (a database replaced under us).
                Err(_) => store = None,
            }
        }
        std::thread::sleep(POLL_PERIOD);
    }
}

fn now_unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
