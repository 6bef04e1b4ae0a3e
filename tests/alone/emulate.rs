//! `diskmeter emulate` and `--emulate` (issue 5, emulation): the caps hold on the emulated
//! disk, and nothing is left behind — after destroy, after Ctrl-C and after a failed run.

use crate::common;

use assert_cmd::Command;
use common::{real_io, require_root, TestDir};
use predicates::prelude::*;
use std::time::Duration;

fn diskmeter(dir: &TestDir) -> Command {
    common::command_in(dir.path())
}

/// Loop devices, diskmeter cgroups and records that exist now.
pub(crate) fn leftovers(dir: &TestDir) -> Vec<String> {
    let mut found = Vec::new();
    let loops = std::process::Command::new("losetup")
        .arg("-a")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    found.extend(
        loops
            .lines()
            .filter(|l| l.contains(&dir.path().display().to_string()))
            .map(str::to_string),
    );
    for root in [
        "/sys/fs/cgroup/blkio",
        "/sys/fs/cgroup",
        "/run/diskmeter/emulate",
    ] {
        if let Ok(entries) = std::fs::read_dir(root) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.contains("diskmeter-emulate-") || root.ends_with("emulate") {
                    found.push(format!("{root}/{name}"));
                }
            }
        }
    }
    found.extend(dir.files().into_iter().filter(|f| f.contains("emulate")));
    found
}

#[test]
fn create_list_and_destroy_leave_nothing() {
    let _turn = real_io();
    if !require_root("emulate create") {
        return;
    }
    let dir = TestDir::new();
    let out = diskmeter(&dir)
        .args([
            "emulate",
            "create",
            "--name",
            "t-p10",
            "--profile",
            "azure-p10",
            "--size",
            "64m",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let device = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(device.starts_with("/dev/loop"), "{device}");
    diskmeter(&dir)
        .args(["emulate", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("t-p10").and(predicate::str::contains("500 IOPS r")));
    assert!(!leftovers(&dir).is_empty());
    diskmeter(&dir)
        .args(["emulate", "destroy", "t-p10"])
        .assert()
        .success();
    assert_eq!(leftovers(&dir), Vec::<String>::new());
    diskmeter(&dir)
        .args(["emulate", "destroy", "t-p10"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no emulation named 't-p10'"));
}

#[test]
fn a_run_on_an_emulated_p30_holds_its_cap_and_cleans_up() {
    let _turn = real_io();
    if !require_root("run --emulate") {
        return;
    }
    let dir = TestDir::new();
    let v = dir.run_json(&[
        "--emulate=azure-p30",
        "--emulate-size=128m",
        "--name=t",
        "--rw=randread",
        "--bs=4k",
        "--iodepth=16",
        "--direct=1",
        "--ramp_time=1",
        "--runtime=3",
        "--time_based",
    ]);
    let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!(
        (iops / 5000.0 - 1.0).abs() < 0.05,
        "{iops} IOPS on a 5,000 IOPS disk"
    );
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

#[test]
fn a_failed_run_and_ctrl_c_leave_nothing_behind() {
    // Judges no figure, and its disk is in memory: it waits with the throttled tests.
    let _turn = common::throttled_io();
    if !require_root("run --emulate cleanup") {
        return;
    }
    let dir = TestDir::in_memory();
    // The job asks for more than the emulated disk holds: the plan fails after creation.
    dir.run(&[
        "--emulate=azure-p30",
        "--emulate-size=64m",
        "--name=t",
        "--rw=read",
        "--offset=1g",
        "--size=1m",
    ])
    .assert()
    .failure();
    assert_eq!(leftovers(&dir), Vec::<String>::new());
    // Ctrl-C in the middle of a run.
    let binary = common::binary();
    let mut child = std::process::Command::new(binary)
        .current_dir(dir.path())
        .args([
            "run",
            "--quiet",
            "--emulate=azure-p10",
            "--emulate-size=64m",
            "--name=t",
            "--rw=randread",
            "--direct=1",
            "--runtime=60",
            "--time_based",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !leftovers(&dir).is_empty(),
        "the emulated disk exists while running"
    );
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "interrupted runs exit 1");
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

#[test]
fn several_disks_are_made_capped_and_removed_together() {
    let _turn = real_io();
    if !require_root("emulate create --disks") {
        return;
    }
    let dir = TestDir::new();
    let out = diskmeter(&dir)
        .args([
            "emulate",
            "create",
            "--name",
            "t-vm",
            "--profile",
            "azure-p10",
            "--size",
            "16m",
            "--disks",
            "3",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let devices: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(devices.len(), 3, "{devices:?}");
    assert!(devices.iter().all(|d| d.starts_with("/dev/loop")));
    diskmeter(&dir)
        .args(["emulate", "list"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains(devices.join(",")).and(predicate::str::contains("per disk")),
        );
    // One cgroup holds a rule for each disk.
    let rules = [
        "/sys/fs/cgroup/blkio/diskmeter-emulate-t-vm/blkio.throttle.read_iops_device",
        "/sys/fs/cgroup/diskmeter-emulate-t-vm/io.max",
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok())
    .unwrap_or_default();
    assert_eq!(rules.lines().count(), 3, "{rules}");
    // exec runs the command inside the cgroup.
    diskmeter(&dir)
        .args(["emulate", "exec", "t-vm", "--", "cat", "/proc/self/cgroup"])
        .assert()
        .success()
        .stdout(predicate::str::contains("diskmeter-emulate-t-vm"));
    diskmeter(&dir)
        .args(["emulate", "destroy", "t-vm"])
        .assert()
        .success();
    assert_eq!(leftovers(&dir), Vec::<String>::new());
    diskmeter(&dir)
        .args(["emulate", "exec", "t-vm", "--", "true"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no emulation named 't-vm'"));
}
