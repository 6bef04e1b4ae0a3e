//! Issue 6 acceptance, as properties over the whole catalog and random demands: adding a disk
//! never lowers predicted capacity, and no prediction exceeds any single cap on its path.
//! Issue 13: what the catalog's figures rule out is never "met" and never proposed.

use diskmeter_plan::catalog::Slice;
use diskmeter_plan::planner::evaluate_alone;
use diskmeter_plan::{
    evaluate, not_possible, optimise, parse_disks, Candidate, CapKind, Catalog, Configuration,
    Demand, Evaluation, HostCache, SearchSpace,
};
use proptest::prelude::*;

/// The current catalog, parsed once (a parse of its files takes about 90 ms in a debug
/// build, and the properties run thousands of cases).
fn builtin() -> &'static Catalog {
    static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    CATALOG.get_or_init(Catalog::builtin)
}

/// The guides' slice, parsed once.
fn guides() -> &'static Catalog {
    static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    CATALOG.get_or_init(|| Catalog::builtin_slice(Slice::Guides))
}

const CACHES: [HostCache; 3] = [HostCache::None, HostCache::ReadOnly, HostCache::ReadWrite];
const SIZES: [u64; 6] = [512, 4 << 10, 8 << 10, 64 << 10, 256 << 10, 1 << 20];

#[derive(Debug, Clone)]
struct Case {
    vm: Option<usize>,
    disk: usize,
    disks: u32,
    cache: usize,
    demand: Demand,
}

fn demand() -> impl Strategy<Value = Demand> {
    (
        prop::option::of(1.0f64..200_000.0),
        prop::option::of(1.0f64..3_000.0),
        prop::option::of((0..SIZES.len(), 0..SIZES.len())),
        0.0f64..=1.0,
        0.0f64..=1.0,
        prop_oneof![Just(0.0), 0.0f64..=1.0],
    )
        .prop_map(|(iops, mibps, sizes, read, hit, local)| Demand {
            iops,
            mibps,
            read_bs_bytes: sizes.map(|(r, _)| SIZES[r]),
            write_bs_bytes: sizes.map(|(_, w)| SIZES[w]),
            read_fraction: read,
            cache_hit_fraction: hit,
            local_fraction: local,
            mix_given: true,
            ..Demand::default()
        })
}

fn case() -> impl Strategy<Value = Case> {
    let c = builtin();
    (
        prop::option::of(0..c.vms.len()),
        0..c.disks.len(),
        1u32..40,
        0..CACHES.len(),
        demand(),
    )
        .prop_map(|(vm, disk, disks, cache, demand)| Case {
            vm,
            disk,
            disks,
            cache,
            demand,
        })
}

/// Evaluates the case with `extra` more disks; `None` when the pair is not a valid plan
/// (clouds differ, or local SSD IO without a VM).
fn run(c: &Catalog, case: &Case, extra: u32) -> Option<Evaluation> {
    let config = Configuration {
        vm: case.vm.map(|i| &c.vms[i]),
        disk: &c.disks[case.disk],
        disk_count: case.disks + extra,
        cache: CACHES[case.cache],
    };
    evaluate_alone(&config, &case.demand).ok()
}

