//! A capture of 24 hours at 1 s keeps bounded memory: the sampler, driven by a fake clock
//! through 86,400 intervals over fixture /proc files, ends with the resident memory it had
//! after the first thousand. Alone in its test binary, so no other test's allocations move
//! the figure.

use diskmeter_capture::procfs::ProcFiles;
use diskmeter_capture::sampler::{ManualClock, Sampler, SamplerConfig};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Resident memory of this process, KiB (`VmRSS` of /proc/self/status).
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in /proc/self/status")
}

#[test]
fn a_24_hour_capture_at_1_s_does_not_grow() {
    let proc = tempfile::tempdir().unwrap();
    let root = proc.path();
    std::fs::write(
        root.join("diskstats"),
        "   7 3 loop3 1 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n 254 0 vda 1 0 8 1 1 0 8 1 0 2 2 0 0 0 0 0 0\n",
    )
    .unwrap();
    std::fs::write(root.join("stat"), "cpu 1 0 1 10 0 0 0 0 0 0\n").unwrap();
    std::fs::write(
        root.join("meminfo"),
        "MemTotal: 1000 kB\nMemAvailable: 500 kB\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("pressure")).unwrap();
    std::fs::write(root.join("pressure/io"), "some total=1\nfull total=1\n").unwrap();

    let mut sampler = Sampler::new(
        ProcFiles::new(root),
        vec!["loop3".into(), "vda".into()],
        SamplerConfig {
            interval: Duration::from_secs(1),
            duration: Some(Duration::from_secs(86_400)),
        },
        ManualClock::new(1_000_000_000, 0),
    )
    .unwrap();
    let mut count = 0u64;
    let mut early_kib = 0;
    let mut json_bytes = 0usize;
    let end = sampler
        .run(&AtomicBool::new(false), |interval| {
            count += 1;
            // What the command does with each interval: the stored record, as JSON.
            json_bytes += serde_json::to_string(&interval.capture_sample())
                .unwrap()
                .len();
            if count == 1_000 {
                early_kib = resident_kib();
            }
        })
        .unwrap();
    let late_kib = resident_kib();
    assert_eq!(end.intervals, 86_400);
    assert!(json_bytes > 86_400 * 100, "every interval made a sample");
    // A leak of 4 bytes an interval would be 333 KiB by the end.
    assert!(
        late_kib <= early_kib + 256,
        "resident memory grew from {early_kib} KiB after 1,000 intervals to {late_kib} KiB after 86,400"
    );
}
