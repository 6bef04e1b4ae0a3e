//! Setters and printers for the options that shape the access pattern beyond the basics
//! (`rw=...:N`, `bsrange`, `bssplit`, `blockalign`, `random_distribution`), the sync options,
//! `rate_min`, the file-creation options and buffer contents. Split from `setters.rs` to keep
//! each file readable; the conventions are the same.

use super::convert::{mismatch, number, text};
use super::error::InvalidValue;
use super::rows_job::RW_CHOICES;
use super::value::{parse_choice, Value};
use crate::patterns::{parse_bsrange_noted, parse_bssplit_noted, show_spread, PatternError};
use crate::{BlockSizeSpread, JobSpec, RandomDistribution, RwMode};
use diskmeter_units::{format_size_suffix, parse_int, parse_int_as_fio, parse_size_as_fio};

pub(crate) fn set_rw(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let text = text(value)?;
    let (word, suffix) = match text.split_once(':') {
        Some((word, suffix)) => (word, Some(suffix)),
        None => (text.as_str(), None),
    };
    let word = parse_choice(word.trim(), RW_CHOICES)?;
    let rw = RwMode::parse(word).ok_or_else(|| mismatch(&Value::Choice(word)))?;
    // fio reads a sequential job's suffix as a size (`write:4k`, kb_base applies) and a random
    // job's as a plain count (`randread:8`); a sequential job may take a negative one
    // (`read:-8k`: backwards IO).
    spec.rw_offset_modifier = match suffix {
        Some(n) => {
            let n = n.trim();
            let (negative, digits) = match n.strip_prefix('-') {
                Some(rest) => (true, rest.trim_start()),
                None => (false, n),
            };
            // fio reads a random job's count with atoi (`str_rw_cb`, options.c): the leading
            // digits, no unit (`randread:4k` is 4), which diskmeter follows with a note.
            let plain = digits.strip_prefix('+').unwrap_or(digits);
            let magnitude = if rw.is_random() && !plain.bytes().all(|b| b.is_ascii_digit()) {
                let whole: String = plain.chars().take_while(char::is_ascii_digit).collect();
                let count: u64 = whole.parse().unwrap_or(0);
                let meant = parse_int(digits, spec.kb_base)
                    .map(|n| format!("; write {n} for {digits}"))
                    .unwrap_or_default();
                spec.compat.value_readings.push(format!(
                    "read as fio 3.33 reads it, {count} (fio reads a random job's count with \
                     atoi: the leading digits, no unit){meant}"
                ));
                count
            } else {
                // A sequential job's is a size to fio (`read:1.5m` is 1 there), read so.
                let read =
                    parse_int_as_fio(digits, spec.kb_base).map_err(InvalidValue::RwSuffix)?;
                spec.compat.value_readings.extend(read.note);
                read.value
            };
            let magnitude = i64::try_from(magnitude).map_err(|_| InvalidValue::RwSuffixTooLarge)?;
            if negative && rw.is_random() {
                return Err(InvalidValue::NegativeRandomSuffix);
            }
            if negative {
                -magnitude
            } else {
                magnitude
            }
        }
        None => 0,
    };
    spec.rw = rw;
    Ok(())
}

pub(crate) fn show_rw(spec: &JobSpec) -> Option<String> {
    let name = spec.rw.as_str();
    Some(match spec.rw_offset_modifier {
        0 => name.to_string(),
        n if spec.rw.is_random() => format!("{name}:{n}"),
        n if n < 0 => format!(
            "{name}:-{}",
            format_size_suffix(n.unsigned_abs(), spec.kb_base)
        ),
        n => format!("{name}:{}", format_size_suffix(n as u64, spec.kb_base)),
    })
}

/// fio's per-direction text: `v` for both, `r,w`, `,w` (write only), `r,` (both: fio drops a
/// trailing comma); a third part (trims) is ignored.
fn directions(text: &str) -> (Option<&str>, Option<&str>) {
    let body = text.trim();
    let body = body.strip_suffix(',').unwrap_or(body);
    let mut parts = body.split(',');
    let read = parts.next().unwrap_or("");
    match parts.next() {
        None => (Some(read), Some(read)),
        Some(write) => (non_empty(read), non_empty(write)),
    }
}

fn non_empty(text: &str) -> Option<&str> {
    (!text.trim().is_empty()).then_some(text)
}

fn set_spread(
    spec: &mut JobSpec,
    value: Value,
    parse: fn(
        &str,
        diskmeter_units::KbBase,
        &mut Vec<String>,
    ) -> Result<BlockSizeSpread, PatternError>,
) -> Result<(), InvalidValue> {
    let text = text(value)?;
    let (read, write) = directions(&text);
    if read.is_none() && write.is_none() {
        return Err(InvalidValue::DirectionsEmpty);
    }
    let kb_base = spec.kb_base;
    // Both sides parse before either is stored: a refused value changes nothing.
    let mut notes = Vec::new();
    let read = read
        .map(|part| parse(part, kb_base, &mut notes))
        .transpose()?;
    let write = write
        .map(|part| parse(part, kb_base, &mut notes))
        .transpose()?;
    // One text for both directions (`bssplit=4k/12.5`) is read twice: one note.
    notes.dedup();
    spec.compat.value_readings.extend(notes);
    for (spread, direction) in [
        (read, crate::Direction::Read),
        (write, crate::Direction::Write),
    ] {
        if let Some(spread) = spread {
            // `bs` keeps the smallest size: the base that rate_iops and planning use. A
            // spread of one size is just that size.
            let (min, max) = spread.bounds(0);
            *spec.bs_bytes.get_mut(direction) = min;
            *spec.bs_spread.get_mut(direction) = if min == max {
                BlockSizeSpread::Fixed
            } else {
                spread
            };
        }
    }
    Ok(())
}

