//! Every command of README.md and docs/GUIDE.md runs (issue 27, item 7): this runner reads
//! their code blocks, runs each command with the real binary against a history it builds
//! first, and checks each one's exit code (and, for the error examples, its message), so the
//! docs and the tool cannot drift apart.
//!
//! **What is a command.** In `sh`/`bash` blocks every line; in unlabelled and `text` blocks
//! the lines that start with a program (`diskmeter `, `mpirun`, `for`, ... see
//! [`PROGRAMS`]) and the `$ ` lines, whose following lines (up to the next `$ `) are the
//! message it must print on stderr. A line ending in `\` goes on on the next; a `for` loop
//! runs to its `done`; a `#` after a blank starts a comment. Each command runs as `bash -c`
//! would run it (`a; b`, `a | b`, `> file`), in a folder of its own, with `diskmeter` on
//! PATH and the history in that folder (XDG_DATA_HOME). An `export` sets its variables for
//! the commands after it in the same file.
//!
//! **Test scale**, the same rule for every command (and written in the README's Tests
//! paragraph):
//! - device paths (`/dev/sdX`, `/dev/nvme1n1`, ...) become 64 MiB loop devices in memory as
//!   root (a 64 MiB file otherwise); mount paths (`/mnt/...`, `/data/`, `/shared/`) and
//!   system folders (`/etc/...`, `/usr/local/...`, `~`) become folders in the test's folder;
//!   a captured device's name (`--device nvme0n1`) is the fixture's capture device;
//! - sizes above 64 MiB become 64 MiB (`--size`, DiskSpd's `-c`, `DM_SIZE=`), and a replay's
//!   or an Iometer run's file is 64 MiB; a run's or a replay's runtime becomes 500 ms
//!   (`--runtime`, `DM_RUNTIME=`; DiskSpd's `-d1`, its least, with no warm-up or cool-down: `-W0 -C0`);
//!   a capture lasts 1 s at 1 s intervals, a paced application running on the captured
//!   device meanwhile (one without `--duration` stands for one stopped with Ctrl-C); the
//!   steps of a suite and of an Iometer run take 300 ms each (`--runtime 300ms`,
//!   `--warmup-runtime 300ms`, Iometer's `--time 300ms`: options users have too), a sweep's
//!   points 300 to 500 ms with no ramp (`--point-time 300ms --point-max 500ms --ramp 0`);
//! - the files the docs name (`job.fio`, `peak.xml`, `test.icf`, `bad.fio`, `mine.toml`,
//!   `host*.json`, ...) are made by the fixture, with what the docs' messages say they hold;
//! - `diskmeter serve` starts on a free port (`--port 0`), answers one page, and is stopped;
//! - `cargo run --release -- ARGS` runs as `diskmeter ARGS` (the binary under test);
//!   `./scripts/test` is the suite this runs in (covered by CI itself, not re-run);
//! - commands that start ranks on other hosts (`mpirun`, `srun`, `ssh` in a loop) run
//!   their diskmeter command here as rank 0 of N (`--rank`, `--ranks`) with `--dry-run`;
//!   `kubectl`, the hour-long soak and the fuzz build are marked illustrative (at most 10 %
//!   of the commands may be);
//! - ids: the docs' run ids stand for runs of the right kind, by where they stand: after
//!   `requirements`, `replay`, `--from-capture`, `--capture`, the fixture's capture (a traced
//!   capture of a paced application as root); after `check N --expect PROFILE`, the newest
//!   run of that profile's suite (run at test scale first if there is none); after `chart N`
//!   with `--kind suite-...` or `--step`, the newest `quick` suite; any other id is a run:
//!   the first distinct one in the docs is the fixture's run A, the second run B. `last` is
//!   left as it is: the newest of the fixture's history (run B; the capture) and of what
//!   the block's commands before it saved.
//! - each code block runs in order in its own copy of the fixture's folder and history, two
//!   blocks at a time.
//!
//! **Rules.** [`RULES`] gives each command, by pattern, what to expect (an exit code) or why
//! it is not run; a command no rule covers fails the test with the line to add. Commands
//! that need root (`sudo`, `--trace`, `emulate`, a capture) are counted as skipped without
//! it, and fail under CI (which runs as root). The test prints its counts: run,
//! illustrative, covered by CI, skipped, total.

