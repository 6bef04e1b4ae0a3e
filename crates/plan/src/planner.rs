//! The planner's answers: evaluate one configuration against a demand (with warnings, cost,
//! queue-depth and stripe advice, and fixes when it falls short) and tabulate caps by IO
//! size. The search for the cheapest configuration is in `optimise`.

use crate::burst::{BurstOutcome, Load};
use crate::catalog::{Catalog, DiskTier};
use crate::cost::cost;
pub use crate::cost::{sources, Cost};
use crate::demand::Demand;
use crate::latency::{LatencyJudgement, LatencyVerdict};
use crate::model::{
    self, caps, group, points, Basis, Cap, CapKind, Configuration, HostCache, PointPrediction,
};
use crate::possible::{not_possible, NotPossible};
use crate::{DisksProblem, PlanError};
use diskmeter_units::GIB_F64;
use serde::Serialize;

/// Outstanding IOs per disk at which applications usually reach a disk's peak (the guide:
/// "8-16+ outstanding IOs per disk").
pub const PEAK_QD_PER_DISK: (u32, u32) = (8, 16);

/// Stripe size the guide recommends for small random IO (OLTP), KiB.
pub const OLTP_STRIPE_KIB: u32 = 64;
/// Stripe size the guide recommends for large IO (data warehouse), KiB.
pub const WAREHOUSE_STRIPE_KIB: u32 = 256;

/// `--disks 4xP30` read against the catalog: a tier and a count.
pub fn parse_disks<'c>(catalog: &'c Catalog, text: &str) -> Result<(&'c DiskTier, u32), PlanError> {
    let bad = |problem: DisksProblem| PlanError::Disks {
        text: text.to_string(),
        problem,
    };
    let t = text.trim();
    if t.contains(',') || t.contains('+') {
        return Err(bad(DisksProblem::MixedTiers));
    }
    let (count, tier) = match t.split_once(['x', 'X', '*']) {
        Some((n, tier)) if !n.is_empty() && n.trim().chars().all(|c| c.is_ascii_digit()) => {
            let n: u32 = n
                .trim()
                .parse()
                .map_err(|_| bad(DisksProblem::CountTooLarge))?;
            (n, tier)
        }
        _ => (1, t),
    };
    if count == 0 {
        return Err(bad(DisksProblem::ZeroCount));
    }
    if count > 1024 {
        return Err(bad(DisksProblem::MoreThan1024));
    }
    Ok((catalog.disk(tier)?, count))
}

/// Queue-depth advice: Little's law and the stripe rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueDepthAdvice {
    /// QD = IOPS x latency for the latency target, when one is given.
    pub for_latency_target: Option<u32>,
    /// How `for_latency_target` was worked out.
    pub for_latency_basis: Option<String>,
    /// Total outstanding IOs for peak rates on the stripe: 8-16 per disk x disks.
    pub for_peak: (u32, u32),
    /// The application's QD per disk, when `qd=` is given.
    pub app_qd_per_disk: Option<f64>,
}

/// Stripe-size advice for more than one disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StripeAdvice {
    /// The stripe (interleave) size, KiB.
    pub stripe_kib: u32,
    /// Why.
    pub reason: String,
}

