//! The optimiser: for every VM size x disk type, the configuration that meets a requirement
//! at the least cost (the fewest disks of a fixed tier; for a scaled or provisioned type the
//! number of disks, size and provisioned performance that cost least), ranked by monthly
//! cost; and the fixes an evaluation suggests when a configuration falls short (more of the
//! same disks, other tiers on the same VM, the same tier on other VMs).
//!
//! Disk types whose published latency class lies above a per-IO latency bound are excluded
//! (`latency`); with a load (a capture's series, or `--duration`), a configuration whose
//! sustained caps fall short meets the requirement when its burst buckets carry the whole
//! load, and the cheapest ones that run dry are listed apart with when they do (`burst`).

use crate::burst::{describe as burst_lines, Load};
use crate::catalog::{Catalog, DiskTier, VmSize};
use crate::demand::Demand;
use crate::latency::{judge, LatencyVerdict};
use crate::model::{caps, points, predict_point, Configuration, HostCache};
use crate::planner::{evaluate_under, sources, Evaluation};
use crate::possible::not_possible;
use crate::sizing::{largest, size_for, PerDiskNeed};
use crate::PlanError;
use diskmeter_units::GIB_F64;
use serde::Serialize;

/// A configuration found by the search, with what binds it, what it costs and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// `Standard_DS13 + 4 x P30 (cache ReadOnly)`.
    pub configuration: String,
    /// The cloud.
    pub cloud: String,
    /// The VM size id.
    pub vm: Option<String>,
    /// The disk tier id.
    pub disk: String,
    /// A sized volume of a scaled or provisioned type: its size, IOPS and MiB/s (what one
    /// buys); `None` for a fixed tier.
    pub volume: Option<Volume>,
    /// Disks in the stripe.
    pub disk_count: u32,
    /// The host cache setting.
    pub cache: HostCache,
    /// Monthly cost, USD, when every part has a price.
    pub total_usd: Option<f64>,
    /// The price's components.
    pub price: Vec<String>,
    /// Each point's capacity and binding limit, as text: "20,000 IOPS (disk cap ...)".
    pub capacity: Vec<String>,
    /// The latency judgement.
    pub latency: String,
    /// The load through the burst buckets, when a load was given.
    pub burst: Vec<String>,
    /// Where the figures come from.
    pub sources: Vec<String>,
    /// Warnings for the configuration (missing figures, disk limits).
    pub warnings: Vec<String>,
    /// A cap on a path with traffic is not published: the capacity may be lower.
    pub unbounded: bool,
}

/// One sized volume's figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Volume {
    /// Size, GiB.
    pub size_gib: f64,
    /// IOPS (provisioned, or the size's).
    pub iops: Option<f64>,
    /// MiB/s (provisioned, or the size's).
    pub mibps: Option<f64>,
}

impl Candidate {
    fn from_evaluation(e: &Evaluation, cloud: &str) -> Candidate {
        let capacity = e
            .points
            .iter()
            .map(|p| {
                let rate = p.capacity_text();
                match &p.limit {
                    Some(limit) => format!("{rate}, limited by the {limit}"),
                    None => rate,
                }
            })
            .collect();
        Candidate {
            configuration: e.configuration.clone(),
            cloud: cloud.to_string(),
            vm: e.vm.clone(),
            disk: e.disk.clone(),
            volume: None,
            disk_count: e.disk_count,
            cache: e.cache,
            total_usd: e.cost.total_usd,
            price: e.cost.parts.clone(),
            capacity,
            latency: e.latency.text.clone(),
            burst: e.burst.as_ref().map(burst_lines).unwrap_or_default(),
            sources: e.sources.clone(),
            warnings: e.warnings.clone(),
            unbounded: e.points.iter().any(|p| !p.unknown_caps.is_empty()),
        }
    }
}

/// What the optimiser searches over.
#[derive(Debug, Clone, Default)]
pub struct SearchSpace {
    /// VM families to keep (`DS`, `Dsv5`, `m6i`); empty keeps all.
    pub families: Vec<String>,
    /// Clouds to keep (`azure`, `aws`); empty keeps all.
    pub clouds: Vec<String>,
    /// Only this VM size.
    pub vm: Option<String>,
    /// Only this disk tier.
    pub disk: Option<String>,
    /// Host cache for every candidate.
    pub cache: Option<HostCache>,
}

