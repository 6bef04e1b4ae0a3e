//! The commands that read the results history: `history` (list), `show`, `export`,
//! `compare` and `analyze` (a saved sweep).

use crate::args::db_arg;
use crate::save::open_for_reading;
use crate::{write_output, EXIT_FAILURE, EXIT_USAGE};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_analysis::compare::{compare_runs, CompareOptions, Comparison};
use diskmeter_history::{HistoryStore, RunFilter, StoredRun};
use diskmeter_report::format::utc_timestamp;
use diskmeter_report::RunResult;
use diskmeter_units::format_thousands;
use std::fmt::Write;
use std::path::PathBuf;

const MIB: f64 = (1u64 << 20) as f64;

fn run_id_arg(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name).value_name("ID").required(true).help(help)
}

fn output_arg() -> Arg {
    Arg::new("output")
        .long("output")
        .value_name("FILE")
        .help("Write to FILE instead of stdout")
}

/// The `history` subcommand.
pub fn history_command() -> Command {
    Command::new("history")
        .about("List the saved runs, newest first")
        .long_about(
            "Lists the runs in the results history, newest first: every run, suite, sweep, \
             diskspd and iometer command saves its results there unless --no-save. Filters \
             combine. Dates are UTC, YYYY-MM-DD or YYYY-MM-DDTHH:MM.",
        )
        .arg(db_arg())
        .arg(
            Arg::new("kind")
                .long("kind")
                .value_name("KIND")
                .value_parser(["run", "suite", "sweep", "diskspd", "iometer"])
                .help("Only runs of this command"),
        )
        .arg(
            Arg::new("suite")
                .long("suite")
                .value_name("NAME")
                .help("Only runs of this suite (or with this name)"),
        )
        .arg(
            Arg::new("target")
                .long("target")
                .value_name("TEXT")
                .help("Only runs whose target contains TEXT"),
        )
        .arg(
            Arg::new("since")
                .long("since")
                .value_name("DATE")
                .help("Only runs started at or after DATE"),
        )
        .arg(
            Arg::new("until")
                .long("until")
                .value_name("DATE")
                .help("Only runs started before DATE"),
        )
        .arg(
            Arg::new("limit")
                .long("limit")
                .value_name("N")
                .value_parser(clap::value_parser!(u32))
                .default_value("50")
                .help("At most N runs"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["table", "json"])
                .default_value("table")
                .help("table or json"),
        )
}

/// The `show` subcommand.
pub fn show_command() -> Command {
    Command::new("show")
        .about("Show a saved run: its host, command line and a table of its steps")
        .arg(run_id_arg(
            "id",
            "The run's id (diskmeter history), or 'last'",
        ))
        .arg(db_arg())
        .arg(
            Arg::new("full")
                .long("full")
                .action(ArgAction::SetTrue)
                .help("Also print every step's full report"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["normal", "json"])
                .default_value("normal")
                .help("normal or json (the whole stored run)"),
        )
}

/// The `export` subcommand.
pub fn export_command() -> Command {
    Command::new("export")
        .about("Export a saved run as JSON, fio-compatible JSON or CSV")
        .long_about(
            "Exports a saved run. json: the run, its host facts and every step's full result \
             (diskmeter's schema). fio-json: fio 3.x's JSON for each step (one document for a \
             one-step run, else an array of them in step order). csv: one row per step, job \
             and direction with IOPS, bandwidth and latency percentiles.",
        )
        .arg(run_id_arg("id", "The run's id, or 'last'"))
        .arg(db_arg())
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["json", "fio-json", "csv"])
                .default_value("json")
                .help("json, fio-json or csv"),
        )
        .arg(output_arg())
}

/// The `compare` subcommand.
pub fn compare_command() -> Command {
    Command::new("compare")
        .about("Compare two saved runs step by step: faster, slower or within noise")
        .long_about(
            "Compares run B with run A (the baseline), matching steps by name. For each step and \
             metric (IOPS, MiB/s, mean and p99 latency, per direction) it prints both values, the \
             change and a verdict from the per-second samples: the means of the samples and their \
             standard errors by batch means (allowing for neighbouring seconds being correlated) \
             are compared with Welch's t-test at 95 %, and the samples by rank (Mann-Whitney U, \
             5 %: short runs of bursty devices); a change is called when either test finds it \
             and it is at least --noise-floor percent. A 'slower' change of at \
             least --threshold percent is a regression.\n\n\
             Exit codes: 0 no regression; 1 a regression (for CI pipelines) or a run is missing; \
             2 usage error.",
        )
        .arg(run_id_arg("baseline", "Run A, the baseline"))
        .arg(run_id_arg("candidate", "Run B, compared with A"))
        .arg(db_arg())
        .arg(
            Arg::new("threshold")
                .long("threshold")
                .value_name("PERCENT")
                .value_parser(clap::value_parser!(f64))
                .default_value("10")
                .help("A slower change at least this large is a regression (exit code 1)"),
        )
        .arg(
            Arg::new("noise-floor")
                .long("noise-floor")
                .value_name("PERCENT")
                .value_parser(clap::value_parser!(f64))
                .default_value("5")
                .help("Changes smaller than this are within noise"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["normal", "json"])
                .default_value("normal")
                .help("normal or json"),
        )
        .arg(output_arg())
}

