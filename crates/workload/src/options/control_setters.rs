//! The store (`set_*`) and print (`show_*`) functions of the control options
//! (`rows_control.rs`): think time, IO counts, latency targets, flow, waiting for and ending
//! jobs, submission mode, zones (strided and zbd) and the queue refinements. Same
//! conventions as `setters.rs`.

use super::convert::{
    choice, count, flag, mismatch, nanos, number, pair, set_cap, show_cap, show_flag, text,
};
use super::error::InvalidValue;
use super::value::Value;
use crate::control::{ExitWhat, Sequencer, SubmitMode, ThinkTrigger};
use crate::JobSpec;
use diskmeter_units::{format_size_suffix, format_time_suffix};

/// A flag option of [`crate::control::ControlOptions`]: its setter and shower.
macro_rules! control_flag {
    ($set:ident, $show:ident, $field:ident) => {
        pub(crate) fn $set(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
            spec.control.$field = flag(value)?;
            Ok(())
        }

        pub(crate) fn $show(spec: &JobSpec) -> Option<String> {
            Some(show_flag(spec.control.$field))
        }
    };
}

/// A time option of [`crate::control::ControlOptions`] stored in ns (0 = off).
macro_rules! control_time {
    ($set:ident, $show:ident, $field:ident) => {
        pub(crate) fn $set(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
            spec.control.$field = nanos(value)?;
            Ok(())
        }

        pub(crate) fn $show(spec: &JobSpec) -> Option<String> {
            Some(format_time_suffix(spec.control.$field))
        }
    };
}

control_time!(set_thinktime, show_thinktime, thinktime_ns);
control_time!(set_thinktime_spin, show_thinktime_spin, thinktime_spin_ns);
control_time!(
    set_thinktime_iotime,
    show_thinktime_iotime,
    thinktime_iotime_ns
);
control_flag!(
    set_rate_ignore_thinktime,
    show_rate_ignore_thinktime,
    rate_ignore_thinktime
);
control_flag!(set_exitall, show_exitall, exitall);
control_flag!(
    set_exitall_on_error,
    show_exitall_on_error,
    exitall_on_error
);
control_flag!(
    set_serialize_overlap,
    show_serialize_overlap,
    serialize_overlap
);
control_flag!(set_allrandrepeat, show_allrandrepeat, allrandrepeat);
control_flag!(
    set_unlink_each_loop,
    show_unlink_each_loop,
    unlink_each_loop
);

pub(crate) fn set_thinktime_blocks(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // fio reads 0 as 1: a stall after every IO.
    spec.control.thinktime_blocks = count(value)?.max(1);
    Ok(())
}

pub(crate) fn show_thinktime_blocks(spec: &JobSpec) -> Option<String> {
    Some(spec.control.thinktime_blocks.to_string())
}

pub(crate) fn set_thinktime_blocks_type(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), InvalidValue> {
    spec.control.thinktime_blocks_type = match choice(value)? {
        "issue" => ThinkTrigger::Issue,
        _ => ThinkTrigger::Complete,
    };
    Ok(())
}

pub(crate) fn show_thinktime_blocks_type(spec: &JobSpec) -> Option<String> {
    Some(
        match spec.control.thinktime_blocks_type {
            ThinkTrigger::Complete => "complete",
            ThinkTrigger::Issue => "issue",
        }
        .to_string(),
    )
}

control_time!(set_latency_target, show_latency_target, latency_target_ns);
control_time!(set_latency_window, show_latency_window, latency_window_ns);
control_flag!(set_latency_run, show_latency_run, latency_run);

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

pub(crate) fn set_exit_what(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.control.exit_what = match choice(value)? {
        "stonewall" => ExitWhat::Stonewall,
        "all" => ExitWhat::All,
        _ => ExitWhat::Group,
    };
    Ok(())
}

pub(crate) fn show_exit_what(spec: &JobSpec) -> Option<String> {
    Some(spec.control.exit_what.as_str().to_string())
}

pub(crate) fn set_io_submit_mode(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.control.io_submit_mode = match choice(value)? {
        "offload" => SubmitMode::Offload,
        _ => SubmitMode::Inline,
    };
    Ok(())
}

pub(crate) fn show_io_submit_mode(spec: &JobSpec) -> Option<String> {
    Some(
        match spec.control.io_submit_mode {
            SubmitMode::Inline => "inline",
            SubmitMode::Offload => "offload",
        }
        .to_string(),
    )
}

pub(crate) fn set_rate_iops_min(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    set_cap(&mut spec.control.rate_iops_min, pair(value)?);
    Ok(())
}

pub(crate) fn show_rate_iops_min(spec: &JobSpec) -> Option<String> {
    show_cap(spec.control.rate_iops_min, |n| n.to_string())
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

/// A count option of `zonemode=zbd`: its setter and shower.
macro_rules! zbd_count {
    ($set:ident, $show:ident, $field:ident) => {
        pub(crate) fn $set(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
            spec.control.zbd.$field = count(value)?;
            Ok(())
        }

        pub(crate) fn $show(spec: &JobSpec) -> Option<String> {
            Some(spec.control.zbd.$field.to_string())
        }
    };
}

zbd_count!(set_max_open_zones, show_max_open_zones, max_open_zones);
zbd_count!(
    set_job_max_open_zones,
    show_job_max_open_zones,
    job_max_open_zones
);

/// A flag option of `zonemode=zbd`: its setter and shower.
macro_rules! zbd_flag {
    ($set:ident, $show:ident, $field:ident) => {
        pub(crate) fn $set(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
            spec.control.zbd.$field = flag(value)?;
            Ok(())
        }

        pub(crate) fn $show(spec: &JobSpec) -> Option<String> {
            Some(u8::from(spec.control.zbd.$field).to_string())
        }
    };
}

zbd_flag!(
    set_ignore_zone_limits,
    show_ignore_zone_limits,
    ignore_zone_limits
);
zbd_flag!(set_read_beyond_wp, show_read_beyond_wp, read_beyond_wp);

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

/// A zone size option: its setter and shower.
macro_rules! zone_size {
    ($set:ident, $show:ident, $field:ident) => {
        pub(crate) fn $set(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
            spec.control.zone.$field = number(value)?;
            Ok(())
        }

        pub(crate) fn $show(spec: &JobSpec) -> Option<String> {
            Some(format_size_suffix(spec.control.zone.$field, spec.kb_base))
        }
    };
}

zone_size!(set_zonerange, show_zonerange, range_bytes);
zone_size!(set_zonesize, show_zonesize, size_bytes);
zone_size!(set_zoneskip, show_zoneskip, skip_bytes);

pub(crate) fn set_rw_sequencer(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.control.rw_sequencer = match choice(value)? {
        "identical" => Sequencer::Identical,
        _ => Sequencer::Sequential,
    };
    Ok(())
}

pub(crate) fn show_rw_sequencer(spec: &JobSpec) -> Option<String> {
    Some(
        match spec.control.rw_sequencer {
            Sequencer::Sequential => "sequential",
            Sequencer::Identical => "identical",
        }
        .to_string(),
    )
}

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
