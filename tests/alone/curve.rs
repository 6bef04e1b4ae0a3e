//! The in-engine service-time model (`--throttle-latency`) and `sweep --curve --slo` on an
//! emulated tier (issue 31): the delay holds the IO's slot, so Little's law bounds the rate;
//! the curve's latency from the intended issue time rises at the maximum; the SLO's answer
//! is the emulator's arithmetic within 5 %.
//!
//! One tier for both: a 2,000 IOPS cap C and an exponential service time S of 2 ms mean
//! (p99 of S alone: 2 ms x ln(100) = 9.2 ms). The arithmetic: at queue depth QD the emulated
//! device does at most min(C, QD / S) IOPS. Paced at an even rate r, each IO finds its turn at
//! the cap at once (the cap's even schedule matches the pacing) and a free slot unless the
//! slots are busy: with QD / S far above r (QD 16: 8,000) the slots are seldom all busy and
//! the latency from the intended time is S's own, so an SLO above S's p99 is met at every r up
//! to the maximum, and the highest rate under it is min(C, QD / S) = C. At QD 4, QD / S =
//! 2,000 meets the cap: the slots are the bottleneck at the maximum, a critically loaded
//! queue (a random walk whose steps are S's spread plus every late wake-up, capacity lost for
//! good), so the latency from the intended time grows through the point, while at half the
//! maximum the queue is short and p99 stays near S's.

use crate::common;

use common::{throttled_io, SchedulingJitter, TestDir};
use serde_json::Value;

