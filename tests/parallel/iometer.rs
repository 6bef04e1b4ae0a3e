//! `diskmeter iometer` through the real binary (issue 3, Iometer part): the guides' access
//! specifications and a scenario table, at test scale.

use crate::common;

use assert_cmd::Command;
use common::TestDir;
use predicates::prelude::*;

fn iometer(dir: &TestDir) -> Command {
    let mut cmd = common::command();
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

#[test]
fn rows_together_run_at_the_same_time_and_are_summed() {
    let _turn = common::real_io();
    let dir = TestDir::new();
    for folder in ["cached", "nocache"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
    }
    // The guide's CacheReads and NoCacheWrites volumes measured together.
    std::fs::write(
        dir.path().join("together.toml"),
        r#"
[[scenario]]
target = "cached"
spec = "RandomReads_8K"
duration = "1s"
workers = 1
qd = 4
size = "16m"
together = "guide"

[[scenario]]
target = "nocache"
spec = "RandomWrites_8K"
duration = "1s"
workers = 1
qd = 4
size = "16m"
together = "guide"
"#,
    )
    .unwrap();
    let json = iometer(&dir)
        .args(["--table", "together.toml", "--output-format=json"])
        .output()
        .unwrap();
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let runs: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 1, "one step for both rows");
    let jobs = runs[0]["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "each row reported on its own");
    assert!(jobs[0]["read"]["ios"].as_u64().unwrap() > 0);
    assert!(jobs[1]["write"]["ios"].as_u64().unwrap() > 0);
    let out = iometer(&dir)
        .args(["--table", "together.toml"])
        .assert()
        .success()
        .stdout(predicate::str::contains("together"))
        .stdout(predicate::str::contains("write IOPS"));
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let summary = &text[text.find("Iometer summary").expect("a summary")..];
    let numbers = |prefix: &str| -> Vec<f64> {
        let line = summary
            .lines()
            .find(|l| l.contains(prefix))
            .unwrap_or_else(|| panic!("no {prefix} line:\n{text}"));
        line.split_whitespace()
            .filter_map(|w| w.parse::<f64>().ok())
            .collect()
    };
    // Rows: #, read IOPS, write IOPS, IOPS, read MiB/s, write MiB/s, MiB/s, mean lat, p99;
    // the together line has no # and no p99.
    let reads = numbers("RandomReads_8K");
    let writes = numbers("RandomWrites_8K");
    let together = numbers("together ");
    assert!(
        (reads[3] + writes[3] - together[2]).abs() <= 2.0,
        "{reads:?} + {writes:?} = {together:?}"
    );
    assert!((reads[6] + writes[6] - together[5]).abs() <= 0.02, "{text}");
    std::fs::write(
        dir.path().join("bad.toml"),
        "[[scenario]]\ntarget = \".\"\nspec = \"RandomReads_8K\"\nduration = \"1s\"\ntogether = \"g\"\n\
         [[scenario]]\ntarget = \".\"\nspec = \"RandomReads_8K\"\nduration = \"2s\"\ntogether = \"g\"\n",
    )
    .unwrap();
    iometer(&dir)
        .args(["--table", "bad.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.toml: scenario 2"));
}