/// The `analyze` subcommand.
pub fn analyze_command() -> Command {
    Command::new("analyze")
        .about("Analyse a saved sweep again: ceilings, crossover, knees, tiers and charts")
        .arg(run_id_arg(
            "id",
            "The sweep's id, or 'last' (the newest sweep)",
        ))
        .arg(db_arg())
        .arg(Arg::new("charts").long("charts").value_name("DIR").help(
            "Folder for the charts (default: diskmeter-sweep-<time> here); 'none' for no charts",
        ))
        .arg(
            Arg::new("output-format")
                .long("output-format")
                .value_parser(["normal", "json"])
                .default_value("normal")
                .help("normal: table and summary; json: points and analysis"),
        )
        .arg(output_arg())
}

fn db(matches: &ArgMatches) -> Option<&PathBuf> {
    matches.get_one::<PathBuf>("db")
}

/// Resolves "last" or a number to a run id (for `analyze`, "last" is the newest sweep).
fn resolve_id(store: &HistoryStore, text: &str, kind: Option<&str>) -> Result<i64, i32> {
    if text == "last" {
        let filter = RunFilter {
            kind: kind.map(str::to_string),
            limit: Some(1),
            ..Default::default()
        };
        return match store.list(&filter) {
            Ok(runs) if !runs.is_empty() => Ok(runs[0].id),
            Ok(_) => {
                eprintln!("diskmeter: the history has no such run yet");
                Err(EXIT_FAILURE)
            }
            Err(e) => {
                eprintln!("diskmeter: {e}");
                Err(EXIT_FAILURE)
            }
        };
    }
    text.parse::<i64>().map_err(|_| {
        eprintln!(
            "diskmeter: '{text}' is not a run id (a number from diskmeter history, or 'last')"
        );
        EXIT_USAGE
    })
}

fn load(store: &HistoryStore, id: i64) -> Result<StoredRun, i32> {
    store.load(id).map_err(|e| {
        eprintln!("diskmeter: {e}");
        EXIT_FAILURE
    })
}

fn finish(matches: &ArgMatches, text: &str) -> i32 {
    match write_output(matches.try_get_one::<String>("output").ok().flatten(), text) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("diskmeter: {error}");
            EXIT_FAILURE
        }
    }
}

/// Runs `diskmeter history`.
pub fn history_main(matches: &ArgMatches) -> i32 {
    let date = |name: &str| -> Result<Option<u64>, i32> {
        matches
            .get_one::<String>(name)
            .map(|text| {
                parse_date_ms(text).ok_or_else(|| {
                    eprintln!("diskmeter: --{name} {text}: give a UTC date as YYYY-MM-DD or YYYY-MM-DDTHH:MM");
                    EXIT_USAGE
                })
            })
            .transpose()
    };
    let filter = match (date("since"), date("until")) {
        (Ok(since), Ok(until)) => RunFilter {
            kind: matches.get_one::<String>("kind").cloned(),
            name: matches.get_one::<String>("suite").cloned(),
            target_contains: matches.get_one::<String>("target").cloned(),
            since_unix_ms: since,
            until_unix_ms: until,
            limit: matches.get_one::<u32>("limit").copied(),
        },
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let store = match open_for_reading(db(matches)) {
        Ok(store) => store,
        Err(code) => return code,
    };
    let runs = match store.list(&filter) {
        Ok(runs) => runs,
        Err(e) => {
            eprintln!("diskmeter: {e}");
            return EXIT_FAILURE;
        }
    };
    if matches.get_one::<String>("format").map(String::as_str) == Some("json") {
        return finish(
            matches,
            &(serde_json::to_string_pretty(&runs).unwrap_or_default() + "\n"),
        );
    }
    if runs.is_empty() {
        return finish(matches, "no runs match\n");
    }
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::ASCII_MARKDOWN)
        .set_header(vec![
            "id", "started", "kind", "name", "target", "steps", "result",
        ]);
    for run in &runs {
        table.add_row(vec![
            run.id.to_string(),
            utc_timestamp(run.started_unix_ms),
            run.kind.clone(),
            run.name.clone(),
            run.target.clone(),
            run.steps.to_string(),
            format!(
                "{}{}",
                run.summary,
                if run.partial { " (interrupted)" } else { "" }
            ),
        ]);
    }
    finish(matches, &format!("{table}\n"))
}

