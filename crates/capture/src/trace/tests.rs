//! The aggregation fed with literal `trace_pipe` lines, as the kernel prints them: what a
//! profile says about a known little trace, what it says is lost, and the iolog it writes.

use std::fs::File;
use std::sync::Arc;

use super::aggregate::{DeviceAggregator, Limits};
use super::reader::{Reader, ReaderOutput, Shared, Source, TracedDevice, END_MARKER, START_MARKER};
use crate::{SizeShare, TraceProfile};

const LIMITS: Limits = Limits {
    in_flight: 1024,
    streams: 64,
    sizes: 16,
    processes: 16,
    top_processes: 10,
    regions: 1 << 16,
    timestamp_resolution_ns: 1_000,
};

/// A marker line at `micros` µs.
fn marker(micros: u64, text: &str) -> String {
    format!(
        "       diskmeter-1     [000] .....  {}.{:06}: tracing_mark_write: {text}",
        micros / 1_000_000,
        micros % 1_000_000
    )
}

/// An issue line of `pid`/`comm` on 7,0 at `micros` µs.
fn issue(micros: u64, pid: u32, comm: &str, rwbs: &str, sector: u64, bytes: u64) -> String {
    format!(
        "  {comm}-{pid}  [001] .....  {}.{:06}: block_rq_issue: 7,0 {rwbs} {bytes} () {sector} + {} be,0,4 [{comm}]",
        micros / 1_000_000,
        micros % 1_000_000,
        bytes / 512
    )
}

/// A completion line on 7,0 at `micros` µs.
fn complete(micros: u64, rwbs: &str, sector: u64, sectors: u64) -> String {
    format!(
        "  <idle>-0  [000] ..s1.  {}.{:06}: block_rq_complete: 7,0 {rwbs} () {sector} + {sectors} be,0,4 [0]",
        micros / 1_000_000,
        micros % 1_000_000
    )
}

/// Runs `lines` through a reader of device 7,0 (`loop0`, 1 GiB, `preexisting` requests in
/// flight), with an iolog at `iolog` if given.
fn trace(
    lines: &[String],
    preexisting: u64,
    iolog: Option<&std::path::Path>,
) -> (TraceProfile, ReaderOutput) {
    let devices = vec![TracedDevice {
        disk: (7, 0),
        first_sector: 0,
        end_sector: u64::MAX,
        name: "loop0".to_string(),
        counters: DeviceAggregator::new("loop0", Some(1 << 30), preexisting, LIMITS),
    }];
    let shared = Arc::new(Shared::default());
    let pipe = File::open("/dev/null").expect("open /dev/null");
    let source = Source::Text(pipe, "/dev/null".into());
    let mut reader = Reader::new(source, devices, iolog, Arc::clone(&shared)).expect("a reader");
    let mut text = lines.join("\n");
    text.push('\n');
    // In two pieces cut mid-line, as reads of the pipe may be.
    let cut = text.len() / 2;
    let mut rest = Vec::from(&text.as_bytes()[..cut]);
    let end = rest.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    reader.consume(&rest[..end]);
    rest.drain(..end);
    rest.extend_from_slice(&text.as_bytes()[cut..]);
    reader.consume(&rest);
    shared
        .stop
        .store(true, std::sync::atomic::Ordering::Release);
    let output = reader.run().expect("the reader stops cleanly");
    let profile = output.devices[0].profile(
        0,
        output.iolog_path.as_ref().map(|p| p.display().to_string()),
    );
    (profile, output)
}

