//! Replaying fio iologs (issue 14): `read_iolog` issues exactly the logged IOs at the logged
//! times and keeps a trace's IO rate within 1 % (fio's own replay runs about 2 % slow: fio
//! issues #772 and #1537); the log is read as a stream, so a log of any length costs the same
//! memory (fio issue #25: a 3 GB trace ran out of memory); `write_iolog` records what a run
//! issued in a form both diskmeter and fio replay.

use crate::common;

use common::{fio_command, fio_json, real_io, TestDir};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// One IO line of a version 3 log: (action, offset, length).
type LoggedIo = (String, u64, u64);

/// The IO lines of the version 3 log at `path`, in order (file actions left out).
fn logged_ios(path: &Path) -> Vec<LoggedIo> {
    let text = std::fs::read_to_string(path).expect("read the log");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("fio version 3 iolog"),
        "{}",
        path.display()
    );
    lines
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [_, _, action, offset, length] => Some((
                    action.to_string(),
                    offset.parse().expect("offset"),
                    length.parse().expect("length"),
                )),
                _ => None,
            }
        })
        .collect()
}

/// A version 3 log of `ios` 4 KiB reads and writes (one write in four) at random offsets of a
/// 64 MiB `file`, `mean_gap_us` apart on average (gaps vary from 0 to twice the mean, so
/// bursts and pauses both occur). Returns the log's first and last IO timestamps, µs.
fn write_trace(path: &Path, file: &str, ios: u64, mean_gap_us: u64) -> (u64, u64) {
    let mut text = format!("fio version 3 iolog\n0 {file} add\n0 {file} open\n");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut at, mut first, mut last) = (100u64, 0u64, 0u64);
    for i in 0..ios {
        let action = if next() % 4 == 0 { "write" } else { "read" };
        let offset = (next() % (64 * 256)) * 4096;
        writeln!(text, "{at} {file} {action} {offset} 4096").unwrap();
        if i == 0 {
            first = at;
        }
        last = at;
        at += next() % (2 * mean_gap_us + 1);
    }
    writeln!(text, "{at} {file} close").unwrap();
    std::fs::write(path, text).expect("write the trace");
    (first, last)
}

/// Reads plus writes done by the run's first job, and its IOs per second.
fn ios_and_rate(v: &Value) -> (u64, f64) {
    let job = &v["jobs"][0];
    let ios = job["read"]["ios"].as_u64().unwrap() + job["write"]["ios"].as_u64().unwrap();
    let runtime_s = job["runtime_ns"].as_f64().unwrap() / 1e9;
    (ios, ios as f64 / runtime_s)
}

#[test]
fn a_100000_io_trace_replays_at_its_own_rate_within_1_percent() {
    let _turn = real_io();
    let dir = TestDir::new();
    let data = dir.path().join("data");
    std::fs::write(&data, vec![0x5au8; 64 << 20]).unwrap();
    let trace = dir.path().join("trace.log");
    // 100,000 IOs at about 10,000 IOPS: 10 s of trace.
    let (first_us, last_us) = write_trace(&trace, data.to_str().unwrap(), 100_000, 100);
    let trace_rate = 100_000.0 / ((last_us - first_us) as f64 / 1e6);
    let v = dir.run_json(&[
        "--name=replay",
        "--ioengine=io_uring",
        "--direct=1",
        "--iodepth=32",
        "--allow-destroy",
        &format!("--read_iolog={}", trace.display()),
    ]);
    let (ios, rate) = ios_and_rate(&v);
    assert_eq!(ios, 100_000, "every logged IO is issued once");
    let error = rate / trace_rate - 1.0;
    eprintln!(
        "trace {trace_rate:.0} IOPS, replayed {rate:.0} IOPS ({:+.3} %)",
        error * 100.0
    );
    assert!(
        error.abs() < 0.01,
        "replayed at {rate:.0} IOPS, the trace's rate is {trace_rate:.0} IOPS ({:+.2} %)",
        error * 100.0
    );
    // Latency counts from the time the log intended each IO.
    assert_eq!(
        v["jobs"][0]["read"]["lat_intended"]["count"],
        v["jobs"][0]["read"]["ios"]
    );
}

/// The peak resident memory of `diskmeter run ARGS` in `dir`, KiB (the kernel's maxrss of
/// the child, taken as it is reaped).
#[allow(clippy::zombie_processes)] // reaped by wait4 below, which also gives its rusage
fn peak_rss_kib(dir: &TestDir, args: &[&str]) -> i64 {
    let child = common::process()
        .current_dir(dir.path())
        .args(["run", "--quiet", "--no-save"])
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start diskmeter");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; status and usage point to live locals.
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "diskmeter {args:?} failed"
    );
    usage.ru_maxrss
}

