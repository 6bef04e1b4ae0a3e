//! fio's byte sizes and counts: `4k`, `1g`, `4KiB`, `0x1000`, and what `kb_base` does to them.
//!
//! The rules, and where diskmeter departs from fio's code, are documented on [`parse_size`].

use crate::number::{leading_number, split_fraction, starts_fraction, Leading};
use crate::UnitError;
use serde::{Deserialize, Serialize};

/// fio's `kb_base`: how unit prefixes in *input* values are read.
///
/// Output formatting in this crate always uses correct binary (KiB) or decimal (kB) names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KbBase {
    /// `kb_base=1024` (fio's default): `k` (and `ki`) = 1024, `KiB` = 1000 (fio's compatibility
    /// mode).
    #[default]
    Binary,
    /// `kb_base=1000`: `k` (and `ki`) = 1000 (SI), `KiB` = 1024 (IEC).
    Decimal,
}

impl KbBase {
    /// The value of one plain `k` under this base: 1024 or 1000.
    pub fn multiplier(self) -> u64 {
        match self {
            KbBase::Binary => 1024,
            KbBase::Decimal => 1000,
        }
    }

    /// The value of one `KiB` under this base: 1000 or 1024 (the opposite of `k`).
    pub fn iec_multiplier(self) -> u64 {
        match self {
            KbBase::Binary => 1000,
            KbBase::Decimal => 1024,
        }
    }

    /// Parses fio's `kb_base=` values, `1024` and `1000`.
    pub fn parse(text: &str) -> Option<KbBase> {
        match text.trim() {
            "1024" => Some(KbBase::Binary),
            "1000" => Some(KbBase::Decimal),
            _ => None,
        }
    }

    /// fio's spelling: `"1024"` or `"1000"`.
    pub fn as_str(self) -> &'static str {
        match self {
            KbBase::Binary => "1024",
            KbBase::Decimal => "1000",
        }
    }
}

/// The unit prefixes in order of power: `k` is 1, `p` is 5.
const PREFIXES: [char; 5] = ['k', 'm', 'g', 't', 'p'];

/// What the size suffix error lists as accepted.
const SIZE_SUFFIXES: &str = "k, m, g, t, p, optionally followed by i and/or b: 4k, 4KiB, 1gb";

/// Parses a byte size the way fio 3.33's parser reads it.
///
/// The rules are those of fio's code, `parse.c` at fio-3.33 (commit 72bcaffd7d56), functions
/// `str_to_decimal` and `get_mult_bytes`, checked against fio 3.33 itself by the generated
/// value table in `tests/parallel/jobfile.rs`:
///
/// * A value is `[+][0x]number[suffix]`, blanks around it ignored; a bare number is bytes (or
///   a plain count).
/// * Suffixes `k m g t p` are not case sensitive and may be followed by `b`/`B` (byte, never
///   bit): `4k`, `4K`, `4kb` and `4KB` are the same. A plain prefix is a power of `kb_base`:
///   1024 by default (`4k` = 4096), 1000 with `kb_base=1000` (`4k` = 4000).
/// * Only the three-letter IEC forms `kib mib gib tib pib` (any case: `KiB`, `MIB`) are read in
///   the *other* base: with `kb_base=1024` (fio's "compatibility mode") `1MiB` is 1,000,000;
///   with `kb_base=1000` it is 1,048,576.
/// * `ki`, `mi`, ... without the `b` are the plain prefix, in both bases, because fio only
///   compares the first three letters with `kib` and then falls through to the one-letter
///   rule: `1Mi` is 1,048,576 with `kb_base=1024` and 1,000,000 with `kb_base=1000`. (fio's
///   HOWTO lists `1mi` with `1MiB`; fio's code, and so diskmeter, do not.)
///
/// Where fio's code silently drops part of what is written, diskmeter refuses with a message
/// that says what fio would read, rather than do different work or guess:
/// * a fraction (`1.5m`: fio reads 1 byte), anything after a known suffix (`4kfoo`,
///   `4kbi`: fio reads 4 KiB), an unknown suffix (`4q`: fio reads 4), a blank between number
///   and unit (`4 k`: fio reads 4 bytes), a unit after a hex number (`0x10k`: fio reads 16),
///   and a minus sign (fio wraps it to a huge value).
/// * `50%` (fio: a share of the target's size, for `size` and `offset` only) is reported as
///   [`UnitError::Percent`], so the caller can read it as fio's share of a file (`size`,
///   `offset`) or refuse it.
///
/// ```
/// use diskmeter_units::{parse_size, KbBase};
/// assert_eq!(parse_size("4k", KbBase::Binary), Ok(4096));
/// assert_eq!(parse_size("1KiB", KbBase::Binary), Ok(1000)); // fio's compatibility mode
/// assert_eq!(parse_size("1KiB", KbBase::Decimal), Ok(1024));
/// assert_eq!(parse_size("1Mi", KbBase::Binary), Ok(1 << 20)); // only `mib` is the other base
/// assert_eq!(parse_size("0x200", KbBase::Binary), Ok(512));
/// ```
pub fn parse_size(text: &str, kb_base: KbBase) -> Result<u64, UnitError> {
    parse_with_suffix(text, kb_base, "a size", " (e.g. 4k, 1g, 0x1000)")
}

