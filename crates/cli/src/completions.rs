//! The conventions a command-line tool follows: `diskmeter completions SHELL` and
//! `diskmeter man`, both generated from the clap definitions ([`crate::command`]), so they
//! never drift from `--help`.

use crate::{write_output, Status};
use anyhow::Context;
use clap::{ArgMatches, Args, Command, FromArgMatches};
use clap_complete::Shell;
use std::path::{Path, PathBuf};

/// The `completions` subcommand.
pub fn completions_command() -> Command {
    ShellArg::augment_args(Command::new("completions"))
        .about("Print a shell completion script")
        .long_about(
            "Print a shell completion script for bash, zsh, fish, elvish or powershell. \
             For bash: `diskmeter completions bash > /etc/bash_completion.d/diskmeter` (or \
             `source <(diskmeter completions bash)` in ~/.bashrc); for zsh, write it as \
             `_diskmeter` in a folder of $fpath; for fish, as \
             ~/.config/fish/completions/diskmeter.fish.",
        )
}

// The argument of `completions` (not a doc comment: clap's derive would make it the about).
#[derive(Args)]
struct ShellArg {
    /// The shell: bash, zsh, fish, elvish or powershell
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

/// The `man` subcommand.
pub fn man_command() -> Command {
    ManArgs::augment_args(Command::new("man"))
        .about("Print the manual page (roff)")
        .long_about(
            "Print the manual page diskmeter.1 (roff; `diskmeter man | man -l -` reads it). \
             With -o DIR, write one page per command into DIR instead: diskmeter.1, \
             diskmeter-run.1, diskmeter-suite.1, ...",
        )
}

// The options of `man`.
#[derive(Args)]
struct ManArgs {
    /// Write diskmeter.1 and a page per command (diskmeter-run.1, ...) into DIR
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
}

/// Runs `diskmeter completions`.
pub fn completions_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let shell = ShellArg::from_arg_matches(matches)?.shell;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut crate::command(), "diskmeter", &mut script);
    write_output(None, &String::from_utf8_lossy(&script))?;
    Ok(Status::Success)
}

/// Runs `diskmeter man`.
pub fn man_main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let command = crate::command().disable_help_subcommand(true);
    match ManArgs::from_arg_matches(matches)?.output {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            write_output(None, &String::from_utf8_lossy(&page))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let mut command = command;
            // Builds the tree so each subcommand knows its full name (diskmeter-run).
            command.build();
            let mut written = Vec::new();
            write_pages(command, &dir, &mut written)?;
            let names: Vec<String> = written
                .iter()
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            println!(
                "wrote {} pages into {}: {}",
                names.len(),
                dir.display(),
                names.join(" ")
            );
        }
    }
    Ok(Status::Success)
}

/// Writes the page of `command`, then of each visible subcommand, into `dir`.
fn write_pages(command: Command, dir: &Path, written: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let subcommands: Vec<Command> = command
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    let path = clap_mangen::Man::new(command)
        .generate_to(dir)
        .with_context(|| format!("cannot write a manual page into {}", dir.display()))?;
    written.push(path);
    for subcommand in subcommands {
        write_pages(subcommand, dir, written)?;
    }
    Ok(())
}
