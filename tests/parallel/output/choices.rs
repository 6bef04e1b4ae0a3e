//! An option whose value is one of a fixed set lists the set when given without a value,
//! whether clap checks the set itself or the option takes any text and its parser reads
//! aliases (`plan --optimize`, `--cache`, `--level`: the CLI's choices table).

use crate::common;

/// What `diskmeter ARGS` prints on stderr; it must be a usage error.
fn error_of(args: &[&str]) -> String {
    let out = common::command().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "diskmeter {args:?}");
    String::from_utf8(out.stderr).unwrap()
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
/// `LEVEL`, `FORMAT` in `--help`) lists its choices when given without a value.
#[test]
fn every_choice_valued_option_has_its_choices() {
    let help = |path: &[String]| {
        let out = common::command().args(path).arg("--help").output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let mut missing = Vec::new();
    let mut checked = 0;
    let mut stack: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = stack.pop() {
        let text = help(&path);
        let mut in_commands = false;
        for line in text.lines() {
            if !line.starts_with(' ') {
                in_commands = line == "Commands:";
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            if in_commands && line.starts_with("  ") && !line.starts_with("   ") {
                if let Some(name) = words.first().filter(|w| **w != "help") {
                    stack.push([path.clone(), vec![name.to_string()]].concat());
                }
                continue;
            }
            // "  -f, --format <FORMAT>" or "      --level <LEVEL>": an option's first line.
            let Some(at) = words.iter().position(|w| w.starts_with("--")) else {
                continue;
            };
            let (long, value) = (words[at].trim_end_matches(','), words.get(at + 1));
            let choice_like = value.is_some_and(|v| {
                ["<CHOICE>", "<MODE>", "<GOAL>", "<LEVEL>", "<FORMAT>"].contains(v)
            });
            if !choice_like || !line.trim_start().starts_with('-') {
                continue;
            }
            checked += 1;
            let mut args = path.clone();
            args.push(long.to_string());
            let out = common::command().args(&args).output().unwrap();
            if !String::from_utf8_lossy(&out.stderr).contains("possible values") {
                missing.push(args.join(" "));
            }
        }
    }
    assert!(
        checked > 5,
        "too few choice-valued options found: {checked}"
    );
    assert!(
        missing.is_empty(),
        "options with a fixed set of values that do not list it (give them \
         value_parser([...]) or a row of CHOICES in crates/cli/src/choices.rs): {missing:?}"
    );
}
