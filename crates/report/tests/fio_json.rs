//! The fio-compatible JSON has the key tree and value types of real fio 3.x output.
//!
//! `tests/data/fio-3.33-null-randread.json` is the output of
//! `fio --name=t --ioengine=null --size=16m --rw=randread --output-format=json` (fio 3.33); the
//! live test runs the same command when fio is installed and compares with it too.
//! `tests/data/fio-3.33-null-steadystate.json` is the same job rate-limited and with steady
//! state: `--rate_iops=5000 --runtime=10 --time_based --ss=iops:2% --ss_dur=2`; fio adds a
//! `steadystate` object to such jobs only.

mod common;

use std::collections::BTreeMap;
use std::process::Command;

use diskmeter_report::{
    to_fio_json, to_fio_json_plus, RunInput, RunResult, FIO_JSON_LAT_INTENDED_KEY,
};
use serde_json::Value;

/// Top-level keys fio writes only in some runs ("global options" when a global option was
/// set, "disk_util" when it saw block devices); diskmeter writes the first on the same rule
/// and the second always (empty).
const OPTIONAL_TOP_LEVEL: [&str; 2] = ["global options", "disk_util"];

/// The shape of a JSON value: objects become key -> shape, arrays the shape of their first
/// element, scalars their type ("int", "float", "string", ...). The contents of "job options"
/// depend on the job, so only its type is kept.
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let s = if k == "job options" {
                        Value::from("object")
                    } else {
                        shape(v)
                    };
                    (k.clone(), s)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.first().map(shape).into_iter().collect()),
        Value::Number(n) if n.is_f64() => Value::from("float"),
        Value::Number(_) => Value::from("int"),
        Value::String(_) => Value::from("string"),
        Value::Bool(_) => Value::from("bool"),
        Value::Null => Value::from("null"),
    }
}

/// Lists every path where the two shapes differ. Keys that start with `diskmeter_` are
/// diskmeter's documented additions (fio has no such key), so they may be only in ours.
fn differences(path: &str, ours: &Value, fio: &Value, out: &mut Vec<String>) {
    match (ours, fio) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeMap<&String, ()> = a.keys().chain(b.keys()).map(|k| (k, ())).collect();
            for key in keys.keys() {
                let here = format!("{path}/{key}");
                match (a.get(*key), b.get(*key)) {
                    (Some(x), Some(y)) => differences(&here, x, y, out),
                    (Some(_), None) if key.starts_with("diskmeter_") => {}
                    (Some(_), None) => out.push(format!("{here}: only in diskmeter's")),
                    (None, Some(_)) => out.push(format!("{here}: only in fio's")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if let (Some(x), Some(y)) = (a.first(), b.first()) {
                differences(&format!("{path}[0]"), x, y, out);
            }
        }
        (a, b) if a != b => out.push(format!("{path}: diskmeter {a}, fio {b}")),
        _ => {}
    }
}

/// Compares diskmeter's document for the fixed run (its first job is a random-read job, like
/// fio's sample) with a real fio document.
fn assert_same_tree(fio_doc: &Value) {
    assert_same_tree_of(common::sample_input(false), fio_doc);
}

/// Compares diskmeter's document for `input` with a real fio document.
fn assert_same_tree_of(input: RunInput, fio_doc: &Value) {
    let result = RunResult::build(input);
    let mut ours = to_fio_json(&result);
    let mut fio = fio_doc.clone();
    for doc in [&mut ours, &mut fio] {
        let map = doc.as_object_mut().expect("a JSON object");
        for key in OPTIONAL_TOP_LEVEL {
            map.remove(key);
        }
    }
    let mut diffs = Vec::new();
    differences("", &shape(&ours), &shape(&fio), &mut diffs);
    assert!(
        diffs.is_empty(),
        "key tree differs from fio's:\n{}",
        diffs.join("\n")
    );
}

#[test]
fn fio_json_key_tree_equals_stored_fio_sample() {
    let text = include_str!("data/fio-3.33-null-randread.json");
    assert_same_tree(&serde_json::from_str(text).expect("sample parses"));
}

/// Runs fio with `args` (plus `--output-format=json`) and returns its JSON; `None` where fio is
/// not installed: the test then skips with the reason on stderr, or fails under CI (`CI=true`,
/// where scripts/test installs fio), as tests/common's `skip` does. A fio that runs and fails
/// fails the test.
fn live_fio(test: &str, args: &[&str]) -> Option<Value> {
    let output = match Command::new("fio")
        .args(args)
        .arg("--output-format=json")
        .output()
    {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let in_ci =
                std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
            assert!(
                !in_ci,
                "{test}: fio is not installed, and CI (CI=true) may not skip"
            );
            eprintln!("SKIP {test}: fio is not installed (scripts/test installs it as root)");
            return None;
        }
        Err(e) => panic!("{test}: cannot start fio: {e}"),
    };
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{test}: fio failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // fio may print notes before the document; it starts at the first '{'.
    let start = text.find('{').expect("fio printed JSON");
    Some(serde_json::from_str(&text[start..]).expect("fio JSON parses"))
}

