//! Runs in progress for the dashboard: while a saving session runs a batch, a sampler
//! thread with its own history connection writes the batch's live row and, once a second
//! while a step runs, the step's cumulative IO counters ([`LiveCounters`]), so `diskmeter
//! serve` can draw the run as it goes (`docs/history.md`, "Runs in progress").
//!
//! The IO path does not wait for it: the workers only add to atomics they add to anyway
//! (for the progress bar), the sampler only reads them, and every database write happens on
//! the sampler's thread. Nothing here touches how the run is saved (`history.rs`), and a
//! failed live write is dropped: the live view is a convenience, the saved run is the result.

use diskmeter_history::{HistoryStore, LivePoint, LiveRunHeader};
use diskmeter_runner::prepare::RunPlan;
use diskmeter_runner::LiveCounters;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::sink::StepContext;

/// How often the sampler writes a point (and beats, between steps).
const SAMPLE_PERIOD: Duration = Duration::from_secs(1);

/// What the session tells the sampler.
enum Event {
    /// A step's IO is about to start; `counters` count its IOs.
    StepStarted {
        position: u32,
        name: String,
        counters: Arc<LiveCounters>,
    },
    /// The step's IO is over (its last counters are written at once).
    StepEnded,
    /// The history saves the batch as this run.
    Saved(i64),
    /// The batch is over (and saved as this run, if at all).
    End(Option<i64>),
}

/// The live feed of one batch: started with its first step, ended with the batch (or when
/// dropped).
pub(crate) struct LiveFeed {
    path: PathBuf,
    sampler: Option<(Sender<Event>, JoinHandle<()>)>,
    saved: Option<i64>,
}

impl LiveFeed {
    /// A feed into the history at `path`; nothing is written before the first step starts.
    pub(crate) fn new(path: PathBuf) -> LiveFeed {
        LiveFeed {
            path,
            sampler: None,
            saved: None,
        }
    }

    /// The step's IO is about to start (the first one starts the sampler).
    pub(crate) fn step_started(
        &mut self,
        step: StepContext<'_>,
        plan: &RunPlan,
        counters: &Arc<LiveCounters>,
    ) {
        if self.sampler.is_none() {
            let header = header(step, plan);
            let (sender, events) = mpsc::channel();
            let path = self.path.clone();
            let spawned = std::thread::Builder::new()
                .name("diskmeter-live".to_string())
                .spawn(move || sample(path, header, events));
            match spawned {
                Ok(thread) => self.sampler = Some((sender, thread)),
                // No thread, no live view; the run goes on.
                Err(_) => return,
            }
        }
        self.send(Event::StepStarted {
            position: step.index as u32,
            name: step.name().to_string(),
            counters: counters.clone(),
        });
    }

    /// The step's IO is over.
    pub(crate) fn step_ended(&mut self) {
        self.send(Event::StepEnded);
    }

    /// The history has begun the batch's run as `run_id`.
    pub(crate) fn saved_as(&mut self, run_id: i64) {
        if self.saved != Some(run_id) {
            self.saved = Some(run_id);
            self.send(Event::Saved(run_id));
        }
    }

    /// The batch is over: marks the live row ended (with the run it was saved as) and waits
    /// for the sampler to finish its last write.
    pub(crate) fn end(mut self, run_id: Option<i64>) {
        self.stop(run_id);
    }

    fn send(&self, event: Event) {
        if let Some((sender, _)) = &self.sampler {
            // A sampler that is gone (its database failed) takes no more events.
            let _ = sender.send(event);
        }
    }

    fn stop(&mut self, run_id: Option<i64>) {
        if let Some((sender, thread)) = self.sampler.take() {
            let _ = sender.send(Event::End(run_id.or(self.saved)));
            let _ = thread.join();
        }
    }
}

impl Drop for LiveFeed {
    fn drop(&mut self) {
        self.stop(None);
    }
}

/// What the live row says of the batch: the names the history will list it under.
fn header(step: StepContext<'_>, plan: &RunPlan) -> LiveRunHeader {
    let batch = step.batch;
    let target = batch
        .target
        .clone()
        .or_else(|| plan.targets.first().map(|t| t.path.clone()))
        .unwrap_or_else(|| PathBuf::from("."));
    let target = std::path::absolute(&target).unwrap_or(target);
    LiveRunHeader {
        pid: std::process::id(),
        hostname: crate::convert::kernel_hostname(),
        kind: batch.kind.as_str().to_string(),
        name: batch
            .name
            .clone()
            .unwrap_or_else(|| step.name().to_string()),
        target: target.display().to_string(),
        started_unix_ms: now_unix_ms(),
    }
}

/// The sampler thread: begins the live row, then writes a point every [`SAMPLE_PERIOD`]
/// while a step runs (a heartbeat between steps) until the batch ends.
fn sample(path: PathBuf, header: LiveRunHeader, events: Receiver<Event>) {
    let Ok(mut store) = HistoryStore::open(&path) else {
        return;
    };
    let Ok(live_id) = store.begin_live(&header) else {
        return;
    };
    let mut step: Option<(u32, String, Arc<LiveCounters>)> = None;
    let mut next_tick = Instant::now() + SAMPLE_PERIOD;
    loop {
        let wait = next_tick.saturating_duration_since(Instant::now());
        // Write failures are dropped (see the module's documentation): the next second
        // tries again.
        match events.recv_timeout(wait) {
            Ok(Event::StepStarted {
                position,
                name,
                counters,
            }) => {
                let started = (position, name, counters);
                let _ = store.append_live_point(live_id, &point(&started));
                step = Some(started);
                next_tick = Instant::now() + SAMPLE_PERIOD;
            }
            Ok(Event::StepEnded) => {
                if let Some(ended) = step.take() {
                    let _ = store.append_live_point(live_id, &point(&ended));
                }
            }
            Ok(Event::Saved(run_id)) => {
                let _ = store.set_live_run_id(live_id, run_id);
            }
            Ok(Event::End(run_id)) => {
                let _ = store.end_live(live_id, now_unix_ms(), run_id);
                return;
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = store.end_live(live_id, now_unix_ms(), None);
                return;
            }
            Err(RecvTimeoutError::Timeout) => {
                let _ = match &step {
                    Some(running) => store.append_live_point(live_id, &point(running)).map(drop),
                    None => store.live_heartbeat(live_id, now_unix_ms()),
                };
                // A write that took longer than a period (a busy database) skips the
                // seconds it missed rather than writing them in a burst.
                next_tick = (next_tick + SAMPLE_PERIOD).max(Instant::now());
            }
        }
    }
}

/// The step's counters now.
fn point((position, name, counters): &(u32, String, Arc<LiveCounters>)) -> LivePoint {
    let [read_ios, read_bytes, write_ios, write_bytes] = counters.snapshot();
    LivePoint {
        step_position: *position,
        step_name: name.clone(),
        t_unix_ms: now_unix_ms(),
        read_ios,
        read_bytes,
        write_ios,
        write_bytes,
    }
}

fn now_unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
