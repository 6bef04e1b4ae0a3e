//! `LatencyHistogram`: integer-nanosecond latencies in an HDR histogram, plus exact moments.
//!
//! Precision: values are kept in an HdrHistogram with 3 significant decimal digits over the range
//! 1 ns ..= 1 hour, so any reported percentile is within 0.1 % (relative) of the true value
//! (values below 2048 ns are exact). Count, min, max, mean and standard deviation are exact: they
//! come from counters kept next to the histogram, not from its buckets, so they match what fio
//! computes from the raw samples.
//!
//! Values above one hour are clamped to one hour and counted in [`LatencyHistogram::saturated`];
//! recording never fails and never panics. A value of 0 is kept as 0 (HDR represents it exactly):
//! it only happens when the clock did not tick between two timestamps (a fake or coarse clock),
//! and reporting 0 shows that honestly instead of inventing 1 ns.

use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use hdrhistogram::Histogram;
use thiserror::Error;

/// Largest latency the histogram tracks: one hour in nanoseconds. Larger values are clamped.
pub const MAX_LATENCY_NS: u64 = 3_600 * 1_000_000_000;

/// Significant decimal digits of the histogram: relative error of a percentile <= 0.1 %.
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// Marks the start of [`LatencyHistogram::to_bytes`] output: "diskmeter latency histogram".
const MAGIC: [u8; 4] = *b"DMLH";
/// Version of the header in front of the V2 payload; bumped when the header changes.
const FORMAT_VERSION: u8 = 1;
/// magic + version + saturated + sum + sum of squares + min + max.
const HEADER_LEN: usize = 4 + 1 + 8 + 16 + 16 + 8 + 8;

