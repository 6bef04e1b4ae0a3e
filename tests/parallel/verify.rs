//! Data verification (fio `verify`) on a loop device, with faults injected into the backing
//! file between the write and the verify: a flipped bit, a torn 4 KiB write inside a 16 KiB
//! block, a lost write (the block of an older generation read back) and a misdirected write
//! (a valid block copied to another offset). Each is caught with its offset for md5, crc32c,
//! xxhash and sha256, and a clean write + verify run finds no error.
//!
//! How the faults are made: run A writes the device once (`loops=1`), run B twice
//! (`loops=2`, so every block's second write is its newest generation), both with
//! `do_verify=0`. The same seed gives the same first pass, so run A's image holds the older
//! generation of each of run B's blocks. The faults are patched into run B's image and a
//! `verify_only` run of B's job reads every block back.

use crate::common;

use common::{real_io, require_root, LoopDevice, TestDir};
use std::os::unix::fs::FileExt;
use std::path::Path;

const BLOCK: u64 = 16 * 1024;
/// Blocks on the 1 MiB device.
const BLOCKS: u64 = 64;

const FLIPPED: u64 = 3;
const TORN: u64 = 10;
const LOST: u64 = 20;
const MISDIRECTED: u64 = 30;
/// The block copied over `MISDIRECTED`.
const MISDIRECTED_FROM: u64 = 40;

/// `diskmeter run` arguments of a sequential 16 KiB write job over the whole device.
fn write_job(device: &str, verify: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--name=verified",
        "--rw=write",
        "--bs=16k",
        "--size=1m",
        "--direct=1",
        "--ioengine=psync",
        "--allow-destroy",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--filename={device}"));
    args.push(format!("--verify={verify}"));
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Runs diskmeter with `args` and `--output-format=json`; returns the exit code and the JSON.
fn run(t: &TestDir, args: &[String]) -> (i32, serde_json::Value) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = t
        .run(&args)
        .arg("--output-format=json")
        .output()
        .expect("run diskmeter");
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (output.status.code().unwrap_or(-1), json)
}

fn read_image(backing: &Path) -> Vec<u8> {
    std::fs::read(backing).expect("read the backing file")
}

/// Writes `bytes` at `offset` of the backing file, under the loop device.
fn patch(backing: &Path, offset: u64, bytes: &[u8]) {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(backing)
        .expect("open the backing file");
    file.write_all_at(bytes, offset).expect("patch");
    file.sync_all().expect("sync the backing file");
}

fn block(image: &[u8], k: u64) -> &[u8] {
    &image[(k * BLOCK) as usize..((k + 1) * BLOCK) as usize]
}

/// The matrix for one checksum kind.
fn faults_are_caught_with_their_offsets(verify: &str) {
    let test = format!("faults_are_caught_with_their_offsets_{verify}");
    if !require_root(&test) {
        return;
    }
    let _turn = real_io();
    let t = TestDir::new();
    let device = LoopDevice::new_direct(t.path(), "verified.img", 1);
    let backing = t.path().join("verified.img");

    let (code, _) = run(&t, &write_job(&device.dev, verify, &["--do_verify=0"]));
    assert_eq!(code, 0, "run A writes");
    let older = read_image(&backing);
    let (code, _) = run(
        &t,
        &write_job(&device.dev, verify, &["--do_verify=0", "--loops=2"]),
    );
    assert_eq!(code, 0, "run B writes");
    let newest = read_image(&backing);

    // verify_only writes nothing: no --allow-destroy needed.
    let mut verify_only = write_job(&device.dev, verify, &["--verify_only=1", "--loops=2"]);
    verify_only.retain(|arg| arg != "--allow-destroy");
    let (code, json) = run(&t, &verify_only);
    assert_eq!(code, 0, "run B's blocks read back as written: {json}");
    assert_eq!(json["jobs"][0]["verify"]["blocks"], BLOCKS);

    // Each fault alone, then the block restored: the first mismatch ends the job (as fio),
    // so one run per fault names it.
    let flipped_at = FLIPPED * BLOCK + 9000;
    let torn_at = TORN * BLOCK + 8192;
    let faults: [(u64, &str, u64, Vec<u8>); 4] = [
        // A flipped bit in the data, away from the header.
        (
            flipped_at,
            "flipped_bits",
            flipped_at,
            vec![newest[flipped_at as usize] ^ 0x10],
        ),
        // 4 KiB of the block still hold the older write: the rest of it landed.
        (
            torn_at,
            "torn",
            torn_at,
            older[torn_at as usize..(torn_at + 4096) as usize].to_vec(),
        ),
        // The newest write of the block never reached the disk: its older generation is there.
        (
            LOST * BLOCK,
            "lost_write",
            LOST * BLOCK,
            block(&older, LOST).to_vec(),
        ),
        // A valid block written at the wrong offset.
        (
            MISDIRECTED * BLOCK,
            "misdirected",
            MISDIRECTED * BLOCK,
            block(&newest, MISDIRECTED_FROM).to_vec(),
        ),
    ];
    for (at, kind, damage_at, bytes) in faults {
        patch(&backing, at, &bytes);
        let (code, json) = run(&t, &verify_only);
        assert_eq!(code, 1, "{kind}: a verify failure fails the job: {json}");
        assert_eq!(
            json["jobs"][0]["error"].as_str().map(|e| e.contains(kind)),
            Some(true)
        );
        let v = &json["jobs"][0]["verify"];
        assert_eq!(v["errors"], 1, "{kind}: {v}");
        let f = &v["failures"][0];
        assert_eq!(f["kind"], kind, "{v}");
        let block_at = at / BLOCK * BLOCK;
        assert_eq!(
            f["offset_bytes"], block_at,
            "{kind} at its block's offset: {v}"
        );
        assert_eq!(
            f["damage_offset_bytes"], damage_at,
            "{kind}: where the damage is: {v}"
        );
        assert_ne!(f["expected"], f["found"], "{f}");
        assert!(f["path"].as_str().unwrap().starts_with("/dev/loop"), "{f}");
        // The checks stopped at the fault: the blocks before it and the fault's own.
        assert_eq!(v["blocks"], block_at / BLOCK + 1, "{kind}: {v}");
        // Restored for the next fault.
        let from = block_at as usize;
        patch(&backing, block_at, &newest[from..from + BLOCK as usize]);
    }

    // A clean write + verify in one run: every block read back, no error.
    let (code, json) = run(&t, &write_job(&device.dev, verify, &[]));
    assert_eq!(code, 0, "clean run: {json}");
    let v = &json["jobs"][0]["verify"];
    assert_eq!(
        (v["blocks"].as_u64(), v["errors"].as_u64()),
        (Some(BLOCKS), Some(0)),
        "{v}"
    );
    assert_eq!(
        json["jobs"][0]["read"]["ios"], 0,
        "verify reads are not the job's reads"
    );
}