#[test]
fn a_known_trace_gives_its_sizes_mix_randomness_depth_and_latency() {
    let lines = vec![
        marker(1_000_000, START_MARKER),
        // fio reads 8 KiB at 0 then 8 KiB at 16 (sequential), writes 64 KiB at 1000 (its
        // write stream's first IO: random), reads 64 KiB at 5000 (a jump: random).
        issue(1_000_010, 100, "fio", "R", 0, 8192),
        issue(1_000_020, 100, "fio", "R", 16, 8192),
        issue(1_000_030, 100, "fio", "WS", 1000, 65536),
        complete(1_000_110, "R", 0, 16),
        complete(1_000_220, "R", 16, 16),
        complete(1_000_330, "WS", 1000, 128),
        issue(1_000_400, 100, "fio", "R", 5000, 65536),
        complete(1_000_500, "R", 5000, 128),
        marker(1_001_000, END_MARKER),
    ];
    let (profile, output) = trace(&lines, 0, None);
    assert_eq!(output.events, 8);
    assert_eq!(profile.device, "loop0");
    assert_eq!(profile.duration_ns, 1_000_000);
    assert_eq!(profile.ios, 4);
    assert_eq!(profile.lost_events, 0);
    assert_eq!(
        (profile.read.ios, profile.read.bytes),
        (3, 8192 * 2 + 65536)
    );
    assert_eq!((profile.write.ios, profile.write.bytes), (1, 65536));
    assert_eq!(
        profile.read.sizes,
        vec![
            SizeShare {
                bytes: 8192,
                ios: 2
            },
            SizeShare {
                bytes: 65536,
                ios: 1
            }
        ]
    );
    // The first read, the first write and the jump are random; the second read is not.
    assert_eq!(profile.random_fraction, 0.75);
    assert_eq!(profile.read.random_fraction, 2.0 / 3.0);
    assert_eq!(profile.write.random_fraction, 1.0);
    // Depth at each issue, the issued request included: 1, 2, 3, then 1.
    assert_eq!(profile.queue_depth.count, 4);
    assert_eq!(profile.queue_depth.max, 3.0);
    assert_eq!(profile.queue_depth.mean, 7.0 / 4.0);
    // Latencies: reads 100, 200 and 100 µs, the write 300 µs (to 0.1 %).
    let close = |a: f64, b: f64| (a - b).abs() <= b * 0.001;
    assert!(
        close(profile.read.latency_ns.max, 200_000.0),
        "{:?}",
        profile.read.latency_ns
    );
    assert!(close(profile.read.latency_ns.p50, 100_000.0));
    assert!(close(profile.write.latency_ns.p50, 300_000.0));
    assert_eq!(profile.read.latency_ns.relative_error, 0.001);
    // Issues 10 µs, 10 µs, then 370 µs apart.
    assert_eq!(profile.interarrival_ns.count, 3);
    assert!(close(profile.interarrival_ns.max, 370_000.0));
    assert_eq!(profile.processes.len(), 1);
    assert_eq!(
        (
            profile.processes[0].command.as_str(),
            profile.processes[0].pid,
            profile.processes[0].ios
        ),
        ("fio", 100, 4)
    );
    assert_eq!(profile.details.timestamp_resolution_ns, 1_000);
}

#[test]
fn the_hot_set_counts_regions_of_the_device() {
    let mut lines = vec![marker(1, START_MARKER)];
    // 8 IOs to the first 64 KiB region, 1 each to two more: 80 % in 1 of 3 regions.
    let mut t = 10;
    for (sector, n) in [(0u64, 8), (128 * 10, 1), (128 * 20, 1)] {
        for _ in 0..n {
            lines.push(issue(t, 7, "db", "R", sector, 4096));
            lines.push(complete(t + 5, "R", sector, 8));
            t += 10;
        }
    }
    lines.push(marker(t, END_MARKER));
    let (profile, _) = trace(&lines, 0, None);
    assert_eq!(profile.hot_set.region_bytes, 64 * 1024);
    assert_eq!(profile.hot_set.working_set_bytes, 3 * 64 * 1024);
    assert_eq!(profile.hot_set.share_for_80_percent_of_ios, 1.0 / 3.0);
    assert_eq!(
        profile.hot_set.device_share_for_80_percent_of_ios,
        Some(64.0 * 1024.0 / (1u64 << 30) as f64)
    );
}

#[test]
fn unpaired_and_unreadable_events_are_counted_as_lost() {
    let lines = vec![
        marker(1, START_MARKER),
        issue(3, 1, "fio", "R", 0, 4096),
        // Completions whose issue was not seen: in the first second, requests in flight
        // before the events were on (one known from `inflight`, one issued around the
        // moment it was read); later, a lost issue.
        complete(5, "R", 900, 8),
        complete(6, "R", 901, 8),
        complete(1_500_000, "R", 902, 8),
        "  fio-1  [001] .....  1.500011: block_rq_issue: 7,0 R 4096 () 8 +".to_string(),
        "CPU:1 [LOST 7 EVENTS]".to_string(),
        marker(2_000_000, END_MARKER),
        // Issued after the end: not counted, not lost.
        issue(2_000_030, 1, "fio", "R", 64, 4096),
    ];
    let (profile, output) = trace(&lines, 1, None);
    assert_eq!(profile.details.unmatched_completions, 1);
    assert_eq!(
        profile.details.unmatched_issues, 1,
        "the issue at 0 never completed"
    );
    assert_eq!(output.unreadable_events, 1);
    assert_eq!(output.lost_in_text, 7);
    assert_eq!(profile.lost_events, 2);
    assert_eq!(profile.ios, 0);
    // Depth at the one issue: itself plus the request in flight before the start.
    assert_eq!(profile.queue_depth.max, 2.0);
}

