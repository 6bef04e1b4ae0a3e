//! The in-engine throttle: one set of token buckets shared by every worker of a run, the way
//! a cloud VM or volume caps IOPS and bandwidth for everything behind it.
//!
//! fio's `rate_iops`/`rate` pace each job on its own; a cloud cap is one budget that all
//! IO shares, so four jobs at queue depth 16 under a 2,000 IOPS cap get 2,000 together and
//! each IO waits its turn. Here an IO *reserves* its tokens when the worker wants to issue
//! it and is submitted when its turn comes; the worker keeps the IO's start time from the
//! moment it wanted it, so the wait is in the IO's latency (at the cap, mean latency grows
//! as QD / IOPS: the throttling signature). Reservations are served in the order they are
//! made, like the queue in front of a throttled device.
//!
//! Each cap is a GCRA bucket (the "virtual scheduling" form of a token bucket): a
//! theoretical arrival time advances by one IO's cost (1/IOPS, or bytes/bandwidth) per
//! IO, and an IO may go once it is no more than [`BURST_NS`] ahead of the clock. The
//! bucket starts empty and its depth is 1/20 s of the rate (at least one IO, however large):
//! enough that the jitter of a sleeping worker does not lose throughput, small enough that
//! a short measurement is not inflated by a stored burst. The buckets work in
//! "nanoseconds x rate" units, so no rounding drifts the rate.

use diskmeter_units::Direction;
use serde::Serialize;
use std::sync::Mutex;

/// How far ahead of the clock the buckets let IO run: the bucket depth, as time at the
/// cap's rate (1/20 s: 100 IOs at 2,000 IOPS, 2.5 MiB at 50 MiB/s).
pub const BURST_NS: u64 = 50_000_000;

const NS_PER_SEC: u128 = 1_000_000_000;

/// The caps of the in-engine throttle, shared by every worker of a run; `None` = uncapped.
/// A direction's IO counts against the total caps and against that direction's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ThrottleLimits {
    /// IOs per second, reads and writes together.
    pub iops: Option<u64>,
    /// Bytes per second, reads and writes together.
    pub bytes_per_sec: Option<u64>,
    /// Reads per second.
    pub read_iops: Option<u64>,
    /// Writes per second.
    pub write_iops: Option<u64>,
    /// Bytes read per second.
    pub read_bytes_per_sec: Option<u64>,
    /// Bytes written per second.
    pub write_bytes_per_sec: Option<u64>,
    /// A service time added to every read and write at completion (`--throttle-latency`;
    /// [`crate::service_time`]).
    pub latency: Option<crate::service_time::ServiceTime>,
}

impl ThrottleLimits {
    /// True when no cap is set.
    pub fn is_unlimited(&self) -> bool {
        self.caps().iter().all(|(_, _, value)| value.is_none())
    }

    /// Every cap as (name, applies to [reads, writes], value), in a fixed order.
    fn caps(&self) -> [(&'static str, [bool; 2], Option<u64>); 6] {
        [
            ("IOPS", [true, true], self.iops),
            ("bandwidth", [true, true], self.bytes_per_sec),
            ("read IOPS", [true, false], self.read_iops),
            ("write IOPS", [false, true], self.write_iops),
            ("read bandwidth", [true, false], self.read_bytes_per_sec),
            ("write bandwidth", [false, true], self.write_bytes_per_sec),
        ]
    }

    /// A cap of zero, which would stop all IO: named, for the error.
    pub fn zero_cap(&self) -> Option<&'static str> {
        self.caps()
            .into_iter()
            .find(|(_, _, value)| *value == Some(0))
            .map(|(name, _, _)| name)
    }