#[test]
fn fio_json_key_tree_equals_live_fio() {
    let Some(fio) = live_fio(
        "fio_json_key_tree_equals_live_fio",
        &["--name=t", "--ioengine=null", "--size=16m", "--rw=randread"],
    ) else {
        return;
    };
    assert_same_tree(&fio);
}

#[test]
fn fio_json_uses_fio_units() {
    let result = RunResult::build(common::sample_input(false));
    let doc = to_fio_json(&result);
    assert_eq!(doc["fio version"], "diskmeter-0.1.0");
    assert_eq!(doc["time"], "Mon Nov 23 14:20:13 2026");
    let job = &doc["jobs"][0];
    assert_eq!(job["jobname"], "randread-4k");
    let read = &job["read"];
    assert_eq!(read["io_bytes"], 6_000 * 4096);
    assert_eq!(read["io_kbytes"], 6_000 * 4);
    assert_eq!(read["bw_bytes"], 8_192_000);
    assert_eq!(read["bw"], 8_000, "KiB/s");
    assert_eq!(read["runtime"], 3_000, "ms");
    assert_eq!(read["total_ios"], 6_000);
    assert_eq!(read["clat_ns"]["N"], 6_000);
    // The 99th percentile of the two readers' 6,000 latencies (3,000 each, base 40 us, seeds
    // 0 and 1), by nearest rank; the histogram answers with the top of the value's bucket,
    // within 0.1 % above it (3 significant digits).
    let mut clats: Vec<u64> = (0..2)
        .flat_map(|seed| (0..3_000).map(move |i| common::clat_ns(i, 40_000, seed)))
        .collect();
    clats.sort_unstable();
    let exact = clats[clats.len() * 99 / 100 - 1];
    let p99 = read["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap();
    assert!(
        (exact..=exact + exact / 1000).contains(&p99),
        "p99 {p99} ns, nearest rank {exact} ns"
    );
    assert!(read["lat_ns"].get("percentile").is_none());
    assert_eq!(job["job_runtime"], 5_999, "ms, summed over workers");
    assert_eq!(job["iodepth_level"]["32"], 100.0);
    assert_eq!(job["latency_us"]["100"], 62.5);
    assert_eq!(job["job options"]["rw"], "randread");
    assert_eq!(doc["jobs"][2]["error"], 1);
}

#[test]
fn fio_json_has_every_key_of_a_grouped_mixed_fio_run() {
    // fio 3.33, psync randrw, numjobs=2, group_reporting, lat_percentiles=1: a richer document
    // whose values are all filled in. Percentile tables depend on options and directions, and
    // disk_util on the machine, so only those may differ.
    let text = include_str!("data/fio-3.33-psync-randrw-group.json");
    let mut fio: Value = serde_json::from_str(text).expect("sample parses");
    let result = RunResult::build(common::sample_input(false));
    let mut ours = to_fio_json(&result);
    for doc in [&mut ours, &mut fio] {
        doc.as_object_mut().unwrap().remove("disk_util");
        doc.as_object_mut().unwrap().remove("global options");
    }
    let mut diffs = Vec::new();
    differences("", &shape(&ours), &shape(&fio), &mut diffs);
    diffs.retain(|d| !d.contains("/percentile"));
    assert!(
        diffs.is_empty(),
        "key tree differs from fio's:\n{}",
        diffs.join("\n")
    );
}

#[test]
fn fio_json_steadystate_has_fios_keys() {
    let text = include_str!("data/fio-3.33-null-steadystate.json");
    assert_same_tree_of(
        common::steady_input(),
        &serde_json::from_str(text).expect("sample parses"),
    );
    let doc = to_fio_json(&RunResult::build(common::steady_input()));
    let ss = &doc["jobs"][0]["steadystate"];
    assert_eq!(ss["ss"], "iops:2.000000%");
    assert_eq!(ss["duration"], 2);
    assert_eq!(ss["attained"], 1);
    assert_eq!(ss["criterion"], "0.012500%");
    assert_eq!(ss["data"]["iops"], serde_json::json!([2000, 2001]));
    assert_eq!(ss["data"]["bw_mean"], 8_193_024);
    assert_eq!(doc["jobs"][0]["job options"]["steadystate"], "iops:2%");
    // Jobs that did not ask have no object, as in fio.
    assert!(doc["jobs"][1].get("steadystate").is_none());
}

#[test]
fn fio_json_steadystate_has_live_fios_keys() {
    let Some(fio) = live_fio(
        "fio_json_steadystate_has_live_fios_keys",
        &[
            "--name=t",
            "--ioengine=null",
            "--size=16m",
            "--rw=randread",
            "--rate_iops=5000",
            "--runtime=10",
            "--time_based",
            "--ss=iops:2%",
            "--ss_dur=2",
        ],
    ) else {
        return;
    };
    assert!(fio["jobs"][0].get("steadystate").is_some(), "{fio}");
    assert_same_tree_of(common::steady_input(), &fio);
}

#[test]
fn fio_json_carries_latency_from_the_intended_time_under_a_diskmeter_key() {
    let result = RunResult::build(common::sample_input(false));
    let doc = to_fio_json(&result);
    // Job 1 is the rate-limited writer: its intended-time latency is there in lat_ns's shape.
    let ours = &result.jobs[1].write.lat_intended;
    let theirs = &doc["jobs"][1]["write"][FIO_JSON_LAT_INTENDED_KEY];
    assert!(ours.count > 0);
    assert_eq!(theirs["N"], ours.count);
    assert_eq!(theirs["max"], ours.max_ns);
    assert_eq!(theirs["min"], ours.min_ns);
    assert_eq!(
        theirs["percentile"]["99.000000"],
        ours.percentiles
            .iter()
            .find(|p| p.percent == 99.0)
            .unwrap()
            .value_ns
    );
    let lat_keys: Vec<&String> = doc["jobs"][1]["write"]["lat_ns"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    for key in lat_keys {
        assert!(theirs.get(key).is_some(), "{key} missing");
    }
    // A job without a rate limit has the key with N = 0, so every document has one tree.
    assert_eq!(doc["jobs"][0]["read"][FIO_JSON_LAT_INTENDED_KEY]["N"], 0);
}

/// Jobs that carry no options as typed (DiskSpd, Iometer input, results stored before
/// schema 6) list their resolved options, and no "global options".
#[test]
fn fio_json_job_options_are_the_jobs_resolved_options() {
    let result = RunResult::build(common::sample_input(false));
    let doc = to_fio_json(&result);
    let options = doc["jobs"][0]["job options"].as_object().unwrap();
    assert_eq!(options.len(), result.jobs[0].options.len());
    for option in &result.jobs[0].options {
        assert_eq!(
            options[&option.name],
            option.value.as_str(),
            "{}",
            option.name
        );
    }
    assert_eq!(options["numjobs"], "2");
    assert_eq!(options["group_reporting"], "1");
    assert_eq!(doc["jobs"][1]["job options"]["rate_iops"], "0,500");
    assert!(doc.get("global options").is_none());
}

/// Jobs with options as typed list those, in their order, and the run's global options
/// appear before "jobs", as fio writes them.
#[test]
fn fio_json_lists_the_options_as_typed_when_kept() {
    let mut input = common::sample_input(false);
    for job in &mut input.jobs {
        job.spec.given = Some(diskmeter_workload::GivenOptions {
            job: vec![
                ("runtime".into(), "1".into()),
                ("numjobs".into(), "1".into()),
                ("bs".into(), "4k".into()),
            ],
            global: vec![
                ("size".into(), "1m".into()),
                ("ioengine".into(), "null".into()),
            ],
        });
    }
    let doc = to_fio_json(&RunResult::build(input));
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(
        keys(&doc["jobs"][0]["job options"]),
        ["runtime", "numjobs", "bs"]
    );
    assert_eq!(doc["jobs"][0]["job options"]["runtime"], "1");
    assert_eq!(keys(&doc["global options"]), ["size", "ioengine"]);
    let top = keys(&doc);
    let at = |k: &str| top.iter().position(|t| t == k).unwrap();
    assert_eq!(at("global options") + 1, at("jobs"), "{top:?}");
}

#[test]
fn json_plus_adds_fios_bins_where_the_percentiles_are() {
    let result = RunResult::build(common::sample_input(false));
    let plain = to_fio_json(&result);
    let plus = to_fio_json_plus(&result);
    let read = &plus["jobs"][0]["read"];
    // Bins only where fio puts them: beside a percentile table (clat by default).
    assert!(read["lat_ns"].get("bins").is_none());
    assert!(read["slat_ns"].get("bins").is_none());
    assert!(plain["jobs"][0]["read"]["clat_ns"].get("bins").is_none());
    let bins = read["clat_ns"]["bins"]
        .as_object()
        .expect("json+ clat bins");
    let total: u64 = bins.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(total, read["clat_ns"]["N"].as_u64().unwrap());
    // Keys are fio's bucket values: each maps back to its own bucket.
    for key in bins.keys() {
        let ns: u64 = key.parse().unwrap();
        let index = diskmeter_report::fio_bins::plat_index(ns);
        assert_eq!(diskmeter_report::fio_bins::plat_value(index), ns, "{key}");
    }
    // Everything else is fio-json's.
    let mut stripped = plus.clone();
    for job in stripped["jobs"].as_array_mut().unwrap() {
        for direction in ["read", "write", "trim"] {
            for lat in ["clat_ns", "lat_ns", FIO_JSON_LAT_INTENDED_KEY] {
                if let Some(object) = job[direction][lat].as_object_mut() {
                    object.remove("bins");
                }
            }
        }
        job["sync"]["lat_ns"]
            .as_object_mut()
            .unwrap()
            .remove("bins");
    }
    assert_eq!(stripped, plain);
}
