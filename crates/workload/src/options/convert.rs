//! Shared by the setters: taking the typed value out of a parsed [`Value`], and printing
//! values back the way fio's options are written (flags, read,write pairs, caps).
//!
//! An extraction of the wrong kind is [`InvalidValue::KindMismatch`], a defect of the table
//! (a row pairing an option with a setter of another kind) that the per-option tests keep out.

use super::error::InvalidValue;
use super::value::{Pair, Value};
use crate::PerDirection;

/// The error for a setter given a value of another kind than its row parses.
pub(super) fn mismatch(value: &Value) -> InvalidValue {
    InvalidValue::KindMismatch {
        value: format!("{value:?}"),
    }
}

pub(super) fn flag(value: Value) -> Result<bool, InvalidValue> {
    match value {
        Value::Flag(flag) => Ok(flag),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn number(value: Value) -> Result<u64, InvalidValue> {
    match value {
        Value::Number(number) => Ok(number),
        other => Err(mismatch(&other)),
    }
}

/// A count stored in 32 bits; larger values are refused with the field's ceiling.
pub(super) fn count(value: Value) -> Result<u32, InvalidValue> {
    let number = number(value)?;
    u32::try_from(number).map_err(|_| InvalidValue::TooLarge {
        max: u64::from(u32::MAX),
    })
}

pub(super) fn nanos(value: Value) -> Result<u64, InvalidValue> {
    match value {
        Value::Nanos(ns) => Ok(ns),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn text(value: Value) -> Result<String, InvalidValue> {
    match value {
        Value::Text(text) => Ok(text),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn choice(value: Value) -> Result<&'static str, InvalidValue> {
    match value {
        Value::Choice(choice) => Ok(choice),
        other => Err(mismatch(&other)),
    }
}

pub(super) fn pair(value: Value) -> Result<Pair, InvalidValue> {
    match value {
        Value::Pair(pair) => Ok(pair),
        other => Err(mismatch(&other)),
    }
}

/// A whole percentage as stored (`rwmixread`, `percentage_random`). The row's limits (whole,
/// 0 to 100) are checked before any setter runs, so the value fits.
pub(super) fn whole_percent(value: Value) -> Result<u8, InvalidValue> {
    match value {
        Value::Percent(percent) if percent.fract() == 0.0 && (0.0..=100.0).contains(&percent) => {
            Ok(percent as u8)
        }
        other => Err(mismatch(&other)),
    }
}

/// Stores a rate pair; fio reads 0 as "no cap".
pub(super) fn set_cap(target: &mut PerDirection<Option<u64>>, pair: Pair) {
    if let Some(read) = pair.read {
        target.read = (read > 0).then_some(read);
    }
    if let Some(write) = pair.write {
        target.write = (write > 0).then_some(write);
    }
}

// ---- printing ---------------------------------------------------------------------------

pub(super) fn show_flag(flag: bool) -> String {
    if flag { "1" } else { "0" }.to_string()
}

/// `v` when both directions agree, else `r,w`; a missing side prints as `0`.
pub(super) fn show_pair(pair: PerDirection<Option<u64>>, format: impl Fn(u64) -> String) -> String {
    let side = |value: Option<u64>| value.map_or_else(|| "0".to_string(), &format);
    if pair.read == pair.write {
        side(pair.read)
    } else {
        format!("{},{}", side(pair.read), side(pair.write))
    }
}

/// A cap pair, or `None` when neither direction is capped.
pub(super) fn show_cap(
    cap: PerDirection<Option<u64>>,
    format: impl Fn(u64) -> String,
) -> Option<String> {
    if cap.read.is_none() && cap.write.is_none() {
        return None;
    }
    Some(show_pair(cap, format))
}
