//! Burst signatures in a run's per-second series: a device that runs at a burst rate while a
//! credit bucket lasts and then steps down to its baseline (Azure's credit bursting, AWS gp2's
//! burst balance, an emulated tier with `--throttle-burst-*`).
//!
//! The model is the clouds' credit bucket (docs/guide/5-rehearse.md, "Burst credits"):
//! credits accrue at the baseline rate, each IO spends one, and while credits remain the
//! device serves up to the burst rate; so a bucket of B credits that starts full lasts
//! B / (burst - baseline) seconds at the burst rate, and B = (burst - baseline) x T for a
//! step-down T seconds after the IO began (the ramp included: it spends credits too).
//!
//! The series is fitted with two levels and one transition interval: the split that leaves
//! the least squared error, the transition interval's own value placing the step inside it
//! (a second at 2,000 IOPS between 3,500 and 500 stepped half-way through). A step is called
//! only when the burst level is at least [`STEP_RATIO`] times the baseline and the two
//! levels' 95 % intervals (batch means, `diskmeter_stats::confidence`) are apart, and when
//! the series stays down after it; otherwise the series is level, and a level that matches a
//! catalog tier's burst rate in a run shorter than that tier's bucket says that the run
//! measured the burst, not the baseline.
//!
//! Pure: no IO. Both measures are read, IOPS first (the clouds' buckets count IOs; a bandwidth
//! bucket shows in MiB/s).

use diskmeter_plan::DiskTier;
use diskmeter_stats::confidence::{batch_means, MeanEstimate};
use diskmeter_stats::IntervalSample;
use serde::{Deserialize, Serialize};

/// The burst level must be this many times the baseline for a step to be called: smaller
/// drops are the noise of a shared device, not a bucket running dry.
pub const STEP_RATIO: f64 = 1.25;
/// Fewest whole intervals on each side of a step: the fewest whose mean has a batch-means
/// interval (two batches of two).
pub const MIN_SIDE: usize = 4;
/// A tier matches when both its rates are within this share of the measured ones.
pub const TIER_TOLERANCE: f64 = 0.10;

/// Which figure of the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstMeasure {
    /// IOs per second (the bucket counts IOs).
    Iops,
    /// Bytes per second (the bucket counts bytes).
    BytesPerSec,
}

impl BurstMeasure {
    fn of(self, sample: &IntervalSample) -> f64 {
        match self {
            BurstMeasure::Iops => sample.read.iops + sample.write.iops,
            BurstMeasure::BytesPerSec => sample.read.bytes_per_sec + sample.write.bytes_per_sec,
        }
    }
}

/// A level of the series with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Level {
    /// The mean, per second.
    pub mean: f64,
    /// The interval's low end.
    pub low: f64,
    /// The interval's high end.
    pub high: f64,
    /// Intervals it was measured over.
    pub intervals: usize,
}

impl Level {
    fn of(values: &[f64]) -> Level {
        let MeanEstimate {
            mean, half_width, ..
        } = batch_means(values);
        Level {
            mean,
            low: mean - half_width,
            high: mean + half_width,
            intervals: values.len(),
        }
    }
}

/// A step from a burst level down to a baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepDown {
    /// IOPS or bytes per second.
    pub measure: BurstMeasure,
    /// The level before the step.
    pub burst: Level,
    /// The level after it.
    pub baseline: Level,
    /// When it stepped, seconds since measurement start (ramp excluded).
    pub step_s: f64,
    /// How far off the step time may be, seconds (half the transition interval when the
    /// interval's value placed it, else the whole interval).
    pub step_error_s: f64,
    /// Seconds of IO before measurement start (the ramp), which spent credits too.
    pub ramp_s: f64,
    /// The bucket the step implies, credits (IOs or bytes): (burst - baseline) x (ramp + step).
    pub bucket: f64,
    /// The bucket's range from the levels' intervals and the step's error.
    pub bucket_low: f64,
    /// See `bucket_low`.
    pub bucket_high: f64,
    /// Catalog tiers whose burst and baseline rates both match, nearest first.
    pub tiers: Vec<BurstTierMatch>,
}

