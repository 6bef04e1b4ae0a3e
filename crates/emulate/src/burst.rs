//! The credit bucket of an emulated bursting disk (Azure P1-P20 credit bursting, AWS gp2):
//! its figures (from a profile of the catalog, or `--burst-iops`, `--burst-bw`,
//! `--burst-time`) and its arithmetic, pure, for the controller that plays it on the cgroup.
//!
//! The model is the providers' (and the planner's, `diskmeter_plan::burst`): credits accrue
//! at the baseline rate up to the bucket's size; each IO (each byte, for bandwidth) spends one;
//! while the bucket holds credits the disk runs at up to the burst rate, when it is empty at
//! the baseline. A bucket holds `(burst - baseline) x time` credits, so a full one sustains the
//! burst rate for `time`; it starts full, as a new cloud disk's does.

use crate::{Caps, EmulateError};
use diskmeter_plan::catalog::DiskTier;
use diskmeter_units::{parse_rate, parse_size, parse_time_ns, KbBase, TimeUnit};
use serde::{Deserialize, Serialize};

/// The burst options, each as (flag, value name, help), in the order `emulate create` and
/// `--emulate-...` take them: IOPS, bandwidth, time.
pub const BURST_FLAGS: [(&str, &str, &str); 3] = [
    (
        "burst-iops",
        "N",
        "Burst IOPS while the credit bucket holds credits; the IOPS cap is the baseline (a bursting profile has its own)",
    ),
    (
        "burst-bw",
        "RATE",
        "Burst bandwidth (e.g. 170m = 170 MiB/s) while the bandwidth bucket holds credits; the bandwidth cap is the baseline",
    ),
    (
        "burst-time",
        "TIME",
        "How long a full bucket sustains the burst (e.g. 30m, 12s; s by default): it holds (burst - baseline) x TIME; 0 alone emulates a bursting profile with its credits spent",
    ),
];

const NS_PER_SEC: u128 = 1_000_000_000;

/// A disk's burst: the rates it bursts to above its caps (the baselines) and how long a full
/// bucket lasts at them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Burst {
    /// IOPS, reads and writes together, while the IOPS bucket holds credits.
    pub iops: Option<u64>,
    /// Bytes/s while the bandwidth bucket holds credits.
    pub bytes_per_sec: Option<u64>,
    /// How long a full bucket sustains the burst rate, ns.
    pub time_ns: u64,
}

impl Burst {
    /// The IOPS bucket over `caps`: (baseline, burst, size in IOs), when it bursts.
    pub fn iops_bucket(&self, caps: &Caps) -> Option<(u64, u64, u64)> {
        self.bucket(caps.read_iops.max(caps.write_iops), self.iops)
    }

    /// The bandwidth bucket over `caps`: (baseline, burst, size in bytes), when it bursts.
    pub fn bytes_bucket(&self, caps: &Caps) -> Option<(u64, u64, u64)> {
        let base = caps.read_bytes_per_sec.max(caps.write_bytes_per_sec);
        self.bucket(base, self.bytes_per_sec)
    }

    /// The bucket over `caps` in words: "bursts to 3,500 IOPS for 12 s (bucket 36,000 IOs),
    /// 170.0 MiB/s for 12 s (bucket 840.0 MiB)"; whole minutes as "30 min".
    pub fn describe(&self, caps: &Caps) -> String {
        use diskmeter_units::{format_bytes_binary, format_rate_binary, format_thousands};
        let time = match self.time_ns {
            ns if ns % 60_000_000_000 == 0 => format!("{} min", ns / 60_000_000_000),
            ns if ns % 1_000_000_000 == 0 => format!("{} s", ns / 1_000_000_000),
            ns => format!("{:.1} s", ns as f64 / 1e9),
        };
        let mut parts = Vec::new();
        if let Some((_, up, size)) = self.iops_bucket(caps) {
            let (up, size) = (format_thousands(up), format_thousands(size));
            parts.push(format!("{up} IOPS for {time} (bucket {size} IOs)"));
        }
        if let Some((_, up, size)) = self.bytes_bucket(caps) {
            let (up, size) = (format_rate_binary(up as f64), format_bytes_binary(size));
            parts.push(format!("{up} for {time} (bucket {size})"));
        }
        format!("bursts to {}", parts.join(", "))
    }

