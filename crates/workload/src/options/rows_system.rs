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
];
