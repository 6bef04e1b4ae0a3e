//! Per-interval (per-second by default) series of one worker, merging series of workers, and
//! regrouping a finer series into seconds.
//!
//! The recorder closes intervals lazily: `record` compares the timestamp with the end of the
//! current interval and only does work when an interval has elapsed, so the hot path costs one
//! compare plus a few adds and a coarse histogram update. Intervals with no IO are emitted as
//! zero samples, so a stall shows up as zeros instead of vanishing from the series.
//!
//! Per interval and direction only the count, bytes, mean latency and p99 latency are kept. The
//! p99 comes from a coarse HDR histogram (2 significant digits, <= 1 % relative error) reset at
//! every interval. A p99 of merged series is the larger of the workers' p99s: an upper bound of
//! the true p99 of the combined IOs, not the exact value.

use diskmeter_units::Direction;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::histogram::MAX_LATENCY_NS;

/// One direction of one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalDirection {
    /// IOs completed in the interval.
    pub ios: u64,
    /// Bytes transferred in the interval.
    pub bytes: u64,
    /// IOs per second over the interval's duration.
    pub iops: f64,
    /// Bytes per second over the interval's duration.
    pub bytes_per_sec: f64,
    /// Exact mean latency of the interval's IOs, ns; 0 without IOs.
    pub lat_mean_ns: f64,
    /// 99th percentile latency of the interval's IOs, ns (2 significant digits); 0 without IOs.
    /// For merged series: the largest worker's p99, an upper bound of the combined p99.
    pub lat_p99_ns: u64,
    /// Exact mean latency of the interval's IOs from their intended issue times, ns: a
    /// rate-limited or replayed job's schedule (`lat_intended`), so a stall that delayed IOs
    /// shows in the seconds they completed in; 0 for a job that was not paced, without IOs, and
    /// in results saved before it was kept.
    #[serde(default)]
    pub lat_intended_mean_ns: f64,
}

/// One interval of a series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalSample {
    /// Start of the interval, ms since measurement start (ramp excluded).
    pub start_ms: u64,
    /// Length of the interval, ms; the last interval of a series may be shorter than the others.
    pub duration_ms: u64,
    /// Reads in the interval.
    pub read: IntervalDirection,
    /// Writes in the interval.
    pub write: IntervalDirection,
}

/// Running totals of one direction in the open interval.
#[derive(Debug, Clone)]
struct Accumulator {
    ios: u64,
    bytes: u64,
    lat_sum_ns: u128,
    lat_intended_sum_ns: u128,
    /// 32-bit counts: an interval would need 2^32 IOs to fill one (a second at a million
    /// IOPS holds 10^6), and the counts then saturate rather than wrap.
    hist: Histogram<u32>,
}

impl Accumulator {
    fn new() -> Self {
        // Sized for the values seen (auto-resize), not for the whole hour: at 2 digits a
        // power of two costs 512 bytes, so a worker whose IOs take up to 100 ms keeps ~10 KiB.
        let mut hist = Histogram::new_with_bounds(1, 2, 2).expect("constant bounds are valid");
        hist.auto(true);
        Accumulator {
            ios: 0,
            bytes: 0,
            lat_sum_ns: 0,
            lat_intended_sum_ns: 0,
            hist,
        }
    }

    /// Computes the closed interval's figures and clears the totals for the next interval.
    fn take(&mut self, duration_ns: u64) -> IntervalDirection {
        if self.ios == 0 {
            return IntervalDirection::default();
        }
        let seconds = duration_ns as f64 / 1e9;
        let rate = |x: u64| {
            if seconds > 0.0 {
                x as f64 / seconds
            } else {
                0.0
            }
        };
        let out = IntervalDirection {
            ios: self.ios,
            bytes: self.bytes,
            iops: rate(self.ios),
            bytes_per_sec: rate(self.bytes),
            lat_mean_ns: self.lat_sum_ns as f64 / self.ios as f64,
            lat_p99_ns: self.hist.value_at_quantile(0.99),
            lat_intended_mean_ns: self.lat_intended_sum_ns as f64 / self.ios as f64,
        };
        self.ios = 0;
        self.bytes = 0;
        self.lat_sum_ns = 0;
        self.lat_intended_sum_ns = 0;
        // Only reset a histogram that was used: resetting zeroes the whole bucket array.
        self.hist.reset();
        out
    }
}

