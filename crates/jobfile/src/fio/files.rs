//! The fio job files of one command line (`diskmeter run A.fio B.fio`): each file's jobs from
//! the command line's defaults, and the run's global options as fio 3.33 prints them. The
//! files' text comes through `read` and what they include through [`Sources`]: nothing here
//! does IO.

use super::{given_options, parse, resolve, Sources, Unsupported};
use diskmeter_workload::{GivenOptions, JobSpec};

/// The jobs of `files` and the warnings to show (also when there are errors).
pub struct FromFiles {
    /// The jobs, or every error as a line to print.
    pub jobs: Result<Vec<JobSpec>, Vec<String>>,
    /// Unsupported options skipped, as lines to print.
    pub warnings: Vec<String>,
}

/// The jobs of `files`, each file starting from `defaults` (fio: a file's `[global]` does not
/// reach the next file; command-line options reach all); `read` gives a file's text.
///
/// Each job carries its options as typed ([`GivenOptions`]), and the run's global options as
/// fio 3.33 prints them: `typed_globals` (the options given before the files) and the
/// `[global]` sections of the first file; with several files, the `[global]` sections of the
/// last file only (fio's `parse_options` starts its global job afresh for each file after the
/// first, and prints the one left at the end).
pub fn jobs_from_files(
    files: &[String],
    read: impl Fn(&str) -> std::io::Result<String>,
    sources: &dyn Sources,
    defaults: &JobSpec,
    typed_globals: &[(String, String)],
    unsupported: Unsupported,
) -> FromFiles {
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut global = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let text = match read(file) {
            Ok(text) => text,
            Err(e) => {
                errors.push(format!("cannot read job file {file}: {e}"));
                continue;
            }
        };
        let sections = match parse(file, &text, sources) {
            Ok(sections) => sections,
            Err(e) => {
                errors.extend(e.iter().map(ToString::to_string));
                continue;
            }
        };
        let (file_global, typed_jobs) = given_options(&sections);
        global = if index == 0 {
            typed_globals.to_vec()
        } else {
            Vec::new()
        };
        global.extend(file_global);
        match resolve(&sections, defaults, unsupported) {
            Ok((mut found, file_warnings)) => {
                for (job, typed) in found.iter_mut().zip(typed_jobs) {
                    job.given = Some(GivenOptions {
                        job: typed,
                        global: Vec::new(),
                    });
                }
                warnings.extend(file_warnings.iter().map(ToString::to_string));
                if found.is_empty() {
                    errors.push(format!("{file}: no jobs (only [global] sections)"));
                }
                jobs.extend(found);
            }
            Err(e) => errors.extend(e.iter().map(ToString::to_string)),
        }
    }
    for job in &mut jobs {
        if let Some(given) = job.given.as_mut() {
            given.global = global.clone();
        }
    }
    FromFiles {
        jobs: if errors.is_empty() {
            Ok(jobs)
        } else {
            Err(errors)
        },
        warnings,
    }
}
