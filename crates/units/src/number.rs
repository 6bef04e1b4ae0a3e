//! The leading whole number of a value (decimal or `0x` hex), shared by sizes, counts and times.
//!
//! fio reads this part with `strtoll` (fio 3.33 `parse.c`, `str_to_decimal`); diskmeter reads
//! the same forms (decimal, `0x` hex, a leading `+`) but refuses the inputs `strtoll` would
//! quietly misread (a minus sign, fractions, arithmetic fio was not built with).

use crate::UnitError;

/// The leading whole number of a value and what follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leading<'a> {
    /// The number's value.
    pub value: u64,
    /// The text after the number (the suffix), untrimmed.
    pub rest: &'a str,
    /// True when the number was written in `0x` hex.
    pub hex: bool,
}

/// [`leading_number`] without the hex flag: the tests' shorthand.
#[cfg(test)]
pub(crate) fn leading_integer<'a>(
    text: &'a str,
    what: &'static str,
    example: &'static str,
) -> Result<(u64, &'a str), UnitError> {
    leading_number(text, what, example).map(|leading| (leading.value, leading.rest))
}

/// Splits `text` (already trimmed) into its leading whole number and the rest (the suffix),
/// and says whether the number was hex.
///
/// One leading `+` is allowed, as `strtoll` allows it (`+4k` is 4096 to fio).
/// `what` and `example` only feed the error messages. A '.' right after the number is left in
/// `rest` for the caller, which knows how to suggest a smaller unit.
pub(crate) fn leading_number<'a>(
    text: &'a str,
    what: &'static str,
    example: &'static str,
) -> Result<Leading<'a>, UnitError> {
    if text.is_empty() {
        return Err(UnitError::Empty { what });
    }
    let unsigned = text.strip_prefix('+').unwrap_or(text);
    if text.starts_with('-') {
        return Err(UnitError::Negative {
            text: text.to_string(),
            what,
        });
    }
    if text.starts_with('(') {
        // fio evaluates "(1+2)*4k" only when built with its arithmetic parser; scripts that
        // rely on it are not portable, so diskmeter asks for the plain value.
        return Err(UnitError::Malformed {
            text: text.to_string(),
            what,
            reason: "arithmetic expressions are not supported; write the value itself".to_string(),
        });
    }
    let (radix, digits_start) = if unsigned.starts_with("0x") || unsigned.starts_with("0X") {
        (16, 2)
    } else {
        (10, 0)
    };
    let body = &unsigned[digits_start..];
    let digits_len = body
        .char_indices()
        .find(|(_, c)| !c.is_digit(radix))
        .map_or(body.len(), |(index, _)| index);
    if digits_len == 0 {
        if radix == 16 {
            return Err(UnitError::Malformed {
                text: text.to_string(),
                what,
                reason: "no hexadecimal digits after '0x'".to_string(),
            });
        }
        return Err(UnitError::NoNumber {
            text: text.to_string(),
            what,
            example,
        });
    }
    let mut value: u64 = 0;
    for c in body[..digits_len].chars() {
        // `is_digit(radix)` above guarantees `to_digit` succeeds; the fallback keeps this panic-free.
        let digit = u64::from(c.to_digit(radix).unwrap_or(0));
        value = value
            .checked_mul(radix as u64)
            .and_then(|v| v.checked_add(digit))
            .ok_or_else(|| UnitError::Overflow {
                text: text.to_string(),
                what,
            })?;
    }
    Ok(Leading {
        value,
        rest: &body[digits_len..],
        hex: radix == 16,
    })
}

/// True when `rest` (what follows the whole number) starts a decimal fraction like ".5m".
pub(crate) fn starts_fraction(rest: &str) -> bool {
    let mut chars = rest.chars();
    chars.next() == Some('.') && chars.next().is_some_and(|c| c.is_ascii_digit())
}

/// The fraction digits and the suffix after them in `rest` (which starts with '.').
pub(crate) fn split_fraction(rest: &str) -> (&str, &str) {
    let after_dot = rest.get(1..).unwrap_or("");
    let end = after_dot
        .char_indices()
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(after_dot.len(), |(index, _)| index);
    (&after_dot[..end], &after_dot[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_and_hex() {
        assert_eq!(leading_integer("4096k", "a size", ""), Ok((4096, "k")));
        assert_eq!(leading_integer("0x1000", "a size", ""), Ok((4096, "")));
        assert_eq!(leading_integer("0XfFk", "a size", ""), Ok((255, "k")));
    }

    #[test]
    fn a_plus_sign_is_strtolls() {
        assert_eq!(leading_integer("+4k", "a size", ""), Ok((4, "k")));
        assert_eq!(
            leading_number("+0x10", "a size", ""),
            Ok(Leading {
                value: 16,
                rest: "",
                hex: true
            })
        );
        assert!(matches!(
            leading_integer("++4", "a size", ""),
            Err(UnitError::NoNumber { .. })
        ));
        assert!(matches!(
            leading_integer("+-4", "a size", ""),
            Err(UnitError::NoNumber { .. })
        ));
    }

    #[test]
    fn refuses_what_strtoll_would_misread() {
        assert!(matches!(
            leading_integer("-4k", "a size", ""),
            Err(UnitError::Negative { .. })
        ));
        assert!(matches!(
            leading_integer("k", "a size", ""),
            Err(UnitError::NoNumber { .. })
        ));
        assert!(matches!(
            leading_integer("0x", "a size", ""),
            Err(UnitError::Malformed { .. })
        ));
        assert!(matches!(
            leading_integer("(1+2)", "a size", ""),
            Err(UnitError::Malformed { .. })
        ));
        assert!(matches!(
            leading_integer("18446744073709551616", "a size", ""),
            Err(UnitError::Overflow { .. })
        ));
    }

    #[test]
    fn fractions_are_detected() {
        assert!(starts_fraction(".5m"));
        assert!(!starts_fraction(".m"));
        assert!(!starts_fraction("m"));
        assert_eq!(split_fraction(".25ms"), ("25", "ms"));
    }
}
