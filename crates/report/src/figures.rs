//! A step's headline figures summed over its jobs: the results type the suite tables, the
//! `--expect` judgements and the Iometer summary read, kept with the result schema it is
//! computed from.

use crate::{JobResult, RunResult};

/// The headline figures of one step (or one job), summed over its jobs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepFigures {
    /// Read IOPS.
    pub read_iops: f64,
    /// Read bandwidth, bytes/s.
    pub read_bytes_per_sec: f64,
    /// Mean read latency (issue to completion), ns; 0 without reads.
    pub read_lat_mean_ns: f64,
    /// Reads completed (the weight of the read latency mean when figures are added).
    pub read_ios: u64,
    /// Write IOPS.
    pub write_iops: f64,
    /// Write bandwidth, bytes/s.
    pub write_bytes_per_sec: f64,
    /// Mean write latency, ns; 0 without writes.
    pub write_lat_mean_ns: f64,
    /// Writes completed.
    pub write_ios: u64,
}

impl StepFigures {
    /// Sums the jobs of `result` (latency means weighted by IO count).
    pub fn of(result: &RunResult) -> StepFigures {
        result
            .jobs
            .iter()
            .fold(StepFigures::default(), |mut sum, job| {
                sum.add(&StepFigures::of_job(job));
                sum
            })
    }

    /// One job's figures.
    pub fn of_job(job: &JobResult) -> StepFigures {
        StepFigures {
            read_iops: job.read.iops,
            read_bytes_per_sec: job.read.bw_bytes_per_sec,
            read_lat_mean_ns: job.read.lat.mean_ns,
            read_ios: job.read.ios,
            write_iops: job.write.iops,
            write_bytes_per_sec: job.write.bw_bytes_per_sec,
            write_lat_mean_ns: job.write.lat.mean_ns,
            write_ios: job.write.ios,
        }
    }

    /// Adds `other` (jobs run together): rates sum, latency means weighted by IO count.
    pub fn add(&mut self, other: &StepFigures) {
        let weighted = |a: f64, a_ios: u64, b: f64, b_ios: u64| {
            let ios = a_ios + b_ios;
            if ios == 0 {
                0.0
            } else {
                (a * a_ios as f64 + b * b_ios as f64) / ios as f64
            }
        };
        self.read_lat_mean_ns = weighted(
            self.read_lat_mean_ns,
            self.read_ios,
            other.read_lat_mean_ns,
            other.read_ios,
        );
        self.write_lat_mean_ns = weighted(
            self.write_lat_mean_ns,
            self.write_ios,
            other.write_lat_mean_ns,
            other.write_ios,
        );
        self.read_iops += other.read_iops;
        self.read_bytes_per_sec += other.read_bytes_per_sec;
        self.read_ios += other.read_ios;
        self.write_iops += other.write_iops;
        self.write_bytes_per_sec += other.write_bytes_per_sec;
        self.write_ios += other.write_ios;
    }

    /// Mean latency over reads and writes together, ns (weighted by IO count).
    pub fn lat_mean_ns(&self) -> f64 {
        let ios = self.read_ios + self.write_ios;
        if ios == 0 {
            return 0.0;
        }
        (self.read_lat_mean_ns * self.read_ios as f64
            + self.write_lat_mean_ns * self.write_ios as f64)
            / ios as f64
    }
}
