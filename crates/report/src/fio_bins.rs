//! fio's latency bins (`--output-format=json+`): diskmeter's HDR histograms re-binned into
//! fio's "plat" buckets, keyed as fio keys them.
//!
//! fio keeps latencies in ns in 1,856 buckets (fio `stat.h`: `FIO_IO_U_PLAT_BITS` 6,
//! `FIO_IO_U_PLAT_VAL` 64, 29 groups): values below 128 ns each have a bucket of their own;
//! above, every power of two [2^k, 2^(k+1)) is cut into 64 equal buckets of 2^(k-6) ns; values
//! past the last group go in the last bucket. json+ lists each non-empty bucket under the
//! decimal text of its representative value (fio `stat.c` `plat_idx_to_val`): the value itself
//! below 128 ns, else the middle of the bucket. This module computes both from those
//! definitions (fio's HOWTO "json+" and `stat.h`'s comment), not from fio's code.
//!
//! diskmeter's buckets (3 significant digits) are never wider than fio's and are aligned to
//! powers of two, so each lies whole inside one fio bucket: the re-binned counts are exact,
//! i.e. what fio would have counted for the same latencies.

use diskmeter_stats::LatencyHistogram;
use serde_json::{Map, Value};

/// Bits of a value kept exact in each power-of-two group (fio `FIO_IO_U_PLAT_BITS`).
const PLAT_BITS: u32 = 6;
/// Buckets per group (fio `FIO_IO_U_PLAT_VAL`).
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Groups (fio `FIO_IO_U_PLAT_GROUP_NR`).
const PLAT_GROUPS: u64 = 29;
/// Buckets in all (fio `FIO_IO_U_PLAT_NR`).
pub const PLAT_NR: u64 = PLAT_GROUPS * PLAT_VAL;

/// fio's bucket index of a latency of `ns`.
pub fn plat_index(ns: u64) -> u64 {
    if ns < 2 * PLAT_VAL {
        return ns;
    }
    let msb = 63 - u64::from(ns.leading_zeros());
    let dropped_bits = msb - u64::from(PLAT_BITS);
    let group_start = (dropped_bits + 1) * PLAT_VAL;
    let within = (ns >> dropped_bits) & (PLAT_VAL - 1);
    (group_start + within).min(PLAT_NR - 1)
}

/// The value fio prints for bucket `index` (json+ `bins` keys, ns): the value itself below
/// 128 ns, else the middle of the bucket.
pub fn plat_value(index: u64) -> u64 {
    if index < 2 * PLAT_VAL {
        return index;
    }
    let dropped_bits = index / PLAT_VAL - 1;
    let group_low = 1u64 << (dropped_bits + u64::from(PLAT_BITS));
    let width = 1u64 << dropped_bits;
    // fio computes `base + (k + 0.5) * width` in floating point; width is even here.
    group_low + (index % PLAT_VAL) * width + width / 2
}

/// The lowest and highest latency of bucket `index`, ns (the last bucket also takes every
/// larger value).
pub fn plat_range(index: u64) -> (u64, u64) {
    if index < 2 * PLAT_VAL {
        return (index, index);
    }
    let dropped_bits = index / PLAT_VAL - 1;
    let width = 1u64 << dropped_bits;
    let low = plat_value(index) - width / 2;
    (low, low + width - 1)
}

/// `histogram` in fio's buckets: (bucket index, count) in ascending order, empty ones left out.
pub fn plat_counts(histogram: &LatencyHistogram) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (low_ns, count) in histogram.buckets() {
        let index = plat_index(low_ns);
        match out.last_mut() {
            Some((last, total)) if *last == index => *total += count,
            _ => out.push((index, count)),
        }
    }
    out
}

/// fio's json+ `"bins"` object of `histogram`.
pub fn bins_object(histogram: &LatencyHistogram) -> Value {
    let bins: Map<String, Value> = plat_counts(histogram)
        .into_iter()
        .map(|(index, count)| (plat_value(index).to_string(), Value::from(count)))
        .collect();
    Value::Object(bins)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_their_own_bucket() {
        for ns in 0..128 {
            assert_eq!(plat_index(ns), ns);
            assert_eq!(plat_value(ns), ns);
        }
    }

    #[test]
    fn buckets_tile_the_range_and_values_fall_in_their_own_bucket() {
        // Every bucket starts where the previous one ended, and every value of a bucket's
        // range maps back to it.
        let mut next_low = 0;
        for index in 0..PLAT_NR {
            let (low, high) = plat_range(index);
            assert_eq!(low, next_low, "bucket {index}");
            for ns in [low, (low + high) / 2, high] {
                assert_eq!(plat_index(ns), index, "{ns} ns");
            }
            let value = plat_value(index);
            assert!(low <= value && value <= high);
            next_low = high + 1;
        }
        // Past the last group, the last bucket.
        assert_eq!(plat_index(next_low), PLAT_NR - 1);
        assert_eq!(plat_index(u64::MAX), PLAT_NR - 1);
    }

    #[test]
    fn keys_are_the_values_fio_prints() {
        // Below 128 ns the value itself; 128 and 129 ns share a bucket 2 ns wide, printed as
        // its middle rounded down (128 + 0.5 * 2 = 129); fio_jsonplus_clat2csv's example
        // shows 168960, 177152, 183296 and 1089536 ns, and its largest key is 17112760320.
        assert_eq!(plat_index(128), plat_index(129));
        assert_eq!(plat_value(plat_index(128)), 129);
        assert_eq!(plat_value(plat_index(130)), 131);
        for printed in [168_960, 177_152, 183_296, 1_089_536, 17_112_760_320] {
            assert_eq!(plat_value(plat_index(printed)), printed, "{printed}");
        }
        assert_eq!(plat_value(PLAT_NR - 1), 17_112_760_320);
    }

    #[test]
    fn hdr_buckets_re_bin_exactly() {
        let mut h = LatencyHistogram::new();
        let values = [
            5u64,
            127,
            128,
            129,
            4_000,
            4_001,
            1_000_000,
            1_000_999,
            3_000_000_000,
        ];
        for v in values {
            h.record(v);
        }
        let counts = plat_counts(&h);
        let total: u64 = counts.iter().map(|(_, c)| c).sum();
        assert_eq!(total, values.len() as u64);
        for v in values {
            let index = plat_index(v);
            let expected = values.iter().filter(|&&w| plat_index(w) == index).count() as u64;
            assert_eq!(
                counts.iter().find(|(i, _)| *i == index).map(|(_, c)| *c),
                Some(expected),
                "{v} ns"
            );
        }
    }
}
