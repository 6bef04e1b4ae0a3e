//! `diskmeter merge`: four runs' JSON results merged through the real binary. IO counts add
//! up, the merged percentiles are those of all four runs' raw latencies together (from
//! `write_lat_log` with `log_avg_msec=0`, every completion latency), workloads that differ
//! and files that are not results are refused with their names, and every output format
//! parses. Rank order is the order of the files (the runs carry no `--rank`).

use crate::common;

use common::TestDir;
use std::path::Path;

const RANKS: usize = 4;

/// Runs rank `rank`'s share: psync random reads of its own small file, every completion
/// latency logged; returns its JSON result's path.
fn run_rank(dir: &TestDir, rank: usize, extra: &[&str]) -> String {
    let json = format!("rank{rank}.json");
    let filename = format!("--filename=rank{rank}.dat");
    let lat_log = format!("--write_lat_log=rank{rank}");
    let mut args = vec![
        "--no-save",
        "--name=share",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--size=2m",
        "--number_ios=1500",
        "--log_avg_msec=0",
        &filename,
        &lat_log,
    ];
    args.extend_from_slice(extra);
    let output = dir
        .run(&args)
        .args(["--output-format=json", &format!("--output={json}")])
        .output()
        .expect("run diskmeter");
    common::ok(output);
    json
}

/// Every completion latency of a rank's log, ns (fio's `time, value, direction, bs, offset`).
fn clat_log(dir: &Path, rank: usize) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join(format!("rank{rank}_clat.1.log")))
        .expect("the rank's clat log");
    text.lines()
        .map(|line| {
            line.split(',')
                .nth(1)
                .expect("a value")
                .trim()
                .parse()
                .expect("ns")
        })
        .collect()
}

