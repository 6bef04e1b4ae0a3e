//! `diskmeter requirements ID|last`: a saved capture as the guides' requirements checklist
//! (diskmeter-analysis `requirements`), as text, JSON or CSV (the views crate's
//! [`diskmeter_views::requirements`]); and the capture loading that `plan --from-capture`,
//! `replay` and `check --capture` share with it.

use crate::args::db_arg;
use crate::{write_output, Status, UsageError};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_analysis::requirements::{parse_utc_offset, WindowSet};
use diskmeter_history::HistoryStore;
use diskmeter_views::requirements::{self as view, CaptureRequirements, LoadError};

/// The `requirements` subcommand.
pub fn command() -> Command {
    // The about texts go after the derived options, so that nothing derived replaces them.
    RequirementsArgs::augment_args(Command::new("requirements"))
        .about("A saved capture as the guides' requirements checklist: p50, p90, p99, max and mean of IOPS, flushes, read %, random %, IO size, throughput, latency, queue depth, CPU and memory")
        .long_about(diskmeter_views::requirements::REQUIREMENTS_ABOUT)
        .arg(db_arg())
}

/// `requirements`' options (`--db` is added after them).
#[derive(Args)]
struct RequirementsArgs {
    /// The capture's id (diskmeter history --kind capture), or 'last' for the newest capture
    #[arg(value_name = "ID")]
    id: String,
    /// Also a checklist per time-of-day window, e.g. normal=09:00-18:00,peak=12:00-13:00
    /// (repeatable)
    #[arg(long, value_name = "NAME=HH:MM-HH:MM,...")]
    window: Vec<String>,
    /// The clock --window times are on, as an offset from UTC (the capture stores UTC times)
    #[arg(long, value_name = "+HH:MM", default_value = "+00:00")]
    utc_offset: String,
    #[command(flatten)]
    device: DeviceArgs,
    /// text (a table per window), json ({"rows": [...]}; null = unknown) or csv
    #[arg(long, value_names = crate::NO_NAME, value_parser = ["text", "json", "csv"])]
    #[arg(default_value = "text")]
    format: String,
    /// Write to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    output: Option<String>,
}

/// `--device NAME` (repeatable, or comma-separated).
#[derive(Args)]
pub(crate) struct DeviceArgs {
    /// Only these captured devices (repeatable; their figures are summed) [default: every
    /// captured device but partitions of a captured disk]
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    device: Option<Vec<String>>,
}

impl DeviceArgs {
    /// The devices named, as the checklist takes them (`None`: the default ones).
    pub(crate) fn names(self) -> Option<Vec<String>> {
        let names = self.device?.into_iter().map(|n| n.trim().to_string());
        Some(names.filter(|n| !n.is_empty()).collect())
    }
}

/// `--device NAME` as an argument of a command built by hand.
pub(crate) fn device_arg() -> clap::Arg {
    let command = DeviceArgs::augment_args(Command::new("device"));
    let device = command.get_arguments().next().cloned();
    // Its place in the help is where the command adds it, not first as in `command`.
    device
        .expect("DeviceArgs declares --device")
        .display_order(None)
}

/// `--device` as the checklist takes it.
pub(crate) fn devices(matches: &ArgMatches) -> Option<Vec<String>> {
    DeviceArgs::from_arg_matches(matches).ok()?.names()
}

/// Streams capture `id_text` through the checklist; an id that names no capture is bad
/// input.
pub(crate) fn load_requirements(
    store: &HistoryStore,
    id_text: &str,
    devices: Option<Vec<String>>,
    windows: WindowSet,
) -> anyhow::Result<CaptureRequirements> {
    view::load(store, id_text, devices, windows).map_err(input_is_usage)
}

/// A [`LoadError`] of the user's input is a usage error (exit 2).
pub(crate) fn input_is_usage(error: LoadError) -> anyhow::Error {
    match error {
        LoadError::Input(message) => UsageError(message).into(),
        other => other.into(),
    }
}

/// The history `--db` names (`None`: the default one).
pub(crate) fn db(matches: &ArgMatches) -> Option<&std::path::Path> {
    matches
        .get_one::<std::path::PathBuf>("db")
        .map(std::path::PathBuf::as_path)
}

/// Runs `diskmeter requirements`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = RequirementsArgs::from_arg_matches(matches)?;
    let offset =
        parse_utc_offset(&args.utc_offset).map_err(|e| UsageError(format!("--utc-offset: {e}")))?;
    let windows = WindowSet::parse(&args.window.join(","), offset)
        .map_err(|e| UsageError(format!("--window: {e}")))?;
    let store = diskmeter_history::open_for_reading(db(matches))?;
    let loaded = load_requirements(&store, &args.id, args.device.names(), windows)?;
    let text = match args.format.as_str() {
        "json" => view::json(&loaded.requirements, offset)?,
        "csv" => view::csv(&loaded.requirements),
        _ => view::text(&loaded, offset),
    };
    write_output(args.output.as_ref(), &text)?;
    Ok(Status::Success)
}
