//! `diskmeter sweep` on emulated cloud tiers whose truth is known (issue 5): the inferred
//! caps within 3 %, the crossover within 10 %, the nearest tier named first, with fixed
//! points and with auto-stopped ones; on a device whose curves have not flattened, no
//! invented plateau; charts written.

use crate::common;

use common::{real_io, require_root, throttled_io, TestDir};
use serde_json::Value;

/// Runs a sweep with `args` (1 s points unless they say otherwise) and returns its JSON.
fn sweep(dir: &TestDir, args: &[&str]) -> Value {
    let mut cmd = common::command();
    let point_time = if args.iter().any(|a| a.starts_with("--point-time")) {
        None
    } else {
        Some("--point-time=1s")
    };
    let out = cmd
        .current_dir(dir.path())
        .args(["sweep", "--quiet", "--output-format=json", "--ramp=300ms"])
        .args(point_time)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Sweeps an emulated `profile` with points of `point_time` (and `extra` arguments) and
/// checks what it infers against the profile's caps and `tier`; returns the sweep's JSON.
fn check_tier(
    profile: &str,
    point_time: &str,
    extra: &[&str],
    iops: f64,
    mibps: f64,
    tier: &str,
) -> Value {
    // Each tier's disk is throttled: the tiers sweep side by side, alone against tests of
    // unthrottled IO.
    let _turn = throttled_io();
    if !require_root("sweep on an emulated tier") {
        return Value::Null;
    }
    // In memory: the emulated disks' backing files wait on no journal commit of the host disk
    // (a stall of a few hundred ms moves a 1 s point by more than 3 %), and the tiers side by
    // side ask nothing of its bandwidth (P30's 200 MiB/s and the Hyperdisk's 140 at their 1 MiB
    // points, which they reach together).
    let dir = TestDir::in_memory();
    let point_time = format!("--point-time={point_time}");
    let v = sweep(
        &dir,
        &[
            &format!("--emulate={profile}"),
            "--emulate-size=256m",
            // Queue depth 1 and two depths past every profile's knee: enough for both
            // ceilings and the crossover. On these devices in memory QD 1 is mostly on the
            // plateau too, so a block size stays flattened with one point starved of CPU.
            // Two block sizes on each side of every profile's crossover (40 KiB for the
            // P30, 48 for the Hyperdisk, 200 for the P10), since a ceiling needs two sizes to
            // agree: 4K and 16K below, 256K and 1M above. 64K was a third size on one side
            // (above the P30's and Hyperdisk's crossover, below the P10's): 12 points, not 15.
            "--qd=1,16,64",
            "--bs=4k,16k,256k,1m",
            "--charts=charts",
            &point_time,
        ]
        .into_iter()
        .chain(extra.iter().copied())
        .collect::<Vec<_>>(),
    );
    let analysis = &v["sweeps"][0]["analysis"];
    let summary = &v["sweeps"][0]["summary"];
    let found_iops = analysis["iops_ceiling"]["value"]
        .as_f64()
        .unwrap_or(f64::NAN);
    let found_bw = analysis["bandwidth_ceiling"]["value"]
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!(
        (found_iops / iops - 1.0).abs() < 0.03,
        "{profile}: IOPS cap {found_iops}, truth {iops}: {summary}"
    );
    let truth_bw = mibps * (1u64 << 20) as f64;
    assert!(
        (found_bw / truth_bw - 1.0).abs() < 0.03,
        "{profile}: bandwidth cap {found_bw}, truth {truth_bw}: {summary}"
    );
    let crossover = analysis["crossover_bytes"].as_f64().unwrap();
    let truth = truth_bw / iops;
    assert!(
        (crossover / truth - 1.0).abs() < 0.10,
        "crossover {crossover}, truth {truth}"
    );
    assert_eq!(analysis["tiers"][0]["id"], tier, "{summary}");
    assert_eq!(v["charts"].as_array().unwrap().len(), 6);
    for chart in v["charts"].as_array().unwrap() {
        let path = dir.path().join(chart.as_str().unwrap());
        assert!(
            std::fs::metadata(&path).unwrap().len() > 2000,
            "{}",
            path.display()
        );
    }
    v
}

#[test]
fn an_emulated_p30_is_recognised() {
    let v = check_tier("azure-p30", "1s", &[], 5000.0, 200.0, "P30");
    assert!(
        v.is_null() || v["auto_stop"].is_null(),
        "fixed points: {}",
        v["auto_stop"]
    );
}

#[test]
fn an_emulated_p10_is_recognised_with_auto_stopped_points() {
    // At most 2 s a point (the default is 3): most of a P10's points do not settle (the
    // guide's 20-point sweep: 7 steady), so they ran the whole 3 s, 52 s of the binary. A
    // point that does not settle is measured for the whole --point-max, and 2 s of a
    // throttled device is twice the 1 s the P30 and Hyperdisk tests judge within 3 %.
    // Its credits spent (`--emulate-burst-time=0`): a new P10 bursts to 3,500 IOPS and
    // 170 MiB/s for 30 minutes, and this test judges the baseline caps.
    let v = check_tier(
        "azure-p10",
        "auto",
        &["--point-max=2s", "--emulate-burst-time=0"],
        500.0,
        100.0,
        "P10",
    );
    if v.is_null() {
        return;
    }
    // Every point watched; each measured at most --point-max (2 s) and at least the 1 s
    // window (5 samples of 200 ms) plus the samples the precision rule needs.
    let auto = &v["auto_stop"];
    assert_eq!(auto["points"], 12, "{auto}");
    let measured_s = auto["measured_ns"].as_f64().unwrap() / 1e9;
    assert!(
        (12.0..=12.0 * 2.05).contains(&measured_s),
        "{measured_s} s measured: {auto}"
    );
}

/// A provisioned type is emulated and named as its smallest volume: Hyperdisk Balanced's free
/// 3,000 IOPS and 140 MiB/s (gp3's and Premium SSD v2's free 3,000 / 125 are the same pair,
/// so neither names one type). Before issue 30 this was the guides' high-CPU droplet volume,
/// 6,000 IOPS / 300 MiB/s; today's optimized droplet volume, 7,500 IOPS at 4 KiB, is more
/// than this debug build sustains three tests at a time in CI.
#[test]
fn an_emulated_hyperdisk_balanced_volume_is_recognised() {
    check_tier(
        "gcp-hyperdisk-balanced",
        "1s",
        &[],
        3000.0,
        140.0,
        "hyperdisk-balanced",
    );
}

#[test]
fn curves_that_have_not_flattened_give_no_plateau() {
    let _turn = real_io();
    let dir = TestDir::new();
    // Low queue depths on the real disk: IOPS still rise with every doubling.
    let v = sweep(
        &dir,
        &["--size=256m", "--qd=1,2,4", "--bs=4k,64k", "--charts=none"],
    );
    let analysis = &v["sweeps"][0]["analysis"];
    assert_eq!(
        analysis["iops_ceiling"]["status"], "not_found",
        "{analysis}"
    );
    let summary = v["sweeps"][0]["summary"][0].as_str().unwrap();
    assert!(
        summary.contains("no IOPS cap found") || summary.contains("No IOPS plateau"),
        "{summary}"
    );
    assert!(
        dir.files().is_empty(),
        "the sweep's file was removed: {:?}",
        dir.files()
    );
}

#[test]
fn the_grid_is_shown_without_doing_io() {
    let dir = TestDir::new();
    let mut cmd = common::command();
    let out = cmd
        .current_dir(dir.path())
        .args([
            "sweep",
            "--dry-run",
            "--qd=1,8",
            "--bs=4k,1m",
            "--rw=randread,randrw:70",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 8, "{text}");
    assert!(text.contains("point 8/8: randrw:70 1m QD8 x1"));
    assert!(text.contains("rwmixread=70"));
}