/// Parses one of fio's `int` values (`iodepth`, `numjobs`, `rate_iops`, ...).
///
/// fio reads these with the same code as sizes, so suffixes work and follow `kb_base`:
/// `iodepth=1k` is 1024 and `rate_iops=3k` is 3072 with the default `kb_base=1024`.
pub fn parse_int(text: &str, kb_base: KbBase) -> Result<u64, UnitError> {
    parse_with_suffix(text, kb_base, "an integer", " (e.g. 32, 0x20)")
}

fn parse_with_suffix(
    text: &str,
    kb_base: KbBase,
    what: &'static str,
    example: &'static str,
) -> Result<u64, UnitError> {
    let text = text.trim();
    let Leading {
        value: number,
        rest,
        hex,
    } = leading_number(text, what, example)?;
    if hex && !rest.is_empty() {
        return Err(hex_suffix_error(text, number, rest, kb_base, what));
    }
    if starts_fraction(rest) {
        return Err(fraction_error(text, number, rest, kb_base, what));
    }
    let multiplier = suffix_multiplier(text, number, rest, kb_base, what)?;
    number
        .checked_mul(multiplier)
        .ok_or_else(|| UnitError::Overflow {
            text: text.to_string(),
            what,
        })
}

/// The multiplier `suffix` stands for, or why it stands for nothing.
fn suffix_multiplier(
    text: &str,
    number: u64,
    suffix: &str,
    kb_base: KbBase,
    what: &'static str,
) -> Result<u64, UnitError> {
    let lower = suffix.to_ascii_lowercase();
    let (power, iec) = match split_suffix(&lower) {
        Some(parts) => parts,
        None => return Err(suffix_error(text, number, suffix, kb_base, what)),
    };
    let base = if iec {
        kb_base.iec_multiplier()
    } else {
        kb_base.multiplier()
    };
    let mut multiplier: u64 = 1;
    for _ in 0..power {
        multiplier = multiplier
            .checked_mul(base)
            .ok_or_else(|| UnitError::Overflow {
                text: text.to_string(),
                what,
            })?;
    }
    Ok(multiplier)
}

/// Splits a lower-case suffix into (power, read in the other base), or `None` when it is not
/// a size suffix.
///
/// fio's `__get_mult_bytes` tests the three-letter `pib`..`kib` first, then the one letter
/// `p`..`k`: so `ib` after a prefix switches base and a lone `i` does not (`mi` = `m`).
fn split_suffix(lower: &str) -> Option<(u32, bool)> {
    if lower.is_empty() || lower == "b" {
        return Some((0, false));
    }
    let mut chars = lower.chars();
    let first = chars.next()?;
    let power = PREFIXES.iter().position(|&p| p == first)? as u32 + 1;
    match chars.as_str() {
        "" | "b" | "i" => Some((power, false)),
        "ib" => Some((power, true)),
        _ => None,
    }
}

/// The error for `0x10k`: fio's `strtoll` reads the hex digits and `get_mult_bytes` then sees
/// the `x` and finds no unit, so the suffix is dropped.
fn hex_suffix_error(
    text: &str,
    number: u64,
    rest: &str,
    kb_base: KbBase,
    what: &'static str,
) -> UnitError {
    let meant = suffix_multiplier(text, number, rest, kb_base, what)
        .ok()
        .and_then(|multiplier| number.checked_mul(multiplier));
    let hint = match meant {
        Some(bytes) => format!("; write {bytes:#x} or {number}{rest}"),
        None => String::new(),
    };
    UnitError::Malformed {
        text: text.to_string(),
        what,
        reason: format!(
            "a hex number takes no unit (fio would read it as {number}, dropping '{rest}'){hint}"
        ),
    }
}

