//! `sweep --curve` as one run (issue 31): the steps it chose as it went (the maximum, the
//! shares, the SLO's bisection) are one sweep in the history, named so that `analyze` and the
//! report give the curve and the SLO's answer back. The null engine with a service time: no
//! device; no measured figure is judged here (tests/alone/curve.rs judges them).

use crate::common;

use common::TestDir;
use serde_json::Value;

#[test]
fn a_curve_is_one_run_in_the_history_and_analyze_gives_it_back() {
    let (work, history) = (TestDir::new(), TestDir::new());
    let db = history.path().join("history.db");
    let swept = common::ok(common::diskmeter_with_db(
        work.path(),
        &db,
        &[
            "sweep",
            "--ioengine=null",
            "--quiet",
            "--output-format=json",
            "--curve",
            "--curve-shares=50,100",
            "--slo=p99=1.5ms",
            "--qd=4",
            "--throttle-latency=1ms",
            "--point-time=300ms",
            "--ramp=0",
            "--size=16m",
            "--charts=none",
        ],
    ));
    let swept: Value = serde_json::from_str(&swept).unwrap();
    let points = swept["curve"]["points"].as_array().unwrap().len();
    assert!(points >= 3, "{swept:#}");
    let runs = common::ok(common::diskmeter_with_db(
        work.path(),
        &db,
        &["history", "--format", "json"],
    ));
    let runs: Value = serde_json::from_str(&runs).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs:#}");
    assert_eq!(runs[0]["steps"], points as u64, "{runs:#}");
    assert_eq!(runs[0]["name"], "randread curve --slo lat-p99=1.5ms");
    let again = common::ok(common::diskmeter_with_db(
        work.path(),
        &db,
        &["analyze", "last", "--output-format=json", "--charts=none"],
    ));
    let again: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(again["curve"]["points"], swept["curve"]["points"]);
    assert_eq!(again["curve"]["slo"], swept["curve"]["slo"]);
    let report = work.path().join("r.html");
    common::ok(common::diskmeter_with_db(
        work.path(),
        &db,
        &["report", "last", "-o", report.to_str().unwrap()],
    ));
    let html = std::fs::read_to_string(report).unwrap();
    assert!(
        html.contains("IOPS-latency curve"),
        "no curve in the report"
    );
}
