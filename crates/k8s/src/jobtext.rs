//! The job file the pods run: the jobs as diskmeter resolved them where the manifest was
//! written, moved onto the pod's volume, written as an fio job file and read back to prove
//! it plans the same jobs.
//!
//! Why resolved and not the text as given: a job file may `include` other files, read
//! `${VAR}` from the environment and `$ncpus` from the machine, and options given before it
//! on the command line are its defaults; none of that exists in a pod. The resolved jobs are
//! one self-contained file that every pod reads the same way, so every rank runs the
//! workload that was checked here.

use crate::{ManifestError, DATA_MOUNT};
use diskmeter_jobfile::fio::{self, IncludeError, Sources, Unsupported};
use diskmeter_workload::JobSpec;
use std::path::{Path, PathBuf};

/// The name the job file is read back under, for messages of the round trip.
const READ_BACK_NAME: &str = "pod job file";

/// The job file every pod runs: `jobs` with their test files moved onto the pod's own
/// volume (`directory` = [`DATA_MOUNT`]), one `[name]` section each, as fio job file text.
///
/// Refused, naming the job: a target outside the volume (an absolute `filename` or
/// `filename_format`, `opendir`), a job with no size (the volume starts empty, so the pod
/// must make its files), input a pod does not have (`read_iolog`), shell commands (the pods
/// run without `--allow-exec`), and a job whose options do not read back the same.
pub fn pod_job_file(jobs: &[JobSpec]) -> Result<String, ManifestError> {
    if jobs.is_empty() {
        return Err(ManifestError::NoJobs);
    }
    let mut moved = Vec::with_capacity(jobs.len());
    for job in jobs {
        moved.push(onto_volume(job)?);
    }
    let defaults = JobSpec::fio_job_file_default();
    let mut text = String::new();
    for job in &moved {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!("[{}]\n", job.name));
        for (name, value) in diskmeter_workload::describe_against(job, &defaults) {
            text.push_str(&format!("{name}={value}\n"));
        }
    }
    let read_back = read_back(&text)?;
    if let Some((job, read)) = moved.iter().zip(&read_back).find(|(a, b)| a != b) {
        return Err(ManifestError::NotRepresentable {
            job: job.name.clone(),
            detail: first_difference(job, read),
        });
    }
    if read_back.len() != moved.len() {
        return Err(ManifestError::NotRepresentable {
            job: moved[0].name.clone(),
            detail: format!("{} jobs read back as {}", moved.len(), read_back.len()),
        });
    }
    Ok(text)
}

/// `job` with its files on the pod's volume, or why it cannot run in a pod.
fn onto_volume(job: &JobSpec) -> Result<JobSpec, ManifestError> {
    let refuse = |option: &str, reason: String| ManifestError::Job {
        job: job.name.clone(),
        option: option.to_string(),
        reason,
    };
    let outside = |path: &Path| {
        format!(
            "{} is outside the pod's volume; each pod makes its test files on its own volume \
             (mounted at {DATA_MOUNT}): give a relative name or none",
            path.display()
        )
    };
    if let Some(absolute) = job.filenames.iter().find(|f| f.is_absolute()) {
        return Err(refuse("filename", outside(absolute)));
    }
    if let Some(format) = &job.files.filename_format {
        if format.starts_with('/') {
            return Err(refuse("filename_format", outside(Path::new(format))));
        }
    }
    if let Some(dir) = &job.files.opendir {
        return Err(refuse("opendir", outside(dir)));
    }
    if let Some(log) = &job.iolog.read_iolog {
        return Err(refuse(
            "read_iolog",
            format!(
                "{} is not in the pods (only the job file is)",
                log.display()
            ),
        ));
    }
    for (option, command) in [
        ("exec_prerun", &job.system.exec_prerun),
        ("exec_postrun", &job.system.exec_postrun),
    ] {
        if command.is_some() {
            return Err(refuse(
                option,
                "the pods run without --allow-exec, so the command would be refused".into(),
            ));
        }
    }
    if job.size_bytes.is_none() && job.filesize_bytes.is_none() {
        return Err(refuse(
            "size",
            "none given; each pod's volume starts empty, so the pod makes the job's files and \
             needs their size (e.g. --size=10g)"
                .into(),
        ));
    }
    let mut moved = JobSpec {
        directory: Some(PathBuf::from(DATA_MOUNT)),
        ..job.clone()
    };
    // fio's other name for the engine (`vsync` runs as psync) is a note for the plan, not
    // part of the workload: the pods are told the engine diskmeter runs.
    moved.compat.ioengine_as_written = None;
    // The options as typed (fio-json's "job options") are not part of the workload either:
    // the pods are given the resolved file, and their results list what it sets.
    moved.given = None;
    Ok(moved)
}

/// The jobs `text` gives a pod: read as `diskmeter run` reads a job file, from fio's
/// defaults, with no environment, includes or machine facts.
fn read_back(text: &str) -> Result<Vec<JobSpec>, ManifestError> {
    let unreadable =
        |errors: Vec<diskmeter_jobfile::JobFileError>| ManifestError::NotRepresentable {
            job: "(all)".into(),
            detail: errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        };
    let sections = fio::parse(READ_BACK_NAME, text, &NothingOutside).map_err(unreadable)?;
    let (jobs, _warnings) = fio::resolve(
        &sections,
        &JobSpec::fio_job_file_default(),
        Unsupported::Refuse,
    )
    .map_err(unreadable)?;
    Ok(jobs)
}

/// The first option whose value differs between what was written and what was read back,
/// or a note that the difference is in no option's printed form.
fn first_difference(written: &JobSpec, read: &JobSpec) -> String {
    let defaults = JobSpec::fio_job_file_default();
    let a = diskmeter_workload::describe_against(written, &defaults);
    let b = diskmeter_workload::describe_against(read, &defaults);
    for (name, value) in &a {
        let back = b.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        if back != Some(value.as_str()) {
            return format!(
                "{name}={value} reads back as {}",
                back.map_or("its default".to_string(), |v| format!("{name}={v}"))
            );
        }
    }
    "a setting no job file option can write".into()
}

/// A job file's world in a pod: no includes, no environment variables, no machine facts.
struct NothingOutside;

impl Sources for NothingOutside {
    fn include(&self, _from: &str, _path: &str) -> Result<(String, String), IncludeError> {
        Err(IncludeError::NotFound)
    }

    fn var(&self, _name: &str) -> Option<String> {
        None
    }

    fn builtin(&self, _name: &str) -> Option<u64> {
        None
    }
}
