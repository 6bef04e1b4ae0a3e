//! fio job files through the real binary (issue 3, first part): the guides' files run
//! unchanged at test scale and hold their caps, later globals and command-line defaults mean
//! what they mean to fio, and errors name file, line and option. How every file in tests/jobs
//! reads, against fio's own reading, is in `tests/parallel/jobfile_reading.rs`; fio's value syntax,
//! against fio (issue 28), in `tests/parallel/jobfile/values.rs`.

use crate::common;
#[path = "jobfile/support.rs"]
pub(crate) mod support;
#[path = "jobfile/values.rs"]
mod values;

use assert_cmd::Command;
use common::{real_io, require_tool, TestDir};
use predicates::prelude::*;
use std::path::Path;
use support::{diskmeter, dry_run, jobs_dir, with_env};

#[test]
fn later_globals_match_fios_run() {
    if !require_tool("later_globals_match_fios_run", "fio") {
        return;
    }
    let dir = TestDir::new();
    let file = jobs_dir().join("semantics-globals.fio");
    let out = with_env(Command::new("fio"), dir.path())
        .arg("--output-format=json")
        .arg(&file)
        .output()
        .expect("fio");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let fio: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let fio_jobs: Vec<(String, u64)> = fio["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let r = &j["read"];
            let bs = r["io_bytes"].as_u64().unwrap() / r["total_ios"].as_u64().unwrap().max(1);
            (j["jobname"].as_str().unwrap().to_string(), bs)
        })
        .collect();
    let out = diskmeter(dir.path())
        .args(["run", "--quiet", "--output-format=json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dm: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dm_jobs: Vec<(String, u64)> = dm["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let r = &j["read"];
            let bs = r["bytes"].as_u64().unwrap() / r["ios"].as_u64().unwrap().max(1);
            (j["name"].as_str().unwrap().to_string(), bs)
        })
        .collect();
    assert_eq!(dm_jobs, fio_jobs);
    assert_eq!(
        fio_jobs.len(),
        4,
        "a, b, and b with numjobs=2: {fio_jobs:?}"
    );
}

#[test]
fn the_guides_files_run_unchanged_at_test_scale() {
    let _turn = real_io();
    let dir = TestDir::new();
    for (name, readers, writers) in [
        ("azure-ds14-max-write-iops.fio", 0, 4),
        ("azure-d8ds-v4-max-read-iops.fio", 4, 0),
        ("do-bandwidth.fio", 0, 1),
        ("do-read-latency.fio", 1, 0),
    ] {
        let out = diskmeter(dir.path())
            .args(["run", "--quiet", "--output-format=json"])
            .arg(jobs_dir().join(name))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let count = |dir: &str| {
            v["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| {
                    j["workers"].as_u64().unwrap_or(1)
                        * u64::from(j[dir]["ios"].as_u64().unwrap_or(0) > 0)
                })
                .sum::<u64>()
        };
        assert_eq!(
            (count("read"), count("write")),
            (readers, writers),
            "{name}"
        );
        // fio's unlink defaults to 0 in job files: the files stay, as after fio.
        let workers = (readers + writers) as usize;
        assert_eq!(dir.files().len(), workers, "{name}: {:?}", dir.files());
        for file in dir.files() {
            std::fs::remove_file(dir.path().join(file)).unwrap();
        }
    }
}

