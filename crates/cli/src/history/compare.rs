//! `diskmeter compare`: two saved runs step by step, with a verdict per metric and an exit
//! code for CI (1 on a regression).

use super::{finish, load, open, output_arg, run_id_arg};
use crate::args::db_arg;
use crate::Status;
use clap::{Arg, ArgMatches, Command};
use diskmeter_analysis::compare::{compare_runs, CompareOptions, Comparison};
use diskmeter_history::StoredRun;
use diskmeter_report::format::utc_timestamp;
use diskmeter_report::RunResult;
use diskmeter_views::text::TextTable;
use std::fmt::Write;

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
             least --threshold percent is a regression. A step paced or replayed in either \
             run is compared on latency from each IO's intended issue time ('(intended)': the \
             p99 by its distribution-free 95 % interval, the mean taking each second as one \
             sample); a paced run saved without that figure is not compared on latency, and a \
             step interrupted or failed in either run is not compared: notes say so.\n\n\
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

/// Runs `diskmeter compare`.
pub fn compare_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let store = open(matches)?;
    let runs = [
        load(&store, matches, "baseline", None)?,
        load(&store, matches, "candidate", None)?,
    ];
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
        }))? + "\n"
    } else {
        render_comparison(&runs[0], &runs[1], &comparison)
    };
    finish(matches, &text)?;
    if comparison.metrics.is_empty() && !comparison.notes.is_empty() {
        anyhow::bail!("nothing to compare: {}", comparison.notes.join("; "));
    }
    if comparison.metrics.is_empty() {
        anyhow::bail!("the two runs have no step in common (steps are matched by name)");
    }
    // A regression beyond --threshold is a missed requirement: exit 1.
    Ok(if comparison.regressions() > 0 {
        Status::Failure
    } else {
        Status::Success
    })
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
    let mut table = TextTable::new(["step", "metric", "A", "B", "change", "verdict"]);
    for m in &c.metrics {
        table.row([
            m.step.clone(),
            m.metric.clone(),
            m.format_value(m.baseline),
            m.format_value(m.candidate),
            m.format_change(),
            m.verdict_text(),
        ]);
    }
    let _ = writeln!(text, "{table}\n");
    for (which, names) in [("A", &c.only_in_baseline), ("B", &c.only_in_candidate)] {
        if !names.is_empty() {
            let _ = writeln!(text, "only in {which}: {}", names.join(", "));
        }
    }
    for note in &c.notes {
        let _ = writeln!(text, "{note}");
    }
    let _ = writeln!(text, "{}", c.method_text());
    let _ = writeln!(
        text,
        "{} regression{}",
        c.regressions(),
        if c.regressions() == 1 { "" } else { "s" }
    );
    text
}
