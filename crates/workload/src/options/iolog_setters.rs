//! Setters and printers of fio's iolog options (`read_iolog`, `write_iolog`, `replay_*`);
//! same conventions as `setters.rs`.

use super::convert::{flag, number, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::iolog::ReplaySkip;
use crate::JobSpec;
use std::path::PathBuf;

fn path(value: Value) -> Result<PathBuf, InvalidValue> {
    let text = text(value)?;
    if text.is_empty() {
        return Err(InvalidValue::EmptyFileName);
    }
    Ok(PathBuf::from(text))
}

fn show_path(path: &Option<PathBuf>) -> Option<String> {
    path.as_ref().map(|p| p.display().to_string())
}

pub(crate) fn set_read_iolog(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.iolog.read_iolog = Some(path(value)?);
    Ok(())
}

pub(crate) fn show_read_iolog(spec: &JobSpec) -> Option<String> {
    show_path(&spec.iolog.read_iolog)
}

pub(crate) fn set_write_iolog(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.iolog.write_iolog = Some(path(value)?);
    Ok(())
}

pub(crate) fn show_write_iolog(spec: &JobSpec) -> Option<String> {
    show_path(&spec.iolog.write_iolog)
}

pub(crate) fn set_replay_redirect(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.iolog.replay_redirect = Some(path(value)?);
    Ok(())
}

pub(crate) fn show_replay_redirect(spec: &JobSpec) -> Option<String> {
    show_path(&spec.iolog.replay_redirect)
}

pub(crate) fn set_replay_align(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let align = number(value)?;
    if align != 0 && !align.is_power_of_two() {
        return Err(InvalidValue::NotPowerOfTwo);
    }
    spec.iolog.replay_align_bytes = align;
    Ok(())
}

pub(crate) fn show_replay_align(spec: &JobSpec) -> Option<String> {
    Some(spec.iolog.replay_align_bytes.to_string())
}

pub(crate) fn set_replay_skip(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.iolog.replay_skip =
        ReplaySkip::parse(&text(value)?).map_err(|unknown| InvalidValue::NotAChoice {
            choices: ReplaySkip::WORDS,
            suggestion: super::nearest(&unknown.0, ReplaySkip::WORDS.iter().copied()),
        })?;
    Ok(())
}

pub(crate) fn show_replay_skip(spec: &JobSpec) -> Option<String> {
    spec.iolog.replay_skip.show()
}

/// fio's `read_iolog_chunked`: diskmeter always reads the log as a stream, so the flag is
/// accepted and changes nothing.
pub(crate) fn set_read_iolog_chunked(_: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    flag(value)?;
    Ok(())
}