/// The percentile as the histogram defines it: the value of rank ceil(p/100 * n) of the
/// sorted latencies (nearest rank), which the histogram reports within 0.1 %.
fn nearest_rank(sorted: &[u64], percent: f64) -> u64 {
    let rank = ((percent / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn merge(dir: &TestDir, args: &[&str]) -> std::process::Output {
    let mut all = vec!["merge"];
    all.extend_from_slice(args);
    common::diskmeter(dir.path(), &all)
}

#[test]
fn four_ranks_merge_into_the_counts_and_percentiles_of_all_their_ios() {
    let dir = TestDir::new();
    let files: Vec<String> = (0..RANKS).map(|r| run_rank(&dir, r, &[])).collect();
    let file_args: Vec<&str> = files.iter().map(String::as_str).collect();
    let mut args = file_args.clone();
    args.push("--output-format=json");
    let merged: serde_json::Value =
        serde_json::from_str(&common::ok(merge(&dir, &args))).expect("json parses");

    let results: Vec<serde_json::Value> = files
        .iter()
        .map(|f| {
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(f)).unwrap()).unwrap()
        })
        .collect();
    let ios: u64 = results
        .iter()
        .map(|r| r["jobs"][0]["read"]["ios"].as_u64().unwrap())
        .sum();
    let job = &merged["jobs"][0];
    assert_eq!(job["read"]["ios"].as_u64(), Some(ios));
    assert_eq!(job["workers"].as_u64(), Some(RANKS as u64));
    assert_eq!(merged["scale_out"]["total_ios"].as_u64(), Some(ios));
    assert_eq!(merged["scale_out"]["ranks"].as_u64(), Some(RANKS as u64));
    assert_eq!(merged["ranks"].as_array().map(Vec::len), Some(RANKS));
    assert_eq!(merged["groups"][0]["read"]["ios"].as_u64(), Some(ios));

    let mut all: Vec<u64> = (0..RANKS).flat_map(|r| clat_log(dir.path(), r)).collect();
    all.sort_unstable();
    assert_eq!(all.len() as u64, ios, "one logged latency per IO");
    let clat = &job["read"]["clat"];
    assert_eq!(clat["count"].as_u64(), Some(ios));
    assert_eq!(clat["min_ns"].as_u64(), Some(all[0]), "min is exact");
    assert_eq!(clat["max_ns"].as_u64(), all.last().copied(), "max is exact");
    let mean = all.iter().sum::<u64>() as f64 / all.len() as f64;
    assert!(
        (clat["mean_ns"].as_f64().unwrap() - mean).abs() <= mean * 1e-9,
        "mean is exact"
    );
    let percentiles = clat["percentiles"].as_array().expect("percentiles");
    assert!(percentiles.len() >= 10);
    for p in percentiles {
        let percent = p["percent"].as_f64().unwrap();
        let merged_ns = p["value_ns"].as_u64().unwrap() as f64;
        let exact_ns = nearest_rank(&all, percent) as f64;
        assert!(
            (merged_ns - exact_ns).abs() <= exact_ns * 0.001 + 1.0,
            "p{percent}: merged {merged_ns} ns, all IOs {exact_ns} ns"
        );
    }

    // fio-json and the terminal view of the same merge.
    let mut args = file_args.clone();
    args.push("--output-format=fio-json");
    let fio: serde_json::Value =
        serde_json::from_str(&common::ok(merge(&dir, &args))).expect("fio-json parses");
    assert_eq!(fio["jobs"][0]["read"]["total_ios"].as_u64(), Some(ios));
    let text = common::ok(merge(&dir, &file_args));
    assert!(text.contains("Scale-out: 4 ranks"), "{text}");
    assert!(text.contains("phase 0 start skew"), "{text}");
}

#[test]
fn workloads_that_differ_are_refused_naming_the_option_and_the_file() {
    let dir = TestDir::new();
    let a = run_rank(&dir, 0, &[]);
    let b = run_rank(&dir, 1, &["--bs=8k"]);
    let output = merge(&dir, &[&a, &b]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("bs=8k in rank 1"), "{stderr}");
    assert!(stderr.contains("bs=4k in rank 0"), "{stderr}");
    assert!(stderr.contains(&b), "names the file: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_file_that_is_not_a_result_is_refused_by_name() {
    let dir = TestDir::new();
    let a = run_rank(&dir, 0, &[]);
    std::fs::write(
        dir.path().join("fio.json"),
        r#"{"fio version": "fio-3.33", "jobs": []}"#,
    )
    .unwrap();
    for bad in ["fio.json", "rank0_clat.1.log", "missing.json"] {
        let output = merge(&dir, &[&a, bad]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains(bad), "names {bad}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_merge_of_one_result_is_that_result() {
    let dir = TestDir::new();
    let a = run_rank(&dir, 0, &[]);
    let merged: serde_json::Value = serde_json::from_str(&common::ok(merge(
        &dir,
        &[&a, "--output-format=json", "--output=merged.json"],
    )))
    .unwrap_or(serde_json::Value::Null);
    assert!(merged.is_null(), "--output writes the file, not stdout");
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("merged.json")).unwrap())
            .unwrap();
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(&a)).unwrap()).unwrap();
    assert_eq!(merged["jobs"], original["jobs"]);
    assert_eq!(merged["scale_out"]["ranks"].as_u64(), Some(1));
}

#[test]
fn files_of_several_steps_merge_step_by_step() {
    let dir = TestDir::new();
    let a = run_rank(&dir, 0, &[]);
    let b = run_rank(&dir, 1, &[]);
    let read = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(f)).unwrap()).unwrap()
    };
    // Two "hosts", each with a two-step document as a suite's JSON and `export` hold them.
    for (name, result) in [("host0.json", read(&a)), ("host1.json", read(&b))] {
        let doc = serde_json::json!({"suite": "two", "steps": [
            {"name": "first", "result": result.clone()},
            {"name": "second", "result": result},
        ]});
        std::fs::write(dir.path().join(name), doc.to_string()).unwrap();
    }
    let out = common::ok(merge(
        &dir,
        &["host0.json", "host1.json", "--output-format=json"],
    ));
    let merged: serde_json::Value = serde_json::from_str(&out).expect("json parses");
    let steps = merged["steps"].as_array().expect("steps[]");
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1]["name"], "second");
    let ios = read(&a)["jobs"][0]["read"]["ios"].as_u64().unwrap()
        + read(&b)["jobs"][0]["read"]["ios"].as_u64().unwrap();
    assert_eq!(
        steps[1]["result"]["jobs"][0]["read"]["ios"].as_u64(),
        Some(ios)
    );
    // A one-step file does not merge with a two-step one.
    let output = merge(&dir, &["host0.json", &a]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("holds 1 step(s) but host0.json holds 2"),
        "{stderr}"
    );
}
