//! A sweep's points from its stored steps: each step is one point, named
//! "randread 4k QD32 x1" ([`point_step_name`]), whose result gives the point's figures
//! ([`sweep_point`]). `diskmeter sweep` names the steps; `diskmeter analyze` and the
//! report's sweep section read them back with [`points_of_steps`], so the name's format
//! lives here, next to its parser.
//!
//! A step that was interrupted or stopped on an error ([`RunResult::partial_reason`]) is
//! never a point: its figures cover only part of the time, or a device that failed under
//! it. It is kept aside as a [`PartialPoint`], with why, so every view can say which points
//! were left out of the analysis.

use crate::SweepPoint;
use diskmeter_report::RunResult;
use diskmeter_units::{parse_size, KbBase};
use serde::{Deserialize, Serialize};

/// A stored step that is not a sweep point: its name is not "PATTERN BS QDn xJOBS".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("step '{step}' is not a sweep point")]
pub struct NotASweepPoint {
    /// The step's name.
    pub step: String,
}

/// A sweep point's step name: the pattern first ("randread 4k QD32 x1"), because
/// [`points_of_steps`] groups the steps by it.
pub fn point_step_name(rw: &str, bs: &str, qd_per_job: u32, numjobs: u32) -> String {
    format!("{rw} {bs} QD{qd_per_job} x{numjobs}")
}

/// The figures of one point's result, summed over its jobs: IOPS and bytes/s added, the
/// mean latency weighted by IOs, the p99 the worst job's (percentiles of several jobs do not
/// combine; the worst is what the application would see).
pub fn sweep_point(result: &RunResult, bs_bytes: u64, qd: u32) -> SweepPoint {
    let (mut iops, mut bytes, mut lat_weighted, mut p99, mut ios) = (0.0, 0.0, 0.0, 0.0f64, 0u64);
    for job in &result.jobs {
        for d in [&job.read, &job.write] {
            iops += d.iops;
            bytes += d.bw_bytes_per_sec;
            lat_weighted += d.lat.mean_ns * d.ios as f64;
            ios += d.ios;
            if let Some(ns) = d.lat.percentile(99.0) {
                p99 = p99.max(ns as f64);
            }
        }
    }
    SweepPoint {
        bs_bytes,
        qd,
        iops,
        bytes_per_sec: bytes,
        lat_mean_ns: if ios > 0 {
            lat_weighted / ios as f64
        } else {
            0.0
        },
        lat_p99_ns: p99,
    }
}

/// A point of the grid that ran but is not whole, left out of the analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartialPoint {
    /// The step's name ("randread 4k QD8 x1").
    pub step: String,
    /// Block size, bytes.
    pub bs_bytes: u64,
    /// IOs kept in flight in all (iodepth x numjobs).
    pub qd: u32,
    /// IOs per second over the part that ran: shown, never analysed.
    pub iops: f64,
    /// Why it is partial ([`RunResult::partial_reason`]).
    pub reason: String,
}

/// One pattern's points: the whole ones, which the analysis takes, and the partial ones,
/// which it lists and leaves out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointGroup {
    /// The pattern ("randread", "randrw:70").
    pub rw: String,
    /// The whole points, in the steps' order.
    pub points: Vec<SweepPoint>,
    /// The partial points, in the steps' order.
    pub partial: Vec<PartialPoint>,
}

impl PointGroup {
    /// A group of whole points only.
    pub fn whole(rw: impl Into<String>, points: Vec<SweepPoint>) -> PointGroup {
        PointGroup {
            rw: rw.into(),
            points,
            partial: Vec::new(),
        }
    }

    /// Adds the point of step `name` (of `result`, `bs_bytes`, `qd` IOs in flight): to the
    /// whole points, or to the partial ones when [`RunResult::partial_reason`] finds a reason.
    pub fn add(&mut self, name: &str, result: &RunResult, bs_bytes: u64, qd: u32) {
        let point = sweep_point(result, bs_bytes, qd);
        match result.partial_reason() {
            None => self.points.push(point),
            Some(reason) => self.partial.push(PartialPoint {
                step: name.to_string(),
                bs_bytes,
                qd,
                iops: point.iops,
                reason,
            }),
        }
    }
}

/// (pattern, block size in bytes, IOs in flight in all) of a [`point_step_name`].
fn parse_step_name(name: &str) -> Option<(String, u64, u32)> {
    let parts: Vec<&str> = name.split(' ').collect();
    let [rw, bs, qd, jobs] = parts.as_slice() else {
        return None;
    };
    let bs_bytes = parse_size(bs, KbBase::Binary).ok()?;
    let qd: u32 = qd.strip_prefix("QD")?.parse().ok()?;
    let jobs: u32 = jobs.strip_prefix('x')?.parse().ok()?;
    Some((rw.to_string(), bs_bytes, qd * jobs))
}

/// A sweep's points rebuilt from its steps (name, result), grouped by pattern in the order
/// the patterns first appear; the points keep the steps' order, and partial steps are kept
/// apart ([`PointGroup::partial`]).
pub fn points_of_steps<'a>(
    steps: impl IntoIterator<Item = (&'a str, &'a RunResult)>,
) -> Result<Vec<PointGroup>, NotASweepPoint> {
    let mut groups: Vec<PointGroup> = Vec::new();
    for (name, result) in steps {
        let Some((rw, bs_bytes, qd)) = parse_step_name(name) else {
            return Err(NotASweepPoint {
                step: name.to_string(),
            });
        };
        let index = match groups.iter().position(|g| g.rw == rw) {
            Some(index) => index,
            None => {
                groups.push(PointGroup::whole(rw, Vec::new()));
                groups.len() - 1
            }
        };
        groups[index].add(name, result, bs_bytes, qd);
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_name_parses_back_to_its_pattern_size_and_queue() {
        let name = point_step_name("randrw:70", "64k", 8, 2);
        assert_eq!(name, "randrw:70 64k QD8 x2");
        assert_eq!(
            parse_step_name(&name),
            Some(("randrw:70".to_string(), 65536, 16))
        );
    }

    #[test]
    fn a_suite_step_is_not_a_sweep_point() {
        assert_eq!(parse_step_name("SEQ1M Q8T1 read"), None);
        assert_eq!(parse_step_name("randread 4k Q8 x1"), None);
    }
}
