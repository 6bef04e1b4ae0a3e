//! fio's time values (`runtime=10`, `ramp_time=30s`, `1m`, `500ms`), read into nanoseconds.
//!
//! The rules, and where diskmeter departs from fio's code, are documented on [`parse_time_ns`].

use crate::number::{leading_number, split_fraction, starts_fraction, Leading};
use crate::UnitError;
use serde::{Deserialize, Serialize};

/// The unit a time option uses when the value has no suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    /// Seconds (fio's `runtime`, `ramp_time`).
    Seconds,
    /// Milliseconds.
    Milliseconds,
    /// Microseconds (fio's base unit for latency targets and think times).
    Microseconds,
}

impl TimeUnit {
    /// Nanoseconds in one of this unit.
    pub fn nanos(self) -> u64 {
        match self {
            TimeUnit::Seconds => NANOS_PER_SECOND,
            TimeUnit::Milliseconds => 1_000_000,
            TimeUnit::Microseconds => 1_000,
        }
    }
}

const NANOS_PER_SECOND: u64 = 1_000_000_000;

/// What the time suffix error lists as accepted.
const TIME_SUFFIXES: &str = "d, h, m (minutes), s, ms, us, ns";

/// [`parse_time_ns`] with seconds for a bare number (`12`, `12s`, `30m`), the rule of the
/// command line's duration options; usable as clap's value parser.
pub fn parse_seconds_ns(text: &str) -> Result<u64, UnitError> {
    parse_time_ns(text, TimeUnit::Seconds)
}

/// Parses a time the way fio 3.33's parser reads it, in nanoseconds.
///
/// The rules are fio's code, `parse.c` at fio-3.33 (commit 72bcaffd7d56), `str_to_decimal`
/// and `get_mult_time`, checked against fio itself by the generated value table in
/// `tests/parallel/jobfile.rs` (and in this crate's tests for times too long to run):
///
/// * A value is `[+][0x]number[suffix]`; without a suffix the option's default unit applies
///   (seconds for `runtime`, `ramp_time`, `startdelay`; microseconds for `thinktime` and the
///   latency targets).
/// * Suffixes, not case sensitive: `d` days, `h` hours, `m` **minutes** (never milli; fio has
///   no month or MiB here), `s` seconds, `ms`/`msec` milliseconds, `us`/`usec` microseconds.
///   diskmeter also reads `ns`/`nsec` (nanoseconds), which fio lacks (fio would read `7ns` as
///   7 microseconds); diskmeter's own front-ends (Iometer files) write times that way.
///
/// Where fio's code reads something other than what is written, diskmeter refuses with what
/// fio would read: `30sec`, `10min` and any other unknown word (fio: 30 and 10
/// *microseconds*, its `get_mult_time` knows only the exact `s`, `m`, `h`, `d`), `10msfoo`
/// (fio: 10 ms, it compares only the first two letters of `ms` and `us`), `1.5s` (fio: 1 of
/// the default unit), `10 ms` (fio: 10 of the default unit), a hex number with a unit, or
/// in an option whose default unit is not microseconds (fio reads hex in microseconds).
///
/// ```
/// use diskmeter_units::{parse_time_ns, TimeUnit};
/// assert_eq!(parse_time_ns("10", TimeUnit::Seconds), Ok(10_000_000_000));
/// assert_eq!(parse_time_ns("1m", TimeUnit::Seconds), Ok(60_000_000_000)); // minutes
/// assert_eq!(parse_time_ns("500ms", TimeUnit::Seconds), Ok(500_000_000));
/// assert!(parse_time_ns("30sec", TimeUnit::Seconds).is_err()); // fio: 30 microseconds
/// ```
pub fn parse_time_ns(text: &str, default_unit: TimeUnit) -> Result<u64, UnitError> {
    let text = text.trim();
    let Leading {
        value: number,
        rest,
        hex,
    } = leading_number(text, "a time", " (e.g. 10, 30s, 500ms, 2m)")?;
    if hex && (!rest.is_empty() || default_unit != TimeUnit::Microseconds) {
        return Err(hex_error(text, number, rest));
    }
    if starts_fraction(rest) {
        return Err(fraction_error(text, number, rest, default_unit));
    }
    let unit = suffix_nanos(rest, default_unit)
        .ok_or_else(|| suffix_error(text, number, rest, default_unit))?;
    number.checked_mul(unit).ok_or_else(|| UnitError::Overflow {
        text: text.to_string(),
        what: "a time",
    })
}

