//! diskmeter's own JSON reads back into exactly the result that was written.

mod common;

use diskmeter_report::{from_json, to_json, upgrade_json, ReportError, RunResult, SCHEMA_VERSION};

#[test]
fn own_json_round_trips() {
    let result = RunResult::build(common::sample_input(true));
    let text = to_json(&result);
    let back = from_json(&text).expect("own JSON parses");
    // Compare the texts first: a difference there is readable, unlike two Debug dumps.
    assert_eq!(to_json(&back), text);
    assert!(
        back == result,
        "the parsed result differs from the written one"
    );
    assert_eq!(back.schema_version, SCHEMA_VERSION);
}

#[test]
fn units_are_in_the_field_names() {
    let text = to_json(&RunResult::build(common::sample_input(false)));
    for field in [
        "\"runtime_ns\"",
        "\"bw_bytes_per_sec\"",
        "\"mean_ns\"",
        "\"iops\"",
        "\"size_bytes\"",
    ] {
        assert!(text.contains(field), "missing {field}");
    }
}

#[test]
fn foreign_json_is_an_error() {
    assert!(from_json("{\"fio version\": \"fio-3.33\"}").is_err());
}

#[test]
fn steady_state_and_the_interval_round_trip() {
    let result = RunResult::build(common::steady_input());
    let back = from_json(&to_json(&result)).expect("own JSON parses");
    assert!(back == result);
    let job = &back.jobs[0];
    let ss = job.steady_state.as_ref().expect("asked for");
    assert_eq!(
        (ss.attained, ss.attained_at_ns),
        (true, Some(2_000_000_000))
    );
    assert_eq!(ss.window_iops_mean, 2000.25);
    // Results written before steady state existed still read back (no interval).
    let mut old: serde_json::Value = serde_json::from_str(&to_json(&result)).unwrap();
    for job in old["jobs"].as_array_mut().unwrap() {
        let job = job.as_object_mut().unwrap();
        job.remove("iops_mean_ci");
        job.remove("steady_state");
    }
    let back = from_json(&old.to_string()).expect("older results read");
    assert_eq!(back.jobs[0].iops_mean_ci.samples, 0);
}

/// `result-schema-v1-f43a725.json` is run 1 of the history fixture as diskmeter at f43a725
/// stored it (schema 1: each job embeds the internal job specification): a rate-limited
/// `reader` and a `writers` job with numjobs=2 and group_reporting (null engine).
const SCHEMA_1_RESULT: &str = include_str!("data/result-schema-v1-f43a725.json");

#[test]
fn a_schema_1_result_is_upgraded_to_options_and_typed_facts() {
    let result = upgrade_json(SCHEMA_1_RESULT).expect("schema 1 reads");
    assert_eq!(result.schema_version, SCHEMA_VERSION);
    let reader = &result.jobs[0];
    assert_eq!(reader.option("name"), Some("reader"));
    assert_eq!(reader.option("rw"), Some("randread"));
    assert_eq!(reader.option("rate_iops"), Some("2000"));
    assert_eq!(reader.option("ioengine"), Some("null"));
    assert_eq!(reader.workload.iodepth, 4);
    assert_eq!(reader.workload.bs_read_bytes, 4096);
    assert_eq!(reader.workload.bs_read_spread, None);
    assert!(reader.workload.clat_percentiles);
    let writers = &result.jobs[1];
    assert_eq!(writers.workers, 2);
    assert_eq!(writers.option("numjobs"), Some("2"));
    assert_eq!(writers.option("group_reporting"), Some("1"));
    assert_eq!(writers.option("bs"), Some("64k"));
    assert_eq!(writers.workload.rw, "write");
    // The figures are kept as they were.
    let old: serde_json::Value = serde_json::from_str(SCHEMA_1_RESULT).unwrap();
    assert_eq!(old["jobs"][0]["read"]["ios"], reader.read.ios);
    assert_eq!(
        old["jobs"][0]["read"]["lat_intended"]["max_ns"],
        reader.read.lat_intended.max_ns
    );
    assert!(result.meta.notes.is_empty(), "{:?}", result.meta.notes);
    // and it writes and reads back as the current schema
    assert!(from_json(&to_json(&result)).unwrap() == result);
}

#[test]
fn from_json_reads_only_the_current_schema() {
    match from_json(SCHEMA_1_RESULT) {
        Err(ReportError::UnknownVersion { found: 1, known }) => assert_eq!(known, SCHEMA_VERSION),
        other => panic!("schema 1 must be refused by from_json: {other:?}"),
    }
    let mut newer: serde_json::Value =
        serde_json::from_str(&to_json(&RunResult::build(common::sample_input(false)))).unwrap();
    newer["schema_version"] = (SCHEMA_VERSION + 1).into();
    for read in [from_json, upgrade_json] {
        let error = read(&newer.to_string()).expect_err("a newer schema is refused");
        assert!(error.to_string().contains("newer diskmeter"), "{error}");
    }
}

#[test]
fn upgrading_a_current_result_changes_nothing() {
    let result = RunResult::build(common::steady_input());
    assert!(upgrade_json(&to_json(&result)).unwrap() == result);
}
