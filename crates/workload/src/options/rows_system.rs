//! The rows of the option table for system options (see the module doc of `options`):
//! histogram logs, CPU and NUMA placement, priorities, io_uring and libaio options, and the
//! commands run before and after a job.

use super::system_setters::*;
use super::{Limits, OptionDef, OptionKind, Range};

/// The system rows.
pub(super) static ROWS: &[OptionDef] = &[
    OptionDef {
        name: "write_hist_log",
        aliases: &[],
        kind: OptionKind::OptionalStr,
        default: "",
        unit: "",
        help: "Write fio's completion-latency histogram log to PREFIX_clat_hist.N.log (a line \
               per direction every log_hist_msec, in fio's bins); without a value the job's \
               name is the prefix",
        limits: None,
        set: set_write_hist_log,
        show: Some(show_write_hist_log),
    },
    OptionDef {
        name: "log_hist_msec",
        aliases: &[],
        kind: OptionKind::Int,
        default: "0",
        unit: "ms",
        help: "A histogram-log line per direction every N ms; 0 = no lines (as fio)",
        limits: None,
        set: set_log_hist_msec,
        show: Some(show_log_hist_msec),
    },
    OptionDef {
        name: "log_hist_coarseness",
        aliases: &[],
        kind: OptionKind::Int,
        default: "0",
        unit: "",
        help: "Sum 2^N of fio's latency bins per histogram-log column: 0 = 1856 columns, 6 = 29",
        limits: Some(Limits {
            range: Range::Int {
                min: 0,
                max: Some(6),
            },
            why: "",
        }),
        set: set_log_hist_coarseness,
        show: Some(show_log_hist_coarseness),
    },
    OptionDef {
        name: "cpus_allowed_policy",
        aliases: &[],
        kind: OptionKind::Choice(&["shared", "split"]),
        default: "shared",
        unit: "",
        help: "shared = every worker may run on every CPU of cpus_allowed; split = each worker \
               gets one of them (worker N of the run takes the ((N - 1) mod count)-th)",
        limits: None,
        set: set_cpus_allowed_policy,
        show: Some(show_cpus_allowed_policy),
    },
    OptionDef {
        name: "cpumask",
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
];
