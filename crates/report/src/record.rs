//! A job's workload as the result schema records it: its resolved options as fio option
//! strings ([`JobOption`]) and the typed facts the views print ([`JobWorkload`]), both made
//! from the internal `JobSpec` once, when the result is built.

use diskmeter_workload::patterns::show_spread;
use diskmeter_workload::{BlockSizeSpread, Direction, JobSpec};

use crate::schema::{JobOption, JobWorkload};

impl JobOption {
    /// The job's resolved options ([`diskmeter_workload::describe`]): every option that
    /// differs from fio's default plus the ones every reader wants, in option-table order.
    pub fn list_of(spec: &JobSpec) -> Vec<JobOption> {
        diskmeter_workload::describe(spec)
            .into_iter()
            .map(|(name, value)| JobOption { name, value })
            .collect()
    }

    /// Options as typed ([`diskmeter_workload::GivenOptions`]), in their order.
    pub fn list_from(typed: &[(String, String)]) -> Vec<JobOption> {
        typed
            .iter()
            .map(|(name, value)| JobOption {
                name: name.clone(),
                value: value.clone(),
            })
            .collect()
    }
}

impl JobWorkload {
    /// The typed facts of `spec` that the views print.
    pub fn of(spec: &JobSpec) -> JobWorkload {
        let spread = |direction: Direction| match spec.bs_spread.get_ref(direction) {
            BlockSizeSpread::Fixed => None,
            spread => Some(show_spread(spread, spec.kb_base)),
        };
        JobWorkload {
            rw: spec.rw.as_str().to_string(),
            bs_read_bytes: spec.bs_bytes.read,
            bs_write_bytes: spec.bs_bytes.write,
            bs_read_spread: spread(Direction::Read),
            bs_write_spread: spread(Direction::Write),
            ioengine: spec.ioengine.as_str().to_string(),
            iodepth: spec.iodepth,
            clat_percentiles: spec.clat_percentiles,
            lat_percentiles: spec.lat_percentiles,
            rate_iops: [
                spec.rate_iops.read.unwrap_or(0),
                spec.rate_iops.write.unwrap_or(0),
            ],
            rate_bytes_per_sec: [
                spec.rate_bytes_per_sec.read.unwrap_or(0),
                spec.rate_bytes_per_sec.write.unwrap_or(0),
            ],
        }
    }
}

/// The jobs of `result` as a fio job file: one `[name]` section of `key=value` lines per job.
/// Clones reported one by one (no `group_reporting`) share their options, so the first clone
/// stands for its job and running the file again starts the same workers.
pub fn to_job_file(result: &crate::RunResult) -> String {
    let mut text = String::new();
    for job in result
        .jobs
        .iter()
        .filter(|j| j.clone_index.unwrap_or(0) == 0)
    {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!("[{}]\n", job.name));
        for option in &job.options {
            text.push_str(&format!("{}={}\n", option.name, option.value));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{JobInput, RunInput, RunMeta, RunResult};
    use diskmeter_stats::WorkerStats;

    fn input(spec: &JobSpec, clone_index: u32) -> JobInput {
        JobInput {
            spec: spec.clone(),
            clone_index,
            group_id: 0,
            stats: WorkerStats::new(),
            error: None,
            targets: Vec::new(),
            steady_state: None,
        }
    }

    #[test]
    fn a_job_file_has_one_section_per_job_not_per_clone() {
        let mut spec = JobSpec::default();
        for (name, value) in [("name", "w"), ("rw", "randwrite"), ("numjobs", "2")] {
            diskmeter_workload::apply_option(&mut spec, name, Some(value)).unwrap();
        }
        let result = RunResult::build(RunInput {
            meta: RunMeta::for_tests(),
            jobs: vec![input(&spec, 0), input(&spec, 1)],
        });
        assert_eq!(result.jobs.len(), 2, "two clones reported one by one");
        assert_eq!(
            to_job_file(&result),
            "[w]\nname=w\nrw=randwrite\nbs=4k\niodepth=1\nnumjobs=2\nioengine=io_uring\n"
        );
    }
}
