//! `diskmeter check` on a real rate-limited null-engine run saved in the history, against a
//! capture seeded through the history API (tests/seed), explicit `--require` keys and the
//! guides' `--expect` profiles: each line met, missed, within noise or not measured with the
//! measured figure's interval; exit 0 when nothing is missed, 1 on a miss (or a figure the
//! run cannot show), 2 on bad input.

use crate::common;
use crate::seed;

use common::TestDir;
use diskmeter_suites::expect::{expectations, EXPECTATION_SETS};

struct Checked {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn diskmeter(dir: &TestDir, args: &[&str]) -> Checked {
    let out = common::diskmeter(dir.path(), args);
    Checked {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A history with the seeded capture (run 1: 1,500 IOPS p50, 4,000 p90) and a 9-second
/// null-engine run (run 2) of 64 KiB random IO at 1,500 reads/s + 1,500 writes/s: nine 1 s
/// samples, three batches for the intervals. Made once and shared: the checks only read it.
fn history() -> (&'static TestDir, String) {
    static HISTORY: std::sync::OnceLock<(TestDir, String)> = std::sync::OnceLock::new();
    let (dir, db) = HISTORY.get_or_init(|| {
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
                "--runtime=9",
            ],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        (dir, db)
    });
    (dir, db.clone())
}

fn check(dir: &TestDir, db: &str, args: &[&str]) -> Checked {
    let mut all = vec!["check", "--db", db];
    all.extend(args);
    diskmeter(dir, &all)
}

#[test]
fn a_result_that_meets_the_capture_level_is_met_and_one_paced_below_it_is_not_measured() {
    let (dir, db) = history();
    // The capture's latency rows are counters (r_await, w_await: 1 s means), so they are
    // required of the run's 1 s mean latencies; generous bounds here, since a null engine's
    // latency from its intended issue times is the machine's scheduling.
    let p50 = check(
        dir,
        &db,
        &[
            "last",
            "--capture",
            "last",
            "--level",
            "p50",
            "--require",
            "read-await-p50=200,write-await-p50=200",
        ],
    );
    assert_eq!(p50.code, Some(0), "{}{}", p50.stdout, p50.stderr);
    assert!(p50.stdout.contains("Checking run 2"), "{}", p50.stdout);
    assert!(
        p50.stdout
            .contains("MET iops >= 1,500 IOPS (capture 1 p50 IOPS total): measured "),
        "{}",
        p50.stdout
    );
    assert!(
        p50.stdout
            .contains("MET read-await-p50 <= 200.0 ms (--require)")
            && p50.stdout.contains("from the intended issue time"),
        "{}",
        p50.stdout
    );
    assert!(
        p50.stdout
            .contains("6 requirements: 6 met, 0 within noise, 0 missed"),
        "{}",
        p50.stdout
    );
    // p90 needs 4,000 IOPS of a run paced at 3,000: it cannot show them.
    let p90 = check(dir, &db, &["2", "--capture", "1", "--level", "p90"]);
    assert_eq!(p90.code, Some(1), "{}{}", p90.stdout, p90.stderr);
    let line = p90
        .stdout
        .lines()
        .find(|l| l.contains(" iops >= "))
        .unwrap();
    assert!(
        line.starts_with("NOT MEASURED iops >= 4,000 IOPS")
            && line.contains("the run was paced at 3,000 IOPS, below the requirement"),
        "{line}"
    );
    // The counters' latency is required of the same statistic, never a per-IO percentile.
    assert!(
        p90.stdout
            .contains("read-await-p90 <= 500.0 us (capture 1 p90"),
        "{}",
        p90.stdout
    );
    // JSON: the same judgements with their evidence.
    let json = check(
        dir,
        &db,
        &["2", "--capture", "1", "--level", "p90", "--format", "json"],
    );
    assert_eq!(json.code, Some(1), "{}", json.stderr);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(doc["exit_code"], 1);
    let total = doc["judgements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["key"] == "iops")
        .unwrap();
    assert_eq!(total["verdict"], "not_measured");
    assert_eq!(total["requirement"]["bound"], "at_least");
    assert!(total["measured"]["low"].as_f64().is_some(), "{total}");
}

#[test]
fn require_keys_are_met_missed_or_not_measured_with_their_intervals() {
    let (dir, db) = history();
    let met = check(
        dir,
        &db,
        &[
            "last",
            "--require",
            "iops=2k,read-lat-p99=1s,lat-max=10s,write-mibps=50",
        ],
    );
    assert_eq!(met.code, Some(0), "{}{}", met.stdout, met.stderr);
    assert_eq!(
        met.stdout.lines().filter(|l| l.starts_with("MET")).count(),
        4,
        "{}",
        met.stdout
    );
    assert!(
        met.stdout.contains("95 % interval") && met.stdout.contains("order statistics of 13,"),
        "{}",
        met.stdout
    );
    let missed = check(
        dir,
        &db,
        &["last", "--require", "read-iops=3000,mibps=100,lat-max=1us"],
    );
    assert_eq!(missed.code, Some(1), "{}", missed.stdout);
    assert!(
        missed
            .stdout
            .contains("NOT MEASURED read-iops >= 3,000 IOPS (--require): measured "),
        "{}",
        missed.stdout
    );
    assert!(
        missed.stdout.contains("MET mibps >= 100.0 MiB/s"),
        "{}",
        missed.stdout
    );
    assert!(
        missed.stdout.contains("MISSED lat-max <= 1.00 us"),
        "{}",
        missed.stdout
    );
}

#[test]
fn a_one_step_run_is_checked_as_a_one_step_profile() {
    let (dir, db) = history();
    let out = check(dir, &db, &["last", "--expect", "ds14-max-read-iops"]);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("step 'app' checked as 'max read IOPS'"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "NOT MEASURED read-iops >= 64,000 IOPS (ds14-max-read-iops max read IOPS: 64,000+ \
             IOPS): measured "
        ),
        "{}",
        out.stdout
    );
    // A profile of several steps needs the run to have them.
    let bad = check(dir, &db, &["last", "--expect", "ds14-matrix"]);
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
        let out = check(dir, &db, &args);
        assert_eq!(out.code, Some(2), "{args:?}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
}
