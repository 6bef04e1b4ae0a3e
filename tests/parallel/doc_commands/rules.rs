//! The rules: what each command of the docs is expected to do (an exit code) or why it
//! is not run, by pattern ([`RULES`], first match wins), and the test-scale constants.

use std::time::Duration;

/// What a command is expected to do.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Exit {
    /// Exactly this exit code.
    Code(i32),
    /// A verdict on this machine's figures: 0 (met) or 1 (missed), never a usage error.
    Verdict,
}

/// How the runner treats a command a rule matches.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Action {
    /// Run it at test scale; it must exit so (and an error example must print its message).
    Run(Exit),
    /// As [`Action::Run`], the message compared with its numbers blanked (they are the
    /// machine's: memory, cores).
    RunMachineFigures(Exit),
    /// `diskmeter serve`: started, asked for its first page, stopped.
    Serve,
    /// A launcher of ranks on other hosts: its diskmeter command runs here as rank 0 of N,
    /// with `--dry-run`.
    Launcher,
    /// Not run, with the reason (counted; at most 10 % of the commands).
    Illustrative(&'static str),
    /// The test suite or its build: CI runs it, this runner would only recurse.
    CoveredByCi(&'static str),
}

// `check`'s exit codes, in one place (issue 27 item 1: 0 met or within noise, 1 missed).
/// A fixture run checked against the fixture capture's level.
pub(crate) const CHECK_CAPTURE: Exit = Exit::Verdict;
/// A run checked against explicit `--require` figures.
pub(crate) const CHECK_REQUIRE: Exit = Exit::Verdict;
/// A suite checked against a guide's published figures, which this machine may or may not
/// reach.
pub(crate) const CHECK_EXPECT: Exit = Exit::Verdict;

/// The rules, first match wins. A pattern is the command as the docs write it (comments
/// dropped, blanks collapsed), `*` matching any text.
pub(crate) const RULES: &[(&str, Action)] = &[
    // The build and the suite itself.
    ("cargo run --release -- *", Action::Run(Exit::Code(0))),
    (
        "./scripts/test*",
        Action::CoveredByCi("the whole test suite, which this runner is part of"),
    ),
    (
        "cargo build --profile fuzz *",
        Action::Illustrative("the fuzz build takes minutes; bench/fuzz runs it"),
    ),
    (
        "target/fuzz/diskmeter-fuzz *",
        Action::Illustrative("needs the fuzz build and a saved failure"),
    ),
    (
        "bench/soak*",
        Action::Illustrative("the hour-long soak (bench/, not the tests)"),
    ),
    // Other hosts.
    ("mpirun *diskmeter *", Action::Launcher),
    ("srun *diskmeter *", Action::Launcher),
    ("for r in *ssh node$r diskmeter *", Action::Launcher),
    (
        "kubectl *",
        Action::Illustrative("needs a Kubernetes cluster (tests/k8s.rs validates the manifests)"),
    ),
    (
        "for pod in $(kubectl *",
        Action::Illustrative("needs a Kubernetes cluster"),
    ),
    ("mkdir *", Action::Run(Exit::Code(0))),
    ("export *", Action::Run(Exit::Code(0))),
    (
        "python3 /path/to/fiologparser_hist.py *",
        Action::Illustrative(
            "fio's own script, which needs pandas; tests/parallel/hist_log.rs reads the log as fio's format",
        ),
    ),
    // `check`: its exit codes are the constants above.
    ("diskmeter check --list-expect*", Action::Run(Exit::Code(0))),
    ("diskmeter check *--expect *", Action::Run(CHECK_EXPECT)),
    ("diskmeter check *--capture *", Action::Run(CHECK_CAPTURE)),
    ("diskmeter check *--require *", Action::Run(CHECK_REQUIRE)),
    // The error examples (`$ ` lines): the memory guard's refusal (exit code 1), then usage
    // errors (2).
    (
        "diskmeter run --name=big *--iodepth=4096 *",
        Action::RunMachineFigures(Exit::Code(1)),
    ),
    (
        "diskmeter run --dry-run bad.fio",
        Action::Run(Exit::Code(2)),
    ),
    (
        "diskmeter run --dry-run loop.fio",
        Action::Run(Exit::Code(2)),
    ),
    ("diskmeter diskspd -o100000 *", Action::Run(Exit::Code(2))),
    (
        "diskmeter iometer --spec OLTP:8k,100,170 *",
        Action::Run(Exit::Code(2)),
    ),
    (
        "diskmeter plan *--workload iops=16000,read=120%",
        Action::Run(Exit::Code(2)),
    ),
    (
        "diskmeter plan --catalog mine.toml *",
        Action::Run(Exit::Code(2)),
    ),
    ("diskmeter plan *--optimize", Action::Run(Exit::Code(2))),
    // A rehearsal measures: 1 when the plan misses its demand or the measurement differs.
    ("sudo diskmeter plan *--rehearse*", Action::Run(Exit::Verdict)),
    ("diskmeter plan *--rehearse*", Action::Run(Exit::Verdict)),
    ("diskmeter serve*", Action::Serve),
    // Every other use of a subcommand succeeds.
    ("diskmeter run *", Action::Run(Exit::Code(0))),
    ("diskmeter emulate *", Action::Run(Exit::Code(0))),
    ("diskmeter sweep *", Action::Run(Exit::Code(0))),
    ("diskmeter suite *", Action::Run(Exit::Code(0))),
    ("diskmeter diskspd *", Action::Run(Exit::Code(0))),
    ("diskmeter iometer *", Action::Run(Exit::Code(0))),
    ("diskmeter k8s manifest *", Action::Run(Exit::Code(0))),
    ("diskmeter history *", Action::Run(Exit::Code(0))),
    ("diskmeter show *", Action::Run(Exit::Code(0))),
    ("diskmeter export *", Action::Run(Exit::Code(0))),
    ("diskmeter compare *", Action::Run(Exit::Code(0))),
    ("diskmeter report *", Action::Run(Exit::Code(0))),
    ("diskmeter merge *", Action::Run(Exit::Code(0))),
    ("diskmeter capture*", Action::Run(Exit::Code(0))),
    ("sudo diskmeter capture *", Action::Run(Exit::Code(0))),
    ("diskmeter requirements *", Action::Run(Exit::Code(0))),
    ("diskmeter plan *", Action::Run(Exit::Code(0))),
    ("diskmeter catalog *", Action::Run(Exit::Code(0))),
    ("diskmeter replay *", Action::Run(Exit::Code(0))),
    ("diskmeter chart *", Action::Run(Exit::Code(0))),
    ("diskmeter completions *", Action::Run(Exit::Code(0))),
    ("diskmeter man*", Action::Run(Exit::Code(0))),
];

/// First words of a command line in an unlabelled or `text` block (the other lines of such
/// blocks are output).
pub(crate) const PROGRAMS: &[&str] = &[
    "diskmeter ",
    "sudo ",
    "mpirun ",
    "srun ",
    "for ",
    "kubectl ",
    "mkdir ",
    "export ",
    "python3 ",
    "cargo ",
    "bench/",
    "target/",
    "./scripts/",
];

/// The docs whose commands run, as paths from the repository's root: the README, the guide's
/// index and every page of the guide (`docs/guide/*.md`, in name order, which is the reading
/// order), listed from the folder so that a new page is read without an edit here.
pub(crate) fn docs(repo: &std::path::Path) -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(repo.join("docs/guide"))
        .expect("docs/guide")
        .map(|entry| {
            entry
                .expect("a page")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/guide/{name}"))
        .collect();
    pages.sort();
    let mut docs = vec!["README.md".to_string(), "docs/GUIDE.md".to_string()];
    docs.extend(pages);
    docs
}

/// Test scale: the biggest size a command may use.
pub(crate) const MAX_SIZE_BYTES: u64 = 64 << 20;

/// How long any one command may take before it counts as hung.
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_secs(90);

/// Whether `text` matches `pattern`, `*` matching any text (blank runs compared as one).
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut rest = text.as_str();
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return part.is_empty() || rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    rest.is_empty()
}

/// The rule for `text`.
pub(crate) fn rule(text: &str) -> Option<Action> {
    RULES
        .iter()
        .find(|(pattern, _)| glob(pattern, text))
        .map(|(_, action)| *action)
}
