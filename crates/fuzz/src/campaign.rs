//! A campaign: N generated inputs through one target on T threads, each input's panic caught
//! and its time watched, every failing input written to a file that replays it.
//!
//! Panics are caught per input with `catch_unwind`; while a campaign's thread checks inputs,
//! the process-wide panic hook records the message and location instead of printing them
//! (other threads keep the hook they had).
//!
//! A hang is an input that takes more than the limit (`hang_after`, 2 s by default) of CPU
//! time, or that is still running after [`STUCK_FACTOR`] times the limit of wall time (an
//! endless loop, or an input blocked on something). CPU time, not wall time, decides for an
//! input that ends, because the campaigns run on machines shared with other builds, where a
//! busy neighbour can stretch a 0.5 s input past 2 s of wall time. The worker measures the
//! CPU time of each input itself; the thread that runs the campaign wakes every few
//! milliseconds and looks at when each worker started its input: one past the wall limit is
//! reported with its input, left running (a thread cannot be stopped from outside), and
//! replaced by a fresh worker so the campaign goes on.

use crate::gen::Gen;
use crate::{Target, Verdict};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How a campaign runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Inputs to check.
    pub inputs: u64,
    /// The campaign's seed: with the target and an input's index it makes the input.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// An input that takes this much CPU time, or [`STUCK_FACTOR`] times this much wall
    /// time, is a hang.
    pub hang_after: Duration,
    /// Where failing inputs are written (`None`: kept in the report only).
    pub save_to: Option<PathBuf>,
}

/// What went wrong with one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The parser panicked.
    Panic,
    /// The input ran longer than the limit.
    Hang,
    /// The parser returned, but broke a promise (an empty error message, an error that does
    /// not name its file and line, a workload the project's own builder made that does not
    /// parse back).
    Broken,
}

impl FailureKind {
    /// A word for file names and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            FailureKind::Hang => "hang",
            FailureKind::Broken => "broken",
        }
    }
}

/// One failing input.
#[derive(Debug, Clone)]
pub struct Failure {
    /// What went wrong.
    pub kind: FailureKind,
    /// The input's index in the campaign (with the seed, it makes the input again).
    pub index: u64,
    /// The panic's message and location, or the broken promise.
    pub message: String,
    /// The input, in its saved form.
    pub input: Vec<u8>,
    /// The file it was written to.
    pub saved: Option<PathBuf>,
    /// Inputs that failed the same way (the same panic location, or the same broken
    /// promise once numbers and quoted text are blanked); this one is the first.
    pub count: u64,
}

impl Failure {
    /// What makes two failures the same: a panic's location, a broken promise's shape;
    /// every hang is its own.
    fn signature(&self) -> u64 {
        match self.kind {
            FailureKind::Panic => shape(self.message.rsplit(" at ").next().unwrap_or("")),
            FailureKind::Broken => shape(&self.message),
            FailureKind::Hang => self.index,
        }
    }
}

/// What a campaign found.
#[derive(Debug, Clone)]
pub struct Report {
    /// The target's name.
    pub target: &'static str,
    /// Inputs checked (including those that failed).
    pub inputs: u64,
    /// Inputs the parser took.
    pub accepted: u64,
    /// Inputs the parser refused with an error.
    pub refused: u64,
    /// Different error messages seen, after numbers and quoted text are blanked.
    pub distinct_errors: usize,
    /// [`MAX_SHAPES`] was reached: there were more than `distinct_errors`.
    pub distinct_errors_capped: bool,
    /// The most frequent of them: (inputs, the first message of that shape), most first.
    pub top_errors: Vec<(u64, String)>,
    /// Panics.
    pub panics: u64,
    /// Hangs.
    pub hangs: u64,
    /// Broken promises.
    pub broken: u64,
    /// The first failure of each kind of failure (at most [`KEPT_FAILURES`]), with its
    /// input and how many inputs failed that way.
    pub failures: Vec<Failure>,
    /// Wall time.
    pub elapsed: Duration,
}

