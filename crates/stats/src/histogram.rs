//! `LatencyHistogram`: integer-nanosecond latencies in an HDR histogram, plus exact moments.
//!
//! Precision: values are kept in an HdrHistogram with 3 significant decimal digits over the range
//! 1 ns ..= 1 hour, so any reported percentile is within 0.1 % (relative) of the true value
//! (values below 2048 ns are exact).
//!
//! Memory follows the values, not the range: the bucket array is allocated at the first record
//! (an empty histogram, e.g. the write side of a read job, costs no buckets) and grows (HDR's
//! auto-resize) only as far as the largest value seen, in 32-bit counts while they fit
//! (`buckets.rs`): 4 KiB per power of two above 2 us, about 72 KiB for values up to
//! 100 ms instead of 264 KiB for the whole hour. The bucket layout depends only on the lowest
//! value and the digits, never on the top, so histograms of different sizes merge exactly and
//! serialize to the same bytes as a full-range one.
//!
//! Count, min, max, mean and standard deviation are exact: they
//! come from counters kept next to the histogram, not from its buckets, so they match what fio
//! computes from the raw samples.
//!
//! Values above one hour are clamped to one hour and counted in [`LatencyHistogram::saturated`];
//! recording never fails and never panics. A value of 0 is kept as 0 (HDR represents it exactly):
//! it only happens when the clock did not tick between two timestamps (a fake or coarse clock),
//! and reporting 0 shows that honestly instead of inventing 1 ns.

use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;

use crate::buckets::Buckets;
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
/// Where the V2 payload keeps the highest trackable value (big-endian u64): after the cookie,
/// length, normalizing offset, digits and lowest value.
const V2_HIGH_AT: usize = 4 + 4 + 4 + 4 + 8;

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
    /// `None` until the first value: most latency kinds of most jobs stay empty. Covers
    /// 1 ns ..= the largest value seen, in 32-bit counts while they fit (see [`Buckets`]).
    hist: Option<Buckets>,
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
        // The same distribution means the same recorded buckets (hdrhistogram's own PartialEq
        // also compares the arrays' lengths, which follow the largest value ever recorded,
        // even after a reset); the exact counters must agree as well.
        self.saturated == other.saturated
            && self.sum == other.sum
            && self.sum_sq == other.sum_sq
            && self.count() == other.count()
            && self.min() == other.min()
            && self.max() == other.max()
            && self.recorded() == other.recorded()
    }
}

impl LatencyHistogram {
    /// An empty histogram; allocates nothing until the first value is recorded.
    pub fn new() -> Self {
        LatencyHistogram {
            hist: None,
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
        // Cannot fail: the value is inside the bounds (the array grows to it) and counts are u64.
        self.hist
            .get_or_insert_with(Self::first_buckets)
            .record_n(value, count);
        let wide = u128::from(value);
        self.sum += wide * u128::from(count);
        self.sum_sq += wide * wide * u128::from(count);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// The smallest bucket array (1 ns ..= 2 ns, 16 KiB), set to grow with the values; out of
    /// line so the recording path stays one predictable branch.
    #[cold]
    #[inline(never)]
    fn first_buckets() -> Buckets {
        Buckets::first()
    }

    /// The recorded buckets as (lowest value of the bucket, count), ascending; nothing when
    /// empty.
    fn recorded(&self) -> Vec<(u64, u64)> {
        self.hist
            .as_ref()
            .map(Buckets::recorded)
            .unwrap_or_default()
    }

    /// Adds every value of `other` to this histogram. Exact: the result equals recording all
    /// values of both into one histogram.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        if let Some(theirs) = other.hist.as_ref().filter(|h| h.len() > 0) {
            // Same lowest value and digits, so the same bucket layout: adding is exact, and
            // auto-resize grows this array to the other's largest value, so it cannot fail.
            self.hist
                .get_or_insert_with(Self::first_buckets)
                .add(theirs);
        }
        self.saturated += other.saturated;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.hist.as_ref().map_or(0, |hist| hist.len())
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
        let Some(hist) = self.hist.as_ref().filter(|h| h.len() > 0) else {
            return 0;
        };
        let quantile = (percentile / 100.0).clamp(0.0, 1.0);
        // HDR answers with the top of the bucket; clamping to the exact extremes keeps p100 equal
        // to max and p0 equal to min instead of a bucket edge nobody measured.
        hist.value_at_quantile(quantile)
            .clamp(self.min(), self.max())
    }

    /// Counts values per latency range: `edges` are ascending exclusive upper bounds; the result
    /// has `edges.len() + 1` counts, the last one for values >= the last edge. A value is placed
    /// by the lowest value of its HDR bucket, so edges are as precise as the histogram (0.1 %).
    pub fn count_by_ranges(&self, edges: &[u64]) -> Vec<u64> {
        let mut counts = vec![0u64; edges.len() + 1];
        for (value, count) in self.recorded() {
            let index = edges.partition_point(|&edge| edge <= value);
            counts[index] += count;
        }
        counts
    }

