//! Issue 30 through the binary: the current catalog across clouds, latency against the
//! published classes, and burst buckets played over a captured peak or a `--duration`.

use crate::common::{diskmeter, diskmeter_with_db, ok, TestDir};
use crate::seed;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn issue30_a_captured_90_minute_peak_empties_a_p10s_credits_at_minute_36_of_the_peak() {
    let dir = TestDir::new();
    let db = dir.path().join("history.db");
    let long = seed::seed_peak_capture(&db, 90).to_string();
    let short = seed::seed_peak_capture(&db, 10).to_string();

    // One P10: 500 IOPS, bursting to 3,500 from a bucket of (3,500 - 500) x 1,800 s. The
    // peak's 3,000 IOPS drain it at 2,500 a second: empty after 2,160 s, minute 36 of the
    // peak, then 500 IOPS for the peak's other 54 minutes.
    let args = [
        "plan",
        "--from-capture",
        &long,
        "--disks",
        "1xP10",
        "--cache",
        "None",
    ];
    let out = diskmeter_with_db(dir.path(), &db, &args);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for expected in [
        "P10 disk bucket: (3,500 - 500) x 30.0 min = 5,400,000 IOs",
        "36 min into the peak, drained at 3,000 - 500 = 2,500 IOs/s above the baseline: \
         5,400,000 / 2,500 = 36.0 min",
        "runs dry: 54 min of 1 h 50 min short of the demand",
        "latency not judged: the capture's",
        "Verdict: 1 x P10 does NOT meet the demand",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }

    // The optimiser recommends what never runs dry and lists the cheaper ones that would.
    let args = [
        "plan",
        "--from-capture",
        &long,
        "--optimize",
        "cost",
        "--disks",
        "P10",
        "--top",
        "3",
        "--format",
        "json",
    ];
    let answer: serde_json::Value =
        serde_json::from_str(&ok(diskmeter_with_db(dir.path(), &db, &args))).unwrap();
    let best = &answer["priced"][0];
    let lines = |c: &serde_json::Value| -> Vec<String> {
        c["burst"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        lines(best).iter().any(|l| l.starts_with("never runs dry")),
        "{best}"
    );
    assert!(best["price"].as_array().is_some_and(|p| !p.is_empty()));
    assert!(best["sources"].as_array().is_some_and(|s| !s.is_empty()));
    let dry = answer["ran_dry"].as_array().unwrap();
    assert!(
        dry.iter()
            .any(|c| lines(c).iter().any(|l| l.contains("into the peak"))),
        "{answer}"
    );

    // A 10-minute peak is carried by the same disk's credits.
    let args = [
        "plan",
        "--from-capture",
        &short,
        "--disks",
        "1xP10",
        "--cache",
        "None",
    ];
    let text = ok(diskmeter_with_db(dir.path(), &db, &args));
    assert!(text.contains("meets the demand by bursting"), "{text}");
    assert!(text.contains("never runs dry over 30 min"), "{text}");

    // The same requirement typed, for a duration.
    let typed = |duration: &str| {
        diskmeter(
            dir.path(),
            &[
                "plan",
                "--require",
                "iops=3000,bs=8k",
                "--duration",
                duration,
                "--disks",
                "1xP10",
                "--cache",
                "None",
            ],
        )
    };
    let out = typed("10m");
    assert!(out.status.success(), "{}", stdout(&out));
    let out = typed("90m");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("36 min into the peak"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn issue30_a_latency_bound_excludes_slower_classes_and_no_bound_says_latency_was_not_judged() {
    let dir = TestDir::new();
    let plan = |require: &str| {
        ok(diskmeter(
            dir.path(),
            &[
                "plan",
                "--require",
                require,
                "--optimize",
                "cost",
                "--top",
                "2",
                "--format",
                "json",
            ],
        ))
    };
    let answer: serde_json::Value =
        serde_json::from_str(&plan("iops=16000,bs=8k,read=70%,latency=1ms")).unwrap();
    let latency = answer["latency"].as_str().unwrap();
    assert!(
        latency.contains("excludes") && latency.contains("S80"),
        "{latency}"
    );
    for list in ["priced", "unpriced", "unbounded"] {
        for c in answer[list].as_array().unwrap() {
            let judged = c["latency"].as_str().unwrap();
            assert!(judged.contains("within the bound"), "{judged}");
        }
    }
    let answer: serde_json::Value = serde_json::from_str(&plan("iops=16000,bs=8k")).unwrap();
    assert!(
        answer["latency"]
            .as_str()
            .unwrap()
            .starts_with("latency not judged: the requirement has no latency bound"),
        "{}",
        answer["latency"]
    );
    // A bad flag is a usage error.
    let out = diskmeter(
        dir.path(),
        &[
            "plan",
            "--require",
            "iops=1",
            "--duration",
            "soon",
            "--disks",
            "P10",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--duration"));
}
