//! `Buckets`: the HDR bucket counts behind a `LatencyHistogram`, kept as small as the values
//! recorded allow.
//!
//! Two savings, neither touching precision (3 significant digits, the bucket layout is the
//! same):
//! - the array starts at 1 ns ..= 2 ns and grows (HDR auto-resize) only to the largest value
//!   seen, never to the whole hour up front;
//! - counts are 32-bit while the histogram holds fewer than 2^32 values, so no bucket can
//!   overflow, and become 64-bit (a copy, once) when a record or merge would pass that. A
//!   worker at a million IOs a second reaches it after more than an hour.
//!
//! Widening copies every recorded bucket exactly; merging a 32-bit with a 64-bit array adds
//! bucket by bucket. Recording costs one predictable branch over a plain 64-bit histogram.

use hdrhistogram::serialization::{Serializer, V2SerializeError, V2Serializer};
use hdrhistogram::Histogram;

use crate::histogram::SIGNIFICANT_DIGITS;

/// Most values a 32-bit array holds: below this, no single bucket can overflow.
const NARROW_MAX: u64 = u32::MAX as u64;

/// The bucket counts of one histogram (lowest value 1 ns, [`SIGNIFICANT_DIGITS`] digits,
/// auto-resizing).
#[derive(Debug, Clone)]
pub(crate) enum Buckets {
    /// 32-bit counts: half the memory, while the total stays below 2^32.
    Narrow(Histogram<u32>),
    /// 64-bit counts, after the total passed 2^32 (or read back from bytes).
    Wide(Histogram<u64>),
}

/// The smallest auto-resizing array of counter type `T` (1 ns ..= 2 ns, 2,048 buckets).
fn smallest<T: hdrhistogram::Counter>() -> Histogram<T> {
    let mut hist =
        Histogram::new_with_bounds(1, 2, SIGNIFICANT_DIGITS).expect("constant bounds are valid");
    hist.auto(true);
    hist
}

impl Buckets {
    /// An empty 32-bit array of the smallest size.
    pub(crate) fn first() -> Buckets {
        Buckets::Narrow(smallest())
    }

    /// Records `count` values of `value` (at most the hour: the caller clamps).
    #[inline]
    pub(crate) fn record_n(&mut self, value: u64, count: u64) {
        // Cannot fail: the array grows to the value and the total stays in the counter type.
        let recorded = match self {
            Buckets::Narrow(hist) if hist.len() + count <= NARROW_MAX => {
                hist.record_n(value, count as u32)
            }
            this => this.widen().record_n(value, count),
        };
        debug_assert!(recorded.is_ok());
    }

    /// The 64-bit array, copying the 32-bit one into it first if needed.
    #[cold]
    #[inline(never)]
    fn widen(&mut self) -> &mut Histogram<u64> {
        if let Buckets::Narrow(narrow) = self {
            let mut wide = smallest::<u64>();
            for (value, count) in recorded_of(narrow) {
                let copied = wide.record_n(value, count);
                debug_assert!(copied.is_ok());
            }
            *self = Buckets::Wide(wide);
        }
        match self {
            Buckets::Wide(wide) => wide,
            Buckets::Narrow(_) => unreachable!("widened above"),
        }
    }

    /// Adds every value of `other` (exact: the layouts are the same).
    pub(crate) fn add(&mut self, other: &Buckets) {
        let fits = self.len() + other.len() <= NARROW_MAX;
        let added = match (&mut *self, other) {
            (Buckets::Narrow(ours), Buckets::Narrow(theirs)) if fits => ours.add(theirs).is_ok(),
            (Buckets::Wide(ours), Buckets::Wide(theirs)) => ours.add(theirs).is_ok(),
            (this, other) => {
                let wide = this.widen();
                other
                    .recorded()
                    .into_iter()
                    .all(|(value, count)| wide.record_n(value, count).is_ok())
            }
        };
        debug_assert!(added);
    }

