//! The options every command that runs IO shares (`run`, `diskspd`, `iometer`), defined once
//! so their names and help never drift apart, and read back into [`RunFlags`].

use crate::run::RunFlags;
use clap::{Arg, ArgAction, ArgMatches, Command};

/// Adds `--output`, `--quiet`, `--keep`, `--allow-destroy` and `--dry-run` to `command`,
/// and the in-engine throttle's flags.
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
}

/// The flags [`add_run_flags`] defined, as given.
pub fn run_flags(matches: &ArgMatches) -> RunFlags {
    RunFlags {
        dry_run: matches.get_flag("dry-run"),
        allow_destroy: matches.get_flag("allow-destroy"),
        keep: matches.get_flag("keep"),
        quiet: matches.get_flag("quiet"),
        throttle: crate::throttle::throttle_limits(matches),
    }
}
