//! The in-engine throttle (issue 5): `--throttle-iops` and `--throttle-bw` cap a whole run,
//! shared by all its jobs like a cloud disk's or VM's cap, with the wait in each IO's
//! latency; a VM cap over several emulated disks; the sweep finds the caps; without root
//! the emulation error points at the throttle. Every cap here is a small part of what the
//! disk does, so the tests share the disk with each other (`throttled_io`).

use crate::common;

use assert_cmd::Command;
use common::{require_root, require_tool, throttled_io, SchedulingJitter, TestDir};
use predicates::prelude::*;
use serde_json::Value;

fn diskmeter(dir: &TestDir) -> Command {
    common::command_in(dir.path())
}

/// (IOPS, bytes/s, mean latency ns) of every job's reads, in job order.
fn reads(v: &Value) -> Vec<(f64, f64, f64)> {
    v["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            let r = &j["read"];
            (
                r["iops"].as_f64().unwrap(),
                r["bw_bytes_per_sec"].as_f64().unwrap(),
                r["lat"]["mean_ns"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Four jobs at queue depth 16 reading one file with direct IO, under `throttle`; with the
/// share of the run's time the host kept a thread of this test waiting for a CPU
/// ([`SchedulingJitter`]).
fn four_jobs_under(dir: &TestDir, bs: &str, throttle: &[&str]) -> (Vec<(f64, f64, f64)>, f64) {
    let mut args = vec![
        "--name=t",
        "--filename=data",
        "--size=64m",
        "--rw=randread",
        "--direct=1",
        "--iodepth=16",
        "--numjobs=4",
        "--ramp_time=1",
        "--runtime=4",
        "--time_based",
    ];
    let bs = format!("--bs={bs}");
    args.push(&bs);
    args.extend_from_slice(throttle);
    let jitter = SchedulingJitter::start();
    let jobs = reads(&dir.run_json(&args));
    (jobs, jitter.lost_share())
}

/// Whether `delivered` is `cap` within `tolerance` above, and within `tolerance` plus the
/// share of the time the host took (`lost`) below: a cap is a ceiling the tool promises to
/// hold; it delivers the cap in full only where the device has the headroom (a file in
/// memory; the VM cap's disks, measured without the cap first) and the tool gets the CPU.
fn at_cap(delivered: f64, cap: f64, tolerance: f64, lost: f64) -> bool {
    delivered <= cap * (1.0 + tolerance) && delivered >= cap * (1.0 - tolerance - lost)
}

#[test]
fn an_iops_cap_is_shared_by_all_jobs_and_its_wait_is_in_the_latency() {
    let _turn = throttled_io();
    // In memory: far more than the cap, and no journal commit of the host disk under it.
    let dir = TestDir::in_memory();
    let (jobs, lost) = four_jobs_under(&dir, "4k", &["--throttle-iops=2000"]);
    let total: f64 = jobs.iter().map(|j| j.0).sum();
    let ios_weighted_lat = jobs.iter().map(|j| j.0 * j.2).sum::<f64>() / total;
    println!("4 jobs x QD16 under 2,000 IOPS: {total:.1} IOPS, mean latency {ios_weighted_lat:.0} ns, per job {jobs:?}; host took {:.1} % of the time", lost * 100.0);
    assert!(
        at_cap(total, 2000.0, 0.05, lost),
        "{total} IOPS under a 2,000 IOPS cap (host took {:.1} % of the time)",
        lost * 100.0
    );
    // 64 IOs in flight at 2,000 IOPS: each waits about 64 / 2,000 s = 32 ms (Little's law).
    let expected_ns = 64.0 / 2000.0 * 1e9;
    assert!(
        (ios_weighted_lat / expected_ns - 1.0).abs() < 0.30,
        "mean latency {ios_weighted_lat} ns, Little's law says {expected_ns}"
    );
}

#[test]
fn a_bandwidth_cap_charges_each_io_its_bytes() {
    let _turn = throttled_io();
    // In memory, as above.
    let dir = TestDir::in_memory();
    let (jobs, lost) = four_jobs_under(&dir, "64k", &["--throttle-bw=50MiB/s"]);
    let total: f64 = jobs.iter().map(|j| j.1).sum();
    println!(
        "4 jobs x QD16 x 64 KiB under 50 MiB/s: {:.2} MiB/s; host took {:.1} % of the time",
        total / (1u64 << 20) as f64,
        lost * 100.0
    );
    let cap = (50u64 << 20) as f64;
    assert!(
        at_cap(total, cap, 0.05, lost),
        "{total} bytes/s under a {cap} bytes/s cap (host took {:.1} % of the time)",
        lost * 100.0
    );
}

/// Issue 13: IOs already waiting for their throttle turn when the runtime ended were issued
/// at their turn and counted, `iodepth` IOs more than the cap allowed (232 MiB in 1 s under
/// 200 MiB/s at QD 32; 432 in 2 s, 1,032 in 5 s). An IO not granted its turn inside the
/// runtime is not done inside it: the count never passes the cap x the runtime (+1 for the
/// IO at the runtime's start), and the rate never passes the cap by more than 1 %, at any
/// runtime.
///
/// Both are ceilings, as the cap is: a run starved of CPU delivers less than the cap (a
/// worker woken more than the bucket's 50 ms late loses those turns), which is not
/// over-reporting. CI once counted 1,825 IOs in 1 s under 2,000 IOPS beside other work and
/// failed a two-sided "within 1 %"; the cap delivered in full is
/// `an_iops_cap_is_shared_by_all_jobs_and_its_wait_is_in_the_latency`'s assertion.
///
/// 1 s and 2 s runs, not 5 s as well: the excess was a fixed `iodepth` IOs at the end, so it
/// is the largest share of a 1 s run (32 IOs: 1.6 % of 2,000 IOPS, 32 % of 100 MiB/s in
/// 1 MiB IOs), and a 2 s run shows the count holds past the first second; a 5 s run proved
/// the same with a share five times smaller, for 10 s of the binary's time.
#[test]
fn throttle_does_not_over_report_by_iodepth_at_the_end_of_the_runtime() {
    let _turn = throttled_io();
    let dir = TestDir::new();
    // (cap flag, block size, the cap in IOs per second)
    let caps = [
        ("--throttle-iops=2000", "4k", 2000.0),
        ("--throttle-bw=100MiB/s", "1m", 100.0),
    ];
    for (cap, bs, ios_per_sec) in caps {
        for runtime in ["1", "2"] {
            let v = dir.run_json(&[
                cap,
                "--name=t",
                "--filename=data",
                "--size=256m",
                "--rw=randread",
                &format!("--bs={bs}"),
                "--iodepth=32",
                "--direct=1",
                &format!("--runtime={runtime}"),
                "--time_based",
                "--keep",
            ]);
            let job = &v["jobs"][0];
            let ios = job["read"]["ios"].as_u64().unwrap() as f64;
            let seconds = job["runtime_ns"].as_u64().unwrap() as f64 / 1e9;
            let iops = job["read"]["iops"].as_f64().unwrap();
            println!("{cap} bs={bs} for {runtime} s: {ios} IOs in {seconds} s, {iops:.1} IOPS");
            assert!(
                ios <= ios_per_sec * seconds + 1.0,
                "{cap} for {runtime} s: {ios} IOs in {seconds} s, more than the cap allows"
            );
            assert!(
                iops <= ios_per_sec * 1.01,
                "{cap} for {runtime} s: {iops} IOPS, more than 1 % over the cap {ios_per_sec}"
            );
        }
    }
}

#[test]
fn the_throttle_is_in_the_plan_and_refuses_a_zero_cap() {
    let dir = TestDir::new();
    dir.run(&[
        "--dry-run",
        "--throttle-iops=2000",
        "--throttle-write-bw=100MiB/s",
        "--name=t",
        "--size=1m",
    ])
    .assert()
    .success()
    .stdout(predicate::str::contains(
        "in-engine throttle: 2,000 IOPS, 100.0 MiB/s write bandwidth shared by all workers",
    ));
    dir.run(&["--throttle-iops=0", "--name=t", "--size=1m"])
        .assert()
        .code(2);
    dir.run(&["--throttle-bw=fast", "--name=t", "--size=1m"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'fast'"));
    // suite and sweep take the same flags.
    diskmeter(&dir)
        .args(["suite", "quick", "--dry-run", "--throttle-iops=1000"])
        .assert()
        .success()
        .stdout(predicate::str::contains("in-engine throttle: 1,000 IOPS"));
    diskmeter(&dir)
        .args([
            "sweep",
            "--dry-run",
            "--throttle-bw=200MiB/s",
            "--qd=1",
            "--bs=4k",
        ])
        .assert()
        .success();
}

/// An emulation made for a test, destroyed when the test ends (also when it fails).
struct Emulated {
    name: String,
    devices: Vec<String>,
}

impl Emulated {
    fn create(dir: &TestDir, name: &str, args: &[&str]) -> Emulated {
        let out = diskmeter(dir)
            .args(["emulate", "create", "--name", name])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let devices = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        Emulated {
            name: name.to_string(),
            devices,
        }
    }
}

impl Drop for Emulated {
    fn drop(&mut self) {
        let _ = common::command()
            .args(["emulate", "destroy", &self.name])
            .output();
    }
}

#[test]
fn a_vm_cap_below_the_sum_of_four_disks_holds_in_total() {
    let _turn = throttled_io();
    if !require_root("a VM cap over emulated disks") {
        return;
    }
    let dir = TestDir::new();
    // Four Azure P30s (5,000 IOPS each, 20,000 together) behind a VM capped at 8,000.
    let vm = Emulated::create(
        &dir,
        "t-vmcap",
        &["--profile", "azure-p30", "--disks", "4", "--size", "64m"],
    );
    assert_eq!(vm.devices.len(), 4, "{:?}", vm.devices);
    let run = |throttle: Option<&str>| {
        let binary = common::binary();
        let mut cmd = diskmeter(&dir);
        cmd.args(["emulate", "exec", &vm.name, "--"])
            .arg(binary)
            .args([
                "run",
                "--quiet",
                "--output-format=json",
                "--rw=randread",
                "--bs=4k",
                "--direct=1",
                "--iodepth=16",
                "--ramp_time=1",
                "--runtime=3",
                "--time_based",
            ]);
        cmd.args(throttle);
        for (i, device) in vm.devices.iter().enumerate() {
            cmd.arg(format!("--name=disk{i}"))
                .arg(format!("--filename={device}"));
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        reads(&serde_json::from_slice(&out.stdout).unwrap())
    };
    // First show the host can go past the VM cap without it (each disk's own 5,000 cap still
    // binding): on a host that cannot, a total at the cap would prove nothing about the cap.
    let free = run(None);
    let total_free: f64 = free.iter().map(|d| d.0).sum();
    println!(
        "4 x P30 without a VM cap: {total_free:.1} IOPS, per disk {:?}",
        free.iter().map(|d| d.0.round()).collect::<Vec<_>>()
    );
    for (i, disk) in free.iter().enumerate() {
        assert!(
            disk.0 < 5000.0 * 1.05,
            "disk {i}: {} IOPS, its own cap is 5,000",
            disk.0
        );
    }
    // 10 % over the cap: well outside the 5 % the capped total is held to below.
    if total_free < 8000.0 * 1.10 {
        common::skip(
            "a_vm_cap_below_the_sum_of_four_disks_holds_in_total",
            &format!(
                "this host does {total_free:.0} IOPS over the four disks without the cap, not \
                 clearly more than the 8,000 the cap would hold it to"
            ),
        );
        return;
    }
    // The free run measured the headroom; the floor below is the cap less 5 % less the
    // share of the capped run's time the host kept this test's threads off a CPU. The loop
    // devices' backing files share the host disk with the throttled tests beside this one: a
    // capped run short of the floor is made again after the free run again (its figure
    // printed), up to three capped runs; a cap that lets through too little falls short in
    // all three (CI may not skip). A CI run beside a CPU hog, 2026-11-29: 18,450 IOPS free,
    // then 5,008 capped, with 0.4 % of the time lost to scheduling.
    let mut attempts = Vec::new();
    let capped = loop {
        let jitter = SchedulingJitter::start();
        let capped = run(Some("--throttle-iops=8000"));
        let lost = jitter.lost_share();
        let total: f64 = capped.iter().map(|d| d.0).sum();
        println!(
            "4 x P30 under an 8,000 IOPS VM cap: {total:.1} IOPS, per disk {:?}; host took \
             {:.1} % of the time",
            capped.iter().map(|d| d.0.round()).collect::<Vec<_>>(),
            lost * 100.0
        );
        if at_cap(total, 8000.0, 0.05, lost) {
            break capped;
        }
        let again: f64 = run(None).iter().map(|d| d.0).sum();
        attempts.push(format!("{total:.0} capped, then {again:.0} free"));
        assert!(
            attempts.len() < 3,
            "{total} IOPS under an 8,000 IOPS VM cap (host took {:.1} % of the time); the \
             host's headroom: {} (IOPS)",
            lost * 100.0,
            attempts.join("; ")
        );
    };
    for (i, disk) in capped.iter().enumerate() {
        assert!(
            disk.0 < 5000.0,
            "disk {i}: {} IOPS, its own cap is 5,000",
            disk.0
        );
    }
}

#[test]
fn a_sweep_under_the_throttle_finds_its_caps() {
    let _turn = throttled_io();
    // In memory: the file does far more than 5,000 IOPS at QD 16, so the plateau the
    // analysis looks for is the throttle's. On the host disk, shared with whatever else the
    // machine runs, 4K at QD 16 fell more than 8 % short of QD 64 beside a busy neighbour
    // ("IOPS still rising at the highest queue depth"): the disk's limit, not the cap's.
    let dir = TestDir::in_memory();
    let out = diskmeter(&dir)
        .args([
            "sweep",
            "--quiet",
            "--output-format=json",
            "--point-time=1s",
            "--ramp=300ms",
            "--size=256m",
            "--qd=1,16,64",
            "--bs=4k,16k,64k,256k,1m",
            "--charts=none",
            "--throttle-iops=5000",
            "--throttle-bw=200MiB/s",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let analysis = &v["sweeps"][0]["analysis"];
    let summary = &v["sweeps"][0]["summary"];
    println!("{summary}");
    let iops = analysis["iops_ceiling"]["value"]
        .as_f64()
        .unwrap_or(f64::NAN);
    let bw = analysis["bandwidth_ceiling"]["value"]
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!(
        (iops / 5000.0 - 1.0).abs() < 0.03,
        "IOPS cap {iops}: {summary}"
    );
    let truth_bw = (200u64 << 20) as f64;
    assert!(
        (bw / truth_bw - 1.0).abs() < 0.03,
        "bandwidth cap {bw}: {summary}"
    );
    let crossover = analysis["crossover_bytes"].as_f64().unwrap();
    assert!(
        (crossover / (truth_bw / 5000.0) - 1.0).abs() < 0.10,
        "crossover {crossover}"
    );
    assert_eq!(analysis["tiers"][0]["id"], "P30", "{summary}");
    assert!(
        summary
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("Throttling signature")),
        "{summary}"
    );
}

#[test]
fn without_root_emulation_points_at_the_throttle() {
    common::isolate_history();
    let binary = common::binary();
    let root = common::is_root();
    // As root, the commands run as `nobody`; otherwise as they are.
    let as_user = |args: &[&str]| {
        let mut cmd = if root {
            let mut cmd = Command::new("setpriv");
            cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
                .arg(&binary);
            cmd
        } else {
            Command::new(&binary)
        };
        // A folder anyone may enter: the test folder is the owner's only.
        cmd.current_dir("/").args(args);
        cmd
    };
    if root && !require_tool("emulation without root", "setpriv") {
        return;
    }
    as_user(&["emulate", "create", "--profile", "azure-p30"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("needs root").and(predicate::str::contains(
                "--throttle-iops 5000 --throttle-bw 200MiB/s",
            )),
        );
    as_user(&[
        "run",
        "--emulate=azure-p10",
        "--name=t",
        "--size=1m",
        "--rw=read",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains(
        "--throttle-iops 500 --throttle-bw 100MiB/s --throttle-burst-iops 3500 \
         --throttle-burst-bw 170MiB/s --throttle-burst-time 1800s",
    ));
}
