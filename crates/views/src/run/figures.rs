//! The headline figures of one step, summed over its jobs the way `diskmeter show` sums them
//! (IOPS and bandwidth per direction, IO-weighted mean latency, the largest listed p99, on
//! the intended clock for a paced or replayed step: [`RunResult::headline_latency`]), and the
//! number formats every view of a run shares.

use diskmeter_report::{HeadlineLatency, JobResult, LatencyClock, RunResult};
use diskmeter_units::{format_duration, MIB_F64};

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
    /// Mean latency of every IO, ns, on [`StepFigures::latency`]'s clock; `None` without IOs
    /// or when not known.
    pub lat_mean_ns: Option<f64>,
    /// The largest p99 any job listed, ns (completion latency, or intended-time latency for a
    /// paced step); `None` when no job listed a p99, nothing completed or it is not known.
    pub p99_ns: Option<u64>,
    /// The clock of the two latencies, and whether they are not known
    /// ([`RunResult::headline_latency`]).
    pub latency: HeadlineLatency,
}

impl StepFigures {
    /// The figures of `result`.
    pub fn of(result: &RunResult) -> StepFigures {
        let sum = |f: &dyn Fn(&JobResult) -> f64| -> f64 { result.jobs.iter().map(f).sum() };
        let latency = result.headline_latency();
        StepFigures {
            read_iops: sum(&|j| j.read.iops),
            read_bytes_per_sec: sum(&|j| j.read.bw_bytes_per_sec),
            write_iops: sum(&|j| j.write.iops),
            write_bytes_per_sec: sum(&|j| j.write.bw_bytes_per_sec),
            ios: result.jobs.iter().map(|j| j.read.ios + j.write.ios).sum(),
            lat_mean_ns: latency.mean_ns,
            p99_ns: latency.p99_ns,
            latency,
        }
    }

    /// A latency as a table cell shows it: "1.85 msec", with "(intended)" on a paced step's.
    pub fn latency_cell(&self, ns: f64) -> String {
        match self.latency.clock {
            LatencyClock::Issue => format_duration(ns),
            LatencyClock::Intended => format!("{} (intended)", format_duration(ns)),
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
                self.read_bytes_per_sec / MIB_F64
            ));
        }
        if self.writes() {
            parts.push(format!(
                "{} write IOPS ({:.1} MiB/s)",
                diskmeter_report::format::iops(self.write_iops),
                self.write_bytes_per_sec / MIB_F64
            ));
        }
        if parts.is_empty() {
            return "no IO completed".to_string();
        }
        let mut line = parts.join(", ");
        if self.latency.unknown {
            line.push_str(&format!(", {}", HeadlineLatency::UNKNOWN));
            return line;
        }
        // A paced step's figures are from each IO's intended issue time, and say so.
        let label = self.latency.label();
        if let Some(mean) = self.lat_mean_ns {
            line.push_str(&format!(", mean {label} {}", format_duration(mean)));
        }
        if let Some(p99) = self.p99_ns {
            let p99 = format_duration(p99 as f64);
            match self.lat_mean_ns {
                Some(_) => line.push_str(&format!(", p99 {p99}")),
                None => line.push_str(&format!(", p99 {label} {p99}")),
            }
        }
        line
    }
}
