//! Values as fio 3.33's option parser reads them, including the forms it reads other than
//! written (`runtime=30sec` is 30 us to fio, `size=1.5m` is 1 byte), each with a note that
//! says so.
//!
//! A job file means what it means to fio ("same file, same work"), so the fio front-ends
//! (job files and the `run` command line) read these forms as fio does and warn, one line
//! per value. diskmeter's own inputs (requirements, demands, Iometer's `...ns` times) keep
//! the strict [`parse_size`] and [`parse_time_ns`], which refuse them.
//!
//! The rules are fio's code, `parse.c` at fio-3.33 (commit 72bcaffd7d56): `str_to_decimal`
//! reads the number with `strtoll` (base 16 when the text holds `0x`), then
//! `get_mult_bytes` / `get_mult_time` look at what follows the digits: when it is not a
//! letter (a '.', a blank, a non-ASCII character) there is no unit; when it is, only its
//! start is compared (`kib` then `k` for sizes; `us`, `ms` on two letters, `s m h d` exactly
//! for times), and an unknown word multiplies by 1 (a byte, a microsecond).

use crate::number::{leading_number, split_fraction, starts_fraction, Leading};
use crate::{format_size_suffix, format_time_suffix, parse_size, parse_time_ns};
use crate::{parse_int, KbBase, TimeUnit, UnitError};

/// A value as fio reads it, in bytes (or a count) or nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioValue {
    /// fio's value.
    pub value: u64,
    /// When fio reads the text other than written: what it reads and how to write what was
    /// meant, e.g. "read as fio 3.33 reads it, 30us (...); write 30s for 30 seconds". The
    /// caller puts the option in front.
    pub note: Option<String>,
}

impl FioValue {
    fn exact(value: u64) -> Self {
        FioValue { value, note: None }
    }
}

/// fio's time units, for the notes.
const FIO_TIME_UNITS: &str = "fio's time units are d, h, m, s, ms/msec, us/usec right after a \
     whole number; any other word is microseconds";

/// fio's size units, for the notes.
const FIO_SIZE_UNITS: &str =
    "fio's units are k, m, g, t, p, optionally followed by i and/or b, right after a whole number";

/// [`parse_size`], except that the forms fio 3.33 reads other than written give fio's value
/// with a note. Errors are [`parse_size`]'s (a percentage stays [`UnitError::Percent`]).
///
/// ```
/// use diskmeter_units::{parse_size_as_fio, KbBase};
/// assert_eq!(parse_size_as_fio("4k", KbBase::Binary).unwrap().value, 4096);
/// let misread = parse_size_as_fio("1.5m", KbBase::Binary).unwrap();
/// assert_eq!(misread.value, 1); // fio stops at the '.'
/// assert!(misread.note.unwrap().contains("write 1536k"));
/// ```
pub fn parse_size_as_fio(text: &str, kb_base: KbBase) -> Result<FioValue, UnitError> {
    as_fio(parse_size(text, kb_base), text, kb_base)
}

/// [`parse_int`] read as fio reads it, as [`parse_size_as_fio`] does for sizes.
pub fn parse_int_as_fio(text: &str, kb_base: KbBase) -> Result<FioValue, UnitError> {
    as_fio(parse_int(text, kb_base), text, kb_base)
}

fn as_fio(
    strict: Result<u64, UnitError>,
    text: &str,
    kb_base: KbBase,
) -> Result<FioValue, UnitError> {
    match strict {
        Ok(value) => Ok(FioValue::exact(value)),
        Err(error @ (UnitError::Fraction { .. } | UnitError::Malformed { .. })) => {
            fio_size(text.trim(), kb_base).ok_or(error)
        }
        Err(error) => Err(error),
    }
}