#[test]
fn a_log_is_read_as_a_stream_so_its_length_does_not_raise_memory() {
    let dir = TestDir::new();
    let short = dir.path().join("short.log");
    let long = dir.path().join("long.log");
    // The long log is about 50 MB of text; held in memory it would raise the peak by more.
    write_trace(&short, "/virtual/disk", 10_000, 10);
    write_trace(&long, "/virtual/disk", 1_000_000, 10);
    let replay = |log: &Path| {
        peak_rss_kib(
            &dir,
            &[
                "--name=r",
                "--ioengine=null",
                "--replay_no_stall=1",
                &format!("--read_iolog={}", log.display()),
            ],
        )
    };
    let (short_kib, long_kib) = (replay(&short), replay(&long));
    eprintln!("peak RSS: {short_kib} KiB (10,000 IOs), {long_kib} KiB (1,000,000 IOs)");
    assert!(
        long_kib - short_kib < 8 * 1024,
        "peak RSS {short_kib} KiB with 10,000 IOs, {long_kib} KiB with 1,000,000"
    );
}

#[test]
fn a_recorded_run_replays_the_same_ios_and_fio_replays_the_log_too() {
    let _turn = real_io();
    let dir = TestDir::new();
    let recorded = dir.path().join("recorded.log");
    let replayed = dir.path().join("replayed.log");
    // A mixed run with several sizes on psync, recorded.
    let v = dir.run_json(&[
        "--name=app",
        "--filename=data",
        "--size=16m",
        "--ioengine=psync",
        "--rw=randrw",
        "--rwmixread=70",
        "--bssplit=4k/60:64k/40",
        "--io_size=24m",
        "--write_iolog=recorded.log",
        "--unlink=0",
    ]);
    let (done, _) = ios_and_rate(&v);
    let original = logged_ios(&recorded);
    assert_eq!(original.len() as u64, done, "one log line per issued IO");
    assert!(original.iter().any(|(_, _, len)| *len == 65536));
    assert!(original.iter().any(|(action, _, _)| action == "write"));
    // Replayed (and recorded again): the same IOs in the same order.
    let v = dir.run_json(&[
        "--name=again",
        "--ioengine=psync",
        "--read_iolog=recorded.log",
        "--write_iolog=replayed.log",
        "--unlink=0",
    ]);
    assert_eq!(ios_and_rate(&v).0, done);
    assert_eq!(logged_ios(&replayed), original);
    // fio's read_iolog takes the log diskmeter wrote and issues the same IOs.
    let Some(mut fio) = fio_command("a_recorded_run_replays_the_same_ios", dir.path()) else {
        return;
    };
    let report = fio_json(fio.args(["--name=fio", "--read_iolog=recorded.log"]));
    let job = &report["jobs"][0];
    let count = |dir: &str| job[dir]["total_ios"].as_u64().unwrap();
    let bytes = |dir: &str| job[dir]["io_bytes"].as_u64().unwrap();
    assert_eq!(count("read") + count("write"), done);
    let logged_bytes: u64 = original.iter().map(|(_, _, len)| len).sum();
    assert_eq!(bytes("read") + bytes("write"), logged_bytes);
}

#[test]
fn a_version_2_log_with_waits_and_redirect_replays_onto_the_new_target() {
    let dir = TestDir::new();
    std::fs::write(dir.path().join("target"), vec![0u8; 1 << 20]).unwrap();
    std::fs::write(
        dir.path().join("old.log"),
        "fio version 2 iolog\n/dev/sdz add\n/dev/sdz open\n/dev/sdz read 0 4096\n\
         /dev/sdz wait 50 0\n/dev/sdz write 8192 8192\n/dev/sdz sync 0 0\n\
         /dev/sdz read 65536 512\n/dev/sdz close\n",
    )
    .unwrap();
    let v = dir.run_json(&[
        "--name=v2",
        "--ioengine=psync",
        "--read_iolog=old.log",
        "--replay_redirect=target",
        "--allow-destroy",
        "--write_iolog=new.log",
    ]);
    let job = &v["jobs"][0];
    assert_eq!(job["read"]["ios"], 2);
    assert_eq!(job["write"]["ios"], 1);
    let ios = logged_ios(&dir.path().join("new.log"));
    let expected = [
        ("read", 0, 4096),
        ("write", 8192, 8192),
        ("sync", 0, 0),
        ("read", 65536, 512),
    ];
    assert_eq!(
        ios,
        expected.map(|(a, o, l)| (a.to_string(), o, l)).to_vec(),
        "the logged IOs, in order, on the redirect"
    );
}

#[test]
fn a_bad_log_line_is_an_error_naming_the_log_and_the_line() {
    let dir = TestDir::new();
    std::fs::write(
        dir.path().join("bad.log"),
        "fio version 3 iolog\n1 data add\n2 data raed 0 4096\n",
    )
    .unwrap();
    let out = dir
        .run(&["--name=bad", "--read_iolog=bad.log"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.log:3: unknown IO action \"raed\""),
        "{stderr}"
    );
}
