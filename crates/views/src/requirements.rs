//! `diskmeter requirements`: a saved capture loaded as the guides' requirements checklist
//! ([`load`], shared with `check --capture`, `plan --from-capture` and `replay`) and its
//! three forms: text ([`text`]), JSON ([`json`]) and CSV ([`csv`]).

use diskmeter_analysis::requirements::{
    capture_demand, capture_load, format_clock, format_span, format_utc_offset, parse_utc_offset,
    Checklist, ChecklistBuilder, Level, Metric, Requirements, Source, WindowSet, RELATIVE_ERROR,
};
use diskmeter_history::{HistoryError, HistoryStore, Newest, PickError, RunSummary, CAPTURE_KIND};
use diskmeter_plan::burst::Load;
use diskmeter_plan::Demand;
use diskmeter_report::format::utc_timestamp;
use diskmeter_units::format_thousands;
use serde_json::{json, Value};
use std::fmt::Write;

/// `diskmeter requirements --help`'s description (kept with the rest of its words).
pub const REQUIREMENTS_ABOUT: &str =
    "Turns a capture (diskmeter capture) into the requirements checklist of the cloud \
    storage guides: one row per metric, columns p50, p90, p99, max and mean.\n\n\
    Percentiles of rate rows (IOPS, flushes/s, MiB/s, queue depth, CPU, memory) are over the \
    capture's intervals (p90: 90 % of the intervals were at or below it); the mean is \
    time-weighted. Ratio rows (read %, IO size, latency from r_await/w_await/f_await) take \
    the intervals that had IO in that direction and their mean is IO-weighted. Percentiles \
    are nearest-rank values from HDR histograms, within 0.1 %; max and mean are exact.\n\n\
    What counters cannot know is \"unknown\" (null in JSON): the random share, the IO \
    size distribution (only its mean), and device latency and queue depth per IO. A \
    capture made with --trace fills them, for the whole capture only (a trace is not \
    split into intervals, so inside a window they stay unknown).\n\n\
    Device rows sum the chosen devices (--device, repeatable; default: every captured \
    device except partitions of a captured disk).\n\n\
    Windows (--window normal=09:00-18:00,peak=12:00-13:00,night=22:00-06:00) pick \
    intervals by the time of day their start falls at, in UTC unless --utc-offset is \
    given (the capture stores UTC times only); a window whose end is not after its \
    start crosses midnight.";

/// Why a saved run could not be loaded for a command.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The user's input: an id that names no run, a run of the wrong kind, a run that
    /// cannot be judged or a choice it does not have.
    #[error("{0}")]
    Input(String),
    /// The capture's samples could not be read.
    #[error("reading capture {id}")]
    Reading {
        /// The capture.
        id: i64,
        /// Why.
        #[source]
        source: HistoryError,
    },
    /// The history failed.
    #[error(transparent)]
    History(#[from] HistoryError),
}

impl From<PickError> for LoadError {
    fn from(error: PickError) -> LoadError {
        match error {
            PickError::Store(e) => LoadError::History(e),
            input => LoadError::Input(input.to_string()),
        }
    }
}

/// The run `id` names, loaded; an id that names no run is the user's input.
pub(crate) fn load_run(
    store: &HistoryStore,
    id: i64,
) -> Result<diskmeter_history::StoredRun, LoadError> {
    match store.load(id) {
        Ok(run) => Ok(run),
        Err(e @ HistoryError::NoSuchRun(_)) => Err(LoadError::Input(e.to_string())),
        Err(e) => Err(e.into()),
    }
}

/// A capture's checklist and its listing.
pub struct CaptureRequirements {
    /// The capture's listing.
    pub summary: RunSummary,
    /// Its checklists.
    pub requirements: Requirements,
}

/// Streams capture `id_text` (an id or `last`) through the checklist (bounded memory however
/// long it is).
pub fn load(
    store: &HistoryStore,
    id_text: &str,
    devices: Option<Vec<String>>,
    windows: WindowSet,
) -> Result<CaptureRequirements, LoadError> {
    load_with(store, id_text, ChecklistBuilder::new(devices, windows))
}

/// [`load`] through `builder` (one that also keeps the load, for `plan`).
fn load_with(
    store: &HistoryStore,
    id_text: &str,
    mut builder: ChecklistBuilder,
) -> Result<CaptureRequirements, LoadError> {
    let id = store.resolve_id(id_text, Newest::Capture)?;
    let summary = load_run(store, id)?.summary;
    if summary.kind != CAPTURE_KIND {
        return Err(LoadError::Input(HistoryError::NotACapture(id).to_string()));
    }
    store
        .for_each_capture_sample(id, |sample| builder.push(&sample))
        .map_err(|source| LoadError::Reading { id, source })?;
    // The traces are one small profile per device.
    for trace in store.capture_traces(id)? {
        builder.add_trace(&trace);
    }
    let requirements = builder
        .finish()
        .map_err(|e| LoadError::Input(format!("capture {id}: {e}")))?;
    Ok(CaptureRequirements {
        summary,
        requirements,
    })
}

/// `plan --from-capture`'s flags, as typed.
pub struct PlanFlags<'a> {
    /// `--level` (p50, p90, p99, max, mean).
    pub level: &'a str,
    /// `--window NAME=HH:MM-HH:MM` (empty: the whole capture).
    pub window: &'a str,
    /// `--utc-offset +HH:MM`.
    pub utc_offset: &'a str,
}

