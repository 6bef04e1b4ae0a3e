//! Burst credits over time: a load (a capture's intervals, or a constant requirement for a
//! `--duration`) played through a configuration's credit buckets, disk and VM.
//!
//! The bucket models are the providers' documented ones, as the catalog writes them:
//! - a disk with credit bursting (Azure Premium SSD P20 and smaller, Standard SSD; AWS gp2)
//!   holds `bucket_ios` IO credits, or `(burst - baseline) x burst_minutes x 60` when the
//!   provider states a burst duration (Azure: 30 minutes from a full bucket). Credits accrue
//!   at the unused part of the baseline and drain at the IOPS above it;
//! - a VM size with burst caps (Azure credit bursting, EC2's "30 minutes at least once every
//!   24 hours") holds `(burst - baseline) x burst_minutes x 60` IO credits; Azure's refill as
//!   a disk's, EC2's a bucket per 24 hours.
//!
//! Every bucket starts full (as after a quiet hour). Each interval is played at its mean
//! rate: the served rate is the demand, at most the configuration's capacity with the caps
//! of the buckets that still hold credits; a bucket that empties inside an interval splits it
//! there. Only IO-credit buckets are simulated (throughput-credit buckets of st1 and sc1 are
//! named, not played), and on-demand bursting has no bucket (it is billed per burst IO).

use crate::catalog::{BurstRefill, DiskTier, VmSize};
use crate::demand::Demand;
use crate::model::{caps, disk_io_share, group, points, predict_point, Basis, Configuration};
use crate::PlanError;
use diskmeter_units::{parse_time_ns, TimeUnit};
use serde::Serialize;

/// One interval of load: its length and its demand, total IOPS.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LoadPoint {
    /// Seconds.
    pub seconds: f64,
    /// IOs per second asked for.
    pub iops: f64,
}

/// The load played through the buckets, and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Load {
    /// "capture 12: 110 intervals (1 h 50 min) x 1.3 growth".
    pub origin: String,
    /// The intervals in order.
    pub points: Vec<LoadPoint>,
}

impl Load {
    /// A constant demand for `seconds`.
    pub fn constant(iops: f64, seconds: f64) -> Load {
        Load {
            origin: format!("{} IOPS for {}", group(iops), minutes(seconds)),
            points: vec![LoadPoint { seconds, iops }],
        }
    }

    /// `--duration TIME`: the demand's IOPS for that long (fio time syntax, default unit s).
    pub fn lasting(demand: &Demand, duration: &str) -> Result<Load, PlanError> {
        let bad = |why: String| PlanError::Duration(format!("{duration}: {why}"));
        let ns = parse_time_ns(duration, TimeUnit::Seconds).map_err(|e| bad(e.to_string()))?;
        match demand.iops {
            Some(iops) if ns > 0 => Ok(Load::constant(iops, ns as f64 / 1e9)),
            _ => Err(bad(
                "needs a positive time and an iops= requirement".to_string()
            )),
        }
    }

    /// This load with `fraction` more IOPS in every interval (`--growth`).
    pub fn grown(mut self, fraction: f64) -> Load {
        if fraction > 0.0 {
            for point in &mut self.points {
                point.iops *= 1.0 + fraction;
            }
            self.origin += &format!(" x {} growth", 1.0 + fraction);
        }
        self
    }
}

/// One bucket's run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BucketRun {
    /// "P10 disk (each of 1)", "Standard_D4s_v5 VM".
    pub owner: String,
    /// Baseline IOPS of the owner (per disk for a disk bucket).
    pub baseline_iops: f64,
    /// Burst IOPS ceiling.
    pub burst_iops: f64,
    /// Credits in a full bucket, IOs.
    pub size_ios: f64,
    /// How the size is made up: "(3,500 - 500) x 30.0 min = 5,400,000 IOs".
    pub size_basis: String,
    /// When it first emptied, seconds from the load's start.
    pub empties_at_s: Option<f64>,
    /// When it first emptied, seconds after the demand on it first rose above its baseline.
    pub empties_into_peak_s: Option<f64>,
    /// The drain when it emptied: "3,000 - 500 = 2,500 IOs/s above the baseline".
    pub drain_basis: Option<String>,
    /// The drain when it emptied, IOs a second above the baseline (`drain_basis`'s figure).
    #[serde(skip)]
    pub drain_iops: Option<f64>,
    /// The lowest fill reached, 0..=1.
    pub lowest_fill: f64,
}

