//! Issue 30's acceptance over the built-in data: the current catalog's size, sources, prices
//! and units; latency bounds against the published classes, over the whole catalog; burst
//! buckets played over time (the worked example); the guides' SQL Server example on
//! the guides' own slice.

use diskmeter_plan::burst::{simulate, Load, LoadPoint};
use diskmeter_plan::catalog::{LatencyClass, Slice, CURRENT_FILES};
use diskmeter_plan::planner::evaluate_under;
use diskmeter_plan::{optimise, Catalog, Configuration, Demand, HostCache, SearchSpace};
use proptest::prelude::*;
use std::collections::HashMap;

fn current() -> &'static Catalog {
    static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    CATALOG.get_or_init(Catalog::builtin)
}

/// How the catalog matches names (its lookups ignore case, `Standard_`, `-`, `_`, spaces).
fn normalised(id: &str) -> String {
    let lower = id.to_ascii_lowercase();
    let bare = lower.strip_prefix("standard_").unwrap_or(&lower);
    bare.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .collect()
}

#[test]
fn the_current_catalog_has_the_clouds_sold_today_each_figure_cited_and_priced() {
    // Each file parses alone, so an id repeated across files is seen (a later file would
    // replace the earlier entry silently).
    let mut disk_ids: HashMap<String, &str> = HashMap::new();
    let mut vm_ids: HashMap<String, &str> = HashMap::new();
    let mut clouds: HashMap<String, (usize, usize)> = HashMap::new();
    for (file, text) in CURRENT_FILES {
        let mut one = Catalog::default();
        one.add_file(file, text).unwrap();
        assert!(!one.sources.is_empty(), "{file}: no [[source]] tables");
        for s in &one.sources {
            assert!(
                s.url.starts_with("https://") || s.url.starts_with("http://"),
                "{file}: source {}: url {}",
                s.id,
                s.url
            );
            // "2026-03-10", "2024 (...)", "undated", "undated (commit ...)": a date or a year
            // first, or the word that says the document has none.
            let dated = |d: &str| {
                d.starts_with("undated")
                    || (d.len() >= 4 && d.as_bytes()[..4].iter().all(u8::is_ascii_digit))
            };
            assert!(
                dated(&s.published),
                "{file}: {}: published {}",
                s.id,
                s.published
            );
            assert!(dated(&s.read) && s.read != "undated", "{file}: {}", s.id);
        }
        let cited = |entry: &str, id: &Option<String>| {
            if let Some(id) = id {
                assert!(one.source(file, id).is_some(), "{file}: {entry}: {id}");
            }
        };
        for d in &one.disks {
            assert!(
                disk_ids.insert(normalised(&d.id), file).is_none(),
                "{file}: disk {} twice",
                d.id
            );
            cited(&d.id, &Some(d.source.clone()));
            cited(&d.id, &d.price_source);
            cited(&d.id, &d.burst_source);
            assert!(
                d.latency_class.is_some(),
                "{file}: {}: no latency class",
                d.id
            );
            assert!(
                d.latency_source.is_some(),
                "{file}: {}: class uncited",
                d.id
            );
            if d.is_priced() {
                assert!(d.price_source.is_some(), "{file}: {}: price uncited", d.id);
            }
            // Units: IOPS and MiB/s of one disk, GiB, USD a month.
            for (what, v, most) in [
                ("iops", d.iops.or(d.iops_max), 1e6),
                ("mibps", d.mibps.or(d.mibps_max), 2e4),
                ("size_gib", d.size_gib.or(d.max_size_gib), 1.1e5),
                ("price_usd_month", d.price_usd_month, 2e4),
                ("price_usd_gib_month", d.price_usd_gib_month, 1.0),
            ] {
                if let Some(v) = v {
                    assert!(v > 0.0 && v <= most, "{file}: {}: {what} = {v}", d.id);
                }
            }
            let entry = clouds.entry(d.cloud.clone()).or_default();
            entry.0 += 1;
        }
        for v in &one.vms {
            assert!(
                vm_ids.insert(normalised(&v.id), file).is_none(),
                "{file}: VM {} twice",
                v.id
            );
            cited(&v.id, &Some(v.source.clone()));
            cited(&v.id, &v.price_source);
            if v.monthly_usd().is_some() {
                assert!(v.price_source.is_some(), "{file}: {}: price uncited", v.id);
            }
            for (what, value, most) in [
                ("uncached_iops", v.uncached_iops, 2e6),
                ("uncached_mibps", v.uncached_mibps, 1e5),
                ("price_usd_hour", v.price_usd_hour, 500.0),
                ("memory_gib", v.memory_gib, 3e4),
            ] {
                if let Some(value) = value {
                    assert!(
                        value > 0.0 && value <= most,
                        "{file}: {}: {what} = {value}",
                        v.id
                    );
                }
            }
            if let (Some(base), Some(burst)) = (v.uncached_iops, v.burst_uncached_iops) {
                assert!(burst >= base, "{file}: {}: burst below baseline", v.id);
            }
            clouds.entry(v.cloud.clone()).or_default().1 += 1;
        }
    }
    let c = current();
    let disks = c.disks.len();
    let vms = c.vms.len();
    let priced_disks = c.disks.iter().filter(|d| d.is_priced()).count();
    let priced_vms = c.vms.iter().filter(|v| v.monthly_usd().is_some()).count();
    eprintln!(
        "current catalog: {disks} disk types ({priced_disks} priced), {vms} VM sizes \
         ({priced_vms} priced); by cloud (disks, VMs): {clouds:?}"
    );
    assert!(
        disks >= 40 && vms >= 300,
        "{disks} disk types, {vms} VM sizes"
    );
    for cloud in ["azure", "aws", "gcp", "digitalocean"] {
        let (d, v) = clouds.get(cloud).copied().unwrap_or_default();
        assert!(d > 0 && v > 0, "{cloud}: {d} disk types, {v} VM sizes");
    }
    assert!(
        priced_disks * 10 >= disks * 9,
        "{priced_disks} of {disks} disk types priced"
    );
    assert!(
        priced_vms * 10 >= vms * 9,
        "{priced_vms} of {vms} VM sizes priced"
    );
    // The named types are there.
    for id in [
        "P1",
        "P80",
        "PremiumV2",
        "Ultra",
        "E1",
        "E80",
        "S4",
        "S80",
        "gp2",
        "gp3",
        "io1",
        "io2",
        "st1",
        "sc1",
        "pd-standard",
        "pd-balanced",
        "pd-ssd",
        "pd-extreme",
        "hyperdisk-balanced",
        "hyperdisk-extreme",
        "hyperdisk-throughput",
    ] {
        c.disk(id).unwrap_or_else(|e| panic!("{id}: {e}"));
    }
}

