//! Turning an option's text into a typed value, chosen by its [`OptionKind`].
//!
//! All unit syntax lives in `diskmeter-units`; this file only adds the shapes fio layers on top:
//! bare flags, `read,write` pairs and word choices.

use super::error::InvalidValue;
use super::{nearest, OptionKind};
use diskmeter_units::{
    parse_bool, parse_cpu_list, parse_float_list, parse_int, parse_int_as_fio, parse_percent,
    parse_size, parse_size_as_fio, parse_time_as_fio, parse_time_ns, FioValue, KbBase, TimeUnit,
    UnitError,
};

/// Where a parsed value's notes go: `Some` reads the forms fio 3.33 reads other than written
/// as fio reads them (`runtime=30sec` is 30 us) and puts a note for each here; `None` is
/// diskmeter's strict reading, which refuses them (for values diskmeter wrote itself, such as
/// Iometer's `...ns` times).
pub(crate) type Notes<'a> = Option<&'a mut Vec<String>>;

/// A size (or, with `int`, a count) under `notes`' reading.
pub(crate) fn number_of(
    text: &str,
    kb_base: KbBase,
    int: bool,
    notes: &mut Notes<'_>,
) -> Result<u64, UnitError> {
    match notes {
        None if int => parse_int(text, kb_base),
        None => parse_size(text, kb_base),
        Some(notes) => {
            let read = if int {
                parse_int_as_fio(text, kb_base)?
            } else {
                parse_size_as_fio(text, kb_base)?
            };
            Ok(noted(read, notes))
        }
    }
}

/// A time in nanoseconds under `notes`' reading.
fn time_of(text: &str, unit: TimeUnit, notes: &mut Notes<'_>) -> Result<u64, UnitError> {
    match notes {
        None => parse_time_ns(text, unit),
        Some(notes) => Ok(noted(parse_time_as_fio(text, unit)?, notes)),
    }
}

fn noted(read: FioValue, notes: &mut Vec<String>) -> u64 {
    notes.extend(read.note);
    read.value
}

/// A parsed option value; which variant follows from the option's kind.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// From [`OptionKind::Flag`].
    Flag(bool),
    /// From [`OptionKind::Size`] and [`OptionKind::Int`].
    Number(u64),
    /// From [`OptionKind::SizePair`] and [`OptionKind::IntPair`].
    Pair(Pair),
    /// From [`OptionKind::Time`], in nanoseconds.
    Nanos(u64),
    /// From [`OptionKind::Str`] and [`OptionKind::OptionalStr`] (empty when no value was given).
    Text(String),
    /// From [`OptionKind::Choice`]: the choice as listed in the table.
    Choice(&'static str),
    /// From [`OptionKind::Percent`].
    Percent(f64),
    /// From [`OptionKind::CpuList`].
    Cpus(Vec<usize>),
    /// From [`OptionKind::FloatList`].
    Floats(Vec<f64>),
    /// From [`OptionKind::Size`] and [`OptionKind::SizeOrPercent`] with fio's `z` suffix: a
    /// number of zones of `zonesize` (`size=128z`), which the setter turns into bytes.
    Zones(u64),
}

/// A read,write value; `None` where the text left a direction out (`,64k` leaves read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pair {
    /// The read value, if given.
    pub read: Option<u64>,
    /// The write value, if given.
    pub write: Option<u64>,
    /// fio's third value, for trims (`bs=4k,4k,64k`), if given; only `bs` reads it.
    pub trim: Option<u64>,
}

/// Why a value could not be parsed; the caller adds the option's name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ValueError {
    /// No value where one is required.
    Missing,
    /// The units parser refused the text.
    Unit(UnitError),
    /// Any other shape problem.
    Invalid(InvalidValue),
}

impl From<UnitError> for ValueError {
    fn from(error: UnitError) -> Self {
        ValueError::Unit(error)
    }
}

