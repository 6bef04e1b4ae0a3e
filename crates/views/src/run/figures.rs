//! The headline figures of one step, summed over its jobs the way `diskmeter show` sums them
//! (IOPS and bandwidth per direction, IO-weighted mean latency, the largest listed p99), and
//! the number formats every view of a run shares.

use diskmeter_report::format::latency_unit;
use diskmeter_report::{JobResult, RunResult};

/// Bytes in a MiB: bandwidths are shown in MiB/s, as `diskmeter show` does.
pub(crate) const MIB: f64 = (1u64 << 20) as f64;

/// A step's figures, reads and writes of all its jobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StepFigures {
    /// Reads per second.
    pub read_iops: f64,
    /// Read bandwidth, bytes per second.
    pub read_bytes_per_sec: f64,
    /// Writes per second.
    pub write_iops: f64,
    /// Write bandwidth, bytes per second.
    pub write_bytes_per_sec: f64,
    /// Reads and writes done (the directions' `ios`).
    pub ios: u64,
    /// Mean total latency (issue to completion) of every IO, ns; `None` without IOs.
    pub lat_mean_ns: Option<f64>,
    /// The largest completion-latency p99 any job listed, ns; `None` when no job listed a
    /// p99 (its `percentile_list` left it out) or nothing completed.
    pub clat_p99_ns: Option<u64>,
}

impl StepFigures {
    /// The figures of `result`.
    pub fn of(result: &RunResult) -> StepFigures {
        let sum = |f: &dyn Fn(&JobResult) -> f64| -> f64 { result.jobs.iter().map(f).sum() };
        let lat_ios = sum(&|j| (j.read.lat.count + j.write.lat.count) as f64);
        let lat_mean_ns = (lat_ios > 0.0).then(|| {
            sum(&|j| {
                j.read.lat.mean_ns * j.read.lat.count as f64
                    + j.write.lat.mean_ns * j.write.lat.count as f64
            }) / lat_ios
        });
        StepFigures {
            read_iops: sum(&|j| j.read.iops),
            read_bytes_per_sec: sum(&|j| j.read.bw_bytes_per_sec),
            write_iops: sum(&|j| j.write.iops),
            write_bytes_per_sec: sum(&|j| j.write.bw_bytes_per_sec),
            ios: result.jobs.iter().map(|j| j.read.ios + j.write.ios).sum(),
            lat_mean_ns,
            clat_p99_ns: result
                .jobs
                .iter()
                .flat_map(|j| [&j.read.clat, &j.write.clat])
                .filter_map(|l| l.percentile(99.0))
                .max(),
        }
    }

    /// Whether any job read.
    pub fn reads(&self) -> bool {
        self.read_iops > 0.0 || self.read_bytes_per_sec > 0.0
    }

    /// Whether any job wrote.
    pub fn writes(&self) -> bool {
        self.write_iops > 0.0 || self.write_bytes_per_sec > 0.0
    }

    /// "2,800 read IOPS (10.9 MiB/s), 1,200 write IOPS (4.7 MiB/s)": the directions that did
    /// IO; "no IO completed" when none did.
    pub fn headline(&self) -> String {
        let mut parts = Vec::new();
        if self.reads() {
            parts.push(format!(
                "{} read IOPS ({:.1} MiB/s)",
                diskmeter_report::format::iops(self.read_iops),
                self.read_bytes_per_sec / MIB
            ));
        }
        if self.writes() {
            parts.push(format!(
                "{} write IOPS ({:.1} MiB/s)",
                diskmeter_report::format::iops(self.write_iops),
                self.write_bytes_per_sec / MIB
            ));
        }
        if parts.is_empty() {
            return "no IO completed".to_string();
        }
        let mut line = parts.join(", ");
        if let Some(mean) = self.lat_mean_ns {
            line.push_str(&format!(", mean latency {}", latency_text(mean)));
        }
        if let Some(p99) = self.clat_p99_ns {
            line.push_str(&format!(", p99 {}", latency_text(p99 as f64)));
        }
        line
    }
}

/// A latency in the unit that keeps it under 10,000 of it, as the terminal view prints
/// latencies: "182.40 usec", "1.85 msec", "950 nsec".
pub(crate) fn latency_text(ns: f64) -> String {
    let (unit, scale) = latency_unit(ns);
    if scale == 1.0 {
        format!("{ns:.0} {unit}")
    } else {
        format!("{:.2} {unit}", ns / scale)
    }
}
