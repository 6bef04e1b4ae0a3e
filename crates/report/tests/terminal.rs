//! The terminal summary of a fixed run, compared with a stored snapshot.
//!
//! To accept an intended change: `UPDATE_SNAPSHOTS=1 cargo test -p diskmeter-report --test
//! terminal`, then review the diff of `tests/snapshots/terminal.txt`.

mod common;

use std::path::PathBuf;

use diskmeter_report::{render_terminal, RunResult};

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

#[test]
fn rendering_is_deterministic() {
    let a = render_terminal(&RunResult::build(common::sample_input(false)));
    let b = render_terminal(&RunResult::build(common::sample_input(false)));
    assert_eq!(a, b);
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
        "clat (usec)",
        "clat percentiles (usec)",
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
            "  steady state : iops:2% over 2 s: attained at 2.000 s (window mean 2,000 IOPS, \
             7.81 MiB/s (8.19 MB/s); criterion 0.0125%)"
        ),
        "{text}"
    );
    assert!(text.contains("  IOPS mean    : 2,000 (no 95% CI: 3 per-second samples"));
}
