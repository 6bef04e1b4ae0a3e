//! The range of values an option accepts, written once in its table row ([`Limits`]) and read
//! by the three places that need it: the parser refuses a value outside it
//! ([`Limits::check`], through [`crate::apply_option`]), [`crate::validate`] checks jobs built
//! in code against it ([`LimitError::requirement`]), and `--help` prints it
//! ([`Limits::help`], through [`super::OptionDef::help_line`]).
//!
//! A limit is the option's own (fio's, or diskmeter's where it says so). Facts of an engine or
//! the kernel (io_uring's largest ring, 32768 entries) are different facts and stay with the
//! engine, which refuses a depth its ring cannot hold.

use super::value::Value;
use diskmeter_units::format_time_suffix;
use std::fmt;
use thiserror::Error;

/// The most workers (clones of every job) one run may have: fio's own limit on jobs in all
/// (`FIO_MAX_JOBS`); `numjobs`' row and the planner's count of a run's workers read it.
pub const MAX_WORKERS_PER_RUN: u64 = 4096;

/// The most files one run may name (`nrfiles` per clone, over every job): every file is planned
/// (a path, a size, an entry in the index) before the run starts, so a count in the billions
/// would exhaust memory before anything could be refused. fio sets no limit of its own;
/// a million files is past any real job file's (fio's metadata examples make 500,000).
/// `nrfiles`' row and the planner's count read it.
pub const MAX_FILES_PER_RUN: u64 = 1_000_000;

/// An option's range, and why it has it when that is not obvious.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// The values accepted.
    pub range: Range,
    /// Why the range is what it is, for messages and help (empty when it goes without saying).
    pub why: &'static str,
}

/// The values a numeric option accepts, by the shape of its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// Whole numbers from `min`, up to `max` when the option has a ceiling of its own (else
    /// the field's type decides: a count stored in 32 bits).
    Int {
        /// The smallest value accepted.
        min: u64,
        /// The largest value accepted, if the option has one.
        max: Option<u64>,
    },
    /// Percentages from `min` to `max`, whole ones only when `whole` (the percentage values
    /// of an option; a byte size given to `size` instead is not a percentage).
    Percent {
        /// The smallest percentage.
        min: f64,
        /// The largest percentage.
        max: f64,
        /// Only whole percentages (the option stores them in whole units).
        whole: bool,
    },
    /// Times of at least `min_ns`.
    TimeAtLeast {
        /// The shortest time accepted, ns.
        min_ns: u64,
    },
    /// Lists of at most `max_items` numbers, each from `min` to `max`.
    List {
        /// The most items.
        max_items: usize,
        /// The smallest item.
        min: f64,
        /// The largest item.
        max: f64,
        /// What an item is called ("percentile").
        item: &'static str,
    },
}

/// Why a value is outside its option's [`Limits`]; the parser puts the option in front.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LimitError {
    /// A whole number outside a range with both ends.
    #[error("must be from {min} to {max}{}", why_suffix(why))]
    IntOutside {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
        /// Why, if the row says.
        why: &'static str,
    },
    /// A whole number below a range open at the top.
    #[error("must be at least {min}{}", why_suffix(why))]
    IntBelow {
        /// The smallest value.
        min: u64,
        /// Why, if the row says.
        why: &'static str,
    },
    /// A percentage outside its range, or a fraction where whole ones are needed.
    #[error("must be a {}percentage from {min} to {max}", if *whole { "whole " } else { "" })]
    Percent {
        /// The smallest percentage.
        min: f64,
        /// The largest percentage.
        max: f64,
        /// Only whole percentages.
        whole: bool,
    },
    /// A time shorter than the range allows.
    #[error("must be at least {}{}", format_time_suffix(*min_ns), why_suffix(why))]
    TimeBelow {
        /// The shortest time, ns.
        min_ns: u64,
        /// Why, if the row says.
        why: &'static str,
    },
    /// A list with too many items.
    #[error("at most {max_items} {item}s{}; {given} given", why_suffix(why))]
    TooManyItems {
        /// The most items.
        max_items: usize,
        /// What an item is called.
        item: &'static str,
        /// How many were given.
        given: usize,
        /// Why, if the row says.
        why: &'static str,
    },
    /// A list item outside the items' range.
    #[error("{value} is not a {item}; use values from {min} to {max}")]
    ItemOutside {
        /// The item as parsed.
        value: f64,
        /// What an item is called.
        item: &'static str,
        /// The smallest item.
        min: f64,
        /// The largest item.
        max: f64,
    },
}