    /// The recorded buckets in ascending order, as (lowest value of the bucket, count): what
    /// re-bins the histogram into another tool's buckets (fio's json+ `bins`). Below 2048 ns
    /// a bucket holds one value; above, a bucket in [2^k, 2^(k+1)) is 2^(k-10) wide and
    /// aligned to its width, so it lies whole inside any coarser power-of-two-aligned bucket.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        self.recorded()
    }

    /// Empties the histogram, keeping its allocation.
    pub fn reset(&mut self) {
        if let Some(hist) = &mut self.hist {
            hist.reset();
        }
        self.saturated = 0;
        self.sum = 0;
        self.sum_sq = 0;
        self.min = u64::MAX;
        self.max = 0;
    }

    /// Serializes for storage: a 61-byte header (`DMLH`, version 1, then little-endian
    /// saturated u64, sum u128, sum of squares u128, min u64, max u64) followed by the standard
    /// HdrHistogram V2 encoding, which any HdrHistogram library can read after the header. The
    /// V2 header always states the full range (1 ns ..= 1 h): the bytes are the same however
    /// far the array grew, and readers that expect the full range accept them.
    pub fn to_bytes(&self) -> Result<Vec<u8>, HistogramError> {
        let mut out = Vec::with_capacity(HEADER_LEN + 256);
        out.extend_from_slice(&MAGIC);
        out.push(FORMAT_VERSION);
        out.extend_from_slice(&self.saturated.to_le_bytes());
        out.extend_from_slice(&self.sum.to_le_bytes());
        out.extend_from_slice(&self.sum_sq.to_le_bytes());
        out.extend_from_slice(&self.min.to_le_bytes());
        out.extend_from_slice(&self.max.to_le_bytes());
        let payload_at = out.len();
        match &self.hist {
            Some(hist) => hist.serialize(&mut out)?,
            None => Buckets::first().serialize(&mut out)?,
        };
        // Counts are encoded up to the largest value only, and a bucket's index does not
        // depend on the top of the range, so stating the full range is exact.
        out[payload_at + V2_HIGH_AT..payload_at + V2_HIGH_AT + 8]
            .copy_from_slice(&MAX_LATENCY_NS.to_be_bytes());
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
        // Adding re-homes the counts into our (growing) array, so later merges stay exact.
        if !decoded.is_empty() {
            self.hist
                .get_or_insert_with(Self::first_buckets)
                .add_wide(decoded);
        }
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
    use hdrhistogram::serialization::{Serializer, V2Serializer};

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

    /// The full-range, 64-bit histogram diskmeter kept before issue 33: the reference the
    /// growing one must match.
    fn full_range(values: &[u64]) -> Histogram<u64> {
        let mut h = Histogram::new_with_bounds(1, MAX_LATENCY_NS, SIGNIFICANT_DIGITS).unwrap();
        for &v in values {
            h.record(v.min(MAX_LATENCY_NS)).unwrap();
        }
        h
    }

    #[test]
    fn an_empty_histogram_allocates_no_buckets() {
        let mut h = LatencyHistogram::new();
        assert!(h.hist.is_none());
        h.merge(&LatencyHistogram::new());
        h.reset();
        assert!(h.hist.is_none());
    }

    #[test]
    fn bytes_are_those_of_a_full_range_histogram() {
        let values = [0u64, 7, 2_047, 2_048, 99_999, 123_456_789, u64::MAX];
        let mut h = LatencyHistogram::new();
        for v in values {
            h.record(v);
        }
        let mut expected = Vec::new();
        V2Serializer::new()
            .serialize(&full_range(&values), &mut expected)
            .unwrap();
        assert!(h.to_bytes().unwrap().ends_with(&expected));
        let mut empty = Vec::new();
        V2Serializer::new()
            .serialize(&full_range(&[]), &mut empty)
            .unwrap();
        assert!(LatencyHistogram::new()
            .to_bytes()
            .unwrap()
            .ends_with(&empty));
    }

    #[test]
    fn histograms_of_different_ranges_merge_exactly() {
        let small: Vec<u64> = (1..5_000).map(|v| v * 3).collect();
        let large: Vec<u64> = (1..5_000).map(|v| v * 7_919_993).collect();
        let (mut a, mut b, mut all) = (
            LatencyHistogram::new(),
            LatencyHistogram::new(),
            LatencyHistogram::new(),
        );
        small.iter().for_each(|&v| a.record(v));
        large.iter().for_each(|&v| b.record(v));
        small.iter().chain(&large).for_each(|&v| all.record(v));
        let mut small_first = a.clone();
        small_first.merge(&b);
        let mut large_first = b.clone();
        large_first.merge(&a);
        assert_eq!(small_first, all);
        assert_eq!(large_first, all);
        let both: Vec<u64> = small.iter().chain(&large).copied().collect();
        let reference = full_range(&both);
        for p in [0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0] {
            let expected = reference
                .value_at_quantile(p / 100.0)
                .clamp(all.min(), all.max());
            assert_eq!(small_first.value_at_percentile(p), expected, "p{p}");
        }
        let back = LatencyHistogram::from_bytes(&large_first.to_bytes().unwrap()).unwrap();
        assert_eq!(back, all);
    }
}
