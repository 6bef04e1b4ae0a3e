//! `diskmeter run`: fio's options on the command line or fio job files -> one step -> the
//! orchestrator -> the report in the chosen format.

use crate::session;
use crate::{args, formats, jobfile, options, write_output, Status, UsageError};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_jobfile::fio::Unsupported;
use diskmeter_orchestrator::{Batch, CommandKind, Session, Step};
use diskmeter_workload::JobSpec;

/// The `run` subcommand's definition.
pub fn command() -> Command {
    let command = Command::new("run")
        .about("Run IO jobs given with fio's option names (--name=... --rw=... --bs=...)")
        .long_about(
            "Run IO jobs given with fio's option names, as `--option=value` or `--option value`. \
             Options before the first --name apply to every job; each --name starts a new job. \
             With no job options, runs the default job: 4 KiB random reads, iodepth 32, \
             a 1 GiB file in the current folder, 10 seconds, direct IO.\n\n\
             Files diskmeter creates are removed at the end unless --keep (or unlink=0); \
             those of a diskmeter that was killed are removed by the next run. Writing to an \
             existing file diskmeter did not create, or to a block device that is mounted or \
             holds a partition table or a filesystem signature, is refused unless \
             --allow-destroy; a job whose IO buffers would not fit in the memory available is \
             refused too.\n\n\
             Exit codes: 0 ok; 1 the run failed, was refused or was interrupted, or the history \
             could not take it (the run is then kept in a spool file and saved at the next \
             run); 2 usage error.",
        )
        .arg(output_format_arg())
        .arg(formats::terse_version_arg());
    let command = args::add_emulate_flags(job_inputs(command), "run (every job's target)");
    options::add_job_options(args::add_run_flags(command))
}

/// The job files and `--ignore-unsupported`: how `run` and `k8s manifest` take their jobs
/// (with [`options::add_job_options`] for the fio options given as flags).
pub(crate) fn job_inputs(command: Command) -> Command {
    command
        .arg(
            Arg::new("ignore-unsupported")
                .long("ignore-unsupported")
                .action(ArgAction::SetTrue)
                .help("In job files, skip fio options diskmeter does not support with a warning (default: refuse them)"),
        )
        .arg(
            Arg::new("jobfiles")
                .value_name("JOBFILE")
                .num_args(0..)
                .help("fio job files to run; options before them are defaults that the files' [global] sections override"),
        )
}

/// Runs `diskmeter run`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    let quiet = args::quiet(matches);
    let mut jobs = jobs(matches, quiet)?;
    let settings = args::settings(matches)?;
    let mut session = Session::open(settings)?;
    if let Some(device) = session.emulated_device() {
        for job in &mut jobs {
            job.filenames = vec![device.to_path_buf()];
        }
    }
    let batch = Batch::new(
        CommandKind::Run,
        vec![Step {
            name: job_names(&jobs),
            jobs,
        }],
    );
    session::run_and_conclude(&mut session, &batch, quiet, None, None, |outcome| {
        write_result(matches, outcome)
    })
}

/// `--output-format` (`run`, `replay`): diskmeter's formats and fio's, or a comma list.
pub(crate) fn output_format_arg() -> Arg {
    Arg::new("output-format")
        .long("output-format")
        .value_name("FORMAT[,FORMAT...]")
        .value_parser(formats::list_parser(formats::RESULT_FORMATS))
        .default_value("normal")
        .help(
            "normal (human summary), json (diskmeter's schema), fio-json (fio 3.x JSON keys and \
             units, what fio calls json), json+ (fio's json+: fio-json with the latency bins) or \
             terse (fio's semicolon lines, see --terse-version); or a comma-separated list, \
             printed in fio's order (terse, fio-json/json+, json, normal)",
        )
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
    let terse = formats::terse_version(matches);
    let mut parts = Vec::new();
    for format in formats::formats_of(matches, "output-format") {
        parts.push(match format {
            formats::OutputFormat::Json => diskmeter_report::to_json(&step.result),
            formats::OutputFormat::Normal | formats::OutputFormat::Csv => {
                diskmeter_report::render_terminal(&step.result)
            }
            fio => formats::render_fio(fio, &[&step.result], terse)?.unwrap_or_default(),
        });
    }
    let text = formats::join(parts);
    Ok(write_output(matches.get_one::<String>("output"), &text)?)
}

/// The jobs the command line gives: from job files (the options before them are their
/// defaults), from the options, or the newcomer's default job.
pub(crate) fn jobs(matches: &ArgMatches, quiet: bool) -> anyhow::Result<Vec<JobSpec>> {
    let given = options::ordered_job_options(matches);
    let files: Vec<String> = matches
        .get_many::<String>("jobfiles")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let usage = |errors: Vec<String>| UsageError(errors.join("\n"));
    if files.is_empty() {
        if given.is_empty() {
            return Ok(vec![JobSpec::newcomer_default()]);
        }
        let mut jobs = diskmeter_workload::jobs_from_options(&given)
            .map_err(|errors| usage(errors.iter().map(ToString::to_string).collect()))?;
        warn_value_readings(&mut jobs, quiet);
        // fio's "job options" and "global options": what was typed, kept beside each job.
        for (job, typed) in jobs
            .iter_mut()
            .zip(diskmeter_workload::given::given_from_options(&given))
        {
            job.given = Some(typed);
        }
        return Ok(jobs);
    }
    if given.iter().any(|(name, _)| name == "name") {
        return Err(UsageError(
            "--name with job files: give the jobs in the files or on the command line, not both"
                .into(),
        )
        .into());
    }
    // A job file means what it means to fio: its jobs start from fio's defaults (psync,
    // unlink=0), and so do the options given before it, which are its defaults.
    let base = JobSpec::fio_job_file_default();
    let mut defaults = diskmeter_workload::jobs_from_options_over(&base, &given)
        .map_err(|errors| usage(errors.iter().map(ToString::to_string).collect()))?
        .into_iter()
        .next()
        .unwrap_or(base);
    warn_value_readings(std::slice::from_mut(&mut defaults), quiet);
    let unsupported = if matches.get_flag("ignore-unsupported") {
        Unsupported::Warn
    } else {
        Unsupported::Refuse
    };
    // The options before the files are fio's global options (the first file's, see
    // `jobfile::jobs_from_files`).
    let typed_globals = diskmeter_workload::given::given_from_options(&given)
        .into_iter()
        .next()
        .map(|g| g.global)
        .unwrap_or_default();
    Ok(
        jobfile::jobs_from_files(&files, &defaults, &typed_globals, unsupported, quiet)
            .map_err(usage)?,
    )
}

/// The command line's values that fio reads other than written (`--runtime=30sec`), read as
/// fio reads them (its command line uses the same parser as its job files): each note gets
/// the option's `--`, and is warned about once on stderr (unless `quiet`); `--dry-run` and
/// the results list them with the job's other notes.
fn warn_value_readings(jobs: &mut [JobSpec], quiet: bool) {
    let mut warned: Vec<String> = Vec::new();
    for job in jobs {
        for note in &mut job.compat.value_readings {
            if !note.starts_with("--") {
                *note = format!("--{note}");
            }
            if !warned.contains(note) {
                warned.push(note.clone());
            }
        }
    }
    if !quiet {
        for note in warned {
            eprintln!("diskmeter: warning: {note}");
        }
    }
}

/// The names of the jobs, each once: the step's name in the history.
fn job_names(jobs: &[JobSpec]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for job in jobs {
        if !names.contains(&job.name.as_str()) {
            names.push(&job.name);
        }
    }
    names.join(",")
}
