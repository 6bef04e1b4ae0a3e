//! The store (`set_*`) and print (`show_*`) functions of the options of `rows_job.rs` with
//! logic of their own: name, files and folder, region (size, offset), read/write mix and block
//! size. The access-pattern extras are in `pattern_setters.rs`; the other groups' are below
//! their rows, in their `rows_*.rs` files, with these conventions.
//!
//! A setter checks only that a value fits its field (a `u32` count); ranges are in the
//! option's table row and checked before the setter runs, and whether the job as a whole makes
//! sense is [`crate::validate`]'s business, so jobs built in code get the same checks. A shower
//! prints the value so that applying it again gives the same job, which `describe` relies on.

use super::convert::{number, pair, show_pair, text, whole_percent};
use super::error::InvalidValue;
use super::value::Value;
use crate::{BlockSizeSpread, JobSpec, PerDirection};
use diskmeter_units::format_size_suffix;
use std::path::PathBuf;

// ---- paths ------------------------------------------------------------------------------

/// Splits fio's ':'-separated path list; `\:` stands for a ':' inside a path.
fn split_paths(list: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut current = String::new();
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                current.push(':');
            }
            ':' => paths.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    paths.push(current);
    paths
}

/// Writes a path for a ':'-separated list, escaping its own ':' as fio expects.
fn escape_path(path: &std::path::Path) -> String {
    path.to_string_lossy().replace(':', "\\:")
}

// ---- setters and showers, in table order -------------------------------------------------

pub(crate) fn set_name(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let name = text(value)?;
    if name.trim().is_empty() {
        return Err(InvalidValue::EmptyName);
    }
    spec.name = name;
    Ok(())
}

pub(crate) fn show_name(spec: &JobSpec) -> Option<String> {
    Some(spec.name.clone())
}

pub(crate) fn set_filename(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let list = text(value)?;
    let paths = split_paths(&list);
    if paths.iter().any(|path| path.is_empty()) {
        return Err(InvalidValue::EmptyFileName);
    }
    spec.filenames = paths.into_iter().map(PathBuf::from).collect();
    Ok(())
}

pub(crate) fn show_filename(spec: &JobSpec) -> Option<String> {
    if spec.filenames.is_empty() {
        return None;
    }
    let paths: Vec<String> = spec.filenames.iter().map(|p| escape_path(p)).collect();
    Some(paths.join(":"))
}

pub(crate) fn set_directory(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let paths = split_paths(&text(value)?);
    match paths.as_slice() {
        [path] if !path.is_empty() => {
            spec.directory = Some(PathBuf::from(path));
            Ok(())
        }
        [_] => Err(InvalidValue::EmptyDirectory),
        _ => Err(InvalidValue::SeveralDirectories),
    }
}

pub(crate) fn show_directory(spec: &JobSpec) -> Option<String> {
    spec.directory.as_deref().map(escape_path)
}

/// Bytes of a size option, where fio's `z` suffix counts zones of the `zonesize` set so far.
fn zoned_number(spec: &JobSpec, value: Value) -> Result<u64, InvalidValue> {
    match value {
        Value::Zones(zones) => match spec.control.zone.size_bytes {
            0 => Err(InvalidValue::ZonesWithoutZoneSize),
            zone_bytes => zones
                .checked_mul(zone_bytes)
                .ok_or(InvalidValue::TooLarge { max: u64::MAX }),
        },
        other => number(other),
    }
}

pub(crate) fn set_size(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    match value {
        Value::Percent(p) => {
            spec.size_percent = Some(p);
            spec.size_bytes = None;
        }
        other => {
            spec.size_bytes = Some(zoned_number(spec, other)?);
            spec.size_percent = None;
        }
    }
    Ok(())
}

pub(crate) fn show_size(spec: &JobSpec) -> Option<String> {
    match spec.size_percent {
        Some(p) => Some(format!("{p}%")),
        None => spec
            .size_bytes
            .map(|bytes| format_size_suffix(bytes, spec.kb_base)),
    }
}

pub(crate) fn set_io_size(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.io_size_bytes = Some(zoned_number(spec, value)?);
    Ok(())
}

pub(crate) fn show_io_size(spec: &JobSpec) -> Option<String> {
    spec.io_size_bytes
        .map(|bytes| format_size_suffix(bytes, spec.kb_base))
}

pub(crate) fn set_offset(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    match value {
        Value::Percent(p) => {
            spec.offset_percent = Some(p);
            spec.offset_bytes = 0;
        }
        other => {
            spec.offset_bytes = zoned_number(spec, other)?;
            spec.offset_percent = None;
        }
    }
    Ok(())
}

pub(crate) fn show_offset(spec: &JobSpec) -> Option<String> {
    Some(match spec.offset_percent {
        Some(p) => format!("{p}%"),
        None => format_size_suffix(spec.offset_bytes, spec.kb_base),
    })
}

pub(crate) fn set_rwmixwrite(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.rwmixread = 100 - whole_percent(value)?.min(100);
    Ok(())
}

pub(crate) fn set_bs(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let pair = pair(value)?;
    // Like fio, a later bs replaces an earlier bsrange or bssplit for that direction.
    if let Some(read) = pair.read {
        spec.bs_bytes.read = read;
        spec.bs_spread.read = BlockSizeSpread::Fixed;
    }
    if let Some(write) = pair.write {
        spec.bs_bytes.write = write;
        spec.bs_spread.write = BlockSizeSpread::Fixed;
    }
    // Trims take the third value, else the write size (fio: `bs=4k,8k` trims 8k).
    if pair.trim.is_some() || pair.write.is_some() {
        spec.trim.bs_bytes = pair.trim;
    }
    Ok(())
}

pub(crate) fn show_bs(spec: &JobSpec) -> Option<String> {
    let size = |bytes| format_size_suffix(bytes, spec.kb_base);
    let bs = PerDirection {
        read: Some(spec.bs_bytes.read),
        write: Some(spec.bs_bytes.write),
    };
    let shown = show_pair(bs, size);
    Some(match spec.trim.bs_bytes {
        Some(trim) if trim != spec.bs_bytes.write => {
            let pair = if shown.contains(',') {
                shown
            } else {
                format!("{shown},{shown}")
            };
            format!("{pair},{}", size(trim))
        }
        _ => shown,
    })
}
