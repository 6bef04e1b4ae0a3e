//! Iometer configuration files (`.icf`, versions 2004.07.30 to 1.1.0) read into an [`Icf`]:
//! the test setup, the access specification library and the manager list, as the file says
//! them. What they run is [`super::icf_run`]'s business.
//!
//! The format, as Iometer's reader (`ICF_ifstream::GetPair`) takes it: after a `Version`
//! line, sections open with `'TEST SETUP ====`, `'RESULTS DISPLAY ====`, `'ACCESS
//! SPECIFICATIONS ====` and `'MANAGER LIST ====` and close with `'END ...`. Inside, a key is
//! a line starting with `'`; further `'` lines right after it are column headings, and the
//! next line is the value (tabs and spaces around it do not count). Older writers leave out
//! fields newer ones have (`'Disk Cycling`, the fixed seed, the data pattern, the `'Record
//! Last Update Results` column); a missing field keeps Iometer's default.

use thiserror::Error;

/// A problem in an `.icf` file, located: file, line, section and field.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{file}:{line}: {section}{}: {problem}", field.as_ref().map(|f| format!(", {f}")).unwrap_or_default())]
pub struct IcfError {
    /// The file as named.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// The section (`'TEST SETUP`, ...), or `file` for the file as a whole.
    pub section: &'static str,
    /// The key or field at fault.
    pub field: Option<String>,
    /// What is wrong.
    pub problem: String,
}

/// Steps of a cycle: added (`LINEAR`) or multiplied (`EXPONENTIAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepType {
    /// start, start+step, start+2·step, ...
    Linear,
    /// start, start·step, start·step², ...
    Exponential,
}

/// A worker or target cycle: start and step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cycling {
    /// First count.
    pub start: u32,
    /// Increment or factor.
    pub step: u32,
    /// How `step` applies.
    pub step_type: StepType,
}

impl Default for Cycling {
    fn default() -> Self {
        Cycling {
            start: 1,
            step: 1,
            step_type: StepType::Linear,
        }
    }
}

impl Cycling {
    /// The count after `count`, the `exponent`-th step (1 for the first), as Iometer
    /// computes it: `start·step^exponent` when exponential with a step above 1.
    pub fn next(&self, count: u32, exponent: u32) -> u32 {
        if self.step_type == StepType::Linear || self.step == 1 {
            count.saturating_add(self.step)
        } else {
            self.start
                .saturating_mul(self.step.saturating_pow(exponent))
        }
    }
}

/// The queue-depth cycle: start, end, step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueCycling {
    /// Start, step and type.
    pub cycle: Cycling,
    /// Last depth (inclusive).
    pub end: u32,
}

impl QueueCycling {
    /// Every depth of the cycle, in order.
    pub fn depths(&self) -> Vec<u32> {
        let mut depths = Vec::new();
        let (mut depth, mut exponent) = (self.cycle.start, 1);
        while depth <= self.end && depth > 0 && depths.len() < 10_000 {
            depths.push(depth);
            let next = self.cycle.next(depth, exponent);
            exponent += 1;
            if next <= depth {
                break;
            }
            depth = next;
        }
        depths
    }
}

/// Iometer's test types (`'Test Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestType {
    /// All workers on all their targets.
    Normal,
    /// Targets per worker cycled (target cycling).
    CycleTargets,
    /// Workers per manager cycled (worker cycling).
    CycleWorkers,
    /// Targets handed out down the workers of each manager.
    IncrementTargetsParallel,
    /// Targets handed out down the workers of all managers, one manager after another.
    IncrementTargetsSerial,
    /// Targets cycled for each count of workers.
    CycleWorkersAndTargets,
    /// Outstanding IOs cycled.
    CycleOutstandingIos,
    /// Outstanding IOs cycled for each count of targets.
    CycleOutstandingIosAndTargets,
}