impl Report {
    /// Inputs per second of wall time.
    pub fn inputs_per_sec(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// No panic, hang or broken promise.
    pub fn clean(&self) -> bool {
        self.panics + self.hangs + self.broken == 0
    }
}

/// Different failures a report keeps with their inputs; the rest are counted (and saved,
/// up to [`SAVED_FAILURES`]).
pub const KEPT_FAILURES: usize = 32;
/// Failing inputs written to files per campaign.
pub const SAVED_FAILURES: usize = 1000;
/// Distinct error shapes counted per worker and per campaign (bounds the campaign's memory;
/// a report says when it was reached).
pub const MAX_SHAPES: usize = 1_000_000;
/// Error shapes whose first message is kept as their example (the commonest shapes come
/// early, so they have one).
const MAX_EXAMPLES: usize = 20_000;
/// Characters of an error message kept as its shape's example.
const EXAMPLE_CHARS: usize = 200;
/// Error shapes a report lists.
pub const TOP_ERRORS: usize = 12;

thread_local! {
    /// This thread checks fuzz inputs: record panics instead of printing them.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// The last panic recorded on this thread.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Installs (once per process) the hook that records panics of quiet threads.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
                return;
            }
            let payload = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(a panic without a message)".to_string());
            let at = info
                .location()
                .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()))
                .unwrap_or_default();
            LAST_PANIC.with(|last| *last.borrow_mut() = Some(format!("{payload}{at}")));
        }));
    });
}

/// A panic caught while checking an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Panic {
    /// The panic's message and where it was raised (`attempt to add with overflow at
    /// crates/x/src/y.rs:12:5`).
    pub message: String,
}

impl std::fmt::Display for Panic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Checks `input` once, catching a panic: the verdict, or the panic's message and location.
pub fn check_once(target: &dyn Target, input: &[u8]) -> Result<Verdict, Panic> {
    install_hook();
    let was_quiet = QUIET.with(|q| q.replace(true));
    let result = catch_unwind(AssertUnwindSafe(|| target.check(input)));
    QUIET.with(|q| q.set(was_quiet));
    result.map_err(|_| Panic {
        message: LAST_PANIC
            .with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| "(a panic the hook did not see)".to_string()),
    })
}

/// The input `index` of `target` in a campaign seeded `seed`.
pub fn input_of(target: &dyn Target, seed: u64, index: u64) -> Vec<u8> {
    target.generate(&mut Gen::for_input(seed, target.name(), index))
}

