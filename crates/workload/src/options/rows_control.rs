//! The rows of the option table for control options (see the module doc of `options`):
//! think time, IO counts, the latency-target search, flow, `wait_for`, `exitall`, submission
//! mode, zones (strided and zbd) and the queue refinements. Names and defaults are fio's (fio
//! 3.33 `--cmdhelp`); times fio reads in microseconds are [`OptionKind::TimeMicros`].
//!
//! The rows' options with logic of their own have their setter (`set_*`) and shower
//! (`show_*`) below the rows, with the conventions of `setters.rs`.

use super::convert::{choice, count, mismatch, nanos, number, text};
use super::error::InvalidValue;
use super::limits::{Limits, Range};
use super::shape::plain;
use super::value::Value;
use super::{Category, OptionDef, OptionKind};
use crate::control::{ExitWhat, Sequencer, SubmitMode, ThinkTrigger};
use crate::JobSpec;
use diskmeter_units::format_time_suffix;

/// `zonemode=` values (`zbd` on a zoned block device is refused when targets are opened).
const ZONEMODE_CHOICES: &[&str] = &["none", "strided", "zbd"];
/// The control rows.
pub(super) static ROWS: &[OptionDef] = &[
    plain!(
        "thinktime" => control.thinktime_ns: Micros,
        category Rates,
        default "0", unit "us",
        help "Stall after IOs before issuing more, to model an application's processing; microseconds unless a unit is given (2ms)",
    ),
    plain!(
        "thinktime_spin" => control.thinktime_spin_ns: Micros,
        category Rates,
        default "0", unit "us",
        help "Spend this part of each thinktime spinning on the CPU before sleeping the rest",
    ),
    OptionDef {
        name: "thinktime_blocks",
        category: Category::Rates,
        aliases: &[],
        kind: OptionKind::Int,
        default: "1",
        unit: "IOs",
        help: "IOs between thinktime stalls (with the default, one IO is in flight at a time)",
        limits: None,
        set: set_thinktime_blocks,
        show: Some(show_thinktime_blocks),
    },
    plain!(
        "thinktime_blocks_type" => control.thinktime_blocks_type: Choice<ThinkTrigger>,
        category Rates,
        default "complete",
        help "What thinktime_blocks counts: complete = completed IOs (the queue drains before a stall), issue = issued IOs",
    ),
    plain!(
        "thinktime_iotime" => control.thinktime_iotime_ns: Time,
        category Rates,
        default "0", unit "s",
        help "Stall after this much IO time instead (or after thinktime_blocks IOs, whichever is first); seconds unless a unit is given",
    ),
    plain!(
        "rate_ignore_thinktime" => control.rate_ignore_thinktime: Flag,
        category Rates,
        default "0",
        help "A rate-limited job does not catch up on the IOs its stalls delayed; its schedule restarts after each stall",
    ),
    plain!(
        "number_ios" => control.number_ios: Int,
        category Timing,
        default "0", unit "IOs",
        help "End the job after this many IOs of the measured period, if nothing ended it first; 0 = no limit",
    ),
    plain!(
        "latency_target" => control.latency_target_ns: Micros,
        category Rates,
        default "0", unit "us",
        help "Search for the deepest queue (up to iodepth) whose IOs meet this latency; microseconds unless a unit is given",
    ),
    plain!(
        "latency_window" => control.latency_window_ns: Micros,
        category Rates,
        default "0", unit "us",
        help "How long each queue depth of the latency_target search runs",
    ),
    OptionDef {
        name: "latency_percentile",
        category: Category::Rates,
        aliases: &[],
        kind: OptionKind::Percent,
        default: "100",
        unit: "%",
        help: "Share of a window's IOs that must meet latency_target",
        limits: None,
        set: set_latency_percentile,
        show: Some(show_latency_percentile),
    },
    plain!(
        "latency_run" => control.latency_run: Flag,
        category Rates,
        default "0",
        help "Keep adjusting the queue depth to latency_target instead of ending the job once the depth is found",
    ),
    plain!(
        "flow" => control.flow_weight: Count,
        category Rates,
        default "0",
        limits Limits { range: Range::Int { min: 0, max: Some(1000) }, why: "" },
        help "Weight in flow control: jobs of one flow_id do IO in the ratio of their weights",
    ),
    plain!(
        "flow_id" => control.flow_id: Count,
        category Rates,
        default "0",
        help "The flow group of flow (0 = the global group)",
    ),
    OptionDef {
        name: "flow_sleep",
        category: Category::Rates,
        aliases: &[],
        kind: OptionKind::Int,
        default: "0",
        unit: "us",
        help: "Microseconds a job ahead of its flow share waits before trying again (0 = a short poll)",
        limits: None,
        set: set_flow_sleep,
        show: Some(show_flow_sleep),
    },
    OptionDef {
        name: "wait_for",
        category: Category::Timing,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "job",
        help: "Start only once every worker of the named (earlier) job has finished",
        limits: None,
        set: set_wait_for,
        show: Some(show_wait_for),
    },
    plain!(
        "exitall" => control.exitall: Flag,
        category Timing,
        default "0",
        help "When this job finishes, end the jobs exit_what names",
    ),
    plain!(
        "exit_what" => control.exit_what: Choice<ExitWhat>,
        category Timing,
        default "group",
        help "What exitall ends: group = the job's reporting group, stonewall = every running job (the next stonewall phase then starts), all = everything",
    ),
    plain!(
        "exitall_on_error" => control.exitall_on_error: Flag,
        category Timing,
        default "0",
        help "When this job fails, end every other job and start no later one",
    ),
    plain!(
        "io_submit_mode" => control.io_submit_mode: Choice<SubmitMode>,
        category Engine,
        default "inline",
        help "inline or offload; diskmeter issues at the intended times and measures latency from them either way, so offload runs the same loop",
    ),
    plain!(
        "rate_iops_min" => control.rate_iops_min: IntCap,
        category Rates,
        default "", unit "IOPS",
        help "The job fails if a direction's IOPS over a rate_cycle falls below this",
    ),
    OptionDef {
        name: "zonemode",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::Choice(ZONEMODE_CHOICES),
        default: "none",
        unit: "",
        help: "none; strided: IO stays in one zone until zonesize bytes are done, then skips zoneskip; zbd: zonesize zones with write pointers, emulated on files and non-zoned devices (a zoned block device is refused)",
        limits: None,
        set: set_zonemode,
        show: Some(show_zonemode),
    },
    plain!(
        "zonerange" => control.zone.range_bytes: Bytes,
        category Workload,
        default "0", unit "bytes",
        help "Size of a zone of zonemode=strided (0 = zonesize)",
    ),
    plain!(
        "zonesize" => control.zone.size_bytes: Bytes,
        category Workload,
        default "0", unit "bytes",
        help "Bytes transferred in a zone before moving to the next (zonemode=strided), or the emulated zones' size (zonemode=zbd)",
    ),
    plain!(
        "zoneskip" => control.zone.skip_bytes: Bytes,
        category Workload,
        default "0", unit "bytes",
        help "Bytes skipped after each zone (zonemode=strided)",
    ),
    plain!(
        "zonecapacity" => control.zbd.capacity_bytes: Bytes,
        category Workload,
        default "0", unit "bytes",
        help "zonemode=zbd: the writable bytes of each zone (0 = zonesize); a zone is full at its capacity",
    ),
    plain!(
        "max_open_zones" | "zbd_max_open_zones" => control.zbd.max_open_zones: Count,
        category Workload,
        default "0", unit "zones",
        limits Limits {
            range: Range::Int {
                min: 0,
                max: Some(4096),
            },
            why: "fio's ceiling",
        },
        help "zonemode=zbd: most zones open for writing at once on a target (0 = no limit)",
    ),
    plain!(
        "job_max_open_zones" => control.zbd.job_max_open_zones: Count,
        category Workload,
        default "0", unit "zones",
        limits Limits {
            range: Range::Int {
                min: 0,
                max: Some(4096),
            },
            why: "fio's ceiling",
        },
        help "zonemode=zbd: most zones this job has open for writing at once (0 = no limit)",
    ),
    plain!(
        "ignore_zone_limits" => control.zbd.ignore_zone_limits: Flag,
        category Workload,
        default "0",
        help "zonemode=zbd: ignore the device's open-zone limits (emulated zones have none)",
    ),
    OptionDef {
        name: "zone_reset_threshold",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::FloatList,
        default: "0",
        unit: "",
        help: "zonemode=zbd: once this share (0 to 1) of the zones' bytes is written, writes may reset their zone",
        limits: None,
        set: set_zone_reset_threshold,
        show: Some(show_zone_reset_threshold),
    },
    OptionDef {
        name: "zone_reset_frequency",
        category: Category::Workload,
        aliases: &[],
        kind: OptionKind::FloatList,
        default: "0",
        unit: "",
        help: "zonemode=zbd: past the threshold, the share (0 to 1) of writes that reset their zone first",
        limits: None,
        set: set_zone_reset_frequency,
        show: Some(show_zone_reset_frequency),
    },
    plain!(
        "read_beyond_wp" => control.zbd.read_beyond_wp: Flag,
        category Workload,
        default "0",
        help "zonemode=zbd: let reads pass a zone's write pointer (else they stay on written data)",
    ),
    plain!(
        "rw_sequencer" => control.rw_sequencer: Choice<Sequencer>,
        category Workload,
        default "sequential",
        help "How rw=rand...:N uses N: sequential = a new random offset every N IOs, identical = each random offset N times",
    ),
    plain!(
        "iodepth_low" => control.iodepth_low: MaybeCount,
        category Engine,
        default "", unit "IOs",
        help "Once the queue is full, let it drain to this depth before filling it again (unset = keep it full)",
    ),
    plain!(
        "iodepth_batch_complete_max" => control.iodepth_batch_complete_max: MaybeCount,
        category Engine,
        default "", unit "IOs",
        help "Most completions taken per reap (accepted; diskmeter takes what is ready, up to iodepth)",
    ),
    plain!(
        "serialize_overlap" => control.serialize_overlap: Flag,
        category Engine,
        default "0",
        help "Hold an IO that overlaps one in flight until that one completes",
    ),
    plain!(
        "offset_align" => control.offset_align_bytes: Bytes,
        category Workload,
        default "0", unit "bytes",
        help "Round a percentage offset up to a multiple of this (0 = the smallest block size)",
    ),
    plain!(
        "allrandrepeat" => control.allrandrepeat: Flag,
        category Workload,
        default "0",
        help "Seed every generator predictably (diskmeter always derives them all from randseed)",
    ),
    OptionDef {
        name: "max_latency",
        category: Category::Rates,
        aliases: &[],
        kind: OptionKind::TimeMicros,
        default: "",
        unit: "us",
        help: "The job fails (ETIMEDOUT) when an IO takes longer than this; microseconds unless a unit is given",
        limits: None,
        set: set_max_latency,
        show: Some(show_max_latency),
    },
    plain!(
        "unlink_each_loop" => control.unlink_each_loop: Flag,
        category Files,
        default "0",
        help "Remove the job's files after each loop",
    ),
];

// ---- setters and showers of the options above with logic of their own ----------------

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

pub(crate) fn set_max_latency(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let ns = nanos(value)?;
    spec.control.max_latency_ns = (ns > 0).then_some(ns);
    Ok(())
}

pub(crate) fn show_max_latency(spec: &JobSpec) -> Option<String> {
    spec.control.max_latency_ns.map(format_time_suffix)
}
