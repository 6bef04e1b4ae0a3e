//! A sweep's IOPS-latency curve (`sweep --curve`) as steps: the one point of the grid it runs
//! at, its unpaced maximum first, then a paced step per share of the maximum, then the SLO's
//! bisection points, each chosen from the steps that ran ([`CurvePlan::next_steps`]; the
//! decisions are `diskmeter_analysis::curve`'s). Pure: the CLI hands the steps to the
//! orchestrator's adaptive run.
//!
//! **The point.** The curve runs at the first `--rw`, the first `--bs` and `--numjobs`, and
//! the *deepest* `--qd`: the maximum is the device's at that depth, and the paced points
//! below it never run short of slots for IOs that arrive late. With one value of each, that
//! is the point.
//!
//! **Pacing.** Each paced step is fio's `rate_iops` (an even schedule, `rate_process=linear`),
//! split over reads and writes by a mix's share, so every IO's latency is measured from its
//! intended issue time and a queue that builds up shows in it.

use crate::sweep::{job_of, Grid, Point, PointTiming};
use diskmeter_analysis::curve::{curve_step_name, next_bisect_rate, share_rate, Curve, CurveRole};
use diskmeter_analysis::verdict::Requirement;
use diskmeter_report::RunResult;
use diskmeter_workload::{apply_option_exact, JobSpec, OptionError};
use std::path::PathBuf;

/// The curve a sweep runs, with everything its steps' jobs need.
#[derive(Debug, Clone)]
pub struct CurvePlan {
    /// The point of the grid it runs at.
    pub point: Point,
    /// The shares of the maximum it paces at, percent, ascending.
    pub shares_percent: Vec<f64>,
    /// The SLO whose highest rate it searches, if any.
    pub slo: Option<Requirement>,
    /// The test file or device.
    pub target: PathBuf,
    /// Its size or region, if given.
    pub size: Option<u64>,
    /// How each step runs.
    pub timing: PointTiming,
}

impl CurvePlan {
    /// The curve of `grid` at its first pattern, block size and job count and its deepest
    /// queue depth.
    pub fn of(
        grid: &Grid,
        shares_percent: Vec<f64>,
        slo: Option<Requirement>,
        (target, size, timing): (PathBuf, Option<u64>, PointTiming),
    ) -> Option<CurvePlan> {
        let first = grid.points.first()?;
        let qd = grid.points.iter().map(|p| p.qd).max()?;
        let point = Point {
            qd,
            ..first.clone()
        };
        Some(CurvePlan {
            point,
            shares_percent,
            slo,
            target,
            size,
            timing,
        })
    }

    /// The run's name in the history: `randread curve`, `randread curve --slo lat-p99=2ms`
    /// (the SLO is read back from it by `analyze` and the report).
    pub fn run_name(&self) -> String {
        match &self.slo {
            Some(slo) => format!(
                "{} curve --slo {}={}ms",
                self.point.rw,
                slo.measure.key(),
                slo.threshold
            ),
            None => format!("{} curve", self.point.rw),
        }
    }

    /// The first step: the unpaced maximum.
    pub fn first_step(&self) -> Result<(String, JobSpec), OptionError> {
        Ok((curve_step_name(CurveRole::Max, 0), self.job(None)?))
    }

    /// The steps to run after `done` (every step so far, name and result): the shares once
    /// the maximum ran whole, then one bisection point at a time while the SLO's bracket is
    /// wider than 2 %; none when the curve is complete (or its maximum is not known).
    pub fn next_steps<'a>(
        &self,
        done: impl IntoIterator<Item = (&'a str, &'a RunResult)>,
    ) -> Result<Vec<(String, JobSpec)>, OptionError> {
        let curve = Curve::of(done, self.slo.as_ref());
        let Some(max_iops) = curve.max_iops.filter(|&m| m >= 1.0) else {
            return Ok(Vec::new());
        };
        if curve.points.iter().all(|p| p.role == CurveRole::Max) {
            return self
                .shares_percent
                .iter()
                .map(|&share| {
                    let rate = share_rate(max_iops, share);
                    let name = curve_step_name(CurveRole::Share(share), rate);
                    Ok((name, self.job(Some(rate))?))
                })
                .collect();
        }
        if self.slo.is_none() {
            return Ok(Vec::new());
        }
        match next_bisect_rate(&curve.decided(), curve.bisected()) {
            Some(rate) => Ok(vec![(
                curve_step_name(CurveRole::Bisect, rate),
                self.job(Some(rate))?,
            )]),
            None => Ok(Vec::new()),
        }
    }

    /// The point's job, paced at `rate_iops` in all when given (fio's `rate_iops` is each
    /// job clone's: the rate is split over `numjobs`).
    fn job(&self, rate_iops: Option<u64>) -> Result<JobSpec, OptionError> {
        let mut job = job_of(&self.point, &self.target, self.size, &self.timing)?;
        if let Some(rate) = rate_iops {
            let rate = rate.div_ceil(u64::from(self.point.numjobs.max(1)));
            let rate = match (job.rw.reads(), job.rw.writes()) {
                (true, true) => {
                    // fio's rate_iops paces each direction: split the rate by the mix.
                    let reads = (rate * u64::from(job.rwmixread)).div_ceil(100);
                    format!("{},{}", reads.max(1), rate.saturating_sub(reads).max(1))
                }
                _ => rate.to_string(),
            };
            apply_option_exact(&mut job, "rate_iops", Some(&rate))?;
        }
        Ok(job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(qd: &str, rw: &str) -> CurvePlan {
        let grid = Grid::parse(qd, "1", "4k,64k", rw).unwrap();
        let timing = PointTiming {
            ioengine: "null".into(),
            point_time: "1s".into(),
            point_max: "3s".into(),
            ramp: "0".into(),
        };
        CurvePlan::of(&grid, vec![50.0, 100.0], None, ("f".into(), None, timing)).unwrap()
    }

    #[test]
    fn the_curve_runs_at_the_first_size_and_the_deepest_queue() {
        let plan = plan("1,32,8", "randread,write");
        assert_eq!(plan.point.step_name(), "randread 4k QD32 x1");
        let (name, job) = plan.first_step().unwrap();
        assert_eq!(name, "curve max");
        assert_eq!(job.rate_iops.read, None);
    }

    #[test]
    fn nothing_follows_a_maximum_that_did_not_run() {
        assert!(plan("8", "randread").next_steps([]).unwrap().is_empty());
    }

    #[test]
    fn a_mix_is_paced_in_each_direction_by_its_share() {
        let job = plan("8", "randrw:70").job(Some(1000)).unwrap();
        assert_eq!(
            (job.rate_iops.read, job.rate_iops.write),
            (Some(700), Some(300))
        );
        let read = plan("8", "randread").job(Some(1000)).unwrap();
        assert_eq!(read.rate_iops.read, Some(1000));
    }
}
