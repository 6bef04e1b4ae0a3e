//! `diskmeter merge FILE...`: the JSON results of several hosts (ranks) of one run merged
//! exactly into the aggregate (`diskmeter_report::merge::merge_ranks`), rendered in the usual
//! formats (`diskmeter_views::render_steps`). Here only the flags and reading
//! the files.

use crate::formats::{list_parser, RESULT_FORMATS};
use crate::{write_output, Status, UsageError};
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use diskmeter_report::merge::{merge_files, Steps};
use diskmeter_report::output_format::OutputFormat;

// `merge`'s files and formats.
#[derive(Args)]
struct MergeArgs {
    /// diskmeter JSON results, one per host or rank
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
    /// normal (aggregate, per-rank table, scale-out figures), json (diskmeter's schema with
    /// ranks[] and scale_out), fio-json (fio 3.x JSON of the aggregate jobs), json+ (fio's json+:
    /// fio-json with the latency bins) or terse (fio's semicolon lines); or a comma-separated
    /// list, printed in fio's order (terse, fio-json/json+, json, normal)
    #[arg(id = "output-format", long, value_name = "FORMAT[,FORMAT...]")]
    #[arg(value_parser = list_parser(RESULT_FORMATS), default_value = "normal")]
    output_format: String,
}

/// The `merge` subcommand.
pub fn command() -> Command {
    let merge = Command::new("merge")
        .about("Merge the JSON results of several hosts (ranks) of one run exactly")
        .long_about(diskmeter_views::run::MERGE_ABOUT);
    MergeArgs::augment_args(merge)
        .arg(crate::formats::terse_version_arg())
        .arg(
            Arg::new("output")
                .long("output")
                .value_name("FILE")
                .help("Write to FILE instead of stdout"),
        )
}

/// Runs `diskmeter merge`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let usage = |e: diskmeter_report::merge::MergeFilesError| UsageError(e.to_string());
    let args = MergeArgs::from_arg_matches(matches)?;
    let files = args.files;
    let mut read = Vec::with_capacity(files.len());
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(|e| UsageError(format!("{path}: {e}")))?;
        read.push(Steps::parse(path, &text).map_err(usage)?);
    }
    let merged = merge_files(&files, read).map_err(usage)?;
    let terse = crate::formats::terse_version(matches);
    let parts = OutputFormat::print_order(&args.output_format)
        .into_iter()
        .map(|format| diskmeter_views::render_steps(format, &merged.names, &merged.results, terse))
        .collect::<Result<Vec<String>, _>>()?;
    write_output(
        matches.get_one::<String>("output"),
        &crate::formats::join(parts),
    )?;
    Ok(Status::failure_if(merged.failed()))
}
