//! The rows of the option table for system options (see the module doc of `options`):
//! histogram logs, CPU and NUMA placement, priorities, io_uring and libaio options, and the
//! commands run before and after a job.
//!
//! The rows' options with logic of their own have their setter (`set_*`) and shower
//! (`show_*`) below the rows, with the conventions of `setters.rs`.

use super::convert::{number, pair, text};
use super::error::InvalidValue;
use super::shape::plain;
use super::value::Value;
use super::{Category, Limits, OptionDef, OptionKind, Range};
use crate::system::cmdprio::{format_cmdprio_bssplit, parse_cmdprio_bssplit};
use crate::system::{
    format_mem_policy, format_node_list, parse_mem_policy, parse_node_list, CpusAllowedPolicy,
    SystemValueError,
};
use crate::JobSpec;

/// The system rows.
pub(super) static ROWS: &[OptionDef] = &[
    plain!(
        "write_hist_log" => system.write_hist_log: MaybeOptionalText,
        category Logs,
        default "",
        help "Write fio's completion-latency histogram log to PREFIX_clat_hist.N.log (a line \
              per direction every log_hist_msec, in fio's bins); without a value the job's \
              name is the prefix",
    ),
    plain!(
        "log_hist_msec" => system.log_hist_msec: Count,
        category Logs,
        default "0", unit "ms",
        help "A histogram-log line per direction every N ms; 0 = no lines (as fio)",
    ),
    plain!(
        "log_hist_coarseness" => system.log_hist_coarseness: Count,
        category Logs,
        default "0",
        limits Limits {
            range: Range::Int {
                min: 0,
                max: Some(6),
            },
            why: "",
        },
        help "Sum 2^N of fio's latency bins per histogram-log column: 0 = 1856 columns, 6 = 29",
    ),
    plain!(
        "log_unix_epoch" => system.log_unix_epoch: Flag,
        category Logs,
        default "0",
        help "Log times (every log, the histogram log too) in Unix ms instead of ms since \
              the measurement start",
    ),
    plain!(
        "log_max_value" => system.log_max_value: Flag,
        category Logs,
        default "0",
        help "With log_avg_msec: latency lines carry the window's largest value instead of \
              its mean",
    ),
    plain!(
        "log_entries" => system.log_entries: Count,
        category Logs,
        default "1024",
        limits Limits {
            range: Range::Int {
                min: 1024,
                max: Some(1_048_576),
            },
            why: "",
        },
        help "fio's initial log allocation; accepted and unused (diskmeter's logs write out \
              in chunks as they fill)",
    ),
    plain!(
        "log_prio" => system.log_prio: Flag,
        category Logs,
        default "0",
        help "The logs' last column is each IO's priority value (0x%04x: class << 13 | \
              level) instead of 1 for the realtime class and 0 otherwise",
    ),
    OptionDef {
        name: "log_compression",
        category: Category::Logs,
        aliases: &[],
        kind: OptionKind::Size,
        default: "",
        unit: "bytes",
        help: "Refused with the reason: fio's zlib-compressed log chunks; diskmeter writes \
               plain-text logs in chunks as they fill",
        limits: None,
        set: set_log_compression,
        show: Some(show_log_compression),
    },
    plain!(
        "cpus_allowed_policy" => system.cpus_allowed_policy: Choice<CpusAllowedPolicy>,
        category Engine,
        default "shared",
        help "shared = every worker may run on every CPU of cpus_allowed; split = each worker \
              gets one of them (worker N of the run takes the ((N - 1) mod count)-th)",
    ),
    OptionDef {
        name: "cpumask",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "",
        help: "The CPUs of cpus_allowed as a bit mask (bit N = CPU N, e.g. 0x5 = CPUs 0 and \
               2); the later of the two options wins",
        limits: Some(Limits::at_least(1).because("a mask without CPUs would run nowhere")),
        set: set_cpumask,
        show: Some(show_cpumask),
    },
    OptionDef {
        name: "numa_cpu_nodes",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Run the workers on the CPUs of these NUMA nodes (all, or numbers and ranges: \
               0,2-3); a node the machine lacks stops the run before any IO, naming it",
        limits: None,
        set: set_numa_cpu_nodes,
        show: Some(show_numa_cpu_nodes),
    },
    OptionDef {
        name: "numa_mem_policy",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Where the workers' memory (IO buffers) is allocated: default, local, prefer:N, \
               bind:NODES or interleave:NODES (set_mempolicy before the buffers exist)",
        limits: None,
        set: set_numa_mem_policy,
        show: Some(show_numa_mem_policy),
    },
    OptionDef {
        name: "nice",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Str,
        default: "0",
        unit: "",
        help: "The worker threads' nice value, -20 (most CPU) to 19 (least); 0 leaves it \
               (negative values need root, as in fio)",
        limits: None,
        set: set_nice,
        show: Some(show_nice),
    },
    OptionDef {
        name: "prio",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "",
        help: "The workers' IO priority level, 0 (highest) to 7, in prioclass (best effort \
               when prioclass is unset); unset leaves it",
        limits: Some(Limits {
            range: Range::Int {
                min: 0,
                max: Some(7),
            },
            why: "",
        }),
        set: set_prio,
        show: Some(show_prio),
    },
    OptionDef {
        name: "prioclass",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "",
        help: "The workers' IO priority class: 1 realtime (needs root), 2 best effort, 3 idle, \
               0 none; unset leaves it",
        limits: Some(Limits {
            range: Range::Int {
                min: 0,
                max: Some(3),
            },
            why: "",
        }),
        set: set_prioclass,
        show: Some(show_prioclass),
    },
    plain!(
        "sqthread_poll" => system.sqthread_poll: Flag,
        category Engine,
        default "0",
        help "io_uring: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL), so \
              submitting costs no system call while it is awake (it uses a CPU meanwhile)",
    ),
    plain!(
        "sqthread_poll_cpu" => system.sqthread_poll_cpu: MaybeCount,
        category Engine,
        default "",
        help "io_uring with sqthread_poll: the CPU the polling kernel thread runs on",
    ),
    plain!(
        "hipri" => system.hipri: Flag,
        category Engine,
        default "0",
        help "io_uring: polled completions (IORING_SETUP_IOPOLL); needs direct=1 and a device \
              with poll queues, else the run is refused naming the device",
    ),
    OptionDef {
        name: "nonvectored",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Str,
        default: "-1",
        unit: "",
        help: "io_uring: 0 = READV/WRITEV with one iovec; 1 or -1 (auto) = READ/WRITE, which \
               every kernel diskmeter runs on has",
        limits: None,
        set: set_nonvectored,
        show: Some(show_nonvectored),
    },
    OptionDef {
        name: "uncached",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Int,
        default: "0",
        unit: "",
        help: "io_uring: only 0; 1 asks for RWF_UNCACHED, a flag Linux never merged, and is \
               refused with that reason",
        limits: None,
        set: set_uncached,
        show: Some(show_uncached),
    },
    plain!(
        "nowait" => system.nowait: Flag,
        category Engine,
        default "0",
        help "io_uring and libaio: RWF_NOWAIT on reads and writes, so an IO that would block \
              fails with EAGAIN (an IO error) instead",
    ),
    plain!(
        "force_async" => system.force_async: Count,
        category Engine,
        default "0",
        help "io_uring: IOSQE_ASYNC on every Nth request (punted to a kernel worker instead \
              of tried inline); 0 = never",
    ),
    plain!(
        "userspace_reap" => system.userspace_reap: Flag,
        category Engine,
        default "0",
        help "libaio: a reap that need not wait reads the completion ring in user space \
              instead of calling io_getevents",
    ),
    OptionDef {
        name: "cmdprio_percentage",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::IntPair,
        default: "",
        unit: "%",
        help: "io_uring and libaio: this percentage of the IOs (read,write) carries the IO \
               priority cmdprio_class/cmdprio in the IO itself; 0 to 100",
        limits: None,
        set: set_cmdprio_percentage,
        show: Some(show_cmdprio_percentage),
    },
    OptionDef {
        name: "cmdprio_class",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::IntPair,
        default: "1",
        unit: "",
        help: "io_uring and libaio: the class of the IOs cmdprio_percentage or \
               cmdprio_bssplit picks (read,write): 1 realtime, 2 best effort, 3 idle",
        limits: None,
        set: set_cmdprio_class,
        show: Some(show_cmdprio_class),
    },
    OptionDef {
        name: "cmdprio",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::IntPair,
        default: "0",
        unit: "",
        help: "io_uring and libaio: the level, 0 (highest) to 7, of the IOs cmdprio_percentage \
               or cmdprio_bssplit picks (read,write)",
        limits: None,
        set: set_cmdprio,
        show: Some(show_cmdprio),
    },
    OptionDef {
        name: "cmdprio_bssplit",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "io_uring and libaio: per block size, the percentage of IOs with a priority: \
               BS/PERCENT[/CLASS/LEVEL]:... for reads[,writes] (not with cmdprio_percentage)",
        limits: None,
        set: set_cmdprio_bssplit,
        show: Some(show_cmdprio_bssplit),
    },
    plain!(
        "exec_prerun" => system.exec_prerun: MaybeText,
        category Timing,
        default "",
        help "A shell command each worker runs before its IO (output in NAME.prerun.txt; a \
              failure ends the worker); runs only with --allow-exec, refused otherwise",
    ),
    plain!(
        "exec_postrun" => system.exec_postrun: MaybeText,
        category Timing,
        default "",
        help "A shell command each worker runs after its IO (output in NAME.postrun.txt); \
              runs only with --allow-exec, refused otherwise",
    ),
];

