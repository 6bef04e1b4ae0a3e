//! Never destroy data: the bad-target matrix (an existing user file, a device with a
//! filesystem, a mounted device, a device with a partition table, a symlink to a device) is
//! refused without writing a byte; blank devices, files diskmeter made, and `--allow-destroy`
//! go ahead.

use crate::common;

use common::{require_root, require_tool, LoopDevice, TestDir};
use predicates::str::contains;
use std::os::unix::fs::FileExt;

const WRITE_JOB: &[&str] = &["--name=w", "--rw=randwrite", "--bs=4k", "--size=1m"];

fn assert_refused(t: &TestDir, target: &str) {
    t.run(WRITE_JOB)
        .arg(format!("--filename={target}"))
        .assert()
        .code(1)
        .stderr(contains("refusing to write"))
        .stderr(contains("--allow-destroy"));
}

#[test]
fn an_existing_user_file_is_not_overwritten() {
    let t = TestDir::new();
    let file = t.path().join("precious.db");
    std::fs::write(&file, vec![7u8; 2 << 20]).unwrap();
    assert_refused(&t, file.to_str().unwrap());
    assert_eq!(
        std::fs::read(&file).unwrap(),
        vec![7u8; 2 << 20],
        "file changed"
    );
}

#[test]
fn an_existing_user_file_may_be_read_and_is_kept() {
    let t = TestDir::new();
    let file = t.path().join("data.bin");
    std::fs::write(&file, vec![1u8; 1 << 20]).unwrap();
    t.run(&["--name=r", "--rw=randread", "--bs=4k"])
        .arg(format!("--filename={}", file.display()))
        .assert()
        .success();
    assert!(file.exists(), "a user's file is never removed");
}

#[test]
fn allow_destroy_writes_to_a_user_file_and_keeps_it() {
    let t = TestDir::new();
    let file = t.path().join("scratch.bin");
    std::fs::write(&file, vec![0u8; 1 << 20]).unwrap();
    t.run(WRITE_JOB)
        .arg("--allow-destroy")
        .arg(format!("--filename={}", file.display()))
        .assert()
        .success();
    assert!(file.exists(), "a user's file is never removed");
    assert_ne!(
        std::fs::read(&file).unwrap(),
        vec![0u8; 1 << 20],
        "the job wrote"
    );
}

#[test]
fn a_kept_diskmeter_file_is_reused_for_writes_without_the_flag() {
    let t = TestDir::new();
    t.run(&[
        "--name=k",
        "--rw=randread",
        "--bs=4k",
        "--size=1m",
        "--keep",
    ])
    .assert()
    .success();
    assert_eq!(t.files(), vec!["k.0.0"]);
    t.run(&["--name=k", "--rw=randwrite", "--bs=4k", "--size=1m"])
        .assert()
        .success();
    assert!(t.files().is_empty(), "created files are removed at the end");
}

#[test]
fn a_symlink_to_a_user_file_is_refused() {
    let t = TestDir::new();
    let file = t.path().join("real.db");
    std::fs::write(&file, vec![3u8; 1 << 20]).unwrap();
    let link = t.path().join("link.db");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    assert_refused(&t, link.to_str().unwrap());
    assert_eq!(std::fs::read(&file).unwrap(), vec![3u8; 1 << 20]);
}

fn mkfs(dev: &str) {
    common::sh(&format!("mkfs.ext4 -q -F {dev}"));
}

#[test]
fn a_device_with_a_filesystem_is_refused() {
    if !require_root("a_device_with_a_filesystem_is_refused")
        || !require_tool("a_device_with_a_filesystem_is_refused", "mkfs.ext4")
    {
        return;
    }
    let t = TestDir::new();
    let lo = LoopDevice::new(t.path(), "fs.img", 32);
    mkfs(&lo.dev);
    let before = lo.fingerprint();
    assert_refused(&t, &lo.dev);
    assert_eq!(lo.fingerprint(), before, "device changed");
}

