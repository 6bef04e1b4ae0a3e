//! The runner: a block's commands run in order with bash in the fixture's folder, each
//! checked against its rule (exit code, message), `serve` started and stopped.

use super::extract::DocCommand;
use super::fixture::{saved_id, Fixture};
use super::rules::{rule, Action, Exit, COMMAND_TIMEOUT};
use crate::common;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `script` with bash in `dir`; its exit code, stdout and stderr (killed after
/// [`COMMAND_TIMEOUT`]).
pub(crate) fn run_shell(
    dir: &Path,
    env: &[(String, String)],
    script: &str,
) -> (Option<i32>, String, String) {
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
pub(crate) fn serve(dir: &Path, env: &[(String, String)], script: &str) -> Result<(), String> {
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
pub(crate) fn blank_numbers(text: &str) -> String {
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
pub(crate) fn application_for_capture(fixture: &Fixture) -> Option<std::process::Child> {
    let name = fixture.capture_device.as_ref()?;
    common::process()
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

/// How many blocks run at once (the CI machine has 2 cores; most commands wait on IO or
/// on their runtime).
pub(crate) const WORKERS: usize = 2;

/// What a block's commands did.
#[derive(Default)]
pub(crate) struct Outcome {
    pub(crate) ran: usize,
    pub(crate) illustrative: usize,
    pub(crate) by_ci: usize,
    pub(crate) skipped: usize,
    pub(crate) failures: Vec<String>,
    /// What each command ran as, its exit code and time.
    pub(crate) log: String,
}

/// Runs a block's commands in order in `fixture`'s folder and history.
pub(crate) fn run_block(fixture: &mut Fixture, block: &[&DocCommand]) -> Outcome {
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
