//! The optimiser: for every VM size x disk tier, the fewest disks that meet a requirement,
//! ranked by monthly cost; and the fixes an evaluation suggests when a configuration falls
//! short (more of the same disks, other tiers on the same VM, the same tier on other VMs).

use crate::catalog::{Catalog, VmSize};
use crate::demand::Demand;
use crate::model::{Configuration, HostCache};
use crate::planner::{evaluate_alone, Evaluation};
use crate::PlanError;
use serde::Serialize;

/// A configuration found by the search, with what binds it and what it costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// `Standard_DS13 + 4 x P30 (cache ReadOnly)`.
    pub configuration: String,
    /// The VM size id.
    pub vm: Option<String>,
    /// The disk tier id.
    pub disk: String,
    /// Disks in the stripe.
    pub disk_count: u32,
    /// The host cache setting.
    pub cache: HostCache,
    /// Monthly cost, USD, when every part has a price.
    pub total_usd: Option<f64>,
    /// Each point's capacity and binding limit, as text: "20,000 IOPS (disk cap ...)".
    pub capacity: Vec<String>,
    /// Warnings for the configuration (missing figures, disk limits).
    pub warnings: Vec<String>,
}

impl Candidate {
    fn from_evaluation(e: &Evaluation) -> Candidate {
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
            vm: e.vm.clone(),
            disk: e.disk.clone(),
            disk_count: e.disk_count,
            cache: e.cache,
            total_usd: e.cost.total_usd,
            capacity,
            warnings: e.warnings.clone(),
        }
    }
}

/// What the optimiser searches over.
#[derive(Debug, Clone, Default)]
pub struct SearchSpace {
    /// VM families to keep (`DS`, `GS`); empty keeps all.
    pub families: Vec<String>,
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
    /// Configurations that meet it but lack a price in the catalog, fewest disks first.
    pub unpriced: Vec<Candidate>,
    /// VM x tier pairs tried.
    pub pairs_searched: usize,
    /// What the search skipped and why.
    pub notes: Vec<String>,
}

/// The largest stripe tried when a VM's disk limit is unknown.
const DEFAULT_MAX_DISKS: u32 = 64;

/// Finds, for every VM size x disk tier, the fewest disks that meet `requirement`, and ranks
/// the results by monthly cost. Adding a disk never lowers capacity (tested), so the fewest
/// disks is also the cheapest count for a pair.
pub fn optimise(
    catalog: &Catalog,
    requirement: &Demand,
    space: &SearchSpace,
) -> Result<Optimisation, PlanError> {
    if requirement.iops.is_none()
        && requirement.mibps.is_none()
        && requirement.capacity_bytes.is_none()
    {
        return Err(PlanError::NothingRequired);
    }
    let only_vm = space.vm.as_deref().map(|v| catalog.vm(v)).transpose()?;
    let only_disk = space.disk.as_deref().map(|d| catalog.disk(d)).transpose()?;
    let families: Vec<String> = space
        .families
        .iter()
        .map(|f| f.trim().to_ascii_lowercase())
        .collect();
    let cache = space.cache.unwrap_or(HostCache::ReadOnly);
    let mut notes = Vec::new();
    let mut found: Vec<Candidate> = Vec::new();
    let mut pairs_searched = 0;
    let vms: Vec<&VmSize> = catalog
        .vms
        .iter()
        .filter(|vm| allowed(only_vm, vm))
        .filter(|vm| families.is_empty() || families.contains(&vm.family.to_ascii_lowercase()))
        .collect();
    for disk in catalog.disks.iter().filter(|d| allowed(only_disk, d)) {
        let clouds_vms: Vec<&VmSize> = vms
            .iter()
            .copied()
            .filter(|v| v.cloud == disk.cloud)
            .collect();
        let has_any_vm_in_cloud = catalog.vms.iter().any(|v| v.cloud == disk.cloud);
        let mut targets: Vec<Option<&VmSize>> = clouds_vms.into_iter().map(Some).collect();
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
            for n in 1..=limit {
                let config = Configuration {
                    vm,
                    disk,
                    disk_count: n,
                    cache,
                };
                // Only a volume without a VM can fail here (local= needs a VM): skip it.
                let Ok(e) = evaluate_alone(&config, requirement) else {
                    break;
                };
                // `meets` is never true for a configuration that is not possible.
                if e.possible && e.meets == Some(true) {
                    let mut c = Candidate::from_evaluation(&e);
                    if by_rule {
                        c.warnings.push(format!(
                            "disk limit assumed ({limit}): not published for {}",
                            vm.map(|v| v.id.as_str()).unwrap_or(&disk.id)
                        ));
                    }
                    found.push(c);
                    break;
                }
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
    let (mut priced, mut unpriced): (Vec<Candidate>, Vec<Candidate>) =
        found.into_iter().partition(|c| c.total_usd.is_some());
    priced.sort_by(|a, b| {
        a.total_usd
            .partial_cmp(&b.total_usd)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.disk_count.cmp(&b.disk_count))
    });
    unpriced.sort_by(|a, b| {
        a.disk_count
            .cmp(&b.disk_count)
            .then(a.configuration.cmp(&b.configuration))
    });
    if !unpriced.is_empty() {
        notes.push(format!(
            "{} configuration(s) meet the requirement but have no price in the catalog; add \
             prices with --catalog to rank them",
            unpriced.len()
        ));
    }
    Ok(Optimisation {
        requirement: requirement.clone(),
        priced,
        unpriced,
        pairs_searched,
        notes,
    })
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

pub(crate) fn fixes(catalog: &Catalog, config: &Configuration, demand: &Demand) -> Vec<Candidate> {
    let pick = |space: SearchSpace| -> Vec<Candidate> {
        // The optimiser proposes only possible configurations within the disk limits.
        optimise(catalog, demand, &space)
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
