//! The recorder's lines for every log kind, per IO and averaged, checked against what fio
//! 3.33 wrote for the same IOs; and writing: chunks that lose nothing, errors returned.

use super::*;
use std::io;
use std::sync::{Arc, Mutex};

const MS: u64 = 1_000_000;

/// A sink the test can read after the recorder is done with it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn lines(&self) -> Vec<String> {
        String::from_utf8(self.0.lock().unwrap().clone())
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// A sink that fails every write, like a full disk.
struct Full;

impl Write for Full {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(28))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn io(at_ns: u64, direction: Direction, lat_ns: u64) -> CompletedIo {
    CompletedIo {
        since_start_ns: at_ns,
        direction,
        bytes: 4096,
        offset_bytes: 8192,
        lat_ns,
        clat_ns: lat_ns - 10,
        slat_ns: Some(10),
    }
}

/// Runs `ios` through a recorder with one log of each kind; the lines per kind.
fn record(avg_ms: u64, with_offset: bool, ios: &[CompletedIo], end_ns: u64) -> Vec<Vec<String>> {
    let kinds = [
        LogKind::Bw,
        LogKind::Iops,
        LogKind::Lat,
        LogKind::Clat,
        LogKind::Slat,
    ];
    let sinks: Vec<Shared> = kinds.iter().map(|_| Shared::default()).collect();
    let mut recorder = IoLogRecorder::new(avg_ms, with_offset);
    for (kind, sink) in kinds.iter().zip(&sinks) {
        recorder.add_log(*kind, kind.suffix().to_string(), Box::new(sink.clone()));
    }
    for io in ios {
        recorder.record(io);
    }
    recorder.finish(end_ns).unwrap();
    sinks.iter().map(Shared::lines).collect()
}

#[test]
fn per_io_lines_have_fios_columns_and_values() {
    let logs = record(
        0,
        false,
        &[
            io(1_500_000, Direction::Read, 2_000),
            io(2 * MS, Direction::Write, 1_010),
        ],
        3 * MS,
    );
    let [bw, iops, lat, clat, slat] = &logs[..] else {
        unreachable!()
    };
    // bw = bytes x 10^6 / clat: 4096e6 / 1990 and 4096e6 / 1000.
    assert_eq!(bw, &["1, 2058291, 0, 4096, 0", "2, 4096000, 1, 4096, 0"]);
    assert_eq!(iops, &["1, 1, 0, 4096, 0", "2, 1, 1, 4096, 0"]);
    assert_eq!(lat, &["1, 2000, 0, 4096, 0", "2, 1010, 1, 4096, 0"]);
    assert_eq!(clat, &["1, 1990, 0, 4096, 0", "2, 1000, 1, 4096, 0"]);
    assert_eq!(slat, &["1, 10, 0, 4096, 0", "2, 10, 1, 4096, 0"]);
}

#[test]
fn log_offset_adds_the_offset_before_the_priority() {
    let logs = record(0, true, &[io(MS, Direction::Read, 100)], MS);
    assert_eq!(logs[2], ["1, 100, 0, 4096, 8192, 0"]);
    let logs = record(100, true, &[io(MS, Direction::Read, 100)], 50 * MS);
    assert_eq!(logs[2], ["50, 100, 0, 0, 0, 0"], "windows log offset 0");
}

#[test]
fn engines_without_a_submit_latency_leave_the_slat_log_empty() {
    let mut sync_io = io(MS, Direction::Read, 100);
    sync_io.slat_ns = None;
    for avg_ms in [0, 100] {
        let logs = record(avg_ms, false, &[sync_io], 500 * MS);
        assert!(logs[4].is_empty(), "{:?}", logs[4]);
        assert!(!logs[2].is_empty());
    }
}

#[test]
fn rate_windows_are_whole_windows_stamped_at_their_end() {
    // 10 reads in [0, 100) ms, 5 writes in [100, 200), 1 read in [200, 250); end at 250.
    let mut ios: Vec<CompletedIo> = (0..10)
        .map(|i| io(i * 10 * MS, Direction::Read, 100))
        .collect();
    ios.extend((0..5).map(|i| io((100 + i * 20) * MS, Direction::Write, 100)));
    ios.push(io(210 * MS, Direction::Read, 100));
    let logs = record(100, false, &ios, 250 * MS);
    // 10 x 4 KiB in 100 ms = 400 KiB/s; the partial window at the end is not logged.
    assert_eq!(logs[0], ["100, 400, 0, 0, 0", "200, 200, 1, 0, 0"]);
    assert_eq!(logs[1], ["100, 100, 0, 0, 0", "200, 50, 1, 0, 0"]);
}

#[test]
fn rate_windows_without_io_give_no_line() {
    let ios = [
        io(10 * MS, Direction::Read, 100),
        io(350 * MS, Direction::Read, 100),
        io(360 * MS, Direction::Write, 100),
    ];
    let logs = record(100, false, &ios, 400 * MS);
    assert_eq!(
        logs[1],
        ["100, 10, 0, 0, 0", "400, 10, 0, 0, 0", "400, 10, 1, 0, 0"],
        "read then write at the same time, as fio's loop over directions"
    );
}

#[test]
fn a_window_ending_exactly_at_the_end_is_whole() {
    let logs = record(100, false, &[io(50 * MS, Direction::Read, 100)], 100 * MS);
    assert_eq!(logs[1], ["100, 10, 0, 0, 0"]);
    let logs = record(
        100,
        false,
        &[io(50 * MS, Direction::Read, 100)],
        100 * MS - 1,
    );
    assert!(logs[1].is_empty());
}