/// A catalog tier that bursts, as it compares with a reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BurstTierMatch {
    /// The tier's id (`P10`).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its published baseline, in the reading's measure (IOPS, or bytes per second).
    pub baseline: f64,
    /// Its published burst rate, in the reading's measure.
    pub burst: f64,
    /// How long its full bucket lasts at the burst rate, seconds.
    pub bucket_s: Option<f64>,
}

/// What a series says about bursting.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BurstReading {
    /// The series stepped down once and stayed down.
    StepDown(StepDown),
    /// No step: one level over the run. `burst_of` lists bursting tiers whose burst rate the
    /// level matches and whose bucket outlasts the run: the run measured their burst.
    Level {
        /// IOPS or bytes per second.
        measure: BurstMeasure,
        /// The level.
        level: Level,
        /// Measured seconds.
        run_s: f64,
        /// Tiers whose burst this run measured.
        burst_of: Vec<BurstTierMatch>,
    },
    /// Too few whole intervals to tell (fewer than twice [`MIN_SIDE`] plus one).
    TooShort {
        /// Whole intervals in the series.
        intervals: usize,
    },
}

/// Reads `series` for a burst signature: a step-down in IOPS, else in bandwidth, else the
/// IOPS level (with the tiers whose burst it matches). `ramp_ns` is the IO before measurement
/// start; `tiers` the catalog's disk tiers. Intervals shorter than the series' usual one
/// (the last, cut by the runtime) are left out.
pub fn read_burst(series: &[IntervalSample], ramp_ns: u64, tiers: &[DiskTier]) -> BurstReading {
    let usual_ms = series.iter().map(|s| s.duration_ms).max().unwrap_or(0);
    let whole: Vec<&IntervalSample> = series
        .iter()
        .filter(|s| usual_ms > 0 && s.duration_ms == usual_ms)
        .collect();
    if whole.len() < 2 * MIN_SIDE + 1 {
        return BurstReading::TooShort {
            intervals: whole.len(),
        };
    }
    let ramp_s = ramp_ns as f64 / 1e9;
    for measure in [BurstMeasure::Iops, BurstMeasure::BytesPerSec] {
        if let Some(step) = step_down(&whole, measure, ramp_s, tiers) {
            return BurstReading::StepDown(step);
        }
    }
    let values: Vec<f64> = whole.iter().map(|s| BurstMeasure::Iops.of(s)).collect();
    let level = Level::of(&values);
    let run_s = whole.iter().map(|s| s.duration_ms).sum::<u64>() as f64 / 1e3 + ramp_s;
    let burst_of = bursts_at(level.mean, tiers)
        .into_iter()
        .filter(|t| t.bucket_s.is_some_and(|b| b > run_s))
        .collect();
    BurstReading::Level {
        measure: BurstMeasure::Iops,
        level,
        run_s,
        burst_of,
    }
}

/// The bursting tiers whose burst rate is `iops` (within [`TIER_TOLERANCE`]), in catalog
/// order: a level or a sweep's ceiling at that rate, measured in less time than their bucket
/// lasts, is their burst.
pub fn bursts_at(iops: f64, tiers: &[DiskTier]) -> Vec<BurstTierMatch> {
    tiers
        .iter()
        .filter_map(|tier| tier_rates(tier, BurstMeasure::Iops))
        .filter(|t| near(iops, t.burst))
        .collect()
}