/// Builds the per-interval series of one worker. Not shared between threads: one per worker.
#[derive(Debug, Clone)]
pub struct IntervalRecorder {
    interval_ns: u64,
    start_ns: u64,
    end_ns: u64,
    dirs: [Accumulator; 2],
    samples: Vec<IntervalSample>,
}

impl IntervalRecorder {
    /// A recorder with intervals of `interval_ns` (1_000_000_000 for fio's per-second samples);
    /// use whole milliseconds, since samples carry millisecond times. 0 is treated as 1 ms.
    pub fn new(interval_ns: u64) -> Self {
        let interval_ns = interval_ns.max(1_000_000);
        IntervalRecorder {
            interval_ns,
            start_ns: 0,
            end_ns: interval_ns,
            dirs: [Accumulator::new(), Accumulator::new()],
            // Grows by doubling as intervals close (at most once per interval, off the IO
            // path); an hour's room up front cost 450 KiB of address space per worker.
            samples: Vec::with_capacity(64),
        }
    }

    /// Records one completed IO in `direction`; `now_ns` = completion time in ns since
    /// measurement start.
    #[inline]
    pub fn record(&mut self, direction: Direction, bytes: u64, lat_ns: u64, now_ns: u64) {
        if now_ns >= self.end_ns {
            self.close_until(now_ns);
        }
        let acc = &mut self.dirs[direction.index()];
        acc.ios += 1;
        acc.bytes += bytes;
        acc.lat_sum_ns += u128::from(lat_ns);
        // Clamped to the hour by hand: an auto-resizing histogram grows to any value (and
        // `saturating_record` would clamp to the array's current top instead of growing).
        // Cannot fail: the array grows to the value, and the hour fits in memory.
        let recorded = acc.hist.record(lat_ns.min(MAX_LATENCY_NS));
        debug_assert!(recorded.is_ok());
    }

    /// Adds the latency from its intended issue time of the IO just [`record`](Self::record)ed
    /// in `direction` (rate-limited and replayed jobs only: others never call it, so their
    /// hot path is unchanged).
    #[inline]
    pub fn record_intended(&mut self, direction: Direction, intended_lat_ns: u64) {
        self.dirs[direction.index()].lat_intended_sum_ns += u128::from(intended_lat_ns);
    }

    /// Closes the open interval and any empty ones up to the interval containing `now_ns`.
    #[cold]
    fn close_until(&mut self, now_ns: u64) {
        while now_ns >= self.end_ns {
            self.close(self.interval_ns);
        }
    }

    /// Emits the open interval with the given duration and opens the next one.
    fn close(&mut self, duration_ns: u64) {
        let [read, write] = &mut self.dirs;
        self.samples.push(IntervalSample {
            start_ms: self.start_ns / 1_000_000,
            duration_ms: duration_ns / 1_000_000,
            read: read.take(duration_ns),
            write: write.take(duration_ns),
        });
        self.start_ns = self.end_ns;
        self.end_ns = self.start_ns + self.interval_ns;
    }

    /// Ends the series at `end_ns` (ns since measurement start) and returns it. A final interval
    /// shorter than the others is kept, with its real duration, if it lasted at least 1 ms or
    /// holds IOs.
    pub fn finish(mut self, end_ns: u64) -> Vec<IntervalSample> {
        if end_ns >= self.end_ns {
            self.close_until(end_ns);
        }
        let rest = end_ns.saturating_sub(self.start_ns);
        let has_io = self.dirs.iter().any(|d| d.ios > 0);
        if rest >= 1_000_000 || has_io {
            self.close(rest);
        }
        self.samples
    }
}