/// The optimiser's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Optimisation {
    /// The requirement as understood.
    pub requirement: Demand,
    /// Configurations that meet it and have a price, cheapest first.
    pub priced: Vec<Candidate>,
    /// Configurations that meet it but lack a price in the catalog, fewest disks first; never
    /// "cheapest".
    pub unpriced: Vec<Candidate>,
    /// Priced configurations that meet it on their published caps, but a cap on their path
    /// (a VM's disk limits) is not published: cheapest first, never ranked with `priced`.
    pub unbounded: Vec<Candidate>,
    /// Configurations whose bursts reach the demand but run dry over the load, cheapest
    /// first, with when they do.
    pub ran_dry: Vec<Candidate>,
    /// How latency was judged: the bound and the disk types it excluded, or why it was not.
    pub latency: String,
    /// Disk types excluded by the latency bound, with their class.
    pub excluded_by_latency: Vec<String>,
    /// VM x disk-type pairs tried.
    pub pairs_searched: usize,
    /// What the search skipped and why.
    pub notes: Vec<String>,
}

/// The largest stripe tried when a VM's disk limit is unknown.
const DEFAULT_MAX_DISKS: u32 = 64;

/// The widest stripe tried of a scaled or provisioned type: one volume grows instead.
const MAX_FORMULA_DISKS: u32 = 16;