    /// Adds a histogram read back from bytes (same lowest value and digits).
    pub(crate) fn add_wide(&mut self, other: Histogram<u64>) {
        self.add(&Buckets::Wide(other));
    }

    /// Number of values recorded.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Buckets::Narrow(hist) => hist.len(),
            Buckets::Wide(hist) => hist.len(),
        }
    }

    /// The top of the bucket holding the `quantile` (0..=1); 0 when empty.
    pub(crate) fn value_at_quantile(&self, quantile: f64) -> u64 {
        match self {
            Buckets::Narrow(hist) => hist.value_at_quantile(quantile),
            Buckets::Wide(hist) => hist.value_at_quantile(quantile),
        }
    }

    /// The recorded buckets as (lowest value of the bucket, count), ascending.
    pub(crate) fn recorded(&self) -> Vec<(u64, u64)> {
        match self {
            Buckets::Narrow(hist) => recorded_of(hist).collect(),
            Buckets::Wide(hist) => recorded_of(hist).collect(),
        }
    }

    /// Zeroes every count, keeping the array.
    pub(crate) fn reset(&mut self) {
        match self {
            Buckets::Narrow(hist) => hist.reset(),
            Buckets::Wide(hist) => hist.reset(),
        }
    }

    /// Appends the standard V2 encoding (counts up to the largest value; the same bytes for
    /// either counter width).
    pub(crate) fn serialize(&self, out: &mut Vec<u8>) -> Result<usize, V2SerializeError> {
        match self {
            Buckets::Narrow(hist) => V2Serializer::new().serialize(hist, out),
            Buckets::Wide(hist) => V2Serializer::new().serialize(hist, out),
        }
    }
}

/// The recorded buckets of `hist` as (lowest value of the bucket, count), ascending.
fn recorded_of<T: hdrhistogram::Counter>(
    hist: &Histogram<T>,
) -> impl Iterator<Item = (u64, u64)> + '_ {
    hist.iter_recorded().map(|step| {
        (
            hist.lowest_equivalent(step.value_iterated_to()),
            step.count_at_value().as_u64(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(b: &Buckets) -> Vec<(u64, u64)> {
        b.recorded()
    }

    #[test]
    fn widening_keeps_every_bucket() {
        let mut b = Buckets::first();
        for v in [1u64, 5, 2_047, 2_048, 123_456, 3_600_000_000_000] {
            b.record_n(v, 7);
        }
        let before = values(&b);
        b.widen();
        assert!(matches!(b, Buckets::Wide(_)));
        assert_eq!(values(&b), before);
        assert_eq!(b.len(), 42);
    }

    #[test]
    fn a_total_past_u32_widens_instead_of_saturating() {
        let mut b = Buckets::first();
        b.record_n(1_000, NARROW_MAX);
        assert!(matches!(b, Buckets::Narrow(_)));
        b.record_n(1_000, 2);
        assert!(matches!(b, Buckets::Wide(_)));
        assert_eq!(values(&b), vec![(1_000, NARROW_MAX + 2)]);
    }

    #[test]
    fn mixed_widths_and_sizes_merge_exactly() {
        let mut small = Buckets::first();
        small.record_n(100, 3);
        let mut large = Buckets::first();
        large.record_n(100, 1);
        large.record_n(5_000_000_000, 2);
        let mut wide = large.clone();
        wide.widen();

        let mut a = small.clone();
        a.add(&large);
        let mut b = small.clone();
        b.add(&wide);
        let mut c = wide.clone();
        c.add(&small);
        let expected = vec![(100, 4), (large_bucket_low(5_000_000_000), 2)];
        for merged in [&a, &b, &c] {
            assert_eq!(values(merged), expected);
        }
    }

    fn large_bucket_low(v: u64) -> u64 {
        smallest::<u64>().lowest_equivalent(v)
    }
}
