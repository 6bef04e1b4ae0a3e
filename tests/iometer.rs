//! `diskmeter iometer` through the real binary (issue 3, Iometer part): the guides' access
//! specifications and a scenario table, at test scale.

mod common;

use assert_cmd::Command;
use common::TestDir;
use predicates::prelude::*;

fn iometer(dir: &TestDir) -> Command {
    let mut cmd = Command::cargo_bin("diskmeter").expect("binary");
    cmd.current_dir(dir.path()).arg("iometer").arg("--quiet");
    cmd
}

#[test]
fn the_guides_specifications_run_in_order_with_a_summary() {
    let dir = TestDir::new();
    let out = iometer(&dir)
        .args([
            "--spec",
            "RandomWrites_8K",
            "--spec",
            "RandomReads_64K",
            "--spec",
            "OLTP:8k,60,70",
        ])
        .args([
            "--workers",
            "3",
            "--qd",
            "8",
            "--time",
            "1",
            "--size",
            "32m",
            "--output-format=json",
            ".",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 3);
    let job = |i: usize| &runs[i]["jobs"][0];
    assert_eq!(job(0)["workers"], 3, "group_reporting over the 3 workers");
    assert_eq!(job(0)["read"]["ios"], 0);
    assert!(job(0)["write"]["ios"].as_u64().unwrap() > 0);
    assert_eq!(job(0)["workload"]["bs_write_bytes"], 8192);
    assert_eq!(job(1)["write"]["ios"], 0);
    assert_eq!(job(1)["workload"]["bs_read_bytes"], 65536);
    let (r, w) = (
        job(2)["read"]["ios"].as_f64().unwrap(),
        job(2)["write"]["ios"].as_f64().unwrap(),
    );
    assert!(
        (r / (r + w) * 100.0 - 70.0).abs() <= 1.0,
        "{r} reads, {w} writes"
    );
    let option = |name: &str| {
        job(2)["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .map(|o| o["value"].clone())
    };
    assert_eq!(option("percentage_random"), Some("60".into()));
    assert!(
        dir.files().is_empty(),
        "iobw.tst is removed: {:?}",
        dir.files()
    );
}

#[test]
fn a_scenario_table_runs_each_row() {
    let dir = TestDir::new();
    std::fs::write(
        dir.path().join("scenarios.toml"),
        r#"
[[spec]]
name = "Mixed_16K"
size = "16k"
random = 100
read = 50

[[scenario]]
target = "."
spec = "RandomReads_8K"
duration = "1s"
workers = 3
qd = 4
size = "16m"

[[scenario]]
target = "."
spec = "Mixed_16K"
duration = "1s"
workers = 2
qd = 4
size = "16m"
"#,
    )
    .unwrap();
    iometer(&dir)
        .args(["--table", "scenarios.toml"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Iometer summary"))
        .stdout(predicate::str::contains("RandomReads_8K"))
        .stdout(predicate::str::contains("Mixed_16K"));
}

#[test]
fn bad_specifications_are_usage_errors() {
    let dir = TestDir::new();
    iometer(&dir)
        .args(["--spec", "Nope", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown access specification"))
        .stderr(predicate::str::contains("RandomWrites_8K"));
    iometer(&dir)
        .args(["--spec", "X:8k,100", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("NAME:SIZE,RANDOM%,READ%"));
    iometer(&dir)
        .args(["--spec", "RandomReads_8K"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give a TARGET"));
}
