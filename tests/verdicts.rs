//! Issue 27's verdicts on real parts: the guide's loop (fio as the application on a loop
//! device, captured with a trace, replayed at p90 on another loop device, checked against the
//! capture at p90) is met or within noise every time, and missed when the replay is held
//! below the level; the checklist's per-IO latency agrees with fio's own clat percentiles.
//! (A paced run stalled by SIGSTOP is tests/check.rs's.)
//!
//! Every figure here is judged second by second or per IO, so the binary runs alone
//! (scripts/run-tests, ALONE), on loop devices in memory (no host-disk journal under them).

mod common;

use common::{fio_command, fio_json, real_io, require_root, LoopDevice, TestDir};
use serde_json::Value;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// `diskmeter ARGS --db DB` in `dir`.
fn diskmeter(dir: &TestDir, db: &Path, args: &[&str]) -> Output {
    let db = db.to_str().expect("a UTF-8 path");
    let with_db: Vec<&str> = args.iter().copied().chain(["--db", db]).collect();
    common::diskmeter(dir.path(), &with_db)
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn ok_json(output: Output) -> Value {
    serde_json::from_str(&common::ok(output)).expect("JSON")
}

/// The application: fio at a fixed 1,400 reads/s + 600 writes/s (8 KiB reads, 16 KiB writes,
/// QD 8) on `device` for `seconds`, captured with a trace for `capture_seconds` from a second
/// in. Returns the capture's id and fio's JSON document.
fn capture_the_application(
    dir: &TestDir,
    db: &Path,
    device: &LoopDevice,
    seconds: u64,
    capture_seconds: u64,
) -> Option<(String, Value)> {
    let name = device.dev.trim_start_matches("/dev/").to_string();
    let mut fio = fio_command("the guide's loop", dir.path())?;
    fio.args([
        "--name=app",
        "--ioengine=libaio",
        "--direct=1",
        "--rw=randrw",
        "--rwmixread=70",
        "--bs=8k,16k",
        "--rate_iops=1400,600",
        "--iodepth=8",
        "--time_based",
        &format!("--runtime={seconds}"),
        &format!("--filename={}", device.dev),
    ]);
    let app = std::thread::spawn(move || fio_json(&mut fio));
    std::thread::sleep(Duration::from_millis(800));
    let captured = diskmeter(
        dir,
        db,
        &[
            "capture",
            "--trace",
            "--device",
            &name,
            "--duration",
            &format!("{capture_seconds}s"),
            "--quiet",
        ],
    );
    let did = app.join().expect("fio");
    assert!(captured.status.success(), "{}", text(&captured));
    let listed = ok_json(diskmeter(
        dir,
        db,
        &["history", "--kind", "capture", "--format", "json"],
    ));
    let id = listed[0]["id"].as_i64().expect("a capture").to_string();
    Some((id, did))
}

fn replay(dir: &TestDir, db: &Path, id: &str, target: &LoopDevice, extra: &[&str]) -> Value {
    let mut args = vec![
        "replay",
        id,
        "--level",
        "p90",
        &target.dev,
        "--allow-destroy",
        "--size",
        "100m",
        "--runtime",
        "4",
        "--quiet",
        "--output-format",
        "json",
    ];
    args.extend(extra);
    ok_json(diskmeter(dir, db, &args))
}

/// fio's clat percentile `key` ("90.000000") of `direction`, ms.
fn fio_clat_ms(did: &Value, direction: &str, key: &str) -> f64 {
    did["jobs"][0][direction]["clat_ns"]["percentile"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("fio has no {direction} clat p{key}: {did}"))
        / 1e6
}

#[test]
fn the_guides_loop_is_met_or_within_noise_every_time_and_a_replay_held_below_is_missed() {
    let _turn = real_io();
    if !require_root("capture --trace and loop devices") {
        return;
    }
    let mut verdicts = Vec::new();
    let mut latency_disagreements = Vec::new();
    for repetition in 1..=5 {
        let dir = TestDir::in_memory();
        let db = dir.path().join("h.db");
        let app_device = LoopDevice::new_direct(dir.path(), "app", 128);
        let target = LoopDevice::new_direct(dir.path(), "target", 128);
        let Some((id, did)) = capture_the_application(&dir, &db, &app_device, 2, 1) else {
            return;
        };
        if repetition == 1 {
            // The checklist's per-IO read latency (the trace, at the device) against fio's own
            // clat percentiles for the same IOs: within max(10 %, 20 us) at p50; at p90 and p99
            // fio's clat also holds the wake-up that hands it the completion, which on this
            // project's VMs comes tens of us late at the tail, so there within the allowance
            // `check` gives a capture's latency (max(0.15 ms, 10 %)).
            let reqs = ok_json(diskmeter(
                &dir,
                &db,
                &["requirements", &id, "--format", "json"],
            ));
            let row = reqs["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["metric"] == "device_latency_read_ms")
                .unwrap_or_else(|| panic!("no per-IO read latency row: {reqs:#}"))
                .clone();
            for (level, key) in [
                ("p50", "50.000000"),
                ("p90", "90.000000"),
                ("p99", "99.000000"),
            ] {
                let traced = row[level].as_f64().expect("traced per-IO latency");
                let fio = fio_clat_ms(&did, "read", key);
                let bound = if level == "p50" {
                    (fio * 0.10).max(0.020)
                } else {
                    (fio * 0.10).max(0.150)
                };
                eprintln!("read latency {level}: trace {traced:.4} ms, fio clat {fio:.4} ms");
                if (traced - fio).abs() > bound {
                    latency_disagreements.push(format!(
                        "{level}: the trace says {traced:.4} ms, fio's clat {fio:.4} ms (bound {bound:.4})"
                    ));
                }
            }
        }
        let replayed = replay(&dir, &db, &id, &target, &[]);
        let job = &replayed["jobs"][0];
        let checked = diskmeter(
            &dir,
            &db,
            &["check", "last", "--capture", &id, "--level", "p90"],
        );
        let said = text(&checked);
        eprintln!(
            "repetition {repetition}: replayed {:.0} r/s + {:.0} w/s\n{said}",
            job["read"]["iops"].as_f64().unwrap_or(0.0),
            job["write"]["iops"].as_f64().unwrap_or(0.0)
        );
        assert!(
            !said.contains("MISSED") && !said.contains("NOT MEASURED"),
            "repetition {repetition}: {said}"
        );
        assert_eq!(checked.status.code(), Some(0), "{said}");
        verdicts.push(said);

        if repetition == 5 {
            // The same replay held to 80 % of the level, and to a third of it (a device three
            // times slower than the application's): missed, saying how far behind it fell.
            let level: f64 = ["read", "write"]
                .iter()
                .map(|d| job[d]["iops"].as_f64().unwrap_or(0.0))
                .sum();
            for share in [0.8, 1.0 / 3.0] {
                let cap = format!("{:.0}", level * share);
                replay(&dir, &db, &id, &target, &["--throttle-iops", &cap]);
                let held = diskmeter(
                    &dir,
                    &db,
                    &["check", "last", "--capture", &id, "--level", "p90"],
                );
                let said = text(&held);
                eprintln!("held to {cap} IOPS:\n{said}");
                assert_eq!(held.status.code(), Some(1), "{said}");
                let line = said
                    .lines()
                    .find(|l| l.contains(" iops >= "))
                    .unwrap_or_else(|| panic!("no total IOPS line: {said}"));
                assert!(line.starts_with("MISSED"), "{said}");
                assert!(
                    line.contains("fell behind its pacing") && line.contains("intended issue"),
                    "{line}"
                );
            }
        }
    }
    assert_eq!(verdicts.len(), 5);
    assert!(
        latency_disagreements.is_empty(),
        "{latency_disagreements:#?}"
    );
}
