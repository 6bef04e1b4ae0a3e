//! Test scale: a command of the docs rewritten to run here (sizes, runtimes, paths, ids,
//! launchers), and the docs' ids mapped to the fixture's runs and suites.

use super::extract::DocCommand;
use super::fixture::Fixture;
use super::rules::{Action, MAX_SIZE_BYTES};
use std::collections::HashMap;
use std::path::Path;

/// A size in fio's syntax (k = 1024), in bytes.
pub(crate) fn size_bytes(text: &str) -> Option<u64> {
    let lower = text.to_ascii_lowercase();
    let digits: String = lower.chars().take_while(|c| c.is_ascii_digit()).collect();
    let number: u64 = digits.parse().ok()?;
    let shift = match lower[digits.len()..]
        .trim_end_matches("ib")
        .trim_end_matches('b')
    {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    Some(number << shift)
}

/// `value` capped at [`MAX_SIZE_BYTES`].
pub(crate) fn capped_size(value: &str) -> String {
    match size_bytes(value) {
        Some(bytes) if bytes > MAX_SIZE_BYTES => "64m".to_string(),
        _ => value.to_string(),
    }
}

/// Replaces `from` by `to` where it starts a path: at the start or after a blank, `=`, a
/// quote or `:`, and not followed by a letter or digit that would make it another name.
pub(crate) fn replace_rooted(text: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    let mut before = ' ';
    while let Some(at) = rest.find(from) {
        let prev = rest[..at].chars().last().unwrap_or(before);
        let next = rest[at + from.len()..].chars().next();
        let starts = matches!(prev, ' ' | '=' | '\'' | '"' | ':' | '\n');
        let ends = from.ends_with('/') || !next.is_some_and(|c| c.is_ascii_alphanumeric());
        out.push_str(&rest[..at]);
        out.push_str(if starts && ends { to } else { from });
        before = from.chars().last().unwrap();
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

impl Fixture {
    /// `text` at test scale, its paths and ids the fixture's (see the module's doc).
    pub(crate) fn rewrite(&mut self, text: &str, action: Action) -> String {
        let base = self.dir.as_path().display().to_string();
        let repo = env!("CARGO_MANIFEST_DIR");
        let mut text = text.to_string();
        if let Some(rest) = text.strip_prefix("cargo run --release -- ") {
            text = format!("diskmeter {rest}");
        }
        if self.root {
            text = text.replace("sudo diskmeter", "diskmeter");
        }
        // Through placeholders, so that a device named like one of the docs' (/dev/loop3 for
        // the docs' /dev/loop1) is not replaced again.
        for i in 0..self.emulated.len() {
            text = replace_rooted(
                &text,
                &format!("/dev/loop{}", i + 1),
                &format!("@EMULATED{i}@"),
            );
        }
        for (i, dev) in self.emulated.iter().enumerate() {
            text = text.replace(&format!("@EMULATED{i}@"), dev);
        }
        for docs_device in [
            "/dev/sdX",
            "/dev/sdx",
            "/dev/sdb",
            "/dev/sdc",
            "/dev/nvme1n1",
        ] {
            if text.contains(docs_device) {
                let dev = self.device(docs_device);
                text = replace_rooted(&text, docs_device, &dev);
            }
        }
        for (from, to) in [
            ("/mnt/", format!("{base}/mnt/")),
            ("/data/", format!("{base}/root-data/")),
            ("/shared/", format!("{base}/shared/")),
            ("/etc/", format!("{base}/etc/")),
            ("/usr/local/", format!("{base}/usr/local/")),
            ("tests/jobs/", format!("{repo}/tests/jobs/")),
        ] {
            text = replace_rooted(&text, from, &to);
        }
        text = text.replace(
            "\"${fpath[1]}/_diskmeter\"",
            &format!("{base}/zsh/_diskmeter"),
        );
        if text.starts_with("python3 /path/to/fiologparser_hist.py") {
            text = text.replace("/path/to/fiologparser_hist.py", &fiologparser());
        }
        if matches!(action, Action::Launcher) {
            text = launcher_to_rank(&text);
        }
        let words: Vec<&str> = text.split(' ').collect();
        let mut out: Vec<String> = Vec::new();
        let subcommand = words
            .iter()
            .position(|w| w.ends_with("diskmeter"))
            .and_then(|i| words.get(i + 1).copied())
            .unwrap_or("");
        let mut i = 0;
        while i < words.len() {
            let word = words[i];
            let previous = out.last().map(String::as_str).unwrap_or("");
            let value_of = |name: &str| -> bool { previous == name };
            let replaced: String = if let Some(v) = word.strip_prefix("--size=") {
                format!("--size={}", capped_size(v))
            } else if value_of("--size") {
                capped_size(word)
            } else if let Some(v) = word.strip_prefix("DM_SIZE=") {
                format!("DM_SIZE={}", capped_size(v))
            } else if word.starts_with("DM_RUNTIME=") {
                "DM_RUNTIME=500ms".to_string()
            } else if word.starts_with("--runtime=") {
                if subcommand == "suite" {
                    "--runtime=300ms".to_string()
                } else {
                    "--runtime=500ms".to_string()
                }
            } else if value_of("--runtime") {
                if subcommand == "suite" {
                    "300ms"
                } else {
                    "500ms"
                }
                .to_string()
            } else if value_of("--time") {
                "300ms".to_string()
            } else if value_of("--rehearse-time") {
                // Its least: a rehearsal's verdict, not its figures, is what the docs show.
                "2s".to_string()
            } else if value_of("--duration") || value_of("--interval") {
                "1s".to_string()
            } else if value_of("--warmup-runtime") {
                "300ms".to_string()
            } else if value_of("--device") && subcommand != "k8s" {
                match &self.capture_device {
                    Some(name) => name.clone(),
                    None => word.to_string(),
                }
            } else if subcommand == "diskspd" && word.len() > 2 && word.starts_with("-c") {
                format!("-c{}", capped_size(&word[2..]))
            } else if subcommand == "diskspd"
                && word.len() > 2
                && (word.starts_with("-d") || word.starts_with("-W") || word.starts_with("-C"))
                && word[2..].chars().all(|c| c.is_ascii_digit())
            {
                format!(
                    "{}{}",
                    &word[..2],
                    if word.starts_with("-d") { 1 } else { 0 }
                )
            } else if word.chars().all(|c| c.is_ascii_digit()) && !word.is_empty() {
                self.id_for(word, previous, &out, &text)
            } else {
                word.to_string()
            };
            out.push(replaced);
            i += 1;
        }
        let mut text = out.join(" ");
        // What the docs' command leaves to its defaults, set to the test scale.
        let has = |option: &str| {
            text.contains(&format!("{option} ")) || text.contains(&format!("{option}="))
        };
        let mut extra = String::new();
        match subcommand {
            "suite" if !has("--list") && !text.contains("--dry-run") => {
                if !has("--runtime") {
                    extra.push_str(" --runtime 300ms");
                }
                if !has("--size") {
                    extra.push_str(" --size 64m");
                }
                if text.contains("--warmup") && !has("--warmup-runtime") {
                    extra.push_str(" --warmup-runtime 300ms");
                }
            }
            "sweep" => {
                if !has("--point-time") {
                    extra.push_str(" --point-time 300ms --point-max 500ms --ramp 0");
                }
                if !has("--size") {
                    extra.push_str(" --size 64m");
                }
            }
            "capture" if !has("--duration") => extra.push_str(" --duration 1s"),
            "iometer" if !text.contains("OLTP:8k,100,170") => {
                if !has("--time") {
                    extra.push_str(" --time 300ms");
                }
                if !has("--size") {
                    extra.push_str(" --size 64m");
                }
            }
            "replay" if !text.contains("--dry-run") => {
                if !has("--runtime") {
                    extra.push_str(" --runtime 500ms");
                }
                if !has("--size") && !text.contains("--exact") {
                    extra.push_str(" --size 64m");
                }
            }
            "serve" => extra.push_str(" --port 0"),
            _ => {}
        }
        if !extra.is_empty() {
            // After the diskmeter command, before a redirection or a pipe.
            let end = [" >", " |", ";", " &"]
                .iter()
                .filter_map(|m| text.find(m))
                .min()
                .unwrap_or(text.len());
            text.insert_str(end, &extra);
        }
        text
    }

    /// The fixture's id for the docs' id `word` (see the module's doc).
    pub(crate) fn id_for(
        &mut self,
        word: &str,
        previous: &str,
        before: &[String],
        text: &str,
    ) -> String {
        match id_role(previous, before, text) {
            Role::Capture => self.capture_id.clone().unwrap_or_else(|| word.to_string()),
            Role::Suite(suite) => self.suite_id(&suite),
            Role::Run => self
                .run_ids
                .get(word)
                .unwrap_or_else(|| panic!("run id {word} was not mapped before the run"))
                .clone(),
            Role::Other => word.to_string(),
        }
    }
}

/// What a number in a command stands for.
pub(crate) enum Role {
    /// The fixture's capture.
    Capture,
    /// The newest run of this suite.
    Suite(String),
    /// A run: A or B.
    Run,
    /// Not an id.
    Other,
}

/// The role of a number after `previous` (the words `before` it) in the command `text`.
pub(crate) fn id_role(previous: &str, before: &[String], text: &str) -> Role {
    let capture_role = ["requirements", "replay", "--from-capture", "--capture"];
    let run_role = ["show", "export", "compare", "chart", "check", "report"];
    let second_of_compare = before.len() >= 2
        && before[before.len() - 2] == "compare"
        && before[before.len() - 1].chars().all(|c| c.is_ascii_digit());
    // `report ID --with-replays` takes a capture: its loop.
    let loop_report = previous == "report" && text.contains("--with-replays");
    if capture_role.contains(&previous) || loop_report {
        return Role::Capture;
    }
    if !(run_role.contains(&previous) || second_of_compare) {
        return Role::Other;
    }
    if previous == "check" {
        if let Some(profile) = text
            .split("--expect ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
        {
            return Role::Suite(expectation_suite(profile));
        }
    }
    if previous == "chart" && (text.contains("--kind suite-") || text.contains("--step")) {
        return Role::Suite("quick".to_string());
    }
    Role::Run
}

/// The docs' run ids in the order they appear, mapped to run A (0) and B (1), and the suites
/// their ids name.
pub(crate) fn plan_ids(commands: &[DocCommand]) -> (HashMap<String, usize>, Vec<String>) {
    let mut runs = HashMap::new();
    let mut suites = Vec::new();
    for command in commands {
        let mut before: Vec<String> = Vec::new();
        for word in command.text.split_whitespace() {
            if !word.is_empty() && word.chars().all(|c| c.is_ascii_digit()) {
                let previous = before.last().map(String::as_str).unwrap_or("");
                match id_role(previous, &before, &command.text) {
                    Role::Run => {
                        let next = runs.len();
                        assert!(
                            next < 2 || runs.contains_key(word),
                            "{}: the docs name a third run id ({word}); the fixture has runs A \
                             and B: give it a role in id_role",
                            command.place
                        );
                        runs.entry(word.to_string()).or_insert(next);
                    }
                    Role::Suite(suite) if !suites.contains(&suite) => suites.push(suite),
                    _ => {}
                }
            }
            before.push(word.to_string());
        }
    }
    (runs, suites)
}

/// The suite an `--expect` profile judges.
pub(crate) fn expectation_suite(profile: &str) -> String {
    diskmeter_suites::expect::SETS
        .iter()
        .find(|set| set.name == profile)
        .unwrap_or_else(|| panic!("--expect {profile}: no such profile"))
        .suite
        .to_string()
}

/// fio's fiologparser_hist.py where this machine has it (Debian keeps fio's tools in its
/// documentation folder, some compressed).
pub(crate) fn fiologparser() -> String {
    for candidate in [
        "/usr/bin/fiologparser_hist.py",
        "/usr/share/doc/fio/examples/fiologparser_hist.py",
        "/usr/share/doc/fio/tools/hist/fiologparser_hist.py",
    ] {
        if Path::new(candidate).exists() {
            return candidate.to_string();
        }
    }
    "/usr/bin/fiologparser_hist.py".to_string()
}

/// A launcher's command as rank 0 of N on this host, planned only: `mpirun -n N [...]
/// diskmeter run --mpi ARGS` becomes `diskmeter run --dry-run --rank 0 --ranks N ARGS`; an
/// `ssh HOST diskmeter` loop runs each rank's command here, with `--dry-run`.
pub(crate) fn launcher_to_rank(text: &str) -> String {
    let ranks = if let Some(rest) = text.strip_prefix("mpirun -n ") {
        rest.split_whitespace().next().unwrap_or("1").to_string()
    } else if text.starts_with("srun ") {
        let nodes: u32 = text
            .split("-N ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        let per_node: u32 = text
            .split("--ntasks-per-node=")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        (nodes * per_node).to_string()
    } else {
        // The ssh loop names its ranks itself.
        return text
            .replace("ssh node$r diskmeter run ", "diskmeter run --dry-run ")
            .replace("ssh node$r diskmeter sweep ", "diskmeter sweep --dry-run ");
    };
    let at = text.find("diskmeter ").expect("a diskmeter command");
    let command = &text[at..];
    let mut parts = command.splitn(3, ' ');
    let (program, subcommand, rest) = (
        parts.next().unwrap(),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    let rest = rest.replace("--mpi ", "").replace(" --mpi", "");
    format!("{program} {subcommand} --dry-run --rank 0 --ranks {ranks} {rest}")
}