/// The best two-level fit of `whole` in `measure`, if it is a step down.
fn step_down(
    whole: &[&IntervalSample],
    measure: BurstMeasure,
    ramp_s: f64,
    tiers: &[DiskTier],
) -> Option<StepDown> {
    let values: Vec<f64> = whole.iter().map(|s| measure.of(s)).collect();
    let n = values.len();
    // Split at k: burst = values[..k], transition = values[k], baseline = values[k + 1..];
    // each side's squared error from prefix sums, so a day of seconds is read in linear time.
    let (mut sum, mut squares) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for (i, v) in values.iter().enumerate() {
        sum[i + 1] = sum[i] + v;
        squares[i + 1] = squares[i] + v * v;
    }
    let sse = |from: usize, to: usize| {
        let (s, q, len) = (
            sum[to] - sum[from],
            squares[to] - squares[from],
            (to - from) as f64,
        );
        q - s * s / len
    };
    let (k, _) = (MIN_SIDE..n - MIN_SIDE)
        .map(|k| (k, sse(0, k) + sse(k + 1, n)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let burst = Level::of(&values[..k]);
    let baseline = Level::of(&values[k + 1..]);
    let apart = burst.low > baseline.high && burst.mean >= STEP_RATIO * baseline.mean;
    // Down for good: no interval after the step back nearer the burst than the baseline.
    let midway = (burst.mean + baseline.mean) / 2.0;
    let stays_down = values[k + 1..].iter().all(|&v| v < midway);
    if !apart || !stays_down {
        return None;
    }
    // The transition interval's value says how much of it still ran at the burst rate.
    let transition = whole[k];
    let length_s = transition.duration_ms as f64 / 1e3;
    let share = ((values[k] - baseline.mean) / (burst.mean - baseline.mean)).clamp(0.0, 1.0);
    let step_s = transition.start_ms as f64 / 1e3 + share * length_s;
    let step_error_s = length_s / 2.0;
    let spent_s = ramp_s + step_s;
    let bucket = (burst.mean - baseline.mean) * spent_s;
    let bucket_low = ((burst.low - baseline.high) * (spent_s - step_error_s)).max(0.0);
    let bucket_high = (burst.high - baseline.low) * (spent_s + step_error_s);
    let mut matches: Vec<(f64, BurstTierMatch)> = tiers
        .iter()
        .filter_map(|tier| tier_rates(tier, measure))
        .filter(|t| near(burst.mean, t.burst) && near(baseline.mean, t.baseline))
        .map(|t| {
            let distance =
                (burst.mean / t.burst).ln().powi(2) + (baseline.mean / t.baseline).ln().powi(2);
            (distance, t)
        })
        .collect();
    matches.sort_by(|a, b| a.0.total_cmp(&b.0));
    Some(StepDown {
        measure,
        burst,
        baseline,
        step_s,
        step_error_s,
        ramp_s,
        bucket,
        bucket_low,
        bucket_high,
        tiers: matches.into_iter().map(|(_, t)| t).collect(),
    })
}

fn near(measured: f64, published: f64) -> bool {
    published > 0.0 && ((measured - published) / published).abs() <= TIER_TOLERANCE
}

/// A fixed tier's baseline and credit-burst rate in `measure`, with how long its full bucket
/// lasts at the burst rate (the catalog's IOPS bucket, [`DiskTier::iops_credit_bucket`]; its
/// `burst_minutes` for bandwidth).
fn tier_rates(tier: &DiskTier, measure: BurstMeasure) -> Option<BurstTierMatch> {
    if !tier.has_credit_burst() {
        return None;
    }
    let (baseline, burst, bucket_s) = match measure {
        BurstMeasure::Iops => {
            let bucket_s = tier
                .iops_credit_bucket()
                .map(|(baseline, burst, ios)| ios / (burst - baseline));
            (tier.iops?, tier.burst_iops?, bucket_s)
        }
        BurstMeasure::BytesPerSec => {
            let mib = diskmeter_units::MIB_F64;
            let (baseline, burst) = (tier.mibps? * mib, tier.burst_mibps? * mib);
            (baseline, burst, tier.burst_minutes.map(|m| m * 60.0))
        }
    };
    (burst > baseline).then(|| BurstTierMatch {
        id: tier.id.clone(),
        name: tier.name.clone(),
        baseline,
        burst,
        bucket_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_stats::IntervalDirection;

    /// A per-second series of reads at `rates`, 4 KiB each.
    fn series(rates: &[f64]) -> Vec<IntervalSample> {
        rates
            .iter()
            .enumerate()
            .map(|(i, &iops)| IntervalSample {
                start_ms: i as u64 * 1000,
                duration_ms: 1000,
                read: IntervalDirection {
                    ios: iops as u64,
                    bytes: iops as u64 * 4096,
                    iops,
                    bytes_per_sec: iops * 4096.0,
                    ..IntervalDirection::default()
                },
                write: IntervalDirection::default(),
            })
            .collect()
    }

    /// 3,500 IOPS for `step_s` seconds, then 500, with +-2 % noise, over `total` seconds.
    fn bursting(step_s: f64, total: usize) -> Vec<f64> {
        (0..total)
            .map(|i| {
                let burst_share = (step_s - i as f64).clamp(0.0, 1.0);
                let noise = if i % 2 == 0 { 1.02 } else { 0.98 };
                (burst_share * 3500.0 + (1.0 - burst_share) * 500.0) * noise
            })
            .collect()
    }

    fn p10() -> DiskTier {
        DiskTier {
            id: "P10".into(),
            name: "Azure Premium SSD P10".into(),
            iops: Some(500.0),
            mibps: Some(100.0),
            burst_kind: Some(diskmeter_plan::catalog::BurstKind::Credit),
            burst_iops: Some(3500.0),
            burst_mibps: Some(170.0),
            burst_minutes: Some(30.0),
            ..DiskTier::default()
        }
    }

    #[test]
    fn a_bucket_running_dry_is_read_as_its_rates_step_and_size() {
        let reading = read_burst(&series(&bursting(12.4, 25)), 0, &[p10()]);
        let BurstReading::StepDown(step) = reading else {
            panic!("no step: {reading:?}");
        };
        assert_eq!(step.measure, BurstMeasure::Iops);
        assert!((step.burst.mean - 3500.0).abs() < 3500.0 * 0.03, "{step:?}");
        assert!(
            (step.baseline.mean - 500.0).abs() < 500.0 * 0.03,
            "{step:?}"
        );
        assert!((step.step_s - 12.4).abs() < 0.2, "{}", step.step_s);
        // 3,000 credits a second for 12.4 s.
        assert!(
            (step.bucket / 37_200.0 - 1.0).abs() < 0.05,
            "{}",
            step.bucket
        );
        assert!(step.bucket_low <= 37_200.0 && step.bucket_high >= 37_200.0);
        assert_eq!(step.tiers[0].id, "P10");
        assert_eq!(step.tiers[0].bucket_s, Some(1800.0));
    }

    #[test]
    fn the_ramp_spent_credits_too() {
        let BurstReading::StepDown(step) =
            read_burst(&series(&bursting(8.0, 20)), 2_000_000_000, &[])
        else {
            panic!("no step");
        };
        assert!(
            (step.bucket / 30_000.0 - 1.0).abs() < 0.05,
            "{}",
            step.bucket
        );
    }

    #[test]
    fn a_level_series_is_no_step_and_names_the_burst_it_measured() {
        let level: Vec<f64> = (0..20)
            .map(|i| if i % 2 == 0 { 3430.0 } else { 3570.0 })
            .collect();
        match read_burst(&series(&level), 0, &[p10()]) {
            BurstReading::Level {
                burst_of, level, ..
            } => {
                assert!((level.mean - 3500.0).abs() < 1.0);
                assert_eq!(burst_of[0].id, "P10");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn noise_and_a_dip_that_recovers_are_not_steps() {
        // +-10 % noise.
        let noisy: Vec<f64> = (0..20)
            .map(|i| 1000.0 * [1.1, 0.9, 1.05, 0.95][i % 4])
            .collect();
        assert!(matches!(
            read_burst(&series(&noisy), 0, &[]),
            BurstReading::Level { .. }
        ));
        // A stall in the middle that ends: not a bucket running dry.
        let mut dip = vec![3500.0; 20];
        dip[8..12].fill(500.0);
        assert!(matches!(
            read_burst(&series(&dip), 0, &[]),
            BurstReading::Level { .. }
        ));
    }

    #[test]
    fn too_few_intervals_say_so() {
        assert_eq!(
            read_burst(&series(&[1.0; 5]), 0, &[]),
            BurstReading::TooShort { intervals: 5 }
        );
    }
}