/// fio's reading of a size the strict parser refused, with its note; `None` where fio
/// refuses it too (no number) or diskmeter keeps refusing (arithmetic, overflow).
fn fio_size(text: &str, kb_base: KbBase) -> Option<FioValue> {
    let Leading { value, rest, hex } = leading_number(text, "a size", "").ok()?;
    if !hex && (text.contains("0x") || text.contains("0X")) {
        // strtoll would read the digits in base 16: too odd to reproduce; keep refusing.
        return None;
    }
    let lower = rest.to_ascii_lowercase();
    let starts_letter = lower.starts_with(|c: char| c.is_ascii_alphabetic());
    let (multiplier, unit_len) = if hex || !starts_letter {
        (1, 0)
    } else {
        fio_mult_bytes(&lower, kb_base)
    };
    let fio = value.checked_mul(multiplier)?;
    let advice = if hex {
        let meant = crate::size::suffix_value(rest, value, kb_base);
        match meant {
            Some(bytes) => format!(
                "a hex number takes no unit in fio; write {bytes:#x} or {value}{rest} for \
                 {text}"
            ),
            None => format!("a hex number takes no unit in fio ('{rest}' is dropped)"),
        }
    } else if starts_fraction(rest) {
        let (fraction, suffix) = split_fraction(rest);
        match crate::size::exact_fraction(value, fraction, suffix, kb_base) {
            _ if suffix.is_empty() => "fio stops at the '.': whole numbers only".to_string(),
            _ if suffix.starts_with('%') => "fio stops at the '.', so this is a byte count, not \
                 a share of the file (shares are whole percentages)"
                .to_string(),
            Some(bytes) => format!(
                "fio stops at the '.'; write {} for {text}",
                format_size_suffix(bytes, kb_base)
            ),
            None => "fio stops at the '.'; use a smaller unit and a whole number".to_string(),
        }
    } else if rest.starts_with(char::is_whitespace) {
        format!(
            "fio reads no unit after a blank; write {value}{} for {text}",
            rest.trim()
        )
    } else if unit_len > 0 {
        format!(
            "fio reads '{}' and ignores what follows; {FIO_SIZE_UNITS}",
            &rest[..unit_len]
        )
    } else {
        format!("fio ignores '{rest}'; {FIO_SIZE_UNITS}")
    };
    Some(FioValue {
        value: fio,
        note: Some(format!("read as fio 3.33 reads it, {fio} ({advice})")),
    })
}

/// fio 3.33's `__get_mult_bytes` on a lower-case suffix that starts with a letter: the
/// multiplier and how many letters it used (0 when none matched: a multiplier of 1).
fn fio_mult_bytes(lower: &str, kb_base: KbBase) -> (u64, usize) {
    const PREFIXES: [char; 5] = ['k', 'm', 'g', 't', 'p'];
    let Some(first) = lower.chars().next() else {
        return (1, 0);
    };
    let Some(power) = PREFIXES.iter().position(|&p| p == first) else {
        return (1, 0);
    };
    let (base, length) = if lower[1..].starts_with("ib") {
        (kb_base.iec_multiplier(), 3)
    } else {
        (kb_base.multiplier(), 1)
    };
    match base.checked_pow(power as u32 + 1) {
        Some(multiplier) => (multiplier, length),
        None => (u64::MAX, length),
    }
}

/// [`parse_time_ns`], except that the forms fio 3.33 reads other than written give fio's
/// value (in nanoseconds) with a note; `7ns`, which fio reads as 7 us, is one of them (the
/// strict parser keeps nanoseconds for diskmeter's own front-ends).
///
/// ```
/// use diskmeter_units::{parse_time_as_fio, TimeUnit};
/// let misread = parse_time_as_fio("30sec", TimeUnit::Seconds).unwrap();
/// assert_eq!(misread.value, 30_000); // 30 microseconds
/// assert!(misread.note.unwrap().ends_with("write 30s for 30 seconds"));
/// ```
pub fn parse_time_as_fio(text: &str, default_unit: TimeUnit) -> Result<FioValue, UnitError> {
    let trimmed = text.trim();
    match parse_time_ns(trimmed, default_unit) {
        Ok(value) if !is_nanos(trimmed) => Ok(FioValue::exact(value)),
        Ok(_) | Err(UnitError::Fraction { .. } | UnitError::Malformed { .. }) => {
            fio_time(trimmed, default_unit).ok_or_else(|| {
                parse_time_ns(trimmed, default_unit)
                    .err()
                    .unwrap_or(UnitError::Overflow {
                        text: trimmed.to_string(),
                        what: "a time",
                    })
            })
        }
        Err(error) => Err(error),
    }
}