/// Finds, for every VM size x disk type, the cheapest configuration that meets
/// `requirement`, and ranks them by monthly cost. Adding a disk never lowers capacity
/// (tested), so for a fixed tier the fewest disks is also the cheapest count for a pair and is
/// found by bisection.
pub fn optimise(
    catalog: &Catalog,
    requirement: &Demand,
    space: &SearchSpace,
    load: Option<&Load>,
) -> Result<Optimisation, PlanError> {
    if requirement.iops.is_none()
        && requirement.mibps.is_none()
        && requirement.capacity_bytes.is_none()
    {
        return Err(PlanError::NothingRequired);
    }
    let only_vm = space.vm.as_deref().map(|v| catalog.vm(v)).transpose()?;
    let only_disk = space.disk.as_deref().map(|d| catalog.disk(d)).transpose()?;
    let lower = |list: &[String]| -> Vec<String> {
        list.iter().map(|f| f.trim().to_ascii_lowercase()).collect()
    };
    let families = lower(&space.families);
    let clouds = lower(&space.clouds);
    let in_clouds = |cloud: &str| clouds.is_empty() || clouds.contains(&cloud.to_ascii_lowercase());
    let cache = space.cache.unwrap_or(HostCache::ReadOnly);
    let mut notes = Vec::new();
    let mut found: Vec<Candidate> = Vec::new();
    let mut ran_dry: Vec<Candidate> = Vec::new();
    let mut excluded_by_latency = Vec::new();
    let mut pairs_searched = 0;
    let vms: Vec<&VmSize> = catalog
        .vms
        .iter()
        .filter(|vm| allowed(only_vm, vm) && in_clouds(&vm.cloud))
        .filter(|vm| families.is_empty() || families.contains(&vm.family.to_ascii_lowercase()))
        .collect();
    for disk in catalog
        .disks
        .iter()
        .filter(|d| allowed(only_disk, d) && in_clouds(&d.cloud))
    {
        let latency = judge(disk, requirement);
        if latency.verdict == LatencyVerdict::Excluded {
            let class = latency.class.map_or("", |c| c.label());
            excluded_by_latency.push(format!("{} ({class})", disk.id));
            continue;
        }
        let has_any_vm_in_cloud = catalog.vms.iter().any(|v| v.cloud == disk.cloud);
        let mut targets: Vec<Option<&VmSize>> = vms
            .iter()
            .copied()
            .filter(|v| v.cloud == disk.cloud)
            .map(Some)
            .collect();
        if !has_any_vm_in_cloud && only_vm.is_none() {
            targets.push(None);
        }
        for vm in targets {
            // A premium disk on a size without premium storage is not possible at any count;
            // skip the pair rather than evaluate it up to the disk limit.
            if vm.is_some_and(|vm| disk.premium && !vm.premium_storage) {
                continue;
            }
            pairs_searched += 1;
            let (limit, by_rule) = match vm.map(|v| v.disk_limit()) {
                Some(Some((n, by_rule))) => (n, by_rule),
                Some(None) => (DEFAULT_MAX_DISKS, true),
                // Without a VM nothing caps the sum, so one volume is the honest answer.
                None => (1, false),
            };
            let limit = vm
                .and_then(|v| v.max_stripe_disks)
                .map_or(limit, |s| s.min(limit));
            let pair = Pair {
                vm,
                disk,
                cache,
                demand: requirement,
                load,
            };
            let best = if disk.is_formula() {
                pair.cheapest_sized(limit.min(MAX_FORMULA_DISKS))
            } else {
                pair.fewest(limit)
            };
            if let Some(dry) = best.dry {
                ran_dry.push(pair.candidate(catalog, &dry));
            }
            if let Some(config_disk) = best.found {
                let mut c = pair.candidate(catalog, &config_disk);
                if by_rule {
                    c.warnings.push(format!(
                        "disk limit assumed ({limit}): not published for {}",
                        vm.map(|v| v.id.as_str()).unwrap_or(&disk.id)
                    ));
                }
                found.push(c);
            }
        }
    }
    if families.iter().any(|f| {
        !catalog
            .vms
            .iter()
            .any(|v| v.family.to_ascii_lowercase() == *f)
    }) {
        notes.push(format!(
            "no VM family matches some of --family {}; the catalog has {}",
            space.families.join(","),
            family_list(catalog)
        ));
    }
    let (priced, mut unpriced): (Vec<Candidate>, Vec<Candidate>) =
        found.into_iter().partition(|c| c.total_usd.is_some());
    let (mut priced, mut unbounded): (Vec<Candidate>, Vec<Candidate>) =
        priced.into_iter().partition(|c| !c.unbounded);
    let by_cost = |a: &Candidate, b: &Candidate| {
        a.total_usd
            .partial_cmp(&b.total_usd)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.disk_count.cmp(&b.disk_count))
            .then(a.configuration.cmp(&b.configuration))
    };
    priced.sort_by(by_cost);
    unbounded.sort_by(by_cost);
    unpriced.sort_by(|a, b| {
        a.disk_count
            .cmp(&b.disk_count)
            .then(a.configuration.cmp(&b.configuration))
    });
    // Only what runs dry for less than the cheapest answer is worth showing.
    let cheapest = priced.first().and_then(|c| c.total_usd);
    ran_dry.retain(|c| match (c.total_usd, cheapest) {
        (Some(dry), Some(best)) => dry < best,
        // Not known to be cheaper than a priced answer.
        (None, Some(_)) => false,
        (_, None) => true,
    });
    ran_dry.sort_by(by_cost);
    if !unpriced.is_empty() {
        notes.push(format!(
            "{} configuration(s) meet the requirement but have no price in the catalog: listed \
             apart, never ranked as cheapest; add prices with --catalog to rank them",
            unpriced.len()
        ));
    }
    if !unbounded.is_empty() {
        notes.push(format!(
            "{} priced configuration(s) meet the requirement on their published caps, but a cap \
             on their path is not published (a VM's disk limits): listed apart, never ranked as \
             cheapest",
            unbounded.len()
        ));
    }
    let latency = crate::latency::summary(requirement, &excluded_by_latency);
    Ok(Optimisation {
        requirement: requirement.clone(),
        priced,
        unpriced,
        unbounded,
        ran_dry,
        latency,
        excluded_by_latency,
        pairs_searched,
        notes,
    })
}

/// One VM x disk-type pair of the search.
struct Pair<'c> {
    vm: Option<&'c VmSize>,
    disk: &'c DiskTier,
    cache: HostCache,
    demand: &'c Demand,
    load: Option<&'c Load>,
}