/// Prints the directions whose spread `wanted` picks. A fixed direction prints as its one
/// size (which reads back as fixed), so it is not overwritten; a direction with the other
/// kind of spread is left to that option, which comes later in the table (read bssplit with
/// write bsrange is the one mix that does not print back exactly).
fn show_spreads(
    spec: &JobSpec,
    wanted: fn(&BlockSizeSpread) -> bool,
    fixed: fn(String) -> String,
) -> Option<String> {
    let side = |direction: crate::Direction| {
        let spread = spec.bs_spread.get_ref(direction);
        if wanted(spread) {
            Some(show_spread(spread, spec.kb_base))
        } else if *spread == BlockSizeSpread::Fixed {
            Some(fixed(format_size_suffix(
                spec.bs_bytes.get(direction),
                spec.kb_base,
            )))
        } else {
            None
        }
    };
    if !wanted(&spec.bs_spread.read) && !wanted(&spec.bs_spread.write) {
        return None;
    }
    Some(
        match (side(crate::Direction::Read), side(crate::Direction::Write)) {
            (Some(read), Some(write)) if read == write => read,
            (Some(read), Some(write)) => format!("{read},{write}"),
            (Some(read), None) => read,
            (None, Some(write)) => format!(",{write}"),
            (None, None) => return None,
        },
    )
}

pub(crate) fn set_bsrange(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    set_spread(spec, value, parse_bsrange_noted)
}

pub(crate) fn show_bsrange(spec: &JobSpec) -> Option<String> {
    show_spreads(
        spec,
        |s| matches!(s, BlockSizeSpread::Range { .. }),
        |size| size,
    )
}

pub(crate) fn set_bssplit(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    set_spread(spec, value, parse_bssplit_noted)
}

pub(crate) fn show_bssplit(spec: &JobSpec) -> Option<String> {
    show_spreads(
        spec,
        |s| matches!(s, BlockSizeSpread::Split(_)),
        |size| format!("{size}/100"),
    )
}

pub(crate) fn set_random_distribution(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), InvalidValue> {
    spec.random_distribution = RandomDistribution::parse(&text(value)?)?;
    Ok(())
}

pub(crate) fn show_random_distribution(spec: &JobSpec) -> Option<String> {
    Some(spec.random_distribution.show())
}

pub(crate) fn set_rate_cycle(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // At least 1 ms: the row's limit, checked before this runs.
    let ms = number(value)?;
    spec.rate_cycle_ns = ms.saturating_mul(1_000_000);
    Ok(())
}

pub(crate) fn show_rate_cycle(spec: &JobSpec) -> Option<String> {
    Some((spec.rate_cycle_ns / 1_000_000).to_string())
}

pub(crate) fn set_filesize(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let text = text(value)?;
    let (low, high) = text.split_once(['-', ':']).unwrap_or((&text, &text));
    let mut notes = Vec::new();
    let mut parse = |t: &str| {
        let read = parse_size_as_fio(t.trim(), spec.kb_base).map_err(InvalidValue::FileSize)?;
        notes.extend(read.note.map(|note| format!("'{}' {note}", t.trim())));
        Ok::<u64, InvalidValue>(read.value)
    };
    let (low, high) = (parse(low)?, parse(high)?);
    notes.dedup();
    spec.compat.value_readings.extend(notes);
    if low == 0 {
        return Err(InvalidValue::ZeroFileSize);
    }
    spec.filesize_bytes = Some((low.min(high), low.max(high)));
    Ok(())
}

pub(crate) fn show_filesize(spec: &JobSpec) -> Option<String> {
    let size = |b| format_size_suffix(b, spec.kb_base);
    spec.filesize_bytes.map(|(low, high)| {
        if low == high {
            size(low)
        } else {
            format!("{}-{}", size(low), size(high))
        }
    })
}

pub(crate) fn set_buffer_compress_percentage(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), InvalidValue> {
    // 0 to 100: the row's limit, checked before this runs.
    let percent = number(value)?;
    let percent = u8::try_from(percent).map_err(|_| InvalidValue::TooLarge {
        max: u64::from(u8::MAX),
    })?;
    spec.buffer_compress_percentage = Some(percent);
    Ok(())
}

pub(crate) fn show_buffer_compress_percentage(spec: &JobSpec) -> Option<String> {
    spec.buffer_compress_percentage.map(|p| p.to_string())
}

#[cfg(test)]
mod tests {
    use super::directions;

    #[test]
    fn direction_shapes_follow_fio() {
        assert_eq!(directions("4k/50"), (Some("4k/50"), Some("4k/50")));
        assert_eq!(directions("a,b"), (Some("a"), Some("b")));
        assert_eq!(directions(",b"), (None, Some("b")));
        assert_eq!(directions("a,"), (Some("a"), Some("a")));
        assert_eq!(directions("a,b,c"), (Some("a"), Some("b")));
    }
}