/// " (WHY)" or nothing.
fn why_suffix(why: &str) -> String {
    if why.is_empty() {
        String::new()
    } else {
        format!(" ({why})")
    }
}

impl Limits {
    /// Whole numbers of at least `min`.
    pub const fn at_least(min: u64) -> Limits {
        Limits {
            range: Range::Int { min, max: None },
            why: "",
        }
    }

    /// The same limits with a reason.
    pub const fn because(self, why: &'static str) -> Limits {
        Limits { why, ..self }
    }

    /// Whether a parsed value is inside the limits; values of a shape the range does not
    /// speak of pass (a byte size of `size`, whose percentage form has the range).
    pub(crate) fn check(&self, value: &Value) -> Result<(), LimitError> {
        let why = self.why;
        match (self.range, value) {
            (Range::Int { min, max }, Value::Number(n)) => match max {
                Some(max) if *n < min || *n > max => Err(LimitError::IntOutside { min, max, why }),
                None if *n < min => Err(LimitError::IntBelow { min, why }),
                _ => Ok(()),
            },
            (Range::Percent { min, max, whole }, Value::Percent(p)) => {
                percent_in(*p, min, max, whole)
            }
            (Range::TimeAtLeast { min_ns }, Value::Nanos(ns)) if *ns < min_ns => {
                Err(LimitError::TimeBelow { min_ns, why })
            }
            (
                Range::List {
                    max_items,
                    min,
                    max,
                    item,
                },
                Value::Floats(list),
            ) => {
                if list.len() > max_items {
                    return Err(LimitError::TooManyItems {
                        max_items,
                        item,
                        given: list.len(),
                        why,
                    });
                }
                match list.iter().find(|v| !(min..=max).contains(*v)) {
                    Some(&value) => Err(LimitError::ItemOutside {
                        value,
                        item,
                        min,
                        max,
                    }),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// The refusal of a value that is outside the limits in a way its kind cannot even hold
    /// (`rwmixread=101` in a job built in code): what [`crate::validate`] reports for it.
    pub fn refusal(&self) -> LimitError {
        let why = self.why;
        match self.range {
            Range::Int {
                min,
                max: Some(max),
            } => LimitError::IntOutside { min, max, why },
            Range::Int { min, max: None } => LimitError::IntBelow { min, why },
            Range::Percent { min, max, whole } => LimitError::Percent { min, max, whole },
            Range::TimeAtLeast { min_ns } => LimitError::TimeBelow { min_ns, why },
            Range::List { min, max, item, .. } => LimitError::ItemOutside {
                value: f64::NAN,
                item,
                min,
                max,
            },
        }
    }

    /// The range for `--help`: `1 to 65536`, `>= 1`, `0% to 100%, whole`, `>= 100ms`, `at
    /// most 20 percentiles, each 0 to 100`, then the reason if the row gives one.
    pub fn help(&self) -> String {
        self.to_string()
    }
}

impl LimitError {
    /// What a job's value must be, as [`crate::validate`] says it of a job (the parser's
    /// message speaks of the value as written): "must be between 1 and 65536", "must be at
    /// least 1", "every percentile must be between 0 and 100".
    pub fn requirement(&self) -> String {
        match self {
            LimitError::IntOutside { min, max, why } => {
                format!("must be between {min} and {max}{}", why_suffix(why))
            }
            LimitError::Percent { min, max, .. } => format!("must be between {min} and {max}"),
            LimitError::TooManyItems {
                max_items,
                item,
                why,
                ..
            } => format!("at most {max_items} {item}s{}", why_suffix(why)),
            LimitError::ItemOutside { item, min, max, .. } => {
                format!("every {item} must be between {min} and {max}")
            }
            LimitError::IntBelow { .. } | LimitError::TimeBelow { .. } => self.to_string(),
        }
    }
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.range {
            Range::Int {
                min,
                max: Some(max),
            } => write!(f, "{min} to {max}")?,
            Range::Int { min, max: None } => write!(f, ">= {min}")?,
            Range::Percent { min, max, whole } => {
                write!(f, "{min}% to {max}%")?;
                if whole {
                    f.write_str(", whole")?;
                }
            }
            Range::TimeAtLeast { min_ns } => write!(f, ">= {}", format_time_suffix(min_ns))?,
            Range::List {
                max_items,
                min,
                max,
                item,
            } => write!(f, "at most {max_items} {item}s, each {min} to {max}")?,
        }
        if !self.why.is_empty() {
            write!(f, "; {}", self.why)?;
        }
        Ok(())
    }
}

fn percent_in(p: f64, min: f64, max: f64, whole: bool) -> Result<(), LimitError> {
    if (min..=max).contains(&p) && (!whole || p.fract() == 0.0) {
        Ok(())
    } else {
        Err(LimitError::Percent { min, max, whole })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPTH: Limits = Limits {
        range: Range::Int {
            min: 1,
            max: Some(8),
        },
        why: "",
    };

    #[test]
    fn checks_say_what_the_range_is() {
        assert_eq!(DEPTH.check(&Value::Number(8)), Ok(()));
        assert_eq!(
            DEPTH.check(&Value::Number(9)).unwrap_err().to_string(),
            "must be from 1 to 8"
        );
        let counts = Limits::at_least(1).because("a job needs one");
        assert_eq!(
            counts.check(&Value::Number(0)).unwrap_err().to_string(),
            "must be at least 1 (a job needs one)"
        );
        // Shapes the range does not speak of pass: `size=1g` against a percentage range.
        let share = Limits {
            range: Range::Percent {
                min: 1.0,
                max: 100.0,
                whole: false,
            },
            why: "",
        };
        assert_eq!(
            share.check(&Value::Percent(0.0)).unwrap_err().to_string(),
            "must be a percentage from 1 to 100"
        );
        assert_eq!(share.check(&Value::Number(0)), Ok(()));
    }

    #[test]
    fn help_and_requirement_read_the_same_numbers() {
        assert_eq!(DEPTH.help(), "1 to 8");
        assert_eq!(DEPTH.refusal().requirement(), "must be between 1 and 8");
        assert_eq!(
            DEPTH.check(&Value::Number(0)).unwrap_err().requirement(),
            "must be between 1 and 8"
        );
        assert_eq!(Limits::at_least(1).help(), ">= 1");
    }

    /// Issue 13, "options defined once": the iodepth row with a ceiling of 8 instead of its own;
    /// the parser, the validator and the help line all follow the row.
    #[test]
    fn a_limit_change_in_the_row_shows_in_parse_validate_and_help() {
        use crate::options::{find_option, OptionDef};
        use crate::validate::validate_with;
        use crate::{apply_option, JobSpec};
        let iodepth = find_option("iodepth").unwrap();
        let changed = OptionDef {
            limits: Some(Limits {
                range: Range::Int {
                    min: 1,
                    max: Some(8),
                },
                why: "",
            }),
            ..*iodepth
        };
        // Parse.
        let mut spec = JobSpec::default();
        crate::apply::apply_def(&mut spec, &changed, "iodepth", Some("8"), true).unwrap();
        assert_eq!(spec.iodepth, 8);
        let error =
            crate::apply::apply_def(&mut spec, &changed, "iodepth", Some("9"), true).unwrap_err();
        assert_eq!(error.to_string(), "iodepth=9: must be from 1 to 8");
        // The real row takes 9.
        assert!(apply_option(&mut spec, "iodepth", Some("9")).is_ok());
        // Validate.
        let spec = JobSpec {
            name: "t".to_string(),
            iodepth: 9,
            ..JobSpec::default()
        };
        let messages: Vec<String> = validate_with(&spec, std::iter::once(&changed))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(messages, ["job 't': iodepth=9: must be between 1 and 8"]);
        assert!(crate::validate(&spec).is_empty());
        // Help.
        assert!(
            changed.help_line().contains("[range: 1 to 8]"),
            "{}",
            changed.help_line()
        );
        assert!(
            iodepth.help_line().contains("[range: 1 to 65536]"),
            "{}",
            iodepth.help_line()
        );
    }

    /// No help text restates a range its row holds: the numbers are generated from the row.
    #[test]
    fn help_texts_leave_ranges_to_the_rows() {
        for def in crate::all_options().filter(|def| def.limits.is_some()) {
            for phrase in [
                "0 to 100",
                "1 to 100",
                ">= 1",
                "at least 1",
                "at most 20",
                "65536",
                "100ms",
            ] {
                assert!(
                    !def.help.contains(phrase),
                    "{}'s help restates its range ({phrase}): {}",
                    def.name,
                    def.help
                );
            }
            assert!(def.help_line().contains("[range: "), "{}", def.name);
        }
    }

    /// `bs` must be a multiple of the sector alignment with direct=1: a rule of two options,
    /// so validate owns it (DIRECT_ALIGNMENT); the help's figure is pinned to that constant.
    #[test]
    fn the_bs_help_states_the_alignment_validate_checks() {
        let bs = crate::find_option("bs").unwrap();
        let phrase = format!("a multiple of {} with direct=1", crate::DIRECT_ALIGNMENT);
        assert!(bs.help.contains(&phrase), "{}", bs.help);
    }
}