// ---- setters and showers of the options above with logic of their own ----------------

/// fio's `cpumask`: a bit mask of the CPUs `cpus_allowed` lists (bit N = CPU N); the two
/// options set the same CPUs, the later one wins (as in fio).
pub(crate) fn set_cpumask(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let mask = number(value)?;
    spec.cpus_allowed = Some((0..64).filter(|bit| mask & (1 << bit) != 0).collect());
    Ok(())
}

/// The mask is printed as the `cpus_allowed` it set.
pub(crate) fn show_cpumask(_: &JobSpec) -> Option<String> {
    None
}

pub(crate) fn set_numa_cpu_nodes(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.numa_cpu_nodes = Some(parse_node_list(&text(value)?)?);
    Ok(())
}

pub(crate) fn show_numa_cpu_nodes(spec: &JobSpec) -> Option<String> {
    spec.system.numa_cpu_nodes.as_ref().map(format_node_list)
}

pub(crate) fn set_numa_mem_policy(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.numa_mem_policy = Some(parse_mem_policy(&text(value)?)?);
    Ok(())
}

pub(crate) fn show_numa_mem_policy(spec: &JobSpec) -> Option<String> {
    spec.system.numa_mem_policy.as_ref().map(format_mem_policy)
}

pub(crate) fn set_nice(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let out_of_range = SystemValueError::Signed { min: -20, max: 19 };
    let nice: i32 = text(value)?
        .trim()
        .parse()
        .map_err(|_| out_of_range.clone())?;
    if !(-20..=19).contains(&nice) {
        return Err(out_of_range.into());
    }
    spec.system.nice = nice;
    Ok(())
}

