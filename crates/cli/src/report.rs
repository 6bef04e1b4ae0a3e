//! `diskmeter report ID... -o FILE.html`: one self-contained HTML file of saved runs (and
//! their comparison), from the view model, rendered by `diskmeter-html` (`--png`: the
//! headline, by `diskmeter-charts`). Here only the arguments: which runs, history, where to.

use crate::args::db_arg;
use crate::history::{open, resolve_id};
use crate::{write_output, Status};
use anyhow::Context;
use clap::{ArgAction, ArgMatches, Args, Command, FromArgMatches};
use diskmeter_analysis::compare::CompareOptions;
use diskmeter_views::Item;

// `report`'s arguments before `--db`.
#[derive(Args)]
struct ReportArgs {
    /// Runs to show, in this order: ids from diskmeter history, or 'last'
    #[arg(value_name = "ID", required_unless_present = "compare")]
    ids: Vec<String>,
    /// Write the report to FILE (report.html) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    output: Option<String>,
    /// Each ID a capture: the loop, in order: the capture and its requirements, the plans
    /// made from it, its replays and their checks, each linked to the next
    #[arg(long)]
    with_replays: bool,
    /// Also draw the first result's headline cards as a PNG image (for chat and tickets)
    #[arg(long, value_name = "FILE")]
    png: Option<String>,
}

// `report`'s arguments after `--db`.
#[derive(Args)]
struct CompareArgs {
    /// Add run B compared with run A (the baseline) as the first section
    #[arg(long, value_names = ["A", "B"], num_args = 2, action = ArgAction::Set)]
    compare: Option<Vec<String>>,
    /// With --compare: changes smaller than this are within noise [default: 5]
    #[arg(long, value_name = "PERCENT", requires = "compare")]
    noise_floor: Option<f64>,
    /// With --compare: a slower change at least this large is a regression [default: 10]
    #[arg(long, value_name = "PERCENT", requires = "compare")]
    threshold: Option<f64>,
}

/// The `report` subcommand.
pub fn command() -> Command {
    let report = Command::new("report")
        .about("Write saved runs as one self-contained HTML report")
        .long_about(diskmeter_views::REPORT_ABOUT);
    CompareArgs::augment_args(ReportArgs::augment_args(report).arg(db_arg()))
}

/// Runs `diskmeter report`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = ReportArgs::from_arg_matches(matches)?;
    let store = open(matches)?;
    let items = items(&store, &args, &CompareArgs::from_arg_matches(matches)?)?;
    let document = diskmeter_views::document_now(&store, &items)?;
    if let Some(png) = &args.png {
        diskmeter_charts::write_headline_png(&document, std::path::Path::new(png))?;
    }
    let html = diskmeter_html::render_report(&document)?;
    write_output(args.output.as_ref(), &html).context("writing the report")?;
    Ok(Status::Success)
}

/// What the report shows ([`Item::report`]), the ids resolved: the comparison's first.
fn items(
    store: &diskmeter_history::HistoryStore,
    args: &ReportArgs,
    compare: &CompareArgs,
) -> anyhow::Result<Vec<Item>> {
    let compared = match &compare.compare {
        Some(pair) => Some(Item::Compare {
            baseline: resolve_id(store, &pair[0], None)?,
            candidate: resolve_id(store, &pair[1], None)?,
            options: CompareOptions::given(compare.noise_floor, compare.threshold),
        }),
        None => None,
    };
    let runs: Vec<i64> = (args.ids.iter().map(|text| resolve_id(store, text, None)))
        .collect::<anyhow::Result<_>>()?;
    let items = Item::report(compared, &runs).into_iter();
    Ok(items.map(|i| i.with_replays(args.with_replays)).collect())
}
