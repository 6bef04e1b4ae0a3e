//! `diskmeter serve`: the local dashboard over the history (the `dashboard` feature).

use crate::Status;
use clap::{ArgMatches, Command};

/// The `serve` subcommand.
pub fn command() -> Command {
    Command::new("serve").about("Serve a local, read-only dashboard over the results history")
}

/// Runs `diskmeter serve`.
pub fn main(_matches: &ArgMatches) -> anyhow::Result<Status> {
    #[cfg(feature = "dashboard")]
    let _ = diskmeter_dashboard::ServeConfig::clone;
    Ok(Status::Success)
}
