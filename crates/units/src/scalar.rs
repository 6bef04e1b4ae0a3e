//! fio's small value types: `bool` (`1`/`0`), percentages, and `float_list` (`1:50:99.9`);
//! and the decimal counts requirements and demands take (`16k` IOPS = 16,000).
//!
//! Rules from fio's HOWTO, "Parameter types":
//! <https://fio.readthedocs.io/en/latest/fio_doc.html#parameter-types>
//! * `bool`: "Usually parsed as an integer, however only defined for true and false (1 and 0)."
//!   fio's parser (`check_int`: `sscanf` with `%u`, or `%x` after `0x`; range 0..=1) rejects
//!   `true`, `yes` and `on`, and so does diskmeter, so a job that works here also works in
//!   fio; it accepts `01` and `0x1`, and so does diskmeter.
//! * `float_list`: "A list of floating point numbers, separated by a ':' character."

use crate::UnitError;

/// Parses one of fio's booleans: `1` (true) or `0` (false), surrounding blanks ignored;
/// leading zeros and `0x` hex are read as fio reads them (`01`, `0x1`).
pub fn parse_bool(text: &str) -> Result<bool, UnitError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(UnitError::Empty { what: "a bool" });
    }
    let (digits, radix) = match trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
    {
        Some(hex) => (hex, 16),
        None => (trimmed, 10),
    };
    let value = if !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix)) {
        digits.trim_start_matches('0')
    } else {
        "not a number"
    };
    match value {
        "1" => Ok(true),
        "" => Ok(false),
        _ => Err(UnitError::Malformed {
            text: trimmed.to_string(),
            what: "a bool",
            reason: "use 1 or 0 (fio's booleans are numbers)".to_string(),
        }),
    }
}

/// A count per second as requirements and demands write it: `5000`, `5k` (x 1,000), `1.2m`
/// (x 1,000,000): decimal, unlike fio's sizes, since IOPS are counted in thousands. `None`
/// for anything else (a negative or non-finite number too).
pub fn parse_decimal_count(text: &str) -> Option<f64> {
    let t = text.trim();
    let (number, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('m' | 'M') => (&t[..t.len() - 1], 1e6),
        _ => (t, 1.0),
    };
    number
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map(|v| v * scale)
}

/// Parses a percentage from 0 to 100: `50`, `50%`, `12.5`.
pub fn parse_percent(text: &str) -> Result<f64, UnitError> {
    let trimmed = text.trim();
    let number = trimmed.strip_suffix('%').unwrap_or(trimmed);
    let value = parse_plain_float(number, trimmed, "a percentage")?;
    if value > 100.0 {
        return Err(UnitError::Malformed {
            text: trimmed.to_string(),
            what: "a percentage",
            reason: "it must be between 0 and 100".to_string(),
        });
    }
    Ok(value)
}

/// Parses fio's `float_list`: numbers separated by ':' (`1:5:50:99.9`).
///
/// Every item must be a finite, non-negative decimal number, as fio's `sscanf("%lf")` reads
/// it (`99.9`, `.5`, `+5`, `1e1`); empty items (`1::5`, a trailing ':') are refused, and so
/// are `inf` and `nan`. Ranges are the option's business.
pub fn parse_float_list(text: &str) -> Result<Vec<f64>, UnitError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(UnitError::Empty {
            what: "a list of numbers",
        });
    }
    trimmed
        .split(':')
        .map(|item| {
            if item.trim().is_empty() {
                return Err(UnitError::Malformed {
                    text: trimmed.to_string(),
                    what: "a list of numbers",
                    reason: "an item between ':' separators is empty".to_string(),
                });
            }
            list_float(item.trim())
        })
        .collect()
}

