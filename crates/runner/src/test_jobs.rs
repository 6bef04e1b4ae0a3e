//! Jobs for the unit tests: fio's defaults plus the options a test names.

use diskmeter_workload::{apply_option, JobSpec};

/// `JobSpec::default()` with `options` applied in order; panics on a bad option (a test bug).
pub(crate) fn job(options: &[(&str, &str)]) -> JobSpec {
    let mut job = JobSpec::default();
    for (name, value) in options {
        apply_option(&mut job, name, Some(value)).unwrap();
    }
    job
}
