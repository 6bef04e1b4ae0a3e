//! `diskmeter history`: the saved runs, newest first, filtered by kind, name, target and date.

use super::{finish, run_state};
use crate::args::db_arg;
use crate::{Status, UsageError};
use clap::{Arg, ArgMatches, Command};
use diskmeter_history::RunFilter;
use diskmeter_report::format::utc_timestamp;
use diskmeter_views::text::TextTable;

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
                .value_parser([
                    "run", "suite", "sweep", "diskspd", "iometer", "replay", "capture",
                ])
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

/// Runs `diskmeter history`.
pub fn history_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let date = |name: &str| -> Result<Option<u64>, UsageError> {
        matches
            .get_one::<String>(name)
            .map(|text| {
                diskmeter_report::format::parse_utc_date_ms(text).ok_or_else(|| {
                    UsageError(format!(
                        "--{name} {text}: give a UTC date as YYYY-MM-DD or YYYY-MM-DDTHH:MM"
                    ))
                })
            })
            .transpose()
    };
    let filter = RunFilter {
        kind: matches.get_one::<String>("kind").cloned(),
        name: matches.get_one::<String>("suite").cloned(),
        target_contains: matches.get_one::<String>("target").cloned(),
        since_unix_ms: date("since")?,
        until_unix_ms: date("until")?,
        limit: matches.get_one::<u32>("limit").copied(),
    };
    let runs = super::open(matches)?.list(&filter)?;
    if matches.get_one::<String>("format").map(String::as_str) == Some("json") {
        return finish(matches, &(serde_json::to_string_pretty(&runs)? + "\n"));
    }
    if runs.is_empty() {
        return finish(matches, "no runs match\n");
    }
    let mut table = TextTable::new(["id", "started", "kind", "name", "target", "steps", "result"]);
    for run in &runs {
        table.row([
            run.id.to_string(),
            utc_timestamp(run.started_unix_ms),
            run.kind.clone(),
            run.name.clone(),
            run.target.clone(),
            run.steps.to_string(),
            format!("{}{}", run.summary, run_state(run)),
        ]);
    }
    finish(matches, &format!("{table}\n"))
}
