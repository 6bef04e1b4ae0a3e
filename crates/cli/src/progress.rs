//! Live progress on stderr while a run goes: elapsed / ETA, percent, and the current read
//! and write IOPS and MiB/s. Shown only when stderr is a terminal and `--quiet` is not set.

use diskmeter_orchestrator::{LiveCounters, ProgressGoal};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A running progress view; stops drawing when dropped.
pub struct LiveProgress {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LiveProgress {
    /// Starts the view, or nothing when stderr is not a terminal or `quiet`.
    pub fn start(live: Arc<LiveCounters>, goal: ProgressGoal, quiet: bool) -> LiveProgress {
        let done = Arc::new(AtomicBool::new(false));
        if quiet || !std::io::stderr().is_terminal() {
            return LiveProgress { done, thread: None };
        }
        let finished = done.clone();
        let thread = std::thread::spawn(move || draw(live, goal, finished));
        LiveProgress {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for LiveProgress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn draw(live: Arc<LiveCounters>, goal: ProgressGoal, done: Arc<AtomicBool>) {
    let length = match goal {
        ProgressGoal::Time(d) => d.as_millis() as u64,
        ProgressGoal::Bytes(b) => b,
    };
    let bar = ProgressBar::with_draw_target(Some(length.max(1)), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {percent:>3}% ETA {eta} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let start = Instant::now();
    let mut last = live.snapshot();
    let mut last_at = Instant::now();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(250));
        let now = live.snapshot();
        let secs = last_at.elapsed().as_secs_f64().max(1e-3);
        if secs >= 1.0 {
            let rate = |i: usize| (now[i] - last[i]) as f64 / secs;
            bar.set_message(format!(
                "read {} IOPS {} | write {} IOPS {}",
                diskmeter_units::format_iops(rate(0)),
                diskmeter_units::format_rate_binary(rate(1)),
                diskmeter_units::format_iops(rate(2)),
                diskmeter_units::format_rate_binary(rate(3))
            ));
            last = now;
            last_at = Instant::now();
        }
        let position = match goal {
            ProgressGoal::Time(_) => start.elapsed().as_millis() as u64,
            ProgressGoal::Bytes(_) => now[1] + now[3],
        };
        bar.set_position(position.min(length));
    }
    bar.finish_and_clear();
}
