//! The command line: clap definitions and one module per subcommand. Thin by design: a
//! command parses its input, builds the steps, hands them to the orchestrator
//! (`diskmeter-orchestrator`) and renders what comes back.
//!
//! Errors travel as `anyhow` errors to [`main`], which alone prints them and picks the exit
//! code (ripgrep's `main -> try_main`): 0 ok; 1 a run failed, was interrupted or a
//! requirement was missed; 2 usage error.

#![forbid(unsafe_code)]

mod args;
mod capture;
mod catalog;
mod chart;
mod check;
mod choices;
mod completions;
mod diskspd;
mod emulate;
mod formats;
mod help;
mod history;
mod iometer;
mod jobfile;
mod k8s;
mod merge;
mod options;
mod plan;
mod progress;
mod ranks;
mod replay;
mod report;
mod requirements;
mod run;
mod serve;
mod session;
mod suite;
mod sweep;

use clap::{ArgMatches, Command};
use std::io::Write;
use std::process::ExitCode;

/// Exit code: the run failed (an IO error, a refused target), was interrupted, or a
/// requirement was missed.
pub const EXIT_FAILURE: i32 = 1;
/// Exit code: the command line or a job is invalid.
pub const EXIT_USAGE: i32 = 2;

/// How a command that did its work ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Everything ran and every requirement was met: exit 0.
    Success,
    /// A run failed, was interrupted, or a requirement was missed; the reason was printed
    /// (or the results say it): exit 1.
    Failure,
}

impl Status {
    /// Failure when a requirement was missed (or a run failed), else success.
    pub(crate) fn failure_if(failed: bool) -> Status {
        if failed {
            Status::Failure
        } else {
            Status::Success
        }
    }
}

/// No value name for a derived option (the derive would name it): an option whose choices
/// clap lists shows none in the man page and the completions, as the builder declared it.
pub(crate) const NO_NAME: [&str; 0] = [];

/// The user's input is wrong: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub String);

/// A subcommand: its name, its definition and what runs it.
type Subcommand = (
    &'static str,
    fn() -> Command,
    fn(&ArgMatches) -> anyhow::Result<Status>,
);

/// The subcommands, in `--help`'s order.
const COMMANDS: [Subcommand; 24] = [
    ("run", run::command, run::main),
    ("suite", suite::command, suite::main),
    ("sweep", sweep::command, sweep::main),
    ("diskspd", diskspd::command, diskspd::main),
    ("iometer", iometer::command, iometer::main),
    ("plan", plan::command, plan::main),
    ("catalog", catalog::command, catalog::main),
    ("emulate", emulate::command, emulate::main),
    ("capture", capture::command, capture::main),
    ("replay", replay::command, replay::main),
    ("history", history::history_command, history::history_main),
    ("show", history::show_command, history::show_main),
    ("export", history::export_command, history::export_main),
    ("compare", history::compare_command, history::compare_main),
    ("analyze", history::analyze_command, history::analyze_main),
    ("merge", merge::command, merge::main),
    ("requirements", requirements::command, requirements::main),
    ("check", check::command, check::main),
    ("report", report::command, report::main),
    ("chart", chart::command, chart::main),
    ("serve", serve::command, serve::main),
    ("k8s", k8s::command, k8s::main),
    (
        "completions",
        completions::completions_command,
        completions::completions_main,
    ),
    ("man", completions::man_command, completions::man_main),
];

/// The whole command tree.
pub fn command() -> Command {
    let command = Command::new("diskmeter")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Storage benchmarking and planning: an fio-compatible load generator with truthful statistics")
        .long_about(diskmeter_views::help::DISKMETER_ABOUT)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommands(COMMANDS.iter().map(|(_, command, _)| command()));
    help::finish(command, "diskmeter")
}

/// Runs the command line of this process: the only place that prints an error and decides
/// the exit code.
pub fn main() -> ExitCode {
    let done = try_main();
    // Printed before MPI is finalised: once another rank of an MPI job has exited, mpirun
    // may end this one at any moment, and its error must be out by then.
    let silent = ranks::silent();
    let (code, failed) = report(done, silent);
    if let Some(failed) = failed {
        // A rank that fails before the run's first round would leave the others waiting
        // there: it ends the MPI job (no return when it does).
        ranks::abort_if_never_met(failed);
    }
    // Every rank of an MPI job finalises, whatever its outcome.
    ranks::leave();
    code
}

/// Prints the outcome's error, if any (a rank other than 0 of an MPI job leaves another
/// rank's failure to rank 0); the exit code, and the code as a number when it failed.
fn report(done: anyhow::Result<Status>, silent: bool) -> (ExitCode, Option<i32>) {
    match done {
        Ok(Status::Success) => (ExitCode::SUCCESS, None),
        Ok(Status::Failure) => (ExitCode::from(EXIT_FAILURE as u8), None),
        Err(error) => {
            if let Some(clap_error) = error.downcast_ref::<clap::Error>() {
                let _ = clap_error.print();
                return match clap_error.kind() {
                    clap::error::ErrorKind::DisplayHelp
                    | clap::error::ErrorKind::DisplayVersion => (ExitCode::SUCCESS, None),
                    _ => (exit_code(true), Some(EXIT_USAGE)),
                };
            }
            // Another rank's failure is rank 0's to report, and that rank's own.
            let others = error.chain().any(|cause| {
                cause
                    .downcast_ref::<diskmeter_orchestrator::OrchestrateError>()
                    .is_some_and(diskmeter_orchestrator::OrchestrateError::is_other_ranks)
            });
            for line in format!("{error:#}").lines().filter(|_| !(silent && others)) {
                eprintln!("diskmeter: {line}");
            }
            let usage = is_usage(&error);
            let code = if usage { EXIT_USAGE } else { EXIT_FAILURE };
            (exit_code(usage), Some(code))
        }
    }
}

fn exit_code(usage: bool) -> ExitCode {
    ExitCode::from(if usage { EXIT_USAGE } else { EXIT_FAILURE } as u8)
}

/// Whether an error is the user's input (exit 2) rather than a failed run (exit 1).
fn is_usage(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.is::<UsageError>()
            || cause
                .downcast_ref::<diskmeter_orchestrator::OrchestrateError>()
                .is_some_and(diskmeter_orchestrator::OrchestrateError::is_usage)
    })
}

fn try_main() -> anyhow::Result<Status> {
    let matches = command().try_get_matches().map_err(choices::explain)?;
    dispatch(&matches)
}

fn dispatch(matches: &ArgMatches) -> anyhow::Result<Status> {
    let found = matches.subcommand().and_then(|(name, sub)| {
        let (_, _, main) = COMMANDS.iter().find(|(command, _, _)| *command == name)?;
        Some((main, sub))
    });
    match found {
        Some((main, sub)) => main(sub),
        None => Err(UsageError("give a subcommand (diskmeter --help lists them)".into()).into()),
    }
}

/// Writes `text` to `path`, or to stdout when `None`. A closed pipe (`| head`) is not an error.
/// A rank other than 0 of an MPI job writes nothing: rank 0 writes the merged results.
pub(crate) fn write_output(path: Option<&String>, text: &str) -> std::io::Result<()> {
    if ranks::silent() {
        return Ok(());
    }
    match path {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot write {path}: {e}"))),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
            {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other,
            }
        }
    }
}

#[cfg(test)]
#[test]
fn every_subcommand_is_dispatched_under_its_name() {
    for (name, command, _) in COMMANDS {
        assert_eq!(command().get_name(), name);
    }
}
