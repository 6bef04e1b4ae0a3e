//! `diskmeter requirements` and `plan --from-capture` on a capture seeded through the history
//! API (tests/seed): the checklist's figures as text, JSON and CSV, time-of-day windows,
//! unknowns, device choice, bad input (exit 2), and the planner fed from the checklist.

use crate::common;
use crate::seed;

use common::{diskmeter, ok, TestDir};
use serde_json::Value;

fn seeded() -> (TestDir, String) {
    let dir = TestDir::new();
    let db = dir.path().join("history.db");
    seed::seed_capture(&db);
    let db = db.to_str().unwrap().to_string();
    (dir, db)
}

fn row<'a>(rows: &'a Value, metric: &str) -> &'a Value {
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {metric}"))
}

fn near(value: &Value, expected: f64) -> bool {
    value
        .as_f64()
        .is_some_and(|v| (v - expected).abs() <= expected * 0.001 + 1e-9)
}

#[test]
fn json_is_rows_of_metric_and_five_columns_with_null_for_unknown() {
    let (dir, db) = seeded();
    let text = ok(diskmeter(
        &dir,
        &["requirements", "last", "--format=json", "--db", &db],
    ));
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        json.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["rows"]
    );
    let rows = &json["rows"];
    assert_eq!(rows.as_array().unwrap().len(), 21);
    for r in rows.as_array().unwrap() {
        let mut keys: Vec<&String> = r.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "max",
                "mean",
                "metric",
                "p50",
                "p90",
                "p99",
                "percentiles_over"
            ]
        );
    }
    // 60 s at 1,500 IOPS then 60 s at 4,000.
    let iops = row(rows, "iops_total");
    assert!(
        near(&iops["p50"], 1500.0) && near(&iops["p90"], 4000.0),
        "{iops}"
    );
    assert_eq!(iops["max"], 4000.0);
    assert!(near(&iops["mean"], 2750.0));
    // 240,000 reads of 330,000 IOs.
    assert!(near(
        &row(rows, "read_percent")["mean"],
        100.0 * 240.0 / 330.0
    ));
    assert!(near(&row(rows, "latency_write_ms")["p99"], 2.0));
    // No flushes: 0 per second, and no flush latency.
    assert_eq!(row(rows, "flushes_per_sec")["max"], 0.0);
    assert!(row(rows, "latency_flush_ms")["mean"].is_null());
    // What counters cannot know.
    assert!(row(rows, "random_percent")["p50"].is_null());
    assert!(row(rows, "io_size_read_kib")["p90"].is_null());
    assert!(near(&row(rows, "io_size_read_kib")["mean"], 8.0));
    assert!(row(rows, "device_latency_read_ms")["mean"].is_null());
}

#[test]
fn windows_split_the_capture_by_time_of_day_in_utc() {
    let (dir, db) = seeded();
    let text = ok(diskmeter(
        &dir,
        &[
            "requirements",
            "last",
            "--format=json",
            "--db",
            &db,
            "--window",
            "before=11:00-12:00,peak=12:00-13:00",
        ],
    ));
    let json: Value = serde_json::from_str(&text).unwrap();
    assert!(near(&row(&json["rows"], "iops_total")["p50"], 1500.0));
    let windows = json["windows"].as_array().unwrap();
    assert_eq!(windows[0]["name"], "before");
    assert_eq!(windows[0]["intervals"], 60);
    assert!(near(&row(&windows[0]["rows"], "iops_total")["max"], 1500.0));
    assert_eq!(
        (&windows[1]["from"], &windows[1]["to"]),
        (&"12:00".into(), &"13:00".into())
    );
    assert!(near(&row(&windows[1]["rows"], "iops_total")["p50"], 4000.0));
    assert!(near(&row(&windows[1]["rows"], "cpu_percent")["mean"], 60.0));
    // At +01:00 the peak window is 11:00-12:00 UTC: the first minute is 12:59 there.
    let shifted = ok(diskmeter(
        &dir,
        &[
            "requirements",
            "last",
            "--format=json",
            "--db",
            &db,
            "--window",
            "p=12:00-13:00",
            "--utc-offset",
            "+01:00",
        ],
    ));
    let json: Value = serde_json::from_str(&shifted).unwrap();
    assert_eq!(json["windows"][0]["intervals"], 60);
    assert!(near(
        &row(&json["windows"][0]["rows"], "iops_total")["max"],
        1500.0
    ));
}

#[test]
fn text_and_csv_show_the_same_checklist() {
    let (dir, db) = seeded();
    let text = ok(diskmeter(&dir, &["requirements", "1", "--db", &db]));
    assert!(text.contains("Requirements of capture 1"), "{text}");
    assert!(text.contains("devices: vda\n"), "{text}");
    assert!(text.contains("left out: vda1"), "{text}");
    let iops_line = text.lines().find(|l| l.contains("| IOPS total")).unwrap();
    assert!(iops_line.contains("4,000"), "{iops_line}");
    let random_line = text.lines().find(|l| l.contains("| random %")).unwrap();
    assert!(random_line.contains("unknown"), "{random_line}");
    let csv = ok(diskmeter(
        &dir,
        &["requirements", "last", "--format=csv", "--db", &db],
    ));
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("window,metric,p50,p90,p99,max,mean"));
    assert!(csv.contains("\nall,random_percent,,,,,\n"), "{csv}");
    assert!(
        csv.lines()
            .any(|l| l.starts_with("all,iops_total,") && l.contains(",4000,")),
        "{csv}"
    );
}