/// The error for a hex time that fio reads in microseconds whatever the option's unit:
/// `get_mult_time` sees the `x` of `0x` as an unknown suffix.
fn hex_error(text: &str, number: u64, rest: &str) -> UnitError {
    let dropped = if rest.is_empty() {
        String::new()
    } else {
        format!(", dropping '{rest}'")
    };
    UnitError::Malformed {
        text: text.to_string(),
        what: "a time",
        reason: format!(
            "fio reads a hex time as microseconds whatever the option's unit (here \
             {number}us{dropped}); write it in decimal with its unit, e.g. {number}us"
        ),
    }
}

/// Nanoseconds per unit of `suffix`, or `None` when it is not a time suffix.
fn suffix_nanos(suffix: &str, default_unit: TimeUnit) -> Option<u64> {
    Some(match suffix.to_ascii_lowercase().as_str() {
        "" => default_unit.nanos(),
        "d" => 24 * 3600 * NANOS_PER_SECOND,
        "h" => 3600 * NANOS_PER_SECOND,
        "m" => 60 * NANOS_PER_SECOND,
        "s" => NANOS_PER_SECOND,
        "ms" | "msec" => 1_000_000,
        "us" | "usec" => 1_000,
        "ns" | "nsec" => 1,
        _ => return None,
    })
}

fn suffix_error(text: &str, number: u64, suffix: &str, default_unit: TimeUnit) -> UnitError {
    let lower = suffix.trim().to_ascii_lowercase();
    let fio = fio_reading(number, suffix, default_unit);
    if suffix.starts_with(char::is_whitespace) && suffix_nanos(&lower, TimeUnit::Seconds).is_some()
    {
        return UnitError::Malformed {
            text: text.to_string(),
            what: "a time",
            reason: format!(
                "write the unit right after the number, e.g. {}{} (fio would read it as {fio})",
                text.split_whitespace().next().unwrap_or(""),
                lower
            ),
        };
    }
    let hint = match lower.as_str() {
        "min" | "mins" | "minute" | "minutes" => "; minutes are 'm'",
        "sec" | "secs" | "second" | "seconds" => "; seconds are 's'",
        "hr" | "hrs" | "hour" | "hours" => "; hours are 'h'",
        "day" | "days" => "; days are 'd'",
        "µs" | "μs" => "; microseconds are 'us'",
        _ => "",
    };
    UnitError::Malformed {
        text: text.to_string(),
        what: "a time",
        reason: format!(
            "unknown suffix '{suffix}' (use {TIME_SUFFIXES}){hint}; fio would read it as {fio}"
        ),
    }
}

/// What fio 3.33's `get_mult_time` makes of `number` and a `suffix` diskmeter refuses, for
/// the message: no letter after the digits is the option's unit, `us...` and `ms...` are
/// matched on their first two letters, and any other word is a multiplier of 1, i.e.
/// microseconds.
fn fio_reading(number: u64, suffix: &str, default_unit: TimeUnit) -> String {
    let lower = suffix.to_ascii_lowercase();
    let unit_ns = if !lower.starts_with(|c: char| c.is_ascii_alphabetic()) {
        default_unit.nanos()
    } else if lower.starts_with("ms") {
        1_000_000
    } else {
        1_000
    };
    format_time_suffix(number.saturating_mul(unit_ns))
}

fn fraction_error(text: &str, whole: u64, rest: &str, default_unit: TimeUnit) -> UnitError {
    let (fraction, suffix) = split_fraction(rest);
    let exact = suffix_nanos(suffix, default_unit).and_then(|unit| {
        if fraction.len() > 18 {
            return None;
        }
        let scale = 10u128.pow(fraction.len() as u32);
        let numerator = (u128::from(whole) * scale + fraction.parse::<u128>().ok()?)
            .checked_mul(u128::from(unit))?;
        (numerator % scale == 0)
            .then(|| u64::try_from(numerator / scale).ok())
            .flatten()
    });
    // fio's get_mult_time sees the '.' as no unit at all: the whole part in the default unit.
    let fio_reads = format_time_suffix(whole.saturating_mul(default_unit.nanos()));
    let hint = match exact {
        Some(ns) => format!(
            "fio would read it as {fio_reads}; write {}",
            format_time_suffix(ns)
        ),
        None => format!("fio would read it as {fio_reads}; use a smaller unit and a whole number"),
    };
    UnitError::Fraction {
        text: text.to_string(),
        what: "a time",
        hint,
    }
}

