//! The options whose value is one of a fixed set but which take any text (their parsers
//! also take aliases and any case: `--cache ro`, `--level P90`), with their sets, in one
//! place. clap lists an option's choices only when it validates them itself; for these,
//! [`explain`] adds the choices to clap's "a value is required" error, so an option given
//! without its value answers with what it takes (issue 27: `plan --optimize` alone said only
//! that a value was missing). Options that clap validates (`value_parser([...])`) list their
//! choices already. tests/parallel/output/choices.rs checks every such option of every
//! command through the binary.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use diskmeter_workload::{all_options, OptionKind};

/// The choices of the options outside fio's table, by long name (the same set wherever the
/// name is used).
const CHOICES: &[(&str, &[&str])] = &[
    // plan --cache: HostCache::parse (none/off, readonly/ro, readwrite/rw, any case).
    ("cache", &["None", "ReadOnly", "ReadWrite"]),
    // plan --optimize: the one goal the planner has.
    ("optimize", &["cost"]),
    // plan, replay and check --level: the checklist's columns (analysis's Level).
    ("level", &["p50", "p90", "p99", "max", "mean"]),
];

/// The fixed choices of the option called `long`, if it has them.
pub(crate) fn choices_of(long: &str) -> Option<Vec<&'static str>> {
    if let Some((_, values)) = CHOICES.iter().find(|(name, _)| *name == long) {
        return Some(values.to_vec());
    }
    all_options().find_map(|def| match def.kind {
        OptionKind::Choice(values) if def.name == long || def.aliases.contains(&long) => {
            Some(values.to_vec())
        }
        _ => None,
    })
}

/// `error` with the option's choices when it says a choice-valued option came without its
/// value and lists none.
pub(crate) fn explain(mut error: clap::Error) -> clap::Error {
    let listed = matches!(error.get(ContextKind::ValidValue), Some(ContextValue::Strings(v)) if !v.is_empty());
    if error.kind() != ErrorKind::InvalidValue || listed {
        return error;
    }
    let missing = matches!(error.get(ContextKind::InvalidValue), Some(ContextValue::String(v)) if v.is_empty());
    let long = match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg
            .trim_start_matches("--")
            .split([' ', '=', '<'])
            .next()
            .unwrap_or("")
            .to_string(),
        _ => return error,
    };
    if let (true, Some(values)) = (missing, choices_of(&long)) {
        error.insert(
            ContextKind::ValidValue,
            ContextValue::Strings(values.iter().map(|v| v.to_string()).collect()),
        );
    }
    error
}
