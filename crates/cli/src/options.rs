//! fio's job options as command-line arguments, generated from the workload crate's option
//! table (each option's help line, value name and heading are its row's) so the parser,
//! `--help` and the docs never disagree.
//!
//! fio's command line is order-sensitive (`--name` starts a job; options before the first
//! `--name` are global), so the matches are turned back into an ordered list of
//! (option, value) pairs for `diskmeter_workload::jobs_from_options`.

use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_workload::{all_options, OptionDef, OptionKind, COMMON_OPTIONS};

/// The value clap gives a flag written without one (`--time_based`): told apart from
/// `--time_based=1` because fio lists only the latter under "job options".
const BARE_FLAG: &str = "\u{1}bare";

fn arg_id(def: &OptionDef) -> String {
    format!("fio:{}", def.name)
}

/// Adds one argument per job option to `command`: the common ones first and without a heading
/// (`-h` lists them, with their short help), then the others under their category's heading.
pub fn add_job_options(mut command: Command) -> Command {
    let mut defs: Vec<&OptionDef> = all_options().collect();
    let common = |def: &OptionDef| COMMON_OPTIONS.iter().position(|name| *name == def.name);
    defs.sort_by_key(|def| (common(def).unwrap_or(COMMON_OPTIONS.len()), def.category));
    for def in defs {
        let heading = (!def.is_common()).then(|| def.category.heading());
        let mut arg = Arg::new(arg_id(def))
            .long(def.name)
            .help(def.short_help())
            .long_help(def.help_line())
            .value_name(def.kind.value_name())
            .help_heading(heading)
            .action(ArgAction::Append)
            .allow_hyphen_values(true);
        for alias in def.aliases {
            arg = arg.alias(*alias);
        }
        arg = match def.kind {
            OptionKind::Flag => arg
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value(BARE_FLAG),
            // fio's `--write_bw_log` alone takes the job's name: no value reads as empty.
            // Unlike other options a following `--option` is not taken as the value.
            OptionKind::OptionalStr => arg
                .num_args(0..=1)
                .default_missing_value("")
                .allow_hyphen_values(false),
            _ => arg.num_args(1),
        };
        command = command.arg(arg);
    }
    command
}

/// The job options given, in command-line order, as (option name, value); `None` for a flag
/// or an optional-value option written without a value, as in a job file.
pub fn ordered_job_options(matches: &ArgMatches) -> Vec<(String, Option<String>)> {
    let mut found: Vec<(usize, String, Option<String>)> = Vec::new();
    for def in all_options() {
        let id = arg_id(def);
        let (Some(indices), Some(values)) =
            (matches.indices_of(&id), matches.get_many::<String>(&id))
        else {
            continue;
        };
        for (index, value) in indices.zip(values) {
            let bare = match def.kind {
                OptionKind::Flag => value == BARE_FLAG,
                OptionKind::OptionalStr => value.is_empty(),
                _ => false,
            };
            found.push((index, def.name.to_string(), (!bare).then(|| value.clone())));
        }
    }
    found.sort_by_key(|(index, _, _)| *index);
    found
        .into_iter()
        .map(|(_, name, value)| (name, value))
        .collect()
}
