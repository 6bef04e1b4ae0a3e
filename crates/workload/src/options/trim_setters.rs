//! Setters and printers of the trim and IO-error options (`continue_on_error`,
//! `ignore_error`, `error_dump`, `trim_percentage`, `trim_backlog`, `trim_backlog_batch`);
//! same conventions as `setters.rs`.

use super::convert::{number, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::JobSpec;

pub(crate) fn set_ignore_error(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.trim
        .set_ignore_error(&text(value)?)
        .map_err(InvalidValue::IgnoreError)
}

pub(crate) fn show_ignore_error(spec: &JobSpec) -> Option<String> {
    spec.trim.ignore_error_text()
}

pub(crate) fn set_trim_backlog(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.trim.trim_backlog = number(value)?;
    Ok(())
}

pub(crate) fn show_trim_backlog(spec: &JobSpec) -> Option<String> {
    (spec.trim.trim_backlog > 0).then(|| spec.trim.trim_backlog.to_string())
}

pub(crate) fn set_trim_backlog_batch(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.trim.trim_backlog_batch = number(value)?;
    Ok(())
}

pub(crate) fn show_trim_backlog_batch(spec: &JobSpec) -> Option<String> {
    (spec.trim.trim_backlog_batch > 0).then(|| spec.trim.trim_backlog_batch.to_string())
}