    fn bucket(&self, base: Option<u64>, burst: Option<u64>) -> Option<(u64, u64, u64)> {
        let (base, burst) = (base?, burst?);
        let size = u128::from(burst.checked_sub(base)?) * u128::from(self.time_ns) / NS_PER_SEC;
        Some((base, burst, u64::try_from(size).unwrap_or(u64::MAX)))
    }
}

/// The burst of a catalog tier with credit bursting (as emulated: its smallest volume for a
/// formula tier), `None` for one that does not burst. The IOPS bucket is the published one
/// (`bucket_ios`, gp2) or `burst_minutes` at the burst rate (Azure's 30 minutes), and the
/// bandwidth bucket the same minutes at the burst bandwidth; throughput-credit buckets sized
/// per GiB (st1, sc1) are not emulated.
pub fn tier_burst(tier: &DiskTier) -> Option<Burst> {
    if !tier.has_credit_burst() {
        return None;
    }
    let base = tier
        .iops
        .filter(|&b| tier.burst_iops.is_some_and(|x| x > b));
    let minutes_ns = tier.burst_minutes.map(|m| (m * 60e9).round() as u64);
    let time_ns = match (tier.bucket_ios, base, tier.burst_iops) {
        (Some(ios), Some(base), Some(burst)) => Some((ios / (burst - base) * 1e9).ceil() as u64),
        _ => minutes_ns,
    }?;
    let to_bytes = |mibps: f64| (mibps * f64::from(1u32 << 20)).round() as u64;
    let bursts_bw = tier
        .burst_mibps
        .filter(|&x| tier.mibps.is_some_and(|b| x > b));
    let burst = Burst {
        iops: base.and(tier.burst_iops).map(|v| v.round() as u64),
        bytes_per_sec: minutes_ns.and(bursts_bw).map(to_bytes),
        time_ns,
    };
    (burst.iops.is_some() || burst.bytes_per_sec.is_some()).then_some(burst)
}

/// The burst of a disk with `caps`: the profile's (`profile`, if it bursts) with the given
/// figures over it (`given`: `--burst-iops`, `--burst-bw`, `--burst-time` as typed). A burst
/// without its baseline cap, not above it, or without a time is refused naming the flag; a
/// time of 0 alone is the tier with its credits spent (its baseline caps, no bucket);
/// `prefix` is put before the flag's name (`emulate-` for `run --emulate-burst-iops`).
pub fn burst_for(
    profile: Option<Burst>,
    caps: &Caps,
    given: [Option<&str>; 3],
    prefix: &str,
) -> Result<Option<Burst>, EmulateError> {
    let flag = |i: usize| format!("{prefix}{}", BURST_FLAGS[i].0);
    let wrong = |i: usize, problem: String| EmulateError::Burst {
        flag: flag(i),
        problem,
    };
    let unit = |i: usize, e| EmulateError::Value {
        flag: flag(i),
        problem: e,
    };
    let iops = given[0]
        .map(|t| parse_size(t, KbBase::Binary).map_err(|e| unit(0, e)))
        .transpose()?;
    let bytes = given[1]
        .map(|t| parse_rate(t).map_err(|e| unit(1, e)))
        .transpose()?;
    let time = given[2]
        .map(|t| parse_time_ns(t, TimeUnit::Seconds).map_err(|e| unit(2, e)))
        .transpose()?;
    let burst = Burst {
        iops: iops.or(profile.and_then(|p| p.iops)),
        bytes_per_sec: bytes.or(profile.and_then(|p| p.bytes_per_sec)),
        time_ns: match (time, profile) {
            // No seconds of credits and no rate given: the tier with its credits spent.
            (Some(0), _) if iops.is_none() && bytes.is_none() => return Ok(None),
            (Some(t), _) => t,
            (None, Some(p)) => p.time_ns,
            (None, None) if iops.is_some() || bytes.is_some() => {
                return Err(wrong(2, "is needed with a burst rate".into()))
            }
            (None, None) => return Ok(None),
        },
    };
    if burst.time_ns == 0 {
        return Err(wrong(
            2,
            "0 would make an empty bucket: give a positive time".into(),
        ));
    }
    let baselines = [
        (
            caps.read_iops.max(caps.write_iops),
            burst.iops,
            "an IOPS cap (--iops)",
        ),
        (
            caps.read_bytes_per_sec.max(caps.write_bytes_per_sec),
            burst.bytes_per_sec,
            "a bandwidth cap (--bw)",
        ),
    ];
    for (i, (base, rate, what)) in baselines.into_iter().enumerate() {
        match (base, rate) {
            (None, Some(_)) => return Err(wrong(i, format!("needs {what}, the baseline"))),
            (Some(base), Some(rate)) if rate <= base => {
                return Err(wrong(i, format!("{rate} is not above the baseline {base}")))
            }
            _ => {}
        }
    }
    if burst.iops.is_none() && burst.bytes_per_sec.is_none() {
        return Err(wrong(
            2,
            "needs a burst rate (--burst-iops or --burst-bw)".into(),
        ));
    }
    Ok(Some(burst))
}

