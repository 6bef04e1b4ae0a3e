//! The option table: one definition per fio option diskmeter understands, driving parsing
//! ([`crate::apply_option`]), `--help`, the docs, [`crate::describe`] and
//! [`crate::JobSpec::default`] (STYLE rule 12).
//!
//! Each row names the option, its fio aliases, the kind of value it takes (which picks the
//! parser from `diskmeter-units`), its default, unit and range ([`Limits`]) as shown to users,
//! and a one-line help. The row also holds the two functions that store a parsed value in a
//! [`JobSpec`] and print it back. A plain option (one field, stored as parsed) is one
//! `plain!` row, whose field's shape (`shape.rs`) gives the kind and both functions; an
//! option with logic of its own has a hand-written setter and shower below the rows of its
//! group (for `rows_job.rs`, in `setters.rs`; the access-pattern ones of `rows_job.rs` and
//! `rows_run.rs`, in `pattern_setters.rs`). A range is written only in the row: the parser, [`crate::validate`] and `--help`
//! read it from there; a default is written only in the row: [`JobSpec::default`] applies
//! every row's default to a blank job (`defaults.rs`). docs/adding-an-option.md shows both
//! ways of adding an option.

mod category;
#[cfg(test)]
mod control_tests;
mod convert;
mod defaults;
mod error;
#[cfg(test)]
mod iolog_tests;
#[cfg(test)]
mod jobfile_tests;
mod limits;
#[cfg(test)]
mod more_tests;
mod pattern_setters;
mod rows_control;
mod rows_files;
mod rows_job;
mod rows_jobfile;
mod rows_log;
mod rows_run;
mod rows_system;
mod rows_trim;
mod rows_verify;
mod setters;
pub(crate) mod shape;
#[cfg(test)]
mod suggest_tests;
#[cfg(test)]
mod system_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trim_tests;
pub(crate) mod value;
#[cfg(test)]
mod verify_tests;
mod words;

use crate::JobSpec;
pub use category::{Category, COMMON_OPTIONS};
pub(crate) use defaults::default_job;
pub use error::InvalidValue;
pub use limits::{LimitError, Limits, Range, MAX_FILES_PER_RUN, MAX_WORKERS_PER_RUN};
pub(crate) use value::Value;

/// Stores a parsed value in a job; the error is the reason, without the option's name.
pub(crate) type Setter = fn(&mut JobSpec, Value) -> Result<(), InvalidValue>;

/// Prints a job's value the way the option would be written, or `None` when it is unset.
pub(crate) type Shower = fn(&JobSpec) -> Option<String>;

/// One option: its names, value kind, default and help.
#[derive(Debug)]
pub struct OptionDef {
    /// fio's name for the option (`bs`).
    pub name: &'static str,
    /// The heading `--help` lists it under.
    pub category: Category,
    /// Other names fio accepts for it (`blocksize`).
    pub aliases: &'static [&'static str],
    /// The kind of value, which decides how the text is parsed.
    pub kind: OptionKind,
    /// The default as a user would write it; empty when the default is "unset".
    pub default: &'static str,
    /// The unit of the value for help texts (`bytes`, `s`, `%`); empty when it has none.
    pub unit: &'static str,
    /// One line for `--help` and the docs, saying what the option does (its range is
    /// [`OptionDef::limits`], which help texts print after it).
    pub help: &'static str,
    /// The values accepted beyond what the kind parses, if the option has a range.
    pub limits: Option<Limits>,
    /// Stores the parsed value.
    pub(crate) set: Setter,
    /// Prints the job's value back (`None` for options that only alias another's state).
    pub(crate) show: Option<Shower>,
}

/// The kind of value an option takes; each maps onto one parser of `diskmeter-units`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// A boolean: `1` or `0`, or no value at all (= 1), like fio's `time_based`.
    Flag,
    /// A byte size with fio's suffixes (`4k`, `30g`), read under the job's `kb_base`.
    Size,
    /// A byte size, or a percentage of the target's size (`50%`), as fio's `size` and `offset`.
    SizeOrPercent,
    /// A byte size per direction: `4k` (both), `4k,64k` (read, write) or `,64k` (write only).
    SizePair,
    /// A count per direction, same shapes as [`OptionKind::SizePair`] (`rate_iops=3200,500`).
    IntPair,
    /// A time with fio's suffixes; seconds when none is given (`30`, `500ms`, `2m`).
    Time,
    /// A time with fio's suffixes; microseconds when none is given (fio's `thinktime`,
    /// `latency_target`: `500` = 500 us).
    TimeMicros,
    /// A whole number; fio's size suffixes apply (`1k` = 1024 under `kb_base=1024`).
    Int,
    /// Free text (names, paths).
    Str,
    /// Free text, or no value at all (fio's `write_bw_log` alone: the job's name is the
    /// prefix); no value is read as empty text.
    OptionalStr,
    /// One of a fixed list of words.
    Choice(&'static [&'static str]),
    /// A percentage, 0 to 100 (`70` or `70%`).
    Percent,
    /// A CPU list (`0-3,6`).
    CpuList,
    /// Numbers separated by ':' (`50:99:99.9`).
    FloatList,
}

