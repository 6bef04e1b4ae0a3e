//! What `--dry-run` does with jobs that pass validation: the runner's plan (files, regions,
//! workers, rates, logs, placement), made in a folder of the campaign's own so that no job
//! names a real file. Planning reads metadata only; with every target renamed into an empty
//! folder it reads nothing of the machine's.
//!
//! The targets that make jobs (job files, DiskSpd, Iometer) hand them here after their own
//! checks. Promise checked: the plan's numbers are ones the dry run can print (a region's
//! end, start plus length, fits in 64 bits).

use crate::{refused, Verdict};
use diskmeter_runner::prepare::RunPlan;
use diskmeter_runner::PlanOptions;
use diskmeter_workload::JobSpec;
use std::path::{Path, PathBuf};

/// The most files a plan may have for the campaign to make it: the planner takes up to
/// `MAX_FILES_PER_RUN` (a million) and refuses more itself, but planning looks at each file,
/// so a campaign that planned every such input would spend its time on a few of them.
pub const MAX_PLANNED_FILES: u64 = 100_000;

/// The folder planned targets are renamed into (never created: planning only looks).
pub fn sandbox() -> PathBuf {
    std::env::temp_dir().join(format!("diskmeter-fuzz-dryrun-{}", std::process::id()))
}

/// `jobs` as the dry run plans them, with every path they name moved into `folder`.
fn sandboxed(jobs: &[JobSpec], folder: &Path) -> Vec<JobSpec> {
    jobs.iter()
        .enumerate()
        .map(|(j, job)| {
            let mut job = job.clone();
            job.filenames = (0..job.filenames.len())
                .map(|f| folder.join(format!("job{j}-file{f}")))
                .collect();
            job.directory = job.directory.as_ref().map(|_| folder.to_path_buf());
            job.files.opendir = None;
            job.iolog.read_iolog = None;
            // A job that names its files and no size uses them as they are (DiskSpd's usual
            // way): planned as if each held 1 GiB, since the renamed ones do not exist.
            if !job.filenames.is_empty()
                && job.size_bytes.is_none()
                && job.filesize_bytes.is_none()
                && job.size_percent.is_none()
            {
                job.size_bytes = Some(1 << 30);
            }
            job
        })
        .collect()
}

/// Plans `jobs` (already validated) as `--dry-run` would, and checks the plan's figures.
pub fn plan(jobs: &[JobSpec]) -> Verdict {
    let files: u64 = jobs
        .iter()
        .map(|j| {
            let per_worker = match j.filenames.len() {
                0 => u64::from(j.nrfiles.max(1)),
                named => named as u64,
            };
            per_worker.saturating_mul(u64::from(j.numjobs))
        })
        .fold(0, u64::saturating_add);
    if files > MAX_PLANNED_FILES {
        return Verdict::Accepted;
    }
    let folder = sandbox();
    let options = PlanOptions {
        default_directory: Some(folder.clone()),
        ..PlanOptions::default()
    };
    let plan: RunPlan = match diskmeter_runner::resolve(&sandboxed(jobs, &folder), &options) {
        Ok(plan) => plan,
        Err(e) => return refused(e.to_string()),
    };
    for target in &plan.targets {
        if target
            .region_start_bytes
            .checked_add(target.region_len_bytes)
            .is_none()
        {
            return Verdict::Broken(format!(
                "{}: the region {} + {} bytes ends past 2^64 (the dry run prints the end)",
                target.path.display(),
                target.region_start_bytes,
                target.region_len_bytes
            ));
        }
    }
    let _ = serde_json_len(&plan);
    Verdict::Accepted
}

/// The plan as the JSON it is (a plan serialises; a NaN or an unprintable field would show).
fn serde_json_len(plan: &RunPlan) -> usize {
    serde_json::to_string(plan).map_or(0, |text| text.len())
}
