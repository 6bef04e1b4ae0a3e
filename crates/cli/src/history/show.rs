//! `diskmeter show`: one saved run, its host, command line and a row per step.

use super::{finish, load, open, run_id_arg};
use crate::args::db_arg;
use crate::Status;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_history::StoredRun;
use diskmeter_report::format::utc_timestamp;
use diskmeter_units::format_thousands;
use diskmeter_units::MIB_F64;
use diskmeter_views::text::TextTable;
use std::fmt::Write;

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

/// Runs `diskmeter show`.
pub fn show_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let store = open(matches)?;
    let run = load(&store, matches, "id", None)?;
    if matches.get_one::<String>("format").map(String::as_str) == Some("json") {
        return finish(matches, &(serde_json::to_string_pretty(&run)? + "\n"));
    }
    let s = &run.summary;
    let mut text = String::new();
    let _ = writeln!(text, "run {}: {} {} on {}", s.id, s.kind, s.name, s.target);
    let _ = writeln!(
        text,
        "started {}, took {:.1} s{}; diskmeter {} on {}",
        utc_timestamp(s.started_unix_ms),
        s.finished_unix_ms.saturating_sub(s.started_unix_ms) as f64 / 1000.0,
        if s.unfinished {
            ", unfinished (begun but never finished: still running, or its process ended; the steps it finished are kept)"
        } else if s.partial {
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
    for step in run.steps.iter() {
        if let Some(reason) = step.result.partial_reason() {
            let _ = writeln!(text, "{} is partial: {reason}", step.name);
        }
    }
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
    let mut table = TextTable::new([
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
        // On the intended clock for a paced or replayed step, marked so.
        let latency = r.headline_latency();
        let mark = match latency.clock {
            diskmeter_report::LatencyClock::Issue => "",
            diskmeter_report::LatencyClock::Intended => " (intended)",
        };
        let us = |ns: f64| format!("{:.1} us{mark}", ns / 1000.0);
        let (mean, p99) = if latency.unknown {
            ("not known".to_string(), "not known".to_string())
        } else {
            (
                us(latency.mean_ns.unwrap_or(0.0)),
                latency.p99_ns.map_or("-".to_string(), |ns| us(ns as f64)),
            )
        };
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
        table.row([
            // Part of a step is not the step's figure: marked, as every view marks it.
            match r.is_partial() {
                true => format!("{} (partial)", step.name),
                false => step.name.clone(),
            },
            format_thousands(sum(&|j| j.read.iops).round() as u64),
            format!("{:.1}", sum(&|j| j.read.bw_bytes_per_sec) / MIB_F64),
            format_thousands(sum(&|j| j.write.iops).round() as u64),
            format!("{:.1}", sum(&|j| j.write.bw_bytes_per_sec) / MIB_F64),
            mean,
            p99,
            steady,
        ]);
    }
    table.to_string()
}
