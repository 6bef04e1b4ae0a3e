//! A run of access specifications as the orchestrator's steps: the specifications named on
//! the command line made into scenario rows on one target, and scenario rows (given or from a
//! table) grouped into named steps of jobs, rows that run together in one step.

use super::{builtin_specs, parse_spec, step_jobs, steps_of, IometerError, Scenario};
use diskmeter_workload::JobSpec;

/// What every row of the specifications given on the command line shares.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecSettings {
    /// The target: a folder (gets `iobw.tst`), a file or a block device.
    pub target: String,
    /// Measured time per specification, ns.
    pub duration_ns: u64,
    /// Ramp-up time per specification, ns.
    pub ramp_ns: u64,
    /// Workers on the target.
    pub workers: u32,
    /// Outstanding IOs per worker.
    pub queue_depth: u32,
    /// Test file size when the target is a folder.
    pub file_size_bytes: u64,
}

impl SpecSettings {
    /// One scenario row per specification (`NAME:SIZE,RANDOM%,READ%` or a built-in name),
    /// in the order given, each running alone.
    pub fn scenarios(&self, specs: &[String]) -> Result<Vec<Scenario>, IometerError> {
        let known = builtin_specs();
        specs
            .iter()
            .map(|text| {
                Ok(Scenario {
                    target: self.target.clone(),
                    spec: parse_spec(text, &known)?,
                    duration_ns: self.duration_ns,
                    ramp_ns: self.ramp_ns,
                    workers: self.workers,
                    queue_depth: self.queue_depth,
                    file_size_bytes: self.file_size_bytes,
                    together: None,
                })
            })
            .collect()
    }
}

/// A step of the run: the specifications that run together in it.
#[derive(Debug, Clone)]
pub struct SpecStep {
    /// Their names joined with ` + `.
    pub name: String,
    /// Their targets joined with ` + `.
    pub targets: String,
    /// Their jobs, row after row (see [`step_jobs`]).
    pub jobs: Vec<JobSpec>,
}

/// The rows' steps (see [`steps_of`]), in order; `is_dir` says whether a target is a folder.
pub fn spec_steps(
    rows: &[Scenario],
    is_dir: impl Fn(&str) -> bool,
) -> Result<Vec<SpecStep>, IometerError> {
    let joined = |group: &[usize], field: fn(&Scenario) -> &str| {
        let parts: Vec<&str> = group.iter().map(|&i| field(&rows[i])).collect();
        parts.join(" + ")
    };
    steps_of(rows)
        .iter()
        .map(|group| {
            Ok(SpecStep {
                name: joined(group, |row| &row.spec.name),
                targets: joined(group, |row| &row.target),
                jobs: step_jobs(rows, group, &is_dir)?,
            })
        })
        .collect()
}

/// The run's name in the history: the rows' specification names, comma-separated.
pub fn run_name(rows: &[Scenario]) -> String {
    let names: Vec<&str> = rows.iter().map(|row| row.spec.name.as_str()).collect();
    names.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifications_given_on_the_command_line_are_steps_of_their_own_in_order() {
        let settings = SpecSettings {
            target: "/dev/x".into(),
            duration_ns: 1_000_000_000,
            ramp_ns: 0,
            workers: 3,
            queue_depth: 128,
            file_size_bytes: 1 << 30,
        };
        let specs = ["RandomReads_8K".to_string(), "OLTP:8k,100,70".to_string()];
        let rows = settings.scenarios(&specs).unwrap();
        let steps = spec_steps(&rows, |_| false).unwrap();
        let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["RandomReads_8K", "OLTP"]);
        assert_eq!(
            (steps[0].targets.as_str(), steps[0].jobs.len()),
            ("/dev/x", 1)
        );
        assert_eq!(run_name(&rows), "RandomReads_8K,OLTP");
        assert!(settings.scenarios(&["Nope".to_string()]).is_err());
    }
}