/// A pair's best: the volume and count that meet the demand, and a cheaper one that ran dry.
#[derive(Default)]
struct Best {
    found: Option<(DiskTier, u32)>,
    dry: Option<(DiskTier, u32)>,
}

impl<'c> Pair<'c> {
    fn config<'a>(&'a self, disk: &'a DiskTier, n: u32) -> Configuration<'a> {
        Configuration {
            vm: self.vm,
            disk,
            disk_count: n,
            cache: self.cache,
        }
    }

    /// The sustained verdict without building an evaluation: possible, every point met,
    /// enough space. `(meets, bursts reach the demand)`.
    fn quick(&self, disk: &DiskTier, n: u32) -> (bool, bool) {
        let config = self.config(disk, n);
        if !not_possible(&config).is_empty() {
            return (false, false);
        }
        if let (Some(need), Some(gib)) = (self.demand.capacity_bytes, disk.size_gib) {
            if gib * f64::from(n) * GIB_F64 < need as f64 {
                return (false, false);
            }
        }
        let caps = caps(&config);
        let mut meets = true;
        let mut short_iops_only = true;
        for (basis, required) in points(self.demand) {
            let p = predict_point(&config, &caps, self.demand, basis, required);
            if p.meets == Some(false) || (required.is_some() && p.meets.is_none()) {
                meets = false;
                short_iops_only &=
                    matches!(basis, crate::model::Basis::Iops { .. }) && p.meets == Some(false);
            }
        }
        let bursty = disk.has_credit_burst() || self.vm.is_some_and(VmSize::bursts);
        (
            meets,
            !meets && short_iops_only && bursty && self.load.is_some(),
        )
    }

    /// Meets the demand, sustained or (with a load) by bursting; the second value is the
    /// evaluation's burst run when bursting was tried and ran dry.
    fn meets(&self, disk: &DiskTier, n: u32) -> (bool, bool) {
        match self.quick(disk, n) {
            (true, _) => (true, false),
            (false, true) => {
                let config = self.config(disk, n);
                match crate::burst::simulate(&config, self.demand, self.load.expect("a load")) {
                    Some(run) if run.burst_capacity_iops >= self.demand.iops.unwrap_or(0.0) => {
                        (!run.runs_dry, run.runs_dry)
                    }
                    _ => (false, false),
                }
            }
            (false, false) => (false, false),
        }
    }