/// Adds two directions of the same interval: counts and rates are summed, means weighted by IOs,
/// and the p99 is the larger one (an upper bound of the combined p99).
pub fn merge_direction(a: &IntervalDirection, b: &IntervalDirection) -> IntervalDirection {
    let ios = a.ios + b.ios;
    let weighted = |x: f64, y: f64| {
        if ios == 0 {
            0.0
        } else {
            (x * a.ios as f64 + y * b.ios as f64) / ios as f64
        }
    };
    IntervalDirection {
        ios,
        bytes: a.bytes + b.bytes,
        // Each rate is over its own worker's interval, so the sum is the combined rate even when
        // the last, short intervals of two workers differ in length.
        iops: a.iops + b.iops,
        bytes_per_sec: a.bytes_per_sec + b.bytes_per_sec,
        lat_mean_ns: weighted(a.lat_mean_ns, b.lat_mean_ns),
        lat_p99_ns: a.lat_p99_ns.max(b.lat_p99_ns),
        lat_intended_mean_ns: weighted(a.lat_intended_mean_ns, b.lat_intended_mean_ns),
    }
}

/// Merges the series of two workers, interval by interval, aligned on `start_ms` (workers share
/// the measurement start). An interval present in only one series is copied as is.
pub fn merge_series(a: &[IntervalSample], b: &[IntervalSample]) -> Vec<IntervalSample> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.start_ms == y.start_ms => {
                i += 1;
                j += 1;
                IntervalSample {
                    start_ms: x.start_ms,
                    duration_ms: x.duration_ms.max(y.duration_ms),
                    read: merge_direction(&x.read, &y.read),
                    write: merge_direction(&x.write, &y.write),
                }
            }
            (Some(x), Some(y)) if x.start_ms < y.start_ms => {
                i += 1;
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => unreachable!("loop condition"),
        };
        out.push(next);
    }
    out
}

/// Regroups `series` into windows of `window_ms` (a series sampled more finely, e.g. every
/// 100 ms under DiskSpd's `-D100`, as per-second samples): each sample joins the window its
/// start falls in; counts and bytes are summed, rates taken over the summed durations, means
/// weighted by IOs and the p99 is the largest (an upper bound, as for merged series). A series
/// already sampled at `window_ms` or more coarsely is returned as is.
pub fn resample_series(series: &[IntervalSample], window_ms: u64) -> Vec<IntervalSample> {
    let interval_ms = series.iter().map(|s| s.duration_ms).max().unwrap_or(0);
    if window_ms == 0 || interval_ms >= window_ms {
        return series.to_vec();
    }
    let mut out: Vec<IntervalSample> = Vec::new();
    for s in series {
        let start_ms = s.start_ms / window_ms * window_ms;
        match out.last_mut() {
            Some(w) if w.start_ms == start_ms => {
                let duration_ms = w.duration_ms + s.duration_ms;
                w.read = join_direction(&w.read, &s.read, duration_ms);
                w.write = join_direction(&w.write, &s.write, duration_ms);
                w.duration_ms = duration_ms;
            }
            _ => out.push(IntervalSample { start_ms, ..*s }),
        }
    }
    out
}

