//! Setters and printers of the steady-state options (`steadystate`, `steadystate_duration`,
//! `steadystate_ramp_time`, diskmeter's `steadystate_sample` and `steadystate_precision`);
//! same conventions as `setters.rs`.

use super::convert::{mismatch, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::steady::parse_steadystate;
use crate::JobSpec;

pub(crate) fn set_steadystate(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let (criterion, limit) = parse_steadystate(&text(value)?, spec.kb_base)?;
    spec.steadystate.criterion = criterion;
    spec.steadystate.limit = limit;
    Ok(())
}

pub(crate) fn show_steadystate(spec: &JobSpec) -> Option<String> {
    Some(spec.steadystate.setting_text(spec.kb_base))
}

pub(crate) fn set_steadystate_precision(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), InvalidValue> {
    spec.steadystate.precision_percent = match value {
        Value::Percent(0.0) => None,
        Value::Percent(p) => Some(p),
        other => return Err(mismatch(&other)),
    };
    Ok(())
}

pub(crate) fn show_steadystate_precision(spec: &JobSpec) -> Option<String> {
    Some(match spec.steadystate.precision_percent {
        Some(p) => format!("{p}%"),
        None => "0".to_string(),
    })
}