mod common;

use common::{is_root, LoopDevice, TestDir};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a command is expected to do.
#[derive(Clone, Copy, Debug)]
enum Exit {
    /// Exactly this exit code.
    Code(i32),
    /// A verdict on this machine's figures: 0 (met) or 1 (missed), never a usage error.
    Verdict,
}

/// How the runner treats a command a rule matches.
#[derive(Clone, Copy, Debug)]
enum Action {
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
const CHECK_CAPTURE: Exit = Exit::Verdict;
/// A run checked against explicit `--require` figures.
const CHECK_REQUIRE: Exit = Exit::Verdict;
/// A suite checked against a guide's published figures, which this machine may or may not
/// reach.
const CHECK_EXPECT: Exit = Exit::Verdict;

/// The rules, first match wins. A pattern is the command as the docs write it (comments
/// dropped, blanks collapsed), `*` matching any text.
const RULES: &[(&str, Action)] = &[
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
            "fio's own script, which needs pandas; tests/hist_log.rs reads the log as fio's format",
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
const PROGRAMS: &[&str] = &[
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

/// The docs whose commands run.
const DOCS: [&str; 2] = ["README.md", "docs/GUIDE.md"];

/// Test scale: the biggest size a command may use.
const MAX_SIZE_BYTES: u64 = 64 << 20;

/// How long any one command may take before it counts as hung.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(90);

/// One command of the docs.
#[derive(Debug)]
struct DocCommand {
    /// `FILE:LINE` of its first line.
    place: String,
    /// The command as written (continuations joined, comment dropped).
    text: String,
    /// For a `$ ` line: the message lines that follow it.
    expected: Option<Vec<String>>,
    /// The code block it is in (counted in its file): the commands of a block run in order,
    /// in a folder and history of their own, beside other blocks'.
    block: usize,
}

/// Drops a comment: a `#` at the start or after a blank, outside quotes.
fn strip_comment(line: &str) -> &str {
    let (mut single, mut double) = (false, false);
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => return &line[..i],
            _ => {}
        }
        previous = c;
    }
    line
}

/// The commands of the fenced blocks of `file` (its text in `text`).
fn extract(file: &str, text: &str) -> Vec<DocCommand> {
    let mut commands = Vec::new();
    let mut lang: Option<String> = None;
    let mut pending: Option<(usize, String)> = None;
    let mut in_for = false;
    // Whether the last command was a `$ ` example whose message lines follow, and whether the
    // last line ended in `\`.
    let mut example_open = false;
    let mut continued = false;
    let mut block_number = 0;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = raw.trim();
        if let Some(rest) = trimmed.strip_prefix("```") {
            lang = match lang {
                None => {
                    block_number += 1;
                    Some(rest.trim().to_string())
                }
                Some(_) => None,
            };
            pending = None;
            in_for = false;
            example_open = false;
            continue;
        }
        let Some(block) = lang.as_deref() else {
            continue;
        };
        let shell = matches!(block, "sh" | "bash" | "console");
        if !(shell || block.is_empty() || block == "text") {
            continue;
        }
        // A `$ ` line and its message.
        if let Some(command) = trimmed.strip_prefix("$ ") {
            commands.push(DocCommand {
                place: format!("{file}:{number}"),
                text: command.trim().to_string(),
                expected: Some(Vec::new()),
                block: block_number,
            });
            example_open = true;
            continue;
        }
        if example_open && !PROGRAMS.iter().any(|p| trimmed.starts_with(p)) {
            // The message as printed: its indentation and blank lines too.
            if let Some(lines) = commands.last_mut().and_then(|c| c.expected.as_mut()) {
                lines.push(raw.trim_end().to_string());
            }
            continue;
        }
        example_open = false;
        let line = strip_comment(trimmed).trim_end();
        match pending.as_mut() {
            Some((_, so_far)) => {
                so_far.push(if in_for && !continued { '\n' } else { ' ' });
                so_far.push_str(line.trim_end_matches('\\').trim());
            }
            None => {
                if line.is_empty() {
                    continue;
                }
                let command = !line.starts_with("diskmeter:")
                    && (shell || PROGRAMS.iter().any(|p| line.starts_with(p)));
                if !command {
                    continue;
                }
                in_for = line.starts_with("for ");
                pending = Some((number, line.trim_end_matches('\\').trim().to_string()));
            }
        }
        continued = line.ends_with('\\');
        let continues = continued || (in_for && !line.trim_start().starts_with("done"));
        if !continues {
            let (first, text) = pending.take().expect("a command");
            in_for = false;
            let text = if text.contains('\n') {
                text
            } else {
                text.split_whitespace().collect::<Vec<_>>().join(" ")
            };
            commands.push(DocCommand {
                place: format!("{file}:{first}"),
                text,
                expected: None,
                block: block_number,
            });
        }
    }
    commands
}

