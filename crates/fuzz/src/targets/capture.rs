//! Saved captures: the JSON documents the history stores for a capture (one per interval
//! sample, one per traced device's profile), read back as the history reads them, and what
//! `diskmeter requirements`, `plan --from-capture` and `replay` compute from them: the
//! checklists (whole and per window) with their text, CSV and JSON, the planner's demand,
//! and the replay workloads (level and `--exact`).
//!
//! An input is the documents' texts and the command's arguments (saved as JSON). Promises
//! checked: no message is empty, and a replay workload, which the CLI runs through the
//! option parser (calling a failure there a bug), parses.

use crate::gen::Gen;
use crate::{refused, Target, Verdict};
use diskmeter_analysis::replay::{
    build_exact_replay, build_replay, ExactRequest, LevelFigures, ReplayRequest, ReplayWorkload,
    TracedShape,
};
use diskmeter_analysis::requirements::{
    demand_from, format_figure, format_span, parse_utc_offset, Checklist, ChecklistBuilder, Level,
    WindowSet,
};
use diskmeter_capture::{
    CaptureSample, DeviceInterval, HotSet, ProcessShare, QuantileSummary, SizeShare,
    SystemInterval, TraceDetails, TraceDirection, TraceProfile,
};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
use diskmeter_workload::{jobs_from_options, validate};
use serde::{Deserialize, Serialize};

/// One capture and one command on it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Request {
    /// The samples' documents, in order.
    #[serde(default)]
    pub samples: Vec<String>,
    /// The trace profiles' documents.
    #[serde(default)]
    pub traces: Vec<String>,
    /// `--device` (none: every captured whole device).
    #[serde(default)]
    pub devices: Option<Vec<String>>,
    /// `--window`.
    #[serde(default)]
    pub window: String,
    /// `--utc-offset`.
    #[serde(default)]
    pub utc_offset: String,
    /// `--level`.
    #[serde(default)]
    pub level: String,
    /// `replay --random`.
    #[serde(default)]
    pub random: Option<u8>,
    /// `replay --size`.
    #[serde(default)]
    pub size: String,
    /// `replay --runtime`.
    #[serde(default)]
    pub runtime: String,
}

/// The capture target.
pub struct Captures;

impl Captures {
    /// The target.
    pub fn new() -> Captures {
        Captures
    }
}

impl Default for Captures {
    fn default() -> Self {
        Captures::new()
    }
}

const DEVICES: &[&str] = &[
    "vda",
    "vda1",
    "nvme0n1",
    "nvme0n1p1",
    "sdb",
    "dm-0",
    "",
    "é",
];

/// A figure: mostly plausible, sometimes at an edge.
fn figure(g: &mut Gen) -> f64 {
    match g.below(20) {
        0 => 0.0,
        1 => -1.0,
        2 => f64::MAX,
        3 => 1e-300,
        4 => 1e300,
        5 => -0.0,
        6 => 0.5,
        _ => (g.range(0, 200_000) as f64) / (g.range(1, 100) as f64),
    }
}

fn big(g: &mut Gen) -> u64 {
    match g.below(10) {
        0 => 0,
        1 => u64::MAX,
        2 => 1 << 63,
        _ => g.range(0, 1 << 40),
    }
}

fn summary(g: &mut Gen) -> QuantileSummary {
    QuantileSummary {
        count: big(g),
        mean: figure(g),
        p50: figure(g),
        p90: figure(g),
        p99: figure(g),
        max: figure(g),
        relative_error: 0.001,
    }
}

fn sample(g: &mut Gen, start: u64) -> CaptureSample {
    let devices = (0..g.count(4))
        .map(|_| DeviceInterval {
            device: g.pick(DEVICES).to_string(),
            reads_per_sec: figure(g),
            writes_per_sec: figure(g),
            discards_per_sec: figure(g),
            flushes_per_sec: figure(g),
            flush_await_ms: figure(g),
            read_kib_per_sec: figure(g),
            write_kib_per_sec: figure(g),
            read_merges_per_sec: figure(g),
            write_merges_per_sec: figure(g),
            read_await_ms: figure(g),
            write_await_ms: figure(g),
            queue_size: figure(g),
            read_request_kib: figure(g),
            write_request_kib: figure(g),
            util_percent: figure(g),
        })
        .collect();
    CaptureSample {
        start_unix_ms: if g.one_in(20) { big(g) } else { start },
        duration_ms: if g.one_in(10) { figure(g) } else { 1000.0 },
        devices,
        system: SystemInterval {
            cpu_busy_percent: figure(g),
            cpu_user_percent: figure(g),
            cpu_system_percent: figure(g),
            cpu_iowait_percent: figure(g),
            memory_used_bytes: big(g),
            memory_total_bytes: big(g),
            memory_cached_bytes: big(g),
            io_pressure_some_percent: g.one_in(2).then(|| figure(g)),
            io_pressure_full_percent: g.one_in(2).then(|| figure(g)),
        },
    }
}