/// Runs `diskmeter show`.
pub fn show_main(matches: &ArgMatches) -> i32 {
    let store = match open_for_reading(db(matches)) {
        Ok(store) => store,
        Err(code) => return code,
    };
    let id = match resolve_id(
        &store,
        &matches.get_one::<String>("id").cloned().unwrap_or_default(),
        None,
    ) {
        Ok(id) => id,
        Err(code) => return code,
    };
    let run = match load(&store, id) {
        Ok(run) => run,
        Err(code) => return code,
    };
    if matches.get_one::<String>("format").map(String::as_str) == Some("json") {
        return finish(
            matches,
            &(serde_json::to_string_pretty(&run).unwrap_or_default() + "\n"),
        );
    }
    let s = &run.summary;
    let mut text = String::new();
    let _ = writeln!(text, "run {}: {} {} on {}", s.id, s.kind, s.name, s.target);
    let _ = writeln!(
        text,
        "started {}, took {:.1} s{}; diskmeter {} on {}",
        utc_timestamp(s.started_unix_ms),
        s.finished_unix_ms.saturating_sub(s.started_unix_ms) as f64 / 1000.0,
        if s.partial {
            ", interrupted (partial)"
        } else {
            ""
        },
        s.diskmeter_version,
        s.hostname
    );
    if let Some(host) = &run.host {
        let _ = writeln!(text, "host: {}", host.one_line());
    }
    let _ = writeln!(text, "command: {}\n", s.command_line);
    text.push_str(&steps_table(&run));
    text.push('\n');
    if matches.get_flag("full") {
        for step in &run.steps {
            let _ = writeln!(text, "\n## {}\n", step.name);
            text.push_str(&diskmeter_report::render_terminal(&step.result));
        }
    }
    finish(matches, &text)
}

/// A row per step: IOPS and MiB/s per direction, mean and p99 latency, steady state.
fn steps_table(run: &StoredRun) -> String {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::ASCII_MARKDOWN)
        .set_header(vec![
            "step",
            "read IOPS",
            "read MiB/s",
            "write IOPS",
            "write MiB/s",
            "mean lat",
            "p99 lat",
            "steady",
        ]);
    for step in &run.steps {
        let r = &step.result;
        let sum =
            |f: &dyn Fn(&diskmeter_report::JobResult) -> f64| -> f64 { r.jobs.iter().map(f).sum() };
        let ios = sum(&|j| (j.read.lat.count + j.write.lat.count) as f64);
        let mean_ns = if ios > 0.0 {
            sum(&|j| {
                j.read.lat.mean_ns * j.read.lat.count as f64
                    + j.write.lat.mean_ns * j.write.lat.count as f64
            }) / ios
        } else {
            0.0
        };
        let p99 = r
            .jobs
            .iter()
            .flat_map(|j| [&j.read.clat, &j.write.clat])
            .filter(|l| l.count > 0)
            .filter_map(|l| {
                l.percentiles
                    .iter()
                    .find(|p| (p.percent - 99.0).abs() < 1e-9)
            })
            .map(|p| p.value_ns)
            .max();
        let steady = r
            .jobs
            .iter()
            .filter_map(|j| j.steady_state.as_ref())
            .map(|ss| match ss.attained_at_ns {
                Some(ns) => format!("after {:.0} s", ns as f64 / 1e9),
                None => "not reached".to_string(),
            })
            .next()
            .unwrap_or_else(|| "-".to_string());
        table.add_row(vec![
            step.name.clone(),
            format_thousands(sum(&|j| j.read.iops).round() as u64),
            format!("{:.1}", sum(&|j| j.read.bw_bytes_per_sec) / MIB),
            format_thousands(sum(&|j| j.write.iops).round() as u64),
            format!("{:.1}", sum(&|j| j.write.bw_bytes_per_sec) / MIB),
            format!("{:.1} us", mean_ns / 1000.0),
            p99.map_or("-".to_string(), |ns| {
                format!("{:.1} us", ns as f64 / 1000.0)
            }),
            steady,
        ]);
    }
    table.to_string()
}

