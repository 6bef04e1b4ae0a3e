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
        name: "log_unix_epoch",
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "Log times (every log, the histogram log too) in Unix ms instead of ms since \
               the measurement start",
        limits: None,
        set: set_log_unix_epoch,
        show: Some(show_log_unix_epoch),
    },
    OptionDef {
        name: "log_max_value",
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "With log_avg_msec: latency lines carry the window's largest value instead of \
               its mean",
        limits: None,
        set: set_log_max_value,
        show: Some(show_log_max_value),
    },
    OptionDef {
        name: "log_entries",
        aliases: &[],
        kind: OptionKind::Int,
        default: "1024",
        unit: "",
        help: "fio's initial log allocation; accepted and unused (diskmeter's logs write out \
               in chunks as they fill)",
        limits: Some(Limits {
            range: Range::Int {
                min: 1024,
                max: Some(1_048_576),
            },
            why: "",
        }),
        set: set_log_entries,
        show: Some(show_log_entries),
    },
    OptionDef {
        name: "log_prio",
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "The logs' last column is each IO's priority value (0x%04x: class << 13 | \
               level) instead of 1 for the realtime class and 0 otherwise",
        limits: None,
        set: set_log_prio,
        show: Some(show_log_prio),
    },
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
    OptionDef {
        name: "sqthread_poll",
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "io_uring: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL), so \
               submitting costs no system call while it is awake (it uses a CPU meanwhile)",
        limits: None,
        set: set_sqthread_poll,
        show: Some(show_sqthread_poll),
    },
    OptionDef {
        name: "sqthread_poll_cpu",
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "",
        help: "io_uring with sqthread_poll: the CPU the polling kernel thread runs on",
        limits: None,
        set: set_sqthread_poll_cpu,
        show: Some(show_sqthread_poll_cpu),
    },
    OptionDef {
        name: "hipri",
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "io_uring: polled completions (IORING_SETUP_IOPOLL); needs direct=1 and a device \
               with poll queues, else the run is refused naming the device",
        limits: None,
        set: set_hipri,
        show: Some(show_hipri),
    },
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
    OptionDef {
        name: "nowait",
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "io_uring and libaio: RWF_NOWAIT on reads and writes, so an IO that would block \
               fails with EAGAIN (an IO error) instead",
        limits: None,
        set: set_nowait,
        show: Some(show_nowait),
    },
    OptionDef {
        name: "force_async",
        aliases: &[],
        kind: OptionKind::Int,
        default: "0",
        unit: "",
        help: "io_uring: IOSQE_ASYNC on every Nth request (punted to a kernel worker instead \
               of tried inline); 0 = never",
        limits: None,
        set: set_force_async,
        show: Some(show_force_async),
    },
    OptionDef {
        name: "userspace_reap",
        aliases: &[],
        kind: OptionKind::Flag,
        default: "0",
        unit: "",
        help: "libaio: a reap that need not wait reads the completion ring in user space \
               instead of calling io_getevents",
        limits: None,
        set: set_userspace_reap,
        show: Some(show_userspace_reap),
    },
    OptionDef {
        name: "exec_prerun",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "A shell command each worker runs before its IO (output in NAME.prerun.txt; a \
               failure ends the worker); runs only with --allow-exec, refused otherwise",
        limits: None,
        set: set_exec_prerun,
        show: Some(show_exec_prerun),
    },
    OptionDef {
        name: "exec_postrun",
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "A shell command each worker runs after its IO (output in NAME.postrun.txt); \
               runs only with --allow-exec, refused otherwise",
        limits: None,
        set: set_exec_postrun,
        show: Some(show_exec_postrun),
    },
];