/// Parses `text` as a value of `kind`; sizes and counts are read under `kb_base`.
///
/// With `notes`, values fio reads other than written are read as fio reads them, each with a
/// note pushed there (see [`Notes`]).
pub(crate) fn parse_value(
    kind: OptionKind,
    text: Option<&str>,
    kb_base: KbBase,
    mut notes: Notes<'_>,
) -> Result<Value, ValueError> {
    let text = match (kind, text) {
        // fio's `time_based` with no value means "on"; diskmeter extends that to every flag.
        (OptionKind::Flag, None) => return Ok(Value::Flag(true)),
        (OptionKind::OptionalStr, None) => return Ok(Value::Text(String::new())),
        (_, None) => return Err(ValueError::Missing),
        (_, Some(text)) => text,
    };
    if matches!(kind, OptionKind::Size | OptionKind::SizeOrPercent) {
        if let Some(zones) = zone_count(text) {
            return Ok(Value::Zones(zones));
        }
    }
    Ok(match kind {
        OptionKind::Flag => Value::Flag(parse_bool(text)?),
        OptionKind::Size => Value::Number(number_of(text, kb_base, false, &mut notes)?),
        OptionKind::SizeOrPercent => match number_of(text, kb_base, false, &mut notes) {
            Err(UnitError::Percent { .. }) => Value::Percent(parse_percent(text)?),
            other => Value::Number(other?),
        },
        OptionKind::Int => Value::Number(number_of(text, kb_base, true, &mut notes)?),
        OptionKind::SizePair | OptionKind::IntPair => {
            let int = matches!(kind, OptionKind::IntPair);
            let whole = text.trim();
            let mut one = |part: &str| -> Result<u64, UnitError> {
                let mut found = Vec::new();
                let mut part_notes = notes.is_some().then_some(&mut found);
                let value = number_of(part, kb_base, int, &mut part_notes)?;
                if let Some(notes) = notes.as_deref_mut() {
                    // A note on one value of several says which.
                    notes.extend(found.into_iter().map(|note| match part.trim() {
                        single if single == whole => note,
                        part => format!("'{part}' {note}"),
                    }));
                }
                Ok(value)
            };
            Value::Pair(parse_pair(text, &mut one)?)
        }
        OptionKind::Time => Value::Nanos(time_of(text, TimeUnit::Seconds, &mut notes)?),
        OptionKind::TimeMicros => Value::Nanos(time_of(text, TimeUnit::Microseconds, &mut notes)?),
        OptionKind::Str | OptionKind::OptionalStr => Value::Text(text.to_string()),
        OptionKind::Choice(choices) => {
            Value::Choice(parse_choice(text, choices).map_err(ValueError::Invalid)?)
        }
        OptionKind::Percent => Value::Percent(parse_percent(text)?),
        OptionKind::CpuList => Value::Cpus(parse_cpu_list(text)?),
        OptionKind::FloatList => Value::Floats(parse_float_list(text)?),
    })
}

