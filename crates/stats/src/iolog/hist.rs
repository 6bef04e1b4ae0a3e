//! fio's completion-latency histogram log (`write_hist_log`, `log_hist_msec`,
//! `log_hist_coarseness`): a line per direction every `log_hist_msec`, holding how many IOs
//! of that window fell in each of fio's latency bins.
//!
//! A line is `time_ms, direction, block_size, bin_0, ..., bin_K` (fio 3.x's
//! `flush_hist_samples` in iolog.c): the time and block size are those of the IO that closed
//! the window, and the bins are the IOs completed since the direction's previous line.
//!
//! The bins are fio 3.x's `io_u_plat` layout of completion latency in ns
//! ([`FIO_PLAT_BUCKETS`] = 29 groups x 64 bins): values below 128 ns have a bin each; above,
//! each power of two is split in 64 equal bins, so a bin is at most 1/64 (1.6 %) of its value
//! wide, and everything from 2^34 ns (about 17 s) up lands in the last bin. Coarseness `c`
//! sums every 2^c neighbouring bins, giving 1856 >> c columns; fio's `fiologparser_hist.py`
//! infers `c` from the column count.
//!
//! Windows follow fio's stat.c: a direction's first window starts at its first completion;
//! an IO completing `log_hist_msec` or more after the window start closes it (the IO is
//! counted in it), and the next window starts `log_hist_msec` after the previous start, so
//! late lines do not drift. Unlike fio, which drops the IOs of the last, partial window,
//! diskmeter writes that window too when the worker ends, so the log holds every measured IO
//! and its percentiles match the run's.