pub(crate) fn show_nice(spec: &JobSpec) -> Option<String> {
    Some(spec.system.nice.to_string())
}

pub(crate) fn set_prio(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // The row's limits (0 to 7) are checked before this runs.
    spec.system.prio = Some(number(value)? as u8);
    Ok(())
}

pub(crate) fn show_prio(spec: &JobSpec) -> Option<String> {
    spec.system.prio.map(|p| p.to_string())
}

pub(crate) fn set_prioclass(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // The row's limits (0 to 3) are checked before this runs.
    spec.system.prioclass = Some(number(value)? as u8);
    Ok(())
}

pub(crate) fn show_prioclass(spec: &JobSpec) -> Option<String> {
    spec.system.prioclass.map(|p| p.to_string())
}

pub(crate) fn set_nonvectored(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let out_of_range = SystemValueError::Signed { min: -1, max: 1 };
    let value: i32 = text(value)?
        .trim()
        .parse()
        .map_err(|_| out_of_range.clone())?;
    if !(-1..=1).contains(&value) {
        return Err(out_of_range.into());
    }
    spec.system.nonvectored = value;
    Ok(())
}

pub(crate) fn show_nonvectored(spec: &JobSpec) -> Option<String> {
    Some(spec.system.nonvectored.to_string())
}

