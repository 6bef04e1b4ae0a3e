//! `diskmeter analyze`: the sweep analysis of a saved sweep again, with new charts.

use super::{db, finish, load, output_arg, resolve_id, run_id_arg};
use crate::args::db_arg;
use crate::save::open_for_reading;
use crate::{EXIT_FAILURE, EXIT_USAGE};
use clap::{Arg, ArgMatches, Command};

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