/// fio's `z` suffix: `128z` is 128 zones; `None` for any other text.
fn zone_count(text: &str) -> Option<u64> {
    let digits = text.trim().strip_suffix(['z', 'Z'])?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// fio's per-direction values: `v` sets both, `r,w` each, `,w` only write, `r,` both (fio drops
/// one trailing comma). A third value is fio's trim setting, kept in `trim` (the options
/// other than `bs` check it and ignore it).
fn parse_pair(
    text: &str,
    parse: &mut dyn FnMut(&str) -> Result<u64, UnitError>,
) -> Result<Pair, ValueError> {
    let trimmed = text.trim();
    let body = trimmed.strip_suffix(',').unwrap_or(trimmed);
    // fio also splits on ':' and '-', so `bs=4k-64k` silently means read 4k, write 64k while
    // its author meant fio's bsrange; refuse instead of guessing.
    if body.contains(':') || body.char_indices().any(|(i, c)| c == '-' && i > 0) {
        return Err(ValueError::Invalid(InvalidValue::PairSeparator));
    }
    let parts: Vec<&str> = body.split(',').collect();
    let mut optional = |part: &str| -> Result<Option<u64>, ValueError> {
        if part.trim().is_empty() {
            Ok(None)
        } else {
            Ok(Some(parse(part)?))
        }
    };
    match parts.as_slice() {
        [single] => {
            let value = parse(single)?;
            Ok(Pair {
                read: Some(value),
                write: Some(value),
                trim: None,
            })
        }
        [read, write] | [read, write, _] => {
            let trim = match parts.get(2) {
                Some(trim) => optional(trim)?,
                None => None,
            };
            let pair = Pair {
                read: optional(read)?,
                write: optional(write)?,
                trim,
            };
            if pair.read.is_none() && pair.write.is_none() && pair.trim.is_none() {
                return Err(ValueError::Invalid(InvalidValue::PairEmpty));
            }
            Ok(pair)
        }
        _ => Err(ValueError::Invalid(InvalidValue::PairTooMany)),
    }
}

/// `text` when it is one of `choices`, else why not, with the nearest choice.
pub(super) fn parse_choice(
    text: &str,
    choices: &'static [&'static str],
) -> Result<&'static str, InvalidValue> {
    if let Some(choice) = choices.iter().find(|choice| **choice == text) {
        return Ok(choice);
    }
    Err(InvalidValue::NotAChoice {
        choices,
        suggestion: nearest(text, choices.iter().copied()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(text: &str) -> Result<Pair, ValueError> {
        parse_pair(text, &mut |part| parse_size(part, KbBase::Binary))
    }

    #[test]
    fn pair_shapes_follow_fio() {
        let both = Pair {
            read: Some(4096),
            write: Some(4096),
            trim: None,
        };
        assert_eq!(pair("4k"), Ok(both));
        assert_eq!(pair("4k,"), Ok(both));
        assert_eq!(
            pair("4k,64k"),
            Ok(Pair {
                read: Some(4096),
                write: Some(65536),
                trim: None,
            })
        );
        assert_eq!(
            pair(",64k"),
            Ok(Pair {
                read: None,
                write: Some(65536),
                trim: None,
            })
        );
        assert_eq!(
            pair("4k,64k,8k"),
            Ok(Pair {
                read: Some(4096),
                write: Some(65536),
                trim: Some(8192),
            })
        );
        assert_eq!(
            pair(",,8k"),
            Ok(Pair {
                read: None,
                write: None,
                trim: Some(8192),
            })
        );
    }

    #[test]
    fn pair_refusals_say_why() {
        for text in ["4k-64k", "4k:64k"] {
            assert!(
                matches!(pair(text), Err(ValueError::Invalid(reason)) if reason.to_string().contains("bsrange"))
            );
        }
        assert!(matches!(
            pair(","),
            Err(ValueError::Unit(UnitError::Empty { .. }))
        ));
        assert!(matches!(pair(",,"), Err(ValueError::Invalid(_))));
        assert!(matches!(pair("1,2,3,4"), Err(ValueError::Invalid(_))));
        assert!(matches!(pair("4q,4k"), Err(ValueError::Unit(_))));
        assert!(matches!(pair("4k,4k,4q"), Err(ValueError::Unit(_))));
        assert!(matches!(
            pair("-4k"),
            Err(ValueError::Unit(UnitError::Negative { .. }))
        ));
    }

    /// Issue 28: fio's percentage of a file is whole (`str_to_decimal` stops at the '.', so
    /// fio reads `12.5%` as 12 bytes); diskmeter refuses it, naming fio's reading.
    #[test]
    fn shares_of_a_file_are_whole_percentages() {
        assert_eq!(
            parse_value(OptionKind::SizeOrPercent, Some("50%"), KbBase::Binary, None),
            Ok(Value::Percent(50.0))
        );
        assert!(matches!(
            parse_value(OptionKind::SizeOrPercent, Some("12.5%"), KbBase::Binary, None),
            Err(ValueError::Unit(UnitError::Fraction { hint, .. })) if hint.contains("fio would read it as 12")
        ));
        // fio stops at the '.': 12 bytes, not a share.
        let mut notes = Vec::new();
        assert_eq!(
            parse_value(
                OptionKind::SizeOrPercent,
                Some("12.5%"),
                KbBase::Binary,
                Some(&mut notes)
            ),
            Ok(Value::Number(12))
        );
        assert!(notes[0].contains("not a share of the file"), "{notes:?}");
    }

    #[test]
    fn flags_may_be_bare() {
        assert_eq!(
            parse_value(OptionKind::Flag, None, KbBase::Binary, None),
            Ok(Value::Flag(true))
        );
        assert_eq!(
            parse_value(OptionKind::Size, None, KbBase::Binary, None),
            Err(ValueError::Missing)
        );
        assert_eq!(
            parse_value(OptionKind::OptionalStr, None, KbBase::Binary, None),
            Ok(Value::Text(String::new()))
        );
    }

    #[test]
    fn choices_suggest_the_nearest() {
        let error = parse_choice("randomread", &["read", "randread"]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "use one of read, randread (did you mean 'randread'?)"
        );
    }
}
