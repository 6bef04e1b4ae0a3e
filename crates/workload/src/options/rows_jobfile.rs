//! The rows of the option table for job-file options that do not change the IO: the job's
//! `description`, and fio's reporting, clock and generator options, which diskmeter accepts
//! and keeps (in [`crate::CompatOptions`]). What each means in diskmeter is its help line and
//! `crate::fio_reading_notes`, which `--dry-run` and the results print.
//!
//! The rows' options with logic of their own have their setter (`set_*`) and shower
//! (`show_*`) below the rows, with the conventions of `setters.rs`.

use super::convert::{choice, flag, number, show_flag};
use super::error::InvalidValue;
use super::limits::{Limits, Range};
use super::shape::plain;
use super::value::Value;
use super::{Category, OptionDef, OptionKind};
use crate::JobSpec;

/// `random_generator=` values (fio 3.33).
const GENERATOR_CHOICES: &[&str] = &["tausworthe", "lfsr", "tausworthe64"];

/// `clocksource=` values.
const CLOCKSOURCE_CHOICES: &[&str] = &["gettimeofday", "clock_gettime", "cpu"];

/// `unified_rw_reporting=` values.
const UNIFIED_CHOICES: &[&str] = &["none", "mixed", "both", "0", "1", "2"];

/// `unit_base=` values.
const UNIT_BASE_CHOICES: &[&str] = &["0", "8", "1"];

/// A row for a flag kept for compatibility.
macro_rules! flag_row {
    ($category:ident, $name:literal, $aliases:expr, $default:literal, $help:literal, $set:ident, $show:ident) => {
        OptionDef {
            name: $name,
            category: Category::$category,
            aliases: $aliases,
            kind: OptionKind::Flag,
            default: $default,
            unit: "",
            help: $help,
            limits: None,
            set: $set,
            show: Some($show),
        }
    };
}

/// The jobfile rows.
pub(super) static ROWS: &[OptionDef] = &[
    plain!(
        "description" => description: MaybeText,
        category Output,
        default "",
        help "Free text describing the job; kept in the results (the job's options) and the \
              history",
    ),
    OptionDef {
        name: "random_generator",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::Choice(GENERATOR_CHOICES),
        default: "tausworthe",
        unit: "",
        help: "fio's generator of random offsets. Accepted: diskmeter always uses its own \
               (xoshiro256++ with a permutation that covers every block once per pass, which \
               is what fio's lfsr guarantees); the run notes say so",
        limits: None,
        set: set_random_generator,
        show: Some(show_random_generator),
    },
    flag_row!(
        Output,
        "gtod_reduce",
        &[],
        "0",
        "fio: stop timing IOs to save clock reads. Accepted: diskmeter still times every IO \
         (latencies and bandwidth are measured and reported); the run notes say so",
        set_gtod_reduce,
        show_gtod_reduce
    ),
    OptionDef {
        name: "gtod_cpu",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "CPU",
        help: "fio: a thread on this CPU keeps the time. Accepted: diskmeter has no timer \
               thread; each worker reads CLOCK_MONOTONIC",
        limits: None,
        set: set_gtod_cpu,
        show: Some(show_gtod_cpu),
    },
    OptionDef {
        name: "clocksource",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Choice(CLOCKSOURCE_CHOICES),
        default: "",
        unit: "",
        help: "fio's clock for timing IOs. Accepted: diskmeter always uses \
               clock_gettime(CLOCK_MONOTONIC) (vDSO, nanoseconds)",
        limits: None,
        set: set_clocksource,
        show: Some(show_clocksource),
    },
    flag_row!(
        Output,
        "disable_lat",
        &[],
        "0",
        "fio: do not measure total latency. Accepted: diskmeter measures and reports it",
        set_disable_lat,
        show_disable_lat
    ),
    flag_row!(
        Output,
        "disable_clat",
        &[],
        "0",
        "fio: do not measure completion latency. Accepted: diskmeter measures and reports it",
        set_disable_clat,
        show_disable_clat
    ),
    flag_row!(
        Output,
        "disable_slat",
        &[],
        "0",
        "fio: do not measure submission latency. Accepted: diskmeter measures and reports it",
        set_disable_slat,
        show_disable_slat
    ),
    flag_row!(
        Output,
        "disable_bw_measurement",
        &["disable_bw"],
        "0",
        "fio: do not sample bandwidth. Accepted: diskmeter measures and reports it",
        set_disable_bw,
        show_disable_bw
    ),
    flag_row!(
        Output,
        "stats",
        &[],
        "1",
        "fio: 0 keeps no statistics for the job. Accepted: diskmeter reports every job",
        set_stats,
        show_stats
    ),
    OptionDef {
        name: "significant_figures",
        category: Category::Output,
        aliases: &[],
        kind: OptionKind::Int,
        default: "4",
        unit: "digits",
        help: "Digits of fio's normal output. Accepted: diskmeter's output has its own fixed \
               precision (docs/output-fields.md)",
        limits: Some(Limits {
            range: Range::Int {
                min: 1,
                max: Some(10),
            },
            why: "",
        }),
        set: set_significant_figures,
        show: Some(show_significant_figures),
    },
    OptionDef {
        name: "unified_rw_reporting",
        category: Category::Output,
        aliases: &[],
        kind: OptionKind::Choice(UNIFIED_CHOICES),
        default: "none",
        unit: "",
        help: "fio: report reads and writes as one mixed direction. Accepted: diskmeter \
               reports them separately and the group's total",
        limits: None,
        set: set_unified_rw_reporting,
        show: Some(show_unified_rw_reporting),
    },
    OptionDef {
        name: "bwavgtime",
        category: Category::Output,
        aliases: &[],
        kind: OptionKind::Int,
        default: "500",
        unit: "ms",
        help: "fio's window for bandwidth samples. Accepted: diskmeter's bandwidth figures are \
               over the whole run (and per second in its logs)",
        limits: None,
        set: set_bwavgtime,
        show: Some(show_bwavgtime),
    },
    OptionDef {
        name: "iopsavgtime",
        category: Category::Output,
        aliases: &[],
        kind: OptionKind::Int,
        default: "500",
        unit: "ms",
        help: "fio's window for IOPS samples. Accepted: diskmeter's IOPS figures are over the \
               whole run (and per second in its logs)",
        limits: None,
        set: set_iopsavgtime,
        show: Some(show_iopsavgtime),
    },
    flag_row!(
        Output,
        "disk_util",
        &[],
        "1",
        "fio's disk-utilisation section. Accepted: diskmeter's device figures come from its \
         capture commands",
        set_disk_util,
        show_disk_util
    ),
    flag_row!(
        Files,
        "unique_filename",
        &[],
        "1",
        "fio client/server: prefix files with the client's address. Accepted: diskmeter has \
         no client/server mode",
        set_unique_filename,
        show_unique_filename
    ),
    OptionDef {
        name: "unit_base",
        category: Category::Output,
        aliases: &[],
        kind: OptionKind::Choice(UNIT_BASE_CHOICES),
        default: "0",
        unit: "",
        help: "fio's output in bits (8) or bytes (1). Accepted: diskmeter prints bytes",
        limits: None,
        set: set_unit_base,
        show: Some(show_unit_base),
    },
    OptionDef {
        name: "threads",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "",
        help: "Read and ignored by fio 3.33 (not thread, not numjobs: the job stays one \
               process); accepted with the same effect, none",
        limits: None,
        set: set_threads,
        show: Some(show_threads),
    },
];

// ---- setters and showers of the options above with logic of their own ----------------

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
