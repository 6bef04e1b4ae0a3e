//! The terminal summary of a fixed run, compared with a stored snapshot.
//!
//! To accept an intended change: `UPDATE_SNAPSHOTS=1 cargo test -p diskmeter-report --test
//! terminal`, then review the diff of `tests/snapshots/terminal.txt`.

mod common;

use std::path::PathBuf;

use diskmeter_report::{from_json, render_terminal, to_json, RunResult};

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name)
}

/// Compares `actual` with the stored snapshot, or rewrites it when UPDATE_SNAPSHOTS is set.
fn assert_snapshot(name: &str, actual: &str) {
    let path = snapshot_path(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_SNAPSHOTS=1", path.display()));
    if expected != actual {
        for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
            if e != a {
                panic!(
                    "snapshot {name} differs at line {}:\n  expected: {e}\n    actual: {a}",
                    i + 1
                );
            }
        }
        panic!(
            "snapshot {name} differs in length ({} vs {} lines)",
            expected.lines().count(),
            actual.lines().count()
        );
    }
}

#[test]
fn terminal_summary_matches_snapshot() {
    let text = render_terminal(&RunResult::build(common::sample_input(false)));
    assert_snapshot("terminal.txt", &text);
}

/// The text depends on the result alone: a second build of the same input (with fresh hash
/// maps), the result read back from its JSON (as a saved run is shown again), another time
/// zone and a later second all give the same text.
#[test]
fn rendering_is_deterministic() {
    let first = render_terminal(&RunResult::build(common::sample_input(false)));
    let result = RunResult::build(common::sample_input(false));
    let read_back = from_json(&to_json(&result)).expect("own JSON parses");
    // A renderer that read the clock would print another second; one that used local time
    // would print UTC+14's.
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    std::env::set_var("TZ", "Pacific/Kiritimati");
    for (how, text) in [
        ("a second build", render_terminal(&result)),
        ("read back from JSON", render_terminal(&read_back)),
    ] {
        if text != first {
            let line = text
                .lines()
                .zip(first.lines())
                .position(|(a, b)| a != b)
                .map_or(text.lines().count().min(first.lines().count()), |i| i);
            panic!(
                "{how} renders differently from line {}:\n{}\n  instead of\n{}",
                line + 1,
                text.lines().nth(line).unwrap_or("(end)"),
                first.lines().nth(line).unwrap_or("(end)")
            );
        }
    }
}

#[test]
fn interrupted_runs_carry_a_banner() {
    let partial = render_terminal(&RunResult::build(common::sample_input(true)));
    assert!(partial.starts_with("*** PARTIAL RESULTS (interrupted)"));
    let complete = render_terminal(&RunResult::build(common::sample_input(false)));
    assert!(!complete.contains("PARTIAL"));
}

#[test]
fn units_are_named() {
    let text = render_terminal(&RunResult::build(common::sample_input(false)));
    for unit in [
        "MiB/s (",
        "MB/s)",
        "clat: min=",
        "percentiles  : values within 0.1 %",
        "lat (usec)",
    ] {
        assert!(text.contains(unit), "missing {unit:?} in\n{text}");
    }
}

#[test]
fn steady_state_and_the_iops_interval_get_a_line_each() {
    let text = render_terminal(&RunResult::build(common::steady_input()));
    assert!(
        text.contains(
            "  steady state : iops:2% over 2 s: attained at 2.00 s (window mean 2,000 IOPS, \
             7.81 MiB/s (8.19 MB/s); criterion 0.0125%)"
        ),
        "{text}"
    );
    assert!(text.contains("  IOPS mean    : 2,000 (no 95% CI: 3 per-second samples"));
}

#[test]
fn the_steady_state_line_shows_short_samples_and_the_precision_rule() {
    let mut input = common::steady_input();
    for job in input.jobs.iter_mut().filter(|j| j.group_id == 0) {
        job.spec.steadystate.sample_ns = 200_000_000;
        job.spec.steadystate.duration_ns = 1_000_000_000;
        job.spec.steadystate.precision_percent = Some(3.0);
        if let Some(ss) = job.steady_state.as_mut() {
            ss.precision_percent = Some(2.5);
        }
    }
    let result = RunResult::build(input);
    let text = render_terminal(&result);
    assert!(
        text.contains(
            "  steady state : iops:2% over 1 s of 0.2 s samples, mean known to +-3%: attained \
             at 2.00 s"
        ),
        "{text}"
    );
    assert!(text.contains("criterion 0.0125%; mean +-2.50%)"), "{text}");
    let ss = result.jobs[0].steady_state.as_ref().unwrap();
    assert_eq!(
        (
            ss.sample_ns,
            ss.precision_limit_percent,
            ss.precision_percent
        ),
        (200_000_000, Some(3.0), Some(2.5))
    );
}