impl OptionKind {
    /// A short example value, for "needs a value" messages and help.
    pub fn example(self) -> &'static str {
        match self {
            OptionKind::Flag => "1",
            OptionKind::Size => "1g",
            OptionKind::SizeOrPercent => "1g or 25%",
            OptionKind::SizePair => "4k or 4k,64k",
            OptionKind::IntPair => "3200 or 3200,500",
            OptionKind::Time => "60 or 500ms",
            OptionKind::TimeMicros => "500 or 2ms",
            OptionKind::Int => "4",
            OptionKind::Str | OptionKind::OptionalStr => "text",
            OptionKind::Choice(choices) => choices.first().copied().unwrap_or(""),
            OptionKind::Percent => "70",
            OptionKind::CpuList => "0-3,6",
            OptionKind::FloatList => "50:99:99.9",
        }
    }

    /// The value's name in `--help` (`--bs <SIZE>`); a flag's is `0|1`, an optional
    /// prefix's `PREFIX`.
    pub fn value_name(self) -> &'static str {
        match self {
            OptionKind::Flag => "0|1",
            OptionKind::OptionalStr => "PREFIX",
            OptionKind::Size | OptionKind::SizePair => "SIZE",
            OptionKind::SizeOrPercent => "SIZE|PCT%",
            OptionKind::Time | OptionKind::TimeMicros => "TIME",
            OptionKind::Int => "N",
            OptionKind::Percent => "PCT",
            OptionKind::CpuList => "CPUS",
            OptionKind::FloatList => "LIST",
            OptionKind::Choice(_) => "CHOICE",
            OptionKind::IntPair | OptionKind::Str => "VALUE",
        }
    }
}

impl OptionDef {
    /// The help line as `--help` and the docs print it: the help text, then the unit, range
    /// and default from the row: `IOs kept in flight per worker [unit: IOs] [range: 1 to
    /// 65536; ...] [default: 1]`.
    pub fn help_line(&self) -> String {
        let mut text = self.help.to_string();
        if !self.unit.is_empty() {
            text.push_str(&format!(" [unit: {}]", self.unit));
        }
        if let Some(limits) = self.limits {
            text.push_str(&format!(" [range: {}]", limits.help()));
        }
        if !self.default.is_empty() {
            text.push_str(&format!(" [default: {}]", self.default));
        }
        text
    }
}

/// The groups of rows, in the order `--help`, the docs and `describe` list them (the order
/// matters: `kb_base` comes before every size, so `describe`'s list reads back the same).
/// Each group is one `rows_*.rs` file, one area of fio's option categories each: the job's
/// subject and IO shape, how it runs, logs and traces, job-file compatibility, files and
/// buffers, flow and zones, trims and errors, verification, and CPUs, priorities and
/// engine options.
static GROUPS: &[&[OptionDef]] = &[
    rows_job::ROWS,
    rows_run::ROWS,
    rows_log::ROWS,
    rows_jobfile::ROWS,
    rows_files::ROWS,
    rows_control::ROWS,
    rows_trim::ROWS,
    rows_verify::ROWS,
    rows_system::ROWS,
];

/// Every option diskmeter understands, in table order.
pub fn all_options() -> impl Iterator<Item = &'static OptionDef> + Clone {
    GROUPS.iter().flat_map(|group| group.iter())
}

/// The range in the row of the option called `name`, if it has one.
pub fn limits_of(name: &str) -> Option<Limits> {
    find_option(name).and_then(|def| def.limits)
}

/// The definition of the option called `name` or one of its aliases, exactly as fio spells it.
pub fn find_option(name: &str) -> Option<&'static OptionDef> {
    all_options().find(|def| def.name == name || def.aliases.contains(&name))
}

/// The known option name (or alias) nearest to `name`, when it is close enough to be a typo.
///
/// "Close enough" is fio's rule (`string_distance_ok`): at most half the length of `name`, and
/// at least one edit is always allowed.
pub fn suggest_option(name: &str) -> Option<&'static str> {
    let names =
        all_options().flat_map(|def| std::iter::once(def.name).chain(def.aliases.iter().copied()));
    nearest(name, names)
}

/// The candidate nearest to `word` by edit distance, if within fio's typo limit (the rule of
/// [`suggest_option`]). Front-ends use it for names outside the table (fio's own options).
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word: Vec<char> = word.chars().collect();
    let limit = word.len().div_ceil(2).max(1);
    let mut rows = EditRows::default();
    candidates
        .into_iter()
        // The distance is at least the difference in length: a candidate that differs by
        // more than the limit cannot be near, and comparing a line of garbage thousands of
        // characters long with every option name would cost seconds (found by fuzzing).
        .filter(|candidate| candidate.chars().count().abs_diff(word.len()) <= limit)
        .filter_map(|candidate| Some((rows.within(&word, candidate, limit)?, candidate)))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// The rows of a Levenshtein table, kept from one candidate to the next: a job file with a
/// thousand unknown names compares each with hundreds of names, and allocating rows for
/// every comparison was most of its cost.
#[derive(Default)]
struct EditRows {
    candidate: Vec<char>,
    previous: Vec<usize>,
    current: Vec<usize>,
}

impl EditRows {
    /// The Levenshtein distance over chars between `word` and `candidate` when it is at most
    /// `limit`; `None` as soon as a row shows it is more (no cell of a later row, and so not
    /// the distance, can be smaller than the smallest of a row).
    fn within(&mut self, word: &[char], candidate: &str, limit: usize) -> Option<usize> {
        self.candidate.clear();
        self.candidate.extend(candidate.chars());
        self.previous.clear();
        self.previous.extend(0..=self.candidate.len());
        for (i, a) in word.iter().enumerate() {
            self.current.clear();
            self.current.push(i + 1);
            let mut smallest = i + 1;
            for (j, b) in self.candidate.iter().enumerate() {
                let substitution = self.previous[j] + usize::from(a != b);
                let cell = substitution
                    .min(self.previous[j + 1] + 1)
                    .min(self.current[j] + 1);
                self.current.push(cell);
                smallest = smallest.min(cell);
            }
            if smallest > limit {
                return None;
            }
            std::mem::swap(&mut self.previous, &mut self.current);
        }
        let distance = self.previous.last().copied().unwrap_or(0);
        (distance <= limit).then_some(distance)
    }
}
