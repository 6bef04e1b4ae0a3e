//! A sweep's grid: every combination of the lists the user gives (`--rw`, `--numjobs`,
//! `--bs`, `--qd`) as a point, and the job of each point. Pure, like the named suites: the
//! CLI reads the lists and runs one step per point.

use diskmeter_analysis::{point_step_name, PointGroup};
use diskmeter_report::RunResult;
use diskmeter_units::{parse_size, KbBase};
use diskmeter_workload::{apply_option_exact, AutoStop, JobSpec, OptionError};
use std::path::Path;
use thiserror::Error;

/// A sweep's grid as the user gave it: the lists read, and every point.
#[derive(Debug, Clone)]
pub struct Grid {
    /// The patterns, in order (`--rw`).
    pub patterns: Vec<String>,
    /// The block sizes as given ("4k"), with their bytes (`--bs`).
    pub block_sizes: Vec<(String, u64)>,
    /// Every point, in the order they run ([`grid`]).
    pub points: Vec<Point>,
}

/// A list of the grid that cannot be read, as the user wrote it: "--qd x: invalid digit
/// found in string".
#[derive(Debug, Clone, PartialEq, Error)]
#[error("--{option} {value}: {reason}")]
pub struct GridError {
    /// The option ("qd", "numjobs", "bs").
    pub option: &'static str,
    /// The item of its list that is wrong.
    pub value: String,
    /// Why.
    pub reason: String,
}

/// The items of a comma-separated list, trimmed, blanks dropped.
fn list(text: &str) -> Vec<String> {
    text.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

impl Grid {
    /// The grid of the comma-separated lists of queue depths, jobs, block sizes and
    /// patterns (read in that order: the first list that is wrong is the error).
    pub fn parse(qd: &str, numjobs: &str, bs: &str, rw: &str) -> Result<Grid, GridError> {
        let error = |option, value: &str, reason: String| GridError {
            option,
            value: value.to_string(),
            reason,
        };
        let numbers = |option, text| -> Result<Vec<u32>, GridError> {
            list(text)
                .iter()
                .map(|q| q.parse().map_err(|e| error(option, q, format!("{e}"))))
                .collect()
        };
        let (qds, jobs) = (numbers("qd", qd)?, numbers("numjobs", numjobs)?);
        let block_sizes = list(bs)
            .into_iter()
            .map(|bs| match parse_size(&bs, KbBase::Binary) {
                Ok(bytes) => Ok((bs, bytes)),
                Err(e) => Err(error("bs", &bs, e.to_string())),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let patterns = list(rw);
        let names: Vec<String> = block_sizes.iter().map(|(bs, _)| bs.clone()).collect();
        let points = grid(&patterns, &jobs, &names, &qds);
        Ok(Grid {
            patterns,
            block_sizes,
            points,
        })
    }

    /// Each point's step name and job ([`job_of`]), in the order they run.
    pub fn jobs(
        &self,
        target: &Path,
        size: Option<u64>,
        timing: &PointTiming,
    ) -> Result<Vec<(String, JobSpec)>, OptionError> {
        let job = |point: &Point| Ok((point.step_name(), job_of(point, target, size, timing)?));
        self.points.iter().map(job).collect()
    }

    /// Each pattern's points, whole or partial, from the steps that ran: `(index of the
    /// point in the grid, step name, result)`; a point's IOs in flight are its queue depth
    /// times its jobs.
    pub fn groups<'a, I>(&self, steps: I) -> Vec<PointGroup>
    where
        I: Iterator<Item = (usize, &'a str, &'a RunResult)> + Clone,
    {
        let bytes_of = |bs: &str| {
            self.block_sizes
                .iter()
                .find(|(b, _)| b == bs)
                .map_or(0, |(_, v)| *v)
        };
        let group_of = |rw: &String| {
            let mut group = PointGroup::whole(rw.clone(), Vec::new());
            for (index, name, result) in steps.clone() {
                let point = &self.points[index];
                if &point.rw == rw {
                    let qd = point.qd * point.numjobs;
                    group.add(name, result, bytes_of(&point.bs), qd);
                }
            }
            group
        };
        self.patterns.iter().map(group_of).collect()
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_make_the_grid_and_the_first_wrong_item_is_named() {
        let grid = Grid::parse("1, 4,", "1", "4k,1m", "randread,randrw:70").unwrap();
        assert_eq!(grid.patterns, ["randread", "randrw:70"]);
        assert_eq!(
            grid.block_sizes,
            [("4k".into(), 4096), ("1m".into(), 1 << 20)]
        );
        assert_eq!(grid.points.len(), 2 * 2 * 2);
        assert_eq!(grid.points[1].step_name(), "randread 4k QD4 x1");
        let error = Grid::parse("1,x", "y", "4k", "read").unwrap_err();
        assert_eq!(error.option, "qd");
        assert!(error.to_string().starts_with("--qd x: "), "{error}");
        let error = Grid::parse("1", "1", "4q", "read").unwrap_err();
        assert!(error.to_string().starts_with("--bs 4q: "), "{error}");
    }

    #[test]
    fn no_step_ran_gives_empty_groups_per_pattern() {
        let grid = Grid::parse("1", "1", "4k", "read,write").unwrap();
        let groups = grid.groups(std::iter::empty());
        assert_eq!(groups.len(), 2);
        assert!(groups
            .iter()
            .all(|g| g.points.is_empty() && g.partial.is_empty()));
    }
}