    /// The caps in words: "2,000 IOPS, 50.0 MiB/s bandwidth".
    pub fn describe(&self) -> String {
        self.caps()
            .into_iter()
            .filter_map(|(name, _, value)| {
                let value = value?;
                Some(match name.strip_suffix("bandwidth") {
                    Some(direction) => format!(
                        "{} {direction}bandwidth",
                        diskmeter_units::format_rate_binary(value as f64)
                    ),
                    None => format!("{} {name}", diskmeter_units::format_thousands(value)),
                })
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One cap: a GCRA bucket in units of nanoseconds x rate.
#[derive(Debug)]
struct Bucket {
    /// Which directions it counts: [reads, writes].
    applies: [bool; 2],
    /// The cap per second (IOs or bytes).
    rate: u128,
    /// It costs bytes (a bandwidth cap), not IOs.
    per_byte: bool,
    /// Theoretical arrival time of the next IO, in ns x rate; `None` until the first IO.
    tat: Option<u128>,
    /// The depth, in ns x rate.
    burst: u128,
}

/// The shared buckets of a run. Workers call [`Throttle::reserve`] for every IO.
#[derive(Debug)]
pub struct Throttle {
    buckets: Mutex<Vec<Bucket>>,
}

impl Throttle {
    /// The buckets for `limits`; `None` when nothing is capped (zero caps are refused by
    /// the planner before this).
    pub fn new(limits: &ThrottleLimits) -> Option<Throttle> {
        let buckets: Vec<Bucket> = limits
            .caps()
            .into_iter()
            .filter_map(|(name, applies, value)| {
                let rate = u128::from(value.filter(|&v| v > 0)?);
                Some(Bucket {
                    applies,
                    rate,
                    per_byte: name.ends_with("bandwidth"),
                    tat: None,
                    burst: u128::from(BURST_NS) * rate,
                })
            })
            .collect();
        (!buckets.is_empty()).then(|| Throttle {
            buckets: Mutex::new(buckets),
        })
    }

    /// Reserves the tokens of one IO of `bytes` in `direction` that a worker wants to issue
    /// at `now_ns`, and returns when it may be submitted (never before `now_ns`). The tokens
    /// are spent whether or not the IO is then issued.
    pub fn reserve(&self, direction: Direction, bytes: u64, now_ns: u64) -> u64 {
        let direction = direction.index();
        // A worker that panicked while holding the lock left the buckets consistent (the
        // update below cannot panic half-way), so a poisoned lock is still usable.
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let now = u128::from(now_ns);
        let mut grant = now;
        for bucket in buckets.iter_mut().filter(|b| b.applies[direction]) {
            // A bucket starts empty: its first IO is due now, the next one a cost later.
            let tat = *bucket.tat.get_or_insert(now * bucket.rate + bucket.burst);
            let earliest = tat.saturating_sub(bucket.burst).div_ceil(bucket.rate);
            grant = grant.max(earliest);
        }
        for bucket in buckets.iter_mut().filter(|b| b.applies[direction]) {
            let cost = if bucket.per_byte {
                u128::from(bytes.max(1)) * NS_PER_SEC
            } else {
                NS_PER_SEC
            };
            let tat = bucket.tat.unwrap_or(0).max(grant * bucket.rate);
            bucket.tat = Some(tat + cost);
        }
        u64::try_from(grant).unwrap_or(u64::MAX)
    }

    /// Gives back the bandwidth tokens of `bytes` of a reserved IO in `direction` that were
    /// not transferred (an IO that fio's random map cut short after its reservation), so a
    /// bandwidth cap counts the bytes done.
    pub fn refund(&self, direction: Direction, bytes: u64) {
        let direction = direction.index();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        for bucket in buckets
            .iter_mut()
            .filter(|b| b.per_byte && b.applies[direction])
        {
            if let Some(tat) = &mut bucket.tat {
                *tat = tat.saturating_sub(u128::from(bytes) * NS_PER_SEC);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(iops: Option<u64>, bytes_per_sec: Option<u64>) -> ThrottleLimits {
        ThrottleLimits {
            iops,
            bytes_per_sec,
            ..ThrottleLimits::default()
        }
    }

    #[test]
    fn no_caps_no_throttle() {
        assert!(Throttle::new(&ThrottleLimits::default()).is_none());
        assert!(ThrottleLimits::default().is_unlimited());
        assert_eq!(limits(Some(0), None).zero_cap(), Some("IOPS"));
    }

    #[test]
    fn refunded_bytes_are_not_counted_against_a_bandwidth_cap() {
        let t = Throttle::new(&limits(Some(1_000_000), Some(4096 * 1000))).unwrap();
        // 64 KiB reserved, 60 KiB of it cut: the next IO is due one 4 KiB IO later.
        assert_eq!(t.reserve(Direction::Read, 65536, 0), 0);
        t.refund(Direction::Read, 61440);
        assert_eq!(t.reserve(Direction::Read, 4096, 0), 1_000_000);
    }

    #[test]
    fn an_iops_cap_spaces_ios_by_one_over_the_rate() {
        let t = Throttle::new(&limits(Some(2000), None)).unwrap();
        // Everyone asks at once: the grants are 500 us apart, first one now.
        let grants: Vec<u64> = (0..5)
            .map(|_| t.reserve(Direction::Read, 4096, 1_000_000))
            .collect();
        assert_eq!(
            grants,
            [1_000_000, 1_500_000, 2_000_000, 2_500_000, 3_000_000]
        );
        // Writes count against the total cap too.
        assert_eq!(t.reserve(Direction::Write, 4096, 1_000_000), 3_500_000);
    }

    #[test]
    fn a_rate_with_no_whole_period_does_not_drift() {
        // 3,000 IOPS: 333,333.3 ns per IO; 3,000 IOs take exactly one second.
        let t = Throttle::new(&limits(Some(3000), None)).unwrap();
        let last = (0..=3000)
            .map(|_| t.reserve(Direction::Read, 512, 0))
            .last()
            .unwrap();
        assert_eq!(last, 1_000_000_000);
    }

    #[test]
    fn a_bandwidth_cap_charges_bytes() {
        // 64 KiB at 50 MiB/s: 1.25 ms each.
        let t = Throttle::new(&limits(None, Some(50 << 20))).unwrap();
        let grants: Vec<u64> = (0..3)
            .map(|_| t.reserve(Direction::Read, 64 << 10, 0))
            .collect();
        assert_eq!(grants, [0, 1_250_000, 2_500_000]);
        // A 1 MiB IO costs 16 of them.
        assert_eq!(t.reserve(Direction::Read, 1 << 20, 0), 3_750_000);
        assert_eq!(
            t.reserve(Direction::Read, 64 << 10, 0),
            3_750_000 + 20_000_000
        );
    }

    #[test]
    fn the_tighter_cap_binds() {
        // 5,000 IOPS and 200 MiB/s: 4 KiB IOs meet the IOPS cap, 64 KiB ones the bandwidth.
        let t = Throttle::new(&limits(Some(5000), Some(200 << 20))).unwrap();
        let small: Vec<u64> = (0..3)
            .map(|_| t.reserve(Direction::Read, 4096, 0))
            .collect();
        assert_eq!(small, [0, 200_000, 400_000]);
        let t = Throttle::new(&limits(Some(5000), Some(200 << 20))).unwrap();
        let large: Vec<u64> = (0..3)
            .map(|_| t.reserve(Direction::Read, 64 << 10, 0))
            .collect();
        assert_eq!(large, [0, 312_500, 625_000]);
    }

    #[test]
    fn direction_caps_apply_to_their_direction_only() {
        let t = Throttle::new(&ThrottleLimits {
            read_iops: Some(1000),
            ..ThrottleLimits::default()
        })
        .unwrap();
        assert_eq!(t.reserve(Direction::Read, 4096, 0), 0);
        assert_eq!(t.reserve(Direction::Read, 4096, 0), 1_000_000);
        // Writes are not capped.
        assert_eq!(t.reserve(Direction::Write, 4096, 0), 0);
        assert_eq!(t.reserve(Direction::Write, 4096, 0), 0);
    }

    #[test]
    fn an_idle_bucket_fills_to_its_depth_and_no_further() {
        let t = Throttle::new(&limits(Some(2000), None)).unwrap();
        assert_eq!(t.reserve(Direction::Read, 4096, 0), 0);
        // Idle for 10 s: the bucket holds 1/20 s of IO (100 IOs), then the pace resumes.
        let at = 10_000_000_000;
        let grants: Vec<u64> = (0..102)
            .map(|_| t.reserve(Direction::Read, 4096, at))
            .collect();
        assert!(grants[..101].iter().all(|&g| g == at), "{grants:?}");
        assert_eq!(grants[101], at + 500_000);
    }

    #[test]
    fn a_cap_is_described_in_its_units() {
        let text = ThrottleLimits {
            iops: Some(8000),
            write_bytes_per_sec: Some(200 << 20),
            ..ThrottleLimits::default()
        }
        .describe();
        assert_eq!(text, "8,000 IOPS, 200.0 MiB/s write bandwidth");
    }
}
