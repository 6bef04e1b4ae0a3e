//! Averaged logs (`log_avg_msec=N`): the windows a log's lines are averaged over, as fio's
//! stat.c keeps them.
//!
//! * Bandwidth and IOPS: fixed windows `[k x N, (k+1) x N)` counting both directions, logged
//!   in KiB/s and IOPS over the whole window and stamped at its end; a window without IOs in a
//!   direction gives no line for it, and the last, partial window is not logged (fio's
//!   sampling thread stops first).
//! * Latencies keep fio's inline averaging: a direction's window is closed by the first IO
//!   that completes N ms or more after the window began; that IO is counted in it and its
//!   time stamps the line, whose value is the mean rounded half up. What is left when the
//!   worker ends is written stamped with the end time: the runtime, or the last completion
//!   if an IO issued inside the runtime completed after it (fio stamps them when it
//!   finalizes the logs, after every completion). The block size column is 0.

use super::per_io::saturate;
use super::write::Entry;
use super::{CompletedIo, LogKind};

/// fio's inline averaging window of one direction (latency logs).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct MeanWindow {
    sum: u128,
    samples: u64,
    /// The largest value of the window (fio `log_max_value`).
    max: u64,
    /// Start of the open window, ms (fio's `avg_last`).
    start_ms: u64,
}

impl MeanWindow {
    /// The mean rounded half up, as fio's `mean + 0.50` truncated.
    fn mean(&self) -> u64 {
        (self.sum as f64 / self.samples as f64 + 0.5) as u64
    }

    /// The value the window's line carries: its mean, or its largest value with fio's
    /// `log_max_value`.
    fn value(&self, use_max: bool) -> u64 {
        if use_max {
            self.max
        } else {
            self.mean()
        }
    }
}

/// Fixed windows `[k x N, (k+1) x N)` counting both directions (bandwidth and IOPS logs).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RateWindow {
    end_ms: u64,
    ios: [u64; 2],
    bytes: [u64; 2],
}

/// How a log turns IOs into lines.
#[derive(Debug, Clone, Copy)]
pub(super) enum Averaging {
    /// A line per IO (see [`super::per_io`]).
    PerIo,
    /// Latency means (or maxima, `use_max`) per direction over windows of `avg_ms`.
    Mean {
        avg_ms: u64,
        windows: [MeanWindow; 2],
        use_max: bool,
    },
    /// Bandwidth or IOPS over fixed windows of `avg_ms`.
    Rate { avg_ms: u64, window: RateWindow },
}

impl Averaging {
    /// fio's `log_avg_msec` of `avg_ms` (0: a line per IO) for a log of `kind`; `use_max`
    /// is fio's `log_max_value` (latency windows log their largest value, not the mean).
    pub(super) fn new(avg_ms: u64, kind: LogKind, use_max: bool) -> Self {
        match (avg_ms, kind) {
            (0, _) => Averaging::PerIo,
            (avg_ms, LogKind::Bw | LogKind::Iops) => Averaging::Rate {
                avg_ms,
                window: RateWindow {
                    end_ms: avg_ms,
                    ..RateWindow::default()
                },
            },
            (avg_ms, _) => Averaging::Mean {
                avg_ms,
                windows: [MeanWindow::default(); 2],
                use_max,
            },
        }
    }

    /// Counts `io`, completed at `now_ms`, in its window; the lines of the windows it closed.
    #[inline]
    pub(super) fn record(
        &mut self,
        kind: LogKind,
        io: &CompletedIo,
        now_ms: u64,
    ) -> [Option<Entry>; 2] {
        let direction = io.direction.index();
        let mut closed = [None; 2];
        match self {
            Averaging::PerIo => {}
            Averaging::Mean {
                avg_ms,
                windows,
                use_max,
            } => {
                let Some(value) = kind.latency_ns(io) else {
                    return closed;
                };
                let window = &mut windows[direction];
                window.sum += u128::from(value);
                window.samples += 1;
                window.max = window.max.max(value);
                if now_ms.saturating_sub(window.start_ms) >= *avg_ms {
                    let value = window.value(*use_max);
                    closed[direction] = Some(window_entry(now_ms, value, direction));
                    *window = MeanWindow {
                        start_ms: now_ms - now_ms % *avg_ms,
                        ..MeanWindow::default()
                    };
                }
            }
            Averaging::Rate { avg_ms, window } => {
                if now_ms >= window.end_ms {
                    closed = close_rate_window(window, kind, *avg_ms);
                    // Skip the empty windows of an idle gap in one step.
                    window.end_ms = (now_ms / *avg_ms + 1) * *avg_ms;
                }
                window.ios[direction] += 1;
                window.bytes[direction] += io.bytes;
            }
        }
        closed
    }

    /// The lines of what the windows of a log of `kind` still hold when it ends at `end_ms`.
    pub(super) fn close(&mut self, kind: LogKind, end_ms: u64) -> [Option<Entry>; 2] {
        let mut closed = [None; 2];
        match self {
            Averaging::PerIo => {}
            Averaging::Mean {
                windows, use_max, ..
            } => {
                // fio's finalize_logs: the open windows are written at the end time.
                for (direction, window) in windows.iter_mut().enumerate() {
                    if window.samples > 0 {
                        let value = window.value(*use_max);
                        closed[direction] = Some(window_entry(end_ms, value, direction));
                        *window = MeanWindow::default();
                    }
                }
            }
            Averaging::Rate { avg_ms, window } => {
                // Only a whole window; the partial one at the end is not logged (as fio).
                if end_ms >= window.end_ms {
                    closed = close_rate_window(window, kind, *avg_ms);
                    window.end_ms += *avg_ms;
                }
            }
        }
        closed
    }
}

/// A window line: fio writes 0 for the block size and offset of averaged entries.
fn window_entry(time_ms: u64, value: u64, direction: usize) -> Entry {
    Entry {
        time_ms,
        value,
        offset_bytes: 0,
        bs_bytes: 0,
        direction: direction as u8,
    }
}

/// The rate lines of the window ending at `window.end_ms`; clears its counts (the caller
/// moves its end).
fn close_rate_window(window: &mut RateWindow, kind: LogKind, avg_ms: u64) -> [Option<Entry>; 2] {
    let mut lines = [None; 2];
    for (direction, line) in lines.iter_mut().enumerate() {
        if window.ios[direction] == 0 {
            continue;
        }
        // fio's __add_samples: integer KiB/s and IOPS over the window's length.
        let per_second = |count: u64| u128::from(count) * 1000 / u128::from(avg_ms);
        let value = saturate(match kind {
            LogKind::Bw => per_second(window.bytes[direction]) / 1024,
            _ => per_second(window.ios[direction]),
        });
        *line = Some(window_entry(window.end_ms, value, direction));
    }
    window.ios = [0; 2];
    window.bytes = [0; 2];
    lines
}
