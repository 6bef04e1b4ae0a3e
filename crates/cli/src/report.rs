//! `diskmeter report ID... -o FILE.html`: one self-contained HTML file of saved runs (and,
//! with `--compare A B`, their comparison), built from the view model and rendered by
//! `diskmeter-html`. Here only the arguments: which runs, which history, where to write.

use crate::args::db_arg;
use crate::history::{open, resolve_id};
use crate::{write_output, Status};
use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_analysis::compare::CompareOptions;
use diskmeter_views::Item;
use std::time::{SystemTime, UNIX_EPOCH};

/// The `report` subcommand.
pub fn command() -> Command {
    Command::new("report")
        .about("Write saved runs as one self-contained HTML report")
        .long_about(
            "Writes saved runs as one HTML file that needs nothing else: scripts, styles and \
             data are inside it, so it opens from disk, offline and as an email attachment \
             and makes no network request. For each run it shows what the history holds: \
             the summary, command line and job file, host and device, per-second IOPS, \
             bandwidth and latency, the latency percentiles on a 'nines' axis, the \
             histogram; a suite's table and each step; a sweep's charts, analysis and \
             named tier; a capture's checklist and series. Several IDs make one report \
             with a table of contents. --compare A B adds run B compared with run A \
             (verdict per metric, as `diskmeter compare`) at the top.\n\n\
             IDs are as `diskmeter show` takes them: a number from `diskmeter history`, or \
             'last'.",
        )
        .arg(
            Arg::new("ids")
                .value_name("ID")
                .num_args(1..)
                .required_unless_present("compare")
                .help("Runs to show, in this order: ids from diskmeter history, or 'last'"),
        )
        .arg(
            Arg::new("output")
                .short('o')
                .long("output")
                .value_name("FILE")
                .help("Write the report to FILE (report.html) instead of stdout"),
        )
        .arg(db_arg())
        .arg(
            Arg::new("compare")
                .long("compare")
                .value_names(["A", "B"])
                .num_args(2)
                .action(ArgAction::Set)
                .help("Add run B compared with run A (the baseline) as the first section"),
        )
        .arg(
            Arg::new("noise-floor")
                .long("noise-floor")
                .value_name("PERCENT")
                .value_parser(clap::value_parser!(f64))
                .requires("compare")
                .help("With --compare: changes smaller than this are within noise [default: 5]"),
        )
        .arg(
            Arg::new("threshold")
                .long("threshold")
                .value_name("PERCENT")
                .value_parser(clap::value_parser!(f64))
                .requires("compare")
                .help("With --compare: a slower change at least this large is a regression [default: 10]"),
        )
}

/// Runs `diskmeter report`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let store = open(matches)?;
    let items = items(&store, matches)?;
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let document = diskmeter_views::document(&store, &items, now_ms)?;
    let html = diskmeter_html::render_report(&document)?;
    write_output(matches.get_one::<String>("output"), &html).context("writing the report")?;
    Ok(Status::Success)
}

/// What the report shows, in order: the comparison first (it is the verdict the runs
/// explain), then each run once.
fn items(
    store: &diskmeter_history::HistoryStore,
    matches: &ArgMatches,
) -> anyhow::Result<Vec<Item>> {
    let mut items = Vec::new();
    if let Some(pair) = matches.get_many::<String>("compare") {
        let pair: Vec<&String> = pair.collect();
        let defaults = CompareOptions::default();
        let options = CompareOptions {
            noise_floor_percent: matches
                .get_one::<f64>("noise-floor")
                .copied()
                .unwrap_or(defaults.noise_floor_percent),
            threshold_percent: matches
                .get_one::<f64>("threshold")
                .copied()
                .unwrap_or(defaults.threshold_percent),
        };
        items.push(Item::Compare {
            baseline: resolve_id(store, pair[0], None)?,
            candidate: resolve_id(store, pair[1], None)?,
            options,
        });
    }
    let mut seen = Vec::new();
    for text in matches.get_many::<String>("ids").into_iter().flatten() {
        let id = resolve_id(store, text, None)?;
        // `report last 12` when 12 is the last run: its section once (anchors are unique).
        if !seen.contains(&id) {
            seen.push(id);
            items.push(Item::Run(id));
        }
    }
    Ok(items)
}
