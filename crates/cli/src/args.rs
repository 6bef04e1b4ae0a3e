//! The options every command that runs IO shares (`run`, `suite`, `sweep`, `diskspd`,
//! `iometer`), defined once so their names and help never drift apart, and read back into
//! the orchestrator's [`Settings`].

use crate::UsageError;
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_orchestrator::{EmulateRequest, HistoryChoice, Settings};
use diskmeter_units::{parse_size, KbBase};

/// Adds `--output`, `--quiet`, `--keep`, `--allow-destroy`, `--dry-run`, `--db` and
/// `--no-save` to `command`, and the in-engine throttle's flags.
pub fn add_run_flags(command: Command) -> Command {
    // The throttle's flags live in their own module (crate::throttle).
    let command = crate::throttle::add_throttle_flags(command);
    // The flags of a run across hosts live in their own module (crate::ranks).
    let command = crate::ranks::add_rank_flags(command);
    command
        .arg(
            Arg::new("output")
                .long("output")
                .value_name("FILE")
                .help("Write the results to FILE instead of stdout"),
        )
        .arg(
            Arg::new("quiet")
                .long("quiet")
                .short('q')
                .action(ArgAction::SetTrue)
                .help("No live progress and no notes on stderr"),
        )
        .arg(
            Arg::new("keep")
                .long("keep")
                .action(ArgAction::SetTrue)
                .help("Keep the test files diskmeter creates (default: remove them at the end)"),
        )
        .arg(
            Arg::new("allow-destroy")
                .long("allow-destroy")
                .action(ArgAction::SetTrue)
                .help("Allow writing to existing files diskmeter did not create and to devices holding data (DESTROYS their contents)"),
        )
        .arg(
            Arg::new("allow-exec")
                .long("allow-exec")
                .action(ArgAction::SetTrue)
                .help("Run the shell commands of job files' exec_prerun and exec_postrun (refused without it)"),
        )
        .arg(
            Arg::new("dry-run")
                .long("dry-run")
                .action(ArgAction::SetTrue)
                .help("Print the resolved jobs and plan, then stop without doing IO"),
        )
        .arg(db_arg())
        .arg(
            Arg::new("no-save")
                .long("no-save")
                .action(ArgAction::SetTrue)
                .help("Do not save the run in the results history"),
        )
}

/// `--db PATH`: the history database (also taken by `history`, `show`, `export`, `compare`).
pub fn db_arg() -> Arg {
    Arg::new("db")
        .long("db")
        .value_name("PATH")
        .value_parser(clap::value_parser!(std::path::PathBuf))
        .help("The results history database (default: $XDG_DATA_HOME/diskmeter/history.db, else ~/.local/share/diskmeter/history.db); a run it cannot take (locked, read-only, damaged) is kept in a spool file beside it and saved at the next run")
}

/// Adds `--emulate PROFILE` and `--emulate-size SIZE` (`run`, `suite`, `sweep`); `what`
/// says what the disk is made for.
pub fn add_emulate_flags(command: Command, what: &str) -> Command {
    command
        .arg(
            Arg::new("emulate")
                .long("emulate")
                .value_name("PROFILE")
                .help(format!(
                    "Run on an emulated disk of this profile (e.g. azure-p30; root): a throttled \
                     loop device made for the {what} and removed at the end"
                )),
        )
        .arg(
            Arg::new("emulate-size")
                .long("emulate-size")
                .value_name("SIZE")
                .default_value("1g")
                .requires("emulate")
                .help("Size of the --emulate disk"),
        )
}

/// The session settings the flags of [`add_run_flags`] (and [`add_emulate_flags`], where the
/// command has them) give.
pub fn settings(matches: &ArgMatches) -> anyhow::Result<Settings> {
    let emulate = match matches.try_get_one::<String>("emulate").ok().flatten() {
        Some(profile) => {
            let size = matches
                .get_one::<String>("emulate-size")
                .map_or("1g", String::as_str);
            let size_bytes = parse_size(size, KbBase::Binary)
                .map_err(|e| UsageError(format!("--emulate {profile}: --emulate-size: {e}")))?;
            Some(EmulateRequest {
                profile: profile.clone(),
                size_bytes,
            })
        }
        None => None,
    };
    let mut settings = Settings {
        dry_run: matches.get_flag("dry-run"),
        allow_destroy: matches.get_flag("allow-destroy"),
        keep_files: matches.get_flag("keep"),
        allow_exec: matches.get_flag("allow-exec"),
        throttle: crate::throttle::throttle_limits(matches),
        history: if matches.get_flag("no-save") {
            HistoryChoice::Off
        } else {
            match matches.get_one::<std::path::PathBuf>("db") {
                Some(path) => HistoryChoice::At(path.clone()),
                None => HistoryChoice::Default,
            }
        },
        emulate,
        ..Settings::default()
    };
    crate::ranks::apply(matches, &mut settings)?;
    Ok(settings)
}

/// `--quiet`: no live progress and no notes on stderr; also a rank other than 0 of an MPI
/// job, which prints nothing but its errors.
pub fn quiet(matches: &ArgMatches) -> bool {
    matches.get_flag("quiet") || crate::ranks::other_rank(matches)
}