#[test]
fn faults_are_caught_with_their_offsets_md5() {
    faults_are_caught_with_their_offsets("md5");
}

#[test]
fn faults_are_caught_with_their_offsets_crc32c() {
    faults_are_caught_with_their_offsets("crc32c");
}

#[test]
fn faults_are_caught_with_their_offsets_xxhash() {
    faults_are_caught_with_their_offsets("xxhash");
}

#[test]
fn faults_are_caught_with_their_offsets_sha256() {
    faults_are_caught_with_their_offsets("sha256");
}

/// `diskmeter run` arguments of a 1 MiB job in 4 KiB blocks on `f.dat` in the test folder.
fn file_job(rw: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--name=f",
        "--filename=f.dat",
        "--bs=4k",
        "--size=1m",
        "--verify=xxhash",
        "--unlink=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--rw={rw}"));
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

#[test]
fn verify_backlog_checks_every_block_while_writing() {
    let t = TestDir::new();
    let (code, json) = run(
        &t,
        &file_job(
            "randwrite",
            &[
                "--verify_backlog=16",
                "--verify_backlog_batch=8",
                "--iodepth=8",
                "--ioengine=io_uring",
            ],
        ),
    );
    assert_eq!(code, 0, "{json}");
    let job = &json["jobs"][0];
    assert_eq!(job["write"]["ios"], 256);
    assert_eq!(job["verify"]["blocks"], 256, "{}", job["verify"]);
    assert_eq!(job["verify"]["errors"], 0);
}

/// Writes `f.dat` with headers and no read-back, then damages it: one flipped bit in block
/// 5, block 9 zeroed.
fn damaged_file(t: &TestDir) -> std::path::PathBuf {
    let (code, json) = run(t, &file_job("write", &["--do_verify=0"]));
    assert_eq!(code, 0, "{json}");
    assert!(json["jobs"][0].get("verify").is_none(), "nothing read back");
    let path = t.path().join("f.dat");
    let image = std::fs::read(&path).unwrap();
    patch(&path, 5 * 4096 + 100, &[image[5 * 4096 + 100] ^ 1]);
    patch(&path, 9 * 4096, &[0u8; 4096]);
    path
}

#[test]
fn a_read_job_checks_what_a_write_job_left_and_dumps_the_block_that_differs() {
    let t = TestDir::new();
    damaged_file(&t);
    let (code, json) = run(&t, &file_job("read", &["--verify_dump=1"]));
    assert_eq!(code, 1, "a verify failure fails the job: {json}");
    let job = &json["jobs"][0];
    // fio 3.33 ends the job at the first mismatch too (error 84 after 6 reads).
    assert_eq!(job["read"]["ios"], 6, "the job's own reads are counted");
    let v = &job["verify"];
    assert_eq!(
        (v["blocks"].as_u64(), v["errors"].as_u64()),
        (Some(6), Some(1)),
        "{v}"
    );
    assert_eq!(v["failures"][0]["offset_bytes"], 5 * 4096);
    assert_eq!(v["failures"][0]["kind"], "flipped_bits");
    // verify_dump: the block as read and as written, differing in the one flipped byte.
    let received = std::fs::read(t.path().join("f.dat.20480.received")).unwrap();
    let expected = std::fs::read(t.path().join("f.dat.20480.expected")).unwrap();
    let differ: Vec<usize> = (0..4096).filter(|&i| received[i] != expected[i]).collect();
    assert_eq!(differ, [100]);
}