/// `diskmeter sweep --curve` on a 64 MiB file in memory at 4 KiB random reads with points of
/// `point_time`, with `args`; its JSON.
fn curve(dir: &TestDir, point_time: &str, args: &[&str]) -> Value {
    let out = common::command()
        .current_dir(dir.path())
        .args([
            "sweep",
            "data",
            "--quiet",
            "--output-format=json",
            "--curve",
        ])
        .args(["--size=64m", "--bs=4k", "--ramp=200ms", point_time])
        .args(["--charts=charts"])
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

/// The paced point at `share` percent: (p99 ms, its interval's low, its high).
fn p99_at(v: &Value, share: f64) -> (f64, f64, f64) {
    let point = v["curve"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["role"] == "share" && p["share_percent"].as_f64() == Some(share))
        .unwrap_or_else(|| panic!("no {share} % point in {v:#}"));
    let p99 = &point["latency_ms"][1];
    let f = |k: &str| p99[k].as_f64().unwrap_or(f64::NAN);
    (f("value"), f("low"), f("high"))
}

#[test]
fn a_service_time_holds_the_slot_so_qd1_at_2ms_does_at_most_500_iops() {
    let _turn = throttled_io();
    let dir = TestDir::in_memory();
    let v = dir.run_json(&[
        "--name=t",
        "--filename=data",
        "--size=64m",
        "--rw=randread",
        "--bs=4k",
        "--direct=1",
        "--iodepth=1",
        "--runtime=2",
        "--time_based",
        "--throttle-latency=2ms",
    ]);
    let read = &v["jobs"][0]["read"];
    let iops = read["iops"].as_f64().unwrap();
    let (clat, lat) = (
        read["clat"]["mean_ns"].as_f64().unwrap(),
        read["lat"]["mean_ns"].as_f64().unwrap(),
    );
    println!("QD1, 2 ms fixed: {iops:.1} IOPS, clat {clat:.0} ns, lat {lat:.0} ns");
    assert!(iops <= 500.0, "{iops} IOPS at QD 1 with 2 ms per IO");
    // The file is in memory: the device adds microseconds, the worker's wake-up at each
    // delay's end tens to hundreds (469.5 IOPS on a busy 2-core VM): not 20 % of 2 ms.
    assert!(iops >= 400.0, "{iops} IOPS: the delay is not 2 ms");
    assert!(clat >= 2e6 && lat >= 2e6, "clat {clat} lat {lat}");
}

#[test]
fn the_slo_rate_on_a_capped_tier_with_a_service_time_is_the_cap() {
    let _turn = throttled_io();
    let dir = TestDir::in_memory();
    // QD 16: QD / S = 8,000, so the cap binds; p99 <= 20 ms is above S's 9.2 ms: the answer
    // is C.
    let v = curve(
        &dir,
        "--point-time=1s",
        &[
            "--qd=16",
            "--throttle-iops=2000",
            "--throttle-latency=exp:2ms",
            "--curve-shares=25,50,100",
            "--slo",
            "p99=20ms",
        ],
    );
    let max = v["curve"]["max_iops"].as_f64().unwrap();
    let slo = &v["curve"]["slo"];
    let rate = slo["rate_iops"].as_f64().unwrap_or(0.0);
    println!("max {max:.1} IOPS; SLO {} at {rate} IOPS", slo["verdict"]);
    assert!((max / 2000.0 - 1.0).abs() <= 0.05, "maximum {max} IOPS");
    assert_eq!(slo["verdict"], "met", "{slo:#}");
    assert!(
        (rate / 2000.0 - 1.0).abs() <= 0.05,
        "SLO rate {rate}: {v:#}"
    );
    for chart in ["charts/iops-vs-latency.svg", "charts/iops-vs-latency.png"] {
        assert!(dir.path().join(chart).is_file(), "{chart}");
    }
}

#[test]
fn p99_at_the_maximum_exceeds_p99_at_half_and_the_slo_bracket_is_within_2_percent() {
    let _turn = throttled_io();
    let dir = TestDir::in_memory();
    // The same tier at QD 4: QD / S = 2,000 meets the cap, and the slots bind (a little below
    // 2,000: the worker wakes late at each delay's end). At half of it p99 is about S's,
    // 9.2 ms; at the maximum the queue grows as a random walk: p99 <= 16 ms is met at half and
    // missed at the maximum (1 s points: about 950 IOs at half, a p99 interval of a ms or two). A host that keeps the worker off the CPU for tens of ms at half load adds
    // them to its p99 (88 ms once, on a 2-core VM beside two compilers): such an attempt is
    // said and run again, at most twice.
    let mut attempt = 0;
    let (v, full, half) = loop {
        let jitter = SchedulingJitter::start();
        let v = curve(
            &dir,
            "--point-time=1s",
            &[
                "--qd=4",
                "--throttle-iops=2000",
                "--throttle-latency=exp:2ms",
                "--curve-shares=50,100",
                "--slo=p99=16ms",
            ],
        );
        let (_, longest) = jitter.stop();
        let (full, half) = (p99_at(&v, 100.0), p99_at(&v, 50.0));
        println!("p99 at 100 %: {full:?}; at 50 %: {half:?}; host's longest wait {longest:?}");
        let stalled = longest > std::time::Duration::from_millis(10);
        if full.1 > half.2 || !stalled || attempt == 2 {
            break (v, full, half);
        }
        attempt += 1;
    };
    let max = v["curve"]["max_iops"].as_f64().unwrap();
    println!("max {max:.1} IOPS");
    // Little's law: at most QD / S = C, within the draws' noise (4 x 2 s of exponential
    // delays: 1 %); less by the worker's wake-up at each IO's end (about 6 % on a busy 2-core
    // VM).
    assert!(
        (2000.0 * 0.85..=2000.0 * 1.03).contains(&max),
        "maximum {max}"
    );
    assert!(full.1 > half.2, "p99 at 100 % {full:?} vs at 50 % {half:?}");
    let slo = &v["curve"]["slo"];
    assert_eq!(slo["verdict"], "met", "{slo:#}");
    let rate = slo["rate_iops"].as_f64().unwrap();
    // Met at 100 % too (the queue built too little): nothing to bisect.
    let over = slo["first_over"][0].as_f64().unwrap_or(rate);
    let bisected = v["curve"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["role"] == "bisect")
        .count();
    println!("SLO met at {rate} IOPS, first over {over}, {bisected} bisection points");
    assert!(
        over - rate <= 0.02 * over || bisected >= 8,
        "bracket {rate}-{over}"
    );
    assert!(rate >= max * 0.5 - 1.0, "{rate} below the 50 % share");
}

#[test]
fn slo_garbage_names_the_option() {
    let dir = TestDir::new();
    let out = common::command()
        .current_dir(dir.path())
        .args(["sweep", "data", "--slo", "garbage"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--slo garbage"), "{stderr}");
    let out = common::command()
        .current_dir(dir.path())
        .args(["sweep", "data", "--curve", "--curve-shares", "0,200"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--curve-shares"));
    assert!(
        !dir.path().join("data").exists(),
        "a usage error made the file"
    );
}