/// Runs `diskmeter export`.
pub fn export_main(matches: &ArgMatches) -> i32 {
    let store = match open_for_reading(db(matches)) {
        Ok(store) => store,
        Err(code) => return code,
    };
    let id = match resolve_id(
        &store,
        &matches.get_one::<String>("id").cloned().unwrap_or_default(),
        None,
    ) {
        Ok(id) => id,
        Err(code) => return code,
    };
    let run = match load(&store, id) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let text = match matches.get_one::<String>("format").map(String::as_str) {
        Some("fio-json") => {
            let docs: Vec<serde_json::Value> = run
                .steps
                .iter()
                .map(|s| diskmeter_report::to_fio_json(&s.result))
                .collect();
            let value = if docs.len() == 1 {
                docs.into_iter().next().unwrap_or_default()
            } else {
                serde_json::Value::Array(docs)
            };
            serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
        }
        Some("csv") => csv(&run),
        _ => serde_json::to_string_pretty(&run).unwrap_or_default() + "\n",
    };
    finish(matches, &text)
}

/// The CSV columns, one row per step, reported job and direction that did IO.
const CSV_HEADER: &str = "run_id,step,job,direction,ios,bytes,runtime_ns,iops,bw_bytes_per_sec,lat_mean_ns,lat_stddev_ns,lat_min_ns,lat_max_ns,clat_p50_ns,clat_p90_ns,clat_p99_ns,clat_p99_9_ns,clat_p99_99_ns";

fn csv(run: &StoredRun) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for step in &run.steps {
        for job in &step.result.jobs {
            for (label, d) in [("read", &job.read), ("write", &job.write)] {
                if d.ios == 0 {
                    continue;
                }
                let p = |percent: f64| {
                    d.clat
                        .percentiles
                        .iter()
                        .find(|x| (x.percent - percent).abs() < 1e-9)
                        .map_or(String::new(), |x| x.value_ns.to_string())
                };
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{:.3},{:.3},{:.1},{:.1},{},{},{},{},{},{},{}",
                    run.summary.id,
                    csv_field(&step.name),
                    csv_field(&job.name),
                    label,
                    d.ios,
                    d.bytes,
                    d.runtime_ns,
                    d.iops,
                    d.bw_bytes_per_sec,
                    d.lat.mean_ns,
                    d.lat.stddev_ns,
                    d.lat.min_ns,
                    d.lat.max_ns,
                    p(50.0),
                    p(90.0),
                    p(99.0),
                    p(99.9),
                    p(99.99)
                );
            }
        }
    }
    out
}

/// RFC 4180 quoting when needed.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Runs `diskmeter compare`.
pub fn compare_main(matches: &ArgMatches) -> i32 {
    let store = match open_for_reading(db(matches)) {
        Ok(store) => store,
        Err(code) => return code,
    };
    let mut runs = Vec::new();
    for name in ["baseline", "candidate"] {
        let text = matches.get_one::<String>(name).cloned().unwrap_or_default();
        match resolve_id(&store, &text, None).and_then(|id| load(&store, id)) {
            Ok(run) => runs.push(run),
            Err(code) => return code,
        }
    }
    let options = CompareOptions {
        threshold_percent: matches.get_one::<f64>("threshold").copied().unwrap_or(10.0),
        noise_floor_percent: matches
            .get_one::<f64>("noise-floor")
            .copied()
            .unwrap_or(5.0),
    };
    let (a, b) = (step_refs(&runs[0]), step_refs(&runs[1]));
    let comparison = compare_runs(&a, &b, options);
    let text = if matches.get_one::<String>("format").map(String::as_str) == Some("json") {
        serde_json::to_string_pretty(&serde_json::json!({
            "baseline": runs[0].summary,
            "candidate": runs[1].summary,
            "comparison": comparison,
            "regressions": comparison.regressions(),
        }))
        .unwrap_or_default()
            + "\n"
    } else {
        render_comparison(&runs[0], &runs[1], &comparison)
    };
    let code = finish(matches, &text);
    if code != 0 {
        return code;
    }
    if comparison.metrics.is_empty() {
        eprintln!("diskmeter: the two runs have no step in common (steps are matched by name)");
        return EXIT_FAILURE;
    }
    if comparison.regressions() > 0 {
        EXIT_FAILURE
    } else {
        0
    }
}

fn step_refs(run: &StoredRun) -> Vec<(String, &RunResult)> {
    run.steps
        .iter()
        .map(|s| (s.name.clone(), &s.result))
        .collect()
}