impl TestType {
    pub(super) const NAMES: [(&'static str, TestType); 8] = [
        ("NORMAL", TestType::Normal),
        ("CYCLE_TARGETS", TestType::CycleTargets),
        ("CYCLE_WORKERS", TestType::CycleWorkers),
        (
            "INCREMENT_TARGETS_PARALLEL",
            TestType::IncrementTargetsParallel,
        ),
        ("INCREMENT_TARGETS_SERIAL", TestType::IncrementTargetsSerial),
        (
            "CYCLE_WORKERS_AND_TARGETS",
            TestType::CycleWorkersAndTargets,
        ),
        ("CYCLE_OUTSTANDING_IOS", TestType::CycleOutstandingIos),
        (
            "CYCLE_OUTSTANDING_IOS_AND_TARGETS",
            TestType::CycleOutstandingIosAndTargets,
        ),
    ];

    /// The name Iometer writes.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, t)| *t == self)
            .map_or("NORMAL", |(n, _)| n)
    }
}

/// `'Default Disk Workers to Spawn`: a count, or one per CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerCount {
    /// This many.
    Count(u32),
    /// `NUMBER_OF_CPUS`.
    NumberOfCpus,
}

/// `'TEST SETUP`.
#[derive(Debug, Clone, PartialEq)]
pub struct TestSetup {
    /// `'Test Description`.
    pub description: String,
    /// `'Run Time`, seconds (0: Iometer runs until stopped).
    pub run_time_s: u64,
    /// `'Ramp Up Time (s)`.
    pub ramp_up_s: u64,
    /// `'Default Disk Workers to Spawn`.
    pub disk_workers: WorkerCount,
    /// `'Default Network Workers to Spawn`.
    pub network_workers: WorkerCount,
    /// `'Record Results` (ALL, NO_TARGETS, NO_WORKERS, NO_MANAGERS, NONE).
    pub record_results: String,
    /// `'Worker Cycling`.
    pub worker_cycling: Cycling,
    /// `'Disk Cycling` (some generators write `'Target Cycling`).
    pub target_cycling: Cycling,
    /// `'Queue Depth Cycling`.
    pub queue_cycling: QueueCycling,
    /// `'Test Type`.
    pub test_type: TestType,
}

impl Default for TestSetup {
    fn default() -> Self {
        TestSetup {
            description: String::new(),
            run_time_s: 0,
            ramp_up_s: 0,
            disk_workers: WorkerCount::NumberOfCpus,
            network_workers: WorkerCount::Count(0),
            record_results: "ALL".into(),
            worker_cycling: Cycling::default(),
            target_cycling: Cycling::default(),
            queue_cycling: QueueCycling {
                cycle: Cycling {
                    start: 1,
                    step: 2,
                    step_type: StepType::Exponential,
                },
                end: 32,
            },
            test_type: TestType::Normal,
        }
    }
}

/// One line of an access specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecLine {
    /// Request size, bytes.
    pub size_bytes: u64,
    /// Share of the spec's IOs that use this line, percent.
    pub of_size_percent: u8,
    /// Reads, percent.
    pub read_percent: u8,
    /// Random offsets, percent.
    pub random_percent: u8,
    /// Think time after each burst, ms.
    pub delay_ms: u64,
    /// IOs per burst.
    pub burst: u64,
    /// Alignment, bytes (0: sector boundaries).
    pub align_bytes: u64,
    /// Network reply size, bytes (0: none).
    pub reply_bytes: u64,
}

/// An access specification of the library.
#[derive(Debug, Clone, PartialEq)]
pub struct IcfSpec {
    /// Its name.
    pub name: String,
    /// NONE, ALL, DISK or NET: given to new workers by default.
    pub default_assignment: String,
    /// Its lines (their `% of size` sum to 100).
    pub lines: Vec<SpecLine>,
    /// Line of its name in the file.
    pub line: usize,
}