fn cap(e: &Evaluation, kind: CapKind) -> Option<f64> {
    e.caps.iter().find(|c| c.kind == kind).and_then(|c| c.value)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn adding_a_disk_never_lowers_capacity(case in case()) {
        let c = builtin();
        let (Some(before), Some(after)) = (run(c, &case, 0), run(c, &case, 1)) else {
            return Ok(());
        };
        for (p, q) in before.points.iter().zip(&after.points) {
            if let (Some(x), Some(y)) = (p.capacity_iops, q.capacity_iops) {
                prop_assert!(y >= x * (1.0 - 1e-12), "IOPS {x} -> {y}");
            }
            if let (Some(x), Some(y)) = (p.capacity_mibps, q.capacity_mibps) {
                prop_assert!(y >= x * (1.0 - 1e-12), "MiB/s {x} -> {y}");
            }
            if let (Some(_), None) = (p.limit.as_ref(), q.limit.as_ref()) {
                prop_assert!(false, "a disk removed every bound");
            }
        }
    }

    #[test]
    fn predictions_never_exceed_a_cap_on_their_path(case in case()) {
        let c = builtin();
        let Some(e) = run(c, &case, 0) else { return Ok(()) };
        let tolerance = 1.0 + 1e-9;
        for p in &e.points {
            let sum = |names: &[&str], iops: bool| -> Option<f64> {
                let mut total = 0.0;
                for load in p.paths.iter().filter(|l| names.contains(&l.path.as_str())) {
                    total += if iops { load.iops? } else { load.mibps? };
                }
                Some(total)
            };
            let mut cache_paths = vec!["cache hits", "local SSD"];
            if e.cache == HostCache::ReadWrite {
                cache_paths.push("disk writes");
            }
            let disk_paths = ["disk reads", "disk writes"];
            let checks = [
                (CapKind::VmCacheIops, sum(&cache_paths, true)),
                (CapKind::VmCacheMibps, sum(&cache_paths, false)),
                (CapKind::VmUncachedIops, sum(&disk_paths, true)),
                (CapKind::VmUncachedMibps, sum(&disk_paths, false)),
                (CapKind::DiskIops, sum(&disk_paths, true)),
                (CapKind::DiskMibps, sum(&disk_paths, false)),
            ];
            for (kind, load) in checks {
                // Caps not checked for lack of an IO size are reported as such, not broken.
                if p.unchecked_caps.contains(&kind) {
                    continue;
                }
                if let (Some(limit), Some(load)) = (cap(&e, kind), load) {
                    prop_assert!(load <= limit * tolerance, "{kind:?}: {load} > {limit}");
                }
            }
            // Per-disk figures are the disk path split evenly, so within one disk's cap.
            if let (Some(per), Some(disk_iops)) = (p.per_disk_iops, c.disks[case.disk].iops) {
                prop_assert!(per <= disk_iops * tolerance);
            }
            if let (Some(per), Some(disk_mibps)) = (p.per_disk_mibps, c.disks[case.disk].mibps) {
                prop_assert!(per <= disk_mibps * tolerance);
            }
            // No path carries more than the whole rate, so the capacity is at least the value
            // of the IOPS cap that binds it.
            if let (Some(limit), Some(iops)) = (p.limit.as_ref(), p.capacity_iops) {
                if limit.kind.is_iops() {
                    prop_assert!(iops >= limit.value * (1.0 - 1e-9));
                }
            }
        }
    }
}

#[test]
fn every_catalog_pair_evaluates_without_error_or_panic() {
    let c = builtin();
    let demands = [
        "iops=16000,bs=8k,read=70%,cache-hit=0.8",
        "mibps=250",
        "iops=4000",
        "bs=64k",
        "capacity=10t,iops=1000",
        "iops=1,latency=1ms,qd=1",
    ];
    for text in demands {
        let d = Demand::parse(text).unwrap();
        for disk in &c.disks {
            for vm in c.vms.iter().map(Some).chain([None]) {
                let config = Configuration {
                    vm,
                    disk,
                    disk_count: 3,
                    cache: HostCache::ReadOnly,
                };
                match evaluate_alone(&config, &d) {
                    Ok(e) => assert!(!e.points.is_empty()),
                    Err(err) => assert!(
                        err.to_string().contains("pick both from one cloud"),
                        "{err}"
                    ),
                }
            }
        }
    }
}

/// A requirement the optimiser can search for: at least one of IOPS, MiB/s or capacity.
fn requirement() -> impl Strategy<Value = Demand> {
    (demand(), prop::option::of(1u64..=64)).prop_map(|(mut d, capacity_tib)| {
        d.capacity_bytes = capacity_tib.map(|t| t << 40);
        if d.iops.is_none() && d.mibps.is_none() && d.capacity_bytes.is_none() {
            d.iops = Some(1000.0);
        }
        d
    })
}

