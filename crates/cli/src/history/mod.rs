//! The commands that read the results history: `history` (list), `show`, `export`,
//! `compare` and `analyze` (a saved sweep). Each declares its options, reads the run through
//! `diskmeter_history` (opening to read, resolving `last`) and writes what
//! `diskmeter_views::history` renders.

use crate::args::db_arg;
use crate::formats::OutputFormat;
use crate::{write_output, Status, UsageError, NO_NAME};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_analysis::compare::{compare_runs, CompareOptions};
use diskmeter_history::{HistoryStore, Newest, PickError, RunFilter, StoredRun};
use diskmeter_views::history as view;
use std::path::PathBuf;

/// The history `--db` names (or the default one), opened to read.
pub(crate) fn open(matches: &ArgMatches) -> anyhow::Result<HistoryStore> {
    let db = matches.get_one::<PathBuf>("db").map(PathBuf::as_path);
    Ok(diskmeter_history::open_for_reading(db)?)
}

/// Resolves "last" or a number to a run id (for `analyze`, "last" is the newest sweep): what
/// is not a number is a usage error, `last` in a history without such a run a failure.
pub(crate) fn resolve_id(
    store: &HistoryStore,
    text: &str,
    kind: Option<&str>,
) -> anyhow::Result<i64> {
    let newest = kind.map_or(Newest::Run, Newest::OfKind);
    store.resolve_id(text, newest).map_err(|error| match error {
        PickError::NotAnId { .. } => UsageError(error.to_string()).into(),
        error => error.into(),
    })
}

/// The run `text` names ("last" or an id).
fn load(store: &HistoryStore, text: &str, kind: Option<&str>) -> anyhow::Result<StoredRun> {
    Ok(store.load(resolve_id(store, text, kind)?)?)
}

/// Writes the command's output (`--output FILE` or stdout).
fn finish(output: Option<&String>, text: &str) -> anyhow::Result<Status> {
    write_output(output, text)?;
    Ok(Status::Success)
}

/// A command of this module: its options (`A`) after `--db`.
fn command<A: Args>(name: &'static str, about: &'static str, long_about: &'static str) -> Command {
    // After the derive, which would take the struct's doc comment as the command's about.
    A::augment_args(Command::new(name).arg(db_arg()))
        .about(about)
        .long_about((!long_about.is_empty()).then_some(long_about))
}

/// The options of `diskmeter history`.
#[derive(Args)]
struct ListArgs {
    /// Only runs of this command
    #[arg(long, value_name = "KIND", value_parser = ["run", "suite", "sweep", "diskspd", "iometer", "replay", "capture"])]
    kind: Option<String>,
    /// Only runs of this suite (or with this name)
    #[arg(long, value_name = "NAME")]
    suite: Option<String>,
    /// Only runs whose target contains TEXT
    #[arg(long, value_name = "TEXT")]
    target: Option<String>,
    /// Only runs started at or after DATE
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Only runs started before DATE
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// At most N runs
    #[arg(long, value_name = "N", default_value = "50")]
    limit: u32,
    /// table or json
    #[arg(long, value_names = NO_NAME, value_parser = ["table", "json"], default_value = "table")]
    format: String,
}

/// The `history` subcommand.
pub fn history_command() -> Command {
    command::<ListArgs>(
        "history",
        "List the saved runs, newest first",
        "Lists the runs in the results history, newest first: every run, suite, sweep, \
         diskspd and iometer command saves its results there unless --no-save. Filters \
         combine. Dates are UTC, YYYY-MM-DD or YYYY-MM-DDTHH:MM.",
    )
}

/// Runs `diskmeter history`.
pub fn history_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = ListArgs::from_arg_matches(matches)?;
    let date = |name: &str, text: &Option<String>| -> Result<Option<u64>, UsageError> {
        text.as_deref()
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
        since_unix_ms: date("since", &args.since)?,
        until_unix_ms: date("until", &args.until)?,
        kind: args.kind,
        name: args.suite,
        target_contains: args.target,
        limit: Some(args.limit),
    };
    let runs = open(matches)?.list(&filter)?;
    if args.format == "json" {
        return finish(None, &(serde_json::to_string_pretty(&runs)? + "\n"));
    }
    finish(None, &view::listing_text(&runs))
}

/// The options of `diskmeter show`.
#[derive(Args)]
struct ShowArgs {
    /// The run's id (diskmeter history), or 'last'
    #[arg(value_name = "ID")]
    id: String,
    /// Also print every step's full report
    #[arg(long)]
    full: bool,
    /// normal or json (the whole stored run)
    #[arg(long, value_names = NO_NAME, value_parser = ["normal", "json"], default_value = "normal")]
    format: String,
}

/// The `show` subcommand.
pub fn show_command() -> Command {
    command::<ShowArgs>(
        "show",
        "Show a saved run: its host, command line and a table of its steps",
        "",
    )
}

/// Runs `diskmeter show`.
pub fn show_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = ShowArgs::from_arg_matches(matches)?;
    let run = load(&open(matches)?, &args.id, None)?;
    if args.format == "json" {
        return finish(None, &(serde_json::to_string_pretty(&run)? + "\n"));
    }
    finish(None, &view::show_text(&run, args.full))
}

/// The options of `diskmeter export`.
#[derive(Args)]
struct ExportArgs {
    /// The run's id, or 'last'
    #[arg(value_name = "ID")]
    id: String,
    /// json, fio-json, json+, terse or csv, or a comma-separated list
    #[arg(long, value_name = "FORMAT[,FORMAT...]", default_value = "json", value_parser = crate::formats::list_parser(&["json", "fio-json", "json+", "terse", "csv"]))]
    format: String,
    /// Write to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    output: Option<String>,
}