#[test]
fn two_requests_for_the_same_place_in_flight_are_both_paired() {
    let lines = vec![
        marker(1, START_MARKER),
        issue(10, 1, "fio", "W", 800, 8192),
        issue(20, 2, "fio", "W", 800, 8192),
        complete(110, "W", 800, 16),
        complete(220, "W", 800, 16),
        marker(300, END_MARKER),
    ];
    let (profile, _) = trace(&lines, 0, None);
    assert_eq!(profile.write.ios, 2);
    assert_eq!(profile.lost_events, 0);
    assert_eq!(profile.queue_depth.max, 2.0);
    // Oldest first: 100 and 200 µs.
    assert!((profile.write.latency_ns.max - 200_000.0).abs() <= 200.0);
}

#[test]
fn a_partial_completion_waits_for_the_rest() {
    let lines = vec![
        marker(1, START_MARKER),
        issue(10, 1, "fio", "W", 100, 65536),
        complete(20, "W", 100, 64),
        complete(40, "W", 164, 64),
        marker(50, END_MARKER),
    ];
    let (profile, _) = trace(&lines, 0, None);
    assert_eq!(profile.write.ios, 1);
    let max = profile.write.latency_ns.max;
    assert!((max - 30_000.0).abs() <= 30.0, "30 µs to 0.1 %: {max}");
    assert_eq!(profile.lost_events, 0);
}

#[test]
fn flushes_and_discards_are_left_out_of_the_figures_but_counted() {
    let lines = vec![
        marker(1, START_MARKER),
        issue(10, 1, "jbd2/vda-8", "FF", 0, 0),
        issue(11, 1, "fstrim", "DS", 2048, 1 << 20),
        complete(12, "FF", 0, 0),
        complete(13, "DS", 2048, 2048),
        marker(50, END_MARKER),
    ];
    let (profile, _) = trace(&lines, 0, None);
    assert_eq!(profile.ios, 0);
    assert_eq!(profile.details.other_requests, 1, "the discard");
    assert_eq!(profile.details.flush_requests, 1);
    assert_eq!(profile.lost_events, 0);
}

#[test]
fn flush_requests_are_counted_as_diskstats_counts_them() {
    // A preflush write reaches the driver as a flush request (FF) and then the write without
    // its flag; a FUA write on a device that takes FUA (WFS) is a write, no flush; a FUA
    // write on one that does not is the write and then a flush request. /proc/diskstats
    // counts the flush requests only (blk_account_io_flush), and so does the trace.
    let lines = vec![
        marker(1, START_MARKER),
        issue(10, 1, "jbd2/loop0-8", "FF", 0, 0),
        complete(11, "FF", 0, 0),
        issue(12, 1, "jbd2/loop0-8", "WS", 8, 4096),
        complete(13, "WS", 8, 8),
        issue(14, 1, "jbd2/loop0-8", "WFS", 16, 4096),
        complete(15, "WFS", 16, 8),
        issue(16, 1, "kworker/0:1", "FF", 0, 0),
        complete(17, "FF", 0, 0),
        // The FUA write's request ends again, with no sectors, after its postflush (as the
        // kernel traces a journal commit on a loop device).
        complete(18, "WFS", 16, 0),
        marker(50, END_MARKER),
        issue(60, 1, "kworker/0:1", "FF", 0, 0),
    ];
    let (profile, _) = trace(&lines, 0, None);
    assert_eq!(profile.details.flush_requests, 2, "the two in the window");
    assert_eq!(profile.write.ios, 2);
    assert_eq!(profile.details.other_requests, 0);
    assert_eq!(profile.lost_events, 0);
}

