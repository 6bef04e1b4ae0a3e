//! Issue 27, item 2: a paced run's headline latency is from each IO's intended issue time.
//! A null-engine run paced at 1,000 IOPS for 3 s, stopped for 500 ms (SIGSTOP, SIGCONT):
//! the IOs due during the stop went out late, which issue-to-completion latency does not
//! see. The report's headline, `diskmeter show` and `diskmeter compare` against an unstalled
//! twin state the intended-time latency, labelled, and compare calls the regression.
//!
//! The null engine does no IO, so the disk under the test does not matter; the bounds are
//! the stall's own size (hundreds of ms) against its absence, not a measured rate.

use crate::common;

use common::TestDir;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const PACED: [&str; 9] = [
    "--name=paced",
    "--ioengine=null",
    "--rw=randread",
    "--bs=4k",
    "--size=16m",
    "--rate_iops=1000",
    "--runtime=3",
    "--time_based",
    "--quiet",
];

/// Runs the paced job in `dir` into history `db`; with `stall`, stops the process for 500 ms
/// a second into its run.
fn paced_run(dir: &Path, db: &str, stall: bool) {
    let mut child = common::process()
        .current_dir(dir)
        .args(["run", "--db", db])
        .args(PACED)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start diskmeter");
    if stall {
        let started = Instant::now();
        while !common::catches_sigint(child.id()) {
            assert!(started.elapsed() < Duration::from_secs(30), "no session");
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(1_000));
        // SAFETY: signals to our own child, which has not been waited for.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGSTOP);
        }
        std::thread::sleep(Duration::from_millis(500));
        unsafe {
            libc::kill(child.id() as i32, libc::SIGCONT);
        }
    }
    let status = child.wait().expect("wait for diskmeter");
    assert!(status.success(), "paced run failed: {status:?}");
}

fn ok_stdout(dir: &Path, args: &[&str]) -> String {
    let out = common::diskmeter(dir, args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A latency as the views print it ("474.7 ms", "3.19 us") in ns.
fn latency_ns(text: &str) -> f64 {
    let mut words = text.split_whitespace();
    let value: f64 = words.next().and_then(|v| v.parse().ok()).expect(text);
    value
        * match words.next() {
            Some("ns") => 1.0,
            Some("us") => 1e3,
            Some("ms") => 1e6,
            Some("s") => 1e9,
            other => panic!("unit {other:?} in {text}"),
        }
}

#[test]
fn issue27_a_stalled_paced_run_headlines_and_compares_its_intended_time_latency() {
    let work = TestDir::new();
    let dir = work.path();
    paced_run(dir, "h.db", true); // run 1: stalled
    paced_run(dir, "h.db", false); // run 2: its twin

    // The report's headline: labelled, and the stall's size.
    let html_path = dir.join("r.html");
    let html_arg = html_path.display().to_string();
    ok_stdout(dir, &["report", "1", "--db", "h.db", "-o", &html_arg]);
    let html = std::fs::read_to_string(&html_path).expect("the report");
    let at = html
        .find("mean intended-time latency ")
        .unwrap_or_else(|| panic!("no intended-time headline in the report"));
    let headline = &html[at..at + 120];
    let p99_text = headline
        .split(", p99 ")
        .nth(1)
        .and_then(|t| t.split(&['<', ','][..]).next())
        .unwrap_or_else(|| panic!("no p99 in {headline}"));
    let p99_ns = latency_ns(p99_text);
    assert!(
        p99_ns >= 200e6,
        "a 500 ms stall at 1,000 IOPS: p99 {p99_text} in {headline}"
    );

    // `show`'s table marks the clock.
    let shown = ok_stdout(dir, &["show", "1", "--db", "h.db"]);
    assert!(shown.contains("(intended)"), "{shown}");

    // compare: the twin as baseline, the stalled run slower on the intended-time p99.
    let out = common::diskmeter(dir, &["compare", "2", "1", "--db", "h.db"]);
    let compared = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a regression exits 1: {compared}"
    );
    let p99_row = compared
        .lines()
        .find(|l| l.contains("read p99 latency (intended)"))
        .unwrap_or_else(|| panic!("no intended p99 row:\n{compared}"));
    assert!(p99_row.contains("slower (regression)"), "{compared}");
    assert!(!compared.contains("| read p99 latency  "), "{compared}");
}
