//! A fixed-seed slice of every fuzz campaign, small enough for every test run (a few seconds
//! in a debug build): each target gets hundreds to thousands of generated inputs, by what
//! one costs, and must answer every one without a panic, a hang or a broken promise.
//! `bench/fuzz` runs the same targets at a million inputs each.
//!
//! The slice runs in a debug build, where the parsers are ten times slower than in the
//! campaigns' optimised build, so an input counts as a hang only after 20 s of CPU time (or
//! 200 s of wall time): the limit turns an endless loop into a failure instead of a test run
//! that never ends, and is far from what any input of the slice takes.

use diskmeter_fuzz::campaign::{run, Report, Settings};
use diskmeter_fuzz::targets::by_name;
use std::time::Duration;

fn slice(target: &str, inputs: u64) -> Report {
    let settings = Settings {
        inputs,
        seed: 17,
        threads: 1,
        hang_after: Duration::from_secs(20),
        save_to: None,
    };
    let report = run(by_name(target, &[]).expect(target), &settings);
    let failures: Vec<String> = report
        .failures
        .iter()
        .map(|f| {
            format!(
                "{} x{} at input {}: {}\n  input: {}",
                f.kind.as_str(),
                f.count,
                f.index,
                f.message,
                String::from_utf8_lossy(&f.input)
                    .chars()
                    .take(2000)
                    .collect::<String>()
            )
        })
        .collect();
    assert!(report.clean(), "{target}: {}", failures.join("\n"));
    assert_eq!(report.inputs, inputs);
    assert!(
        report.accepted > 0 && report.refused > 0,
        "{target}: the generator should make inputs of both kinds: {report:?}"
    );
    report
}

#[test]
fn job_files_neither_panic_nor_hang() {
    slice("jobfile", 600);
}

#[test]
fn diskspd_command_lines_neither_panic_nor_hang() {
    slice("diskspd", 3000);
}

#[test]
fn iometer_specs_and_tables_neither_panic_nor_hang() {
    slice("iometer", 2000);
}

#[test]
fn planner_arguments_and_catalogs_neither_panic_nor_hang() {
    slice("plan", 1000);
}

#[test]
fn iologs_neither_panic_nor_hang() {
    slice("iolog", 600);
}

#[test]
fn saved_captures_neither_panic_nor_hang() {
    slice("capture", 250);
}

#[test]
fn unit_values_neither_panic_nor_hang_and_read_back() {
    slice("units", 4000);
}