/// Writes `ns` with the largest of `s`, `ms`, `us`, `ns` that keeps it exact, in a form
/// [`parse_time_ns`] reads back to the same value: `10_000_000_000` -> `"10s"`,
/// `1_500_000_000` -> `"1500ms"`.
///
/// Minutes and hours are never used, so `m` cannot be misread as milli or MiB.
pub fn format_time_suffix(ns: u64) -> String {
    if ns == 0 {
        return "0s".to_string();
    }
    for (unit, suffix) in [(NANOS_PER_SECOND, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if ns.is_multiple_of(unit) {
            return format!("{}{suffix}", ns / unit);
        }
    }
    format!("{ns}ns")
}

#[cfg(test)]
mod tests {
    use super::*;
    use TimeUnit::{Microseconds, Milliseconds, Seconds};

    const S: u64 = NANOS_PER_SECOND;

    #[test]
    fn bare_numbers_use_the_default_unit() {
        assert_eq!(parse_time_ns("10", Seconds), Ok(10 * S));
        assert_eq!(parse_time_ns("10", Milliseconds), Ok(10_000_000));
        assert_eq!(parse_time_ns("10", Microseconds), Ok(10_000));
        // fio reads hex in microseconds, so it means what it says only there.
        assert_eq!(parse_time_ns("0x10", Microseconds), Ok(16_000));
        assert_eq!(parse_time_ns("+2", Seconds), Ok(2 * S));
    }

    #[test]
    fn hex_is_refused_where_fio_reads_microseconds_instead() {
        assert_eq!(
            parse_time_ns("0x10", Seconds).unwrap_err().to_string(),
            "'0x10' is not a time: fio reads a hex time as microseconds whatever the option's \
             unit (here 16us); write it in decimal with its unit, e.g. 16us"
        );
        assert!(parse_time_ns("0x10s", Microseconds)
            .unwrap_err()
            .to_string()
            .contains("dropping 's'"));
    }

    /// fio's `get_mult_time` knows `s` but not `sec`: `runtime=30sec` is 30 us to fio.
    #[test]
    fn sec_and_min_are_refused_with_fios_reading() {
        assert_eq!(
            parse_time_ns("30sec", Seconds).unwrap_err().to_string(),
            "'30sec' is not a time: unknown suffix 'sec' (use d, h, m (minutes), s, ms, us, ns); \
             seconds are 's'; fio would read it as 30us"
        );
        assert!(parse_time_ns("10MIN", Seconds)
            .unwrap_err()
            .to_string()
            .contains("fio would read it as 10us"));
        assert!(parse_time_ns("10µs", Seconds)
            .unwrap_err()
            .to_string()
            .ends_with("microseconds are 'us'; fio would read it as 10s"));
        assert!(parse_time_ns("10msfoo", Seconds)
            .unwrap_err()
            .to_string()
            .ends_with("fio would read it as 10ms"));
        assert!(parse_time_ns("10 ms", Seconds)
            .unwrap_err()
            .to_string()
            .ends_with("e.g. 10ms (fio would read it as 10s)"));
    }

    #[test]
    fn every_suffix() {
        assert_eq!(parse_time_ns("2d", Seconds), Ok(2 * 86_400 * S));
        assert_eq!(parse_time_ns("2h", Seconds), Ok(7_200 * S));
        assert_eq!(parse_time_ns("1m", Seconds), Ok(60 * S));
        assert_eq!(parse_time_ns("1M", Microseconds), Ok(60 * S));
        assert_eq!(parse_time_ns("30s", Microseconds), Ok(30 * S));
        assert_eq!(parse_time_ns("500ms", Seconds), Ok(500_000_000));
        assert_eq!(parse_time_ns("500MSEC", Seconds), Ok(500_000_000));
        assert_eq!(parse_time_ns("250us", Seconds), Ok(250_000));
        assert_eq!(parse_time_ns("250usec", Seconds), Ok(250_000));
        assert_eq!(parse_time_ns("7ns", Seconds), Ok(7));
        assert_eq!(parse_time_ns("7nsec", Seconds), Ok(7));
    }

    #[test]
    fn bad_suffixes_say_what_to_use() {
        assert_eq!(
            parse_time_ns("10q", Seconds).unwrap_err().to_string(),
            "'10q' is not a time: unknown suffix 'q' (use d, h, m (minutes), s, ms, us, ns); fio \
             would read it as 10us"
        );
        assert!(parse_time_ns("10min", Seconds)
            .unwrap_err()
            .to_string()
            .contains("minutes are 'm'"));
        assert!(parse_time_ns("10 s", Seconds)
            .unwrap_err()
            .to_string()
            .contains("e.g. 10s"));
        assert!(parse_time_ns("10msfoo", Seconds).is_err());
    }

    #[test]
    fn fractions_are_refused_with_the_exact_alternative() {
        assert_eq!(
            parse_time_ns("1.5s", Seconds).unwrap_err().to_string(),
            "'1.5s' is not a time: fractions are not allowed (fio would read it as 1s; write \
             1500ms)"
        );
        assert!(parse_time_ns("0.5", Seconds)
            .unwrap_err()
            .to_string()
            .contains("write 500ms"));
    }

    #[test]
    fn negative_empty_overflow() {
        assert!(matches!(
            parse_time_ns("-1", Seconds),
            Err(UnitError::Negative { .. })
        ));
        assert!(matches!(
            parse_time_ns(" ", Seconds),
            Err(UnitError::Empty { .. })
        ));
        assert!(matches!(
            parse_time_ns("1000000d", Seconds),
            Err(UnitError::Overflow { .. })
        ));
    }

    #[test]
    fn compact_formatting() {
        assert_eq!(format_time_suffix(10 * S), "10s");
        assert_eq!(format_time_suffix(120 * S), "120s");
        assert_eq!(format_time_suffix(1_500_000_000), "1500ms");
        assert_eq!(format_time_suffix(250_000), "250us");
        assert_eq!(format_time_suffix(7), "7ns");
        assert_eq!(format_time_suffix(0), "0s");
    }
}

/// Issue 28: a generated table of times too long to run under fio (`2d`, `7h`), against fio's
/// own table. The multipliers are those of `get_mult_time` in fio's `parse.c` at fio-3.33
/// (commit 72bcaffd7d56): `us`/`usec` 1, `ms`/`msec` 1,000, `s` 10^6, `m` 60 x 10^6, `h` 3,600
/// x 10^6, `d` 86,400 x 10^6 microseconds, compared without case; no suffix is the option's
/// unit (`is_seconds`: 10^6, else 1). The shorter times are run through fio in
/// `tests/parallel/jobfile.rs`.
#[cfg(test)]
mod fio_table {
    use super::*;

    /// fio 3.33 parse.c `get_mult_time`: microseconds per unit.
    const FIO_MULT_TIME_US: [(&str, u64); 8] = [
        ("us", 1),
        ("usec", 1),
        ("ms", 1_000),
        ("msec", 1_000),
        ("s", 1_000_000),
        ("m", 60 * 1_000_000),
        ("h", 60 * 60 * 1_000_000),
        ("d", 24 * 60 * 60 * 1_000_000),
    ];

    #[test]
    fn every_suffix_case_and_default_unit_reads_as_fios_table() {
        let mut checked = 0;
        for number in [0u64, 1, 2, 7, 30, 365, 1000] {
            for (default_unit, default_us) in [
                (TimeUnit::Seconds, 1_000_000u64),
                (TimeUnit::Microseconds, 1),
            ] {
                let bare = number.to_string();
                assert_eq!(
                    parse_time_ns(&bare, default_unit),
                    Ok(number * default_us * 1_000),
                    "{bare}"
                );
                for (suffix, us) in FIO_MULT_TIME_US {
                    let upper = suffix.to_ascii_uppercase();
                    let mut capital = suffix[..1].to_ascii_uppercase();
                    capital.push_str(&suffix[1..]);
                    for spelling in [suffix.to_string(), upper, capital] {
                        for text in [
                            format!("{number}{spelling}"),
                            format!(" +{number}{spelling} "),
                        ] {
                            assert_eq!(
                                parse_time_ns(&text, default_unit),
                                Ok(number * us * 1_000),
                                "{text:?}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 7 * 2 * 8 * 3 * 2);
    }
}