/// A configuration's prediction for a demand.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// `Standard_DS13 + 4 x P30 (cache ReadOnly)`.
    pub configuration: String,
    /// The VM size id.
    pub vm: Option<String>,
    /// The disk tier id.
    pub disk: String,
    /// Disks in the stripe.
    pub disk_count: u32,
    /// The host cache setting in force.
    pub cache: HostCache,
    /// The demand as understood.
    pub demand: Demand,
    /// Every cap of the configuration.
    pub caps: Vec<Cap>,
    /// One prediction per point of the demand.
    pub points: Vec<PointPrediction>,
    /// Total disk capacity, GiB.
    pub capacity_gib: Option<f64>,
    /// Whether the configuration can be built at all (see [`NotPossible`]).
    pub possible: bool,
    /// Why it cannot be built, from the catalog's published figures; empty when it can.
    pub not_possible: Vec<NotPossible>,
    /// Whether every requirement is met (`None` when nothing was required, or when a needed
    /// figure is missing). A configuration that is not possible meets nothing: `Some(false)`.
    pub meets: Option<bool>,
    /// Monthly cost.
    pub cost: Cost,
    /// Queue-depth advice.
    pub queue_depth: QueueDepthAdvice,
    /// Stripe-size advice (more than one disk).
    pub stripe: Option<StripeAdvice>,
    /// What the guide would warn about, and figures the catalog lacks that limit the answer.
    pub warnings: Vec<String>,
    /// Configurations that meet the requirement when this one does not (or is not possible).
    pub fixes: Vec<crate::optimise::Candidate>,
    /// The disk type's latency class against the demand's latency.
    pub latency: LatencyJudgement,
    /// The load played through the burst buckets, when a load was given.
    pub burst: Option<BurstOutcome>,
    /// The documents the figures come from ("limits: ...", "price: ...").
    pub sources: Vec<String>,
}

/// Evaluates one configuration. `fixes` are searched when the requirement is not met or the
/// configuration is not possible.
pub fn evaluate(
    catalog: &Catalog,
    config: &Configuration,
    demand: &Demand,
) -> Result<Evaluation, PlanError> {
    evaluate_over(catalog, config, demand, None)
}

/// [`evaluate`], with a load played through the burst buckets when one is given: a
/// configuration whose sustained caps fall short of the IOPS asked for meets the demand when
/// its bursts carry the whole load ([`crate::burst`]).
pub fn evaluate_over(
    catalog: &Catalog,
    config: &Configuration,
    demand: &Demand,
    load: Option<&Load>,
) -> Result<Evaluation, PlanError> {
    let mut evaluation = evaluate_under(config, demand, load)?;
    evaluation.sources = sources(catalog, config);
    if evaluation.meets == Some(false) {
        evaluation.fixes = crate::optimise::fixes(catalog, config, demand, load);
    }
    Ok(evaluation)
}

/// [`evaluate`] without the search for fixes (the optimiser's inner step).
pub fn evaluate_alone(config: &Configuration, demand: &Demand) -> Result<Evaluation, PlanError> {
    evaluate_under(config, demand, None)
}

/// [`evaluate_alone`] with a load for the burst buckets.
pub fn evaluate_under(
    config: &Configuration,
    demand: &Demand,
    load: Option<&Load>,
) -> Result<Evaluation, PlanError> {
    if let Some(vm) = config.vm {
        if vm.cloud != config.disk.cloud {
            return Err(PlanError::CloudMismatch {
                disk: config.disk.id.clone(),
                disk_cloud: config.disk.cloud.clone(),
                vm: vm.id.clone(),
                vm_cloud: vm.cloud.clone(),
            });
        }
    } else if demand.local_fraction > 0.0 {
        return Err(PlanError::LocalNeedsVm);
    }
    let caps = caps(config);
    let points: Vec<PointPrediction> = points(demand)
        .into_iter()
        .map(|(basis, required)| model::predict_point(config, &caps, demand, basis, required))
        .collect();
    let capacity_gib = config
        .disk
        .size_gib
        .map(|g| g * f64::from(config.disk_count));
    // Each requirement is met, not met, or cannot be judged (a missing figure); one "not
    // met" decides, else one "cannot be judged" does.
    let burst = load.and_then(|load| crate::burst::simulate(config, demand, load));
    // An IOPS point short of the demand sustained is met when the bursts carry the whole load.
    let carried = burst.as_ref().is_some_and(|b| !b.runs_dry);
    let mut verdicts: Vec<Option<bool>> = Vec::new();
    if demand.iops.is_some() || demand.mibps.is_some() {
        verdicts.extend(points.iter().map(|p| match (p.meets, p.basis) {
            (Some(false), Basis::Iops { .. }) if carried => Some(true),
            (meets, _) => meets,
        }));
    }
    if let Some(need) = demand.capacity_bytes {
        verdicts.push(capacity_gib.map(|have| have * GIB_F64 >= need as f64));
    }
    let latency = crate::latency::judge(config.disk, demand);
    if latency.verdict == LatencyVerdict::Excluded {
        verdicts.push(Some(false));
    }
    let not_possible = not_possible(config);
    let meets = if !not_possible.is_empty() {
        // What cannot be built meets nothing, whatever its caps would allow.
        Some(false)
    } else if verdicts.is_empty() {
        None
    } else if verdicts.contains(&Some(false)) {
        Some(false)
    } else if verdicts.contains(&None) {
        None
    } else {
        Some(true)
    };
    let mut evaluation = Evaluation {
        configuration: config.describe(),
        vm: config.vm.map(|v| v.id.clone()),
        disk: config.disk.id.clone(),
        disk_count: config.disk_count,
        cache: config.effective_cache(),
        demand: demand.clone(),
        caps,
        queue_depth: queue_depth_advice(config, demand, &points),
        stripe: stripe_advice(config, demand),
        points,
        capacity_gib,
        possible: not_possible.is_empty(),
        not_possible,
        meets,
        cost: cost(config),
        warnings: Vec::new(),
        fixes: Vec::new(),
        latency,
        burst,
        sources: Vec::new(),
    };
    evaluation.warnings = warnings(config, demand, &evaluation);
    Ok(evaluation)
}