use super::CompletedIo;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Bits of a latency kept exact in a bin's group (fio's `FIO_IO_U_PLAT_BITS`).
const PLAT_BITS: u32 = 6;
/// Bins per group (fio's `FIO_IO_U_PLAT_VAL`).
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Groups of bins (fio 3.x's `FIO_IO_U_PLAT_GROUP_NR`).
const PLAT_GROUPS: usize = 29;
/// Bins of fio 3.x's latency histogram (`FIO_IO_U_PLAT_NR`): the columns of a line at
/// coarseness 0.
pub const FIO_PLAT_BUCKETS: usize = PLAT_GROUPS * PLAT_VAL as usize;
/// Largest `log_hist_coarseness` fio accepts (29 columns).
pub const MAX_HIST_COARSENESS: u32 = 6;

/// The bin of fio's histogram a latency of `ns` falls in.
pub fn fio_bucket_index(ns: u64) -> usize {
    let msb = 63u32.saturating_sub(ns.leading_zeros());
    if ns < 2 * PLAT_VAL {
        // Up to 127 ns the value is its own bin.
        return ns as usize;
    }
    // Above, keep the PLAT_BITS bits under the top one: the group is the power of two, the
    // bin the position inside it.
    let dropped_bits = msb - PLAT_BITS;
    let group_start = ((dropped_bits + 1) as u64) << PLAT_BITS;
    let within = (ns >> dropped_bits) & (PLAT_VAL - 1);
    ((group_start + within) as usize).min(FIO_PLAT_BUCKETS - 1)
}

/// The latencies, in ns, bin `index` of fio's histogram holds: `[lower, upper)`.
pub fn fio_bucket_bounds(index: usize) -> (u64, u64) {
    let index = index as u64;
    if index < 2 * PLAT_VAL {
        return (index, index + 1);
    }
    let dropped_bits = (index >> PLAT_BITS) - 1;
    let group_base = 1u64 << (dropped_bits + u64::from(PLAT_BITS));
    let width = 1u64 << dropped_bits;
    let lower = group_base + (index % PLAT_VAL) * width;
    (lower, lower + width)
}

/// The window of one direction.
struct DirectionWindow {
    /// IOs per fio bin since this direction's previous line.
    bins: Vec<u64>,
    /// Start of the open window, ms; `None` before the direction's first IO.
    start_ms: Option<u64>,
    /// IOs in the open window.
    ios: u64,
    /// Block size of the latest IO, for the line that closes at the end.
    last_bs_bytes: u64,
}

/// The histogram log of one worker.
pub(super) struct HistLog {
    /// `log_hist_msec`; 0 writes no lines (as fio: the file is created, empty).
    msec: u64,
    /// `log_hist_coarseness`: 2^coarseness bins per column.
    coarseness: u32,
    directions: [DirectionWindow; 2],
    sink: Box<dyn Write + Send>,
    /// Formatted lines not yet written.
    text: String,
    /// The first write error; nothing more is written after it.
    error: Option<io::Error>,
    /// Added to every time (fio `log_unix_epoch`).
    pub(super) time_offset_ms: u64,
}

/// Text kept before it is written out during the run.
const FLUSH_BYTES: usize = 1 << 20;

impl HistLog {
    /// A log of `msec` windows at `coarseness` (clamped to [`MAX_HIST_COARSENESS`]).
    pub(super) fn new(sink: Box<dyn Write + Send>, msec: u64, coarseness: u32) -> Self {
        let window = || DirectionWindow {
            bins: vec![0; FIO_PLAT_BUCKETS],
            start_ms: None,
            ios: 0,
            last_bs_bytes: 0,
        };
        HistLog {
            msec,
            coarseness: coarseness.min(MAX_HIST_COARSENESS),
            directions: [window(), window()],
            sink,
            text: String::new(),
            error: None,
            time_offset_ms: 0,
        }
    }

    /// Counts `io`, completed at `now_ms`; writes the direction's line when it closes a window.
    #[inline]
    pub(super) fn record(&mut self, io: &CompletedIo, now_ms: u64) {
        if self.msec == 0 {
            return;
        }
        let direction = io.direction.index();
        let window = &mut self.directions[direction];
        window.bins[fio_bucket_index(io.clat_ns)] += 1;
        window.ios += 1;
        window.last_bs_bytes = io.bytes;
        let start_ms = *window.start_ms.get_or_insert(now_ms);
        if now_ms.saturating_sub(start_ms) >= self.msec {
            // fio keeps the window grid: the next window starts where this one should have
            // ended, not at the late IO's time.
            window.start_ms = Some(start_ms + self.msec);
            self.close(direction, now_ms, io.bytes);
        }
    }

    /// Writes the line of `direction`'s open window stamped `time_ms` and empties it.
    #[cold]
    fn close(&mut self, direction: usize, time_ms: u64, bs_bytes: u64) {
        let stride = 1usize << self.coarseness;
        let window = &mut self.directions[direction];
        let time_ms = time_ms + self.time_offset_ms;
        let _ = write!(self.text, "{time_ms}, {direction}, {bs_bytes}");
        for chunk in window.bins.chunks(stride) {
            let _ = write!(self.text, ", {}", chunk.iter().sum::<u64>());
        }
        self.text.push('\n');
        window.bins.iter_mut().for_each(|bin| *bin = 0);
        window.ios = 0;
        if self.text.len() >= FLUSH_BYTES {
            self.write_text();
        }
    }

    /// Writes the formatted lines out, keeping the first error.
    fn write_text(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.sink.write_all(self.text.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.text.clear();
    }

    /// Writes each direction's partial window stamped `end_ms`, then everything pending, and
    /// flushes; the first error the log met, if any.
    pub(super) fn finish(mut self, end_ms: u64) -> io::Result<()> {
        for direction in 0..2 {
            let window = &self.directions[direction];
            if window.ios > 0 {
                let bs_bytes = window.last_bs_bytes;
                self.close(direction, end_ms, bs_bytes);
            }
        }
        self.write_text();
        if self.error.is_none() {
            if let Err(e) = self.sink.flush() {
                self.error = Some(e);
            }
        }
        self.error.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_units::Direction;
    use std::sync::{Arc, Mutex};

    /// A sink the test reads after the log is done with it.
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

    fn io(at_ms: u64, direction: Direction, clat_ns: u64) -> CompletedIo {
        CompletedIo {
            since_start_ns: at_ms * 1_000_000,
            direction,
            bytes: 4096,
            offset_bytes: 0,
            lat_ns: clat_ns,
            clat_ns,
            slat_ns: None,
        }
    }

    /// (time, direction, bs, IOs per column) of each line written.
    fn lines(ios: &[CompletedIo], coarseness: u32, end_ms: u64) -> Vec<(u64, u64, u64, Vec<u64>)> {
        let sink = Shared::default();
        let mut log = HistLog::new(Box::new(sink.clone()), 100, coarseness);
        for io in ios {
            log.record(io, io.since_start_ns / 1_000_000);
        }
        log.finish(end_ms).unwrap();
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|line| {
                let c: Vec<u64> = line.split(", ").map(|v| v.parse().unwrap()).collect();
                (c[0], c[1], c[2], c[3..].to_vec())
            })
            .collect()
    }

    #[test]
    fn windows_close_on_fios_grid_and_the_rest_is_written_at_the_end() {
        let read = Direction::Read;
        let ios = [
            io(0, read, 100),
            io(50, read, 100),
            io(100, read, 1000),
            io(150, read, 100),
            io(250, read, 100),
            io(260, read, 100),
        ];
        let lines = lines(&ios, 0, 300);
        let summary: Vec<(u64, u64)> = lines
            .iter()
            .map(|l| (l.0, l.3.iter().sum::<u64>()))
            .collect();
        // 0..100 closed by the IO at 100 ms; 100..200 closed late by the IO at 250 ms; the
        // window from 200 ms holds the IO at 260 ms, written at the end.
        assert_eq!(summary, [(100, 3), (250, 2), (300, 1)]);
        assert_eq!(lines[0].3.len(), FIO_PLAT_BUCKETS);
        assert_eq!(lines[0].3[100], 2);
        assert_eq!(lines[0].3[fio_bucket_index(1000)], 1);
    }

    #[test]
    fn coarseness_sums_neighbouring_bins_and_directions_have_their_own_lines() {
        let ios = [
            io(0, Direction::Read, 100),
            io(0, Direction::Write, 101),
            io(100, Direction::Write, 102),
        ];
        let lines = lines(&ios, 6, 100);
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].0, lines[0].1), (100, 1));
        assert_eq!(lines[0].3.len(), 29);
        assert_eq!(lines[0].3[1], 2, "bins 64..128 are the second column");
        assert_eq!((lines[1].0, lines[1].1, lines[1].3[1]), (100, 0, 1));
    }

    #[test]
    fn small_latencies_have_a_bin_each() {
        for ns in 0..128 {
            assert_eq!(fio_bucket_index(ns), ns as usize);
            assert_eq!(fio_bucket_bounds(ns as usize), (ns, ns + 1));
        }
    }

    #[test]
    fn every_latency_lies_in_its_bins_bounds() {
        let mut ns = 128u64;
        while ns < 1 << 34 {
            let (lower, upper) = fio_bucket_bounds(fio_bucket_index(ns));
            assert!(lower <= ns && ns < upper, "{ns} not in [{lower}, {upper})");
            // A bin is at most 1/64 of its values wide.
            assert!((upper - lower) * 64 <= lower, "{ns}: [{lower}, {upper})");
            ns = ns * 17 / 16 + 1;
        }
    }

    #[test]
    fn bins_follow_fios_layout() {
        // fio 3.x: 128 ns is the first bin of the third group, 256 ns of the fourth; the
        // last bin starts at 2^33 + 63 x 2^27 ns.
        assert_eq!(fio_bucket_index(128), 128);
        assert_eq!(fio_bucket_index(130), 129);
        assert_eq!(fio_bucket_index(256), 192);
        assert_eq!(fio_bucket_index(u64::MAX), FIO_PLAT_BUCKETS - 1);
        assert_eq!(
            fio_bucket_bounds(FIO_PLAT_BUCKETS - 1).0,
            (1 << 33) + 63 * (1 << 27)
        );
    }
}
