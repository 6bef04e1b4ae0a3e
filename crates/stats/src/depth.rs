//! `DepthDistribution`: fio's "IO depths", "submit" and "complete" distributions.
//!
//! fio counts, at every submission, how many IOs are in flight and buckets that number into
//! 1, 2, 4, 8, 16, 32, >=64 (a bucket holds depths from its label up to the next label - 1).
//! The submit and complete distributions bucket how many IOs one submit call handed over and
//! one reap call returned, into 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64 (labelled by upper bound,
//! fio's "0, 4, 8, 16, 32, 64, >=64").

use serde::{Deserialize, Serialize};

/// Labels of the depth buckets, in order, as fio prints them.
pub const DEPTH_LABELS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
/// Labels of the submit and complete buckets, in order, as fio prints them.
pub const SUBMIT_LABELS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];

/// Counts of in-flight depths at submit time and of IOs per submit and per reap call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthDistribution {
    /// Submissions per in-flight bucket (see [`DEPTH_LABELS`]).
    pub depth: [u64; 7],
    /// Submit calls per batch-size bucket (see [`SUBMIT_LABELS`]); all 0 if not recorded.
    pub submit: [u64; 7],
    /// Reap calls per batch-size bucket (see [`SUBMIT_LABELS`]); all 0 if not recorded.
    pub complete: [u64; 7],
}

/// Bucket of an in-flight depth: 0 and 1 -> "1", 2-3 -> "2", ..., 32-63 -> "32", >= 64 -> ">=64".
#[inline]
fn depth_bucket(in_flight: u32) -> usize {
    if in_flight <= 1 {
        return 0;
    }
    // floor(log2) gives 1 for 2-3, 2 for 4-7, ..., 6 for 64 and above after the clamp.
    (31 - in_flight.leading_zeros()).min(6) as usize
}

/// Bucket of a batch size: 0 -> "0", 1-4 -> "4", 5-8 -> "8", ..., 33-64 -> "64", > 64 -> ">=64".
#[inline]
fn batch_bucket(batch: u32) -> usize {
    match batch {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// Each count as a percentage of the total; all 0 when nothing was counted.
fn percentages(counts: &[u64; 7]) -> [f64; 7] {
    let total: u64 = counts.iter().sum();
    let mut out = [0.0; 7];
    if total > 0 {
        for (slot, &count) in out.iter_mut().zip(counts) {
            *slot = count as f64 * 100.0 / total as f64;
        }
    }
    out
}

impl DepthDistribution {
    /// An empty distribution.
    pub fn new() -> Self {
        Self::default()
    }

    /// Called once per submitted IO with the number of IOs in flight including this one
    /// (0 is counted as 1, so a caller that counts before incrementing is not penalised).
    #[inline]
    pub fn record(&mut self, in_flight: u32) {
        self.depth[depth_bucket(in_flight)] += 1;
    }

    /// Called once per submit call with the number of IOs it handed to the kernel.
    #[inline]
    pub fn record_submit(&mut self, batch: u32) {
        self.submit[batch_bucket(batch)] += 1;
    }

    /// Called once per reap call with the number of completions it returned.
    #[inline]
    pub fn record_complete(&mut self, batch: u32) {
        self.complete[batch_bucket(batch)] += 1;
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &DepthDistribution) {
        for (mine, theirs) in [
            (&mut self.depth, &other.depth),
            (&mut self.submit, &other.submit),
            (&mut self.complete, &other.complete),
        ] {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }

    /// Depth buckets in percent of submissions, in [`DEPTH_LABELS`] order.
    pub fn depth_percent(&self) -> [f64; 7] {
        percentages(&self.depth)
    }

    /// Submit buckets in percent of submit calls, in [`SUBMIT_LABELS`] order.
    pub fn submit_percent(&self) -> [f64; 7] {
        percentages(&self.submit)
    }

    /// Complete buckets in percent of reap calls, in [`SUBMIT_LABELS`] order.
    pub fn complete_percent(&self) -> [f64; 7] {
        percentages(&self.complete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_land_in_fio_buckets() {
        let expected = [
            (0, 0),
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 2),
            (7, 2),
            (8, 3),
            (16, 4),
            (31, 4),
            (32, 5),
            (63, 5),
            (64, 6),
            (1000, 6),
        ];
        for (in_flight, bucket) in expected {
            assert_eq!(depth_bucket(in_flight), bucket, "depth {in_flight}");
        }
    }

    #[test]
    fn batches_land_in_fio_buckets() {
        let expected = [
            (0, 0),
            (1, 1),
            (4, 1),
            (5, 2),
            (8, 2),
            (9, 3),
            (64, 5),
            (65, 6),
        ];
        for (batch, bucket) in expected {
            assert_eq!(batch_bucket(batch), bucket, "batch {batch}");
        }
    }

    #[test]
    fn percentages_sum_to_100_and_merge_adds() {
        let mut a = DepthDistribution::new();
        a.record(1);
        a.record(32);
        let mut b = DepthDistribution::new();
        b.record(32);
        b.record(32);
        a.merge(&b);
        assert_eq!(a.depth_percent(), [25.0, 0.0, 0.0, 0.0, 0.0, 75.0, 0.0]);
        assert_eq!(a.submit_percent(), [0.0; 7]);
    }
}