/// Why a serialized histogram could not be read back.
#[derive(Debug, Error)]
pub enum HistogramError {
    /// The bytes are shorter than the fixed header, so they were cut or are not a histogram.
    #[error("serialized histogram is truncated ({len} bytes, header needs {HEADER_LEN})")]
    Truncated {
        /// Number of bytes given.
        len: usize,
    },
    /// The bytes do not start with diskmeter's marker: they come from somewhere else.
    #[error("serialized histogram has an unknown marker or version")]
    BadHeader,
    /// The HdrHistogram V2 payload after the header is corrupt.
    #[error("serialized histogram payload is corrupt: {0}")]
    Decode(#[from] hdrhistogram::serialization::DeserializeError),
    /// The payload is a valid histogram but with other bounds or precision than diskmeter's,
    /// so merging it with ours would not be exact.
    #[error("serialized histogram has bounds {low}..={high} at {sigfig} digits, expected 1..={MAX_LATENCY_NS} at {SIGNIFICANT_DIGITS}")]
    WrongBounds {
        /// Lowest discernible value of the payload.
        low: u64,
        /// Highest trackable value of the payload.
        high: u64,
        /// Significant digits of the payload.
        sigfig: u8,
    },
    /// Writing the V2 payload failed (cannot happen for an in-memory buffer; kept so no error is
    /// swallowed).
    #[error("serializing histogram failed: {0}")]
    Encode(#[from] hdrhistogram::serialization::V2SerializeError),
}

/// Latencies in integer nanoseconds: an HDR histogram (3 digits, 1 ns ..= 1 h) plus exact count,
/// min, max, sum and sum of squares. See the module docs for the precision statement.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
    /// Values that were above [`MAX_LATENCY_NS`] and recorded as the maximum.
    saturated: u64,
    /// Exact sum of recorded (clamped) values; u128 so a long run cannot overflow it.
    sum: u128,
    /// Exact sum of squares, for the standard deviation without a second pass.
    sum_sq: u128,
    /// Exact smallest value; `u64::MAX` while empty.
    min: u64,
    /// Exact largest value; 0 while empty.
    max: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for LatencyHistogram {
    fn eq(&self, other: &Self) -> bool {
        // hdrhistogram's own PartialEq compares bucket counts, which is what "the same
        // distribution" means; the exact counters must agree as well.
        self.hist == other.hist
            && self.saturated == other.saturated
            && self.sum == other.sum
            && self.sum_sq == other.sum_sq
            && self.count() == other.count()
            && self.min() == other.min()
            && self.max() == other.max()
    }
}

impl LatencyHistogram {
    /// An empty histogram (allocates its bucket array once, here, never while recording).
    pub fn new() -> Self {
        let hist = Histogram::new_with_bounds(1, MAX_LATENCY_NS, SIGNIFICANT_DIGITS)
            .expect("constant histogram bounds are valid");
        LatencyHistogram {
            hist,
            saturated: 0,
            sum: 0,
            sum_sq: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Records one latency. Values above one hour are clamped and counted as saturated.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.record_n(ns, 1);
    }

    /// Records `count` occurrences of the same latency (a count of 0 records nothing).
    #[inline]
    pub fn record_n(&mut self, ns: u64, count: u64) {
        if count == 0 {
            return;
        }
        let value = if ns > MAX_LATENCY_NS {
            self.saturated += count;
            MAX_LATENCY_NS
        } else {
            ns
        };
        // Cannot fail: the value is inside the bounds and counts are u64.
        let recorded = self.hist.record_n(value, count);
        debug_assert!(recorded.is_ok());
        let wide = u128::from(value);
        self.sum += wide * u128::from(count);
        self.sum_sq += wide * wide * u128::from(count);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// Adds every value of `other` to this histogram. Exact: the result equals recording all
    /// values of both into one histogram.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        // Both histograms have the same bounds, so adding cannot fail.
        let added = self.hist.add(&other.hist);
        debug_assert!(added.is_ok());
        self.saturated += other.saturated;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// Values that exceeded one hour and were recorded as exactly one hour.
    pub fn saturated(&self) -> u64 {
        self.saturated
    }

    /// Exact smallest value, ns; 0 when empty.
    pub fn min(&self) -> u64 {
        if self.is_empty() {
            0
        } else {
            self.min
        }
    }

    /// Exact largest value, ns (one hour if any value saturated); 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Exact sum of all values, ns.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Exact arithmetic mean, ns; 0 when empty.
    pub fn mean(&self) -> f64 {
        match self.count() {
            0 => 0.0,
            n => self.sum as f64 / n as f64,
        }
    }

    /// Sample standard deviation (divides by n - 1, like fio), ns; 0 with fewer than 2 values.
    pub fn stddev(&self) -> f64 {
        let n = u128::from(self.count());
        if n < 2 {
            return 0.0;
        }
        // n * sum_sq - sum^2 in integers avoids the cancellation that ruins the f64 formula
        // when the spread is tiny next to the mean; fall back to f64 only on overflow.
        let variance = match (n.checked_mul(self.sum_sq), self.sum.checked_mul(self.sum)) {
            (Some(a), Some(b)) => a.saturating_sub(b) as f64 / (n * (n - 1)) as f64,
            _ => {
                let nf = n as f64;
                let mean = self.sum as f64 / nf;
                ((self.sum_sq as f64 - self.sum as f64 * mean) / (nf - 1.0)).max(0.0)
            }
        };
        variance.sqrt()
    }

    /// The value below or at which `percentile` percent (0..=100) of the values fall, ns; 0 when
    /// empty. Within 0.1 % of the true value, and never outside the exact min..=max.
    pub fn value_at_percentile(&self, percentile: f64) -> u64 {
        if self.is_empty() {
            return 0;
        }
        let quantile = (percentile / 100.0).clamp(0.0, 1.0);
        // HDR answers with the top of the bucket; clamping to the exact extremes keeps p100 equal
        // to max and p0 equal to min instead of a bucket edge nobody measured.
        self.hist
            .value_at_quantile(quantile)
            .clamp(self.min(), self.max())
    }

    /// Counts values per latency range: `edges` are ascending exclusive upper bounds; the result
    /// has `edges.len() + 1` counts, the last one for values >= the last edge. A value is placed
    /// by the lowest value of its HDR bucket, so edges are as precise as the histogram (0.1 %).
    pub fn count_by_ranges(&self, edges: &[u64]) -> Vec<u64> {
        let mut counts = vec![0u64; edges.len() + 1];
        for step in self.hist.iter_recorded() {
            let value = self.hist.lowest_equivalent(step.value_iterated_to());
            let index = edges.partition_point(|&edge| edge <= value);
            counts[index] += step.count_at_value();
        }
        counts
    }

    /// The recorded buckets in ascending order, as (lowest value of the bucket, count): what
    /// re-bins the histogram into another tool's buckets (fio's json+ `bins`). Below 2048 ns
    /// a bucket holds one value; above, a bucket in [2^k, 2^(k+1)) is 2^(k-10) wide and
    /// aligned to its width, so it lies whole inside any coarser power-of-two-aligned bucket.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        self.hist
            .iter_recorded()
            .map(|step| {
                (
                    self.hist.lowest_equivalent(step.value_iterated_to()),
                    step.count_at_value(),
                )
            })
            .collect()
    }

    /// Empties the histogram, keeping its allocation.
    pub fn reset(&mut self) {
        self.hist.reset();
        self.saturated = 0;
        self.sum = 0;
        self.sum_sq = 0;
        self.min = u64::MAX;
        self.max = 0;
    }

    /// Serializes for storage: a 61-byte header (`DMLH`, version 1, then little-endian
    /// saturated u64, sum u128, sum of squares u128, min u64, max u64) followed by the standard
    /// HdrHistogram V2 encoding, which any HdrHistogram library can read after the header.
    pub fn to_bytes(&self) -> Result<Vec<u8>, HistogramError> {
        let mut out = Vec::with_capacity(HEADER_LEN + 256);
        out.extend_from_slice(&MAGIC);
        out.push(FORMAT_VERSION);
        out.extend_from_slice(&self.saturated.to_le_bytes());
        out.extend_from_slice(&self.sum.to_le_bytes());
        out.extend_from_slice(&self.sum_sq.to_le_bytes());
        out.extend_from_slice(&self.min.to_le_bytes());
        out.extend_from_slice(&self.max.to_le_bytes());
        V2Serializer::new().serialize(&self.hist, &mut out)?;
        Ok(out)
    }

    /// Reads what [`LatencyHistogram::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<LatencyHistogram, HistogramError> {
        let mut histogram = LatencyHistogram::new();
        histogram.merge_bytes(bytes)?;
        Ok(histogram)
    }

    /// Adds the histogram [`LatencyHistogram::to_bytes`] wrote to this one, exactly as
    /// [`LatencyHistogram::merge`] does, decoding straight into the sum: merging a thousand
    /// ranks' histograms then costs one decode each, not a decode and a copy.
    pub fn merge_bytes(&mut self, bytes: &[u8]) -> Result<(), HistogramError> {
        if bytes.len() < HEADER_LEN {
            return Err(HistogramError::Truncated { len: bytes.len() });
        }
        if bytes[..4] != MAGIC || bytes[4] != FORMAT_VERSION {
            return Err(HistogramError::BadHeader);
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let u128_at =
            |at: usize| u128::from_le_bytes(bytes[at..at + 16].try_into().expect("16 bytes"));
        let decoded: Histogram<u64> = Deserializer::new().deserialize(&mut &bytes[HEADER_LEN..])?;
        let wrong_bounds = || HistogramError::WrongBounds {
            low: decoded.low(),
            high: decoded.high(),
            sigfig: decoded.sigfig(),
        };
        if decoded.low() != 1
            || decoded.high() < MAX_LATENCY_NS
            || decoded.sigfig() != SIGNIFICANT_DIGITS
        {
            return Err(wrong_bounds());
        }
        // Adding re-homes the counts into our bounds, so later merges stay exact.
        self.hist.add(&decoded).map_err(|_| wrong_bounds())?;
        self.saturated += u64_at(5);
        self.sum += u128_at(13);
        self.sum_sq += u128_at(29);
        self.min = self.min.min(u64_at(45));
        self.max = self.max.max(u64_at(53));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_histogram_reports_zeros() {
        let h = LatencyHistogram::new();
        assert_eq!((h.count(), h.min(), h.max()), (0, 0, 0));
        assert_eq!(h.mean(), 0.0);
        assert_eq!(h.stddev(), 0.0);
        assert_eq!(h.value_at_percentile(99.0), 0);
    }

    #[test]
    fn moments_are_exact() {
        let mut h = LatencyHistogram::new();
        for v in [1_000u64, 2_000, 3_000, 4_000] {
            h.record(v);
        }
        assert_eq!(h.count(), 4);
        assert_eq!(h.min(), 1_000);
        assert_eq!(h.max(), 4_000);
        assert_eq!(h.mean(), 2_500.0);
        // Sample stddev of 1000..4000 step 1000 = sqrt(5/3) * 1000.
        assert!((h.stddev() - 1_290.994_448_735_805_6).abs() < 1e-6);
    }

    #[test]
    fn values_above_one_hour_saturate_without_panicking() {
        let mut h = LatencyHistogram::new();
        h.record(u64::MAX);
        h.record_n(MAX_LATENCY_NS + 1, 3);
        h.record(5);
        assert_eq!(h.count(), 5);
        assert_eq!(h.saturated(), 4);
        assert_eq!(h.max(), MAX_LATENCY_NS);
        assert_eq!(h.value_at_percentile(100.0), MAX_LATENCY_NS);
    }

    #[test]
    fn zero_is_kept_as_zero() {
        let mut h = LatencyHistogram::new();
        h.record(0);
        assert_eq!((h.count(), h.min(), h.max()), (1, 0, 0));
        assert_eq!(h.value_at_percentile(50.0), 0);
    }

    #[test]
    fn reset_empties_everything() {
        let mut h = LatencyHistogram::new();
        h.record(u64::MAX);
        h.reset();
        assert_eq!(h, LatencyHistogram::new());
    }

    #[test]
    fn bytes_round_trip() {
        let mut h = LatencyHistogram::new();
        for v in 0..10_000u64 {
            h.record(v * 37 + 11);
        }
        h.record(u64::MAX);
        let back = LatencyHistogram::from_bytes(&h.to_bytes().unwrap()).unwrap();
        assert_eq!(back, h);
        assert_eq!(back.saturated(), 1);
        assert_eq!(back.stddev(), h.stddev());
    }

    #[test]
    fn corrupt_bytes_are_errors() {
        assert!(matches!(
            LatencyHistogram::from_bytes(b"DMLH"),
            Err(HistogramError::Truncated { len: 4 })
        ));
        let mut bytes = LatencyHistogram::new().to_bytes().unwrap();
        bytes[0] = b'X';
        assert!(matches!(
            LatencyHistogram::from_bytes(&bytes),
            Err(HistogramError::BadHeader)
        ));
        let mut bytes = LatencyHistogram::new().to_bytes().unwrap();
        bytes.truncate(HEADER_LEN + 3);
        assert!(matches!(
            LatencyHistogram::from_bytes(&bytes),
            Err(HistogramError::Decode(_))
        ));
    }

    #[test]
    fn ranges_split_at_exclusive_upper_edges() {
        let mut h = LatencyHistogram::new();
        for v in [1u64, 2, 3, 10, 999, 1_000, 5_000_000] {
            h.record(v);
        }
        assert_eq!(h.count_by_ranges(&[2, 10, 1_000]), vec![1, 2, 2, 2]);
    }
}
