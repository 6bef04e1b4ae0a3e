//! The store (`set_*`) and print (`show_*`) functions of the control options
//! (`rows_control.rs`): think time, IO counts, latency targets, flow, waiting for and ending
//! jobs, submission mode, zones (strided and zbd) and the queue refinements. Same
//! conventions as `setters.rs`.

use super::convert::{choice, count, mismatch, nanos, number, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::JobSpec;
use diskmeter_units::format_time_suffix;

pub(crate) fn set_thinktime_blocks(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // fio reads 0 as 1: a stall after every IO.
    spec.control.thinktime_blocks = count(value)?.max(1);
    Ok(())
}

pub(crate) fn show_thinktime_blocks(spec: &JobSpec) -> Option<String> {
    Some(spec.control.thinktime_blocks.to_string())
}

pub(crate) fn set_latency_percentile(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.control.latency_percentile = match value {
        Value::Percent(percent) => percent,
        other => return Err(mismatch(&other)),
    };
    Ok(())
}

pub(crate) fn show_latency_percentile(spec: &JobSpec) -> Option<String> {
    Some(spec.control.latency_percentile.to_string())
}

pub(crate) fn set_flow_sleep(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // fio's flow_sleep is a plain count of microseconds.
    spec.control.flow_sleep_ns = number(value)?.saturating_mul(1_000);
    Ok(())
}

pub(crate) fn show_flow_sleep(spec: &JobSpec) -> Option<String> {
    Some((spec.control.flow_sleep_ns / 1_000).to_string())
}

pub(crate) fn set_wait_for(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let name = text(value)?;
    spec.control.wait_for = (!name.is_empty()).then_some(name);
    Ok(())
}

pub(crate) fn show_wait_for(spec: &JobSpec) -> Option<String> {
    spec.control.wait_for.clone()
}

pub(crate) fn set_zonemode(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let mode = choice(value)?;
    spec.control.zonemode_strided = mode == "strided";
    // A zoned block device stays refused, with its reason, when the job's targets are opened.
    spec.control.zonemode_zbd = mode == "zbd";
    Ok(())
}

pub(crate) fn show_zonemode(spec: &JobSpec) -> Option<String> {
    Some(
        if spec.control.zonemode_strided {
            "strided"
        } else if spec.control.zonemode_zbd {
            "zbd"
        } else {
            "none"
        }
        .to_string(),
    )
}

/// A fraction option of `zonemode=zbd` (fio reads a ':' list and keeps the first value).
macro_rules! zbd_fraction {
    ($set:ident, $show:ident, $field:ident) => {
        pub(crate) fn $set(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
            let first = match value {
                Value::Floats(values) => values.first().copied().unwrap_or(0.0),
                other => return Err(mismatch(&other)),
            };
            if !(0.0..=1.0).contains(&first) {
                return Err(InvalidValue::ZoneFraction);
            }
            spec.control.zbd.$field = first;
            Ok(())
        }

        pub(crate) fn $show(spec: &JobSpec) -> Option<String> {
            Some(spec.control.zbd.$field.to_string())
        }
    };
}

zbd_fraction!(
    set_zone_reset_threshold,
    show_zone_reset_threshold,
    zone_reset_threshold
);
zbd_fraction!(
    set_zone_reset_frequency,
    show_zone_reset_frequency,
    zone_reset_frequency
);

pub(crate) fn set_iodepth_batch_complete_max(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), InvalidValue> {
    spec.control.iodepth_batch_complete_max = Some(count(value)?);
    Ok(())
}

pub(crate) fn show_iodepth_batch_complete_max(spec: &JobSpec) -> Option<String> {
    spec.control
        .iodepth_batch_complete_max
        .map(|n| n.to_string())
}

pub(crate) fn set_max_latency(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let ns = nanos(value)?;
    spec.control.max_latency_ns = (ns > 0).then_some(ns);
    Ok(())
}

pub(crate) fn show_max_latency(spec: &JobSpec) -> Option<String> {
    spec.control.max_latency_ns.map(format_time_suffix)
}
