//! `diskmeter requirements ID|last`: a saved capture as the guides' requirements checklist
//! (diskmeter-analysis `requirements`), as text, JSON or CSV; and the capture loading that
//! `plan --from-capture` and `check --capture` share with it.

use crate::args::db_arg;
use crate::{write_output, Status, UsageError};
use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_analysis::requirements::{
    format_span, format_utc_offset, parse_utc_offset, Checklist, ChecklistBuilder, Level, Metric,
    Requirements, Source, WindowSet, RELATIVE_ERROR,
};
use diskmeter_history::{HistoryError, HistoryStore, Newest, RunSummary, CAPTURE_KIND};
use diskmeter_report::format::utc_timestamp;
use diskmeter_units::format_thousands;
use diskmeter_views::capture::checklist_text;
use serde_json::{json, Value};
use std::fmt::Write;

/// The `requirements` subcommand.
pub fn command() -> Command {
    Command::new("requirements")
        .about("A saved capture as the guides' requirements checklist: p50, p90, p99, max and mean of IOPS, flushes, read %, random %, IO size, throughput, latency, queue depth, CPU and memory")
        .long_about(
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
             start crosses midnight.",
        )
        .arg(
            Arg::new("id")
                .value_name("ID")
                .required(true)
                .help("The capture's id (diskmeter history --kind capture), or 'last' for the newest capture"),
        )
        .arg(
            Arg::new("window")
                .long("window")
                .value_name("NAME=HH:MM-HH:MM,...")
                .action(ArgAction::Append)
                .help("Also a checklist per time-of-day window, e.g. normal=09:00-18:00,peak=12:00-13:00 (repeatable)"),
        )
        .arg(
            Arg::new("utc-offset")
                .long("utc-offset")
                .value_name("+HH:MM")
                .default_value("+00:00")
                .help("The clock --window times are on, as an offset from UTC (the capture stores UTC times)"),
        )
        .arg(device_arg())
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["text", "json", "csv"])
                .default_value("text")
                .help("text (a table per window), json ({\"rows\": [...]}; null = unknown) or csv"),
        )
        .arg(
            Arg::new("output")
                .long("output")
                .value_name("FILE")
                .help("Write to FILE instead of stdout"),
        )
        .arg(db_arg())
}

/// `--device NAME` (repeatable, or comma-separated).
pub(crate) fn device_arg() -> Arg {
    Arg::new("device")
        .long("device")
        .value_name("NAME")
        .action(ArgAction::Append)
        .value_delimiter(',')
        .help("Only these captured devices (repeatable; their figures are summed) [default: every captured device but partitions of a captured disk]")
}

/// A capture's checklist and its listing.
pub(crate) struct CaptureRequirements {
    /// The capture's listing.
    pub summary: RunSummary,
    /// Its checklists.
    pub requirements: Requirements,
}

/// Streams capture `id_text` through the checklist (bounded memory however long it is).
pub(crate) fn load_requirements(
    store: &HistoryStore,
    id_text: &str,
    devices: Option<Vec<String>>,
    windows: WindowSet,
) -> anyhow::Result<CaptureRequirements> {
    let id = store
        .resolve_id(id_text, Newest::Capture)
        .map_err(crate::picked)?;
    let summary = match store.load(id) {
        Ok(run) => run.summary,
        Err(e @ HistoryError::NoSuchRun(_)) => return Err(UsageError(e.to_string()).into()),
        Err(e) => return Err(e.into()),
    };
    if summary.kind != CAPTURE_KIND {
        return Err(UsageError(HistoryError::NotACapture(id).to_string()).into());
    }
    let mut builder = ChecklistBuilder::new(devices, windows);
    store
        .for_each_capture_sample(id, |sample| builder.push(&sample))
        .with_context(|| format!("reading capture {id}"))?;
    // The traces are one small profile per device.
    for trace in store.capture_traces(id)? {
        builder.add_trace(&trace);
    }
    let requirements = builder
        .finish()
        .map_err(|e| UsageError(format!("capture {id}: {e}")))?;
    Ok(CaptureRequirements {
        summary,
        requirements,
    })
}

/// The history `--db` names (`None`: the default one).
pub(crate) fn db(matches: &ArgMatches) -> Option<&std::path::Path> {
    matches
        .get_one::<std::path::PathBuf>("db")
        .map(std::path::PathBuf::as_path)
}

/// `--device` as the checklist takes it.
pub(crate) fn devices(matches: &ArgMatches) -> Option<Vec<String>> {
    matches.get_many::<String>("device").map(|names| {
        names
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect()
    })
}

fn windows(matches: &ArgMatches) -> anyhow::Result<WindowSet> {
    let offset_text = matches
        .get_one::<String>("utc-offset")
        .map_or("+00:00", String::as_str);
    let offset =
        parse_utc_offset(offset_text).map_err(|e| UsageError(format!("--utc-offset: {e}")))?;
    let text: Vec<String> = matches
        .get_many::<String>("window")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    WindowSet::parse(&text.join(","), offset)
        .map_err(|e| UsageError(format!("--window: {e}")).into())
}

/// Runs `diskmeter requirements`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let windows = windows(matches)?;
    let offset = windows.utc_offset_minutes;
    let store = diskmeter_history::open_for_reading(db(matches))?;
    let id_text = matches
        .get_one::<String>("id")
        .map_or("last", String::as_str);
    let loaded = load_requirements(&store, id_text, devices(matches), windows)?;
    let text = match matches.get_one::<String>("format").map(String::as_str) {
        Some("json") => {
            serde_json::to_string_pretty(&json_view(&loaded.requirements, offset))? + "\n"
        }
        Some("csv") => csv_view(&loaded.requirements),
        _ => text_view(&loaded, offset),
    };
    write_output(matches.get_one::<String>("output"), &text)?;
    Ok(Status::Success)
}

/// `{"rows": [...]}` for the whole capture, plus `"windows": [...]` (each with the same
/// `rows`) when windows were asked for.
fn json_view(requirements: &Requirements, utc_offset_minutes: i32) -> Value {
    let mut view = json!({ "rows": requirements.whole.rows });
    if !requirements.windows.is_empty() {
        let windows: Vec<Value> = requirements
            .windows
            .iter()
            .map(|w| {
                json!({
                    "name": w.window.name,
                    "from": diskmeter_analysis::requirements::format_clock(w.window.from),
                    "to": diskmeter_analysis::requirements::format_clock(w.window.to),
                    "utc_offset": format_utc_offset(utc_offset_minutes),
                    "intervals": w.checklist.intervals,
                    "rows": w.checklist.rows,
                })
            })
            .collect();
        view["windows"] = Value::Array(windows);
    }
    view
}

/// `window,metric,p50,p90,p99,max,mean`, window `all` for the whole capture; unknown is an
/// empty cell.
fn csv_view(requirements: &Requirements) -> String {
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

fn text_view(loaded: &CaptureRequirements, utc_offset_minutes: i32) -> String {
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
    out.push_str(&checklist_text(&r.whole));
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
        out.push_str(&checklist_text(&w.checklist));
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
