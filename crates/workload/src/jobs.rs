//! Jobs from a flat list of options, with fio's command-line rules for `name=`.
//!
//! fio (`init.c`, `parse_cmd_line`): options before the first `--name` go to a global section;
//! each `--name=X` starts a job that is a copy of the global options at that point, and the
//! options after it apply to that job only. `--name=global` starts another global section,
//! whose options reach the jobs named after it. fio refuses a command line with options but no
//! `--name`; diskmeter runs one job named "job" with them instead.

use crate::given::{given_from_options, TypedOptions};
use crate::{apply_option, InvalidValue, JobSpec, OptionError};

/// Builds the jobs an fio-style command line describes (see the module docs).
///
/// Every option is tried, so the result lists *all* errors rather than the first. An empty
/// list gives no jobs (the caller picks its own default, e.g. [`JobSpec::newcomer_default`]).
pub fn jobs_from_options(
    options: &[(String, Option<String>)],
) -> Result<Vec<JobSpec>, Vec<OptionError>> {
    jobs_from_options_over(&JobSpec::default(), options)
}

/// [`jobs_from_options`] starting from `base` instead of diskmeter's defaults (job files
/// start from [`JobSpec::fio_job_file_default`], so the options given before them do too).
pub fn jobs_from_options_over(
    base: &JobSpec,
    options: &[(String, Option<String>)],
) -> Result<Vec<JobSpec>, Vec<OptionError>> {
    let mut globals = base.clone();
    let mut current: Option<JobSpec> = None;
    let mut jobs = Vec::new();
    let mut errors = Vec::new();

    for (name, value) in options {
        if name == "name" {
            jobs.extend(current.take());
            match value.as_deref().map(str::trim) {
                Some("global") => {}
                Some(job_name) if !job_name.is_empty() => {
                    current = Some(JobSpec {
                        name: job_name.to_string(),
                        ..globals.clone()
                    });
                }
                _ => {
                    errors.push(match value {
                        None => OptionError::MissingValue {
                            option: name.clone(),
                            example: "job1",
                        },
                        Some(value) => OptionError::Invalid {
                            option: name.clone(),
                            value: value.clone(),
                            reason: Box::new(InvalidValue::EmptyName),
                        },
                    });
                    // Keep collecting this job's errors under the default name.
                    current = Some(globals.clone());
                }
            }
            continue;
        }
        let target = current.as_mut().unwrap_or(&mut globals);
        if let Err(error) = apply_option(target, name, value.as_deref()) {
            errors.push(error);
        }
    }
    jobs.extend(current);
    if jobs.is_empty() && !options.is_empty() {
        jobs.push(globals);
    }
    if errors.is_empty() {
        Ok(jobs)
    } else {
        Err(errors)
    }
}

/// The jobs of a command line that gives no job file: the newcomer's default job without
/// options, else [`jobs_from_options`], each carrying what was typed (fio's "job options" and
/// "global options", see [`crate::given`]); and the notes of values read other than written,
/// to warn about once ([`mark_value_readings`]).
pub fn command_line_jobs(
    options: &[(String, Option<String>)],
) -> Result<(Vec<JobSpec>, Vec<String>), Vec<OptionError>> {
    if options.is_empty() {
        return Ok((vec![JobSpec::newcomer_default()], Vec::new()));
    }
    let mut jobs = jobs_from_options(options)?;
    let notes = mark_value_readings(&mut jobs);
    for (job, typed) in jobs.iter_mut().zip(given_from_options(options)) {
        job.given = Some(typed);
    }
    Ok((jobs, notes))
}

/// What the options given before job files make of them: the files' defaults (a job file
/// means what it means to fio, so they start from fio's defaults, psync and unlink=0), the
/// options as typed (fio's global options of the first file) and the notes of values read
/// other than written ([`mark_value_readings`]).
pub fn job_file_defaults(
    options: &[(String, Option<String>)],
) -> Result<(JobSpec, TypedOptions, Vec<String>), Vec<OptionError>> {
    let base = JobSpec::fio_job_file_default();
    let mut defaults = (jobs_from_options_over(&base, options)?.into_iter().next()).unwrap_or(base);
    let notes = mark_value_readings(std::slice::from_mut(&mut defaults));
    let typed = given_from_options(options).into_iter().next();
    Ok((defaults, typed.map(|g| g.global).unwrap_or_default(), notes))
}

/// The command line's values that fio reads other than written (`--runtime=30sec`), read as
/// fio reads them (its command line uses the same parser as its job files): each note gets
/// the option's `--`; the notes, each once, to warn about (`--dry-run` and the results list
/// them with the job's other notes).
pub fn mark_value_readings(jobs: &mut [JobSpec]) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    for job in jobs {
        for note in &mut job.compat.value_readings {
            if !note.starts_with("--") {
                *note = format!("--{note}");
            }
            if !notes.contains(note) {
                notes.push(note.clone());
            }
        }
    }
    notes
}

