//! Setters and printers of the verify options (`verify`, `do_verify`, `verify_*`,
//! `experimental_verify`, `trim_verify_zero`); same conventions as `setters.rs`. The kinds and
//! the pattern syntax are parsed by `diskmeter-verify`.

use super::convert::{choice, count, number, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::JobSpec;
use diskmeter_units::format_size_suffix;
use diskmeter_verify::{VerifyKind, VerifyPattern};

pub(crate) fn set_verify(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let choice = choice(value)?;
    spec.verify.kind = match choice {
        "0" => None,
        name => Some(VerifyKind::parse(name)?),
    };
    spec.verify.kind_given = true;
    Ok(())
}

pub(crate) fn show_verify(spec: &JobSpec) -> Option<String> {
    Some(spec.verify.kind.map_or("0", VerifyKind::name).to_string())
}

pub(crate) fn set_verify_pattern(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.verify.pattern = Some(VerifyPattern::parse(&text(value)?)?);
    Ok(())
}

pub(crate) fn show_verify_pattern(spec: &JobSpec) -> Option<String> {
    spec.verify
        .pattern
        .as_ref()
        .map(|pattern| pattern.text().to_string())
}

pub(crate) fn set_verify_interval(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.verify.interval_bytes = Some(count(value)?);
    Ok(())
}

pub(crate) fn show_verify_interval(spec: &JobSpec) -> Option<String> {
    spec.verify
        .interval_bytes
        .map(|bytes| format_size_suffix(u64::from(bytes), spec.kb_base))
}

pub(crate) fn set_verify_offset(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.verify.header_offset_bytes = Some(count(value)?);
    Ok(())
}

pub(crate) fn show_verify_offset(spec: &JobSpec) -> Option<String> {
    spec.verify
        .header_offset_bytes
        .map(|bytes| format_size_suffix(u64::from(bytes), spec.kb_base))
}

pub(crate) fn set_verify_backlog(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // fio reads 0 as "no backlog": verify after the write phase.
    spec.verify.backlog_blocks = Some(number(value)?).filter(|blocks| *blocks > 0);
    Ok(())
}

pub(crate) fn show_verify_backlog(spec: &JobSpec) -> Option<String> {
    spec.verify.backlog_blocks.map(|blocks| blocks.to_string())
}

pub(crate) fn set_verify_backlog_batch(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), InvalidValue> {
    spec.verify.backlog_batch_blocks = Some(number(value)?).filter(|blocks| *blocks > 0);
    Ok(())
}

pub(crate) fn show_verify_backlog_batch(spec: &JobSpec) -> Option<String> {
    spec.verify
        .backlog_batch_blocks
        .map(|blocks| blocks.to_string())
}
