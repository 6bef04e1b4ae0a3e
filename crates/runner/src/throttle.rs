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
//!
//! A cap may burst (`--throttle-burst-iops`, `--throttle-burst-bw`, `--throttle-burst-time`),
//! as a cloud disk with credit bursting does (Azure P1-P20, AWS gp2): the cap is then the
//! baseline, and a credit bucket of `(burst - baseline) x time` IOs (or bytes) lets the run go
//! at up to the burst rate while it holds credits. Credits accrue at the baseline rate up to
//! the bucket's size and each IO spends one (each byte, for bandwidth), so IO above the
//! baseline drains the bucket and IO below it refills it; a full bucket lasts exactly `time`
//! at the burst rate, then the run goes at the baseline. The bucket starts full, as a new
//! cloud disk's does. In GCRA terms that is two buckets on one cap: the burst rate with the
//! usual 1/20 s depth, and the baseline rate whose depth is the credit bucket (so a worker
//! that wakes late loses nothing once the credits are spent: the baseline's arrival time
//! stays ahead of the clock).

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
    /// The IOPS the `iops` cap (the baseline) bursts to while its credit bucket holds credits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_iops: Option<u64>,
    /// The bandwidth, bytes/s, the `bytes_per_sec` cap bursts to while its bucket holds
    /// credits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_bytes_per_sec: Option<u64>,
    /// How long a full bucket sustains the burst rate, ns: the bucket holds
    /// `(burst - baseline) x this` IOs or bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_ns: Option<u64>,
}

impl ThrottleLimits {
    /// Refuses limits that cannot work (a zero cap, a burst that makes no sense) and gives the
    /// run plan's notes about the rest: the shared caps, the service time.
    pub fn checked_notes(&self) -> Result<Vec<String>, crate::ThrottleError> {
        if let Some(cap) = self.zero_cap() {
            return Err(crate::ThrottleError::ZeroCap { cap });
        }
        if let Some(problem) = self.burst_problem() {
            return Err(crate::ThrottleError::Burst(problem));
        }
        let mut notes = Vec::new();
        if !self.is_unlimited() {
            notes.push(format!(
                "in-engine throttle: {} shared by all workers; each IO's latency counts from \
                 when its worker wanted to issue it, so it includes the wait for its turn",
                self.describe()
            ));
        }
        if let Some(latency) = self.latency {
            notes.push(format!(
                "in-engine service time: {latency}, added to each read and write at \
                 completion, its slot busy meanwhile"
            ));
        }
        Ok(notes)
    }

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

    /// Why the burst settings make no sense, naming the option: a burst without its baseline
    /// cap, a burst not above it, a burst rate or a time without the other.
    pub fn burst_problem(&self) -> Option<String> {
        let time = "--throttle-burst-time";
        let bursts = [
            (
                "--throttle-burst-iops",
                "--throttle-iops",
                self.burst_iops,
                self.iops,
            ),
            (
                "--throttle-burst-bw",
                "--throttle-bw",
                self.burst_bytes_per_sec,
                self.bytes_per_sec,
            ),
        ];
        for (flag, base_flag, burst, base) in bursts {
            let Some(burst) = burst else { continue };
            match base {
                None => return Some(format!("{flag} needs {base_flag}, the baseline it bursts from")),
                Some(base) if burst <= base => {
                    return Some(format!(
                        "{flag} {burst} is not above {base_flag} {base}: a burst rate is above the baseline"
                    ))
                }
                _ => {}
            }
            if self.burst_ns.is_none() {
                return Some(format!(
                    "{flag} needs {time}, how long a full bucket lasts at the burst rate"
                ));
            }
        }
        match self.burst_ns {
            Some(0) => Some(format!("{time} 0 would make an empty bucket: give a positive time")),
            Some(_) if self.burst_iops.is_none() && self.burst_bytes_per_sec.is_none() => Some(format!(
                "{time} needs --throttle-burst-iops or --throttle-burst-bw, the rate the bucket sustains"
            )),
            _ => None,
        }
    }