/// `plan --from-capture`: capture `id_text`'s checklist at the level (in the one window
/// given) as the planner's demand, and its intervals as the load for the burst buckets.
pub fn plan_input(
    store: &HistoryStore,
    id_text: &str,
    devices: Option<Vec<String>>,
    flags: &PlanFlags,
) -> Result<(Demand, Load), LoadError> {
    let input = |flag: &str, e: &dyn std::fmt::Display| LoadError::Input(format!("--{flag}: {e}"));
    let level = flags
        .level
        .parse::<Level>()
        .map_err(|e| input("level", &e))?;
    let offset = parse_utc_offset(flags.utc_offset).map_err(|e| input("utc-offset", &e))?;
    let windows = WindowSet::parse(flags.window, offset).map_err(|e| input("window", &e))?;
    if windows.windows.len() > 1 {
        return Err(input("window", &"plan takes one window"));
    }
    // The load for the burst buckets: 24 bytes an interval (a week of 1 s intervals: 14.5 MB).
    let builder = ChecklistBuilder::new(devices, windows.clone()).keeping_load();
    let loaded = load_with(store, id_text, builder)?;
    let id = loaded.summary.id;
    let demand = capture_demand(&loaded.requirements, id, level)
        .map_err(|e| LoadError::Input(e.to_string()))?;
    Ok((demand, capture_load(&loaded.requirements, id, &windows)))
}

/// `{"rows": [...]}` for the whole capture, plus `"windows": [...]` (each with the same
/// `rows`) when windows were asked for; pretty-printed, with a trailing newline.
pub fn json(requirements: &Requirements, utc_offset_minutes: i32) -> serde_json::Result<String> {
    let mut view = json!({ "rows": requirements.whole.rows });
    if !requirements.windows.is_empty() {
        let windows: Vec<Value> = requirements
            .windows
            .iter()
            .map(|w| {
                json!({
                    "name": w.window.name,
                    "from": format_clock(w.window.from),
                    "to": format_clock(w.window.to),
                    "utc_offset": format_utc_offset(utc_offset_minutes),
                    "intervals": w.checklist.intervals,
                    "rows": w.checklist.rows,
                })
            })
            .collect();
        view["windows"] = Value::Array(windows);
    }
    Ok(serde_json::to_string_pretty(&view)? + "\n")
}

/// `window,metric,p50,p90,p99,max,mean`, window `all` for the whole capture; unknown is an
/// empty cell.
pub fn csv(requirements: &Requirements) -> String {
    let mut out = String::from("window,metric,p50,p90,p99,max,mean\n");
    let mut add = |name: &str, checklist: &Checklist| {
        for row in &checklist.rows {
            let cells: Vec<String> = Level::ALL
                .iter()
                .map(|&l| row.figures.get(l).map_or(String::new(), |v| format!("{v}")))
                .collect();
            let _ = writeln!(out, "{name},{},{}", row.metric.key(), cells.join(","));
        }
    };
    add("all", &requirements.whole);
    for w in &requirements.windows {
        add(&w.window.name, &w.checklist);
    }
    out
}

/// The capture, its devices, a table per checklist (the whole capture, then each window) and
/// how the figures were made.
pub fn text(loaded: &CaptureRequirements, utc_offset_minutes: i32) -> String {
    let s = &loaded.summary;
    let r = &loaded.requirements;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Requirements of capture {} ({} on {}), started {}",
        s.id,
        s.target,
        s.hostname,
        utc_timestamp(s.started_unix_ms)
    );
    let devices = match r.devices.as_slice() {
        [] => "none had IO figures".to_string(),
        [one] => one.clone(),
        many => format!("{}, summed", many.join(" + ")),
    };
    let _ = writeln!(out, "devices: {devices}");
    if !r.skipped_devices.is_empty() {
        let _ = writeln!(
            out,
            "left out: {} (partitions of a captured disk: their IO is in the disk's; --device picks devices)",
            r.skipped_devices.join(", ")
        );
    }
    if r.traced_devices.is_empty() {
        let _ = writeln!(
            out,
            "traced: no (random %, the IO size distribution and device latency are unknown without capture --trace)"
        );
    } else {
        let _ = writeln!(out, "traced: {}", r.traced_devices.join(", "));
    }
    let _ = writeln!(
        out,
        "\nWhole capture: {} intervals, {}",
        format_thousands(r.whole.intervals),
        format_span(r.whole.seconds)
    );
    out.push_str(&crate::capture::checklist_text(&r.whole));
    for w in &r.windows {
        let _ = writeln!(
            out,
            "\nWindow {} {} (UTC{}): {} intervals, {}",
            w.window.name,
            w.window.range_text(),
            format_utc_offset(utc_offset_minutes),
            format_thousands(w.checklist.intervals),
            format_span(w.checklist.seconds)
        );
        out.push_str(&crate::capture::checklist_text(&w.checklist));
    }
    let _ = writeln!(
        out,
        "\nPercentiles: nearest rank over intervals (per IO for traced rows), within {} %; \
         max and mean exact (rates time-weighted, read %, sizes and latency IO-weighted). The \
         await rows' p50 to p99 are percentiles of the intervals' mean latency (iostat's \
         r_await, w_await), not per-IO percentiles: those are the per-IO rows, which need \
         capture --trace.",
        RELATIVE_ERROR * 100.0
    );
    if r.whole.row(Metric::RandomPercent).source == Source::Trace {
        let _ = writeln!(
            out,
            "random % is one figure for the whole trace (the same in every column)."
        );
    }
    out
}
