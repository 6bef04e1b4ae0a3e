//! The options every command that runs IO shares (`run`, `suite`, `sweep`, `diskspd`,
//! `iometer`), defined once
//! so their names and help never drift apart, and read back into [`RunFlags`].

use crate::run::RunFlags;
use clap::{Arg, ArgAction, ArgMatches, Command};

/// Adds `--output`, `--quiet`, `--keep`, `--allow-destroy`, `--dry-run`, `--db` and
/// `--no-save` to `command`, and the in-engine throttle's flags.
pub fn add_run_flags(command: Command) -> Command {
    // The throttle's flags live in their own module (crate::throttle).
    let command = crate::throttle::add_throttle_flags(command);
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
        .help("The results history database (default: $XDG_DATA_HOME/diskmeter/history.db, else ~/.local/share/diskmeter/history.db)")
}

/// The flags [`add_run_flags`] defined, as given.
pub fn run_flags(matches: &ArgMatches) -> RunFlags {
    RunFlags {
        dry_run: matches.get_flag("dry-run"),
        allow_destroy: matches.get_flag("allow-destroy"),
        keep: matches.get_flag("keep"),
        quiet: matches.get_flag("quiet"),
        db: matches.get_one::<std::path::PathBuf>("db").cloned(),
        no_save: matches.get_flag("no-save"),
        throttle: crate::throttle::throttle_limits(matches),
    }
}
