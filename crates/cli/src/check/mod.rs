//! `diskmeter check RESULT_ID`: a stored result (a run, a suite step, a sweep point) against
//! requirements — a capture's checklist at a level (`--capture ID --level p90`), explicit
//! `--require` keys, or a guide's published figures (`--expect PROFILE`). The requirements
//! and their verdicts are the analysis crate's ([`diskmeter_analysis::verdict`]): one line per
//! requirement, met / missed / within noise with the measured figure, its 95 % interval and
//! the bound. This module parses; the views crate ([`diskmeter_views::check`]) loads the
//! step's evidence from the history, judges and renders.
//! Exit 0 when nothing is missed (within noise passes unless `--strict`), 1 on a miss (or a
//! figure the step did not measure), 2 on bad input.

use crate::args::db_arg;
use crate::requirements::{db, input_is_usage, load_requirements, DeviceArgs};
use crate::{write_output, Status, UsageError};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_analysis::requirements::{Level, WindowSet};
use diskmeter_analysis::verdict::{
    add_unless_given, parse_all_requirements, requirements_from_checklist, REQUIRE_KEYS,
};
use diskmeter_orchestrator::{save_linked, LinkedRecord};
use diskmeter_suites::expect::EXPECTATION_SETS;
use diskmeter_views::{check, linked};

/// The `check` subcommand.
pub fn command() -> Command {
    // The about texts go after the derived options, so that nothing derived replaces them.
    CheckArgs::augment_args(Command::new("check"))
        .about("Check a saved result against requirements (a capture's level, --require) or a guide's published figures (--expect): met, missed or within noise; exit 1 on a miss")
        .long_about(diskmeter_views::check::CHECK_ABOUT)
        .arg(db_arg())
}

/// `check`'s options (`--db` is added after them).
#[derive(Args)]
struct CheckArgs {
    /// The run's id (diskmeter history), or 'last' for the newest run that is not a capture
    #[arg(value_name = "RESULT_ID", required_unless_present = "list_expect")]
    result: Option<String>,
    /// The step of a suite or the point of a sweep to check (its name as diskmeter show
    /// lists it, or #N from 1)
    #[arg(long, value_name = "NAME")]
    step: Option<String>,
    /// Require what this capture needed at --level (an id, or 'last')
    #[arg(long, value_name = "ID")]
    capture: Option<String>,
    /// With --capture: the checklist column: p50, p90, p99, max or mean
    #[arg(long, value_name = "LEVEL", default_value = "p90")]
    level: String,
    #[command(flatten)]
    device: DeviceArgs,
    #[arg(long, value_name = "KEY=VALUE,...", help = format!("Requirements: {REQUIRE_KEYS}"))]
    require: Vec<String>,
    /// A guide's published figures for the run's steps (--list-expect)
    #[arg(long, value_name = "PROFILE", value_parser = EXPECTATION_SETS)]
    expect: Option<String>,
    /// List the --expect profiles with their figures, and exit
    #[arg(long)]
    list_expect: bool,
    /// A verdict within noise fails too (exit 1)
    #[arg(long)]
    strict: bool,
    /// text, or json: the judgements with their evidence
    #[arg(long, value_name = "FORMAT", value_parser = ["text", "json"], default_value = "text")]
    format: String,
}

/// Runs `diskmeter check`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = CheckArgs::from_arg_matches(matches)?;
    if args.list_expect {
        write_output(None, &check::list_expect())?;
        return Ok(Status::Success);
    }
    let texts = args.require.iter().map(String::as_str);
    let mut requirements = parse_all_requirements(texts).map_err(|e| UsageError(e.to_string()))?;
    let level = args
        .level
        .parse::<Level>()
        .map_err(|e| UsageError(format!("--level: {e}")))?;
    let store = diskmeter_history::open_for_reading(db(matches))?;
    let mut capture_id = None;
    if let Some(capture) = &args.capture {
        let windows = WindowSet::default();
        let loaded = load_requirements(&store, capture, args.device.names(), windows)?;
        capture_id = Some(loaded.summary.id);
        let source = format!("capture {}", loaded.summary.id);
        // An explicit --require key wins over the capture's.
        let from_capture = requirements_from_checklist(&loaded.requirements.whole, level, &source);
        add_unless_given(&mut requirements, from_capture);
    } else if matches.value_source("level") == Some(clap::parser::ValueSource::CommandLine) {
        return Err(UsageError("--level only applies with --capture".into()).into());
    }
    if requirements.is_empty() && args.expect.is_none() {
        return Err(UsageError(
            "nothing to check: give --capture ID, --require KEY=VALUE,... or --expect PROFILE"
                .into(),
        )
        .into());
    }
    let result = args.result.as_deref().unwrap_or("last");
    let step = args.step.as_deref();
    let checked = check::check(&store, result, step, &requirements, args.expect.as_deref())
        .map_err(input_is_usage)?;
    let text = match args.format.as_str() {
        "json" => checked.json(args.strict)?,
        _ => checked.text(args.strict),
    };
    write_output(None, &text)?;
    let record = checked.record(args.strict, capture_id.map(|id| (id, args.level.as_str())))?;
    let saved = save_linked(db(matches), LinkedRecord::Check(record));
    eprint!("{}", linked::saved_line("check", capture_id, &saved));
    Ok(Status::failure_if(checked.failed(args.strict)))
}
