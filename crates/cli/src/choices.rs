//! The options whose value is one of a fixed set but which take any text (their parsers
//! also take aliases and any case: `--cache ro`, `--level P90`), with their sets, in one
//! place. clap lists an option's choices only when it validates them itself; for these,
//! [`explain`] adds the choices to clap's "a value is required" error, so an option given
//! without its value answers with what it takes (issue 27: `plan --optimize` alone said only
//! that a value was missing). Options that clap validates (`value_parser([...])`) list their
//! choices already.

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The error `diskmeter ARGS` stops with, as printed.
    fn error_of(args: &[&str]) -> String {
        let error = crate::command()
            .try_get_matches_from(std::iter::once("diskmeter").chain(args.iter().copied()))
            .expect_err("a usage error");
        explain(error).render().to_string()
    }

    #[test]
    fn a_choice_valued_option_without_its_value_lists_the_choices() {
        let optimize = error_of(&["plan", "--require", "iops=1000", "--optimize"]);
        assert!(
            optimize.contains("a value is required for '--optimize <GOAL>'")
                && optimize.contains("[possible values: cost]"),
            "{optimize}"
        );
        let level = error_of(&["replay", "1", "--level"]);
        assert!(
            level.contains("[possible values: p50, p90, p99, max, mean]"),
            "{level}"
        );
        let cache = error_of(&["plan", "--cache"]);
        assert!(cache.contains("None, ReadOnly, ReadWrite"), "{cache}");
        let zonemode = error_of(&["run", "--zonemode"]);
        assert!(zonemode.contains("[possible values: "), "{zonemode}");
        // A value-less option with no fixed choices says only that a value is missing.
        let size = error_of(&["run", "--size"]);
        assert!(!size.contains("possible values"), "{size}");
    }

    /// Every option of every command whose value names a fixed set (`CHOICE`, `MODE`, `GOAL`,
    /// `LEVEL`, `FORMAT`) lists its choices when given without a value: through clap's own
    /// possible values or through this module's table.
    #[test]
    fn every_choice_valued_option_has_its_choices() {
        let mut missing = Vec::new();
        let mut stack = vec![(String::new(), crate::command())];
        while let Some((path, command)) = stack.pop() {
            let path = format!("{path} {}", command.get_name()).trim().to_string();
            for arg in command.get_arguments() {
                let (Some(long), Some(names)) = (arg.get_long(), arg.get_value_names()) else {
                    continue;
                };
                let choice_like = names
                    .iter()
                    .any(|n| matches!(n.as_str(), "CHOICE" | "MODE" | "GOAL" | "LEVEL" | "FORMAT"));
                if choice_like && arg.get_possible_values().is_empty() && choices_of(long).is_none()
                {
                    missing.push(format!("{path} --{long}"));
                }
            }
            for sub in command.get_subcommands() {
                stack.push((path.clone(), sub.clone()));
            }
        }
        assert!(
            missing.is_empty(),
            "options with a fixed set of values that do not list it (give them \
             value_parser([...]) or a row of CHOICES in crates/cli/src/choices.rs): {missing:?}"
        );
    }
}
