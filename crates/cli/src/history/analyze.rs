//! `diskmeter analyze`: the sweep analysis of a saved sweep again, with new charts.

use super::{finish, load, open, output_arg, run_id_arg};
use crate::args::db_arg;
use crate::{Status, UsageError};
use clap::{Arg, ArgMatches, Command};

/// The `analyze` subcommand.
pub fn analyze_command() -> Command {
    Command::new("analyze")
        .about("Analyse a saved sweep again: ceilings, crossover, knees, tiers and charts")
        .long_about(
            "Analyses a saved sweep again: ceilings, crossover, knees, tiers and charts. \
             Points whose step was interrupted or failed are listed as partial, with why, and \
             left out of the analysis; with too few whole points for a curve nothing is \
             inferred.",
        )
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

/// Runs `diskmeter analyze`.
pub fn analyze_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let store = open(matches)?;
    let run = load(&store, matches, "id", Some("sweep"))?;
    if run.summary.kind != "sweep" {
        return Err(UsageError(format!(
            "run {} is a {}, not a sweep: analyze takes runs saved by diskmeter sweep",
            run.summary.id, run.summary.kind
        ))
        .into());
    }
    let groups = crate::sweep::points_from_steps(&run.steps)?;
    let charts = crate::sweep::charts_folder(matches.get_one::<String>("charts"));
    let json = matches
        .get_one::<String>("output-format")
        .map(String::as_str)
        == Some("json");
    let mut text =
        crate::sweep::analyse_and_render(&groups, &run.summary.target, charts, json, None);
    if !json && (run.summary.partial || run.summary.unfinished) {
        text.push_str(&format!(
            "Sweep {} is partial (interrupted, stopped on an error or never finished): {} \
             point(s) saved; partial points are listed above and left out of the analysis.\n",
            run.summary.id,
            run.steps.len()
        ));
    }
    finish(matches, &text)
}
