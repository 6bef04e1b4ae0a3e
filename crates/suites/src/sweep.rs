//! A sweep's grid: every combination of the lists the user gives (`--rw`, `--numjobs`,
//! `--bs`, `--qd`) as a point, and the job of each point. Pure, like the named suites: the
//! CLI reads the lists and runs one step per point.

use diskmeter_analysis::point_step_name;
use diskmeter_workload::{apply_option_exact, AutoStop, JobSpec, OptionError};
use std::path::Path;

/// One point of the grid.
#[derive(Debug, Clone)]
pub struct Point {
    /// The pattern as given ("randread", "randrw:70").
    pub rw: String,
    /// The block size as given ("4k").
    pub bs: String,
    /// Queue depth per job.
    pub qd: u32,
    /// Jobs.
    pub numjobs: u32,
}

/// How every point runs, as the user gave it (fio's syntax: the job parser reads them).
#[derive(Debug, Clone, Default)]
pub struct PointTiming {
    /// `--ioengine`.
    pub ioengine: String,
    /// `--point-time`: a time, or "auto" (steady state, at most `point_max`).
    pub point_time: String,
    /// `--point-max`: the longest an auto-stopped point runs.
    pub point_max: String,
    /// `--ramp`: unmeasured warm-up per point.
    pub ramp: String,
}

/// The grid in the order the points run: pattern, then jobs, then block size, then queue
/// depth (the innermost).
pub fn grid(
    patterns: &[String],
    numjobs: &[u32],
    block_sizes: &[String],
    qds: &[u32],
) -> Vec<Point> {
    let mut grid = Vec::new();
    for rw in patterns {
        for jobs in numjobs {
            for bs in block_sizes {
                for qd in qds {
                    grid.push(Point {
                        rw: rw.clone(),
                        bs: bs.clone(),
                        qd: *qd,
                        numjobs: *jobs,
                    });
                }
            }
        }
    }
    grid
}

impl Point {
    /// The point's step name in the history: "randread 4k QD32 x1".
    pub fn step_name(&self) -> String {
        point_step_name(&self.rw, &self.bs, self.qd, self.numjobs)
    }
}

/// The job of one point.
pub fn job_of(
    point: &Point,
    target: &Path,
    size: Option<u64>,
    timing: &PointTiming,
) -> Result<JobSpec, OptionError> {
    let (rw, mix) = match point.rw.split_once(':') {
        Some(("randrw", mix)) => ("randrw".to_string(), Some(mix.to_string())),
        _ => (point.rw.clone(), None),
    };
    let engine = timing.ioengine.clone();
    let auto_stop = timing.point_time == "auto";
    let runtime = if auto_stop {
        timing.point_max.clone()
    } else {
        timing.point_time.clone()
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
        ("ramp_time", timing.ramp.clone()),
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
        apply_option_exact(&mut job, name, Some(&value))?;
    }
    if auto_stop {
        let max = job.runtime_ns.unwrap_or_default();
        job = job.with_auto_stop(AutoStop::sweep_point(max));
    }
    Ok(job)
}
