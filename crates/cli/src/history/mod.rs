//! The commands that read the results history, one file each: `history` (list), `show`,
//! `export`, `compare` and `analyze` (a saved sweep); here what they share: the run-id and
//! output arguments, resolving `last`, loading a run and writing the output.

mod analyze;
mod compare;
mod export;
mod list;
mod show;

pub use analyze::{analyze_command, analyze_main};
pub use compare::{compare_command, compare_main};
pub use export::{export_command, export_main};
pub use list::{history_command, history_main};
pub use show::{show_command, show_main};

use crate::{write_output, Status, UsageError};
use anyhow::Context;
use clap::{Arg, ArgMatches};
use diskmeter_history::{HistoryError, HistoryStore, RunFilter, RunSummary, StoredRun};
use diskmeter_orchestrator::HistoryChoice;
use std::path::PathBuf;

fn run_id_arg(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name).value_name("ID").required(true).help(help)
}

fn output_arg() -> Arg {
    Arg::new("output")
        .long("output")
        .value_name("FILE")
        .help("Write to FILE instead of stdout")
}

fn db(matches: &ArgMatches) -> Option<&PathBuf> {
    matches.get_one::<PathBuf>("db")
}

/// The history `--db` names (or the default one), opened for reading (and upgraded, when it
/// can be written); an error when there is none yet.
pub(crate) fn open(matches: &ArgMatches) -> anyhow::Result<HistoryStore> {
    let choice = db(matches).map_or(HistoryChoice::Default, |p| HistoryChoice::At(p.clone()));
    let Some(path) = choice.path()? else {
        anyhow::bail!("no history given");
    };
    if !path.exists() {
        anyhow::bail!(
            "no history at {} yet: runs are saved there as they finish",
            path.display()
        );
    }
    match HistoryStore::open(&path) {
        // Reading needs no writing: a history on a read-only mount (or one made immutable)
        // is read as it is, as the dashboard reads it.
        Err(HistoryError::ReadOnly(_)) => HistoryStore::open_read_only(&path),
        opened => opened,
    }
    .with_context(|| path.display().to_string())
}

/// Resolves "last" or a number to a run id (for `analyze`, "last" is the newest sweep).
pub(crate) fn resolve_id(
    store: &HistoryStore,
    text: &str,
    kind: Option<&str>,
) -> anyhow::Result<i64> {
    if text == "last" {
        let filter = RunFilter {
            kind: kind.map(str::to_string),
            limit: Some(1),
            ..Default::default()
        };
        let runs = store.list(&filter)?;
        return match runs.first() {
            Some(run) => Ok(run.id),
            None => anyhow::bail!("the history has no such run yet"),
        };
    }
    text.parse::<i64>().map_err(|_| {
        UsageError(format!(
            "'{text}' is not a run id (a number from diskmeter history, or 'last')"
        ))
        .into()
    })
}

/// The run the argument `name` names ("last" or an id).
fn load(
    store: &HistoryStore,
    matches: &ArgMatches,
    name: &str,
    kind: Option<&str>,
) -> anyhow::Result<StoredRun> {
    let text = matches.get_one::<String>(name).cloned().unwrap_or_default();
    let id = resolve_id(store, &text, kind)?;
    Ok(store.load(id)?)
}

/// Writes the command's output (`--output FILE` or stdout).
fn finish(matches: &ArgMatches, text: &str) -> anyhow::Result<Status> {
    write_output(matches.try_get_one::<String>("output").ok().flatten(), text)?;
    Ok(Status::Success)
}

/// How a run ended, for listings: "" when it finished whole.
fn run_state(run: &RunSummary) -> &'static str {
    if run.unfinished {
        " (unfinished)"
    } else if run.partial {
        " (interrupted)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_say_whether_a_run_was_interrupted_or_never_finished() {
        let mut run = RunSummary {
            id: 1,
            kind: "suite".into(),
            name: "quick".into(),
            target: "/x".into(),
            started_unix_ms: 0,
            finished_unix_ms: 0,
            partial: false,
            unfinished: false,
            diskmeter_version: "0.1.0".into(),
            hostname: "h".into(),
            command_line: String::new(),
            steps: 3,
            summary: String::new(),
        };
        assert_eq!(run_state(&run), "");
        run.partial = true;
        assert_eq!(run_state(&run), " (interrupted)");
        run.unfinished = true;
        assert_eq!(run_state(&run), " (unfinished)");
    }
}
