//! diskmeter's own JSON reads back into exactly the result that was written.

mod common;

use diskmeter_report::{from_json, to_json, RunResult, SCHEMA_VERSION};

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
