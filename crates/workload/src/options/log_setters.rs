//! Setters and printers of fio's log-file options (`write_bw_log`, `write_iops_log`,
//! `write_lat_log`, `log_avg_msec`, `log_offset`, `per_job_logs`); same conventions as
//! `setters.rs`.

use super::convert::{count, flag, show_flag, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::JobSpec;

pub(crate) fn set_write_bw_log(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.write_bw_log = Some(text(value)?);
    Ok(())
}

pub(crate) fn show_write_bw_log(spec: &JobSpec) -> Option<String> {
    spec.write_bw_log.clone()
}

pub(crate) fn set_write_iops_log(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.write_iops_log = Some(text(value)?);
    Ok(())
}

pub(crate) fn show_write_iops_log(spec: &JobSpec) -> Option<String> {
    spec.write_iops_log.clone()
}

pub(crate) fn set_write_lat_log(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.write_lat_log = Some(text(value)?);
    Ok(())
}

pub(crate) fn show_write_lat_log(spec: &JobSpec) -> Option<String> {
    spec.write_lat_log.clone()
}

pub(crate) fn set_log_avg_msec(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.log_avg_msec = count(value)?;
    Ok(())
}

pub(crate) fn show_log_avg_msec(spec: &JobSpec) -> Option<String> {
    Some(spec.log_avg_msec.to_string())
}

pub(crate) fn set_log_offset(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.log_offset = flag(value)?;
    Ok(())
}

pub(crate) fn show_log_offset(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.log_offset))
}

pub(crate) fn set_per_job_logs(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.per_job_logs = flag(value)?;
    Ok(())
}

pub(crate) fn show_per_job_logs(spec: &JobSpec) -> Option<String> {
    Some(show_flag(spec.per_job_logs))
}
