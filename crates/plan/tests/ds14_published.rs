//! Issue 6 acceptance: the published DiskSpd results on a Standard_DS14
//! (shared/reference/workloads.md, section 3) are predicted within 10 % in every cell, and the
//! limit the planner names is the one the numbers show: reads at the VM cache caps, writes at
//! the disk caps, then at the VM uncached caps as disks are added; the local SSD shares the
//! cache path.

use diskmeter_plan::catalog::Slice;
use diskmeter_plan::planner::evaluate_alone;
use diskmeter_plan::{parse_disks, CapKind, Catalog, Configuration, Demand, HostCache};

/// (IO size, pattern, published MiB/s, published IOPS) for one cached P30.
const ONE_CACHED_P30: [(&str, &str, f64, f64); 16] = [
    ("4k", "seq read", 254.64, 65_187.52),
    ("4k", "seq write", 19.92, 5_099.64),
    ("4k", "random read", 254.98, 65_274.70),
    ("4k", "random write", 19.92, 5_099.91),
    ("8k", "seq read", 509.43, 65_207.48),
    ("8k", "seq write", 39.84, 5_099.78),
    ("8k", "random read", 509.88, 65_264.63),
    ("8k", "random write", 39.84, 5_099.75),
    ("64k", "seq read", 509.97, 8_159.52),
    ("64k", "seq write", 194.55, 3_112.73),
    ("64k", "random read", 510.00, 8_159.93),
    ("64k", "random write", 194.55, 3_112.86),
    ("256k", "seq read", 500.96, 2_003.84),
    ("256k", "seq write", 193.96, 775.83),
    ("256k", "random read", 510.04, 2_040.17),
    ("256k", "random write", 194.05, 776.18),
];

fn ds14<'c>(catalog: &'c Catalog, disks: &str) -> Configuration<'c> {
    let (disk, disk_count) = parse_disks(catalog, disks).unwrap();
    Configuration {
        vm: Some(catalog.vm("Standard_DS14").unwrap()),
        disk,
        disk_count,
        cache: HostCache::ReadOnly,
    }
}

/// The saturating run of a cell: all reads (warm cache: every read a hit) or all writes.
fn cell_demand(bs: &str, pattern: &str) -> Demand {
    let text = if pattern.ends_with("read") {
        format!("bs={bs},read=100%,cache-hit=1")
    } else {
        format!("bs={bs},write=100%")
    };
    Demand::parse(&text).unwrap()
}

fn within_10_percent(predicted: f64, published: f64) -> bool {
    (predicted - published).abs() <= 0.10 * published
}

#[test]
fn one_cached_p30_every_cell_within_10_percent_with_the_published_limit() {
    let c = Catalog::builtin_slice(Slice::Guides);
    let cfg = ds14(&c, "1xP30");
    for (bs, pattern, mibps, iops) in ONE_CACHED_P30 {
        let e = evaluate_alone(&cfg, &cell_demand(bs, pattern)).unwrap();
        let p = &e.points[0];
        let (got_iops, got_mibps) = (p.capacity_iops.unwrap(), p.capacity_mibps.unwrap());
        assert!(
            within_10_percent(got_iops, iops) && within_10_percent(got_mibps, mibps),
            "{bs} {pattern}: predicted {got_iops:.0} IOPS / {got_mibps:.2} MiB/s, published {iops} / {mibps}"
        );
        let kind = p.limit.as_ref().unwrap().kind;
        let expected: &[CapKind] = if pattern.ends_with("read") {
            &[CapKind::VmCacheIops, CapKind::VmCacheMibps]
        } else {
            &[CapKind::DiskIops, CapKind::DiskMibps]
        };
        assert!(
            expected.contains(&kind),
            "{bs} {pattern}: limited by {kind:?}"
        );
        // Small IOs hit the IOPS cap, large ones the bandwidth cap (crossover ~40 KiB on the
        // disk, ~8.4 KiB on the cache path).
        let small = matches!(bs, "4k" | "8k");
        assert_eq!(kind.is_iops(), small, "{bs} {pattern}: {kind:?}");
    }
}

