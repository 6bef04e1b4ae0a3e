//! The analysis against synthetic devices whose truth is known: a throttled cloud tier
//! (IOPS = min(QD / base latency, IOPS cap, bandwidth cap / size), latency from Little's
//! law), with a few percent of noise, and devices without caps.

use super::*;

const GRID_QD: [u32; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const GRID_BS: [u64; 8] = [4, 8, 16, 32, 64, 128, 256, 1024];

/// A deterministic +-`amount` wobble per point.
fn noise(bs: u64, qd: u32, amount: f64) -> f64 {
    let x = (bs.wrapping_mul(2_654_435_761) ^ u64::from(qd).wrapping_mul(40_503)) % 1000;
    1.0 + amount * (x as f64 / 500.0 - 1.0)
}

fn throttled(iops_cap: f64, mibps_cap: f64, base_lat_s: f64, wobble: f64) -> Vec<SweepPoint> {
    let mut points = Vec::new();
    for kib in GRID_BS {
        let bs = kib * 1024;
        for qd in GRID_QD {
            let bw_cap = mibps_cap * (1u64 << 20) as f64;
            let iops = (f64::from(qd) / base_lat_s)
                .min(iops_cap)
                .min(bw_cap / bs as f64)
                * noise(bs, qd, wobble);
            points.push(SweepPoint {
                bs_bytes: bs,
                qd,
                iops,
                bytes_per_sec: iops * bs as f64,
                lat_mean_ns: f64::from(qd) / iops * 1e9,
                lat_p99_ns: 2.0 * f64::from(qd) / iops * 1e9,
            });
        }
    }
    points
}

/// The guides' slice: these tests name the guides' tiers (P30, P10, DigitalOcean's
/// high-CPU Droplet volume).
fn catalog() -> Vec<diskmeter_plan::DiskTier> {
    diskmeter_plan::Catalog::builtin_slice(diskmeter_plan::catalog::Slice::Guides).disks
}

fn found(c: &CeilingFinding) -> &Ceiling {
    match c {
        CeilingFinding::Found(c) => c,
        other => panic!("no ceiling: {other:?}"),
    }
}

#[test]
fn an_emulated_p30_gives_its_caps_crossover_and_name() {
    let a = analyse(&throttled(5000.0, 200.0, 0.0005, 0.02), &catalog());
    let iops = found(&a.iops_ceiling);
    let bw = found(&a.bandwidth_ceiling);
    assert!((iops.value / 5000.0 - 1.0).abs() < 0.03, "{iops:?}");
    assert!(
        (bw.value / (200u64 << 20) as f64 - 1.0).abs() < 0.03,
        "{bw:?}"
    );
    assert!(iops.low <= iops.value && iops.value <= iops.high);
    let crossover = a.crossover_bytes.unwrap();
    assert!((crossover / 40960.0 - 1.0).abs() < 0.10, "{crossover}");
    assert_eq!(a.tiers[0].id, "P30");
    let limits: Vec<(u64, Limit)> = a
        .block_sizes
        .iter()
        .map(|f| (f.bs_bytes, f.limit))
        .collect();
    assert_eq!(limits[0], (4096, Limit::Iops));
    assert_eq!(limits[7], (1 << 20, Limit::Bandwidth));
    assert!(a.block_sizes[0].throttled, "IOPS flat while latency grows");
    // QD = IOPS x latency needs QD 3 at 0.5 ms for 5,000 IOPS: the knee is at QD 4.
    assert_eq!(a.block_sizes[0].knee_qd, Some(4));
    assert!(a.little_failures.is_empty());
    let lines = summary_lines(&a);
    assert!((3..=7).contains(&lines.len()), "{lines:#?}");
    assert!(
        lines.last().unwrap().contains("Azure Premium SSD P30"),
        "{lines:#?}"
    );
}

#[test]
fn p10_and_a_high_cpu_droplet_volume_are_named() {
    let p10 = analyse(&throttled(500.0, 100.0, 0.002, 0.02), &catalog());
    assert_eq!(p10.tiers[0].id, "P10");
    assert!((found(&p10.iops_ceiling).value / 500.0 - 1.0).abs() < 0.03);
    let droplet = analyse(&throttled(6000.0, 300.0, 0.0005, 0.02), &catalog());
    assert_eq!(droplet.tiers[0].id, "do-volume-high-cpu");
}

#[test]
fn a_device_without_caps_gets_no_invented_plateau() {
    // Latency 50 us + transfer at 2 GB/s, unlimited parallelism: IOPS rises with QD.
    let mut points = Vec::new();
    for kib in GRID_BS {
        for qd in GRID_QD {
            let bs = kib * 1024;
            let lat = 50e-6 + bs as f64 / 2e9;
            let iops = f64::from(qd) / lat;
            points.push(SweepPoint {
                bs_bytes: bs,
                qd,
                iops,
                bytes_per_sec: iops * bs as f64,
                lat_mean_ns: lat * 1e9,
                lat_p99_ns: lat * 2e9,
            });
        }
    }
    let a = analyse(&points, &catalog());
    assert!(matches!(a.iops_ceiling, CeilingFinding::NotFound { .. }));
    assert!(matches!(
        a.bandwidth_ceiling,
        CeilingFinding::NotFound { .. }
    ));
    assert!(a.tiers.is_empty());
    assert!(summary_lines(&a)[0].contains("No IOPS plateau below the top of the grid"));
}

#[test]
fn saturation_at_different_iops_per_size_is_not_a_cap() {
    // An SSD with 32 internal queues: flat past QD 32, but each size at its own IOPS.
    let mut points = Vec::new();
    for kib in GRID_BS {
        for qd in GRID_QD {
            let bs = kib * 1024;
            let lat = 80e-6 + bs as f64 / 2e8;
            let iops = f64::from(qd.min(32)) / lat;
            points.push(SweepPoint {
                bs_bytes: bs,
                qd,
                iops,
                bytes_per_sec: iops * bs as f64,
                lat_mean_ns: f64::from(qd) / iops * 1e9,
                lat_p99_ns: 0.0,
            });
        }
    }
    let a = analyse(&points, &catalog());
    match &a.iops_ceiling {
        CeilingFinding::NotFound { reason, .. } => assert!(reason.contains("do not agree")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_starved_queue_breaks_littles_law_and_is_flagged() {
    let mut points = throttled(5000.0, 200.0, 0.0005, 0.0);
    // The tool kept only half the asked queue in flight at QD 256.
    let p = points
        .iter_mut()
        .find(|p| p.bs_bytes == 4096 && p.qd == 256)
        .unwrap();
    p.lat_mean_ns /= 2.0;
    let a = analyse(&points, &catalog());
    assert_eq!(a.little_failures.len(), 1);
    assert_eq!(
        (a.little_failures[0].bs_bytes, a.little_failures[0].qd),
        (4096, 256)
    );
    assert!(summary_lines(&a).iter().any(|l| l.contains("Little's law")));
}

#[test]
fn noise_of_a_busy_host_still_gives_the_caps() {
    // +-6 % per point, as measured on this project's VM while other builds ran.
    let a = analyse(&throttled(5000.0, 200.0, 0.0005, 0.06), &catalog());
    assert!((found(&a.iops_ceiling).value / 5000.0 - 1.0).abs() < 0.03);
    assert!((found(&a.bandwidth_ceiling).value / (200u64 << 20) as f64 - 1.0).abs() < 0.03);
    assert_eq!(a.tiers[0].id, "P30");
}

/// A point of 4 KiB random reads at `qd` delivering `iops`, latency by Little's law.
fn point(qd: u32, iops: f64) -> SweepPoint {
    SweepPoint {
        bs_bytes: 4096,
        qd,
        iops,
        bytes_per_sec: iops * 4096.0,
        lat_mean_ns: f64::from(qd) / iops * 1e9,
        lat_p99_ns: 2.0 * f64::from(qd) / iops * 1e9,
    }
}

fn partial(qd: u32, iops: f64, reason: &str) -> PartialPoint {
    PartialPoint {
        step: format!("randread 4k QD{qd} x1"),
        bs_bytes: 4096,
        qd,
        iops,
        reason: reason.to_string(),
    }
}

#[test]
fn issue27_an_interrupted_point_below_the_curve_is_listed_and_left_out() {
    // The sweep of issue 27: Ctrl-C during QD 8, which had done 2,863 IOPS against the
    // 4,504 of QD 4. Analysed as whole, QD 8 would end the curve below its best.
    let group = PointGroup {
        rw: "randread".to_string(),
        points: vec![point(1, 1_200.0), point(2, 2_350.0), point(4, 4_504.0)],
        partial: vec![partial(8, 2_863.0, "interrupted (Ctrl-C or SIGTERM)")],
    };
    let a = analyse_group(&group, &catalog());
    assert_eq!(a.partial_points, group.partial);
    assert!(a.nothing_inferred.is_none(), "{a:#?}");
    let finding = &a.block_sizes[0];
    assert_eq!(finding.max_qd, 4, "the partial QD 8 is not on the curve");
    assert_eq!(finding.best_iops, 4_504.0);
    assert!(a.iops_ceiling.value().is_none() && a.tiers.is_empty());
    let CeilingFinding::NotFound { reason, .. } = &a.iops_ceiling else {
        panic!("{a:#?}")
    };
    assert!(
        reason.ends_with("(4) for 4k IOs (whole points only; 1 partial point(s) left out)"),
        "{reason}"
    );
    let lines = summary_lines(&a);
    assert_eq!(
        lines[0],
        "Partial point left out of the analysis: randread 4k QD8 x1 (2,863 IOPS over the \
         part that ran): interrupted (Ctrl-C or SIGTERM)."
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("(8)") || l.contains("QD 8")),
        "{lines:#?}"
    );
}

#[test]
fn too_few_whole_points_infer_nothing() {
    for (points, why) in [
        (vec![], "no whole point was measured"),
        (
            vec![point(1, 1_200.0)],
            "only 1 whole point(s), no block size with two queue depths",
        ),
    ] {
        let group = PointGroup {
            rw: "randwrite".to_string(),
            points,
            partial: vec![partial(2, 310.0, "failed: job w: No space left on device")],
        };
        let a = analyse_group(&group, &catalog());
        let reason = a.nothing_inferred.clone().expect("nothing inferred");
        assert!(reason.starts_with(why), "{reason}");
        assert!(
            reason.ends_with("; 1 partial point(s) left out"),
            "{reason}"
        );
        assert!(a.iops_ceiling.value().is_none() && a.bandwidth_ceiling.value().is_none());
        assert!(a.block_sizes.is_empty() && a.tiers.is_empty() && a.crossover_bytes.is_none());
        let lines = summary_lines(&a);
        assert_eq!(lines.len(), 2, "{lines:#?}");
        assert!(lines[0].contains("No space left on device"), "{lines:#?}");
        assert!(lines[1].starts_with("Nothing inferred: "), "{lines:#?}");
        for claim in ["not capped", "still rising", "Behaves like", "cap"] {
            assert!(!lines[1].contains(claim), "{claim}: {lines:#?}");
        }
    }
}

#[test]
fn one_point_per_block_size_is_no_curve() {
    let mut big = point(4, 900.0);
    big.bs_bytes = 1 << 20;
    let a = analyse(&[point(1, 1_200.0), big], &catalog());
    assert!(a.nothing_inferred.is_some(), "{a:#?}");
    let a = analyse(&[point(1, 1_200.0), point(2, 2_300.0)], &catalog());
    assert!(a.nothing_inferred.is_none(), "{a:#?}");
}

#[test]
fn a_ceiling_at_a_tiers_burst_rate_says_the_sweep_measured_the_burst() {
    // A P10 on a full bucket: 3,500 IOPS / 170 MiB/s for the minutes of a sweep.
    let current = diskmeter_plan::Catalog::builtin().named_volumes();
    let a = analyse(&throttled(3500.0, 170.0, 0.0005, 0.02), &current);
    assert!(a.burst_of.iter().any(|t| t.id == "P10"), "{:?}", a.burst_of);
    let line = summary_lines(&a).join("\n");
    assert!(line.contains("burst rate of P1"), "{line}");
    assert!(line.contains("measured the burst"), "{line}");
    // A P30's 5,000 IOPS is nobody's burst.
    let a = analyse(&throttled(5000.0, 200.0, 0.0005, 0.02), &current);
    assert!(a.burst_of.is_empty(), "{:?}", a.burst_of);
}
