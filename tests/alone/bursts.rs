//! Burst buckets (issue 31): a disk with credit bursting runs at its burst rate while its
//! bucket holds credits and at its baseline once it is empty, and the step-down comes when
//! the arithmetic says (`bucket / (burst - baseline)` seconds into a saturating run): in the
//! in-engine throttle (`--throttle-burst-*`), and on an emulated loop device whose cgroup
//! caps the burst controller rewrites (`run --emulate --emulate-burst-*`). Nothing is left
//! behind after a bursting run or a foreground emulation is interrupted.

use crate::common;
use crate::emulate::leftovers;

use common::{require_root, TestDir};
use serde_json::Value;
use std::time::Duration;

const BASELINE: f64 = 500.0;
const BURST: f64 = 3500.0;
/// Seconds a full bucket lasts at the burst rate: 30,000 credits spent at 3,000 a second.
const CREDIT_SECONDS: f64 = 10.0;

/// The workload: 4 KiB random reads at queue depth 16 (far above 3,500 IOPS in memory, on a
/// file or a loop device), long enough to see the step-down and settle after it.
const SATURATING: [&str; 7] = [
    "--name=t",
    "--rw=randread",
    "--bs=4k",
    "--iodepth=16",
    "--direct=1",
    "--runtime=17",
    "--time_based",
];

/// The read IOPS of each whole second of the run's series (`jobs[0].series[].read.iops`).
fn per_second(v: &Value) -> Vec<f64> {
    v["jobs"][0]["series"]
        .as_array()
        .expect("series")
        .iter()
        .filter(|s| s["duration_ms"].as_u64() == Some(1000))
        .map(|s| s["read"]["iops"].as_f64().unwrap())
        .collect()
}

/// A second's share spent bursting: its IOs above the baseline over the burst's surplus.
fn share(iops: f64) -> f64 {
    ((iops - BASELINE) / (BURST - BASELINE)).clamp(0.0, 1.0)
}

/// When the series steps down, seconds from its start: the step spans the last second above
/// the middle of burst and baseline and the first below it, each counting its share.
fn step_down_s(series: &[f64]) -> f64 {
    let below = series
        .iter()
        .position(|&iops| iops < (BASELINE + BURST) / 2.0)
        .unwrap_or_else(|| panic!("no step-down in {series:?}"));
    assert!(below > 1, "{series:?}");
    (below - 1) as f64 + share(series[below - 1]) + share(series[below])
}

/// The series bursts, steps down within 5 % of the predicted second, then holds the baseline;
/// and the IO above the baseline before the step is the bucket, within 5 %.
fn assert_burst_then_baseline(series: &[f64]) {
    let step = step_down_s(series);
    let spent_s: f64 = series.iter().map(|&iops| share(iops)).sum();
    println!("step-down at {step:.2} s, {spent_s:.2} s of credits spent (predicted {CREDIT_SECONDS} s): {series:?}");
    assert!(
        (step / CREDIT_SECONDS - 1.0).abs() <= 0.05,
        "stepped down at {step:.2} s, predicted {CREDIT_SECONDS} s: {series:?}"
    );
    assert!(
        (spent_s / CREDIT_SECONDS - 1.0).abs() <= 0.05,
        "{spent_s:.2} s of credits spent, the bucket holds {CREDIT_SECONDS}: {series:?}"
    );
    // The whole seconds of the burst, but the first (which may carry the kernel throttle's
    // start-up allowance) and the one it ends in; then the baseline's, from the second after
    // the step. Each level's mean within 5 %, each second within 10 % (a kernel throttle's
    // slices do not line up with the series' seconds: one second's shortfall is the next's
    // excess).
    assert_level(&series[1..step as usize - 1], BURST, series);
    let baseline = &series[step as usize + 2..];
    assert!(baseline.len() >= 5, "{series:?}");
    assert_level(baseline, BASELINE, series);
}

fn assert_level(seconds: &[f64], level: f64, series: &[f64]) {
    let mean = seconds.iter().sum::<f64>() / seconds.len() as f64;
    assert!(
        (mean / level - 1.0).abs() <= 0.05,
        "mean {mean:.0} IOPS, not {level}: {series:?}"
    );
    assert!(
        seconds
            .iter()
            .all(|&iops| (iops / level - 1.0).abs() <= 0.10),
        "seconds not at {level}: {series:?}"
    );
}

/// What is left of the emulations this test made: its folder's loop devices and files, and
/// the cgroups and records of `names` (other emulations on the machine are not the test's).
fn left(dir: &TestDir, names: &[String]) -> Vec<String> {
    let folder = dir.path().display().to_string();
    leftovers(dir)
        .into_iter()
        .filter(|l| {
            l.contains(&folder)
                || names
                    .iter()
                    .any(|n| l.ends_with(&format!("-{n}")) || l.ends_with(&format!("/{n}.json")))
        })
        .collect()
}

#[test]
fn an_in_engine_burst_steps_down_at_the_predicted_second() {
    let _turn = common::throttled_io();
    // In memory: reads far faster than the burst rate, whatever the host disk does.
    let dir = TestDir::in_memory();
    let db = dir.path().join("history.db");
    let db = db.to_str().unwrap();
    let mut args = SATURATING.to_vec();
    args.extend([
        "--filename=data",
        "--size=64m",
        "--throttle-iops=500",
        "--throttle-burst-iops=3500",
        "--throttle-burst-time=10s",
        "--db",
        db,
    ]);
    assert_burst_then_baseline(&per_second(&dir.run_json(&args)));
    assert_analyze_recovers_the_bucket(&dir, db);
}