fn suffix_error(
    text: &str,
    number: u64,
    suffix: &str,
    kb_base: KbBase,
    what: &'static str,
) -> UnitError {
    if suffix.starts_with('%') {
        return UnitError::Percent {
            text: text.to_string(),
            what,
        };
    }
    if suffix.starts_with(char::is_whitespace) {
        return UnitError::Malformed {
            text: text.to_string(),
            what,
            reason: format!(
                "write the unit right after the number, e.g. {}{} (fio would read it as \
                 {number})",
                text.split_whitespace().next().unwrap_or(""),
                suffix.trim()
            ),
        };
    }
    if let Some((unit, multiplier)) = fio_unit_prefix(suffix, kb_base) {
        return UnitError::Malformed {
            text: text.to_string(),
            what,
            reason: format!(
                "unknown suffix '{suffix}' (use {SIZE_SUFFIXES}); fio would read it as {}, \
                 ignoring what follows '{unit}'",
                number.saturating_mul(multiplier)
            ),
        };
    }
    // Any other suffix is no unit to fio's `get_mult_bytes`: the number alone.
    UnitError::Malformed {
        text: text.to_string(),
        what,
        reason: format!(
            "unknown suffix '{suffix}' (use {SIZE_SUFFIXES}); fio would read it as {number}"
        ),
    }
}

/// The unit fio's `__get_mult_bytes` finds at the start of `suffix` (it compares prefixes
/// only: `kib` first, then `k`) and its multiplier, when it finds one.
fn fio_unit_prefix(suffix: &str, kb_base: KbBase) -> Option<(&str, u64)> {
    let lower = suffix.to_ascii_lowercase();
    let first = lower.chars().next()?;
    let power = PREFIXES.iter().position(|&p| p == first)? as u32 + 1;
    let (length, base) = if lower[first.len_utf8()..].starts_with("ib") {
        (3, kb_base.iec_multiplier())
    } else {
        (1, kb_base.multiplier())
    };
    Some((&suffix[..length], base.checked_pow(power)?))
}

/// The error for `1.5m`, with the exact value in a smaller unit when there is one.
fn fraction_error(
    text: &str,
    whole: u64,
    rest: &str,
    kb_base: KbBase,
    what: &'static str,
) -> UnitError {
    let (fraction, suffix) = split_fraction(rest);
    let hint = exact_fraction(whole, fraction, suffix, kb_base)
        .map(|bytes| {
            format!(
                "fio would read it as {whole}; write {}",
                format_size_suffix(bytes, kb_base)
            )
        })
        .unwrap_or_else(|| {
            format!("fio would read it as {whole}; use a smaller unit and a whole number")
        });
    UnitError::Fraction {
        text: text.to_string(),
        what,
        hint,
    }
}

/// `number` times what `suffix` stands for, when it is a size suffix and the product fits.
pub(crate) fn suffix_value(suffix: &str, number: u64, kb_base: KbBase) -> Option<u64> {
    suffix_multiplier("", number, suffix, kb_base, "")
        .ok()
        .and_then(|multiplier| number.checked_mul(multiplier))
}

/// `whole.fraction` times the suffix's multiplier, when that is a whole number of bytes.
pub(crate) fn exact_fraction(
    whole: u64,
    fraction: &str,
    suffix: &str,
    kb_base: KbBase,
) -> Option<u64> {
    if fraction.len() > 18 {
        return None;
    }
    let multiplier = suffix_multiplier("", whole, suffix, kb_base, "").ok()?;
    let scale = 10u128.pow(fraction.len() as u32);
    let fraction_value: u128 = fraction.parse().ok()?;
    let numerator =
        (u128::from(whole) * scale + fraction_value).checked_mul(u128::from(multiplier))?;
    if numerator % scale != 0 {
        return None;
    }
    u64::try_from(numerator / scale).ok()
}

/// Writes `bytes` with the largest unit that keeps it exact, in a form [`parse_size`] reads back
/// to the same value under `kb_base`: `4096` -> `"4k"`, `1536 KiB` -> `"1536k"`, `1000` ->
/// `"1000"` (with `kb_base=1024`).
///
/// With `kb_base=1000` the IEC forms are used too (`1048576` -> `"1mib"`) because there they mean
/// what they say. With `kb_base=1024` they are not, since `kib` = 1000 there would confuse a
/// reader. (`4ki` would not do: fio reads it as `4k`.)
pub fn format_size_suffix(bytes: u64, kb_base: KbBase) -> String {
    let mut best = bytes.to_string();
    let mut consider = |base: u64, iec: bool| {
        let mut unit: u64 = 1;
        for prefix in PREFIXES {
            unit = match unit.checked_mul(base) {
                Some(unit) => unit,
                None => break,
            };
            if bytes == 0 || !bytes.is_multiple_of(unit) {
                break;
            }
            let candidate = format!("{}{}{}", bytes / unit, prefix, if iec { "ib" } else { "" });
            if candidate.len() < best.len() {
                best = candidate;
            }
        }
    };
    consider(kb_base.multiplier(), false);
    if kb_base == KbBase::Decimal {
        consider(kb_base.iec_multiplier(), true);
    }
    best
}

#[cfg(test)]
#[path = "size_tests.rs"]
mod tests;
