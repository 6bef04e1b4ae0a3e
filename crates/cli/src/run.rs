//! `diskmeter run`: fio's options on the command line or fio job files -> one step -> the
//! orchestrator -> the report in the chosen format.

use crate::formats::{self, list_parser, RESULT_FORMATS};
use crate::session;
use crate::{args, jobfile, options, write_output, Status, UsageError};
use clap::{ArgAction, ArgMatches, Args, Command, FromArgMatches};
use diskmeter_jobfile::fio::Unsupported;
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step};
use diskmeter_report::output_format::OutputFormat;
use diskmeter_workload::{command_line_jobs, job_file_defaults, job_names, JobSpec, OptionError};

/// The `run` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("run")
        .about("Run IO jobs given with fio's option names (--name=... --rw=... --bs=...)")
        .long_about(diskmeter_views::help::RUN_ABOUT);
    let command = job_inputs(result_format_args(options::add_job_options(command)));
    args::add_run_flags(command, Some("run (every job's target)"))
}

// The job files and `--ignore-unsupported`: how `run` and `k8s manifest` take their jobs (with
// [`options::add_job_options`] for the fio options given as flags). No doc comment: it would
// replace the command's about.
#[derive(Args)]
pub(crate) struct JobInputs {
    /// In job files, skip fio options diskmeter does not support with a warning (default: refuse them)
    #[arg(long, id = "ignore-unsupported", help_heading = diskmeter_views::help::SAFETY)]
    ignore_unsupported: bool,
    /// fio job files to run; options before them are defaults that the files' [global] sections override
    #[arg(value_name = "JOBFILE", num_args = 0.., action = ArgAction::Set)]
    jobfiles: Vec<String>,
}

/// Adds [`JobInputs`]' arguments to `command`.
pub(crate) fn job_inputs(command: Command) -> Command {
    JobInputs::augment_args(command)
}

/// Runs `diskmeter run`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let quiet = args::quiet(matches);
    let mut jobs = jobs(matches, quiet)?;
    let mut session = Session::open(args::settings(matches)?)?;
    session.aim_at_emulated_device(&mut jobs, false);
    let name = job_names(&jobs);
    let batch = Batch::new(CommandKind::Run, vec![Step { name, jobs }]);
    session::run_and_conclude(&mut session, &batch, quiet, None, None, |outcome| {
        write_result(matches, outcome)
    })
}

// `--output-format` (`run`, `replay`): diskmeter's formats and fio's, or a comma list. No doc
// comment: it would replace the command's about.
#[derive(Args)]
pub(crate) struct ResultFormat {
    /// The results' format: normal, json, fio-json, json+ or terse, or several, comma-separated
    ///
    /// normal (human summary), json (diskmeter's schema), fio-json (fio 3.x JSON keys and units,
    /// what fio calls json), json+ (fio's json+: fio-json with the latency bins) or terse (fio's
    /// semicolon lines, see --terse-version); or a comma-separated list, printed in fio's order
    /// (terse, fio-json/json+, json, normal)
    #[arg(long, id = "output-format", value_name = "FORMAT[,FORMAT...]")]
    #[arg(default_value = "normal", value_parser = list_parser(RESULT_FORMATS))]
    output_format: String,
}

/// Adds `--output-format` and `--terse-version` (`run`, `replay`).
pub(crate) fn result_format_args(command: Command) -> Command {
    ResultFormat::augment_args(command).arg(formats::terse_version_arg())
}

/// Writes the result of a one-step batch in the `--output-format` asked (to `--output` or
/// stdout); nothing when the step did not run.
pub(crate) fn write_result(
    matches: &ArgMatches,
    outcome: &diskmeter_orchestrator::Outcome,
) -> anyhow::Result<()> {
    let Some(step) = outcome.steps.first() else {
        return Ok(());
    };
    let (terse, names) = (formats::terse_version(matches), [step.name.clone()]);
    let result = std::slice::from_ref(&step.result);
    let asked = ResultFormat::from_arg_matches(matches)?.output_format;
    let parts = (OutputFormat::print_order(&asked).into_iter())
        .map(|format| diskmeter_views::render_steps(format, &names, result, terse))
        .collect::<Result<_, _>>()?;
    let text = formats::join(parts);
    Ok(write_output(matches.get_one::<String>("output"), &text)?)
}

/// The jobs the command line gives: from job files (the options before them are their
/// defaults), from the options, or the newcomer's default job.
pub(crate) fn jobs(matches: &ArgMatches, quiet: bool) -> anyhow::Result<Vec<JobSpec>> {
    let given = options::ordered_job_options(matches);
    let inputs = JobInputs::from_arg_matches(matches)?;
    let usage = |errors: Vec<OptionError>| {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        UsageError(lines.join("\n"))
    };
    if inputs.jobfiles.is_empty() {
        let (jobs, notes) = command_line_jobs(&given).map_err(usage)?;
        warn(&notes, quiet);
        return Ok(jobs);
    }
    if given.iter().any(|(name, _)| name == "name") {
        return Err(UsageError(
            "--name with job files: give the jobs in the files or on the command line, not both"
                .into(),
        )
        .into());
    }
    let (defaults, typed_globals, notes) = job_file_defaults(&given).map_err(usage)?;
    warn(&notes, quiet);
    let unsupported = if inputs.ignore_unsupported {
        Unsupported::Warn
    } else {
        Unsupported::Refuse
    };
    let files = &inputs.jobfiles;
    let jobs = jobfile::jobs_from_files(files, &defaults, &typed_globals, unsupported, quiet);
    Ok(jobs.map_err(|errors| UsageError(errors.join("\n")))?)
}

/// The notes on values read other than written, on stderr unless `quiet`.
fn warn(notes: &[String], quiet: bool) {
    if !quiet {
        for note in notes {
            eprintln!("diskmeter: warning: {note}");
        }
    }
}