#[test]
fn the_iolog_holds_the_issues_of_the_window_in_fios_version_3() {
    let dir = std::env::temp_dir().join(format!("diskmeter-trace-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trace.iolog");
    let lines = vec![
        marker(1_000_000, START_MARKER),
        issue(1_000_010, 1, "fio", "R", 8, 4096),
        issue(1_000_250, 1, "fio", "WS", 16, 8192),
        issue(1_000_300, 1, "fstrim", "D", 64, 4096),
        issue(1_000_350, 1, "kworker/0:1", "FF", 0, 0),
        complete(1_000_400, "R", 8, 8),
        complete(1_000_400, "WS", 16, 16),
        marker(1_002_000, END_MARKER),
        issue(1_003_000, 1, "fio", "R", 8, 4096),
    ];
    let (profile, _) = trace(&lines, 0, Some(&path));
    assert_eq!(
        profile.iolog_path.as_deref(),
        Some(path.display().to_string().as_str())
    );
    let log = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        log,
        "fio version 3 iolog\n\
         0 /dev/loop0 add\n\
         0 /dev/loop0 open\n\
         10 /dev/loop0 read 4096 4096\n\
         250 /dev/loop0 write 8192 8192\n\
         300 /dev/loop0 trim 32768 4096\n\
         350 /dev/loop0 sync 0 0\n\
         2000 /dev/loop0 close\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_partitions_requests_are_picked_from_its_disks_by_sector_and_counted_from_its_start() {
    let dir = std::env::temp_dir().join(format!("diskmeter-trace-part-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trace.iolog");
    // loop0p1 is sectors 2048..4096 of loop0.
    let devices = vec![
        TracedDevice {
            disk: (7, 0),
            first_sector: 0,
            end_sector: u64::MAX,
            name: "loop0".to_string(),
            counters: DeviceAggregator::new("loop0", Some(2 << 20), 0, LIMITS),
        },
        TracedDevice {
            disk: (7, 0),
            first_sector: 2048,
            end_sector: 4096,
            name: "loop0p1".to_string(),
            counters: DeviceAggregator::new("loop0p1", Some(1 << 20), 0, LIMITS),
        },
    ];
    let shared = Arc::new(Shared::default());
    let source = Source::Text(File::open("/dev/null").unwrap(), "/dev/null".into());
    let mut reader = Reader::new(source, devices, Some(&path), Arc::clone(&shared)).unwrap();
    let lines = [
        marker(1, START_MARKER),
        issue(10, 1, "fio", "R", 100, 4096),
        issue(20, 1, "fio", "R", 2056, 4096),
        complete(30, "R", 100, 8),
        complete(40, "R", 2056, 8),
        marker(50, END_MARKER),
    ];
    reader.consume(format!("{}\n", lines.join("\n")).as_bytes());
    shared
        .stop
        .store(true, std::sync::atomic::Ordering::Release);
    let output = reader.run().unwrap();
    let disk = output.devices[0].profile(0, None);
    let partition = output.devices[1].profile(0, None);
    assert_eq!((disk.ios, partition.ios), (2, 1));
    assert_eq!(partition.hot_set.working_set_bytes, 64 * 1024);
    let log = std::fs::read_to_string(&path).unwrap();
    assert!(log.contains("\n9 /dev/loop0 read 51200 4096\n"), "{log}");
    assert!(log.contains("\n19 /dev/loop0 read 1052672 4096\n"), "{log}");
    assert!(log.contains("\n19 /dev/loop0p1 read 4096 4096\n"), "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn writes_that_continue_their_stream_are_sized_apart() {
    // A log appending 4 KiB after 4 KiB (pid 1; its first write starts the stream, so it is
    // not counted as sequential) beside random 8 KiB pages (pid 2).
    let lines = vec![
        marker(1, START_MARKER),
        issue(10, 1, "wal", "WS", 800, 4096),
        complete(11, "WS", 800, 8),
        issue(12, 2, "pages", "W", 9000, 8192),
        complete(13, "W", 9000, 16),
        issue(14, 1, "wal", "WS", 808, 4096),
        complete(15, "WS", 808, 8),
        issue(16, 1, "wal", "WS", 816, 4096),
        complete(17, "WS", 816, 8),
        issue(18, 2, "pages", "W", 100, 8192),
        complete(19, "W", 100, 16),
        marker(50, END_MARKER),
    ];
    let (profile, _) = trace(&lines, 0, None);
    assert_eq!(profile.write.ios, 5);
    assert_eq!(
        profile.sequential_writes,
        vec![SizeShare {
            bytes: 4096,
            ios: 2
        }]
    );
}
