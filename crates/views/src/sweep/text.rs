//! A sweep as `diskmeter sweep` and `diskmeter analyze` print it in the terminal: each
//! pattern's points table (drawn by [`crate::text`]) and the analysis' summary lines, how
//! auto-stopped points ended and the charts written ([`results`]), or the JSON document of
//! the points and their analysis; and each point's line of `--dry-run`.
//!
//! The report's points table ([`super::section`]) shows the same points with longer column
//! names and units in the headings; this is the terminal's compact form, kept as it was.

use crate::text::TextTable;
use diskmeter_analysis::{analyse_group, summary_lines, Analysis, PointGroup};
use diskmeter_report::RunResult;
use diskmeter_suites::sweep::Point;
use diskmeter_units::{format_size_suffix, format_thousands, KbBase, MIB_F64};
use diskmeter_workload::JobSpec;
use std::fmt::Write;
use std::path::PathBuf;

/// `diskmeter sweep --help`'s description (kept here, with the rest of the sweep's words).
pub const SWEEP_ABOUT: &str = "Runs a grid of short runs (direct IO) over --qd x --bs (x --rw x \
    --numjobs), then says what the curves show: the IOPS and bandwidth ceilings (only where \
    curves flatten and block sizes agree), the crossover block size, what limits each size, \
    the queue-depth knee, QD1 latency, Little's law at every point, the throttling signature \
    and the nearest published tiers. Writes a table, a summary and charts (SVG and PNG: IOPS \
    vs QD, MiB/s vs block size, latency vs QD) into --charts DIR. Each point ends once it is \
    steady (--point-time auto: 200 ms samples, the last second's within 5 % of their mean \
    and the mean known to +-3 %, at most --point-max), or runs a fixed --point-time. The \
    default grid (8 x 5 points, a 0.5 s ramp and at most 3 s each) takes 1 to 2.5 minutes. \
    TARGET as for `diskmeter suite` (default ./diskmeter-sweep.dat, 1 GiB). A point cut \
    short (Ctrl-C, SIGTERM, ENOSPC, an IO error) is listed as partial, with why, and left \
    out of the analysis; with too few whole points for a curve (no block size with two \
    queue depths) nothing is inferred.\n\n\
    --curve runs the IOPS-latency curve instead of the grid, at the first --rw, --bs and \
    --numjobs and the deepest --qd: one unpaced point gives the maximum rate, then one point \
    paced (fio's rate_iops, an even schedule) at each --curve-shares of it, latency measured \
    from each IO's intended issue time; the table gives p50, p99 and p99.9 with their 95 % \
    intervals, the chart is iops-vs-latency. --slo p99=2ms (p50, p90, p99.9, mean, max; \
    read-/write- before it) then bisects between the two rates that bracket the bound until \
    they are within 2 % and reports the highest rate whose interval stays under it: MET, \
    WITHIN NOISE or MISSED, as check judges.\n\n\
    Exit codes: 0 ok; 1 a point failed or the sweep was interrupted; 2 usage error.";

/// How the points of an auto-stopped sweep ended.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct AutoStopSummary {
    /// Points run.
    pub points: usize,
    /// Points that ended because they were steady (the rest ran --point-max).
    pub steady: usize,
    /// Measured time of all points, ns (ramps excluded).
    pub measured_ns: u64,
}

impl AutoStopSummary {
    /// The summary of the points' `results`; none when a point was not auto-stopped.
    pub fn of<'a>(results: impl Iterator<Item = &'a RunResult>) -> Option<AutoStopSummary> {
        let mut summary = AutoStopSummary::default();
        for result in results {
            let watched: Vec<_> = result
                .jobs
                .iter()
                .filter_map(|job| job.steady_state.as_ref().map(|ss| (job, ss)))
                .collect();
            if watched.is_empty() {
                return None;
            }
            summary.points += 1;
            summary.steady += usize::from(watched.iter().all(|(_, ss)| ss.attained));
            summary.measured_ns += watched
                .iter()
                .map(|(job, _)| job.runtime_ns)
                .max()
                .unwrap_or(0);
        }
        (summary.points > 0).then_some(summary)
    }
}

