//! The rows of the option table for system options (see the module doc of `options`):
//! histogram logs, CPU and NUMA placement, priorities, io_uring and libaio options, and the
//! commands run before and after a job.

use super::shape::plain;
use super::system_setters::*;
use super::{Limits, OptionDef, OptionKind, Range};
use crate::system::CpusAllowedPolicy;

/// The system rows.
pub(super) static ROWS: &[OptionDef] = &[
    plain!(
        "write_hist_log" => system.write_hist_log: MaybeOptionalText,
        default "",
        help "Write fio's completion-latency histogram log to PREFIX_clat_hist.N.log (a line \
              per direction every log_hist_msec, in fio's bins); without a value the job's \
              name is the prefix",
    ),
    plain!(
        "log_hist_msec" => system.log_hist_msec: Count,
        default "0", unit "ms",
        help "A histogram-log line per direction every N ms; 0 = no lines (as fio)",
    ),
    plain!(
        "log_hist_coarseness" => system.log_hist_coarseness: Count,
        default "0", limits Limits {
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
        default "0",
        help "Log times (every log, the histogram log too) in Unix ms instead of ms since \
              the measurement start",
    ),
    plain!(
        "log_max_value" => system.log_max_value: Flag,
        default "0",
        help "With log_avg_msec: latency lines carry the window's largest value instead of \
              its mean",
    ),
    plain!(
        "log_entries" => system.log_entries: Count,
        default "1024", limits Limits {
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
        default "0",
        help "The logs' last column is each IO's priority value (0x%04x: class << 13 | \
              level) instead of 1 for the realtime class and 0 otherwise",
    ),
    OptionDef {
        name: "log_compression",
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
        default "shared",
        help "shared = every worker may run on every CPU of cpus_allowed; split = each worker \
              gets one of them (worker N of the run takes the ((N - 1) mod count)-th)",
    ),
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
    plain!(
        "sqthread_poll" => system.sqthread_poll: Flag,
        default "0",
        help "io_uring: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL), so \
              submitting costs no system call while it is awake (it uses a CPU meanwhile)",
    ),
    plain!(
        "sqthread_poll_cpu" => system.sqthread_poll_cpu: MaybeCount,
        default "",
        help "io_uring with sqthread_poll: the CPU the polling kernel thread runs on",
    ),
    plain!(
        "hipri" => system.hipri: Flag,
        default "0",
        help "io_uring: polled completions (IORING_SETUP_IOPOLL); needs direct=1 and a device \
              with poll queues, else the run is refused naming the device",
    ),
    OptionDef {
        name: "nonvectored",
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
        default "0",
        help "io_uring and libaio: RWF_NOWAIT on reads and writes, so an IO that would block \
              fails with EAGAIN (an IO error) instead",
    ),
    plain!(
        "force_async" => system.force_async: Count,
        default "0",
        help "io_uring: IOSQE_ASYNC on every Nth request (punted to a kernel worker instead \
              of tried inline); 0 = never",
    ),
    plain!(
        "userspace_reap" => system.userspace_reap: Flag,
        default "0",
        help "libaio: a reap that need not wait reads the completion ring in user space \
              instead of calling io_getevents",
    ),
    OptionDef {
        name: "cmdprio_percentage",
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
        default "",
        help "A shell command each worker runs before its IO (output in NAME.prerun.txt; a \
              failure ends the worker); runs only with --allow-exec, refused otherwise",
    ),
    plain!(
        "exec_postrun" => system.exec_postrun: MaybeText,
        default "",
        help "A shell command each worker runs after its IO (output in NAME.postrun.txt); \
              runs only with --allow-exec, refused otherwise",
    ),
];