/// The `export` subcommand.
pub fn export_command() -> Command {
    command::<ExportArgs>(
        "export",
        "Export a saved run as JSON, fio-compatible JSON or CSV",
        "Exports a saved run. json: the run, its host facts and every step's full result \
         (diskmeter's schema). fio-json: fio 3.x's JSON for each step (one document for a \
         one-step run, else an array of them in step order); json+: the same with fio's \
         latency bins; terse: fio's semicolon lines (version 3), one per job of every \
         step. csv: one row per step, job and direction with IOPS, bandwidth and latency \
         percentiles. A comma-separated list prints each, terse first (fio's order).",
    )
}

/// Runs `diskmeter export`.
pub fn export_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = ExportArgs::from_arg_matches(matches)?;
    let run = load(&open(matches)?, &args.id, None)?;
    let results: Vec<&diskmeter_report::RunResult> = run.steps.iter().map(|s| &s.result).collect();
    let mut parts = Vec::new();
    for format in OutputFormat::print_order(&args.format) {
        parts.push(match format {
            OutputFormat::Csv => view::csv(&run),
            OutputFormat::Json | OutputFormat::Normal => serde_json::to_string_pretty(&run)? + "\n",
            fio => crate::formats::render_fio(fio, &results, diskmeter_report::TerseVersion::V3)?
                .unwrap_or_default(),
        });
    }
    finish(args.output.as_ref(), &crate::formats::join(parts))
}

/// The options of `diskmeter compare`.
#[derive(Args)]
struct CompareArgs {
    /// Run A, the baseline
    #[arg(value_name = "ID")]
    baseline: String,
    /// Run B, compared with A
    #[arg(value_name = "ID")]
    candidate: String,
    /// A slower change at least this large is a regression (exit code 1)
    #[arg(long, value_name = "PERCENT", default_value = "10")]
    threshold: f64,
    /// Changes smaller than this are within noise
    #[arg(long, value_name = "PERCENT", default_value = "5")]
    noise_floor: f64,
    /// normal or json
    #[arg(long, value_names = NO_NAME, value_parser = ["normal", "json"], default_value = "normal")]
    format: String,
    /// Write to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    output: Option<String>,
}

/// The `compare` subcommand.
pub fn compare_command() -> Command {
    command::<CompareArgs>(
        "compare",
        "Compare two saved runs step by step: faster, slower or within noise",
        diskmeter_views::compare::COMPARE_ABOUT,
    )
}

/// Runs `diskmeter compare`.
pub fn compare_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = CompareArgs::from_arg_matches(matches)?;
    let store = open(matches)?;
    let runs = [
        load(&store, &args.baseline, None)?,
        load(&store, &args.candidate, None)?,
    ];
    if let Some(reason) =
        diskmeter_views::compare::capture_refusal(&runs[0].summary, &runs[1].summary)
    {
        return Err(UsageError(reason).into());
    }
    let options = CompareOptions {
        threshold_percent: args.threshold,
        noise_floor_percent: args.noise_floor,
    };
    let (a, b) = (view::step_refs(&runs[0]), view::step_refs(&runs[1]));
    let comparison = compare_runs(&a, &b, options);
    let text = if args.format == "json" {
        view::comparison_json(&runs[0], &runs[1], &comparison)?
    } else {
        view::comparison_text(&runs[0], &runs[1], &comparison)
    };
    finish(args.output.as_ref(), &text)?;
    if comparison.metrics.is_empty() && !comparison.notes.is_empty() {
        anyhow::bail!("nothing to compare: {}", comparison.notes.join("; "));
    }
    if comparison.metrics.is_empty() {
        anyhow::bail!("the two runs have no step in common (steps are matched by name)");
    }
    // A regression beyond --threshold is a missed requirement: exit 1.
    Ok(Status::failure_if(comparison.regressions() > 0))
}

/// The options of `diskmeter analyze`.
#[derive(Args)]
struct AnalyzeArgs {
    /// A saved run's id, or 'last' (the newest sweep)
    #[arg(value_name = "ID")]
    id: String,
    /// Folder for the charts (default: diskmeter-sweep-<time> here); 'none' for no charts
    #[arg(long, value_name = "DIR")]
    charts: Option<String>,
    /// normal: table and summary; json: points and analysis
    #[arg(long, id = "output-format", value_names = NO_NAME, value_parser = ["normal", "json"], default_value = "normal")]
    output_format: String,
    /// Write to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    output: Option<String>,
}

/// The `analyze` subcommand.
pub fn analyze_command() -> Command {
    command::<AnalyzeArgs>(
        "analyze",
        "Analyse a saved sweep again, or a run's per-second series for a burst bucket",
        diskmeter_views::burst::ANALYZE_ABOUT,
    )
}

/// Runs `diskmeter analyze`.
pub fn analyze_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = AnalyzeArgs::from_arg_matches(matches)?;
    let run = load(&open(matches)?, &args.id, Some("sweep"))?;
    let json = args.output_format == "json";
    if run.summary.kind != "sweep" {
        let text = diskmeter_views::burst::of_run(&run, json);
        return finish(args.output.as_ref(), &text);
    }
    let dir = crate::sweep::charts_folder(&args.charts);
    let mut text = crate::sweep::analyse_run(&run, dir.as_deref(), json)?;
    if !json && (run.summary.partial || run.summary.unfinished) {
        text.push_str(&format!(
            "Sweep {} is partial (interrupted, stopped on an error or never finished): {} \
             point(s) saved; partial points are listed above and left out of the analysis.\n",
            run.summary.id,
            run.steps.len()
        ));
    }
    finish(args.output.as_ref(), &text)
}
