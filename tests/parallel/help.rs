//! Issue 32, "help that starts with what people type": every command's `-h` opens with
//! examples that parse with the real command tree, `run -h` fits a screen with the common
//! options, and `run --help` lists every job option under its category's heading, scale-out
//! last.

use crate::common;
use common::TestDir;

use diskmeter_workload::{all_options, Category, COMMON_OPTIONS};

fn help(args: &[&str], columns: &str) -> String {
    let out = common::diskmeter_with_env(".", &[("COLUMNS", columns)], args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The examples of a help text: (what it does, the command line's words), continuation
/// lines (`\`) joined.
fn examples(text: &str) -> Vec<(String, Vec<String>)> {
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut lines = text.lines().skip_while(|line| *line != "Examples:").skip(1);
    let mut comment = None;
    let mut continued = false;
    for line in lines.by_ref().take_while(|line| !line.is_empty()) {
        let words = line.split_whitespace().filter(|word| *word != "\\");
        if let Some(what) = line.strip_prefix("  # ") {
            comment = Some(what.to_string());
        } else if continued {
            found.last_mut().unwrap().1.extend(words.map(String::from));
        } else {
            let what = comment
                .take()
                .unwrap_or_else(|| panic!("no comment above {line:?}"));
            found.push((what, words.map(String::from).collect()));
        }
        continued = line.ends_with('\\');
    }
    found
}

#[test]
fn run_short_help_fits_a_screen_and_starts_with_examples() {
    for columns in ["100", "80"] {
        let text = help(&["run", "-h"], columns);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines.len() <= 80,
            "{} lines at {columns} columns:\n{text}",
            lines.len()
        );
        // The one-line description, a blank line, then the examples.
        assert_eq!(lines[2], "Examples:", "{text}");
        assert!(examples(&text).len() >= 3, "{text}");
        let listed = common::help_options(&text);
        for option in COMMON_OPTIONS.iter().chain(&["output-format"]) {
            assert!(listed.contains_key(*option), "-h lacks --{option}:\n{text}");
        }
        assert!(
            !listed.contains_key("rate_iops") && !listed.contains_key("mpi"),
            "{text}"
        );
        // Each heading left out is summed up in one line, scale-out last.
        let summary: Vec<&str> = lines
            .iter()
            .rev()
            .take_while(|l| l.starts_with("  "))
            .copied()
            .collect();
        assert!(summary[0].starts_with("  Scale-out"), "{text}");
        for category in Category::ALL {
            let heading = format!("  {}: --", category.heading());
            assert!(
                summary.iter().any(|l| l.starts_with(&heading)),
                "{heading}:\n{text}"
            );
        }
    }
}

#[test]
fn every_command_short_help_opens_with_examples_that_parse_and_run() {
    let (mut checked, mut ran) = (0, 0);
    // The examples that do no IO and need no history run too (those that run IO with
    // --dry-run): a valid command line can still be a refused job (no size for a new file).
    let dir = TestDir::new();
    std::fs::create_dir_all(dir.path().join("jobs")).unwrap();
    std::fs::create_dir_all(dir.path().join("mnt/data")).unwrap();
    let job = "[mixed]\nrw=randrw\nbs=4k\nsize=16m\nruntime=1\n";
    std::fs::write(dir.path().join("jobs/mixed.fio"), job).unwrap();
    let mut stack: Vec<Vec<String>> = vec![vec!["diskmeter".into()]];
    while let Some(path) = stack.pop() {
        let mut command = diskmeter_cli::command();
        command.build();
        let mut at = &mut command;
        for name in &path[1..] {
            at = at.find_subcommand_mut(name).unwrap();
        }
        for sub in at.get_subcommands().filter(|sub| sub.get_name() != "help") {
            stack.push([path.clone(), vec![sub.get_name().to_string()]].concat());
        }
        let text = at.render_help().to_string();
        // The one-line description (wrapped or not), a blank line, then the examples.
        let shown = text.lines().skip_while(|line| !line.is_empty()).nth(1) == Some("Examples:");
        assert!(
            shown,
            "{} -h does not open with examples:\n{text}",
            path.join(" ")
        );
        let found = examples(&text);
        let fewest = if path.len() == 2 && path[1] != "man" {
            3
        } else {
            1
        };
        assert!(
            (fewest..=5).contains(&found.len()),
            "{}: {} examples",
            path.join(" "),
            found.len()
        );
        for (what, words) in found {
            assert!(
                words.starts_with(&path),
                "{what}: {words:?} is not {}",
                path.join(" ")
            );
            if let Err(e) = diskmeter_cli::command().try_get_matches_from(&words) {
                panic!(
                    "the example {:?} ({what}) does not parse: {e}",
                    words.join(" ")
                );
            }
            checked += 1;
            ran += usize::from(runs_here(&dir, &words));
        }
    }
    assert!(checked > 60 && ran > 25, "{checked} examples, {ran} run");
    // DiskSpd's -h is its own switch: its examples are in --help.
    assert!(help(&["diskspd", "--help"], "100").contains("Examples:"));
}

/// Runs an example that does no IO (with `--dry-run` where it would run IO) and needs no
/// history, /mnt paths made folders of `dir`; whether it ran. It must succeed.
fn runs_here(dir: &TestDir, words: &[String]) -> bool {
    let line = words[1..].join(" ");
    let dry = ["run", "suite", "sweep", "iometer", "diskspd"].contains(&words[1].as_str());
    let no_io = [
        "k8s manifest",
        "plan",
        "catalog",
        "completions",
        "emulate profiles",
    ];
    let listing = ["suite --list", "check --list-expect", "man"].contains(&line.as_str());
    let needs = |word: &String| word.ends_with(".xml") || word.ends_with(".icf");
    let known = !line.contains("--from-capture") && !words.iter().any(needs);
    if !(known && (dry || listing || no_io.iter().any(|p| line.starts_with(p)))) {
        return false;
    }
    let mnt = dir.path().join("mnt");
    let mut args: Vec<String> = (words[1..].iter())
        .map(|word| word.replace("/mnt/", &format!("{}/", mnt.display())))
        .collect();
    if dry && !listing && !line.contains("--dry-run") {
        args.insert(1, "--dry-run".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = common::diskmeter(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the example {line:?} fails: {stderr}");
    true
}

#[test]
fn run_long_help_lists_each_job_option_under_its_heading_scale_out_last() {
    let text = help(&["run", "--help"], "100");
    let headings: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with(':') && !l.starts_with(' '))
        .collect();
    let at = |heading: &str| headings.iter().position(|h| *h == format!("{heading}:"));
    let order: Vec<usize> = (Category::ALL.iter())
        .map(|category| {
            at(category.heading()).unwrap_or_else(|| panic!("{category:?}: {headings:?}"))
        })
        .collect();
    assert!(
        order.windows(2).all(|pair| pair[0] < pair[1]),
        "{headings:?}"
    );
    assert!(
        headings.last().unwrap().starts_with("Scale-out"),
        "{headings:?}"
    );
    // Each option sits under its category's heading (the common ones under "Options:").
    let mut under = String::new();
    let mut heading_of = std::collections::HashMap::new();
    for line in text.lines() {
        if line.ends_with(':') && !line.starts_with(' ') {
            under = line.trim_end_matches(':').to_string();
        } else if let Some(long) = line.trim_start().strip_prefix("--") {
            let name: String = long
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            heading_of.insert(name, under.clone());
        }
    }
    for def in all_options() {
        let expected = if def.is_common() {
            "Options"
        } else {
            def.category.heading()
        };
        assert_eq!(
            heading_of.get(def.name).map(String::as_str),
            Some(expected),
            "--{}",
            def.name
        );
    }
    assert!(
        text.contains("diskmeter run -h shows the examples"),
        "{text}"
    );
}