fn direction(g: &mut Gen) -> TraceDirection {
    TraceDirection {
        ios: big(g),
        bytes: big(g),
        sizes: (0..g.count(6))
            .map(|_| SizeShare {
                bytes: if g.one_in(3) {
                    big(g)
                } else {
                    512 << g.below(12)
                },
                ios: big(g),
            })
            .collect(),
        random_fraction: figure(g),
        latency_ns: summary(g),
    }
}

fn trace(g: &mut Gen) -> TraceProfile {
    TraceProfile {
        device: g.pick(DEVICES).to_string(),
        device_bytes: g.one_in(2).then(|| big(g)),
        duration_ns: big(g),
        ios: big(g),
        lost_events: big(g),
        read: direction(g),
        write: direction(g),
        random_fraction: figure(g),
        queue_depth: summary(g),
        interarrival_ns: summary(g),
        hot_set: HotSet {
            region_bytes: big(g),
            working_set_bytes: big(g),
            share_for_80_percent_of_ios: figure(g),
            device_share_for_80_percent_of_ios: g.one_in(2).then(|| figure(g)),
        },
        processes: (0..g.count(3))
            .map(|_| ProcessShare {
                command: g.pick(&["postgres", "", "é"]).to_string(),
                pid: g.range(0, u64::from(u32::MAX)) as u32,
                ios: big(g),
                bytes: big(g),
            })
            .collect(),
        // Files that are there (the exact replay is built only for one), and some that are not.
        iolog_path: g.one_in(2).then(|| {
            let here = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
            g.pick(&[here, here, "/tmp/t.log", "", "a b"]).to_string()
        }),
        // Damaged stored counts reach the replay's stream split too.
        sequential_writes: direction(g).sizes,
        details: TraceDetails::default(),
    }
}

/// Tokens that damage a JSON document.
const JSON_TOKENS: &[&str] = &[
    "null",
    "NaN",
    "1e999",
    "-1",
    "18446744073709551616",
    "\"\"",
    "{}",
    "[]",
    ",",
    ":",
    "\"",
    "\"devices\"",
    "\"start_unix_ms\"",
    "-0",
    "1.5",
    "true",
];

fn document<T: Serialize>(g: &mut Gen, value: &T) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    if g.one_in(6) {
        crate::mutate::mutate(g, &text, JSON_TOKENS, &[], 3)
    } else {
        text
    }
}

fn pick_text(g: &mut Gen, usual: &[&str]) -> String {
    let text = g.pick(usual).to_string();
    if g.one_in(6) {
        crate::mutate::mutate(g, &text, &[":", "-", "=", ","], &[], 2)
    } else {
        text
    }
}

impl Target for Captures {
    fn name(&self) -> &'static str {
        "capture"
    }

    fn extension(&self) -> &'static str {
        "json"
    }

    fn generate(&self, g: &mut Gen) -> Vec<u8> {
        let start = g.range(0, 1 << 42);
        let step = *g.pick(&[1000u64, 60_000, 3_600_000, 0]);
        let samples = (0..g.count(40))
            .map(|i| {
                let s = sample(g, start.saturating_add(step.saturating_mul(i as u64)));
                document(g, &s)
            })
            .collect();
        let traces = (0..g.count(2))
            .map(|_| {
                let t = trace(g);
                document(g, &t)
            })
            .collect();
        let request = Request {
            samples,
            traces,
            devices: g.one_in(4).then(|| {
                (0..g.count(2))
                    .map(|_| g.pick(DEVICES).to_string())
                    .collect()
            }),
            window: if g.one_in(3) {
                pick_text(
                    g,
                    &[
                        "peak=12:00-13:00",
                        "n=22:00-06:00,d=06:00-22:00",
                        "a=0-24",
                        "b=23:59-00:01",
                    ],
                )
            } else {
                String::new()
            },
            utc_offset: pick_text(
                g,
                &["+00:00", "-05:30", "+14:00", "+0100", "Z", "UTC", "-9"],
            ),
            level: pick_text(g, &["p50", "p90", "p99", "max", "mean"]),
            // clap keeps --random to 0..=100.
            random: g.one_in(3).then(|| g.range(0, 100) as u8),
            size: if g.one_in(3) { g.size() } else { "1g".into() },
            runtime: if g.one_in(3) { g.time() } else { "60s".into() },
        };
        serde_json::to_vec_pretty(&request).unwrap_or_default()
    }

    fn check(&self, input: &[u8]) -> Verdict {
        match serde_json::from_slice::<Request>(input) {
            Ok(request) => check_request(&request),
            Err(e) => refused(format!("not a saved capture request: {e}")),
        }
    }
}