/// Re-evaluates a proposed candidate as the user would type it back (a sized volume of a
/// scaled or provisioned type with the figures the candidate gives).
fn re_evaluate(c: &Catalog, candidate: &Candidate, demand: &Demand) -> Evaluation {
    let tier = c.disk(&candidate.disk).unwrap();
    let volume = candidate
        .volume
        .map(|v| diskmeter_plan::sizing::volume(tier, v.size_gib, v.iops, v.mibps));
    let config = Configuration {
        vm: candidate.vm.as_deref().map(|v| c.vm(v).unwrap()),
        disk: volume.as_ref().unwrap_or(tier),
        disk_count: candidate.disk_count,
        cache: candidate.cache,
    };
    evaluate_alone(&config, demand).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Regression (planner truth bug): the optimiser proposed, and evaluations called
    /// "meets the demand", configurations its own warnings called impossible (DS14 + 40 x
    /// P30, D14 + P30). Over the whole catalog and random requirements, every configuration
    /// the optimiser proposes, and every fix an evaluation suggests, can be built and meets
    /// the requirement when evaluated again.
    #[test]
    fn the_optimiser_never_proposes_a_configuration_that_is_not_possible(
        demand in requirement(),
        guides in any::<bool>(),
        only_vm in 0usize..10_000,
        cache in 0..CACHES.len(),
        disks in 1u32..=48,
        disk in 0usize..10_000,
    ) {
        // Both slices; one VM size per case (the whole current catalog's search takes
        // a second in a debug build, and the fixes search it three times).
        let c = if guides { self::guides() } else { builtin() };
        let only_vm = Some(only_vm % c.vms.len());
        let disk = disk % c.disks.len();
        let space = SearchSpace {
            vm: only_vm.map(|i| c.vms[i].id.clone()),
            cache: Some(CACHES[cache]),
            ..SearchSpace::default()
        };
        let answer = optimise(c, &demand, &space, None).unwrap();
        for candidate in answer.priced.iter().chain(&answer.unpriced).chain(&answer.unbounded) {
            let e = re_evaluate(c, candidate, &demand);
            prop_assert!(e.possible, "{}: {:?}", candidate.configuration, e.not_possible);
            prop_assert_eq!(e.meets, Some(true), "{}", candidate.configuration);
        }
        // The fixes an evaluation lists are optimiser answers too, also for a configuration
        // that is not possible.
        let config = Configuration {
            vm: only_vm.map(|i| &c.vms[i]),
            disk: &c.disks[disk],
            disk_count: disks,
            cache: CACHES[cache],
        };
        if let Ok(e) = evaluate(c, &config, &demand) {
            for fix in &e.fixes {
                let again = re_evaluate(c, fix, &demand);
                prop_assert!(again.possible, "{}: {:?}", fix.configuration, again.not_possible);
                prop_assert_eq!(again.meets, Some(true), "{}", fix.configuration);
            }
        }
    }

    /// A configuration that is not possible never meets a demand, and "possible" is exactly
    /// "no published figure rules it out".
    #[test]
    fn what_is_not_possible_never_meets_a_demand(case in case()) {
        let c = builtin();
        let Some(e) = run(c, &case, 0) else { return Ok(()) };
        let config = Configuration {
            vm: case.vm.map(|i| &c.vms[i]),
            disk: &c.disks[case.disk],
            disk_count: case.disks,
            cache: CACHES[case.cache],
        };
        prop_assert_eq!(e.possible, not_possible(&config).is_empty());
        prop_assert_eq!(e.possible, e.not_possible.is_empty());
        if !e.possible {
            prop_assert_eq!(e.meets, Some(false));
        }
    }
}

/// Regression (planner truth bug): DS14 + 40 x P30 and D14 + P30 "met the demand" although
/// the warnings said DS14 takes 32 data disks and D14 has no premium storage.
#[test]
fn planner_truth_bug_impossible_configurations_do_not_meet_the_demand() {
    let c = guides();
    let demand = Demand::parse("iops=1000").unwrap();
    for (vm, disks, reason) in [
        (
            "DS14",
            "40xP30",
            "40 data disks, but Standard_DS14 takes at most 32",
        ),
        (
            "D14",
            "P30",
            "P30 is a premium disk and Standard_D14 does not support premium storage",
        ),
    ] {
        let (disk, disk_count) = parse_disks(c, disks).unwrap();
        let config = Configuration {
            vm: Some(c.vm(vm).unwrap()),
            disk,
            disk_count,
            cache: HostCache::ReadOnly,
        };
        let e = evaluate(c, &config, &demand).unwrap();
        assert!(!e.possible, "{vm} + {disks}");
        assert_eq!(e.meets, Some(false), "{vm} + {disks}");
        let reasons: Vec<String> = e.not_possible.iter().map(ToString::to_string).collect();
        assert_eq!(reasons, [reason]);
        assert!(
            !e.warnings.iter().any(|w| w.contains(reason)),
            "the reason is not repeated as a warning: {:?}",
            e.warnings
        );
        assert!(!e.fixes.is_empty(), "{vm} + {disks}: no fixes");
    }
}
