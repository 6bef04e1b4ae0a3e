//! Store and print functions of the rows in `rows_jobfile.rs`: `description` and the options
//! kept in [`crate::CompatOptions`]. Each option is one field, set as parsed and printed back
//! only when the job set it, so `describe` lists exactly what the job file said.

use super::convert::{choice, flag, number, show_flag};
use super::error::InvalidValue;
use super::value::Value;
use crate::JobSpec;

/// A setter and a shower for an optional field of `spec.compat`: `$get` takes the parsed
/// value out of a [`Value`], `$show` prints the stored one. fio's default (`$default`, or
/// none) is stored as unset, so writing the default changes nothing, as for every option.
macro_rules! compat_field {
    ($set:ident, $show_fn:ident, [$($place:tt)+], $get:expr, $show:expr) => {
        pub(crate) fn $set(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
            spec.compat.$($place)+ = Some($get(value)?);
            Ok(())
        }

        pub(crate) fn $show_fn(spec: &JobSpec) -> Option<String> {
            spec.compat.$($place)+.clone().map($show)
        }
    };
    ($set:ident, $show_fn:ident, [$($place:tt)+], $get:expr, $show:expr, $default:expr) => {
        pub(crate) fn $set(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
            let value = $get(value)?;
            spec.compat.$($place)+ = (value != $default).then_some(value);
            Ok(())
        }

        pub(crate) fn $show_fn(spec: &JobSpec) -> Option<String> {
            spec.compat.$($place)+.clone().map($show)
        }
    };
}

fn owned_choice(value: Value) -> Result<String, InvalidValue> {
    choice(value).map(str::to_string)
}

fn small_count(value: Value) -> Result<u32, InvalidValue> {
    let number = number(value)?;
    u32::try_from(number).map_err(|_| InvalidValue::TooLarge {
        max: u64::from(u32::MAX),
    })
}

compat_field!(
    set_random_generator,
    show_random_generator,
    [random_generator],
    owned_choice,
    |v| v,
    "tausworthe"
);
compat_field!(
    set_gtod_reduce,
    show_gtod_reduce,
    [gtod_reduce],
    flag,
    show_flag,
    false
);
compat_field!(
    set_gtod_cpu,
    show_gtod_cpu,
    [gtod_cpu],
    small_count,
    |v: u32| v.to_string()
);
compat_field!(
    set_clocksource,
    show_clocksource,
    [clocksource],
    owned_choice,
    |v| v
);
compat_field!(
    set_disable_lat,
    show_disable_lat,
    [disable[0]],
    flag,
    show_flag,
    false
);
compat_field!(
    set_disable_clat,
    show_disable_clat,
    [disable[1]],
    flag,
    show_flag,
    false
);
compat_field!(
    set_disable_slat,
    show_disable_slat,
    [disable[2]],
    flag,
    show_flag,
    false
);
compat_field!(
    set_disable_bw,
    show_disable_bw,
    [disable[3]],
    flag,
    show_flag,
    false
);
compat_field!(set_stats, show_stats, [stats], flag, show_flag, true);
compat_field!(
    set_significant_figures,
    show_significant_figures,
    [significant_figures],
    small_count,
    |v: u32| v.to_string(),
    4
);
compat_field!(
    set_unified_rw_reporting,
    show_unified_rw_reporting,
    [unified_rw_reporting],
    owned_choice,
    |v| v,
    "none"
);
compat_field!(
    set_bwavgtime,
    show_bwavgtime,
    [avg_time_ms[0]],
    number,
    |v: u64| v.to_string(),
    500
);
compat_field!(
    set_iopsavgtime,
    show_iopsavgtime,
    [avg_time_ms[1]],
    number,
    |v: u64| v.to_string(),
    500
);
compat_field!(
    set_disk_util,
    show_disk_util,
    [disk_util],
    flag,
    show_flag,
    true
);
compat_field!(
    set_unique_filename,
    show_unique_filename,
    [unique_filename],
    flag,
    show_flag,
    true
);
compat_field!(
    set_unit_base,
    show_unit_base,
    [unit_base],
    owned_choice,
    |v| v,
    "0"
);
compat_field!(set_threads, show_threads, [threads], number, |v: u64| v
    .to_string());