/// One credit bucket as the controller plays it: credits in units x ns (so a tick's refill,
/// `baseline x ns`, is exact), drained by the IO done and refilled at the baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket {
    /// Baseline rate, per second.
    pub baseline: u64,
    /// Burst rate, per second.
    pub burst: u64,
    /// Size, credits (IOs or bytes).
    pub size: u64,
    /// Credits held, x 10^9.
    credits: u128,
}

impl Bucket {
    /// A full bucket.
    pub fn full(baseline: u64, burst: u64, size: u64) -> Bucket {
        Bucket {
            baseline,
            burst,
            size,
            credits: u128::from(size) * NS_PER_SEC,
        }
    }

    /// Credits held.
    pub fn credits(&self) -> u64 {
        u64::try_from(self.credits / NS_PER_SEC).unwrap_or(u64::MAX)
    }

    /// Accounts `done` IOs (or bytes) over the last `elapsed_ns`: the refill at the baseline
    /// rate in, the IO out, kept between empty and full.
    pub fn spend(&mut self, done: u64, elapsed_ns: u64) {
        let refill = u128::from(self.baseline) * u128::from(elapsed_ns);
        let full = u128::from(self.size) * NS_PER_SEC;
        let spent = u128::from(done) * NS_PER_SEC;
        self.credits = (self.credits + refill).saturating_sub(spent).min(full);
    }