/// One item of a `float_list`: a plain decimal as [`parse_plain_float`] reads it, or one with
/// a `+` sign or an exponent (`1e1`), which fio's `sscanf("%lf")` reads too.
fn list_float(item: &str) -> Result<f64, UnitError> {
    let unsigned = item.strip_prefix('+').unwrap_or(item);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let value = parse_plain_float(mantissa, item, "a number")?;
    let Some(exponent) = exponent else {
        return Ok(value);
    };
    let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(UnitError::Malformed {
            text: item.to_string(),
            what: "a number",
            reason: "use a plain decimal number such as 99.9".to_string(),
        });
    }
    item.parse::<f64>()
        .ok()
        .filter(|value| value.is_finite())
        .ok_or_else(|| UnitError::Overflow {
            text: item.to_string(),
            what: "a number",
        })
}

/// Parses `digits[.digits]` (or `.digits`): no sign, exponent, `inf` or `nan`, so every
/// accepted value is finite and non-negative.
fn parse_plain_float(number: &str, text: &str, what: &'static str) -> Result<f64, UnitError> {
    if number.is_empty() {
        return Err(UnitError::Empty { what });
    }
    if number.starts_with('-') {
        return Err(UnitError::Negative {
            text: text.to_string(),
            what,
        });
    }
    let mut dots = 0;
    let mut digits = 0;
    for c in number.chars() {
        match c {
            '0'..='9' => digits += 1,
            '.' => dots += 1,
            _ => {
                return Err(UnitError::Malformed {
                    text: text.to_string(),
                    what,
                    reason: "use a plain decimal number such as 99.9".to_string(),
                })
            }
        }
    }
    if digits == 0 || dots > 1 {
        return Err(UnitError::Malformed {
            text: text.to_string(),
            what,
            reason: "use a plain decimal number such as 99.9".to_string(),
        });
    }
    number
        .parse::<f64>()
        .ok()
        .filter(|value| value.is_finite())
        .ok_or_else(|| UnitError::Overflow {
            text: text.to_string(),
            what,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bools_are_one_and_zero() {
        assert_eq!(parse_bool("1"), Ok(true));
        assert_eq!(parse_bool(" 0 "), Ok(false));
        assert_eq!(
            parse_bool("true").unwrap_err().to_string(),
            "'true' is not a bool: use 1 or 0 (fio's booleans are numbers)"
        );
        for (text, value) in [("01", true), ("0x1", true), ("0X0", false), ("00", false)] {
            assert_eq!(parse_bool(text), Ok(value), "{text}");
        }
        for text in ["yes", "on", "2", "-1", "0x", "0x2", "1a", "10", "0.5"] {
            assert!(parse_bool(text).is_err(), "{text}");
        }
        assert!(matches!(parse_bool(""), Err(UnitError::Empty { .. })));
    }

    #[test]
    fn percentages() {
        assert_eq!(parse_percent("50"), Ok(50.0));
        assert_eq!(parse_percent("50%"), Ok(50.0));
        assert_eq!(parse_percent("12.5"), Ok(12.5));
        assert_eq!(parse_percent("0"), Ok(0.0));
        assert_eq!(parse_percent("100%"), Ok(100.0));
        assert!(parse_percent("101")
            .unwrap_err()
            .to_string()
            .contains("between 0 and 100"));
        for text in ["-5", "nan", "inf", "1e2", "5%%", "%", "", "1.2.3", "."] {
            assert!(parse_percent(text).is_err(), "{text}");
        }
    }

    #[test]
    fn float_lists() {
        assert_eq!(parse_float_list("1:5:99.9"), Ok(vec![1.0, 5.0, 99.9]));
        assert_eq!(parse_float_list("50"), Ok(vec![50.0]));
        assert_eq!(parse_float_list(".5"), Ok(vec![0.5]));
        assert_eq!(
            parse_float_list("+5:1e1:9.99E+1"),
            Ok(vec![5.0, 10.0, 99.9])
        );
        for text in ["1e", "1e+", "e5", "1e1.5", "+-5", "1e999"] {
            assert!(parse_float_list(text).is_err(), "{text}");
        }
        assert!(parse_float_list("1::5")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        for text in ["1:", ":1", "1,5", "a:b", "1:-5", "", "1:nan"] {
            assert!(parse_float_list(text).is_err(), "{text}");
        }
    }
}
