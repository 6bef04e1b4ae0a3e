//! fio's `exec_prerun` and `exec_postrun`: a shell command each worker runs before and
//! after its IO, its output (stdout and stderr) in `NAME.prerun.txt` / `NAME.postrun.txt`
//! in the current folder, replaced by each worker (fio runs `CMD > NAME.MODE.txt 2>&1`
//! through system(3) in every thread).
//!
//! A job file that runs commands is code: the run is refused when planned unless the user
//! passed `--allow-exec`, with that reason. As in fio, a prerun that fails (exit status not
//! 0) ends the worker before its IO with an error; diskmeter reports a failing postrun too
//! (fio ignores it), since its output is likely part of what the user wanted.

use crate::RunError;
use diskmeter_workload::JobSpec;
use std::process::Command;

/// Refuses a job with commands when they may not run.
pub(crate) fn check(job: &JobSpec, allow_exec: bool) -> Result<(), RunError> {
    let system = &job.system;
    let option = if system.exec_prerun.is_some() {
        "exec_prerun"
    } else if system.exec_postrun.is_some() {
        "exec_postrun"
    } else {
        return Ok(());
    };
    if allow_exec {
        return Ok(());
    }
    Err(RunError::Job {
        job: job.name.clone(),
        message: format!(
            "{option} runs a shell command from the job; diskmeter runs such commands only \
             when asked: pass --allow-exec"
        ),
    })
}

/// Runs `command` for `job` as fio does, output in `NAME.MODE.txt`.
fn run(job: &JobSpec, command: &str, mode: &'static str) -> Result<(), RunError> {
    let output = format!("{}.{mode}.txt", job.name);
    let failed = |reason: String| RunError::Job {
        job: job.name.clone(),
        message: format!("exec_{mode} `{command}` {reason} (its output is in {output})"),
    };
    let file = std::fs::File::create(&output)
        .map_err(|e| failed(format!("cannot start: cannot create its output file: {e}")))?;
    let status = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdout(
            file.try_clone()
                .map_err(|e| failed(format!("cannot start: {e}")))?,
        )
        .stderr(file)
        .status()
        .map_err(|e| failed(format!("cannot start: {e}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(failed(format!("failed ({status})")))
    }
}

/// The job's `exec_prerun`, if it has one.
pub(crate) fn prerun(job: &JobSpec) -> Result<(), RunError> {
    match &job.system.exec_prerun {
        Some(command) => run(job, command, "prerun"),
        None => Ok(()),
    }
}

/// The job's `exec_postrun`, if it has one.
pub(crate) fn postrun(job: &JobSpec) -> Result<(), RunError> {
    match &job.system.exec_postrun {
        Some(command) => run(job, command, "postrun"),
        None => Ok(()),
    }
}
