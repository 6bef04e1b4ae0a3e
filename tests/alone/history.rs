//! The results history through the real binary: runs, suites and sweeps are saved in the
//! user's data folder (or --db), listed, shown, exported and compared; a deliberate slowdown
//! (the same suite on a throttled device) is called slower with exit code 1, and two runs of
//! the same thing within noise.

use crate::common;

use common::{real_io, require_root, sh, BlkioThrottle, LoopDevice, TestDir};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `diskmeter ARGS` in `dir` with the history in `data` (XDG_DATA_HOME).
fn diskmeter(dir: &TestDir, data: &Path, args: &[&str]) -> std::process::Output {
    let data = data.to_str().expect("a UTF-8 path");
    common::diskmeter_with_env(dir.path(), &[("XDG_DATA_HOME", data)], args)
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn ok(output: std::process::Output) -> String {
    assert!(
        output.status.success(),
        "failed ({:?}): {}\n{}",
        output.status.code(),
        stderr(&output),
        stdout(&output)
    );
    stdout(&output)
}

fn history_json(dir: &TestDir, data: &Path) -> Vec<Value> {
    let text = ok(diskmeter(dir, data, &["history", "--format=json"]));
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_run_is_saved_in_the_data_folder_listed_shown_and_exported() {
    let _turn = real_io();
    let dir = TestDir::new();
    let data = dir.path().join("data");
    let out = diskmeter(
        &dir,
        &data,
        &[
            "run",
            "--name=hist",
            "--rw=randrw",
            "--bs=4k",
            "--size=8m",
            "--runtime=1",
            "--time_based",
        ],
    );
    ok(out.clone());
    assert!(stderr(&out).contains("saved as run 1"), "{}", stderr(&out));
    assert!(data.join("diskmeter/history.db").is_file());

    let runs = history_json(&dir, &data);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["kind"], "run");
    assert_eq!(runs[0]["name"], "hist");
    assert_eq!(runs[0]["steps"], 1);
    let target = runs[0]["target"].as_str().unwrap();
    assert!(Path::new(target).is_absolute(), "{target}");

    let table = ok(diskmeter(&dir, &data, &["history"]));
    assert!(table.contains("| 1 ") && table.contains("hist"), "{table}");

    let shown = ok(diskmeter(&dir, &data, &["show", "1"]));
    assert!(shown.starts_with("run 1: run hist on "), "{shown}");
    assert!(shown.contains("host: kernel "), "{shown}");
    assert!(shown.contains("| hist "), "{shown}");
    let full = ok(diskmeter(&dir, &data, &["show", "last", "--full"]));
    assert!(full.contains("## hist"), "{full}");

    // The stored run has the host facts, the full result and its per-second series.
    let stored: Value = serde_json::from_str(&ok(diskmeter(
        &dir,
        &data,
        &["export", "1", "--format=json"],
    )))
    .unwrap();
    assert!(stored["host"]["cpu_count"].as_u64().unwrap() >= 1);
    assert!(stored["host"]["filesystem"]["fs_type"].is_string());
    let job = &stored["steps"][0]["result"]["jobs"][0];
    assert!(job["read"]["ios"].as_u64().unwrap() > 0);
    assert!(job["write"]["ios"].as_u64().unwrap() > 0);
    assert!(!job["series"].as_array().unwrap().is_empty());

    let fio: Value = serde_json::from_str(&ok(diskmeter(
        &dir,
        &data,
        &["export", "1", "--format=fio-json"],
    )))
    .unwrap();
    assert_eq!(fio["jobs"][0]["jobname"], "hist");
    assert!(fio["jobs"][0]["read"]["iops"].as_f64().unwrap() > 0.0);

    let csv = ok(diskmeter(&dir, &data, &["export", "1", "--format=csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("run_id,step,job,direction,ios"),
        "{csv}"
    );
    assert_eq!(lines.len(), 3, "a read and a write row: {csv}");
    assert!(lines[1].starts_with("1,hist,hist,read,"), "{csv}");

    // --no-save leaves the history as it was; --db saves elsewhere.
    ok(diskmeter(
        &dir,
        &data,
        &["run", "--quiet", "--size=4m", "--no-save"],
    ));
    assert_eq!(history_json(&dir, &data).len(), 1);
    let other = dir.path().join("other.db");
    ok(diskmeter(
        &dir,
        &data,
        &[
            "run",
            "--quiet",
            "--size=4m",
            "--db",
            other.to_str().unwrap(),
        ],
    ));
    assert!(other.is_file());
    assert_eq!(history_json(&dir, &data).len(), 1);
}

#[test]
fn a_suite_is_saved_with_its_steps_and_filters_find_it() {
    let dir = TestDir::new();
    let data = dir.path().join("data");
    ok(diskmeter(
        &dir,
        &data,
        &[
            "suite",
            "quick",
            "--quiet",
            "--ioengine=null",
            "--runtime=1",
            "--size=16m",
        ],
    ));
    ok(diskmeter(
        &dir,
        &data,
        &["run", "--quiet", "--ioengine=null", "--size=1m"],
    ));
    let suites = ok(diskmeter(
        &dir,
        &data,
        &["history", "--suite=quick", "--format=json"],
    ));
    let suites: Value = serde_json::from_str(&suites).unwrap();
    assert_eq!(suites.as_array().unwrap().len(), 1);
    assert_eq!(suites[0]["kind"], "suite");
    assert_eq!(suites[0]["steps"], 8);
    let today = ok(diskmeter(
        &dir,
        &data,
        &[
            "history",
            "--kind=run",
            "--since=2000-01-01",
            "--format=json",
        ],
    ));
    assert_eq!(
        serde_json::from_str::<Value>(&today)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let none = ok(diskmeter(&dir, &data, &["history", "--until=2000-01-01"]));
    assert_eq!(none, "no runs match\n");
    let shown = ok(diskmeter(&dir, &data, &["show", "1"]));
    for step in ["SEQ1M Q8T1 read", "RND4K Q1T1 write"] {
        assert!(shown.contains(step), "{shown}");
    }
}

#[test]
fn reading_commands_fail_clearly() {
    let dir = TestDir::new();
    let data = dir.path().join("data");
    let out = diskmeter(&dir, &data, &["history"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no history at"), "{}", stderr(&out));
    ok(diskmeter(
        &dir,
        &data,
        &["run", "--quiet", "--ioengine=null", "--size=1m"],
    ));
    let out = diskmeter(&dir, &data, &["show", "7"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no run 7"), "{}", stderr(&out));
    let out = diskmeter(&dir, &data, &["compare", "1", "seven"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("'seven' is not a run id"),
        "{}",
        stderr(&out)
    );
    // A run that is not a sweep is read for a burst bucket: 1 s of null IO is too short.
    let out = ok(diskmeter(&dir, &data, &["analyze", "1"]));
    assert!(out.starts_with("run 1: burst buckets"), "{out}");
    assert!(out.contains("not read: "), "{out}");
    let out = diskmeter(&dir, &data, &["history", "--since=last-week"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_saved_sweep_is_analysed_again_with_charts() {
    let dir = TestDir::new();
    let data = dir.path().join("data");
    ok(diskmeter(
        &dir,
        &data,
        &[
            "sweep",
            "--quiet",
            "--ioengine=null",
            "--qd=1,4",
            "--bs=4k,64k",
            "--point-time=1s",
            "--ramp=0",
            "--size=16m",
            "--charts=none",
        ],
    ));
    let runs = history_json(&dir, &data);
    assert_eq!(runs[0]["kind"], "sweep");
    assert_eq!(runs[0]["steps"], 4);
    let charts = dir.path().join("charts");
    let text = ok(diskmeter(
        &dir,
        &data,
        &["analyze", "last", "--charts", charts.to_str().unwrap()],
    ));
    assert!(text.starts_with("sweep randread on "), "{text}");
    assert!(text.contains("| 64K ") || text.contains("| 64k "), "{text}");
    let files: Vec<PathBuf> = std::fs::read_dir(&charts)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        files
            .iter()
            .any(|f| f.extension().is_some_and(|e| e == "png")),
        "{files:?}"
    );
    let json: Value = serde_json::from_str(&ok(diskmeter(
        &dir,
        &data,
        &["analyze", "1", "--charts=none", "--output-format=json"],
    )))
    .unwrap();
    assert_eq!(json["sweeps"][0]["points"].as_array().unwrap().len(), 4);
}

/// Runs `suite realworld` (4 steps of 4 s, so each has 4 per-second samples: half of
/// `quick`'s steps, the same comparison) on `device`, inside `throttle`, saving into `data`.
fn realworld_on(device: &str, data: &Path, throttle: &BlkioThrottle) {
    let binary = common::binary();
    let command = format!(
        "XDG_DATA_HOME={} {} suite realworld {device} --runtime=4 --size=128m --quiet",
        data.display(),
        binary.display()
    );
    println!("{}", sh(&throttle.wrap(&format!("env {command}"))));
}

#[test]
fn compare_calls_a_throttled_device_slower_and_a_rerun_within_noise() {
    // Every run is throttled far below what a loop device in memory does (no neighbour's
    // disk IO reaches it), at caps a busy host's hiccups do not show through, so the test
    // takes no turn: it runs beside anything of this binary.
    if !require_root("compare on a throttled loop device") {
        return;
    }
    let dir = TestDir::in_memory();
    let data = dir.path().join("data");
    let device = LoopDevice::new_direct(dir.path(), "volume", 128);
    // The faster volume: 2,500 IOPS and 250 MiB/s.
    let Some(fast) = BlkioThrottle::new("dm-compare-fast", &device.dev, 2500, 250 << 20) else {
        return;
    };
    // The slower: 250 IOPS and 50 MiB/s, low enough that a busy host's hiccups (4 ms per IO
    // at QD1) do not show through the cap.
    let Some(throttle) = BlkioThrottle::new("dm-compare", &device.dev, 250, 50 << 20) else {
        return;
    };
    realworld_on(&device.dev, &data, &fast);
    realworld_on(&device.dev, &data, &throttle);
    realworld_on(&device.dev, &data, &throttle);

    // The faster volume (1) against the slower (2): slower, regressions, exit code 1.
    let out = diskmeter(&dir, &data, &["compare", "1", "2"]);
    let text = stdout(&out);
    println!("{text}");
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    for step in ["RND4K Q1T1 read", "RND4K Q1T1 write", "SEQ1M Q1T1 read"] {
        let iops_row = text
            .lines()
            .find(|l| l.contains(step) && l.contains("IOPS") && !l.contains("latency"))
            .unwrap_or_else(|| panic!("no {step} IOPS row:\n{text}"));
        assert!(iops_row.contains("slower (regression)"), "{iops_row}");
    }
    // The same thing twice (the throttled device, 2 and 3): within noise, exit code 0.
    let out = diskmeter(&dir, &data, &["compare", "2", "3", "--format=json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let metrics = json["comparison"]["metrics"].as_array().unwrap();
    assert_eq!(metrics.len(), 4 * 4, "{json:#}");
    for m in metrics.iter().filter(|m| m["unit"] != "us") {
        assert_eq!(m["outcome"], "within_noise", "{m}");
    }
    assert_eq!(json["regressions"], 0, "{json:#}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn the_readme_main_command_saves_into_the_home_data_folder() {
    let _turn = real_io();
    let dir = TestDir::new();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // `suite quick` as the README runs it, with short steps (500 ms: the test reads the
    // table's rows, the history's place and the file's removal, no figure; 4 s less of a
    // binary whose real-IO tests take turns); no XDG_DATA_HOME, so the history goes to
    // ~/.local/share/diskmeter.
    let run = |args: &[&str]| {
        common::command()
            .current_dir(dir.path())
            .env_remove("XDG_DATA_HOME")
            .env("HOME", &home)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["suite", "quick", "--runtime=500ms", "--size=32m"]);
    let table = ok(out.clone());
    assert!(table.contains("| SEQ1M Q8T1 "), "{table}");
    assert!(stderr(&out).contains("saved as run 1"), "{}", stderr(&out));
    assert!(home.join(".local/share/diskmeter/history.db").is_file());
    assert!(!dir.path().join("diskmeter-suite.dat").exists());
    let listed = ok(run(&["history"]));
    assert!(listed.contains("| suite | quick "), "{listed}");
}

/// A history database written by diskmeter at f43a725 (history schema 2, the internal job
/// specification in every stored result; crates/history/tests/fixtures/README.md says how it
/// was made) opens with this diskmeter: every reading command works on every run in it.
#[test]
fn a_history_written_by_main_at_f43a725_lists_shows_exports_compares_and_analyses() {
    let dir = TestDir::new();
    let db = dir.path().join("old.db");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates/history/tests/fixtures/history-v2-f43a725.db"),
        &db,
    )
    .unwrap();
    let db = db.to_str().unwrap();
    let data = dir.path().join("data");
    let run = |args: &[&str]| ok(diskmeter(&dir, &data, &[args, &["--db", db]].concat()));

    let listed: Value = serde_json::from_str(&run(&["history", "--format=json"])).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 8);
    let table = run(&["history", "--kind", "suite"]);
    assert!(
        table.contains("(interrupted)"),
        "run 8 was interrupted: {table}"
    );
    for id in 1..=8 {
        let id = id.to_string();
        let shown = run(&["show", &id, "--full"]);
        assert!(shown.starts_with(&format!("run {id}: ")), "{shown}");
        assert!(
            shown.contains("ioengine="),
            "the full report renders: {shown}"
        );
        let stored: Value = serde_json::from_str(&run(&["export", &id, "--format=json"])).unwrap();
        for step in stored["steps"].as_array().unwrap() {
            let job = &step["result"]["jobs"][0];
            // The current result schema (diskmeter_report::SCHEMA_VERSION): stored results are
            // upgraded when read.
            assert_eq!(
                step["result"]["schema_version"],
                diskmeter_report::SCHEMA_VERSION
            );
            assert!(job.get("spec").is_none(), "no job specification is stored");
            assert!(job["options"].as_array().unwrap().len() >= 5, "{job}");
        }
        let fio: Value = serde_json::from_str(&run(&["export", &id, "--format=fio-json"])).unwrap();
        let first = if fio.is_array() { &fio[0] } else { &fio };
        assert!(first["jobs"][0]["job options"]["rw"].is_string(), "{first}");
        let csv = run(&["export", &id, "--format=csv"]);
        assert!(csv.lines().count() >= 2, "{csv}");
    }
    // Run 1's reader was rate-limited: fio's JSON carries its intended-time latency.
    let fio: Value = serde_json::from_str(&run(&["export", "1", "--format=fio-json"])).unwrap();
    assert!(fio["jobs"][0]["read"]["diskmeter_lat_intended_ns"]["N"].as_u64() > Some(0));
    // The whole quick suite against the interrupted one: the two steps both have, less the
    // one the interrupt cut short (issue 27: partial data is not compared as whole).
    let compared: Value =
        serde_json::from_str(&run(&["compare", "3", "8", "--format=json"])).unwrap();
    let notes = compared["comparison"]["notes"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .starts_with("step SEQ1M Q8T1 write not compared: partial in B interrupted"),
        "{notes:?}"
    );
    let steps: std::collections::BTreeSet<&str> = compared["comparison"]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["step"].as_str().unwrap())
        .collect();
    assert_eq!(steps.into_iter().collect::<Vec<_>>(), ["SEQ1M Q8T1 read"]);
    let analysed = run(&["analyze", "4", "--charts", "none"]);
    assert!(analysed.contains("| 64k | 4 "), "{analysed}");
}
