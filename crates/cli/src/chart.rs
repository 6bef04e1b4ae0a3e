//! `diskmeter chart ID --kind KIND -o FILE.png|svg`: any chart of the report as an image,
//! for slides and tickets. The charts are the ones the HTML report draws
//! (`diskmeter_views::section`), found by kind in the run's section and its steps' sections,
//! and drawn by `diskmeter_charts::draw_spec`.
//!
//! When several steps have a chart of the kind and `--step` does not pick one, the first is
//! drawn and a note on stderr names the others: a suite's first step is the usual choice
//! for a slide, and the note says how to pick another (`--step N|NAME`, `--list`).

use crate::args::db_arg;
use crate::history::{open, resolve_id};
use crate::{Status, UsageError};
use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use diskmeter_charts::ImageFormat;
use diskmeter_views::find::RunCharts;
use diskmeter_views::Item;
use std::path::PathBuf;

// `chart`'s arguments before `--db`.
#[derive(Args)]
struct ChartArgs {
    /// The run's id (diskmeter history), or 'last'
    #[arg(value_name = "ID")]
    id: String,
    /// Which chart: iops, bandwidth, latency, percentiles, histogram, suite-iops, iops-vs-qd, ...
    /// (--list shows the run's)
    #[arg(long, value_name = "KIND", required_unless_present = "list")]
    kind: Option<String>,
    /// The image to write: FILE.png (960 x 600 pixels) or FILE.svg
    #[arg(short, long, value_name = "FILE", required_unless_present = "list")]
    output: Option<PathBuf>,
    /// The step whose chart to write: its position (0 for the first) or its name
    #[arg(long, value_name = "N|NAME")]
    step: Option<String>,
}

/// The `chart` subcommand.
pub fn command() -> Command {
    let chart = Command::new("chart")
        .about("Write one chart of a saved run as PNG or SVG")
        .long_about(
            "Write one chart of a saved run as PNG or SVG (by the file's extension): the \
             charts of `diskmeter report`, for slides and tickets. `--list` prints the run's \
             charts, one a line: kind, step position (- for the run's own charts) and title \
             (after the step's name). \
             When several steps have a chart of the kind, the first is written unless \
             `--step` picks one (a note on stderr says so).",
        );
    ChartArgs::augment_args(chart).arg(db_arg()).arg(
        Arg::new("list")
            .long("list")
            .action(ArgAction::SetTrue)
            .help("Print the run's charts (kind, step, title) instead of writing one"),
    )
}

/// Runs `diskmeter chart`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = ChartArgs::from_arg_matches(matches)?;
    let list = matches.get_flag("list");
    if let (Some(path), false) = (&args.output, list) {
        ImageFormat::of_path(path).map_err(|e| UsageError(e.to_string()))?;
    }
    let store = open(matches)?;
    let id = resolve_id(&store, &args.id, None)?;
    let run = store.load(id)?;
    let section = diskmeter_views::section(&store, Item::Run(id))
        .with_context(|| format!("the charts of run {id}"))?;
    let usage = |e: diskmeter_views::find::FindError| UsageError(e.to_string());
    let charts = RunCharts::of(&run, &section, args.step.as_deref()).map_err(usage)?;
    if list {
        if charts.found.is_empty() {
            eprintln!("diskmeter: note: {} has no charts", charts.whose);
        }
        crate::write_output(None, &charts.list())?;
        return Ok(Status::Success);
    }
    let kind = args.kind.unwrap_or_default();
    let matching = charts.of_kind(&kind).map_err(usage)?;
    if let Some(note) = charts.several_note(&kind, &matching) {
        eprintln!("diskmeter: note: {note}");
    }
    let path = args.output.unwrap_or_default();
    diskmeter_charts::draw_spec(matching[0].chart, &path)?;
    println!("wrote {}: {}", path.display(), matching[0].chart.title);
    Ok(Status::Success)
}