pub(crate) fn set_uncached(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    match number(value)? {
        0 => {
            spec.system.uncached = 0;
            Ok(())
        }
        _ => Err(SystemValueError::Uncached.into()),
    }
}

pub(crate) fn show_uncached(spec: &JobSpec) -> Option<String> {
    Some(spec.system.uncached.to_string())
}

pub(crate) fn set_log_compression(_: &mut JobSpec, _: Value) -> Result<(), InvalidValue> {
    Err(SystemValueError::LogCompression.into())
}

/// Nothing to print: the option is never stored.
pub(crate) fn show_log_compression(_: &JobSpec) -> Option<String> {
    None
}

/// A read,write pair of small numbers from `min` to `max`; a direction left out keeps
/// `current`'s value, a single value sets both (fio's pairs).
fn small_pair(value: Value, min: u64, max: u64, current: [u8; 2]) -> Result<[u8; 2], InvalidValue> {
    let pair = pair(value)?;
    let mut out = current;
    for (slot, given) in out.iter_mut().zip([pair.read, pair.write]) {
        if let Some(given) = given {
            if given < min || given > max {
                return Err(SystemValueError::PairOutside { min, max }.into());
            }
            *slot = given as u8;
        }
    }
    Ok(out)
}

/// Prints a pair as `read,write`, or one value when both are the same.
fn show_small_pair(pair: [u8; 2]) -> String {
    if pair[0] == pair[1] {
        pair[0].to_string()
    } else {
        format!("{},{}", pair[0], pair[1])
    }
}

pub(crate) fn set_cmdprio_percentage(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let current = spec.system.cmdprio.percentage.unwrap_or([0, 0]);
    spec.system.cmdprio.percentage = Some(small_pair(value, 0, 100, current)?);
    Ok(())
}

pub(crate) fn show_cmdprio_percentage(spec: &JobSpec) -> Option<String> {
    spec.system.cmdprio.percentage.map(show_small_pair)
}

pub(crate) fn set_cmdprio_class(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.cmdprio.class = small_pair(value, 1, 3, spec.system.cmdprio.class)?;
    Ok(())
}

pub(crate) fn show_cmdprio_class(spec: &JobSpec) -> Option<String> {
    Some(show_small_pair(spec.system.cmdprio.class))
}

pub(crate) fn set_cmdprio(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.system.cmdprio.level = small_pair(value, 0, 7, spec.system.cmdprio.level)?;
    Ok(())
}

pub(crate) fn show_cmdprio(spec: &JobSpec) -> Option<String> {
    Some(show_small_pair(spec.system.cmdprio.level))
}

pub(crate) fn set_cmdprio_bssplit(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let split =
        parse_cmdprio_bssplit(&text(value)?, spec.kb_base).map_err(SystemValueError::from)?;
    spec.system.cmdprio.bssplit = Some(split);
    Ok(())
}

pub(crate) fn show_cmdprio_bssplit(spec: &JobSpec) -> Option<String> {
    spec.system
        .cmdprio
        .bssplit
        .as_ref()
        .map(format_cmdprio_bssplit)
}
