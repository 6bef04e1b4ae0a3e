//! What a user sees: the human summary, diskmeter's JSON, fio-compatible JSON (same key tree
//! as real fio's), `--output`, `--dry-run`, `--help`, and clear usage errors with exit code 2.

use crate::common;
#[path = "output/choices.rs"]
mod choices;
#[path = "output/fio_contracts.rs"]
mod fio_contracts;

use common::{require_tool, TestDir};
use predicates::str::contains;
use serde_json::Value;
use std::collections::BTreeSet;

const ACCEPTANCE: &[&str] = &[
    "--name=t",
    "--rw=randread",
    "--bs=4k",
    "--iodepth=32",
    "--size=64m",
    "--runtime=1",
    "--time_based",
    "--direct=1",
];

#[test]
fn the_summary_shows_iops_bandwidth_and_the_percentile_table() {
    let t = TestDir::new();
    let out = t
        .run(ACCEPTANCE)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for needle in [
        "read: IOPS=",
        "MiB/s",
        "MB/s",
        "percentiles  : values within 0.1 % (HDR histogram, 3 significant digits)",
        "read clat ",
        " p1 ",
        " p50 ",
        " p99 ",
        " p99.9 ",
        " p99.95 ",
        " p99.99",
        "lat (",
        "cpu",
        "IO depths",
        "Run status group 0",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    assert!(t.files().is_empty(), "the test file is removed");
}

/// Issue 32: `run` opens with the headline cards, then fio's detail; it and `show` print
/// every latency in its scaled unit (at most 4 significant digits, 1-999 of the unit).
#[test]
fn issue32_run_and_show_open_with_the_headline_and_print_readable_latencies() {
    let t = TestDir::new();
    let mut args = ACCEPTANCE.to_vec();
    args.extend(["--rw=randrw", "--db=h.db"]);
    let out = t.run(&args).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let first = text.lines().next().unwrap_or_default();
    for card in [
        "IOPS",
        "bandwidth",
        "p50 latency",
        "p99 latency",
        "CPU per IO",
    ] {
        assert!(
            first.contains(card),
            "the first line has no {card:?}:\n{text}"
        );
    }
    assert!(
        text.find("p99 latency") < text.find("read: IOPS="),
        "the headline comes before the detail:\n{text}"
    );
    // Not vacuous: the summary's latencies are among what the check reads.
    let figures = common::readable::timed_numbers(&text);
    assert!(figures.len() > 20, "{figures:?}");
    common::readable::assert_latencies_readable("run's summary", &text);
    for show in [
        &["show", "1", "--db=h.db"][..],
        &["show", "1", "--full", "--db=h.db"],
    ] {
        let shown = common::ok(common::diskmeter(t.path(), show));
        assert!(shown.contains("p99 latency"), "{shown}");
        common::readable::assert_latencies_readable(&format!("{show:?}"), &shown);
    }
}

#[test]
fn fio_json_parses_and_has_fio_keys() {
    let t = TestDir::new();
    let out = t
        .run(ACCEPTANCE)
        .arg("--output-format=fio-json")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).expect("pure JSON on stdout");
    assert!(v["fio version"].as_str().unwrap().starts_with("diskmeter"));
    for key in ["timestamp", "time", "jobs"] {
        assert!(v.get(key).is_some(), "{key}");
    }
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], "t");
    assert_eq!(job["groupid"], 0);
    assert_eq!(job["error"], 0);
    let read = &job["read"];
    for key in [
        "io_bytes",
        "io_kbytes",
        "bw_bytes",
        "bw",
        "iops",
        "runtime",
        "total_ios",
        "short_ios",
        "drop_ios",
        "bw_min",
        "bw_max",
        "bw_mean",
        "bw_dev",
        "bw_samples",
        "iops_min",
        "iops_max",
        "iops_mean",
        "iops_stddev",
        "iops_samples",
    ] {
        assert!(read.get(key).is_some(), "read.{key}");
    }
    for lat in ["slat_ns", "clat_ns", "lat_ns"] {
        for key in ["min", "max", "mean", "stddev", "N"] {
            assert!(read[lat].get(key).is_some(), "read.{lat}.{key}");
        }
    }
    assert!(read["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap() > 0);
    let ios = read["total_ios"].as_u64().unwrap();
    assert!(ios > 0);
    assert_eq!(read["io_bytes"].as_u64().unwrap(), ios * 4096);
    assert_eq!(
        read["bw"].as_u64().unwrap(),
        read["bw_bytes"].as_u64().unwrap() / 1024
    );
    for key in [
        "usr_cpu",
        "sys_cpu",
        "ctx",
        "iodepth_level",
        "latency_us",
        "latency_ms",
        "job options",
    ] {
        assert!(job.get(key).is_some(), "{key}");
    }
    assert_eq!(job["job options"]["rw"], "randread");
}

/// Every key path of a JSON value, with array elements folded into `[]`.
fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let path = format!("{prefix}/{k}");
                out.insert(path.clone());
                // Option lists differ with the options given; their presence is enough.
                if k != "job options" && k != "global options" {
                    key_paths(child, &path, out);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn fio_json_has_the_key_tree_of_real_fio() {
    if !require_tool("fio_json_has_the_key_tree_of_real_fio", "fio") {
        return;
    }
    let t = TestDir::new();
    let job = [
        "--name=t",
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--size=64m",
    ];
    let fio = std::process::Command::new("fio")
        .current_dir(t.path())
        .args(job)
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert!(fio.status.success());
    let fio: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let ours = t
        .run(&job)
        .arg("--output-format=fio-json")
        .output()
        .unwrap();
    assert!(ours.status.success());
    let ours: Value = serde_json::from_slice(&ours.stdout).unwrap();
    let (mut a, mut b) = (BTreeSet::new(), BTreeSet::new());
    key_paths(&fio, "", &mut a);
    key_paths(&ours, "", &mut b);
    // fio lists per-disk utilisation; diskmeter does not measure it yet (an empty list).
    a.retain(|p| !p.starts_with("/disk_util[]"));
    let missing: Vec<_> = a.difference(&b).collect();
    assert!(
        missing.is_empty(),
        "keys fio has and diskmeter lacks: {missing:?}"
    );
}

#[test]
fn json_goes_to_stdout_alone_and_notes_to_stderr() {
    let t = TestDir::new();
    // Not `t.run`: that adds --quiet, which silences the notes this test is about. psync with
    // iodepth=4 draws a note (one IO in flight per worker).
    let out = common::command()
        .current_dir(t.path())
        .args([
            "run",
            "--name=j",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--ioengine=psync",
            "--iodepth=4",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is pure JSON");
    assert_eq!(v["jobs"][0]["read"]["ios"].as_u64(), Some(256));
    let note = "the psync engine keeps 1 IO in flight per worker; iodepth=4 has no effect";
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("diskmeter: note: job j: {note}")),
        "the note is not on stderr: {stderr}"
    );
    // The JSON carries it too, as data (meta.notes), not as a line in the way of a parser.
    assert!(
        v["meta"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains(note)),
        "{}",
        v["meta"]
    );
}

#[test]
fn output_writes_the_results_to_a_file() {
    let t = TestDir::new();
    let target = t.path().join("results.json");
    t.run(&[
        "--name=o",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--output-format=json",
    ])
    .arg(format!("--output={}", target.display()))
    .assert()
    .success()
    .stdout("");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v["jobs"][0]["name"], "o");
}

#[test]
fn the_default_job_is_4k_random_reads_at_qd32_on_1g_for_10s() {
    let t = TestDir::new();
    t.run(&["--dry-run"])
        .assert()
        .success()
        .stdout(contains("rw=randread"))
        .stdout(contains("iodepth=32"))
        .stdout(contains("size=1g"))
        .stdout(contains("runtime=10s"))
        .stdout(contains("direct=1"))
        .stdout(contains("diskmeter-default.0.0"));
    assert!(t.files().is_empty(), "a dry run creates nothing");
}

#[test]
fn dry_run_shows_globals_applied_to_each_job() {
    let t = TestDir::new();
    let out = t
        .run(&[
            "--bs=64k",
            "--size=4m",
            "--name=a",
            "--rw=read",
            "--name=b",
            "--rw=write",
            "--bs=8k",
            "--dry-run",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let a = &text[text.find("[a]").unwrap()..text.find("[b]").unwrap()];
    let b = &text[text.find("[b]").unwrap()..];
    assert!(a.contains("bs=64k") && a.contains("rw=read"), "{a}");
    assert!(b.contains("bs=8k") && b.contains("rw=write"), "{b}");
}

#[test]
fn help_explains_every_option_with_unit_and_default() {
    let out = common::command().args(["run", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let listed = common::help_options(&help);
    for option in diskmeter_option_names() {
        let text = listed
            .get(option)
            .unwrap_or_else(|| panic!("--help lacks --{option}"));
        assert!(
            text.contains("[default: ") || text.contains("unset"),
            "--{option} does not say its default: {text:?}"
        );
    }
    assert!(
        help.contains("[default: 1]") && help.contains("[unit: "),
        "{help}"
    );
}

fn diskmeter_option_names() -> Vec<&'static str> {
    vec![
        "name",
        "filename",
        "directory",
        "size",
        "io_size",
        "offset",
        "rw",
        "rwmixread",
        "bs",
        "iodepth",
        "numjobs",
        "runtime",
        "time_based",
        "ramp_time",
        "loops",
        "direct",
        "ioengine",
        "rate",
        "rate_iops",
        "group_reporting",
        "randseed",
        "norandommap",
    ]
}

#[test]
fn usage_errors_are_clear_and_exit_2() {
    let t = TestDir::new();
    t.run(&["--name=x", "--iodpeth=4"])
        .assert()
        .code(2)
        .stderr(contains("iodepth"));
    t.run(&["--name=x", "--bs=-4k", "--size=1m"])
        .assert()
        .code(2)
        .stderr(contains("bs"))
        .stderr(contains("-4k"));
    t.run(&["--name=x", "--time_based", "--size=1m"])
        .assert()
        .code(2)
        .stderr(contains("runtime"));
    t.run(&["--name=x", "--rw=randread"])
        .assert()
        .code(2)
        .stderr(contains("--size"));
    t.run(&["--name=x", "--rw=sideways", "--size=1m"])
        .assert()
        .code(2)
        .stderr(contains("rw"));
    assert!(t.files().is_empty());
}