fn queue_depth_advice(
    config: &Configuration,
    demand: &Demand,
    points: &[PointPrediction],
) -> QueueDepthAdvice {
    let n = config.disk_count;
    let iops = demand
        .iops
        .or_else(|| points.iter().find_map(|p| p.capacity_iops));
    let (for_latency_target, for_latency_basis) = match (demand.latency_ns, iops) {
        (Some(ns), Some(iops)) => {
            let in_flight = iops * ns as f64 / 1e9;
            let qd = in_flight.ceil().max(1.0) as u32;
            (
                Some(qd),
                Some(format!(
                    "QD = IOPS x latency = {}/s x {} = {}, rounded up: {qd}",
                    group(iops),
                    diskmeter_units::format_duration(ns as f64),
                    group(in_flight)
                )),
            )
        }
        _ => (None, None),
    };
    QueueDepthAdvice {
        for_latency_target,
        for_latency_basis,
        for_peak: (PEAK_QD_PER_DISK.0 * n, PEAK_QD_PER_DISK.1 * n),
        app_qd_per_disk: demand.queue_depth.map(|q| f64::from(q) / f64::from(n)),
    }
}

fn stripe_advice(config: &Configuration, demand: &Demand) -> Option<StripeAdvice> {
    if config.disk_count < 2 {
        return None;
    }
    let largest_io = demand.io_sizes().map(|(r, w)| r.max(w));
    if let Some(random) = demand.random_fraction.filter(|&r| r < 0.5) {
        // Mostly sequential IO is a scan whatever its IO size: the guide's data-warehouse
        // stripe lets each disk serve longer runs.
        return Some(StripeAdvice {
            stripe_kib: WAREHOUSE_STRIPE_KIB,
            reason: format!(
                "mostly sequential IO ({}% random): the guide recommends a 256 KiB stripe for scans",
                group(random * 100.0)
            ),
        });
    }
    let small = match largest_io {
        Some(bytes) => bytes <= u64::from(OLTP_STRIPE_KIB) * 1024,
        None => demand.iops.is_some() || demand.mibps.is_none(),
    };
    Some(if small {
        StripeAdvice {
            stripe_kib: OLTP_STRIPE_KIB,
            reason: "small random IO (OLTP): the guide recommends a 64 KiB stripe".to_string(),
        }
    } else {
        StripeAdvice {
            stripe_kib: WAREHOUSE_STRIPE_KIB,
            reason: "large IO (data warehouse, scans): the guide recommends a 256 KiB stripe"
                .to_string(),
        }
    })
}

