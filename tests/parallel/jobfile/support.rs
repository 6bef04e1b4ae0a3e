//! What the job-file tests share (`tests/parallel/jobfile.rs` runs job files, `tests/parallel/jobfile_reading.rs`
//! compares how they read with fio's reading): the files in tests/jobs, the variables they
//! take for a small, quick run, and diskmeter's dry run of them.

#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// tests/jobs, the job files the tests run.
pub fn jobs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jobs")
}

/// Every `.fio` file of tests/jobs, sorted.
pub fn job_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(jobs_dir())
        .expect("tests/jobs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.sort();
    files
}

/// The job files of tests/jobs whose text `keep` takes.
pub fn job_files_where(keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    job_files()
        .into_iter()
        .filter(|file| keep(&std::fs::read_to_string(file).expect("a job file")))
        .collect()
}

/// Runs `work` on this thread and one more, for loops that share their items out.
pub fn on_two_threads(work: impl Fn() + Sync) {
    std::thread::scope(|scope| {
        let other = scope.spawn(&work);
        work();
        other.join().unwrap();
    });
}

/// A command with the job files' variables set for a small, quick run in `dir`.
pub fn with_env(mut cmd: Command, dir: &Path) -> Command {
    cmd.env("DM_DIR", dir)
        .env("DM_SIZE", "8m")
        .env("DM_RUNTIME", "1")
        .current_dir(dir);
    cmd
}

/// `diskmeter` in `dir`, with the job files' variables set ([`with_env`]).
pub fn diskmeter(dir: &Path) -> Command {
    with_env(crate::common::command(), dir)
}

/// `diskmeter run --dry-run ARGS` in `dir`, which must succeed; its stdout (the plan).
pub fn dry_run(dir: &Path, args: &[String]) -> String {
    let out = diskmeter(dir)
        .arg("run")
        .arg("--dry-run")
        .args(args)
        .output()
        .expect("run diskmeter");
    assert!(
        out.status.success(),
        "diskmeter run --dry-run {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}