#[test]
fn burst_nonsense_is_refused_naming_the_option() {
    let dir = TestDir::new();
    for (args, needle) in [
        (
            ["--throttle-burst-iops=3500", "--throttle-burst-time=12s"].as_slice(),
            "--throttle-burst-iops needs --throttle-iops",
        ),
        (
            &[
                "--throttle-iops=500",
                "--throttle-burst-iops=400",
                "--throttle-burst-time=1",
            ],
            "--throttle-burst-iops 400 is not above",
        ),
        (
            &[
                "--throttle-iops=500",
                "--throttle-burst-iops=3500",
                "--throttle-burst-time=0",
            ],
            "--throttle-burst-time 0",
        ),
    ] {
        let mut all = vec!["--name=t", "--filename=data", "--size=1m", "--dry-run"];
        all.extend_from_slice(args);
        let out = dir.run(&all).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code() == Some(2) && stderr.contains(needle),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn an_emulated_bursting_disk_steps_down_at_the_predicted_second() {
    // Throttled to 3,500 IOPS in memory: the caps are the truth, not the host disk.
    let _turn = common::throttled_io();
    if !require_root("run --emulate with a burst") {
        return;
    }
    // In memory: the loop device waits on no journal commit of the host disk.
    let dir = TestDir::in_memory();
    // azure-p10: 500 IOPS bursting to 3,500; its 30 minutes of credits cut to 10 s.
    let db = dir.path().join("history.db");
    let db = db.to_str().unwrap();
    let mut args = SATURATING.to_vec();
    args.extend([
        "--emulate=azure-p10",
        "--emulate-size=256m",
        "--emulate-burst-time=10s",
        "--db",
        db,
    ]);
    assert_burst_then_baseline(&per_second(&dir.run_json(&args)));
    assert_eq!(left(&dir, &[]), Vec::<String>::new());
    assert_analyze_recovers_the_bucket(&dir, db);
}

/// `analyze` of the saved run recovers the baseline, the burst rate and the bucket (30,000
/// IOs: 3,000 a second for 10 s) within 10 %, and names the tier whose rates they are.
fn assert_analyze_recovers_the_bucket(dir: &TestDir, db: &str) {
    let out = common::diskmeter(
        dir.path(),
        &["analyze", "1", "--db", db, "--output-format=json"],
    );
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let burst = &doc["steps"][0]["burst"];
    assert_eq!(burst["kind"], "step_down", "{doc:#}");
    for (found, truth) in [
        (&burst["baseline"]["mean"], BASELINE),
        (&burst["burst"]["mean"], BURST),
        (&burst["bucket"], (BURST - BASELINE) * CREDIT_SECONDS),
    ] {
        let found = found.as_f64().unwrap_or(f64::NAN);
        assert!(
            (found / truth - 1.0).abs() <= 0.10,
            "{found} is not {truth} within 10 %: {doc:#}"
        );
    }
    assert_eq!(burst["tiers"][0]["id"], "P10", "{doc:#}");
    let out = common::diskmeter(dir.path(), &["analyze", "1", "--db", db]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("stepped down at ") && text.contains("matches P10"),
        "{text}"
    );
}

/// Waits until `ready` holds and `child` catches SIGINT (at most 10 s).
fn wait_for(child: &std::process::Child, ready: impl Fn() -> bool) {
    for _ in 0..100 {
        if ready() && common::catches_sigint(child.id()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Sends SIGINT to `child` and waits for it.
fn interrupt(child: &mut std::process::Child) -> Option<i32> {
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    child.wait().unwrap().code()
}

#[test]
fn sigint_of_a_foreground_emulation_or_a_bursting_run_leaves_nothing() {
    let _turn = common::throttled_io();
    if !require_root("emulate create --foreground") {
        return;
    }
    let dir = TestDir::in_memory();
    let mut held = common::process()
        .current_dir(dir.path())
        .args([
            "emulate",
            "create",
            "--name=t-fg",
            "--profile=azure-p10",
            "--size=16m",
        ])
        .args(["--burst-time=5s", "--foreground"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let rule = "/sys/fs/cgroup/blkio/diskmeter-emulate-t-fg/blkio.throttle.read_iops_device";
    let bursting = || {
        let v1 = std::fs::read_to_string(rule).unwrap_or_default();
        let v2 = std::fs::read_to_string("/sys/fs/cgroup/diskmeter-emulate-t-fg/io.max");
        v1.contains(" 3500") || v2.unwrap_or_default().contains("riops=3500")
    };
    let names = ["t-fg".to_string()];
    wait_for(&held, || bursting() && !left(&dir, &names).is_empty());
    // The controller has raised the caps to the burst rate, and list shows the bucket.
    assert!(bursting(), "the burst caps are not written");
    let list = common::ok(common::diskmeter(dir.path(), &["emulate", "list"]));
    assert!(
        list.contains("bursts to 3,500 IOPS for 5 s (bucket 15,000 IOs)"),
        "{list}"
    );
    let code = interrupt(&mut held);
    assert_eq!(
        code,
        Some(0),
        "a foreground emulation ends cleanly on Ctrl-C"
    );
    assert_eq!(left(&dir, &names), Vec::<String>::new());

    let mut run = common::process()
        .current_dir(dir.path())
        .args([
            "run",
            "--quiet",
            "--emulate=azure-p10",
            "--emulate-size=64m",
        ])
        .args([
            "--emulate-burst-time=3s",
            "--name=t",
            "--rw=randread",
            "--direct=1",
        ])
        .args(["--runtime=60", "--time_based"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let names = [format!("run-{}", run.id())];
    wait_for(&run, || !left(&dir, &names).is_empty());
    // Into the IO, with the controller at work.
    std::thread::sleep(Duration::from_secs(2));
    let code = interrupt(&mut run);
    assert_eq!(code, Some(1), "interrupted runs exit 1");
    assert_eq!(left(&dir, &names), Vec::<String>::new());
}