fn render_comparison(a: &StoredRun, b: &StoredRun, c: &Comparison) -> String {
    let mut text = String::new();
    for (label, run) in [("A", a), ("B", b)] {
        let s = &run.summary;
        let _ = writeln!(
            text,
            "{label}: run {} ({} {} on {}, {})",
            s.id,
            s.kind,
            s.name,
            s.target,
            utc_timestamp(s.started_unix_ms)
        );
    }
    text.push('\n');
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::ASCII_MARKDOWN)
        .set_header(vec!["step", "metric", "A", "B", "change", "verdict"]);
    for m in &c.metrics {
        let value = |v: f64| match m.unit.as_str() {
            "IOPS" => format_thousands(v.round() as u64),
            "MiB/s" => format!("{v:.1}"),
            _ => format!("{v:.1} us"),
        };
        table.add_row(vec![
            m.step.clone(),
            m.metric.clone(),
            value(m.baseline),
            value(m.candidate),
            format!("{:+.1} %", m.change_percent),
            format!(
                "{}{}",
                m.outcome.label(),
                if m.regression { " (regression)" } else { "" }
            ),
        ]);
    }
    let _ = writeln!(text, "{table}\n");
    for (which, names) in [("A", &c.only_in_baseline), ("B", &c.only_in_candidate)] {
        if !names.is_empty() {
            let _ = writeln!(text, "only in {which}: {}", names.join(", "));
        }
    }
    let _ = writeln!(
        text,
        "verdicts: the per-second samples by Welch's t-test at 95 % (batch-means standard errors) \
         and by rank (Mann-Whitney U, 5 %); changes under {} % are within noise; a slower change \
         of {} % or more is a regression.",
        c.options.noise_floor_percent, c.options.threshold_percent
    );
    let _ = writeln!(
        text,
        "{} regression{}",
        c.regressions(),
        if c.regressions() == 1 { "" } else { "s" }
    );
    text
}

/// Runs `diskmeter analyze`.
pub fn analyze_main(matches: &ArgMatches) -> i32 {
    let store = match open_for_reading(db(matches)) {
        Ok(store) => store,
        Err(code) => return code,
    };
    let text = matches.get_one::<String>("id").cloned().unwrap_or_default();
    let run = match resolve_id(&store, &text, Some("sweep")).and_then(|id| load(&store, id)) {
        Ok(run) => run,
        Err(code) => return code,
    };
    if run.summary.kind != "sweep" {
        eprintln!(
            "diskmeter: run {} is a {}, not a sweep: analyze takes runs saved by diskmeter sweep",
            run.summary.id, run.summary.kind
        );
        return EXIT_USAGE;
    }
    let groups = match crate::sweep::points_from_steps(&run.steps) {
        Ok(groups) => groups,
        Err(message) => {
            eprintln!("diskmeter: {message}");
            return EXIT_FAILURE;
        }
    };
    let charts = crate::sweep::charts_folder(matches.get_one::<String>("charts"));
    let json = matches
        .get_one::<String>("output-format")
        .map(String::as_str)
        == Some("json");
    let text = crate::sweep::analyse_and_render(&groups, &run.summary.target, charts, json, None);
    finish(matches, &text)
}

/// "2026-11-23" or "2026-11-23T14:20" (UTC) as ms since the epoch.
fn parse_date_ms(text: &str) -> Option<u64> {
    let (date, time) = match text.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let (y, m, d): (i64, u32, u32) = (
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
    );
    if parts.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let seconds_of_day = match time {
        None => 0,
        Some(t) => {
            let mut hm = t.split(':');
            let h: u64 = hm.next()?.parse().ok()?;
            let mi: u64 = hm.next().unwrap_or("0").parse().ok()?;
            if h > 23 || mi > 59 {
                return None;
            }
            h * 3600 + mi * 60
        }
    };
    let days = days_from_civil(y, m, d);
    (days >= 0).then(|| (days as u64 * 86_400 + seconds_of_day) * 1000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_as_utc() {
        assert_eq!(parse_date_ms("1970-01-01"), Some(0));
        assert_eq!(parse_date_ms("2000-03-01"), Some(951_868_800_000));
        assert_eq!(parse_date_ms("2026-11-24T10:30"), Some(1_795_516_200_000));
        assert_eq!(parse_date_ms("2026-13-01"), None);
        assert_eq!(parse_date_ms("yesterday"), None);
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("SEQ1M Q8T1 read"), "SEQ1M Q8T1 read");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
