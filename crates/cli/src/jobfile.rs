//! `diskmeter run FILE.fio ...`: the jobs of fio job files, read from the file system
//! (`diskmeter_orchestrator::FileSources`) and resolved by
//! `diskmeter_jobfile::fio::files`; here only the warnings are printed.

use diskmeter_jobfile::fio::{files, Unsupported};
use diskmeter_orchestrator::FileSources;
use diskmeter_workload::JobSpec;

/// The jobs of `files` (see [`files::jobs_from_files`]). Warnings are printed unless
/// `quiet`; errors come back as lines to print.
pub fn jobs_from_files(
    files: &[String],
    defaults: &JobSpec,
    typed_globals: &[(String, String)],
    unsupported: Unsupported,
    quiet: bool,
) -> Result<Vec<JobSpec>, Vec<String>> {
    let read = |file: &str| std::fs::read_to_string(file);
    let found = files::jobs_from_files(
        files,
        read,
        &FileSources,
        defaults,
        typed_globals,
        unsupported,
    );
    if !quiet {
        for warning in &found.warnings {
            eprintln!("diskmeter: warning: {warning}");
        }
    }
    found.jobs
}
