//! The rows of the option table for trim options and the IO-error policy (see the module
//! doc of `options`); names, aliases and defaults are fio 3.33's (`fio --cmdhelp=NAME`).
//!
//! The rows' options with logic of their own have their setter (`set_*`) and shower
//! (`show_*`) below the rows, with the conventions of `setters.rs`.

use super::convert::{number, text};
use super::error::InvalidValue;
use super::limits::{Limits, Range};
use super::shape::plain;
use super::value::Value;
use super::{Category, OptionDef, OptionKind};
use crate::trim::ErrorClasses;
use crate::JobSpec;

/// The trim and error-policy rows.
pub(super) static ROWS: &[OptionDef] = &[
    plain!(
        "continue_on_error" => trim.continue_on_error: Choice<ErrorClasses>,
        category Verify,
        default "none",
        help "Go on after IO errors of these classes (none, read, write, io, verify, all; 0 = \
              none, 1 = all) whose errno is in ignore_error's list (EIO and EILSEQ by \
              default); each is counted (total_err, first_error)",
    ),
    OptionDef {
        name: "ignore_error",
        category: Category::Verify,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Errnos to go on after, as READ,WRITE,VERIFY lists of names or numbers separated \
               by ':' (',ENOSPC' = writes that find the filesystem full); turns on \
               continue_on_error for the lists given",
        limits: None,
        set: set_ignore_error,
        show: Some(show_ignore_error),
    },
    plain!(
        "error_dump" => trim.error_dump: Flag,
        category Verify,
        default "0",
        help "List every IO error (op, offset, length, file, errno), the ones the job went on \
              after too",
    ),
    plain!(
        "trim_percentage" => trim.trim_percentage: Percent,
        category Verify,
        default "0", unit "%",
        limits Limits {
            range: Range::Percent {
                min: 0.0,
                max: 100.0,
                whole: true,
            },
            why: "",
        },
        help "Share of the blocks written in each trim_backlog that are then trimmed (with verify only, as fio)",
    ),
    OptionDef {
        name: "trim_backlog",
        category: Category::Verify,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "blocks",
        help: "After every N blocks written, trim trim_percentage of them (0 = never)",
        limits: None,
        set: set_trim_backlog,
        show: Some(show_trim_backlog),
    },
    OptionDef {
        name: "trim_backlog_batch",
        category: Category::Verify,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "blocks",
        help: "Most blocks trimmed per trim_backlog pass (0 = all its share)",
        limits: None,
        set: set_trim_backlog_batch,
        show: Some(show_trim_backlog_batch),
    },
];

// ---- setters and showers of the options above with logic of their own ----------------

pub(crate) fn set_ignore_error(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.trim
        .set_ignore_error(&text(value)?)
        .map_err(InvalidValue::IgnoreError)
}

pub(crate) fn show_ignore_error(spec: &JobSpec) -> Option<String> {
    spec.trim.ignore_error_text()
}

pub(crate) fn set_trim_backlog(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.trim.trim_backlog = number(value)?;
    Ok(())
}

pub(crate) fn show_trim_backlog(spec: &JobSpec) -> Option<String> {
    (spec.trim.trim_backlog > 0).then(|| spec.trim.trim_backlog.to_string())
}

pub(crate) fn set_trim_backlog_batch(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.trim.trim_backlog_batch = number(value)?;
    Ok(())
}

pub(crate) fn show_trim_backlog_batch(spec: &JobSpec) -> Option<String> {
    (spec.trim.trim_backlog_batch > 0).then(|| spec.trim.trim_backlog_batch.to_string())
}
