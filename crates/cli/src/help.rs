//! Every command's help layout, applied once to the whole tree: `-h` opens with the
//! command's examples (diskmeter_views::help), lists the options without a heading (the
//! common ones) and sums up each heading in a line; `--help` lists every option.

use clap::Command;
use diskmeter_views::help;

/// `command` (at `path`, e.g. `diskmeter emulate`) and its subcommands with their help laid out.
pub fn finish(command: Command, path: &str) -> Command {
    let mut command = command.help_template(help::TEMPLATE);
    if let Some(examples) = help::examples_block(path) {
        command = command.before_help(examples);
    }
    // An option under a heading is summed up in `-h`, listed one by one in `--help`.
    command = command.mut_args(|arg| {
        let headed = arg.get_help_heading().is_some();
        arg.hide_short_help(headed)
    });
    let mut headings: Vec<(String, Vec<String>)> = Vec::new();
    for arg in command
        .get_arguments()
        .filter(|arg| arg.is_hide_short_help_set())
    {
        let (Some(heading), Some(long)) = (arg.get_help_heading(), arg.get_long()) else {
            continue;
        };
        match headings.iter_mut().find(|(known, _)| known == heading) {
            Some((_, names)) => names.push(long.to_string()),
            None => headings.push((heading.to_string(), vec![long.to_string()])),
        }
    }
    if !headings.is_empty() {
        command = (command.after_help(help::summary(path, &headings)))
            .after_long_help(help::short_form(path));
    }
    let names: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().into())
        .collect();
    for name in names {
        command = command.mut_subcommand(&name, |sub| finish(sub, &format!("{path} {name}")));
    }
    command
}
