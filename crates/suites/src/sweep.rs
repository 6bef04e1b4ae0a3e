//! The sweep's grid: the lists the user gives (`--qd`, `--bs`, `--rw`, `--numjobs`) and
//! the job of each point.

use clap::ArgMatches;
use diskmeter_workload::{apply_option_exact, AutoStop, JobSpec};
use std::path::Path;

/// One point of the grid.
#[derive(Debug, Clone)]
pub(super) struct Point {
    /// The pattern as given ("randread", "randrw:70").
    pub rw: String,
    /// The block size as given ("4k").
    pub bs: String,
    /// Queue depth per job.
    pub qd: u32,
    /// Jobs.
    pub numjobs: u32,
}

/// The comma-separated list of option `name`, trimmed, blanks dropped.
pub(super) fn list(matches: &ArgMatches, name: &str) -> Vec<String> {
    matches
        .get_one::<String>(name)
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The job of one point.
pub(super) fn job_of(
    point: &Point,
    target: &Path,
    size: Option<u64>,
    matches: &ArgMatches,
) -> Result<JobSpec, String> {
    let (rw, mix) = match point.rw.split_once(':') {
        Some(("randrw", mix)) => ("randrw".to_string(), Some(mix.to_string())),
        _ => (point.rw.clone(), None),
    };
    let engine = matches
        .get_one::<String>("ioengine")
        .cloned()
        .unwrap_or_default();
    let point_time = matches
        .get_one::<String>("point-time")
        .cloned()
        .unwrap_or_default();
    let auto_stop = point_time == "auto";
    let runtime = if auto_stop {
        matches
            .get_one::<String>("point-max")
            .cloned()
            .unwrap_or_default()
    } else {
        point_time
    };
    let mut options: Vec<(&str, String)> = vec![
        (
            "name",
            format!(
                "sweep-{}-{}-qd{}-j{}",
                point.rw.replace(':', ""),
                point.bs,
                point.qd,
                point.numjobs
            ),
        ),
        ("filename", target.display().to_string().replace(':', "\\:")),
        ("rw", rw),
        ("bs", point.bs.clone()),
        ("iodepth", point.qd.to_string()),
        ("numjobs", point.numjobs.to_string()),
        ("group_reporting", "1".into()),
        ("ioengine", engine.clone()),
        ("runtime", runtime),
        (
            "ramp_time",
            matches
                .get_one::<String>("ramp")
                .cloned()
                .unwrap_or_default(),
        ),
        ("time_based", "1".into()),
        ("unlink", "0".into()),
    ];
    if engine != "null" {
        options.push(("direct", "1".into()));
    }
    if let Some(mix) = mix {
        options.push(("rwmixread", mix));
    }
    if let Some(size) = size {
        options.push(("size", size.to_string()));
    }
    let mut job = JobSpec::default();
    for (name, value) in options {
        apply_option_exact(&mut job, name, Some(&value)).map_err(|e| e.to_string())?;
    }
    if auto_stop {
        let max = job.runtime_ns.unwrap_or_default();
        job = job.with_auto_stop(AutoStop::sweep_point(max));
    }
    Ok(job)
}