/// A worker of a manager.
#[derive(Debug, Clone, PartialEq)]
pub struct IcfWorker {
    /// Its name.
    pub name: String,
    /// `DISK`, or `NETWORK,TCP`/`NETWORK,VI`.
    pub kind: String,
    /// Outstanding IOs per target.
    pub queue_depth: u32,
    /// `test connection rate` ENABLED.
    pub connection_rate: bool,
    /// Transactions per connection.
    pub transactions_per_connection: u32,
    /// Fixed seed, when `use fixed seed` is ENABLED.
    pub fixed_seed: Option<u64>,
    /// Maximum disk size, sectors of 512 bytes (0: the whole target).
    pub max_size_sectors: u64,
    /// Starting sector.
    pub starting_sector: u64,
    /// Data pattern (1.1.0: 0 repeating bytes, 1 pseudo-random, 2 full random).
    pub data_pattern: Option<u32>,
    /// Assigned access specifications, in run order.
    pub specs: Vec<String>,
    /// Target names as Iometer lists them (`C: "NTFS"`, `PHYSICALDRIVE:1`).
    pub targets: Vec<String>,
    /// Line of `'Worker`.
    pub line: usize,
}

impl IcfWorker {
    /// A disk worker with Iometer's defaults (1 outstanding IO, no connection-rate test,
    /// the whole target from sector 0), no specifications or targets yet; `line` is where
    /// the file names it (0: spawned by default, not in the file).
    pub fn iometer_default(name: String, line: usize) -> IcfWorker {
        IcfWorker {
            name,
            kind: "DISK".into(),
            queue_depth: 1,
            connection_rate: false,
            transactions_per_connection: 1,
            fixed_seed: None,
            max_size_sectors: 0,
            starting_sector: 0,
            data_pattern: None,
            specs: Vec::new(),
            targets: Vec::new(),
            line,
        }
    }

    /// A disk worker (not a network one).
    pub fn is_disk(&self) -> bool {
        self.kind.eq_ignore_ascii_case("DISK")
    }
}

/// A manager (a Dynamo) with its workers.
#[derive(Debug, Clone, PartialEq)]
pub struct IcfManager {
    /// Its ID.
    pub id: u32,
    /// Its name (usually the host's).
    pub name: String,
    /// Its network address (empty: the local manager).
    pub address: String,
    /// Its workers.
    pub workers: Vec<IcfWorker>,
}

/// An Iometer configuration file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Icf {
    /// The `Version` line's version (`1.1.0`, `2006.07.27`).
    pub version: String,
    /// `'TEST SETUP`.
    pub setup: TestSetup,
    /// `'ACCESS SPECIFICATIONS`.
    pub specs: Vec<IcfSpec>,
    /// `'MANAGER LIST`.
    pub managers: Vec<IcfManager>,
}

/// The lines of a file, trimmed, with their 1-based numbers, and a cursor.
pub(super) struct Lines<'a> {
    file: &'a str,
    lines: Vec<(usize, &'a str)>,
    at: usize,
    section: &'static str,
}

impl<'a> Lines<'a> {
    pub(super) fn error(
        &self,
        line: usize,
        field: Option<&str>,
        problem: impl Into<String>,
    ) -> IcfError {
        IcfError {
            file: self.file.to_string(),
            line,
            section: self.section,
            field: field.map(str::to_string),
            problem: problem.into(),
        }
    }

    fn last_line(&self) -> usize {
        self.lines.last().map_or(1, |l| l.0)
    }

    fn peek(&self) -> Option<(usize, &'a str)> {
        self.lines.get(self.at).copied()
    }

    fn next_line(&mut self) -> Option<(usize, &'a str)> {
        let line = self.peek();
        self.at += 1;
        line
    }

    /// The next key (skipping blank lines) and its value, as `GetPair` reads them: the
    /// heading lines after the key are skipped; an `'End` key has no value.
    pub(super) fn pair(&mut self) -> Result<(usize, &'a str, &'a str), IcfError> {
        while self.peek().is_some_and(|(_, l)| l.is_empty()) {
            self.at += 1;
        }
        let Some((number, key)) = self.next_line() else {
            return Err(self.error(
                self.last_line(),
                None,
                format!("the file ends inside {}", self.section),
            ));
        };
        if !key.starts_with('\'') {
            return Err(self.error(number, None, format!("expected a 'key line, found '{key}'")));
        }
        if starts_with_ci(key, "'End") {
            return Ok((number, key, ""));
        }
        while let Some((_, line)) = self.peek() {
            if !line.starts_with('\'') || starts_with_ci(line, "'End") {
                break;
            }
            self.at += 1;
        }
        match self.peek() {
            Some((_, line)) if !line.starts_with('\'') => {
                self.at += 1;
                Ok((number, key, line))
            }
            _ => Ok((number, key, "")),
        }
    }