#[test]
fn the_fio_json_error_of_a_verify_failure_is_eilseq() {
    let t = TestDir::new();
    damaged_file(&t);
    let mut args = file_job("read", &[]);
    args.push("--output-format=fio-json".to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = t.run(&args).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["jobs"][0]["error"], 84,
        "EILSEQ, as fio: {}",
        json["jobs"][0]
    );
    assert_eq!(json["jobs"][0]["diskmeter_verify"]["errors"], 1);
}

/// True once the process `pid` catches SIGINT (diskmeter installs its handler when its
/// session opens; a signal before would end the process the default way).
fn catches_sigint(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (libc::SIGINT - 1)) != 0)
}

#[test]
fn an_interrupted_write_saves_its_state_and_verify_only_checks_just_what_it_wrote() {
    let t = TestDir::new();
    // 256 writes at 100 a second: Ctrl-C after about a second stops it a third of the way.
    let args = file_job("write", &["--rate_iops=100", "--ioengine=psync"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = common::process()
        .current_dir(t.path())
        .args(["run", "--quiet"])
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start diskmeter");
    let started = std::time::Instant::now();
    while !catches_sigint(child.id()) && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(1000));
    // SAFETY: kill sends a signal to the child we started; no memory is involved.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(
        child.wait().unwrap().code(),
        Some(1),
        "an interrupted run exits 1"
    );

    let state = std::fs::read_to_string(t.path().join("local-f-0-verify.state"))
        .expect("verify_state_save wrote the state");
    let written: u64 = state
        .lines()
        .find_map(|l| l.strip_prefix("writes "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a writes line: {state}"));
    assert!(written > 0 && written < 256, "{state}");

    let (code, json) = run(
        &t,
        &file_job("write", &["--verify_only=1", "--verify_state_load=1"]),
    );
    assert_eq!(code, 0, "what was written reads back: {json}");
    let v = &json["jobs"][0]["verify"];
    assert_eq!(
        (v["blocks"].as_u64(), v["errors"].as_u64()),
        (Some(written), Some(0)),
        "{v}"
    );

    // Without the state, verify_only expects the whole job's writes: the first block the
    // interrupted run never wrote is a mismatch.
    let (code, json) = run(&t, &file_job("write", &["--verify_only=1"]));
    assert_eq!(code, 1);
    let v = &json["jobs"][0]["verify"];
    assert_eq!(v["errors"].as_u64(), Some(1), "{v}");
    assert_eq!(
        v["failures"][0]["offset_bytes"].as_u64(),
        Some(written * 4096),
        "{v}"
    );
}

#[test]
fn on_the_null_engine_blocks_are_read_back_but_not_checked_as_fio() {
    // fio 3.33 on its null engine: 256 verify reads, error 0 (no data moves to check).
    let t = TestDir::new();
    let (code, json) = run(&t, &file_job("write", &["--ioengine=null"]));
    assert_eq!(code, 0, "{json}");
    let v = &json["jobs"][0]["verify"];
    assert_eq!(
        (v["blocks"].as_u64(), v["errors"].as_u64()),
        (Some(256), Some(0)),
        "{v}"
    );
}

#[test]
fn a_job_whose_runtime_ran_out_has_no_verify_phase_as_fio() {
    // fio 3.33 with time_based: no verify reads after the runtime.
    let t = TestDir::new();
    let (code, json) = run(
        &t,
        &file_job(
            "randwrite",
            &["--ioengine=null", "--time_based", "--runtime=200ms"],
        ),
    );
    assert_eq!(code, 0, "{json}");
    assert!(json["jobs"][0]["write"]["ios"].as_u64().unwrap() > 0);
    assert!(
        json["jobs"][0].get("verify").is_none(),
        "{}",
        json["jobs"][0]
    );
}

#[test]
fn overlapping_writes_of_mixed_sizes_are_checked_against_the_newest_data() {
    // Random sizes at random offsets without a random map: blocks overwrite parts of one
    // another many times over; only each byte's newest write is expected back.
    let t = TestDir::new();
    let (code, json) = run(
        &t,
        &file_job(
            "randwrite",
            &[
                "--bsrange=4k-16k",
                "--norandommap",
                "--io_size=4m",
                // One write at a time: two overlapping writes in flight together may land in
                // either order (fio's serialize_overlap is for that).
                "--ioengine=psync",
            ],
        ),
    );
    assert_eq!(code, 0, "{json}");
    let v = &json["jobs"][0]["verify"];
    assert_eq!(v["errors"], 0, "{v}");
    assert!(v["blocks"].as_u64().unwrap() > 0, "{v}");
}