/// Demands with a per-IO read latency bound of at most 1 ms.
fn low_latency_demand() -> impl Strategy<Value = Demand> {
    (
        100.0f64..200_000.0,
        prop_oneof![Just(4096u64), Just(8192), Just(65536)],
        0.0f64..=1.0,
        50u64..=1000,
    )
        .prop_map(|(iops, bs, read, latency_us)| {
            Demand::parse(&format!(
                "iops={iops:.0},bs={bs},read={read:.3},latency={latency_us}us"
            ))
            .unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Issue 30: over the whole current catalog, a requirement with read latency p99 <= 1 ms
    /// never yields an HDD, or a disk type whose published class lies above the bound.
    #[test]
    fn a_sub_millisecond_bound_never_yields_an_hdd_or_a_slower_class(demand in low_latency_demand()) {
        let c = current();
        let bound_ms = demand.latency_ns.unwrap() as f64 / 1e6;
        let o = optimise(c, &demand, &SearchSpace::default(), None).unwrap();
        for candidate in o.priced.iter().chain(&o.unpriced).chain(&o.unbounded) {
            let tier = c.disk(&candidate.disk).unwrap();
            let class = tier.latency_class.unwrap();
            prop_assert!(class != LatencyClass::Hdd, "{}", candidate.configuration);
            prop_assert!(class.range_ms().0 < bound_ms, "{}: {:?}", candidate.configuration, class);
        }
        prop_assert!(o.latency.contains("excludes"), "{}", o.latency);
    }
}

/// A P10 (500 IOPS, bursting to 3,500 for 30 minutes) under a 90-minute peak of 3,000 IOPS.
fn peak_load(peak_minutes: f64) -> Load {
    let quiet = |minutes: f64| LoadPoint {
        seconds: minutes * 60.0,
        iops: 200.0,
    };
    Load {
        origin: "a synthetic capture".to_string(),
        points: vec![
            quiet(10.0),
            LoadPoint {
                seconds: peak_minutes * 60.0,
                iops: 3000.0,
            },
            quiet(10.0),
        ],
    }
}

#[test]
fn a_bursting_disk_runs_dry_at_minute_36_of_a_90_minute_peak_and_lasts_10_minutes() {
    let c = current();
    let p10 = c.disk("P10").unwrap();
    assert_eq!(
        (p10.iops, p10.burst_iops, p10.burst_minutes),
        (Some(500.0), Some(3500.0), Some(30.0))
    );
    let demand = Demand::parse("iops=3000,bs=8k,read=70%").unwrap();
    let config = Configuration {
        vm: None,
        disk: p10,
        disk_count: 1,
        cache: HostCache::None,
    };
    // A full bucket: (3,500 - 500) x 30.0 min = 5,400,000 IO credits. At 3,000 IOPS it drains
    // at 3,000 - 500 = 2,500 a second: empty after 5,400,000 / 2,500 = 2,160 s = 36 min of
    // the peak, 46 min into the load (10 quiet minutes first, which leave a full bucket
    // full). Then the disk gives its 500 IOPS for the other 54 minutes of the peak.
    let run = simulate(&config, &demand, &peak_load(90.0)).unwrap();
    let bucket = &run.buckets[0];
    assert_eq!(bucket.size_ios, 5_400_000.0);
    assert!(
        (bucket.empties_into_peak_s.unwrap() - 2160.0).abs() < 1e-6,
        "{bucket:?}"
    );
    assert!((bucket.empties_at_s.unwrap() - (600.0 + 2160.0)).abs() < 1e-6);
    assert!(run.runs_dry);
    assert!(
        (run.short_seconds - 54.0 * 60.0).abs() < 1e-6,
        "{}",
        run.short_seconds
    );
    assert_eq!(run.worst, Some((500.0, 3000.0)));
    let lines = diskmeter_plan::burst::describe(&run).join("\n");
    assert!(
        lines.contains("(3,500 - 500) x 30.0 min = 5,400,000 IOs"),
        "{lines}"
    );
    assert!(lines.contains("36 min into the peak"), "{lines}");
    assert!(lines.contains("2,500 IOs/s above the baseline"), "{lines}");
    let e = evaluate_under(&config, &demand, Some(&peak_load(90.0))).unwrap();
    assert_eq!(e.meets, Some(false));

    // The same demand for 10 minutes: 2,500 x 600 s = 1.5 M of the 5.4 M credits.
    let short = Load::constant(3000.0, 600.0);
    let e = evaluate_under(&config, &demand, Some(&short)).unwrap();
    assert_eq!(e.meets, Some(true), "met by bursting");
    let run = e.burst.unwrap();
    assert!(!run.runs_dry);
    // Bursts carry IOPS, not space: a P10's 128 GiB are short of 1 TiB however long its
    // credits last.
    let roomy = Demand::parse("iops=3000,bs=8k,read=70%,capacity=1t").unwrap();
    let e = evaluate_under(&config, &roomy, Some(&short)).unwrap();
    assert_eq!(e.meets, Some(false));
    assert!((run.buckets[0].lowest_fill - (1.0 - 1.5 / 5.4)).abs() < 1e-9);

    // The optimiser over P10s for the 90-minute peak: what it recommends never runs dry,
    // and the cheaper configurations whose credits run out are listed apart.
    let space = SearchSpace {
        disk: Some("P10".to_string()),
        ..SearchSpace::default()
    };
    let o = optimise(c, &demand, &space, Some(&peak_load(90.0))).unwrap();
    let best = &o.priced[0];
    assert!(
        best.burst.iter().any(|l| l.starts_with("never runs dry")),
        "{}: {:?}",
        best.configuration,
        best.burst
    );
    assert!(
        o.ran_dry
            .iter()
            .any(|c| c.disk == "P10" && c.burst.iter().any(|l| l.contains("36 min into the peak"))),
        "{:?}",
        o.ran_dry
            .iter()
            .map(|c| &c.configuration)
            .collect::<Vec<_>>()
    );
    assert!(best.disk_count > 1, "{}", best.configuration);
    // For 10 minutes, one P10 per VM is the answer: its credits last.
    let o = optimise(c, &demand, &space, Some(&short)).unwrap();
    assert!(o.ran_dry.is_empty());
    assert_eq!(o.priced[0].disk_count, 1, "{}", o.priced[0].configuration);
}

#[test]
fn the_guides_sql_server_example_still_gives_ds13_with_four_p30_on_the_guides_slice() {
    let guides = Catalog::builtin_slice(Slice::Guides);
    let demand = Demand::parse("iops=16000,bs=8k,read=70%").unwrap();
    let o = optimise(&guides, &demand, &SearchSpace::default(), None).unwrap();
    assert_eq!(
        o.priced[0].configuration,
        "Standard_DS13 + 4 x P30 (cache ReadOnly)"
    );
    assert_eq!(o.priced[0].total_usd, Some(1548.00));
    // The current catalog answers across clouds, each answer with its reasons.
    let o = optimise(current(), &demand, &SearchSpace::default(), None).unwrap();
    let best = &o.priced[0];
    assert!(!best.capacity.is_empty() && best.capacity[0].contains("limited by the"));
    assert!(
        !best.price.is_empty() && !best.sources.is_empty(),
        "{best:?}"
    );
    assert!(o.latency.starts_with("latency not judged"), "{}", o.latency);
    let clouds: std::collections::HashSet<&str> =
        o.priced.iter().map(|c| c.cloud.as_str()).collect();
    eprintln!(
        "cheapest: {} (${:?}); clouds ranked: {clouds:?}",
        best.configuration, best.total_usd
    );
}