fn warnings(config: &Configuration, demand: &Demand, evaluation: &Evaluation) -> Vec<String> {
    let mut w = Vec::new();
    let cache = evaluation.cache;
    let n = config.disk_count;
    if config.vm.is_none() && config.cache != HostCache::None && demand.cache_hit_fraction > 0.0 {
        w.push("no VM given: there is no host cache, cache-hit is ignored".to_string());
    }
    if config.vm.is_some() && cache == HostCache::None && demand.cache_hit_fraction > 0.0 {
        w.push(
            "host cache is None: cache-hit is ignored, every read goes to the disks".to_string(),
        );
    }
    if cache == HostCache::ReadOnly && demand.mix_given && demand.write_fraction() >= 0.5 {
        w.push(format!(
            "{}% writes on a ReadOnly-cached disk: the guide recommends host cache None for \
             write-only and write-heavy disks (logs); writes gain nothing from a read cache",
            group(demand.write_fraction() * 100.0)
        ));
    }
    if cache == HostCache::ReadWrite {
        w.push(
            "ReadWrite host cache: the guide recommends it only when the application persists \
             cached data itself; use ReadOnly for data disks"
                .to_string(),
        );
    }
    if let Some(vm) = config.vm {
        // A published max_data_disks or the premium flag make the configuration not possible
        // (`possible`); only the guide's rule of thumb is a warning here.
        match vm.disk_limit() {
            Some((limit, true)) if n > limit => w.push(format!(
                "{n} disks, but {} takes at most {limit} data disks (the guide's usual 2 x \
                 cores: the size's own figure is not in the catalog)",
                vm.id
            )),
            None => w.push(format!(
                "{} has no max data disks or cores in the catalog: the disk count is not checked",
                vm.id
            )),
            _ => {}
        }
        if let Some(stripe) = vm.max_stripe_disks {
            if n > stripe {
                w.push(format!(
                    "a stripe of {n} disks is wider than the guide supports on {} sizes ({stripe})",
                    vm.family
                ));
            }
        }
        if demand.local_fraction > 0.0 && vm.local_ssd_gib.is_none() {
            w.push(format!(
                "{} has no local SSD in the catalog, yet local= sends IO to one",
                vm.id
            ));
        }
    }
    if config.vm.is_none() && n > 1 {
        w.push(format!(
            "no VM: the caps of {n} disks are summed with no VM-level cap over them; the \
             catalog has no VM caps for {} and the sum may not be reachable",
            config.disk.cloud
        ));
    }
    if let Some(qd) = demand.queue_depth {
        if n > 1 && qd < n {
            w.push(format!(
                "QD {qd} on a {n}-disk stripe leaves {} disks idle: a stripe needs QD >= per-disk QD x {n}",
                n - qd
            ));
        }
    }
    if let Some(need) = demand.capacity_bytes {
        match evaluation.capacity_gib {
            Some(have) if have * GIB_F64 < need as f64 => w.push(format!(
                "capacity {} GiB is less than the {} GiB required",
                group(have),
                group(need as f64 / GIB_F64)
            )),
            None => w.push(format!(
                "{} has no size in the catalog: capacity is not checked",
                config.disk.id
            )),
            _ => {}
        }
    }
    let mut unknown: Vec<CapKind> = Vec::new();
    for p in &evaluation.points {
        for kind in &p.unknown_caps {
            if !unknown.contains(kind) {
                unknown.push(*kind);
            }
        }
    }
    for kind in unknown {
        let owner = if matches!(kind, CapKind::DiskIops | CapKind::DiskMibps) {
            config.disk.id.clone()
        } else {
            config.vm.map(|v| v.id.clone()).unwrap_or_default()
        };
        w.push(format!(
            "the {} in {} of {owner} is not in the catalog: the prediction is not bounded by it \
             (add it with --catalog)",
            kind.label(),
            kind.unit()
        ));
    }
    for p in &evaluation.points {
        if p.limit.is_none() && (p.required_iops.is_some() || p.required_mibps.is_some()) {
            w.push("no known cap applies to this demand: nothing can be predicted".to_string());
        }
    }
    w
}