/// `diskmeter requirements`, `plan --from-capture` and `replay` (both kinds) on a capture.
pub fn check_request(request: &Request) -> Verdict {
    let offset = match parse_utc_offset(&request.utc_offset) {
        Ok(offset) => offset,
        Err(e) => return refused(format!("--utc-offset: {e}")),
    };
    let windows = match WindowSet::parse(&request.window, offset) {
        Ok(windows) => windows,
        Err(e) => return refused(format!("--window: {e}")),
    };
    let level: Level = match request.level.parse() {
        Ok(level) => level,
        Err(e) => return refused(format!("--level: {e}")),
    };
    let mut builder = ChecklistBuilder::new(request.devices.clone(), windows);
    for (i, text) in request.samples.iter().enumerate() {
        match serde_json::from_str::<CaptureSample>(text) {
            Ok(sample) => builder.push(&sample),
            Err(e) => return refused(format!("capture 1: damaged sample {i}: {e}")),
        }
    }
    let mut traces = Vec::new();
    for text in &request.traces {
        match serde_json::from_str::<TraceProfile>(text) {
            Ok(trace) => {
                builder.add_trace(&trace);
                traces.push(trace);
            }
            Err(e) => return refused(format!("capture 1: damaged trace profile: {e}")),
        }
    }
    let requirements = match builder.finish() {
        Ok(requirements) => requirements,
        Err(e) => return refused(format!("capture 1: {e}")),
    };
    // What `requirements` prints, in each format.
    render(&requirements.whole);
    for window in &requirements.windows {
        render(&window.checklist);
        let _ = window.window.range_text();
    }
    let _ = serde_json::to_string(&requirements);
    // `plan --from-capture`.
    let demand = demand_from(&requirements.whole, level, "capture 1");
    let _ = diskmeter_views::plan::describe_demand(&demand);
    // `replay`.
    if requirements.devices.is_empty() || requirements.whole.intervals == 0 {
        return Verdict::Accepted;
    }
    let chosen: Vec<&TraceProfile> = traces
        .iter()
        .filter(|t| requirements.traced_devices.contains(&t.device))
        .collect();
    // `replay --exact` builds only on a log that is there (the CLI checks first).
    let logged = chosen.iter().filter(|t| {
        t.iolog_path
            .as_deref()
            .is_some_and(|p| std::path::Path::new(p).is_file())
    });
    for trace in logged {
        let exact = build_exact_replay(&ExactRequest {
            name: "replay-1-exact".to_string(),
            iolog_path: trace.iolog_path.clone().unwrap_or_default(),
            redirect: Some("/dev/null".to_string()),
            traced_max_queue_depth: trace.queue_depth.max,
        });
        if let Verdict::Broken(why) = runs(&exact) {
            return Verdict::Broken(format!("--exact: {why}"));
        }
    }
    let size_bytes = match parse_size(&request.size, KbBase::Binary) {
        Ok(0) => return refused("--size 0: the region needs at least one block".into()),
        Ok(bytes) => bytes,
        Err(e) => return refused(format!("--size: {e}")),
    };
    let runtime_ns = match parse_time_ns(&request.runtime, TimeUnit::Seconds) {
        Ok(0) => return refused("--runtime 0: give a time to run".into()),
        Ok(ns) => ns,
        Err(e) => return refused(format!("--runtime: {e}")),
    };
    let replay = ReplayRequest {
        name: format!("replay-1-{level}"),
        level: LevelFigures::from_checklist(&requirements.whole, level),
        trace: TracedShape::from_traces(&chosen),
        random_percent: request.random,
        size_bytes,
        runtime_ns,
    };
    match build_replay(&replay) {
        Ok(workload) => runs(&workload),
        Err(e) => refused(e.to_string()),
    }
}

/// The checklist as text cells, CSV cells and spans.
fn render(checklist: &Checklist) {
    let _ = format_span(checklist.seconds);
    for row in &checklist.rows {
        for level in Level::ALL {
            let _ = format_figure(row.figures.get(level));
        }
        let _ = row.metric.label();
    }
}

/// The workload as a job file and as jobs: its options must parse (a failure is the
/// builder's bug); a job that fails validation is refused like any run.
fn runs(workload: &ReplayWorkload) -> Verdict {
    let _ = workload.job_file(&["a comment".to_string()], &[]);
    let options: Vec<(String, Option<String>)> = workload
        .options
        .iter()
        .map(|(name, value)| (name.clone(), Some(value.clone())))
        .collect();
    let jobs = match jobs_from_options(&options) {
        Ok(jobs) => jobs,
        Err(errors) => {
            let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
            return Verdict::Broken(format!(
                "the replay workload does not parse: {}",
                all.join("; ")
            ));
        }
    };
    match jobs.iter().flat_map(validate).next() {
        Some(problem) => refused(problem.to_string()),
        None => Verdict::Accepted,
    }
}
