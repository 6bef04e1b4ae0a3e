//! `diskmeter check` on a real rate-limited null-engine run saved in the history, against a
//! capture seeded through the history API (tests/seed), explicit `--require` keys and the
//! guides' `--expect` profiles: exit 0 when every requirement passes, 1 on a miss, 2 on bad
//! input.

mod common;
mod seed;

use assert_cmd::Command;
use common::TestDir;
use diskmeter_suites::expect::{expectations, EXPECTATION_SETS};

struct Checked {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn diskmeter(dir: &TestDir, args: &[&str]) -> Checked {
    let out = Command::cargo_bin("diskmeter")
        .expect("binary")
        .current_dir(dir.path())
        .args(args)
        .output()
        .expect("run diskmeter");
    Checked {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A history with the seeded capture (run 1: 1,500 IOPS p50, 4,000 p90) and a 2-second
/// null-engine run (run 2) of 64 KiB random IO at 1,500 reads/s + 1,500 writes/s.
fn history() -> (TestDir, String) {
    let dir = TestDir::new();
    let db = dir.path().join("history.db");
    seed::seed_capture(&db);
    let db = db.to_str().unwrap().to_string();
    let run = diskmeter(
        &dir,
        &[
            "run",
            "--quiet",
            "--db",
            &db,
            "--name=app",
            "--ioengine=null",
            "--size=64m",
            "--rw=randrw",
            "--rwmixread=50",
            "--bs=64k",
            "--rate_iops=1500",
            "--time_based",
            "--runtime=2",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    (dir, db)
}

fn check(dir: &TestDir, db: &str, args: &[&str]) -> Checked {
    let mut all = vec!["check", "--db", db];
    all.extend(args);
    diskmeter(dir, &all)
}

#[test]
fn a_result_that_meets_the_capture_level_passes_and_one_that_does_not_exits_1() {
    let (dir, db) = history();
    let p50 = check(&dir, &db, &["last", "--capture", "last", "--level", "p50"]);
    assert_eq!(p50.code, Some(0), "{}{}", p50.stdout, p50.stderr);
    assert!(p50.stdout.contains("Checking run 2"), "{}", p50.stdout);
    assert!(
        p50.stdout
            .contains("PASS iops >= 1,500 IOPS (capture 1 p50 IOPS total): measured "),
        "{}",
        p50.stdout
    );
    assert!(
        p50.stdout.contains("PASS read-lat-mean <= 0.50 ms"),
        "{}",
        p50.stdout
    );
    assert!(
        p50.stdout.contains("6 of 6 requirements met"),
        "{}",
        p50.stdout
    );
    // p90 needs 4,000 IOPS: a miss by about 25 %.
    let p90 = check(&dir, &db, &["2", "--capture", "1", "--level", "p90"]);
    assert_eq!(p90.code, Some(1), "{}{}", p90.stdout, p90.stderr);
    let line = p90
        .stdout
        .lines()
        .find(|l| l.contains(" iops >= "))
        .unwrap();
    assert!(
        line.starts_with("MISS") && line.contains("margin -2"),
        "{line}"
    );
}

#[test]
fn require_keys_pass_and_miss_with_their_margins() {
    let (dir, db) = history();
    let pass = check(
        &dir,
        &db,
        &[
            "last",
            "--require",
            "iops=2k,read-lat-p99=5,lat-max=50ms,write-mibps=50",
        ],
    );
    assert_eq!(pass.code, Some(0), "{}{}", pass.stdout, pass.stderr);
    assert_eq!(
        pass.stdout
            .lines()
            .filter(|l| l.starts_with("PASS"))
            .count(),
        4,
        "{}",
        pass.stdout
    );
    let miss = check(
        &dir,
        &db,
        &["last", "--require", "read-iops=3000,mibps=100"],
    );
    assert_eq!(miss.code, Some(1), "{}", miss.stdout);
    assert!(
        miss.stdout
            .contains("MISS read-iops >= 3,000 IOPS (--require): measured 1,"),
        "{}",
        miss.stdout
    );
    assert!(
        miss.stdout.contains("PASS mibps >= 100.0 MiB/s"),
        "{}",
        miss.stdout
    );
}

#[test]
fn a_one_step_run_is_checked_as_a_one_step_profile() {
    let (dir, db) = history();
    let out = check(&dir, &db, &["last", "--expect", "ds14-max-read-iops"]);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("step 'app' checked as 'max read IOPS'"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "MISS max read IOPS: read IOPS 64,000+ IOPS (ds14-max-read-iops): measured 1,"
        ),
        "{}",
        out.stdout
    );
    // A profile of several steps needs the run to have them.
    let bad = check(&dir, &db, &["last", "--expect", "ds14-matrix"]);
    assert_eq!(bad.code, Some(2), "{}", bad.stdout);
    assert!(
        bad.stderr.contains("has none of its steps"),
        "{}",
        bad.stderr
    );
}

#[test]
fn every_guide_profile_is_listed_with_its_figures() {
    let dir = TestDir::new();
    let out = diskmeter(&dir, &["check", "--list-expect"]);
    assert_eq!(out.code, Some(0));
    for name in EXPECTATION_SETS {
        assert!(
            out.stdout.lines().any(|l| l.starts_with(name)),
            "{name} not listed"
        );
        let figures = expectations(name).unwrap();
        assert!(!figures.is_empty(), "{name} has no figures");
        for figure in figures {
            assert!(out.stdout.contains(figure.text), "{name}: {}", figure.text);
        }
    }
    for wanted in [
        "do-standard",
        "do-high-cpu",
        "ds14-max-write-iops",
        "ds14-max-read-iops",
        "ds14-max-mixed-iops",
        "ds14-max-throughput",
        "d8ds-v4-max-write-iops",
        "d8ds-v4-max-read-iops",
        "d8ds-v4-max-mixed-iops",
        "ds14-matrix",
    ] {
        assert!(EXPECTATION_SETS.contains(&wanted), "{wanted}");
    }
}

#[test]
fn bad_input_exits_2() {
    let (dir, db) = history();
    for (args, says) in [
        (vec!["last", "--require", "speed=9"], "unknown key 'speed'"),
        (vec!["last", "--require", "iops=lots"], "not a rate"),
        (vec!["last"], "nothing to check"),
        (vec!["99", "--require", "iops=1"], "no run 99"),
        (vec!["1", "--require", "iops=1"], "run 1 is a capture"),
        (vec!["last", "--capture", "2"], "not a capture"),
        (vec!["last", "--capture", "1", "--level", "p95"], "--level"),
        (
            vec!["last", "--step", "nope", "--require", "iops=1"],
            "no such step",
        ),
        (vec!["last", "--expect", "ds99"], "invalid value"),
    ] {
        let out = check(&dir, &db, &args);
        assert_eq!(out.code, Some(2), "{args:?}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
}
