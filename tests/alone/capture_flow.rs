//! The guide's whole loop on real parts (issue 14's acceptance): an application (a known
//! diskmeter workload) on a loop device is captured with counters and a block trace; the
//! trace gives back the workload's size split, read share and random share; the checklist
//! gives its rates; a replay at p90 on an emulated P30 runs that level; `check` judges it.

use crate::common;

use common::{real_io, require_root, LoopDevice, TestDir};
use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};

fn diskmeter(dir: &TestDir, db: &Path, args: &[&str]) -> Output {
    common::diskmeter_with_db(dir.path(), db, args)
}

fn ok_json(output: Output) -> Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

fn within(measured: f64, expected: f64, fraction: f64) -> bool {
    (measured - expected).abs() <= expected * fraction
}

#[test]
fn capture_trace_requirements_replay_and_check_close_the_loop() {
    let _turn = real_io();
    if !require_root("capture --trace, loop devices and --emulate") {
        return;
    }
    // In memory: the loop devices under the application and under the emulated P30 then
    // wait on no journal of the host disk, and the replay, which keeps only the captured
    // queue depth in flight (aqu-sz rounded up: 1 to 4 here), can hold the level through the
    // whole run.
    let dir = TestDir::in_memory();
    let db = dir.path().join("h.db");
    let device = LoopDevice::new_direct(dir.path(), "app", 256);
    let name = device.dev.trim_start_matches("/dev/").to_string();
    // Every IO one request at the device, so it sees what the application issued.
    std::fs::write(format!("/sys/block/{name}/queue/nomerges"), "2").unwrap();

    // The application: 70/30, 8k/60:64k/40, 30 % random, 2,000 IOPS (1,400 + 600), QD 8.
    let app = common::process()
        .current_dir(dir.path())
        .args([
            "run",
            "--quiet",
            "--no-save",
            "--allow-destroy",
            "--name=app",
            "--output-format=json",
            "--rw=randrw",
            "--rwmixread=70",
            "--bssplit=8k/60:64k/40",
            "--percentage_random=30",
            "--rate_iops=1400,600",
            "--iodepth=8",
            "--direct=1",
            "--time_based",
            "--runtime=8",
            "--filename",
            &device.dev,
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // The capture sees whole seconds of it (the run starts within its first interval).
    let captured = diskmeter(
        &dir,
        &db,
        &[
            "capture",
            "--trace",
            "--device",
            &name,
            "--duration",
            "6s",
            "--quiet",
        ],
    );
    let app = app.wait_with_output().unwrap();
    assert!(app.status.success());
    let did: Value = serde_json::from_slice(&app.stdout).expect("the application's JSON");
    // The depth the application kept (fio's "IO depths": in flight at each submit), p50.
    let mut cumulative = 0.0;
    let app_depth_p50: f64 = did["jobs"][0]["depth"]["iodepth"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|bucket| {
            cumulative += bucket["percent"].as_f64().unwrap();
            (cumulative >= 50.0).then(|| bucket["label"].as_str().unwrap().parse().unwrap())
        })
        .unwrap();
    assert!(
        captured.status.success(),
        "{}",
        String::from_utf8_lossy(&captured.stderr)
    );

    // The trace gives back what the application did.
    let listed = ok_json(diskmeter(
        &dir,
        &db,
        &["history", "--kind", "capture", "--format", "json"],
    ));
    let id = listed[0]["id"].as_i64().expect("a capture").to_string();
    let reqs = ok_json(diskmeter(
        &dir,
        &db,
        &["requirements", &id, "--format", "json"],
    ));
    let row = |metric: &str| -> &Value {
        reqs["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["metric"] == metric)
            .unwrap_or_else(|| panic!("no row {metric}: {reqs:#}"))
    };
    let random = row("random_percent")["p50"].as_f64().expect("traced");
    assert!((random - 30.0).abs() <= 5.0, "random {random} %");
    let p90_reads = row("iops_read")["p90"].as_f64().unwrap();
    let p90_writes = row("iops_write")["p90"].as_f64().unwrap();
    assert!(
        within(p90_reads, 1400.0, 0.03) && within(p90_writes, 600.0, 0.03),
        "p90 {p90_reads} r/s + {p90_writes} w/s"
    );
    // Under its rate cap the application keeps about one IO in flight (rate x latency), not
    // its iodepth of 8: the trace's depth at issue says what the application did.
    let traced_depth_p50 = row("device_queue_depth")["p50"].as_f64().expect("traced");
    assert!(
        (traced_depth_p50 - app_depth_p50).abs() <= 1.0,
        "traced QD p50 {traced_depth_p50}, the application's {app_depth_p50}"
    );
    let read_share = row("read_percent")["mean"].as_f64().unwrap();
    assert!((read_share - 70.0).abs() <= 5.0, "read {read_share} %");

    // Replay at p90 on an emulated P30 (5,000 IOPS, above the level) runs the level.
    let replayed = ok_json(diskmeter(
        &dir,
        &db,
        &[
            "replay",
            &id,
            "--level",
            "p90",
            "--emulate",
            "azure-p30",
            "--emulate-size",
            "256m",
            "--size",
            "256m",
            "--runtime",
            "5",
            "--quiet",
            "--output-format",
            "json",
        ],
    ));
    // The replay's jobs together (a traced sequential write stream is a job of its own).
    let jobs = replayed["jobs"].as_array().expect("the replay's jobs");
    let total = |direction: &str| -> f64 {
        jobs.iter()
            .map(|job| job[direction]["iops"].as_f64().unwrap())
            .sum()
    };
    let (reads, writes) = (total("read"), total("write"));
    let job = &jobs[0];
    // What the replay kept in flight and how late its IOs ended against their intended issue
    // times: a replay short of the level says with these figures why (rate x latency above
    // its iodepth, or a stall it could not make up).
    let depth = job["options"]
        .as_array()
        .and_then(|options| options.iter().find(|o| o["name"] == "iodepth"))
        .map_or(Value::Null, |o| o["value"].clone());
    let late_ms = |direction: &str, stat: &str| {
        job[direction]["lat_intended"][stat]
            .as_f64()
            .unwrap_or(f64::NAN)
            / 1e6
    };
    eprintln!(
        "captured p90 {p90_reads:.0} + {p90_writes:.0}; replayed {reads:.0} + {writes:.0} at \
         iodepth {depth}; from the intended issue time, read mean {:.2} ms max {:.1} ms, write \
         mean {:.2} ms max {:.1} ms",
        late_ms("read", "mean_ns"),
        late_ms("read", "max_ns"),
        late_ms("write", "mean_ns"),
        late_ms("write", "max_ns")
    );
    // Each direction is paced to carry both its p90 IOPS and its p90 MiB/s at the capture's
    // mean size (a size split's busy seconds carry bigger IOs, so the MiB/s level may need a
    // few percent more IOs than the IOPS level).
    let carried = |iops: f64, mibps_row: &str, size_row: &str| {
        let mibps = row(mibps_row)["p90"].as_f64().unwrap();
        let kib = row(size_row)["mean"].as_f64().unwrap();
        iops.max(mibps * 1024.0 / kib)
    };
    let (level_reads, level_writes) = (
        carried(p90_reads, "throughput_read_mibps", "io_size_read_kib"),
        carried(p90_writes, "throughput_write_mibps", "io_size_write_kib"),
    );
    assert!(
        within(reads, level_reads, 0.05) && within(writes, level_writes, 0.05),
        "replay ran {reads:.0} r/s + {writes:.0} w/s, the level (p90 IOPS, or p90 MiB/s at the \
         mean size) is {level_reads:.0} + {level_writes:.0}"
    );

    // check: the replay meets 95 % of the captured total rate (exit 0) and misses a rate it
    // cannot reach (exit 1). (Against the capture's own level, replayed at that level, the
    // verdict is a coin toss by design: tests/alone/check.rs judges capture levels.)
    let needed = format!("iops={:.0}", (p90_reads + p90_writes) * 0.95);
    let pass = diskmeter(&dir, &db, &["check", "last", "--require", &needed]);
    assert_eq!(
        pass.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&pass.stdout),
        String::from_utf8_lossy(&pass.stderr)
    );
    let miss = diskmeter(&dir, &db, &["check", "last", "--require", "iops=1000000"]);
    assert_eq!(
        miss.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&miss.stdout)
    );
}
