//! The ranks of a merge must have run the same workload: the same jobs, in the same order,
//! with the same options, except those that name host-specific things.

use std::collections::BTreeMap;

use super::{MergeError, OptionDifference, Rank};
use crate::schema::{JobResult, RunResult};

/// Options that may differ between ranks: where each rank's files are (`filename`,
/// `directory`, `filename_format` with `$rank` or `$hostname`), where its region of a shared
/// file starts (`offset`), which CPUs and memory nodes of its host it uses, the paths of its
/// logs, and the commands it runs before and after.
pub const HOST_SPECIFIC_OPTIONS: &[&str] = &[
    "filename",
    "directory",
    "filename_format",
    "offset",
    "cpus_allowed",
    "cpus_allowed_policy",
    "cpumask",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "sqthread_poll_cpu",
    "gtod_cpu",
    "verify_async_cpus",
    "write_bw_log",
    "write_iops_log",
    "write_lat_log",
    "write_hist_log",
    "write_iolog",
    "exec_prerun",
    "exec_postrun",
    "description",
];

/// Refuses inputs whose job lists or job options differ from the first rank's.
pub(crate) fn check_same_workload(order: &[Rank], inputs: &[RunResult]) -> Result<(), MergeError> {
    let (first_rank, first) = (&order[0], &inputs[0]);
    let first_options: Vec<BTreeMap<&str, &str>> = first.jobs.iter().map(options_of).collect();
    for (rank, result) in order.iter().zip(inputs).skip(1) {
        let differ = |detail: String| MergeError::JobsDiffer {
            input: rank.input,
            rank: rank.label.clone(),
            first: first_rank.label.clone(),
            detail,
        };
        if result.jobs.len() != first.jobs.len() {
            return Err(differ(format!(
                "{} reported jobs ({}) against {} ({})",
                result.jobs.len(),
                names(result),
                first.jobs.len(),
                names(first)
            )));
        }
        for (position, (job, first_job)) in result.jobs.iter().zip(&first.jobs).enumerate() {
            if job.name != first_job.name || job.group_id != first_job.group_id {
                return Err(differ(format!(
                    "job {} is {} in group {} against {} in group {}",
                    position + 1,
                    job.name,
                    job.group_id,
                    first_job.name,
                    first_job.group_id
                )));
            }
            if job.workers != first_job.workers || job.clone_index != first_job.clone_index {
                return Err(differ(format!(
                    "job {} reports {} worker(s) against {}",
                    job.name, job.workers, first_job.workers
                )));
            }
            let options = options_of(job);
            let mine = &first_options[position];
            let names: std::collections::BTreeSet<&str> =
                options.keys().chain(mine.keys()).copied().collect();
            for name in names {
                if HOST_SPECIFIC_OPTIONS.contains(&name) {
                    continue;
                }
                let (value, first_value) = (options.get(name), mine.get(name));
                if value != first_value {
                    let shown =
                        |v: Option<&&str>| v.map_or("(not set)".to_string(), |v| v.to_string());
                    return Err(MergeError::OptionDiffers(Box::new(OptionDifference {
                        input: rank.input,
                        rank: rank.label.clone(),
                        first: first_rank.label.clone(),
                        job: job.name.clone(),
                        option: name.to_string(),
                        value: shown(value),
                        first_value: shown(first_value),
                    })));
                }
            }
        }
    }
    Ok(())
}

/// A job's options by name (the last value of an option given twice, as fio applies them).
fn options_of(job: &JobResult) -> BTreeMap<&str, &str> {
    job.options
        .iter()
        .map(|o| (o.name.as_str(), o.value.as_str()))
        .collect()
}

/// "a, b, c": the reported jobs' names.
fn names(result: &RunResult) -> String {
    let names: Vec<&str> = result.jobs.iter().map(|j| j.name.as_str()).collect();
    names.join(", ")
}
