//! `diskmeter diskspd [options] SWITCHES... TARGET...`: DiskSpd command lines, run by
//! diskmeter's engine and reported in DiskSpd's text or XML layout.

use crate::session;
use crate::{args, write_output, Status, UsageError};
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use diskmeter_jobfile::diskspd;
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step};
use diskmeter_report::render_diskspd;

/// The `diskspd` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("diskspd")
        .about("Run a DiskSpd command line or XML profile (diskspd -b8K -d30 -o32 -t4 -r -w30 -Sh -L FILE)")
        .long_about(diskmeter_views::help::DISKSPD_ABOUT)
        .disable_help_flag(true)
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help"),
        );
    args::add_run_flags(DiskSpdArgs::augment_args(command), None)
}

// What DiskSpd would be given (no doc comment: it would replace the command's about).
#[derive(Args)]
struct DiskSpdArgs {
    /// DiskSpd's switches and targets, as for diskspd
    #[arg(value_name = "SWITCHES_AND_TARGETS", required = true, action = ArgAction::Set)]
    #[arg(allow_hyphen_values = true, trailing_var_arg = true)]
    switches: Vec<String>,
}

/// Runs `diskmeter diskspd`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = DiskSpdArgs::from_arg_matches(matches)?.switches;
    let env = diskspd::Env {
        path_exists: |path| std::path::Path::new(path).exists(),
        read_file: |path| std::fs::read_to_string(path).map_err(|e| e.to_string()),
        clock_seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    };
    let profile = diskspd::parse_with(&args, &env).map_err(|e| UsageError(e.to_string()))?;
    // Notes go out before the run, like the refusals they stand in for.
    for note in &profile.notes {
        eprintln!("note: diskspd {note}");
    }
    if profile.profile_only {
        // -Rp: the profile as DiskSpd would re-output it, nothing run.
        write_output(matches.get_one::<String>("output"), &profile.profile_text())?;
        return Ok(Status::Success);
    }
    let quiet = args::quiet(matches);
    let mut session = Session::open(args::settings(matches)?)?;
    let steps = (profile.steps().into_iter()).map(|(name, jobs)| Step::new(name, jobs));
    let mut batch = Batch::new(CommandKind::DiskSpd, steps.collect());
    batch.name = Some(profile.command_line.clone());
    session::run_and_conclude(&mut session, &batch, quiet, None, None, |outcome| {
        if outcome.steps.is_empty() {
            return Ok(());
        }
        let ran: Vec<_> = (outcome.steps.iter())
            .map(|s| (s.index, &s.input))
            .collect();
        let text = render_diskspd(&profile, &ran);
        Ok(write_output(matches.get_one::<String>("output"), &text)?)
    })
}