/// The names of `jobs`, each once, comma-separated: a step's name in the history.
pub fn job_names(jobs: &[JobSpec]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for job in jobs {
        if !names.contains(&job.name.as_str()) {
            names.push(&job.name);
        }
    }
    names.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RwMode;

    fn options(list: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
        list.iter()
            .map(|(name, value)| (name.to_string(), value.map(str::to_string)))
            .collect()
    }

    #[test]
    fn options_before_the_first_name_are_defaults_for_every_job() {
        let jobs = jobs_from_options(&options(&[
            ("rw", Some("randread")),
            ("bs", Some("8k")),
            ("name", Some("a")),
            ("iodepth", Some("32")),
            ("name", Some("b")),
            ("bs", Some("64k")),
        ]))
        .unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!((jobs[0].name.as_str(), jobs[1].name.as_str()), ("a", "b"));
        assert_eq!(jobs[0].rw, RwMode::RandRead);
        assert_eq!(jobs[1].rw, RwMode::RandRead);
        assert_eq!(jobs[0].bs_bytes.read, 8192);
        assert_eq!(jobs[1].bs_bytes.read, 65536);
        assert_eq!(jobs[0].iodepth, 32);
        assert_eq!(jobs[1].iodepth, 1, "iodepth was set for job a only");
    }

    #[test]
    fn name_global_starts_a_global_section() {
        let jobs = jobs_from_options(&options(&[
            ("name", Some("global")),
            ("direct", Some("1")),
            ("name", Some("a")),
            ("name", Some("global")),
            ("iodepth", Some("8")),
            ("name", Some("b")),
        ]))
        .unwrap();
        assert_eq!(jobs.len(), 2);
        assert!(jobs[0].direct && jobs[1].direct);
        assert_eq!((jobs[0].iodepth, jobs[1].iodepth), (1, 8));
    }

    #[test]
    fn no_name_gives_one_job_called_job() {
        let jobs = jobs_from_options(&options(&[("rw", Some("write"))])).unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].name, "job");
        assert_eq!(jobs[0].rw, RwMode::Write);
        assert_eq!(jobs_from_options(&[]), Ok(Vec::new()));
    }

    #[test]
    fn kb_base_in_the_globals_reaches_every_job() {
        let jobs = jobs_from_options(&options(&[
            ("kb_base", Some("1000")),
            ("name", Some("a")),
            ("size", Some("1g")),
        ]))
        .unwrap();
        assert_eq!(jobs[0].size_bytes, Some(1_000_000_000));
    }

    #[test]
    fn kb_base_only_affects_later_options_as_on_fios_command_line() {
        let jobs = jobs_from_options(&options(&[
            ("size", Some("1k")),
            ("kb_base", Some("1000")),
            ("io_size", Some("1k")),
        ]))
        .unwrap();
        assert_eq!(jobs[0].size_bytes, Some(1024));
        assert_eq!(jobs[0].io_size_bytes, Some(1000));
    }

    #[test]
    fn all_errors_are_collected() {
        let errors = jobs_from_options(&options(&[
            ("bs", Some("-4")),
            ("name", Some("a")),
            ("iodpeth", Some("4")),
            ("name", None),
            ("runtime", Some("ten")),
            ("name", Some("")),
        ]))
        .unwrap_err();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 5, "{messages:#?}");
        assert!(messages[0].starts_with("bs=-4:"));
        assert!(messages[1].contains("did you mean 'iodepth'"));
        assert_eq!(messages[2], "name needs a value (e.g. name=job1)");
        assert!(messages[3].starts_with("runtime=ten:"));
        assert_eq!(messages[4], "name=: a job name can't be empty");
    }

    #[test]
    fn a_command_line_s_jobs_keep_what_was_typed_and_name_each_value_read_otherwise_once() {
        let (jobs, notes) = command_line_jobs(&[]).unwrap();
        assert_eq!(jobs, vec![JobSpec::newcomer_default()]);
        assert!(notes.is_empty());
        let given = options(&[
            ("runtime", Some("30sec")),
            ("name", Some("a")),
            ("name", Some("b")),
            ("name", Some("a")),
        ]);
        let (jobs, notes) = command_line_jobs(&given).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("--runtime=30sec: "), "{notes:?}");
        assert!(jobs.iter().all(|job| job.compat.value_readings == notes));
        assert_eq!(jobs[0].given.as_ref().unwrap().global[0].0, "runtime");
        assert_eq!(job_names(&jobs), "a,b");
    }

    #[test]
    fn options_before_job_files_start_from_fio_s_job_file_defaults() {
        let given = options(&[("iodepth", Some("8"))]);
        let (defaults, typed, notes) = job_file_defaults(&given).unwrap();
        let fio = JobSpec::fio_job_file_default();
        assert_eq!((defaults.iodepth, defaults.ioengine), (8, fio.ioengine));
        assert_eq!(typed, vec![("iodepth".to_string(), "8".to_string())]);
        assert!(notes.is_empty());
    }
}