    /// A fixed tier: the fewest disks that meet the demand, by bisection.
    fn fewest(&self, limit: u32) -> Best {
        let mut best = Best::default();
        if limit == 0 {
            return best;
        }
        if !self.meets(self.disk, limit).0 {
            // No count meets it; a burst that ran dry at the widest stripe is still news.
            if self.meets(self.disk, 1).1 {
                best.dry = Some((self.disk.clone(), 1));
            }
            return best;
        }
        let (mut low, mut high) = (1, limit);
        while low < high {
            let mid = low + (high - low) / 2;
            if self.meets(self.disk, mid).0 {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        best.found = Some((self.disk.clone(), low));
        if low > 1 && self.load.is_some() && self.meets(self.disk, 1).1 {
            best.dry = Some((self.disk.clone(), 1));
        }
        best
    }

    /// A scaled or provisioned type: for each count, the smallest volume that carries a
    /// disk's share; the cheapest count wins (the fewest disks when unpriced).
    fn cheapest_sized(&self, limit: u32) -> Best {
        let mut best = Best::default();
        let probe = largest(self.disk);
        for n in 1..=limit {
            let Some(volume) = self.sized(&probe, n) else {
                continue;
            };
            let (meets, dry) = self.meets(&volume, n);
            if dry && best.dry.is_none() {
                best.dry = Some((volume.clone(), n));
            }
            if !meets {
                continue;
            }
            let cost = |v: &DiskTier, n: u32| v.price_usd_month.map(|p| p * f64::from(n));
            let better = match &best.found {
                None => true,
                Some((old_volume, old_n)) => match (cost(&volume, n), cost(old_volume, *old_n)) {
                    (Some(new), Some(old)) => new < old,
                    _ => false,
                },
            };
            if better {
                best.found = Some((volume, n));
            }
            if self.disk.price_usd_gib_month.is_none() {
                break;
            }
        }
        best
    }

    /// The volume of the pair's type that carries one of `n` disks' share of the demand:
    /// sized from what the largest volume would carry per disk.
    fn sized(&self, probe: &DiskTier, n: u32) -> Option<DiskTier> {
        let config = self.config(probe, n);
        let caps = caps(&config);
        let mut need = PerDiskNeed {
            gib: self
                .demand
                .capacity_bytes
                .map_or(0.0, |b| b as f64 / GIB_F64 / f64::from(n)),
            ..PerDiskNeed::default()
        };
        for (basis, required) in points(self.demand) {
            let p = predict_point(&config, &caps, self.demand, basis, required);
            need.iops = need.iops.max(p.per_disk_iops.unwrap_or(0.0));
            need.mibps = need.mibps.max(p.per_disk_mibps.unwrap_or(0.0));
        }
        size_for(self.disk, need)
    }

    fn candidate(&self, catalog: &Catalog, (disk, n): &(DiskTier, u32)) -> Candidate {
        let config = self.config(disk, *n);
        let mut e = evaluate_under(&config, self.demand, self.load)
            .expect("a pair of one cloud, with a VM when IO goes to local SSD");
        e.sources = sources(catalog, &config);
        let mut c = Candidate::from_evaluation(&e, &disk.cloud);
        c.configuration = config.describe();
        c.volume = (disk.kind != crate::catalog::DiskKind::Fixed)
            .then_some(disk.size_gib)
            .flatten()
            .map(|size_gib| Volume {
                size_gib,
                iops: disk.iops,
                mibps: disk.mibps,
            });
        c
    }
}

/// The volume of a scaled or provisioned `disk` that carries one of `n` disks' share of
/// `demand` on `vm`; `None` when no volume of it can.
pub fn size_for_demand(
    vm: Option<&VmSize>,
    disk: &DiskTier,
    n: u32,
    cache: HostCache,
    demand: &Demand,
) -> Option<DiskTier> {
    let pair = Pair {
        vm,
        disk,
        cache,
        demand,
        load: None,
    };
    pair.sized(&largest(disk), n.max(1))
}

fn family_list(catalog: &Catalog) -> String {
    let mut families: Vec<&str> = catalog.vms.iter().map(|v| v.family.as_str()).collect();
    families.dedup();
    families.join(", ")
}

/// A search restriction: none, or exactly this entry.
fn allowed<T: PartialEq>(only: Option<&T>, entry: &T) -> bool {
    only.is_none() || only == Some(entry)
}

/// Up to this many fixes of each kind.
const FIXES_PER_KIND: usize = 3;

pub(crate) fn fixes(
    catalog: &Catalog,
    config: &Configuration,
    demand: &Demand,
    load: Option<&Load>,
) -> Vec<Candidate> {
    let pick = |space: SearchSpace| -> Vec<Candidate> {
        // The optimiser proposes only possible configurations within the disk limits.
        optimise(catalog, demand, &space, load)
            .map(|o| o.priced.into_iter().chain(o.unpriced).collect())
            .unwrap_or_default()
    };
    let cache = Some(config.cache);
    let vm = config.vm.map(|v| v.id.clone());
    let disk = Some(config.disk.id.clone());
    // More disks of the same tier on the same VM, then other tiers on the same VM, then the
    // same tier on other VMs.
    let mut searches = vec![(vm.clone(), disk.clone(), 1)];
    if config.vm.is_some() {
        searches.push((vm, None, FIXES_PER_KIND));
        searches.push((None, disk, FIXES_PER_KIND));
    }
    let mut out: Vec<Candidate> = Vec::new();
    for (vm, disk, take) in searches {
        let found = pick(SearchSpace {
            vm,
            disk,
            cache,
            ..SearchSpace::default()
        });
        let fresh: Vec<Candidate> = found
            .into_iter()
            .filter(|c| !out.iter().any(|o| o.configuration == c.configuration))
            .take(take)
            .collect();
        out.extend(fresh);
    }
    out
}