    /// The caps in words: "2,000 IOPS, 50.0 MiB/s bandwidth", with a burst as "500 IOPS
    /// bursting to 3,500 for 12 s (a bucket of 36,000 IOs)".
    pub fn describe(&self) -> String {
        self.caps()
            .into_iter()
            .filter_map(|(name, _, value)| {
                let value = value?;
                let (burst, bucket) = self.burst_of(name, value).unzip();
                let rate = |v: u64| match name.ends_with("bandwidth") {
                    true => diskmeter_units::format_rate_binary(v as f64),
                    false => diskmeter_units::format_thousands(v),
                };
                let mut text = match name.strip_suffix("bandwidth") {
                    Some(direction) => format!("{} {direction}bandwidth", rate(value)),
                    None => format!("{} {name}", rate(value)),
                };
                if let (Some(burst), Some(bucket)) = (burst, bucket) {
                    let seconds = self.burst_ns.unwrap_or(0) as f64 / 1e9;
                    let bucket = match name.ends_with("bandwidth") {
                        true => diskmeter_units::format_bytes_binary(
                            u64::try_from(bucket / NS_PER_SEC).unwrap_or(u64::MAX),
                        ),
                        false => format!(
                            "{} IOs",
                            diskmeter_units::format_thousands(
                                u64::try_from(bucket / NS_PER_SEC).unwrap_or(u64::MAX)
                            )
                        ),
                    };
                    text += &format!(
                        " bursting to {} for {seconds} s (a bucket of {bucket})",
                        rate(burst)
                    );
                }
                Some(text)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The burst rate of cap `name` (baseline `base`) and its credit bucket in ns x rate
    /// units: `(burst - baseline) x time` IOs or bytes, times 10^9.
    fn burst_of(&self, name: &str, base: u64) -> Option<(u64, u128)> {
        let burst = match name {
            "IOPS" => self.burst_iops?,
            "bandwidth" => self.burst_bytes_per_sec?,
            _ => return None,
        };
        let time = u128::from(self.burst_ns.filter(|&t| t > 0)?);
        (burst > base).then(|| (burst, u128::from(burst - base) * time))
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
    /// It starts full (a credit bucket) rather than empty.
    starts_full: bool,
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
            .flat_map(|(name, applies, value)| {
                let value = value.filter(|&v| v > 0);
                let pacing = |rate: u64| Bucket {
                    applies,
                    rate: u128::from(rate),
                    per_byte: name.ends_with("bandwidth"),
                    tat: None,
                    burst: u128::from(BURST_NS) * u128::from(rate),
                    starts_full: false,
                };
                match value.map(|v| (v, limits.burst_of(name, v))) {
                    None => vec![],
                    Some((v, None)) => vec![pacing(v)],
                    // The burst rate paces as a plain cap; the baseline's bucket is as deep
                    // as the credits, and full.
                    Some((v, Some((burst, credits)))) => vec![
                        pacing(burst),
                        Bucket {
                            burst: credits,
                            starts_full: true,
                            ..pacing(v)
                        },
                    ],
                }
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
            // A pacing bucket starts empty: its first IO is due now, the next one a cost
            // later. A credit bucket starts full.
            let start = now * bucket.rate + if bucket.starts_full { 0 } else { bucket.burst };
            let tat = *bucket.tat.get_or_insert(start);
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

    fn bursting(iops: u64, burst: u64, seconds: u64) -> Throttle {
        Throttle::new(&ThrottleLimits {
            iops: Some(iops),
            burst_iops: Some(burst),
            burst_ns: Some(seconds * 1_000_000_000),
            ..ThrottleLimits::default()
        })
        .unwrap()
    }

    /// Grants of `count` IOs from a saturating worker: each one asks when the previous went.
    fn saturate(t: &Throttle, from_ns: u64, count: usize) -> Vec<u64> {
        let mut now = from_ns;
        (0..count)
            .map(|_| {
                now = t.reserve(Direction::Read, 4096, now);
                now
            })
            .collect()
    }

    #[test]
    fn a_full_bucket_lasts_its_time_at_the_burst_rate_then_the_baseline() {
        // 500 IOPS bursting to 3,500 for 12 s: 36,000 IO credits, spent at 3,000 a second.
        let t = bursting(500, 3500, 12);
        let grants = saturate(&t, 0, 3500 * 12 + 1000);
        // The burst rate's spacing (1/3,500 s), exactly, through the 12th second.
        let in_burst = grants.iter().take_while(|&&g| g < 12_000_000_000).count();
        assert_eq!(in_burst, 3500 * 12);
        let gap = |i: usize| grants[i + 1] - grants[i];
        assert!((0..in_burst - 1).all(|i| gap(i) <= 285_715), "{}", gap(100));
        // Then the baseline's (2 ms), with no catch-up burst.
        assert!((in_burst + 1..grants.len() - 1).all(|i| gap(i) == 2_000_000));
        assert_eq!(grants[in_burst], 12_000_000_000);
    }

    #[test]
    fn an_idle_bucket_refills_at_the_baseline_rate() {
        let t = bursting(500, 3500, 12);
        let drained = *saturate(&t, 0, 3500 * 12 + 10).last().unwrap();
        // 4 s idle refills 2,000 credits: the IOs above the baseline's 500 a second until the
        // pace falls to the baseline are those credits (the first 1/20 s of them at once).
        let above = |grants: &[u64], from: u64| {
            let fast = grants
                .windows(2)
                .take_while(|w| w[1] - w[0] < 2_000_000)
                .count();
            let seconds = (grants[fast] - from) as f64 / 1e9;
            (fast + 1) as f64 - 500.0 * seconds
        };
        let back = drained + 4_000_000_000;
        let grants = saturate(&t, back, 3000);
        assert!(
            (above(&grants, back) - 2000.0).abs() <= 2.0,
            "{}",
            above(&grants, back)
        );
        // Idle far longer than the bucket takes to fill: full again, and no fuller.
        let later = grants[grants.len() - 1] + 3_600_000_000_000;
        let grants = saturate(&t, later, 3500 * 13);
        assert!(
            (above(&grants, later) - 36_000.0).abs() <= 2.0,
            "{}",
            above(&grants, later)
        );
    }

    #[test]
    fn a_bandwidth_bucket_spends_bytes() {
        // 100 MiB/s bursting to 170 MiB/s for 2 s: 140 MiB of credits, spent at 70 MiB/s.
        let t = Throttle::new(&ThrottleLimits {
            bytes_per_sec: Some(100 << 20),
            burst_bytes_per_sec: Some(170 << 20),
            burst_ns: Some(2_000_000_000),
            ..ThrottleLimits::default()
        })
        .unwrap();
        let mut now = 0;
        let grants: Vec<u64> = (0..800)
            .map(|_| {
                now = t.reserve(Direction::Read, 1 << 20, now);
                now
            })
            .collect();
        let in_burst = grants.iter().take_while(|&&g| g < 2_000_000_000).count();
        assert!(
            in_burst.abs_diff(340) <= 1,
            "{in_burst} MiB in the first 2 s"
        );
        assert_eq!(grants[in_burst + 2] - grants[in_burst + 1], 10_000_000);
    }

    #[test]
    fn burst_nonsense_names_the_option() {
        let with = |iops, burst_iops, burst_ns| ThrottleLimits {
            iops,
            burst_iops,
            burst_ns,
            ..ThrottleLimits::default()
        };
        let problem = |l: ThrottleLimits| l.burst_problem().unwrap_or_default();
        assert!(problem(with(None, Some(3500), Some(1))).contains("needs --throttle-iops"));
        assert!(problem(with(Some(500), Some(400), Some(1))).contains("--throttle-burst-iops 400"));
        assert!(problem(with(Some(500), Some(3500), None)).contains("needs --throttle-burst-time"));
        assert!(
            problem(with(Some(500), Some(3500), Some(0))).starts_with("--throttle-burst-time 0")
        );
        assert!(problem(with(Some(500), None, Some(1))).starts_with("--throttle-burst-time needs"));
        assert_eq!(with(Some(500), Some(3500), Some(1)).burst_problem(), None);
        assert_eq!(
            with(Some(500), Some(3500), Some(12_000_000_000)).describe(),
            "500 IOPS bursting to 3,500 for 12 s (a bucket of 36,000 IOs)"
        );
    }
}