    /// The rate to allow for the next `period_ns`: the burst rate while the bucket holds a
    /// period's worth of credits above the baseline, then what the credits left pay for over
    /// the period (so the step-down lands inside the period, not a period late), then the
    /// baseline. One period's refill is kept back: at the baseline the kernel's throttle lets
    /// a period's IO through a little early or late, which would otherwise leave a few
    /// credits every other period and lift the cap by them (at 500 IOPS, +-10 % a period).
    pub fn rate(&self, period_ns: u64) -> u64 {
        let floor = u128::from(self.baseline) * u128::from(period_ns);
        let above = self.credits.saturating_sub(floor) / u128::from(period_ns.max(1));
        let rate = u128::from(self.baseline) + above;
        u64::try_from(rate.min(u128::from(self.burst))).unwrap_or(self.burst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: u64 = 100_000_000;

    /// Plays a bucket under a demand of `want` a second: each tick does what the rate allows,
    /// returns the rate of every tick.
    fn play(bucket: &mut Bucket, want: u64, ticks: usize) -> Vec<u64> {
        (0..ticks)
            .map(|_| {
                let rate = bucket.rate(TICK).min(want);
                bucket.spend(rate / 10, TICK);
                rate
            })
            .collect()
    }

    #[test]
    fn a_full_bucket_lasts_size_over_burst_minus_baseline() {
        // 500 bursting to 3,500 for 12 s: 36,000 credits, spent at 3,000 a second; the last
        // tick's worth (one period's refill, 50 credits) is kept back.
        let mut bucket = Bucket::full(500, 3500, 36_000);
        let rates = play(&mut bucket, 10_000, 200);
        let burst_ticks = rates.iter().take_while(|&&r| r == 3500).count();
        assert_eq!(burst_ticks, 119);
        assert_eq!(rates[119], 3000);
        assert!(
            rates[120..].iter().all(|&r| r == 500),
            "{:?}",
            &rates[118..125]
        );
        let above: u64 = rates.iter().map(|r| (r - 500) / 10).sum();
        assert_eq!(above, 36_000 - 50);
    }

    #[test]
    fn the_step_down_lands_inside_its_tick() {
        // 36,100 credits: 12 s at the burst, then 50 credits above the kept-back tick's.
        let mut bucket = Bucket::full(500, 3500, 36_100);
        let rates = play(&mut bucket, 10_000, 130);
        assert_eq!(&rates[119..123], &[3500, 1000, 500, 500]);
    }

    #[test]
    fn at_the_baseline_a_few_credits_do_not_lift_the_cap() {
        let mut bucket = Bucket::full(500, 3500, 36_000);
        bucket.spend(36_000, 0);
        // The kernel let 45 IOs through in a tick where the baseline pays for 50.
        bucket.spend(45, TICK);
        assert_eq!(bucket.rate(TICK), 500);
    }

    #[test]
    fn idle_refills_at_the_baseline_and_no_further_than_full() {
        let mut bucket = Bucket::full(500, 3500, 36_000);
        play(&mut bucket, 10_000, 200);
        // Drained to the tick's worth it keeps back (50); 4 s at 500 less 100 IOs done.
        assert_eq!(bucket.credits(), 50);
        bucket.spend(100, 4_000_000_000);
        assert_eq!(bucket.credits(), 1950);
        bucket.spend(0, 3_600_000_000_000);
        assert_eq!(bucket.credits(), 36_000);
        // Below the baseline, it fills by the unused part.
        let mut bucket = Bucket::full(500, 3500, 36_000);
        bucket.spend(36_000, 0);
        bucket.spend(300, 1_000_000_000);
        assert_eq!(bucket.credits(), 200);
    }

    #[test]
    fn figures_come_from_the_profile_or_the_flags_and_nonsense_is_refused() {
        let caps = Caps {
            read_iops: Some(500),
            write_iops: Some(500),
            ..Caps::default()
        };
        let b = burst_for(None, &caps, [Some("3500"), None, Some("12s")], "")
            .unwrap()
            .unwrap();
        assert_eq!(b.iops_bucket(&caps), Some((500, 3500, 36_000)));
        assert_eq!(b.bytes_bucket(&caps), None);
        assert_eq!(burst_for(None, &caps, [None; 3], "").unwrap(), None);
        let err = |given| {
            burst_for(None, &caps, given, "emulate-")
                .unwrap_err()
                .to_string()
        };
        assert!(err([Some("3500"), None, None]).starts_with("--emulate-burst-time"));
        assert!(err([Some("400"), None, Some("1")]).contains("not above the baseline 500"));
        assert!(err([None, Some("100m"), Some("1")]).starts_with("--emulate-burst-bw: needs"));
        assert!(err([Some("3500"), None, Some("0")]).contains("empty bucket"));
        assert!(err([Some("lots"), None, Some("1")]).starts_with("--emulate-burst-iops"));
        // A profile's bucket with no time left: its credits spent, the baseline only.
        let p10 = Burst {
            iops: Some(3500),
            bytes_per_sec: None,
            time_ns: 1_800_000_000_000,
        };
        assert_eq!(
            burst_for(Some(p10), &caps, [None, None, Some("0")], "").unwrap(),
            None
        );
        assert_eq!(
            burst_for(Some(p10), &caps, [None; 3], "").unwrap(),
            Some(p10)
        );
    }

    #[test]
    fn bursting_tiers_have_their_buckets() {
        let catalog = diskmeter_plan::Catalog::builtin();
        let tier = |id: &str| catalog.disks.iter().find(|d| d.id == id).unwrap().clone();
        let p10 = tier_burst(&tier("P10")).unwrap();
        assert_eq!(p10.iops, Some(3500));
        assert_eq!(p10.bytes_per_sec, Some(170 << 20));
        assert_eq!(p10.time_ns, 30 * 60 * 1_000_000_000);
        let caps = crate::profile_caps("P10", &catalog).unwrap().1;
        assert_eq!(
            p10.describe(&caps),
            "bursts to 3,500 IOPS for 30 min (bucket 5,400,000 IOs), 170.0 MiB/s for 30 min \
             (bucket 123.0 GiB)"
        );
        assert_eq!(tier_burst(&tier("P30")), None);
        // gp2 as emulated (its smallest volume): 100 IOPS, 3,000 on 5.4 million credits.
        let gp2 = crate::profile_burst("aws-gp2", &catalog).unwrap().unwrap();
        let caps = crate::profile_caps("aws-gp2", &catalog).unwrap().1;
        let (base, burst, size) = gp2.iops_bucket(&caps).unwrap();
        assert_eq!((base, burst), (100, 3000));
        assert_eq!(size, 5_400_000);
    }
}