/// Whether `text` matches `pattern`, `*` matching any text (blank runs compared as one).
fn glob(pattern: &str, text: &str) -> bool {
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
fn rule(text: &str) -> Option<Action> {
    RULES
        .iter()
        .find(|(pattern, _)| glob(pattern, text))
        .map(|(_, action)| *action)
}

/// A size in fio's syntax (k = 1024), in bytes.
fn size_bytes(text: &str) -> Option<u64> {
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
fn capped_size(value: &str) -> String {
    match size_bytes(value) {
        Some(bytes) if bytes > MAX_SIZE_BYTES => "64m".to_string(),
        _ => value.to_string(),
    }
}

/// Replaces `from` by `to` where it starts a path: at the start or after a blank, `=`, a
/// quote or `:`, and not followed by a letter or digit that would make it another name.
fn replace_rooted(text: &str, from: &str, to: &str) -> String {
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

/// The history and the files the docs' commands work on.
struct Fixture {
    /// The folder its commands run in: the template's, or a copy of it for one block.
    dir: PathBuf,
    /// Loop devices (or files) standing for the docs' device paths, by path.
    devices: HashMap<String, String>,
    loops: Vec<LoopDevice>,
    /// The capture device's name (root only) and the fixture capture's id.
    capture_device: Option<String>,
    capture_id: Option<String>,
    /// Runs A and B.
    runs: [String; 2],
    /// The docs' run ids, mapped to A and B in the order the docs use them.
    run_ids: HashMap<String, String>,
    /// The newest saved suite run of each suite.
    suites: HashMap<String, String>,
    /// The devices the last `emulate create` printed (for the docs' /dev/loop1...).
    emulated: Vec<String>,
    /// Variables set by an `export`, per file.
    exported: Vec<(String, String)>,
    root: bool,
}

/// `diskmeter ARGS` in the fixture's folder; its output, which must be a success.
fn fixture_diskmeter(dir: &Path, env: &[(String, String)], args: &[&str]) -> String {
    let output = Command::new(assert_cmd::cargo::cargo_bin("diskmeter"))
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .args(args)
        .output()
        .expect("run diskmeter");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "fixture: diskmeter {}: {stderr}",
        args.join(" ")
    );
    stderr
}

/// The id in a `saved as run N` (or `capture N`) line of `stderr`.
fn saved_id(stderr: &str, kind: &str) -> Option<String> {
    let marker = format!("saved as {kind} ");
    let at = stderr.rfind(&marker)? + marker.len();
    Some(
        stderr[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect(),
    )
}

impl Fixture {
    fn env(&self) -> Vec<(String, String)> {
        let bin = assert_cmd::cargo::cargo_bin("diskmeter");
        let path = format!(
            "{}:{}",
            bin.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut env = vec![
            ("PATH".to_string(), path),
            (
                "XDG_DATA_HOME".to_string(),
                self.path("xdg").display().to_string(),
            ),
            ("HOME".to_string(), self.path("home").display().to_string()),
        ];
        env.extend(self.exported.iter().cloned());
        env
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.as_path().join(name)
    }

    /// Builds the template every block starts from, in `test_dir`: the history with run A (a
    /// paced application, captured with a trace as root), run B and the suites `suites`,
    /// and the files the docs name; `run_ids` maps the docs' run ids to A (0) and B (1).
    fn new(test_dir: &TestDir, run_ids: &HashMap<String, usize>, suites: &[String]) -> Fixture {
        let root = is_root();
        let dir = test_dir.path().join("template");
        std::fs::create_dir_all(&dir).unwrap();
        let mut fixture = Fixture {
            dir,
            devices: HashMap::new(),
            loops: Vec::new(),
            capture_device: None,
            capture_id: None,
            runs: [String::new(), String::new()],
            run_ids: HashMap::new(),
            suites: HashMap::new(),
            emulated: Vec::new(),
            exported: Vec::new(),
            root,
        };
        let base = fixture.dir.as_path().to_path_buf();
        for folder in [
            "xdg",
            "home/.config/fish/completions",
            "mnt/data",
            "mnt/newvol",
            "mnt/vol",
            "mnt/stripe",
            "mnt/cached",
            "root-data",
            "shared",
            "etc/bash_completion.d",
            "usr/local/share/man/man1",
            "zsh",
            "results",
        ] {
            std::fs::create_dir_all(base.join(folder)).unwrap();
        }
        // The suites first, so that `last` is run B (and the capture, of its kind).
        for suite in suites {
            fixture.suite_id(suite);
        }
        let env = fixture.env();
        // Run A: an application paced at 1,000 IOPS for 3 s, captured (with a trace) as root.
        let app_args = |target: &str| -> Vec<String> {
            [
                "run",
                "--name=app",
                "--rw=randrw",
                "--rwmixread=70",
                "--bs=4k",
                "--rate_iops=700,300",
                "--iodepth=4",
                "--direct=1",
                "--time_based",
                "--runtime=3",
                "--size=32m",
                "--allow-destroy",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([format!("--filename={target}")])
            .collect()
        };
        if root {
            let device = LoopDevice::new_direct(test_dir.path(), "capture.img", 64);
            let name = device.dev.trim_start_matches("/dev/").to_string();
            let args = app_args(&device.dev);
            let mut app = Command::new(assert_cmd::cargo::cargo_bin("diskmeter"))
                .current_dir(&base)
                .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let captured = fixture_diskmeter(
                &base,
                &env,
                &[
                    "capture",
                    "--trace",
                    "--device",
                    &name,
                    "--duration",
                    "2s",
                    "--name",
                    "fixture",
                ],
            );
            let mut app_stderr = String::new();
            app.stderr
                .take()
                .unwrap()
                .read_to_string(&mut app_stderr)
                .unwrap();
            assert!(app.wait().unwrap().success(), "fixture app: {app_stderr}");
            fixture.capture_id = saved_id(&captured, "capture");
            assert!(
                fixture.capture_id.is_some(),
                "fixture capture saved no id: {captured}"
            );
            fixture.runs[0] = saved_id(&app_stderr, "run").expect("run A's id");
            fixture.capture_device = Some(name.clone());
            fixture
                .devices
                .insert(device.dev.clone(), device.dev.clone());
            fixture.loops.push(device);
        } else {
            let args = app_args("app.dat");
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let stderr = fixture_diskmeter(&base, &env, &args);
            fixture.runs[0] = saved_id(&stderr, "run").expect("run A's id");
        }
        let stderr = fixture_diskmeter(
            &base,
            &env,
            &[
                "run",
                "--name=app",
                "--rw=randrw",
                "--rwmixread=70",
                "--bs=4k",
                "--iodepth=4",
                "--direct=1",
                "--time_based",
                "--runtime=1",
                "--size=32m",
                "--filename=b.dat",
            ],
        );
        fixture.runs[1] = saved_id(&stderr, "run").expect("run B's id");
        // Two hosts' results to merge (`host*.json`, `results/*.json`).
        for (i, out) in [
            "host1.json",
            "host2.json",
            "results/pod-0.json",
            "results/pod-1.json",
        ]
        .iter()
        .enumerate()
        {
            fixture_diskmeter(
                &base,
                &env,
                &[
                    "run",
                    "--no-save",
                    "--quiet",
                    "--name=share",
                    "--ioengine=psync",
                    "--rw=randread",
                    "--bs=4k",
                    "--size=2m",
                    "--number_ios=500",
                    &format!("--filename=share{i}.dat"),
                    "--output-format=json",
                    &format!("--output={out}"),
                ],
            );
        }
        // A VM's disk file, as VM Fleet's profiles expect one.
        std::fs::File::create(base.join("mnt/data/vm.dat"))
            .unwrap()
            .set_len(MAX_SIZE_BYTES)
            .unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::copy(
            repo.join("tests/data/diskspd/profiles/vmfleet-peak.xml"),
            base.join("peak.xml"),
        )
        .unwrap();
        std::fs::copy(
            repo.join("tests/data/iometer/guides-1.1.0.icf"),
            base.join("test.icf"),
        )
        .unwrap();
        let files = [
            (
                "job.fio",
                "[global]\nrw=randread\nbs=4k\nsize=16m\nruntime=1\ntime_based\n\n[job]\nfilename=job.dat\n",
            ),
            ("bad.fio", "[job]\nrw=randread\niodpeth=4\nbs=4q\n"),
            ("loop.fio", "[job]\ninclude loop.fio\n"),
            ("my.fio", "[job]\nrw=read\n"),
        ];
        for (name, text) in files {
            std::fs::write(base.join(name), text).unwrap();
        }
        // A catalog whose one VM size has no cores.
        let azure = std::fs::read_to_string(repo.join("crates/plan/catalog/azure.toml")).unwrap();
        let vm = &azure[azure.find("[[vm]]").unwrap()..];
        let vm = &vm[..vm[1..].find("[[").map_or(vm.len(), |end| end + 1)];
        let mine = vm
            .replacen("id = \"Standard_DS1\"", "id = \"X\"", 1)
            .replacen("cores = 1\n", "cores = 0\n", 1);
        std::fs::write(base.join("mine.toml"), mine).unwrap();
        fixture.run_ids = run_ids
            .iter()
            .map(|(doc, run)| (doc.clone(), fixture.runs[*run].clone()))
            .collect();
        // The fixture's test files stay out of the blocks' copies.
        for entry in std::fs::read_dir(&base).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() && entry.metadata().unwrap().len() > 1 << 20 {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        fixture
    }

    /// A copy of the template (its files and history) for the block numbered `index`.
    fn chain(&self, index: usize) -> Fixture {
        let dir = self.dir.parent().unwrap().join(format!("block-{index}"));
        let copied = Command::new("cp")
            .arg("-a")
            .arg(&self.dir)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(copied.success(), "copy the template to {}", dir.display());
        Fixture {
            dir,
            devices: HashMap::new(),
            loops: Vec::new(),
            capture_device: self.capture_device.clone(),
            capture_id: self.capture_id.clone(),
            runs: self.runs.clone(),
            run_ids: self.run_ids.clone(),
            suites: self.suites.clone(),
            emulated: Vec::new(),
            exported: Vec::new(),
            root: self.root,
        }
    }

    /// The device or file standing for the docs' device `path`.
    fn device(&mut self, path: &str) -> String {
        if let Some(dev) = self.devices.get(path) {
            return dev.clone();
        }
        let name = path.trim_start_matches("/dev/");
        let dev = if self.root {
            let device = LoopDevice::new_direct(self.dir.as_path(), &format!("dev-{name}.img"), 64);
            let dev = device.dev.clone();
            self.loops.push(device);
            dev
        } else {
            let file = self.path(&format!("dev-{name}"));
            std::fs::File::create(&file)
                .unwrap()
                .set_len(MAX_SIZE_BYTES)
                .unwrap();
            file.display().to_string()
        };
        self.devices.insert(path.to_string(), dev.clone());
        dev
    }

    /// The id of the newest `suite` run of this suite, run at test scale if there is none.
    fn suite_id(&mut self, suite: &str) -> String {
        if let Some(id) = self.suites.get(suite) {
            return id.clone();
        }
        let env = self.env();
        let stderr = fixture_diskmeter(
            self.dir.as_path(),
            &env,
            &[
                "suite",
                suite,
                "fixture-suite.dat",
                "--runtime",
                "300ms",
                "--size",
                "64m",
            ],
        );
        let id = saved_id(&stderr, "run").expect("the suite's id");
        self.suites.insert(suite.to_string(), id.clone());
        id
    }

    /// `text` at test scale, its paths and ids the fixture's (see the module's doc).
    fn rewrite(&mut self, text: &str, action: Action) -> String {
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
    fn id_for(&mut self, word: &str, previous: &str, before: &[String], text: &str) -> String {
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
enum Role {
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
fn id_role(previous: &str, before: &[String], text: &str) -> Role {
    let capture_role = ["requirements", "replay", "--from-capture", "--capture"];
    let run_role = ["show", "export", "compare", "chart", "check", "report"];
    let second_of_compare = before.len() >= 2
        && before[before.len() - 2] == "compare"
        && before[before.len() - 1].chars().all(|c| c.is_ascii_digit());
    if capture_role.contains(&previous) {
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
fn plan_ids(commands: &[DocCommand]) -> (HashMap<String, usize>, Vec<String>) {
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
fn expectation_suite(profile: &str) -> String {
    diskmeter_suites::expect::SETS
        .iter()
        .find(|set| set.name == profile)
        .unwrap_or_else(|| panic!("--expect {profile}: no such profile"))
        .suite
        .to_string()
}

/// fio's fiologparser_hist.py where this machine has it (Debian keeps fio's tools in its
/// documentation folder, some compressed).
fn fiologparser() -> String {
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
fn launcher_to_rank(text: &str) -> String {
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

/// Runs `script` with bash in `dir`; its exit code, stdout and stderr (killed after
/// [`COMMAND_TIMEOUT`]).
fn run_shell(dir: &Path, env: &[(String, String)], script: &str) -> (Option<i32>, String, String) {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("start bash");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if started.elapsed() > COMMAND_TIMEOUT {
            // SAFETY: signals the process group this function started.
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL);
            }
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, out.join().unwrap(), err.join().unwrap())
}

/// `diskmeter serve --port 0`: started, its first page fetched, stopped. An error or `None`.
fn serve(dir: &Path, env: &[(String, String)], script: &str) -> Result<(), String> {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("exec {script}"))
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let result = match lines.next() {
        Some(Ok(first)) => match first.strip_prefix("diskmeter serve: listening on ") {
            Some(url) => ureq::get(url.trim())
                .call()
                .map(|_| ())
                .map_err(|e| format!("GET {url}: {e}")),
            None => Err(format!("first line: {first:?}")),
        },
        other => Err(format!("no first line: {other:?}")),
    };
    let _ = child.kill();
    let _ = child.wait();
    result
}

/// The lines of `text` with every run of digits (and a decimal point in one) blanked.
fn blank_numbers(text: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in text.chars() {
        if c.is_ascii_digit() || (in_number && c == '.') {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

/// Starts a paced application on the capture device for a capture's 1 s, so it sees IO.
fn application_for_capture(fixture: &Fixture) -> Option<std::process::Child> {
    let name = fixture.capture_device.as_ref()?;
    Command::new(assert_cmd::cargo::cargo_bin("diskmeter"))
        .current_dir(fixture.dir.as_path())
        .envs(fixture.env().iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .args([
            "run",
            "--no-save",
            "--quiet",
            "--name=app",
            "--rw=randrw",
            "--rate_iops=300",
            "--direct=1",
            "--time_based",
            "--runtime=2",
            "--size=32m",
            "--allow-destroy",
            &format!("--filename=/dev/{name}"),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

#[test]
fn every_command_of_the_readme_and_the_guide_runs() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut commands = Vec::new();
    for doc in DOCS {
        let text = std::fs::read_to_string(repo.join(doc)).expect("the doc");
        commands.extend(extract(doc, &text));
    }
    assert!(commands.len() > 50, "too few commands found: {commands:#?}");
    // Every command has a rule before anything runs.
    let uncovered: Vec<String> = commands
        .iter()
        .filter(|c| rule(&c.text).is_none())
        .map(|c| {
            format!(
                "{}: `{}`: no rule covers it; add (\"PATTERN\", Action::Run(Exit::Code(0))) (or \
                 Illustrative(\"why\")) to RULES in tests/doc_commands.rs",
                c.place, c.text
            )
        })
        .collect();
    assert!(uncovered.is_empty(), "{}", uncovered.join("\n"));
    // A rule no command uses any more is left from an edit of the docs: said, not failed (the
    // docs change under several hands; the lead prunes).
    for (pattern, _) in RULES {
        if !commands.iter().any(|c| glob(pattern, &c.text)) {
            eprintln!("note: no command of the docs matches the rule {pattern:?}");
        }
    }

    let started = Instant::now();
    let test_dir = if is_root() {
        TestDir::in_memory()
    } else {
        TestDir::new()
    };
    let (run_ids, suites) = plan_ids(&commands);
    let template = Fixture::new(&test_dir, &run_ids, &suites);
    eprintln!("fixture built in {:.1} s", started.elapsed().as_secs_f64());
    // The blocks, in the docs' order; each runs in order, in its own copy of the template,
    // two at a time.
    let mut blocks: Vec<Vec<&DocCommand>> = Vec::new();
    let mut last_key = None;
    for command in &commands {
        let key = (command.place.split(':').next().unwrap(), command.block);
        if last_key != Some(key) {
            blocks.push(Vec::new());
            last_key = Some(key);
        }
        blocks.last_mut().unwrap().push(command);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let outcomes = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(block) = blocks.get(index) else {
                    break;
                };
                let mut chain = template.chain(index);
                let outcome = run_block(&mut chain, block);
                drop(chain);
                outcomes.lock().unwrap().push((index, outcome));
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|(index, _)| *index);
    let mut all = Outcome::default();
    for (_, outcome) in outcomes {
        eprint!("{}", outcome.log);
        all.ran += outcome.ran;
        all.illustrative += outcome.illustrative;
        all.by_ci += outcome.by_ci;
        all.skipped += outcome.skipped;
        all.failures.extend(outcome.failures);
    }
    let total = commands.len();
    let Outcome {
        ran,
        illustrative,
        by_ci,
        skipped,
        ..
    } = all;
    eprintln!(
        "doc commands: {ran} run, {illustrative} illustrative, {by_ci} covered by CI, {skipped} \
         skipped (not root), {total} total, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(ran + illustrative + by_ci + skipped, total);
    assert!(all.failures.is_empty(), "{}", all.failures.join("\n\n"));
    assert!(
        illustrative * 10 <= total,
        "{illustrative} of {total} commands are illustrative: at most 10 % may be"
    );
}

/// How many blocks run at once (the CI machine has 2 cores; most commands wait on IO or
/// on their runtime).
const WORKERS: usize = 2;

/// What a block's commands did.
#[derive(Default)]
struct Outcome {
    ran: usize,
    illustrative: usize,
    by_ci: usize,
    skipped: usize,
    failures: Vec<String>,
    /// What each command ran as, its exit code and time.
    log: String,
}

/// Runs a block's commands in order in `fixture`'s folder and history.
fn run_block(fixture: &mut Fixture, block: &[&DocCommand]) -> Outcome {
    use std::fmt::Write;
    let mut outcome = Outcome::default();
    for command in block {
        let action = rule(&command.text).unwrap();
        let exit = match action {
            Action::Illustrative(why) => {
                let _ = writeln!(
                    outcome.log,
                    "illustrative {}: {} ({why})",
                    command.place, command.text
                );
                outcome.illustrative += 1;
                continue;
            }
            Action::CoveredByCi(why) => {
                let _ = writeln!(
                    outcome.log,
                    "covered by CI {}: {} ({why})",
                    command.place, command.text
                );
                outcome.by_ci += 1;
                continue;
            }
            Action::Run(exit) | Action::RunMachineFigures(exit) => exit,
            Action::Serve | Action::Launcher => Exit::Code(0),
        };
        let needs_root = command.text.contains("sudo ")
            || command.text.contains("--trace")
            || command.text.contains("emulate ")
            || command.text.contains("diskmeter capture")
            || ["requirements", "replay", "--from-capture", "--capture"]
                .iter()
                .any(|w| command.text.contains(&format!("{w} ")));
        if needs_root && !fixture.root {
            common::skip(
                "doc_commands",
                &format!("{}: {} needs root", command.place, command.text),
            );
            outcome.skipped += 1;
            continue;
        }
        let script = fixture.rewrite(&command.text, action);
        outcome.ran += 1;
        if let Some(assignments) = script.strip_prefix("export ") {
            for assignment in assignments.split_whitespace() {
                if let Some((k, v)) = assignment.split_once('=') {
                    fixture.exported.push((k.to_string(), v.to_string()));
                }
            }
            continue;
        }
        let env = fixture.env();
        let t = Instant::now();
        if matches!(action, Action::Serve) {
            if let Err(e) = serve(fixture.dir.as_path(), &env, &script) {
                outcome.failures.push(format!(
                    "{}: `{}` ({script}): {e}",
                    command.place, command.text
                ));
            }
            continue;
        }
        let app = if script.contains("diskmeter capture") {
            application_for_capture(fixture)
        } else {
            None
        };
        let (code, stdout, stderr) = run_shell(fixture.dir.as_path(), &env, &script);
        if let Some(mut app) = app {
            let _ = app.wait();
        }
        let seconds = t.elapsed().as_secs_f64();
        let _ = writeln!(
            outcome.log,
            "ran {} in {seconds:.1} s: {script} -> {code:?}",
            command.place
        );
        let exit_ok = match (exit, code) {
            (Exit::Code(want), Some(got)) => want == got,
            (Exit::Verdict, Some(got)) => got == 0 || got == 1,
            (_, None) => false,
        };
        if !exit_ok {
            outcome.failures.push(format!(
                "{}: `{}`\n  ran as: {script}\n  exit {code:?}, expected {exit:?}\n  stderr: {}\n  stdout: {}",
                command.place,
                command.text,
                stderr.trim_end(),
                stdout.lines().take(10).collect::<Vec<_>>().join("\n          ")
            ));
            continue;
        }
        if let Some(message) = &command.expected {
            let want = message.join("\n").trim_end().to_string();
            let got = stderr.trim_end().to_string();
            let same = match action {
                Action::RunMachineFigures(_) => blank_numbers(&want) == blank_numbers(&got),
                _ => want == got,
            };
            if !same {
                outcome.failures.push(format!(
                    "{}: `{}`: the message differs from the docs'\n  docs: {want}\n  got:  {got}",
                    command.place, command.text
                ));
            }
        }
        // Remember the suites the docs ran, and the devices an emulation made.
        if let Some(rest) = script.strip_prefix("diskmeter suite ") {
            if let (Some(name), Some(id)) =
                (rest.split_whitespace().next(), saved_id(&stderr, "run"))
            {
                fixture.suites.insert(name.to_string(), id);
            }
        }
        if script.starts_with("diskmeter emulate create") {
            fixture.emulated = stdout
                .split_whitespace()
                .chain(stderr.split_whitespace())
                .filter(|w| w.starts_with("/dev/"))
                .map(|w| w.trim_end_matches([',', '.', ':', ')']).to_string())
                .collect();
            fixture.emulated.dedup();
        }
    }
    outcome
}

#[test]
fn the_extractor_reads_blocks_as_a_shell_would() {
    let doc = "text\n```sh\n# a comment\ndiskmeter run --a \\\n    --b   # why\nx; y | z\n```\n\
               ```\nsome output\ndiskmeter show 1\ndiskmeter: an error line\n\
               for r in 0 1; do\n  ssh node$r diskmeter run x &\ndone; wait\n```\n\
               ```text\n$ diskmeter run bad\ndiskmeter: bad: why\n$ diskmeter other\nline\n```\n";
    let extracted = extract("d.md", doc);
    assert_eq!(
        extracted.iter().map(|c| c.block).collect::<Vec<_>>(),
        vec![1, 1, 2, 2, 3, 3]
    );
    let commands: Vec<(String, Option<Vec<String>>)> = extracted
        .into_iter()
        .map(|c| (c.text, c.expected))
        .collect();
    assert_eq!(
        commands,
        vec![
            ("diskmeter run --a --b".to_string(), None),
            ("x; y | z".to_string(), None),
            ("diskmeter show 1".to_string(), None),
            (
                "for r in 0 1; do\nssh node$r diskmeter run x &\ndone; wait".to_string(),
                None
            ),
            (
                "diskmeter run bad".to_string(),
                Some(vec!["diskmeter: bad: why".to_string()])
            ),
            (
                "diskmeter other".to_string(),
                Some(vec!["line".to_string()])
            ),
        ]
    );
    assert!(glob(
        "diskmeter check *--expect *",
        "diskmeter check 20 --expect x"
    ));
    assert!(!glob("diskmeter check *--expect *", "diskmeter check 20"));
    assert!(glob("diskmeter man*", "diskmeter man | man -l -"));
    assert_eq!(
        replace_rooted("--filename=/data/own.$rank /mnt/data/x", "/data/", "D/"),
        "--filename=D/own.$rank /mnt/data/x"
    );
}
