//! `diskmeter run FILE.fio ...`: reads fio job files (and their includes and variables) from
//! the file system and the environment for diskmeter-jobfile, which does the parsing.

use diskmeter_jobfile::fio::{self, IncludeError, Sources, Unsupported};
use diskmeter_workload::JobSpec;
use std::path::Path;

/// Files from disk, `include` relative to the including file's folder, variables from the
/// process environment, and fio's built-ins from this machine.
struct FileSystem;

impl Sources for FileSystem {
    fn include(&self, from: &str, path: &str) -> Result<(String, String), IncludeError> {
        let resolved = match Path::new(from).parent() {
            Some(dir) if Path::new(path).is_relative() => dir.join(path),
            _ => Path::new(path).to_path_buf(),
        };
        let name = resolved.display().to_string();
        std::fs::read_to_string(&resolved)
            .map(|text| (name.clone(), text))
            .map_err(|source| IncludeError::Read { path: name, source })
    }

    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn builtin(&self, name: &str) -> Option<u64> {
        match name {
            "ncpus" => std::thread::available_parallelism()
                .ok()
                .map(|n| n.get() as u64),
            "pagesize" => Some(4096),
            "mb_memory" => diskmeter_capture::procfs::ProcFiles::new("/proc")
                .memory()
                .ok()
                .map(|m| m.total_bytes / diskmeter_units::MIB),
            _ => None,
        }
    }
}

/// The jobs of `files`, each file starting from `defaults` (fio: a file's `[global]` does not
/// reach the next file; command-line options reach all). Warnings are printed unless `quiet`;
/// errors come back as lines to print.
///
/// Each job carries its options as typed ([`diskmeter_workload::GivenOptions`]), and the
/// run's global options as fio 3.33 prints them: `typed_globals` (the options given before
/// the files) and the `[global]` sections of the first file; with several files, the
/// `[global]` sections of the last file only (fio's `parse_options` starts its global job
/// afresh for each file after the first, and prints the one left at the end).
pub fn jobs_from_files(
    files: &[String],
    defaults: &JobSpec,
    typed_globals: &[(String, String)],
    unsupported: Unsupported,
    quiet: bool,
) -> Result<Vec<JobSpec>, Vec<String>> {
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    let mut global = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                errors.push(format!("cannot read job file {file}: {e}"));
                continue;
            }
        };
        let sections = match fio::parse(file, &text, &FileSystem) {
            Ok(sections) => sections,
            Err(e) => {
                errors.extend(e.iter().map(ToString::to_string));
                continue;
            }
        };
        let (file_global, typed_jobs) = fio::given_options(&sections);
        global = if index == 0 {
            typed_globals.to_vec()
        } else {
            Vec::new()
        };
        global.extend(file_global);
        match fio::resolve(&sections, defaults, unsupported) {
            Ok((mut found, warnings)) => {
                for (job, typed) in found.iter_mut().zip(typed_jobs) {
                    job.given = Some(diskmeter_workload::GivenOptions {
                        job: typed,
                        global: Vec::new(),
                    });
                }
                if !quiet {
                    for w in warnings {
                        eprintln!("diskmeter: warning: {w}");
                    }
                }
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
    if errors.is_empty() {
        Ok(jobs)
    } else {
        Err(errors)
    }
}
