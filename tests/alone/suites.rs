//! `diskmeter suite` through the real binary (issue 4, suites): the list, every suite's
//! steps, the tables, the file a suite creates and removes, and the matrix on a loop device
//! throttled like a 5,000 IOPS / 200 MiB/s cloud volume.

use crate::common;

use assert_cmd::Command;
use common::{require_root, sh, BlkioThrottle, LoopDevice, SchedulingJitter, TestDir};
use predicates::prelude::*;

fn suite(dir: &TestDir) -> Command {
    let mut cmd = common::command();
    cmd.current_dir(dir.path()).arg("suite").arg("--quiet");
    cmd
}

#[test]
fn the_list_names_every_suite_with_its_steps() {
    let dir = TestDir::new();
    let assert = suite(&dir).arg("--list").assert().success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    for name in [
        "quick",
        "nvme",
        "peak",
        "realworld",
        "cloud",
        "max-write-iops",
        "max-read-iops",
        "max-mixed-iops",
        "max-throughput",
        "max-mixed-throughput",
        "warmup",
        "matrix",
    ] {
        assert!(out.contains(&format!("{name}: ")), "{name} missing:\n{out}");
    }
    assert!(out.contains("RND4K Q32T1 read: randread 4k QD32 x1"));
}

#[test]
fn quick_prints_crystaldiskmarks_table() {
    let dir = TestDir::new();
    suite(&dir)
        .args(["quick", "--ioengine=null", "--runtime=1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("| SEQ1M Q8T1"))
        .stdout(predicate::str::contains("| RND4K Q1T1"))
        .stdout(predicate::str::contains("read MiB/s"));
}

#[test]
fn steps_show_their_jobs_and_take_overrides() {
    let dir = TestDir::new();
    suite(&dir)
        .args([
            "max-mixed-iops",
            "--dry-run",
            "--write-cap=50000",
            "--read-target=r.dat",
            "--write-target=w.dat",
            "--iodepth=16",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("## step 1/1: max mixed IOPS"))
        .stdout(predicate::str::contains("rate_iops=0,12500"))
        .stdout(predicate::str::contains("filename=r.dat"))
        .stdout(predicate::str::contains("filename=w.dat"))
        .stdout(predicate::str::contains("iodepth=16"));
    assert!(dir.files().is_empty(), "a dry run creates nothing");
    suite(&dir)
        .args(["matrix", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains("## step 16/16: 256K random write"));
    suite(&dir)
        .arg("quik")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean 'quick'"));
    suite(&dir)
        .args(["quick", "--bs=4q"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bs=4q"));
}

#[test]
fn the_cloud_suite_prints_the_guides_expectations() {
    let dir = TestDir::new();
    suite(&dir)
        .args([
            "cloud",
            "--ioengine=null",
            "--runtime=1",
            "--expect=do-standard",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("~200 MiB/s"))
        .stdout(predicate::str::contains("< 5 ms"))
        // Under the table, each figure judged with its interval, as `check --expect` does
        // (1 s steps: too few samples for an interval, so a rate cannot be met).
        .stdout(predicate::str::contains("Against the guide (do-standard):"))
        .stdout(predicate::str::contains(
            "read-lat-mean < 5.00 ms (do-standard read latency: < 5 ms)",
        ));
}

#[test]
fn a_suite_on_real_files_removes_what_it_created() {
    // No turn at the disk: this checks a table and files, no figure, and the one test here
    // that judges figures (the matrix) runs on a device in memory, so it may run beside it.
    let dir = TestDir::new();
    suite(&dir)
        .args(["realworld", "--runtime=500ms", "--size=16m"])
        .assert()
        .success()
        .stdout(predicate::str::contains("| SEQ1M Q1T1"));
    assert!(dir.files().is_empty(), "left {:?}", dir.files());
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    suite(&dir)
        .args([
            "realworld",
            "sub",
            "--runtime=500ms",
            "--size=16m",
            "--keep",
        ])
        .assert()
        .success();
    assert!(dir.path().join("sub/diskmeter-suite.dat").exists());
}

/// Cells of the matrix table: (row, column) -> (MiB/s, IOPS).
fn matrix_cells(table: &str) -> Vec<(String, usize, f64, f64)> {
    let mut cells = Vec::new();
    for line in table
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("IOPS"))
    {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let row = parts[1].to_string();
        for (column, cell) in parts[2..6].iter().enumerate() {
            let numbers: Vec<f64> = cell
                .split([' ', ','])
                .filter_map(|t| t.replace(',', "").parse().ok())
                .collect();
            // "254.64 MiB/s, 65,187 IOPS" splits into 254.64, 65, 187: rejoin the IOPS.
            let iops_text = cell
                .split("MiB/s,")
                .nth(1)
                .unwrap_or("")
                .replace([',', ' '], "");
            let iops: f64 = iops_text
                .trim_end_matches("IOPS")
                .parse()
                .unwrap_or(f64::NAN);
            cells.push((row.clone(), column, numbers[0], iops));
        }
    }
    cells
}

#[test]
fn the_matrix_on_a_throttled_volume_shows_the_iops_and_bandwidth_caps() {
    // A turn shared with the other throttled tests, apart from unthrottled real IO: though in
    // memory, the volume's 200 MiB/s are copied by the loop device's kernel threads, which a
    // neighbour's unthrottled IO starved (a 256K cell at 180 MiB/s, CI run of 2026-11-29 with
    // no turn taken here).
    let _turn = common::throttled_io();
    if !require_root("suite matrix on a throttled loop device") {
        return;
    }
    // In memory: the volume waits on no journal commit of the host disk, and the tests of
    // suites on real files (host disk, no figures) run beside it instead of after it.
    let dir = TestDir::in_memory();
    let device = LoopDevice::new_direct(dir.path(), "volume", 256);
    let Some(throttle) = BlkioThrottle::new("dm-matrix", &device.dev, 5000, 200 << 20) else {
        return;
    };
    let binary = common::binary();
    let jitter = SchedulingJitter::start();
    let table = sh(&throttle.wrap(&format!(
        "{} suite matrix {} --runtime=3 --size=256m --quiet",
        binary.display(),
        device.dev
    )));
    let lost = jitter.lost_share();
    println!("{table}\nthe host took {:.1} % of the time", lost * 100.0);
    let cells = matrix_cells(&table);
    assert_eq!(cells.len(), 16, "{table}");
    // The guides' pattern: the IOPS cap binds below 40 KiB, the bandwidth cap above.
    let expected = |row: &str| match row {
        "4K" => (5000.0 * 4096.0 / (1u64 << 20) as f64, 5000.0),
        "8K" => (5000.0 * 8192.0 / (1u64 << 20) as f64, 5000.0),
        "64K" => (200.0, 3200.0),
        _ => (200.0, 800.0),
    };
    // Each row's median cell shows its cap within 3 %. A single cell may stray further: the
    // kernel's throttle grants a group the budget of the whole 100 ms slice it is in, so a cell
    // whose first IO comes within a slice opened by IO just before it (measured here: a run
    // started right after another runs 3 % over, one after a pause does not) runs up to two
    // slices over the cap, +3 to +7 % of a 3 s cell; and
    // a cell starved of CPU on a loaded 2-core machine runs a few per cent under it. Both are
    // what the device did, so the cell bound is 8 %. Below the cap, the bounds also give
    // the share of the run's time the host kept this test's threads off a CPU: the volume in
    // memory has the headroom, so only a starved tool delivers less than the cap.
    let relative = |value: f64, want: f64| value / want - 1.0;
    let within = |value: f64, want: f64, tolerance: f64| {
        (-(tolerance + lost)..tolerance).contains(&relative(value, want))
    };
    for (row, column, mib, iops) in &cells {
        let (want_mib, want_iops) = expected(row);
        assert!(
            within(*iops, want_iops, 0.08) && within(*mib, want_mib, 0.08),
            "{row} column {column}: {mib} MiB/s, {iops} IOPS; expected {want_mib:.2}, {want_iops}\n{table}"
        );
    }
    for row in ["4K", "8K", "64K", "256K"] {
        let (want_mib, want_iops) = expected(row);
        let median = |pick: fn(&(String, usize, f64, f64)) -> f64| {
            let mut values: Vec<f64> = cells.iter().filter(|c| c.0 == row).map(pick).collect();
            values.sort_by(f64::total_cmp);
            (values[values.len() / 2 - 1] + values[values.len() / 2]) / 2.0
        };
        let (mib, iops) = (median(|c| c.2), median(|c| c.3));
        assert!(
            within(iops, want_iops, 0.03) && within(mib, want_mib, 0.03),
            "{row} row's median: {mib} MiB/s, {iops} IOPS; expected {want_mib:.2}, {want_iops}\n{table}"
        );
    }
}

/// Regression: `suite cloud --expect do-high-cpu` expected ~5,000 random-write IOPS, the
/// standard droplet's figure; the DigitalOcean guide gives 6,000+ on high-CPU droplets for
/// random writes as for random reads.
#[test]
fn suite_cloud_expect_do_high_cpu_expects_6000_random_write_iops() {
    let dir = TestDir::new();
    let assert = suite(&dir)
        .args([
            "cloud",
            "--ioengine=null",
            "--runtime=1",
            "--expect=do-high-cpu",
        ])
        .assert()
        .success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let row = |step: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("| {step} ")))
            .unwrap_or_else(|| panic!("no {step} row in\n{out}"))
            .to_string()
    };
    assert!(row("random write").contains("6,000+ IOPS"), "{out}");
    assert!(row("random read").contains("6,000+ IOPS"), "{out}");
    assert!(!out.contains("~5,000 IOPS"), "{out}");
}

/// The numbers of a table row (`| name | 1,234 | 5.67 | ...`), commas removed; cells
/// that are not numbers (latencies, dashes) are skipped.
fn row_numbers(out: &str, row: &str) -> Vec<f64> {
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("| {row}")))
        .unwrap_or_else(|| panic!("no row {row}:\n{out}"));
    line.split('|')
        .skip(2)
        .filter_map(|cell| cell.trim().replace(',', "").parse().ok())
        .collect()
}

#[test]
fn a_mixed_scenario_shows_read_write_and_combined_figures() {
    let dir = TestDir::new();
    let assert = suite(&dir)
        .args([
            "max-mixed-iops",
            "--ioengine=null",
            "--runtime=1",
            "--numjobs=1",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("total IOPS"))
        .stdout(predicate::str::contains("total MiB/s"));
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    // read IOPS, read MiB/s, write IOPS, write MiB/s, total IOPS, total MiB/s
    let n = row_numbers(&out, "max mixed IOPS");
    assert_eq!(n.len(), 6, "{out}");
    assert!((n[0] + n[2] - n[4]).abs() <= 2.0, "IOPS add up: {n:?}");
    assert!((n[1] + n[3] - n[5]).abs() <= 0.02, "MiB/s add up: {n:?}");
    // A step that only reads has no combined columns.
    suite(&dir)
        .args(["max-read-iops", "--ioengine=null", "--runtime=1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("total IOPS").not());
}

#[test]
fn warm_up_keeps_its_file_records_it_and_cached_read_suites_ask_for_it() {
    // No turn at the disk, as for the real-file suite above: messages, files and the
    // history, no figure.
    let dir = TestDir::new();
    let db = dir.path().join("history.db");
    let db = db.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut cmd = common::command();
        cmd.current_dir(dir.path())
            .arg("suite")
            .args(args)
            .args(["--db", db, "--size=16m"]);
        cmd
    };
    // Never warmed: the cached-read suite says so before it starts.
    run(&[
        "max-read-iops",
        "cold.dat",
        "--runtime=500ms",
        "--numjobs=1",
        "--iodepth=4",
    ])
    .assert()
    .success()
    .stderr(predicate::str::contains(
        "cold.dat has not been warmed since the last boot",
    ));
    // The warm-up keeps its file and records it as warm in this boot.
    run(&[
        "warmup",
        "warm.dat",
        "--runtime=500ms",
        "--numjobs=1",
        "--iodepth=4",
    ])
    .assert()
    .success()
    .stdout(predicate::str::contains(
        "kept warm.dat warm in the host cache",
    ));
    assert!(
        dir.path().join("warm.dat").exists(),
        "the warmed file is kept"
    );
    run(&[
        "max-read-iops",
        "warm.dat",
        "--runtime=500ms",
        "--numjobs=1",
        "--iodepth=4",
    ])
    .assert()
    .success()
    .stderr(predicate::str::contains("warm.dat was warmed in this boot"));
    assert!(
        dir.path().join("warm.dat").exists(),
        "a suite leaves a file it did not make"
    );
    // --warmup chains the warm-up: two runs, the warm-up first.
    run(&[
        "max-read-iops",
        "chained.dat",
        "--warmup",
        "--warmup-runtime=500ms",
        "--runtime=500ms",
        "--numjobs=1",
        "--iodepth=4",
    ])
    .assert()
    .success()
    .stdout(predicate::str::contains("| cache warm-up"))
    .stderr(predicate::str::contains("has not been warmed").not());
    let listed = common::command()
        .args(["history", "--db", db, "--format=json"])
        .output()
        .unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let names: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "max-read-iops",
            "warmup",
            "max-read-iops",
            "warmup",
            "max-read-iops"
        ],
        "newest first"
    );
    // --warmup is for the suites that read from a cached volume.
    run(&["quick", "--warmup", "--dry-run"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("max-read-iops"));
}