/// Two consecutive intervals of one series as one of `duration_ms`.
fn join_direction(
    a: &IntervalDirection,
    b: &IntervalDirection,
    duration_ms: u64,
) -> IntervalDirection {
    let mut joined = merge_direction(a, b);
    let seconds = duration_ms as f64 / 1000.0;
    if seconds > 0.0 {
        joined.iops = joined.ios as f64 / seconds;
        joined.bytes_per_sec = joined.bytes as f64 / seconds;
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: u64 = 1_000_000_000;

    #[test]
    fn intervals_close_at_their_boundaries() {
        let mut r = IntervalRecorder::new(SEC);
        r.record(Direction::Read, 4096, 100, 0);
        r.record(Direction::Read, 4096, 300, SEC - 1);
        // Exactly on the boundary belongs to the next interval.
        r.record(Direction::Write, 8192, 1_000, SEC);
        let s = r.finish(2 * SEC);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].start_ms, s[0].duration_ms), (0, 1_000));
        assert_eq!((s[0].read.ios, s[0].read.bytes), (2, 8192));
        assert_eq!(s[0].read.iops, 2.0);
        assert_eq!(s[0].read.lat_mean_ns, 200.0);
        assert_eq!(s[0].write, IntervalDirection::default());
        assert_eq!(
            (s[1].start_ms, s[1].write.ios, s[1].write.bytes_per_sec),
            (1_000, 1, 8192.0)
        );
    }

    #[test]
    fn idle_intervals_are_zero_samples() {
        let mut r = IntervalRecorder::new(SEC);
        r.record(Direction::Read, 1, 10, 10);
        r.record(Direction::Read, 1, 10, 3 * SEC + 5);
        let s = r.finish(4 * SEC);
        let ios: Vec<u64> = s.iter().map(|x| x.read.ios).collect();
        assert_eq!(ios, vec![1, 0, 0, 1]);
    }

    #[test]
    fn short_last_interval_keeps_its_duration() {
        let mut r = IntervalRecorder::new(SEC);
        r.record(Direction::Read, 1000, 10, SEC + 1);
        let s = r.finish(SEC + SEC / 2);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].duration_ms, 500);
        assert_eq!(s[1].read.iops, 2.0);
        assert_eq!(s[1].read.bytes_per_sec, 2000.0);
    }

    #[test]
    fn p99_is_within_the_coarse_precision() {
        let mut r = IntervalRecorder::new(SEC);
        for i in 1..=1000u64 {
            r.record(Direction::Read, 1, i * 1000, i);
        }
        let s = r.finish(SEC);
        let p99 = s[0].read.lat_p99_ns as f64;
        assert!((p99 - 990_000.0).abs() / 990_000.0 <= 0.01, "p99 {p99}");
    }

    #[test]
    fn merged_series_sums_and_bounds() {
        let mut a = IntervalRecorder::new(SEC);
        let mut b = IntervalRecorder::new(SEC);
        a.record(Direction::Read, 100, 1_000, 1);
        b.record(Direction::Read, 100, 3_000, 2);
        b.record(Direction::Read, 100, 3_000, 3);
        b.record(Direction::Read, 100, 3_000, SEC + 1);
        let m = merge_series(&a.finish(SEC), &b.finish(2 * SEC));
        assert_eq!(m.len(), 2);
        assert_eq!(
            (m[0].read.ios, m[0].read.bytes, m[0].read.iops),
            (3, 300, 3.0)
        );
        assert!((m[0].read.lat_mean_ns - 7_000.0 / 3.0).abs() < 1e-9);
        assert_eq!(m[0].read.lat_p99_ns, a_p99(3_000));
        assert_eq!(m[1].read.ios, 1);
    }

    #[test]
    fn a_fine_series_resamples_to_seconds() {
        let mut r = IntervalRecorder::new(SEC / 10);
        for i in 0..25u64 {
            r.record(Direction::Read, 4096, 1_000, i * SEC / 10 + 1);
        }
        let s = resample_series(&r.finish(2 * SEC + SEC / 2), 1000);
        let shape: Vec<(u64, u64, u64)> = s
            .iter()
            .map(|x| (x.start_ms, x.duration_ms, x.read.ios))
            .collect();
        assert_eq!(shape, vec![(0, 1000, 10), (1000, 1000, 10), (2000, 500, 5)]);
        assert_eq!((s[0].read.iops, s[2].read.iops), (10.0, 10.0));
        assert_eq!(s[1].read.bytes_per_sec, 40960.0);
        // Already per second: unchanged.
        assert_eq!(resample_series(&s[..2], 1000), s[..2].to_vec());
    }

    /// The coarse histogram's answer for a single value.
    fn a_p99(value: u64) -> u64 {
        let mut h = Histogram::<u64>::new_with_bounds(1, MAX_LATENCY_NS, 2).unwrap();
        h.record(value).unwrap();
        h.value_at_quantile(0.99)
    }
}