#[test]
fn latency_windows_close_on_the_first_io_past_them_as_fio_does() {
    // fio 3.33 with rate_iops=4, log_avg_msec=100: IOs at 0, 250, 500 and 750 ms give
    // lines at 250 (the IOs at 0 and 250), 500 and 750; nothing is left for the end.
    let ios = [
        io(0, Direction::Read, 7_000),
        io(250 * MS, Direction::Read, 2_001),
        io(500 * MS, Direction::Read, 3_000),
        io(750 * MS + 400_000, Direction::Read, 4_000),
    ];
    let logs = record(100, false, &ios, 1_000 * MS);
    assert_eq!(
        logs[2],
        [
            "250, 4501, 0, 0, 0",
            "500, 3000, 0, 0, 0",
            "750, 4000, 0, 0, 0"
        ]
    );
}

#[test]
fn latency_windows_restart_on_the_boundary_and_the_rest_is_logged_at_the_end() {
    // Flushed at 105 ms, the next window starts at 100 (fio: elapsed - elapsed % N), so
    // an IO at 200 closes it; the write after it is written at the end time, 230. Each
    // direction has its own window: the first read, at 221 ms, closes the read window
    // that began at 0.
    let ios = [
        io(10 * MS, Direction::Write, 100),
        io(105 * MS, Direction::Write, 300),
        io(150 * MS, Direction::Write, 1_000),
        io(200 * MS, Direction::Write, 2_000),
        io(220 * MS, Direction::Write, 17),
        io(221 * MS, Direction::Read, 18),
    ];
    let logs = record(100, false, &ios, 230 * MS);
    assert_eq!(
        logs[2],
        [
            "105, 200, 1, 0, 0",
            "200, 1500, 1, 0, 0",
            "221, 18, 0, 0, 0",
            "230, 17, 1, 0, 0"
        ]
    );
    assert_eq!(logs[3][0], "105, 190, 1, 0, 0", "clat is lat - 10 here");
    assert_eq!(logs[4][0], "105, 10, 1, 0, 0");
}

/// An IO issued inside the measured period may complete after its end and is counted with
/// its real completion time, so a latency window can be closed after the runtime. The open
/// windows left at the end must then not be stamped at the runtime, before that line (the
/// flaky "x_clat.1.log: time 1000 after 1007" of tests/parallel/fio_logs.rs): fio stamps them when it
/// finalizes the logs, after the last completion; diskmeter at the later of the two.
#[test]
fn the_last_windows_are_never_stamped_before_a_line_already_written() {
    let ios = [
        io(950 * MS, Direction::Write, 500),
        io(960 * MS, Direction::Write, 60),
        io(990 * MS, Direction::Read, 100),
        // Issued before the 1000 ms runtime, completed after it: closes the read window.
        io(1_007 * MS, Direction::Read, 300),
        io(1_008 * MS + 500_000, Direction::Read, 40),
    ];
    let logs = record(100, false, &ios, 1_000 * MS);
    assert_eq!(
        logs[2],
        [
            "950, 500, 1, 0, 0",
            "990, 100, 0, 0, 0",
            "1007, 300, 0, 0, 0",
            "1008, 40, 0, 0, 0",
            "1008, 60, 1, 0, 0"
        ],
        "the windows left open (a read and a write) are stamped at the last completion, \
         1008 ms, not at the runtime, 1000"
    );
    // With nothing completed after the runtime, the end time stamps them as before.
    let logs = record(100, false, &ios[..3], 1_000 * MS);
    assert_eq!(
        logs[2],
        [
            "950, 500, 1, 0, 0",
            "990, 100, 0, 0, 0",
            "1000, 60, 1, 0, 0"
        ]
    );
}

#[test]
fn long_per_io_logs_are_written_in_chunks_and_lose_nothing() {
    let n = MAX_PENDING_ENTRIES as u64 * 2 + 3;
    let ios: Vec<CompletedIo> = (0..n)
        .map(|i| io(i * 1_000, Direction::Read, 100))
        .collect();
    let sink = Shared::default();
    let mut recorder = IoLogRecorder::new(0, false);
    recorder.add_log(LogKind::Iops, "iops".to_string(), Box::new(sink.clone()));
    for (i, io) in ios.iter().enumerate() {
        recorder.record(io);
        if i == MAX_PENDING_ENTRIES {
            // The first chunk is already out: memory stays bounded.
            assert!(!sink.0.lock().unwrap().is_empty());
        }
    }
    recorder.finish(n * 1_000).unwrap();
    let lines = sink.lines();
    assert_eq!(lines.len() as u64, n);
    assert_eq!(
        lines.last().unwrap(),
        &format!("{}, 1, 0, 4096, 0", (n - 1) / 1_000)
    );
}

#[test]
fn write_errors_are_returned_not_panicked() {
    let mut recorder = IoLogRecorder::new(0, false);
    recorder.add_log(
        LogKind::Lat,
        "ok.log".to_string(),
        Box::new(Shared::default()),
    );
    recorder.add_log(LogKind::Clat, "x_clat.1.log".to_string(), Box::new(Full));
    recorder.record(&io(MS, Direction::Read, 100));
    let error = recorder.finish(MS).unwrap_err();
    assert_eq!(error.label, "x_clat.1.log");
    assert!(
        error
            .to_string()
            .starts_with("cannot write the log file x_clat.1.log: No space left"),
        "{error}"
    );
}