/// The `--dry-run` line of point `index` (0-based) of `total`, with its `jobs`' options:
/// "point 3/40: randread 4k QD4 x1: name=... rw=randread ...".
pub fn point_plan(index: usize, total: usize, point: &Point, jobs: &[JobSpec]) -> String {
    let options: Vec<String> = jobs
        .iter()
        .flat_map(diskmeter_workload::describe)
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    format!(
        "point {}/{total}: {} {} QD{} x{}: {}",
        index + 1,
        point.rw,
        point.bs,
        point.qd,
        point.numjobs,
        options.join(" ")
    )
}

/// The line saying a sweep stopped after `ran` of its `planned` points; empty when every
/// point ran.
pub fn stopped(ran: usize, planned: usize) -> String {
    match ran < planned {
        true => format!(
            "The sweep stopped after {ran} of its {planned} points: the rest were not measured.\n"
        ),
        false => String::new(),
    }
}

/// Analyses each pattern's points (against the built-in catalog's tiers) and renders the
/// tables and summaries, how auto-stopped points ended when known and the `charts` written
/// on `target`; or, `json`, the document of the points, their analysis and the charts.
pub fn results(
    groups: &[PointGroup],
    target: &str,
    charts: &[PathBuf],
    json: bool,
    auto_stop: Option<AutoStopSummary>,
) -> String {
    let catalog = diskmeter_plan::Catalog::builtin();
    // Partial points are listed by the analysis and drawn nowhere: a chart's curve is of
    // whole points only.
    let analyses: Vec<(&PointGroup, Analysis)> = groups
        .iter()
        .map(|group| (group, analyse_group(group, &catalog.named_volumes())))
        .collect();
    if json {
        let doc = serde_json::json!({
            "target": target,
            "sweeps": analyses.iter().map(|(group, a)| serde_json::json!({
                "rw": group.rw, "points": group.points, "partial_points": group.partial,
                "analysis": a, "summary": summary_lines(a),
            })).collect::<Vec<_>>(),
            "charts": charts.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "auto_stop": auto_stop,
        });
        return serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    }
    let mut text = String::new();
    if analyses.is_empty() {
        text.push_str(
            "No point of the sweep finished: nothing was measured and nothing is inferred.\n",
        );
    }
    for (group, analysis) in &analyses {
        text.push_str(&terminal(&group.rw, target, group, analysis));
    }
    if let Some(a) = auto_stop {
        let _ = writeln!(
            text,
            "auto-stop: {} of {} points steady before their maximum; {:.1} s measured in all \
             ({:.2} s a point)",
            a.steady,
            a.points,
            a.measured_ns as f64 / 1e9,
            a.measured_ns as f64 / 1e9 / a.points as f64
        );
    }
    for file in charts {
        let _ = writeln!(text, "chart: {}", file.display());
    }
    text
}

/// "sweep RW on TARGET", the points table (whole points, then partial ones marked) and the
/// summary lines of `analysis`, ending with a blank line.
pub fn terminal(rw: &str, target: &str, group: &PointGroup, analysis: &Analysis) -> String {
    let mut table = TextTable::new(["bs", "QD", "IOPS", "MiB/s", "mean lat", "p99 lat", "limit"]);
    for p in &group.points {
        let limit = analysis
            .block_sizes
            .iter()
            .find(|f| f.bs_bytes == p.bs_bytes)
            .map(|f| format!("{:?}", f.limit).to_lowercase())
            .unwrap_or_default();
        table.row([
            format_size_suffix(p.bs_bytes, KbBase::Binary),
            p.qd.to_string(),
            format_thousands(p.iops.round() as u64),
            format!("{:.1}", p.bytes_per_sec / MIB_F64),
            diskmeter_units::format_duration(p.lat_mean_ns),
            diskmeter_units::format_duration(p.lat_p99_ns),
            limit,
        ]);
    }
    // A partial point is in the table, marked, so a reader sees it was run; its figures
    // cover only part of the time and no column is filled in as if it were whole.
    for p in &group.partial {
        table.row([
            format_size_suffix(p.bs_bytes, KbBase::Binary),
            p.qd.to_string(),
            format!("({}) partial", format_thousands(p.iops.round() as u64)),
            "-".to_string(),
            "-".to_string(),
            "-".to_string(),
            "partial: left out".to_string(),
        ]);
    }
    let mut text = format!("sweep {rw} on {target}\n\n");
    if !group.points.is_empty() || !group.partial.is_empty() {
        let _ = write!(text, "{table}\n\n");
    }
    for line in summary_lines(analysis) {
        let _ = writeln!(text, "  {line}");
    }
    text.push('\n');
    text
}
