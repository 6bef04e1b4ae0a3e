//! A database-like application replayed (issue 27's acceptance): small log appends with an
//! fdatasync each beside random 8 KiB page reads and writes, on ext4 on a loop device, captured
//! with `--trace`; the p50 level replay agrees with it in iostat's r/s, w/s, f/s and request
//! sizes, and the exact replay issues its flushes.

use crate::common;

use common::{real_io, replay, require_root};
use std::path::Path;

/// What `iostat -x` counted on one device over a run's seconds: the mean rates of its
/// intervals and the mean request sizes over all of them (KiB per request, as iostat's
/// `rareq-sz` over the whole span).
#[derive(Debug, Clone, Copy)]
struct Counted {
    reads_per_sec: f64,
    writes_per_sec: f64,
    flushes_per_sec: f64,
    read_request_kib: f64,
    write_request_kib: f64,
}

/// `iostat -x -y -d DEVICE 1 SECONDS -o JSON`, started now.
fn iostat(device: &str, seconds: u32) -> std::process::Child {
    std::process::Command::new("iostat")
        .args([
            "-x",
            "-y",
            "-d",
            device,
            "1",
            &seconds.to_string(),
            "-o",
            "JSON",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start iostat")
}

/// The figures of an [`iostat`] run, once it has ended.
fn counted(iostat: std::process::Child) -> Counted {
    let out = iostat.wait_with_output().expect("iostat");
    assert!(out.status.success(), "iostat failed");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("iostat's JSON");
    let intervals = v["sysstat"]["hosts"][0]["statistics"]
        .as_array()
        .expect("iostat's intervals");
    assert!(!intervals.is_empty(), "iostat gave no interval: {v}");
    let sum = |key: &str| -> f64 {
        intervals
            .iter()
            .map(|i| i["disk"][0][key].as_f64().unwrap_or(0.0))
            .sum()
    };
    let n = intervals.len() as f64;
    Counted {
        reads_per_sec: sum("r/s") / n,
        writes_per_sec: sum("w/s") / n,
        flushes_per_sec: sum("f/s") / n,
        read_request_kib: sum("rkB/s") / sum("r/s"),
        write_request_kib: sum("wkB/s") / sum("w/s"),
    }
}

/// Flushes `/proc/diskstats` has counted on `device` (the 15th statistic, what iostat's
/// `f/s` is made of).
fn flushes_counted(device: &str) -> u64 {
    let stats = std::fs::read_to_string("/proc/diskstats").unwrap();
    stats
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.get(2) == Some(&device))
        .and_then(|f| f.get(18).and_then(|n| n.parse().ok()))
        .expect("the device's flush count (Linux 4.18 or later)")
}

#[test]
fn a_database_like_application_replays_with_its_flushes_sizes_and_rates() {
    // Issue 27's acceptance: a database-like application (tests/jobs/db-like-app.fio: small
    // log appends with an fdatasync each, beside random 8 KiB page reads and writes) on ext4
    // on a loop device, captured with --trace; replayed at p50 on another loop device, both
    // counted by iostat -x, r/s, w/s, f/s, rareq-sz and wareq-sz agree within 15 %; the exact
    // replay issues the application's flushes within 2 %.
    let _turn = real_io();
    let test = "a_database_like_application_replays_with_its_flushes_sizes_and_rates";
    if !require_root(test)
        || !common::require_tool(test, "fio")
        || !common::require_tool(test, "iostat")
        || !common::require_tool(test, "mkfs.ext4")
    {
        return;
    }
    let dir = common::TestDir::in_memory();
    let db = dir.path().join("h.db");
    let mut app_device = common::LoopDevice::new(dir.path(), "app", 256);
    let target = common::LoopDevice::new(dir.path(), "replay", 256);
    let app_name = app_device.dev.trim_start_matches("/dev/").to_string();
    let target_name = target.dev.trim_start_matches("/dev/").to_string();
    // Inode tables and journal written now, not by ext4lazyinit during the capture.
    common::sh(&format!(
        "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 {}",
        app_device.dev
    ));
    let mount = dir.path().join("mnt");
    app_device.mount(&mount);
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jobs/db-like-app.fio");
    let fio = |runtime: &str, extra: &[&str]| {
        let mut fio = std::process::Command::new("fio");
        fio.current_dir(dir.path())
            .env("DM_DIR", &mount)
            .env("DM_RUNTIME", runtime)
            .arg(&job)
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        fio
    };
    // The files are laid out first, so the capture sees the application, not its setup.
    let laid = fio("1", &["--create_only=1"]).output().unwrap();
    assert!(
        laid.status.success(),
        "{}",
        String::from_utf8_lossy(&laid.stderr)
    );
    common::sh("sync");

    const SECONDS: u32 = 5;
    let app = fio("8", &[]).spawn().unwrap();
    // A second for fio to start its jobs, then the capture and iostat over the same seconds.
    std::thread::sleep(std::time::Duration::from_secs(1));
    let app_iostat = iostat(&app_name, SECONDS);
    let captured = common::process()
        .current_dir(dir.path())
        .args(["capture", "--trace", "--device", &app_name, "--duration"])
        .arg(format!("{SECONDS}s"))
        .args(["--quiet", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let application = counted(app_iostat);
    let app = app.wait_with_output().unwrap();
    assert!(
        app.status.success(),
        "{}",
        String::from_utf8_lossy(&app.stderr)
    );
    assert!(
        captured.status.success(),
        "{}",
        String::from_utf8_lossy(&captured.stderr)
    );
    assert!(
        application.flushes_per_sec > 20.0,
        "the application flushes: {application:?}"
    );

    // The level replay at p50, counted over its own seconds.
    let mut replayed = common::process();
    replayed
        .current_dir(dir.path())
        .args(["replay", "--db"])
        .arg(&db)
        .args([
            "last",
            "--level",
            "p50",
            &target.dev,
            "--allow-destroy",
            "--size",
            "128m",
            "--runtime",
            "7",
            "--no-save",
            "--quiet",
            "--emit-fio",
            "p50.fio",
        ]);
    let replaying = replayed
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(1));
    let replay_counted = counted(iostat(&target_name, SECONDS));
    let replaying = replaying.wait_with_output().unwrap();
    assert!(
        replaying.status.success(),
        "{}",
        String::from_utf8_lossy(&replaying.stderr)
    );
    let job_file = std::fs::read_to_string(dir.path().join("p50.fio")).unwrap();
    eprintln!("application {application:?}\nreplay at p50 {replay_counted:?}\n{job_file}");
    let (a, r) = (application, replay_counted);
    for (what, app, replayed) in [
        ("r/s", a.reads_per_sec, r.reads_per_sec),
        ("w/s", a.writes_per_sec, r.writes_per_sec),
        ("f/s", a.flushes_per_sec, r.flushes_per_sec),
        ("rareq-sz", a.read_request_kib, r.read_request_kib),
        ("wareq-sz", a.write_request_kib, r.write_request_kib),
    ] {
        assert!(
            (replayed - app).abs() <= app * 0.15,
            "{what}: the replay's {replayed:.2} against the application's {app:.2} (15 %)\n\
             {job_file}"
        );
    }

    // The exact replay: every traced flush is a sync action of the log, an fsync of the
    // target, one flush each. The application's flushes over the captured seconds are the
    // capture's own counters (f/s mean x its seconds).
    let reqs: serde_json::Value = serde_json::from_slice(
        &common::process()
            .current_dir(dir.path())
            .args(["requirements", "last", "--format", "json", "--db"])
            .arg(&db)
            .output()
            .unwrap()
            .stdout,
    )
    .expect("requirements JSON");
    let mean_flushes = reqs["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "flushes_per_sec")
        .and_then(|r| r["mean"].as_f64())
        .expect("the flushes row");
    let app_flushes = mean_flushes * f64::from(SECONDS);
    let before = flushes_counted(&target_name);
    let exact = replay(
        &dir,
        &db,
        &[
            "last",
            "--exact",
            &target.dev,
            "--allow-destroy",
            "--no-save",
            "--quiet",
        ],
    )
    .output()
    .unwrap();
    assert!(
        exact.status.success(),
        "{}",
        String::from_utf8_lossy(&exact.stderr)
    );
    let exact_flushes = (flushes_counted(&target_name) - before) as f64;
    eprintln!("application {app_flushes:.0} flushes, exact replay {exact_flushes:.0}");
    assert!(
        (exact_flushes - app_flushes).abs() <= app_flushes * 0.02,
        "the exact replay's {exact_flushes} flushes against the application's {app_flushes:.0}"
    );
}
