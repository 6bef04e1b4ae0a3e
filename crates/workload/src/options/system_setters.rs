//! Setters and printers of the system rows (`rows_system.rs`): histogram logs, CPU and NUMA
//! placement, priorities, engine options and commands; same conventions as `setters.rs`.

use super::convert::{count, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::JobSpec;

pub(crate) fn set_write_hist_log(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.write_hist_log = Some(text(value)?);
    Ok(())
}

pub(crate) fn show_write_hist_log(spec: &JobSpec) -> Option<String> {
    spec.system.write_hist_log.clone()
}

pub(crate) fn set_log_hist_msec(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.log_hist_msec = count(value)?;
    Ok(())
}

pub(crate) fn show_log_hist_msec(spec: &JobSpec) -> Option<String> {
    Some(spec.system.log_hist_msec.to_string())
}

pub(crate) fn set_log_hist_coarseness(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), InvalidValue> {
    spec.system.log_hist_coarseness = count(value)?;
    Ok(())
}

pub(crate) fn show_log_hist_coarseness(spec: &JobSpec) -> Option<String> {
    Some(spec.system.log_hist_coarseness.to_string())
}