#[test]
fn a_mounted_device_is_refused() {
    if !require_root("a_mounted_device_is_refused")
        || !require_tool("a_mounted_device_is_refused", "mkfs.ext4")
    {
        return;
    }
    let t = TestDir::new();
    let mut lo = LoopDevice::new(t.path(), "m.img", 32);
    mkfs(&lo.dev);
    lo.mount(&t.path().join("mnt"));
    t.run(WRITE_JOB)
        .arg(format!("--filename={}", lo.dev))
        .assert()
        .code(1)
        .stderr(contains("mounted"));
}

#[test]
fn a_device_with_a_partition_table_is_refused() {
    if !require_root("a_device_with_a_partition_table_is_refused") {
        return;
    }
    let t = TestDir::new();
    let lo = LoopDevice::new(t.path(), "p.img", 16);
    let mut mbr = [0u8; 512];
    mbr[446 + 4] = 0x83; // one Linux partition entry
    mbr[446 + 8] = 1;
    mbr[446 + 12] = 0x10;
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&lo.dev)
            .unwrap();
        f.write_all_at(&mbr, 0).unwrap();
        f.sync_all().unwrap();
    }
    let before = lo.fingerprint();
    assert_refused(&t, &lo.dev);
    assert_eq!(lo.fingerprint(), before, "device changed");
}

#[test]
fn a_symlink_to_a_device_with_data_is_refused() {
    if !require_root("a_symlink_to_a_device_with_data_is_refused")
        || !require_tool("a_symlink_to_a_device_with_data_is_refused", "mkfs.ext4")
    {
        return;
    }
    let t = TestDir::new();
    let lo = LoopDevice::new(t.path(), "s.img", 32);
    mkfs(&lo.dev);
    let link = t.path().join("disk");
    std::os::unix::fs::symlink(&lo.dev, &link).unwrap();
    let before = lo.fingerprint();
    assert_refused(&t, link.to_str().unwrap());
    assert_eq!(lo.fingerprint(), before, "device changed");
}

#[test]
fn a_blank_device_is_written_and_never_removed() {
    if !require_root("a_blank_device_is_written_and_never_removed") {
        return;
    }
    let t = TestDir::new();
    let lo = LoopDevice::new(t.path(), "b.img", 16);
    t.run(&[
        "--name=w",
        "--rw=randwrite",
        "--bs=4k",
        "--size=4m",
        "--direct=1",
    ])
    .arg(format!("--filename={}", lo.dev))
    .assert()
    .success();
    assert!(
        std::path::Path::new(&lo.dev).exists(),
        "a device is never removed"
    );
    // Every 4 KiB block of the job's 4 MiB was written (random data, once each), and nothing
    // past it: the device was all zeros before.
    let device = std::fs::read(&lo.dev).unwrap();
    let (region, rest) = device.split_at(4 << 20);
    let blank = region
        .chunks(4096)
        .filter(|block| block.iter().all(|&b| b == 0))
        .count();
    assert_eq!(blank, 0, "{blank} blocks of the job's region left blank");
    assert!(
        rest.iter().all(|&b| b == 0),
        "written past the job's region"
    );
    if require_tool("a_blank_device_is_written_and_never_removed", "mkfs.ext4") {
        // With --allow-destroy a device holding a filesystem is written too: every block of
        // the job's 1 MiB changes, the superblock among them.
        mkfs(&lo.dev);
        let before = std::fs::read(&lo.dev).unwrap();
        t.run(WRITE_JOB)
            .arg("--allow-destroy")
            .arg(format!("--filename={}", lo.dev))
            .assert()
            .success();
        let after = std::fs::read(&lo.dev).unwrap();
        let unchanged = (0..256)
            .filter(|i| before[i * 4096..][..4096] == after[i * 4096..][..4096])
            .count();
        assert_eq!(
            unchanged, 0,
            "{unchanged} blocks of the 1 MiB job left as they were"
        );
    }
}