/// A load's run through a configuration's buckets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BurstOutcome {
    /// The load's origin.
    pub load: String,
    /// Its length, seconds.
    pub seconds: f64,
    /// Sustained capacity (no credits), IOPS.
    pub sustained_iops: f64,
    /// Capacity while every bucket holds credits, IOPS.
    pub burst_capacity_iops: f64,
    /// The buckets played.
    pub buckets: Vec<BucketRun>,
    /// Seconds the demand was not served in full.
    pub short_seconds: f64,
    /// When it first fell short, seconds from the start.
    pub first_short_s: Option<f64>,
    /// The largest shortfall: (served, asked) IOPS.
    pub worst: Option<(f64, f64)>,
    /// Whether the demand was ever not served.
    pub runs_dry: bool,
    /// Bursting the simulation leaves out (on-demand, throughput credits).
    pub not_played: Vec<String>,
}

/// Relative slack under which a served rate counts as the demand (rounding of the rates).
const SERVED_SLACK: f64 = 1e-9;

/// Plays `load` through `config`'s buckets for `demand`'s IO mix; `None` when the demand has
/// no IOPS point (a bandwidth-only demand) or the configuration has no IOPS cap.
pub fn simulate(config: &Configuration, demand: &Demand, load: &Load) -> Option<BurstOutcome> {
    let disk_bucket = disk_bucket(config.disk);
    let vm_bucket = config.vm.and_then(vm_bucket);
    let burst_disk = burst_disk(config.disk, disk_bucket.is_some());
    let burst_vm = config.vm.map(|vm| burst_vm(vm, vm_bucket.is_some()));
    let capacity = |disk_on: bool, vm_on: bool| {
        let c = Configuration {
            disk: if disk_on { &burst_disk } else { config.disk },
            vm: if vm_on { burst_vm.as_ref() } else { config.vm },
            ..*config
        };
        iops_capacity(&c, demand)
    };
    let sustained = capacity(false, false)?;
    let share = disk_io_share(demand, config.effective_cache());
    let n = f64::from(config.disk_count.max(1));
    let mut states: Vec<State> = Vec::new();
    if let Some(b) = disk_bucket {
        states.push(State::new(b, share / n));
    }
    if let Some(b) = vm_bucket {
        states.push(State::new(b, share));
    }
    let mut outcome = BurstOutcome {
        load: load.origin.clone(),
        seconds: load.points.iter().map(|p| p.seconds).sum(),
        sustained_iops: sustained,
        burst_capacity_iops: capacity(true, true).unwrap_or(sustained),
        buckets: Vec::new(),
        short_seconds: 0.0,
        first_short_s: None,
        worst: None,
        runs_dry: false,
        not_played: not_played(config),
    };
    let mut now = 0.0;
    for point in &load.points {
        let mut left = point.seconds.max(0.0);
        while left > 0.0 {
            let disk_on = states.first().is_some_and(|s| s.is_disk && s.credits > 0.0);
            let vm_on = states.iter().any(|s| !s.is_disk && s.credits > 0.0);
            let cap = capacity(disk_on, vm_on).unwrap_or(sustained);
            let served = point.iops.min(cap);
            // The first bucket to empty inside what is left of the interval ends the step.
            let step = states
                .iter()
                .filter_map(|s| s.seconds_to_empty(served))
                .fold(left, f64::min)
                .max(f64::MIN_POSITIVE.max(left * 1e-12));
            for s in &mut states {
                s.play(served, step, now);
            }
            if served < point.iops * (1.0 - SERVED_SLACK) {
                outcome.short_seconds += step;
                outcome.first_short_s.get_or_insert(now);
                let worse = outcome
                    .worst
                    .is_none_or(|(s, a)| served / a < s / a.max(1e-12));
                if worse {
                    outcome.worst = Some((served, point.iops));
                }
            }
            now += step;
            left -= step;
        }
    }
    outcome.runs_dry = outcome.short_seconds > 0.0;
    outcome.buckets = states.into_iter().map(State::finish).collect();
    Some(outcome)
}

/// A bucket as the catalog gives it: owner, baseline and burst IOPS, size and refill.
struct Bucket {
    owner: String,
    is_disk: bool,
    baseline: f64,
    burst: f64,
    size: f64,
    size_basis: String,
    refill: BurstRefill,
}