#[test]
fn job_file_errors_name_file_line_and_option() {
    let dir = TestDir::new();
    let bad = dir.path().join("bad.fio");
    std::fs::write(
        &bad,
        "[a]\nioengine=null\nsize=1m\niodpeth=4\ncgroup_weight=100\nbs=-4k\n",
    )
    .unwrap();
    diskmeter(dir.path())
        .args(["run", "bad.fio"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bad.fio:4: iodpeth: unknown option 'iodpeth' (did you mean 'iodepth'?)",
        ))
        .stderr(predicate::str::contains(
            "bad.fio:5: cgroup_weight: fio option 'cgroup_weight' cannot apply in diskmeter: fio \
             moves each job into its own blkio cgroup",
        ))
        .stderr(predicate::str::contains("bad.fio:6: bs: bs=-4k:"))
        .stderr(predicate::str::contains("panicked").not());
    diskmeter(dir.path())
        .args(["run", "missing.fio"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read job file missing.fio"));
    diskmeter(dir.path())
        .args(["run", "--name=x", "bad.fio"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not both"));
    std::fs::write(&bad, "[a]\nioengine=null\nsize=1m\ncgroup_weight=100\n").unwrap();
    diskmeter(dir.path())
        .args(["run", "--quiet", "--ignore-unsupported", "bad.fio"])
        .assert()
        .success();
}

#[test]
fn command_line_options_are_defaults_the_files_global_overrides() {
    let dir = TestDir::new();
    std::fs::write(
        dir.path().join("j.fio"),
        "[global]\nbs=4k\n[a]\nioengine=null\nsize=1m\n",
    )
    .unwrap();
    let plan = dry_run(
        dir.path(),
        &["--bs=8k".into(), "--iodepth=2".into(), "j.fio".into()],
    );
    assert!(plan.contains("bs=4k"), "{plan}");
    assert!(plan.contains("iodepth=2"), "{plan}");
}

fn run_json(dir: &Path, file: &str) -> serde_json::Value {
    let out = diskmeter(dir)
        .args(["run", "--quiet", "--output-format=json"])
        .arg(jobs_dir().join(file))
        .env("DM_SIZE", "16m")
        .env("DM_RUNTIME", "2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// D8ds_v4 mixed: 4 readers flat out and 4 writers at 3,200 IOPS each (12,800 together).
/// On the test disk the readers can starve the writers (the device, not the limiter, then
/// sets the write rate), so the real run checks the structure and that the cap is never
/// exceeded, and the same file on the null engine checks that the cap is held within 2 %.
#[test]
fn the_d8ds_mixed_file_holds_its_write_cap_within_2_percent() {
    let _turn = real_io();
    let dir = TestDir::new();
    let v = run_json(dir.path(), "azure-d8ds-v4-max-mixed-iops.fio");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "group_reporting: one report for the group");
    assert_eq!(jobs[0]["workers"], 8);
    assert!(jobs[0]["read"]["ios"].as_u64().unwrap() > 0);
    let writes = jobs[0]["write"]["iops"].as_f64().unwrap();
    assert!(
        writes <= 12_800.0 * 1.02,
        "{writes} write IOPS over the cap"
    );

    let text = std::fs::read_to_string(jobs_dir().join("azure-d8ds-v4-max-mixed-iops.fio"))
        .unwrap()
        .replace("ioengine=libaio", "ioengine=null");
    std::fs::write(dir.path().join("null.fio"), text).unwrap();
    let out = diskmeter(dir.path())
        .args(["run", "--quiet", "--output-format=json", "null.fio"])
        .env("DM_SIZE", "16m")
        .env("DM_RUNTIME", "2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let writes = v["jobs"][0]["write"]["iops"].as_f64().unwrap();
    assert!(
        (writes - 12_800.0).abs() <= 0.02 * 12_800.0,
        "{writes} write IOPS"
    );
}

/// DS14 mixed: 4 readers and 4 writers, each writer capped at 12,500 IOPS (a cap the test
/// disk may not reach, so only the cap is checked).
#[test]
fn the_ds14_mixed_file_has_four_readers_and_four_capped_writers() {
    let _turn = real_io();
    let dir = TestDir::new();
    let v = run_json(dir.path(), "azure-ds14-max-mixed-iops.fio");
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["reader1", "reader2", "reader3", "reader4", "writer1", "writer2", "writer3", "writer4"]
    );
    for j in &jobs[4..] {
        assert_eq!(j["read"]["ios"], 0);
        assert!(j["write"]["iops"].as_f64().unwrap() <= 12_500.0 * 1.02);
    }
}

/// DigitalOcean's five command lines, as the guide types them (runtime and size scaled down).
#[test]
fn the_digitalocean_command_lines_run() {
    let _turn = real_io();
    let dir = TestDir::new();
    for (name, rw, bs, qd) in [
        ("bandwidth", "randwrite", "1m", "32"),
        ("randread", "randread", "4k", "128"),
        ("randwrite", "randwrite", "4k", "128"),
        ("read-latency", "randread", "4k", "1"),
        ("write-latency", "randwrite", "4k", "1"),
    ] {
        let out = diskmeter(dir.path())
            .args(["run", "--quiet", "--output-format=json"])
            .arg(format!("--name={name}"))
            .args([
                "--ioengine=libaio",
                "--direct=1",
                "--time_based",
                "--group_reporting",
            ])
            .arg(format!("--rw={rw}"))
            .arg(format!("--bs={bs}"))
            .arg(format!("--iodepth={qd}"))
            .args(["--runtime=1", "--size=16m", "--numjobs=1"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let job = &v["jobs"][0];
        let dir_key = if rw.ends_with("read") {
            "read"
        } else {
            "write"
        };
        assert!(job[dir_key]["ios"].as_u64().unwrap() > 0, "{name}");
        assert_eq!(
            job["workload"]["iodepth"].as_u64().unwrap().to_string(),
            qd,
            "{name}"
        );
    }
    assert!(dir.files().is_empty());
}

/// Issue 15: a job file means what it means to fio. With no `ioengine` it runs on psync, so
/// `iodepth=32` is one IO at a time (the plan says so in one line), and its files stay
/// (unlink=0); the same options on the command line keep diskmeter's defaults.
#[test]
fn a_job_file_without_an_engine_runs_as_fio_runs_it() {
    let dir = TestDir::new();
    let plan = dry_run(
        dir.path(),
        &[jobs_dir()
            .join("semantics-fio-defaults.fio")
            .display()
            .to_string()],
    );
    assert!(plan.contains("ioengine=psync"), "{plan}");
    assert!(plan.contains("unlink=0"), "{plan}");
    assert!(
        plan.contains("# note: job psync-by-default: the psync engine keeps 1 IO in flight per worker; iodepth=32 has no effect"),
        "{plan}"
    );
    let command_line = dry_run(
        dir.path(),
        &[
            "--name=cli".into(),
            "--size=8m".into(),
            "--iodepth=32".into(),
        ],
    );
    assert!(command_line.contains("ioengine=io_uring"), "{command_line}");
    assert!(!command_line.contains("unlink=0"), "{command_line}");

    let v = run_json(dir.path(), "semantics-fio-defaults.fio");
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2);
    let notes = v["meta"]["notes"].to_string();
    assert!(notes.contains("iodepth=32 has no effect"), "{notes}");
    assert_eq!(
        dir.files(),
        ["named-engine.0.0", "psync-by-default.0.0"],
        "fio's unlink=0 keeps the files"
    );
}

/// `description` is kept in the results as fio keeps it: fio's JSON has it as "desc" and in
/// "job options"; diskmeter's own JSON has it in the job's options (which the history keeps).
#[test]
fn description_is_kept_in_the_results_as_fio_keeps_it() {
    let dir = TestDir::new();
    let file = jobs_dir().join("options-jobfile-description.fio");
    let fio_json = |out: std::process::Output| -> serde_json::Value {
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        serde_json::from_str(&text[text.find('{').expect("JSON")..]).unwrap()
    };
    let dm = fio_json(
        diskmeter(dir.path())
            .args(["run", "--quiet", "--no-save", "--output-format=fio-json"])
            .arg(&file)
            .output()
            .unwrap(),
    );
    let descriptions = |v: &serde_json::Value| -> Vec<String> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["desc"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let expected = ["shared_by_every_job", "the_second_job's_own"];
    assert_eq!(descriptions(&dm), expected);
    // "job options" holds the job's own options and "global options" the [global] ones, as
    // fio lists them (issue 28).
    assert_eq!(dm["global options"]["description"], "shared_by_every_job");
    assert_eq!(dm["jobs"][0]["job options"].get("description"), None);
    assert_eq!(
        dm["jobs"][1]["job options"]["description"],
        "the_second_job's_own"
    );
    if require_tool("description_is_kept_in_the_results_as_fio_keeps_it", "fio") {
        let fio = fio_json(
            with_env(Command::new("fio"), dir.path())
                .arg("--output-format=json")
                .arg(&file)
                .output()
                .unwrap(),
        );
        assert_eq!(descriptions(&fio), expected);
        assert_eq!(fio["global options"], dm["global options"]);
    }
    let own = run_json(dir.path(), "options-jobfile-description.fio");
    let options = own["jobs"][1]["options"].to_string();
    assert!(options.contains("the_second_job's_own"), "{options}");
}