    /// Moves past the line starting `heading`; false at the end of the file.
    fn skip_to(&mut self, heading: &str) -> bool {
        while let Some((_, line)) = self.next_line() {
            if starts_with_ci(line, heading) {
                return true;
            }
        }
        false
    }
}

pub(super) fn starts_with_ci(text: &str, prefix: &str) -> bool {
    text.len() >= prefix.len()
        && text.is_char_boundary(prefix.len())
        && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// The comma- or blank-separated fields of a value.
pub(super) fn fields(value: &str) -> Vec<&str> {
    value
        .split([',', ' ', '\t'])
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .collect()
}

pub(super) fn number<T: std::str::FromStr>(
    lines: &Lines<'_>,
    line: usize,
    field: &str,
    text: Option<&&str>,
) -> Result<T, IcfError> {
    let text = text.copied().unwrap_or("");
    text.parse::<T>().map_err(|_| {
        lines.error(
            line,
            Some(field),
            format!("expected a whole number, found '{text}'"),
        )
    })
}

/// Reads an `.icf` file's text; `file` names it in errors.
pub fn parse_icf(file: &str, text: &str) -> Result<Icf, IcfError> {
    let mut lines = Lines {
        file,
        lines: text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim_start_matches('\u{feff}').trim()))
            .collect(),
        at: 0,
        section: "file",
    };
    let mut icf = Icf::default();
    let first = lines.lines.iter().find(|(_, l)| !l.is_empty()).copied();
    match first {
        Some((_, line)) if starts_with_ci(line, "Version") => {
            icf.version = line["Version".len()..].trim().to_string();
        }
        Some((number, _)) => {
            return Err(lines.error(number, Some("Version"), "an Iometer configuration file starts with a 'Version' line (is this an .icf file?)"));
        }
        None => return Err(lines.error(1, Some("Version"), "the file is empty")),
    }
    let start = lines.at;
    lines.section = "'TEST SETUP";
    if lines.skip_to("'TEST SETUP") {
        super::icf_sections::read_setup(&mut lines, &mut icf.setup)?;
    }
    lines.at = start;
    lines.section = "'ACCESS SPECIFICATIONS";
    if lines.skip_to("'ACCESS SPECIFICATIONS") {
        icf.specs = super::icf_sections::read_specs(&mut lines)?;
    }
    lines.at = start;
    lines.section = "'MANAGER LIST";
    if lines.skip_to("'MANAGER LIST") {
        icf.managers = super::icf_sections::read_managers(&mut lines)?;
    }
    Ok(icf)
}

impl<'a> Lines<'a> {
    /// The next line that is not blank, as it is.
    pub(super) fn line(&mut self) -> Result<(usize, &'a str), IcfError> {
        while let Some((number, line)) = self.next_line() {
            if !line.is_empty() {
                return Ok((number, line));
            }
        }
        let section = self.section;
        Err(self.error(
            self.last_line(),
            None,
            format!("the file ends inside {section}"),
        ))
    }

    /// The next line, blank or not, unless it is a key or the end.
    pub(super) fn value_line(&mut self) -> Option<(usize, &'a str)> {
        match self.peek() {
            Some((_, l)) if l.starts_with('\'') => None,
            _ => self.next_line(),
        }
    }

    /// A whole number from `text`.
    pub(super) fn number<T: std::str::FromStr>(
        &self,
        line: usize,
        field: &str,
        text: Option<&&str>,
    ) -> Result<T, IcfError> {
        number(self, line, field, text)
    }
}

/// True when `text` starts with `prefix`, letter case aside.
pub(super) fn has_prefix(text: &str, prefix: &str) -> bool {
    starts_with_ci(text, prefix)
}