fn disk_bucket(disk: &DiskTier) -> Option<Bucket> {
    // A volume whose baseline reaches the burst ceiling (gp2 from 1,000 GiB) never bursts.
    let (baseline, burst, size) = disk.iops_credit_bucket()?;
    let size_basis = match disk.bucket_ios {
        Some(ios) => format!("{} IO credits (published)", group(ios)),
        None => bucket_basis(burst, baseline, size),
    };
    Some(Bucket {
        owner: format!("{} disk", disk.id),
        is_disk: true,
        baseline,
        burst,
        size,
        size_basis,
        refill: BurstRefill::BelowBaseline,
    })
}

fn vm_bucket(vm: &VmSize) -> Option<Bucket> {
    let baseline = vm.uncached_iops?;
    let burst = vm.burst_uncached_iops?;
    if burst <= baseline {
        return None;
    }
    let (size, size_basis) = bucket_of(burst, baseline, vm.burst_minutes?);
    Some(Bucket {
        owner: format!("{} VM", vm.id),
        is_disk: false,
        baseline,
        burst,
        size,
        size_basis,
        refill: vm.burst_refill.unwrap_or(BurstRefill::BelowBaseline),
    })
}

/// `(burst - baseline) x minutes x 60`, with its arithmetic.
fn bucket_of(burst: f64, baseline: f64, minutes_at_burst: f64) -> (f64, String) {
    let size = (burst - baseline).max(0.0) * minutes_at_burst * 60.0;
    (size, bucket_basis(burst, baseline, size))
}

/// "(burst - baseline) x time = size IOs": how a bucket of `size` IOs that lasts its time at
/// the burst rate was sized (the time in its own unit: "30.0 min", not "1,800 s").
fn bucket_basis(burst: f64, baseline: f64, size: f64) -> String {
    let seconds = size / (burst - baseline);
    format!(
        "({} - {}) x {} = {} IOs",
        group(burst),
        group(baseline),
        diskmeter_units::format_duration(seconds * 1e9),
        group(size)
    )
}

fn burst_disk(disk: &DiskTier, credit: bool) -> DiskTier {
    let mut d = disk.clone();
    if credit {
        d.iops = disk
            .burst_iops
            .or(disk.iops)
            .map(|b| b.max(disk.iops.unwrap_or(0.0)));
        d.mibps = disk
            .burst_mibps
            .or(disk.mibps)
            .map(|b| b.max(disk.mibps.unwrap_or(0.0)));
    }
    d
}

fn burst_vm(vm: &VmSize, credit: bool) -> VmSize {
    let mut v = vm.clone();
    if credit {
        v.uncached_iops = vm.burst_uncached_iops.or(vm.uncached_iops);
        v.uncached_mibps = vm.burst_uncached_mibps.or(vm.uncached_mibps);
    }
    v
}

/// The configuration's IOPS capacity for the demand's mix and sizes.
fn iops_capacity(config: &Configuration, demand: &Demand) -> Option<f64> {
    let caps = caps(config);
    points(demand)
        .into_iter()
        .find(|(basis, _)| matches!(basis, Basis::Iops { .. }))
        .and_then(|(basis, _)| predict_point(config, &caps, demand, basis, None).capacity_iops)
}

fn not_played(config: &Configuration) -> Vec<String> {
    let d = config.disk;
    let mut out = Vec::new();
    if d.burst_kind == Some(crate::catalog::BurstKind::OnDemand) {
        out.push(format!(
            "{} bursts on demand (billed per burst IO, no bucket): not counted in the capacity",
            d.id
        ));
    }
    if d.bucket_mib_per_gib.is_some() {
        out.push(format!(
            "{} bursts on throughput credits: not played (IO credits only)",
            d.id
        ));
    }
    out
}

/// A bucket's state while the load is played.
struct State {
    bucket: Bucket,
    is_disk: bool,
    /// The owner's IOs per IO of the demand (per disk for a disk bucket).
    share: f64,
    credits: f64,
    lowest: f64,
    above_since: Option<f64>,
    empties_at: Option<f64>,
    empties_into_peak: Option<f64>,
    /// (the owner's load, its IOs a second above the baseline) when it emptied.
    drain_at_empty: Option<(f64, f64)>,
}