#[test]
fn a_partition_is_chosen_by_name_and_bad_input_exits_2() {
    let (dir, db) = seeded();
    let text = ok(diskmeter(
        &dir,
        &["requirements", "last", "--device", "vda1", "--db", &db],
    ));
    assert!(text.contains("devices: vda1\n"), "{text}");
    for (args, says) in [
        (
            vec!["--device", "sdz"],
            "device `sdz` is not in the capture (it has: vda, vda1)",
        ),
        (vec!["--window", "peak=12:00"], "--window"),
        (vec!["--utc-offset", "+25:00"], "--utc-offset"),
    ] {
        let mut all = vec!["requirements", "last", "--db", &db];
        all.extend(args);
        let out = diskmeter(&dir, &all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(says),
            "{all:?}"
        );
    }
    let out = diskmeter(&dir, &["requirements", "7", "--db", &db]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run 7"));
}

fn plan(dir: &TestDir, db: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["plan", "--from-capture", "last", "--db", db];
    args.extend(extra);
    diskmeter(dir, &args)
}

#[test]
fn plan_from_capture_grows_the_p99_level_and_says_where_figures_came_from() {
    let (dir, db) = seeded();
    // p99: 4,000 IOPS; +30 % = 5,200, more than one P30's 5,000.
    let one = plan(
        &dir,
        &db,
        &[
            "--level", "p99", "--growth", "30%", "--disks", "1xP30", "--cache", "None",
        ],
    );
    assert_eq!(
        one.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    let text = String::from_utf8_lossy(&one.stdout);
    assert!(text.contains("5,200 IOPS"), "{text}");
    assert!(
        text.contains("the capture's p99 level + 30% growth"),
        "{text}"
    );
    assert!(text.contains("Figures from the capture:"), "{text}");
    assert!(text.contains("capture 1: IOPS total p99 4000"), "{text}");
    let two = plan(
        &dir,
        &db,
        &[
            "--level",
            "p99",
            "--growth",
            "30%",
            "--disks",
            "2xP30",
            "--cache",
            "None",
            "--format=json",
        ],
    );
    let json: Value = serde_json::from_str(&ok(two)).unwrap();
    let demand = &json["demand"];
    assert!(near(&demand["iops"], 5200.0), "{demand}");
    assert_eq!(demand["level"], "p99");
    assert_eq!(demand["read_bs_bytes"], 8192);
    assert_eq!(demand["write_bs_bytes"], 65536);
    assert!(demand["random_fraction"].is_null());
    // p50 without growth: 1,500 IOPS fit one P30; a --workload key replaces a capture figure.
    let p50 = plan(
        &dir,
        &db,
        &[
            "--level",
            "p50",
            "--disks",
            "1xP30",
            "--cache",
            "None",
            "--workload",
            "qd=4",
            "--format=json",
        ],
    );
    let json: Value = serde_json::from_str(&ok(p50)).unwrap();
    assert!(near(&json["demand"]["iops"], 1500.0));
    assert_eq!(json["demand"]["queue_depth"], 4);
    let bad = plan(&dir, &db, &["--level", "p95", "--disks", "1xP30"]);
    assert_eq!(bad.status.code(), Some(2));
    let optimised = plan(&dir, &db, &["--optimize", "cost", "--top", "1"]);
    assert!(ok(optimised).contains("Figures from the capture:"));
}

#[test]
fn a_traced_capture_fills_the_rows_counters_cannot() {
    let dir = TestDir::new();
    let db = dir.path().join("history.db");
    seed::seed_traced_capture(&db);
    let db = db.to_str().unwrap();
    let text = ok(diskmeter(
        &dir,
        &["requirements", "last", "--format=json", "--db", db],
    ));
    let json: Value = serde_json::from_str(&text).unwrap();
    let rows = &json["rows"];
    assert_eq!(row(rows, "random_percent")["p90"], 30.0);
    let size = row(rows, "io_size_read_kib");
    assert_eq!(
        (&size["p50"], &size["p90"], &size["max"]),
        (&8.0.into(), &64.0.into(), &64.0.into())
    );
    // The counters' mean (every IO of the capture) stands beside the trace's percentiles.
    assert!(near(&size["mean"], 8.0));
    assert_eq!(row(rows, "device_latency_read_ms")["p99"], 2.0);
    assert!(row(rows, "device_latency_write_ms")["p50"].is_null());
    let plan = ok(diskmeter(
        &dir,
        &[
            "plan",
            "--from-capture",
            "last",
            "--db",
            db,
            "--disks",
            "2xP30",
            "--format=json",
        ],
    ));
    let plan: Value = serde_json::from_str(&plan).unwrap();
    assert!(near(&plan["demand"]["random_fraction"], 0.3));
    assert_eq!(plan["stripe"]["stripe_kib"], 256, "mostly sequential IO");
}