/// One row of the IO-size view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IoSizeRow {
    /// The IO size in bytes.
    pub bs_bytes: u64,
    /// IOPS on the disk path (uncached reads, or writes).
    pub iops: Option<f64>,
    /// MiB/s on the disk path.
    pub mibps: Option<f64>,
    /// The cap that binds on the disk path.
    pub limit: Option<String>,
    /// IOPS on the cache path (host-cache hits), when the VM has a cache.
    pub cache_iops: Option<f64>,
    /// MiB/s on the cache path.
    pub cache_mibps: Option<f64>,
    /// The cap that binds on the cache path.
    pub cache_limit: Option<String>,
}

/// The IO-size view: for each size, what the disk path (and the cache path, with a VM and a
/// host cache) can do.
pub fn io_size_table(config: &Configuration, sizes: &[u64]) -> Vec<IoSizeRow> {
    let caps = caps(config);
    let with_cache = config.vm.is_some() && config.effective_cache() != HostCache::None;
    sizes
        .iter()
        .map(|&bs| {
            let basis = Basis::Iops {
                read_bs_bytes: Some(bs),
                write_bs_bytes: Some(bs),
            };
            let disk_demand = Demand {
                read_bs_bytes: Some(bs),
                write_bs_bytes: Some(bs),
                ..Demand::default()
            };
            let disk = model::predict_point(config, &caps, &disk_demand, basis, None);
            let cache = with_cache.then(|| {
                let hit = Demand {
                    cache_hit_fraction: 1.0,
                    ..disk_demand.clone()
                };
                model::predict_point(config, &caps, &hit, basis, None)
            });
            IoSizeRow {
                bs_bytes: bs,
                iops: disk.capacity_iops,
                mibps: disk.capacity_mibps,
                limit: disk.limit.map(|l| l.to_string()),
                cache_iops: cache.as_ref().and_then(|c| c.capacity_iops),
                cache_mibps: cache.as_ref().and_then(|c| c.capacity_mibps),
                cache_limit: cache.and_then(|c| c.limit).map(|l| l.to_string()),
            }
        })
        .collect()
}

/// The IO sizes shown when none are asked for: 4 KiB to 1 MiB in powers of two.
pub const DEFAULT_IO_SIZES: [u64; 9] = [
    4 << 10,
    8 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    128 << 10,
    256 << 10,
    512 << 10,
    1 << 20,
];

/// `--io-sizes`: a comma list of sizes (`4k,64k,1m`, binary units), or [`DEFAULT_IO_SIZES`]
/// when empty; a size of 0 or that is no size is refused.
pub fn parse_io_sizes(list: &str) -> Result<Vec<u64>, PlanError> {
    if list.trim().is_empty() {
        return Ok(DEFAULT_IO_SIZES.to_vec());
    }
    list.split(',')
        .map(
            |s| match diskmeter_units::parse_size(s, diskmeter_units::KbBase::Binary) {
                Ok(0) => Err(PlanError::IoSize(format!("'{s}' must be more than 0"))),
                Ok(n) => Ok(n),
                Err(e) => Err(PlanError::IoSize(e.to_string())),
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_sizes_are_binary_sizes_above_zero_or_the_default_list() {
        assert_eq!(parse_io_sizes("8k,1m").unwrap(), [8 << 10, 1 << 20]);
        assert_eq!(parse_io_sizes(" ").unwrap(), DEFAULT_IO_SIZES.to_vec());
        assert_eq!(
            parse_io_sizes("8k,0").unwrap_err().to_string(),
            "--io-sizes: '0' must be more than 0"
        );
        assert!(parse_io_sizes("8k,big").is_err());
    }
}