#[test]
fn writes_move_from_the_disk_caps_to_the_vm_cap_as_disks_are_added() {
    let c = Catalog::builtin_slice(Slice::Guides);
    // (disks, IO size, published, unit, expected limit)
    let cases = [
        ("4xP30", "4k", 20_400.0, "IOPS", CapKind::DiskIops),
        ("4xP30", "64k", 498.0, "MiB/s", CapKind::VmUncachedMibps),
        ("16xP30", "4k", 49_500.0, "IOPS", CapKind::VmUncachedIops),
    ];
    for (disks, bs, published, unit, limit) in cases {
        let e = evaluate_alone(&ds14(&c, disks), &cell_demand(bs, "random write")).unwrap();
        let p = &e.points[0];
        let predicted = if unit == "IOPS" {
            p.capacity_iops.unwrap()
        } else {
            p.capacity_mibps.unwrap()
        };
        assert!(
            within_10_percent(predicted, published),
            "{disks} {bs}: predicted {predicted:.0} {unit}, published ~{published}"
        );
        assert_eq!(p.limit.as_ref().unwrap().kind, limit, "{disks} {bs}");
    }
}

#[test]
fn reads_stay_at_the_cache_caps_however_many_disks() {
    let c = Catalog::builtin_slice(Slice::Guides);
    for disks in ["1xP30", "4xP30", "16xP30"] {
        let e = evaluate_alone(&ds14(&c, disks), &cell_demand("4k", "random read")).unwrap();
        assert_eq!(e.points[0].capacity_iops, Some(64_000.0), "{disks}");
        assert_eq!(
            e.points[0].limit.as_ref().unwrap().kind,
            CapKind::VmCacheIops
        );
    }
}

#[test]
fn the_local_ssd_shares_the_cache_path() {
    let c = Catalog::builtin_slice(Slice::Guides);
    let cfg = ds14(&c, "1xP30");
    // All IO to the local SSD: bounded by the cache-path caps, not by the P30.
    let local = evaluate_alone(&cfg, &Demand::parse("bs=4k,local=100%").unwrap()).unwrap();
    assert_eq!(local.points[0].capacity_iops, Some(64_000.0));
    assert_eq!(
        local.points[0].limit.as_ref().unwrap().kind,
        CapKind::VmCacheIops
    );
    let big = evaluate_alone(&cfg, &Demand::parse("bs=256k,local=100%").unwrap()).unwrap();
    assert_eq!(big.points[0].capacity_mibps, Some(528.0));
    // Half local SSD, half cache hits: together they still get 64,000, not 2 x 64,000.
    let shared =
        evaluate_alone(&cfg, &Demand::parse("bs=4k,local=50%,cache-hit=1").unwrap()).unwrap();
    let p = &shared.points[0];
    assert_eq!(p.capacity_iops, Some(64_000.0));
    let on = |name: &str| {
        p.paths
            .iter()
            .find(|l| l.path == name)
            .unwrap()
            .iops
            .unwrap()
    };
    assert_eq!(on("local SSD") + on("cache hits"), 64_000.0);
    // Half local SSD, half writes to the P30: the disk's 5,000 binds at 10,000 in total.
    let mixed =
        evaluate_alone(&cfg, &Demand::parse("bs=4k,local=50%,write=100%").unwrap()).unwrap();
    assert_eq!(mixed.points[0].capacity_iops, Some(10_000.0));
    assert_eq!(
        mixed.points[0].limit.as_ref().unwrap().kind,
        CapKind::DiskIops
    );
}

/// The benchmarks guide's D8ds_v4 mixed run: 78.3k reads from the cache and 12.6k writes to
/// the disks make 90,000+; the two paths have their own caps.
#[test]
fn d8ds_v4_mixed_reads_from_cache_and_uncached_writes_add_up() {
    let c = Catalog::builtin_slice(Slice::Guides);
    let (disk, disk_count) = parse_disks(&c, "16xP30").unwrap();
    let cfg = Configuration {
        vm: Some(c.vm("Standard_D8ds_v4").unwrap()),
        disk,
        disk_count,
        cache: HostCache::ReadOnly,
    };
    // Reads are 77,000 / (77,000 + 12,800) of the IOs at the point where both paths saturate.
    let read_pct = 77_000.0 / 89_800.0 * 100.0;
    let d = Demand::parse(&format!("bs=4k,read={read_pct},cache-hit=1")).unwrap();
    let e = evaluate_alone(&cfg, &d).unwrap();
    let total = e.points[0].capacity_iops.unwrap();
    assert!((total - 89_800.0).abs() < 1.0, "{total}");
    assert!(total >= 0.9 * (78_300.0 + 12_600.0));
}
