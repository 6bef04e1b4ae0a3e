//! Property tests of the stats crate: merging is exact and percentiles honour the stated
//! precision (0.1 % relative error for the 3-digit latency histogram).

use diskmeter_stats::{
    merge_series, Direction, IntervalRecorder, LatencyHistogram, MAX_LATENCY_NS,
};
use proptest::prelude::*;

/// Latencies spanning the interesting range, including 0 and values that saturate.
fn latency() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..2_048,
        2_048u64..10_000_000,
        10_000_000u64..=MAX_LATENCY_NS,
        Just(u64::MAX),
    ]
}

proptest! {
    #[test]
    fn merging_equals_recording_into_one(
        a in prop::collection::vec(latency(), 0..300),
        b in prop::collection::vec(latency(), 0..300),
    ) {
        let mut left = LatencyHistogram::new();
        let mut right = LatencyHistogram::new();
        let mut all = LatencyHistogram::new();
        for &v in &a { left.record(v); all.record(v); }
        for &v in &b { right.record(v); all.record(v); }
        left.merge(&right);
        prop_assert_eq!(&left, &all);
        prop_assert_eq!(left.mean(), all.mean());
        prop_assert_eq!(left.stddev(), all.stddev());
        for p in [1.0, 50.0, 99.0, 99.99, 100.0] {
            prop_assert_eq!(left.value_at_percentile(p), all.value_at_percentile(p));
        }
    }

    /// Issue 33: histograms now grow to the values seen, in 32-bit counts; they must answer
    /// exactly as the full-range (1 ns ..= 1 h), 64-bit histogram kept before, and write the
    /// same bytes after the header.
    #[test]
    fn a_growing_histogram_answers_like_a_full_range_one(
        values in prop::collection::vec(latency(), 0..400),
        split in 0usize..400,
    ) {
        let mut full = hdrhistogram::Histogram::<u64>::new_with_bounds(1, MAX_LATENCY_NS, 3).unwrap();
        let (mut a, mut b) = (LatencyHistogram::new(), LatencyHistogram::new());
        for (i, &v) in values.iter().enumerate() {
            full.record(v.min(MAX_LATENCY_NS)).unwrap();
            if i < split { a.record(v) } else { b.record(v) }
        }
        a.merge(&b);
        for p in [0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0] {
            let expected = if values.is_empty() {
                0
            } else {
                full.value_at_quantile(p / 100.0).clamp(a.min(), a.max())
            };
            prop_assert_eq!(a.value_at_percentile(p), expected, "p{}", p);
        }
        let mut bytes = Vec::new();
        hdrhistogram::serialization::Serializer::serialize(
            &mut hdrhistogram::serialization::V2Serializer::new(), &full, &mut bytes).unwrap();
        prop_assert!(a.to_bytes().unwrap().ends_with(&bytes));
    }

    #[test]
    fn percentiles_are_within_a_tenth_of_a_percent(
        mut values in prop::collection::vec(1u64..=MAX_LATENCY_NS, 1..500),
        p in 0.0f64..=100.0,
    ) {
        let mut h = LatencyHistogram::new();
        for &v in &values { h.record(v); }
        values.sort_unstable();
        // The exact percentile by HDR's definition: the smallest value with at least
        // ceil(p% of n) values at or below it (at least one).
        let n = values.len();
        let rank = ((p / 100.0 * n as f64).ceil() as usize).clamp(1, n);
        let exact = values[rank - 1] as f64;
        let got = h.value_at_percentile(p) as f64;
        prop_assert!((got - exact).abs() <= exact * 0.001 + 1.0,
            "p{} got {} exact {}", p, got, exact);
    }

    #[test]
    fn serialization_round_trips(values in prop::collection::vec(latency(), 0..200)) {
        let mut h = LatencyHistogram::new();
        for &v in &values { h.record(v); }
        let back = LatencyHistogram::from_bytes(&h.to_bytes().unwrap()).unwrap();
        prop_assert_eq!(back, h);
    }

    #[test]
    fn merged_series_conserves_ios_and_bytes(
        a in prop::collection::vec((0usize..2, 1u64..1_000_000, 0u64..5_000_000_000), 0..100),
        b in prop::collection::vec((0usize..2, 1u64..1_000_000, 0u64..5_000_000_000), 0..100),
    ) {
        let series = |ios: &[(usize, u64, u64)]| {
            let mut sorted = ios.to_vec();
            sorted.sort_by_key(|x| x.2);
            let mut r = IntervalRecorder::new(1_000_000_000);
            for &(d, bytes, t) in &sorted { r.record(Direction::BOTH[d], bytes, 1_000, t); }
            r.finish(5_000_000_000)
        };
        let merged = merge_series(&series(&a), &series(&b));
        let total_bytes: u64 = merged.iter().map(|s| s.read.bytes + s.write.bytes).sum();
        let total_ios: u64 = merged.iter().map(|s| s.read.ios + s.write.ios).sum();
        let expect_bytes: u64 = a.iter().chain(&b).map(|x| x.1).sum();
        prop_assert_eq!(total_ios, (a.len() + b.len()) as u64);
        prop_assert_eq!(total_bytes, expect_bytes);
        prop_assert_eq!(merged.len(), 5);
        for (i, s) in merged.iter().enumerate() {
            prop_assert_eq!(s.start_ms, i as u64 * 1_000);
        }
    }
}
