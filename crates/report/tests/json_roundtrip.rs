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
