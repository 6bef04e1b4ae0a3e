//! The rows of fio's log-file, steady-state and IO-log (trace record and replay) options.
//!
//! Names, aliases and defaults are fio's (HOWTO "Job file parameters"), except where the help
//! says "diskmeter"; job files start from fio's own defaults instead
//! (`JobSpec::fio_job_file_default`: psync, unlink=0). The groups' order (`GROUPS` in
//! `mod.rs`) and the rows' order in each are the order `--help` and `describe` list them.
//!
//! The rows' options with logic of their own have their setter (`set_*`) and shower
//! (`show_*`) below the rows, with the conventions of `setters.rs`.

use super::convert::{flag, mismatch, number, text};
use super::error::InvalidValue;
use super::limits::{Limits, Range};
use super::shape::plain;
use super::value::Value;
use super::{Category, OptionDef, OptionKind};
use crate::iolog::ReplaySkip;
use crate::steady::parse_steadystate;
use crate::JobSpec;

/// Logs, steady state and traces.
pub(super) static ROWS: &[OptionDef] = &[
    plain!(
        "write_bw_log" => write_bw_log: MaybeOptionalText,
        category Logs,
        default "",
        help "Write fio's bandwidth log to PREFIX_bw.N.log (N = the worker's number in the \
              run, from 1); without a value the job's name is the prefix",
    ),
    plain!(
        "write_iops_log" => write_iops_log: MaybeOptionalText,
        category Logs,
        default "",
        help "Write fio's IOPS log to PREFIX_iops.N.log; without a value the job's name is \
              the prefix",
    ),
    plain!(
        "write_lat_log" => write_lat_log: MaybeOptionalText,
        category Logs,
        default "",
        help "Write fio's latency logs to PREFIX_lat.N.log, PREFIX_clat.N.log and \
              PREFIX_slat.N.log (ns); without a value the job's name is the prefix",
    ),
    plain!(
        "log_avg_msec" => log_avg_msec: Count,
        category Logs,
        default "0", unit "ms",
        help "0 = a log line per IO; N = a line per N ms window and direction with the \
              window's average (bandwidth in KiB/s, IOPS, mean latency in ns)",
    ),
    plain!(
        "log_offset" => log_offset: Flag,
        category Logs,
        default "0",
        help "Add each IO's offset as a column of the logs (0 in averaged lines)",
    ),
    plain!(
        "per_job_logs" => per_job_logs: Flag,
        category Logs,
        default "1",
        help "1 = one log file per worker (PREFIX_bw.N.log); 0 = workers with the same \
              prefix append to PREFIX_bw.log, across runs too (as fio)",
    ),
    OptionDef {
        name: "steadystate",
        category: Category::Timing,
        aliases: &["ss"],
        kind: OptionKind::Str,
        default: "iops_slope:0.01%",
        unit: "",
        help: "Steady-state criterion:limit, judged once per second over the last \
               steadystate_duration: iops or bw (every sample within the limit of the mean), \
               iops_slope or bw_slope (least-squares slope within the limit), or diskmeter's \
               iops_bw (iops and bw both); the limit is N% of the mean, IOPS, or bytes/s (10m)",
        limits: None,
        set: set_steadystate,
        show: Some(show_steadystate),
    },
    plain!(
        "steadystate_duration" | "ss_dur" => steadystate.duration_ns: Time,
        category Timing,
        default "0", unit "s",
        help "Window of steady-state detection, in whole steadystate_samples (at least one); the job stops \
              when its criterion holds over it; 0 = no detection",
    ),
    plain!(
        "steadystate_ramp_time" | "ss_ramp" => steadystate.ramp_ns: Time,
        category Timing,
        default "0", unit "s",
        help "Time after measurement starts (after ramp_time) before steady-state samples \
              are collected",
    ),
    plain!(
        "steadystate_sample" | "ss_sample" => steadystate.sample_ns: Time,
        category Timing,
        default "1s", unit "s",
        limits Limits {
            range: Range::TimeAtLeast {
                min_ns: 100_000_000,
            },
            why: "shorter samples would be mostly timer noise",
        },
        help "diskmeter's own (fio samples once per second): how often steady-state samples \
              are taken; steadystate_duration counts whole samples",
    ),
    OptionDef {
        name: "steadystate_precision",
        category: Category::Timing,
        aliases: &["ss_precision"],
        kind: OptionKind::Percent,
        default: "0",
        unit: "%",
        help: "diskmeter's own (fio has none): steady state also needs the 95% confidence \
               interval of the mean of every sample so far (batch means) within this many \
               percent of the mean, for IOPS and/or bandwidth as the criterion judges; 0 = \
               not judged",
        limits: None,
        set: set_steadystate_precision,
        show: Some(show_steadystate_precision),
    },
    plain!(
        "read_iolog" => iolog.read_iolog: MaybePath,
        category Logs,
        default "", unit "path",
        help "Replay the IOs of this fio iolog (version 2 or 3): each logged read, write and \
              sync in order, on the logged file, at the logged time; the log is read as a \
              stream (any size); a blktrace file or several logs are not supported",
    ),
    OptionDef {
        name: "read_iolog_chunked",
        category: Category::Logs,
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "Accepted for fio's job files; diskmeter always reads read_iolog as a stream",
        limits: None,
        set: set_read_iolog_chunked,
        show: None,
    },
    plain!(
        "write_iolog" => iolog.write_iolog: MaybePath,
        category Logs,
        default "", unit "path",
        help "Write every IO the job issues (ramp included) to this file as a version 3 \
              iolog that read_iolog and fio replay; the file is replaced, not appended to",
    ),
    plain!(
        "replay_no_stall" => iolog.replay_no_stall: Flag,
        category Logs,
        default "0",
        help "Replay the log as fast as the queue depth allows, in its order, ignoring its \
              timestamps and waits",
    ),
    plain!(
        "replay_redirect" => iolog.replay_redirect: MaybePath,
        category Logs,
        default "", unit "path",
        help "Replay every logged IO onto this file or device, whatever file the log names",
    ),
    OptionDef {
        name: "replay_align",
        category: Category::Logs,
        aliases: &[],
        kind: OptionKind::Int,
        default: "0",
        unit: "bytes",
        help: "Round each replayed offset down to a multiple of this power of two (after \
               replay_scale); 0 = as logged",
        limits: None,
        set: set_replay_align,
        show: Some(show_replay_align),
    },
    plain!(
        "replay_scale" => iolog.replay_scale: Int,
        category Logs,
        default "1",
        help "Divide each replayed offset by this (a log of a bigger device); 0 or 1 = as \
              logged",
    ),
    plain!(
        "replay_time_scale" => iolog.replay_time_scale_percent: Count,
        category Logs,
        default "100", unit "%",
        limits Limits {
            range: Range::Int { min: 1, max: None },
            why: "",
        },
        help "Replay at this percentage of the log's IO rate: 50 = half as fast, 200 = \
              twice as fast",
    ),
    OptionDef {
        name: "replay_skip",
        category: Category::Logs,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Logged actions not to replay, separated by ',': read, write, trim, sync \
               (sync also skips datasync)",
        limits: None,
        set: set_replay_skip,
        show: Some(show_replay_skip),
    },
];

// ---- setters and showers of the options above with logic of their own ----------------

pub(crate) fn set_replay_align(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let align = number(value)?;
    if align != 0 && !align.is_power_of_two() {
        return Err(InvalidValue::NotPowerOfTwo);
    }
    spec.iolog.replay_align_bytes = align;
    Ok(())
}

pub(crate) fn show_replay_align(spec: &JobSpec) -> Option<String> {
    Some(spec.iolog.replay_align_bytes.to_string())
}

pub(crate) fn set_replay_skip(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.iolog.replay_skip =
        ReplaySkip::parse(&text(value)?).map_err(|unknown| InvalidValue::NotAChoice {
            choices: ReplaySkip::WORDS,
            suggestion: super::nearest(&unknown.0, ReplaySkip::WORDS.iter().copied()),
        })?;
    Ok(())
}

pub(crate) fn show_replay_skip(spec: &JobSpec) -> Option<String> {
    spec.iolog.replay_skip.show()
}

/// fio's `read_iolog_chunked`: diskmeter always reads the log as a stream, so the flag is
/// accepted and changes nothing.
pub(crate) fn set_read_iolog_chunked(_: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    flag(value)?;
    Ok(())
}

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