/// An error message with what varies between inputs blanked: numbers and quoted text; of a
/// message of several lines (the TOML parser quotes the line at fault), the first and last.
fn shape(message: &str) -> u64 {
    let first = message.lines().next().unwrap_or("");
    let last = message.lines().next_back().unwrap_or("");
    let kept = if first == last {
        first.to_string()
    } else {
        format!("{first} … {last}")
    };
    let mut out = String::with_capacity(kept.len().min(256));
    let mut quote: Option<char> = None;
    let mut last_digit = false;
    for c in kept.chars().take(400) {
        if let Some(q) = quote {
            if c == q {
                quote = None;
                out.push(c);
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => {
                quote = Some(c);
                out.push(c);
                out.push('…');
            }
            c if c.is_ascii_digit() => {
                if !last_digit {
                    out.push('#');
                }
            }
            c => out.push(c),
        }
        last_digit = c.is_ascii_digit();
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    out.hash(&mut hasher);
    hasher.finish()
}

/// What one worker is doing, for the watchdog.
#[derive(Default)]
struct Slot {
    /// Nanoseconds since the campaign began when the current input started, plus one; 0
    /// when idle; [`HUNG`] once the watchdog has reported the input. Whoever changes it from
    /// a start time first (the worker, finishing; the watchdog, reporting) owns the input.
    started: AtomicU64,
    /// The current input's index.
    index: AtomicU64,
    /// What this worker has counted (the campaign adds it up at the end, also when the
    /// worker is stuck in a hang).
    tally: Mutex<Tally>,
}

/// [`Slot::started`] of a worker whose input was reported as a hang.
const HUNG: u64 = u64::MAX;

/// An input still running after this many times the CPU limit in wall time is stuck.
pub const STUCK_FACTOR: u32 = 10;

/// The CPU time this thread has used, ns.
fn thread_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
}

impl Slot {
    fn hung(&self) -> bool {
        self.started.load(Ordering::Acquire) == HUNG
    }
}

/// Counts and findings shared by the workers.
#[derive(Default)]
struct Tally {
    inputs: u64,
    accepted: u64,
    refused: u64,
    panics: u64,
    hangs: u64,
    broken: u64,
    /// Error shapes: how many inputs, and the first message (cut to [`EXAMPLE_CHARS`]).
    shapes: HashMap<u64, (u64, String)>,
    failures: Vec<Failure>,
    saved: usize,
}

struct Shared {
    target: Arc<dyn Target>,
    settings: Settings,
    next: AtomicU64,
    began: Instant,
    tally: Mutex<Tally>,
}

impl Shared {
    fn record(&self, kind: FailureKind, index: u64, message: String, input: Vec<u8>) {
        let mut tally = self.tally.lock().unwrap_or_else(|e| e.into_inner());
        match kind {
            FailureKind::Panic => tally.panics += 1,
            FailureKind::Hang => tally.hangs += 1,
            FailureKind::Broken => tally.broken += 1,
        }
        let saved = if tally.saved < SAVED_FAILURES {
            tally.saved += 1;
            self.save(kind, index, &input)
        } else {
            None
        };
        let failure = Failure {
            kind,
            index,
            message,
            input,
            saved,
            count: 1,
        };
        let signature = failure.signature();
        let kept = tally.failures.len();
        match tally
            .failures
            .iter_mut()
            .find(|f| f.kind == kind && f.signature() == signature)
        {
            Some(same) => same.count += 1,
            None if kept < KEPT_FAILURES => tally.failures.push(failure),
            None => {}
        }
    }

    fn save(&self, kind: FailureKind, index: u64, input: &[u8]) -> Option<PathBuf> {
        let dir = self.settings.save_to.as_ref()?;
        std::fs::create_dir_all(dir).ok()?;
        let name = format!(
            "{}-seed{}-{index}-{}.{}",
            self.target.name(),
            self.settings.seed,
            kind.as_str(),
            self.target.extension()
        );
        let path = dir.join(name);
        std::fs::write(&path, input).ok()?;
        Some(path)
    }
}

/// Runs one worker until the inputs run out or its input is reported as a hang.
fn work(shared: Arc<Shared>, slot: Arc<Slot>) {
    install_hook();
    QUIET.with(|q| q.set(true));
    let end = shared.settings.inputs;
    loop {
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        if index >= end {
            break;
        }
        slot.index.store(index, Ordering::Relaxed);
        let started = shared.began.elapsed().as_nanos() as u64 + 1;
        slot.started.store(started, Ordering::Release);
        let input = input_of(shared.target.as_ref(), shared.settings.seed, index);
        let cpu_before = thread_cpu_ns();
        let verdict = check_once(shared.target.as_ref(), &input);
        let cpu_ns = thread_cpu_ns().saturating_sub(cpu_before);
        if slot
            .started
            .compare_exchange(started, 0, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // The watchdog reported this input and started a worker in this one's place.
            break;
        }
        if cpu_ns > shared.settings.hang_after.as_nanos() as u64 {
            slot.tally.lock().unwrap_or_else(|e| e.into_inner()).inputs += 1;
            let message = format!("took {:.1} s of CPU time", cpu_ns as f64 / 1e9);
            shared.record(FailureKind::Hang, index, message, input);
            continue;
        }
        let mut tally = slot.tally.lock().unwrap_or_else(|e| e.into_inner());
        tally.inputs += 1;
        match verdict {
            Ok(Verdict::Accepted) => tally.accepted += 1,
            Ok(Verdict::Refused(message)) => {
                tally.refused += 1;
                let known = tally.shapes.len();
                let key = shape(&message);
                match tally.shapes.get_mut(&key) {
                    Some((count, _)) => *count += 1,
                    None if known < MAX_SHAPES => {
                        let example = if known < MAX_EXAMPLES {
                            message.chars().take(EXAMPLE_CHARS).collect()
                        } else {
                            String::new()
                        };
                        tally.shapes.insert(key, (1, example));
                    }
                    None => {}
                }
            }
            Ok(Verdict::Broken(message)) => {
                drop(tally);
                shared.record(FailureKind::Broken, index, message, input)
            }
            Err(panic) => {
                drop(tally);
                shared.record(FailureKind::Panic, index, panic.message, input)
            }
        }
    }
    QUIET.with(|q| q.set(false));
}

fn spawn(shared: &Arc<Shared>) -> (Arc<Slot>, JoinHandle<()>) {
    let slot = Arc::new(Slot::default());
    let (s, sl) = (Arc::clone(shared), Arc::clone(&slot));
    (slot, std::thread::spawn(move || work(s, sl)))
}

/// Whether a worker stopped counting new error shapes.
fn slot_capped(slot: &Slot) -> bool {
    slot.tally
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .shapes
        .len()
        >= MAX_SHAPES
}

/// Runs a campaign of `settings.inputs` inputs through `target`.
pub fn run(target: Arc<dyn Target>, settings: &Settings) -> Report {
    let shared = Arc::new(Shared {
        target,
        settings: settings.clone(),
        next: AtomicU64::new(0),
        began: Instant::now(),
        tally: Mutex::new(Tally::default()),
    });
    let mut workers: Vec<(Arc<Slot>, JoinHandle<()>)> = (0..settings.threads.max(1))
        .map(|_| spawn(&shared))
        .collect();
    let mut slots: Vec<Arc<Slot>> = workers.iter().map(|(slot, _)| Arc::clone(slot)).collect();
    let limit = (settings.hang_after * STUCK_FACTOR).as_nanos() as u64;
    loop {
        std::thread::sleep(Duration::from_millis(5));
        let now = shared.began.elapsed().as_nanos() as u64 + 1;
        let mut replacements = Vec::new();
        for (slot, _) in &workers {
            let started = slot.started.load(Ordering::Acquire);
            if started == 0 || started == HUNG || now.saturating_sub(started) <= limit {
                continue;
            }
            if slot
                .started
                .compare_exchange(started, HUNG, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                // It finished in the meantime.
                continue;
            }
            let index = slot.index.load(Ordering::Relaxed);
            let input = input_of(shared.target.as_ref(), settings.seed, index);
            let message = format!("still running after {:.1} s", (now - started) as f64 / 1e9);
            shared.record(FailureKind::Hang, index, message, input);
            shared
                .tally
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .inputs += 1;
            replacements.push(spawn(&shared));
        }
        slots.extend(replacements.iter().map(|(slot, _)| Arc::clone(slot)));
        workers.extend(replacements);
        // A hung worker is left behind (detached); the others are joined when they end.
        let (done, running): (Vec<_>, Vec<_>) = workers
            .into_iter()
            .partition(|(slot, handle)| handle.is_finished() || slot.hung());
        for (slot, handle) in done {
            if !slot.hung() {
                let _ = handle.join();
            }
        }
        workers = running;
        if workers.is_empty() {
            break;
        }
    }
    let elapsed = shared.began.elapsed();
    let mut tally = std::mem::take(&mut *shared.tally.lock().unwrap_or_else(|e| e.into_inner()));
    for slot in &slots {
        let counted = slot.tally.lock().unwrap_or_else(|e| e.into_inner());
        tally.inputs += counted.inputs;
        tally.accepted += counted.accepted;
        tally.refused += counted.refused;
        for (&shape, (count, example)) in &counted.shapes {
            let known = tally.shapes.len() < MAX_SHAPES;
            match tally.shapes.get_mut(&shape) {
                Some((total, _)) => *total += count,
                None if known => {
                    tally.shapes.insert(shape, (*count, example.clone()));
                }
                None => {}
            }
        }
    }
    let mut failures = tally.failures;
    failures.sort_by_key(|f| f.index);
    let distinct_errors = tally.shapes.len();
    let distinct_errors_capped =
        distinct_errors >= MAX_SHAPES || slots.iter().any(|slot| slot_capped(slot));
    let mut top_errors: Vec<(u64, String)> = tally.shapes.into_values().collect();
    top_errors.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    top_errors.truncate(TOP_ERRORS);
    Report {
        target: shared.target.name(),
        inputs: tally.inputs,
        accepted: tally.accepted,
        refused: tally.refused,
        distinct_errors,
        distinct_errors_capped,
        top_errors,
        panics: tally.panics,
        hangs: tally.hangs,
        broken: tally.broken,
        failures,
        elapsed,
    }
}

#[cfg(test)]
mod tests;