/// True when `text` ends in diskmeter's own `ns`/`nsec`, which fio does not know.
fn is_nanos(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.ends_with("ns") || lower.ends_with("nsec")
}

/// fio's reading of a time the strict parser refused (or read as nanoseconds), with its note.
fn fio_time(text: &str, default_unit: TimeUnit) -> Option<FioValue> {
    let Leading { value, rest, hex } = leading_number(text, "a time", "").ok()?;
    if !hex && (text.contains("0x") || text.contains("0X")) {
        return None;
    }
    let lower = rest.to_ascii_lowercase();
    // With hex the suffix starts at the 'x' of '0x', a letter.
    let unit_ns = if hex {
        1_000
    } else if !lower.starts_with(|c: char| c.is_ascii_alphabetic()) {
        default_unit.nanos()
    } else if lower.starts_with("us") {
        1_000
    } else if lower.starts_with("ms") {
        1_000_000
    } else {
        match lower.as_str() {
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "d" => 86_400_000_000_000,
            _ => 1_000,
        }
    };
    let fio = value.checked_mul(unit_ns)?;
    let meant = meant_time(value, rest, hex, default_unit);
    let advice = match meant {
        Some((ns, words)) if ns != fio => format!("; write {} for {words}", format_time_suffix(ns)),
        _ if lower == "ns" || lower == "nsec" => "; fio has no nanoseconds".to_string(),
        _ => String::new(),
    };
    Some(FioValue {
        value: fio,
        note: Some(format!(
            "read as fio 3.33 reads it, {} ({FIO_TIME_UNITS}){advice}",
            format_time_suffix(fio)
        )),
    })
}

/// What a time fio misreads most likely means, in nanoseconds, and in words: `30sec` is
/// 30 seconds, `1.5s` 1500 ms, `5 ms` 5 ms, `10µs` 10 us; `None` when that is unclear.
fn meant_time(value: u64, rest: &str, hex: bool, default_unit: TimeUnit) -> Option<(u64, String)> {
    let (whole, fraction, suffix) = if starts_fraction(rest) {
        let (fraction, suffix) = split_fraction(rest);
        (value, fraction, suffix)
    } else {
        (value, "", rest)
    };
    let word = suffix.trim().to_ascii_lowercase();
    let (unit_ns, name) = match word.as_str() {
        "" if hex => return None,
        "" => (
            default_unit.nanos(),
            match default_unit {
                TimeUnit::Seconds => "seconds",
                TimeUnit::Milliseconds => "milliseconds",
                TimeUnit::Microseconds => "microseconds",
            },
        ),
        "s" | "sec" | "secs" | "second" | "seconds" => (1_000_000_000, "seconds"),
        "m" | "min" | "mins" | "minute" | "minutes" => (60_000_000_000, "minutes"),
        "h" | "hr" | "hrs" | "hour" | "hours" => (3_600_000_000_000, "hours"),
        "d" | "day" | "days" => (86_400_000_000_000, "days"),
        "ms" | "msec" => (1_000_000, "milliseconds"),
        "us" | "usec" | "µs" | "μs" => (1_000, "microseconds"),
        _ => return None,
    };
    if fraction.len() > 18 {
        return None;
    }
    let scale = 10u128.pow(fraction.len() as u32);
    let numerator = (u128::from(whole) * scale + fraction.parse::<u128>().unwrap_or(0))
        .checked_mul(u128::from(unit_ns))?;
    if numerator % scale != 0 {
        return None;
    }
    let ns = u64::try_from(numerator / scale).ok()?;
    let number = if fraction.is_empty() {
        whole.to_string()
    } else {
        format!("{whole}.{fraction}")
    };
    Some((ns, format!("{number} {name}")))
}

#[cfg(test)]
#[path = "fio_reading_tests.rs"]
mod tests;