impl State {
    fn new(bucket: Bucket, share: f64) -> State {
        State {
            is_disk: bucket.is_disk,
            credits: bucket.size,
            lowest: bucket.size,
            share,
            bucket,
            above_since: None,
            empties_at: None,
            empties_into_peak: None,
            drain_at_empty: None,
        }
    }

    /// The owner's load at a served demand of `served` IOPS.
    fn load(&self, served: f64) -> f64 {
        served * self.share
    }

    fn seconds_to_empty(&self, served: f64) -> Option<f64> {
        let drain = self.load(served) - self.bucket.baseline;
        (drain > 0.0 && self.credits > 0.0).then(|| self.credits / drain)
    }

    fn play(&mut self, served: f64, seconds: f64, now: f64) {
        let load = self.load(served);
        let drain = load - self.bucket.baseline;
        if drain > 0.0 {
            self.above_since.get_or_insert(now);
            let had = self.credits;
            self.credits = (self.credits - drain * seconds).max(0.0);
            if had > 0.0 && self.credits <= had * 1e-12 {
                self.credits = 0.0;
                if self.empties_at.is_none() {
                    let at = now + had / drain;
                    self.empties_at = Some(at);
                    self.empties_into_peak = self.above_since.map(|since| at - since);
                    self.drain_at_empty = Some((load, drain));
                }
            }
        } else {
            let refill = match self.bucket.refill {
                BurstRefill::BelowBaseline => -drain,
                BurstRefill::Daily => self.bucket.size / 86_400.0,
            };
            self.credits = (self.credits + refill * seconds).min(self.bucket.size);
        }
        self.lowest = self.lowest.min(self.credits);
    }

    fn finish(self) -> BucketRun {
        BucketRun {
            owner: self.bucket.owner,
            baseline_iops: self.bucket.baseline,
            burst_iops: self.bucket.burst,
            size_ios: self.bucket.size,
            size_basis: self.bucket.size_basis,
            empties_at_s: self.empties_at,
            empties_into_peak_s: self.empties_into_peak,
            drain_basis: self.drain_at_empty.map(|(load, drain)| {
                format!(
                    "{} - {} = {} IOs/s above the baseline",
                    group(load),
                    group(self.bucket.baseline),
                    group(drain)
                )
            }),
            drain_iops: self.drain_at_empty.map(|(_, drain)| drain),
            lowest_fill: if self.bucket.size > 0.0 {
                self.lowest / self.bucket.size
            } else {
                0.0
            },
        }
    }
}

/// "36 min", "1 h 30 min", "45 s".
pub fn minutes(seconds: f64) -> String {
    if seconds < 60.0 {
        return format!("{} s", group(seconds));
    }
    let total = (seconds / 60.0).round() as u64;
    match (total / 60, total % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

/// One line per bucket and the verdict: what a reader needs to trust the answer.
pub fn describe(outcome: &BurstOutcome) -> Vec<String> {
    let mut lines = Vec::new();
    for b in &outcome.buckets {
        let head = format!(
            "{} bucket: {} (baseline {}, burst {} IOPS)",
            b.owner,
            b.size_basis,
            group(b.baseline_iops),
            group(b.burst_iops)
        );
        lines.push(
            match (
                b.empties_at_s,
                b.empties_into_peak_s,
                &b.drain_basis,
                b.drain_iops,
            ) {
                (Some(at), Some(into), Some(basis), Some(drain)) => format!(
                    "{head}; empties at {} ({} into the peak, drained at {basis}: {} / {} = {})",
                    minutes(at),
                    minutes(into),
                    group(b.size_ios),
                    group(drain),
                    diskmeter_units::format_duration(into * 1e9)
                ),
                _ => format!(
                    "{head}; never empties (lowest {} % full)",
                    group((b.lowest_fill * 100.0).max(0.0))
                ),
            },
        );
    }
    lines.push(if outcome.runs_dry {
        let (served, asked) = outcome.worst.unwrap_or((0.0, 0.0));
        format!(
            "runs dry: {} of {} short of the demand, from {} (then {} of {} IOPS)",
            minutes(outcome.short_seconds),
            minutes(outcome.seconds),
            minutes(outcome.first_short_s.unwrap_or(0.0)),
            group(served),
            group(asked)
        )
    } else {
        format!(
            "never runs dry over {} ({})",
            minutes(outcome.seconds),
            outcome.load
        )
    });
    lines.extend(outcome.not_played.iter().cloned());
    lines
}
