//! `diskmeter-fuzz`: runs fuzz campaigns and replays saved failing inputs.
//!
//! ```text
//! diskmeter-fuzz TARGET|all [--inputs N] [--seed S] [--threads T] [--hang-after SECS]
//!                [--save DIR] [--seeds DIR]... [--top-errors]
//! diskmeter-fuzz replay TARGET FILE...
//! ```
//!
//! A campaign prints one line per target (inputs, accepted, refused, distinct errors,
//! panics, hangs, broken promises, inputs/s) and each failure with the file its input was
//! saved to. Exit status: 0 when every input was answered without a panic, hang or broken
//! promise; 1 otherwise; 2 for a usage error. The report goes to stdout through a writer,
//! so a closed pipe ends the program quietly instead of panicking.
#![forbid(unsafe_code)]

use diskmeter_fuzz::campaign::{check_once, Report, Settings};
use diskmeter_fuzz::targets::{by_name, NAMES};
use diskmeter_fuzz::Verdict;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: diskmeter-fuzz TARGET|all [--inputs N] [--seed S] [--threads T] \
[--hang-after SECS] [--save DIR] [--seeds DIR]... [--top-errors]\n       diskmeter-fuzz replay TARGET FILE...\n\
targets: jobfile, diskspd, iometer, plan, iolog, capture, units";

/// What the command line asks for.
enum Command {
    Campaign {
        targets: Vec<&'static str>,
        settings: Settings,
        seeds: Vec<PathBuf>,
        top_errors: bool,
    },
    Replay {
        target: String,
        files: Vec<PathBuf>,
        seeds: Vec<PathBuf>,
    },
}

fn parse(args: &[String]) -> Result<Command, String> {
    let mut positional = Vec::new();
    let mut settings = Settings {
        inputs: 10_000,
        seed: 1,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        hang_after: Duration::from_secs(2),
        save_to: Some(PathBuf::from("fuzz-failures")),
    };
    let mut seeds = Vec::new();
    let mut show_errors = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let mut value = || {
            i += 1;
            args.get(i).cloned().ok_or(format!("{arg} needs a value"))
        };
        let number = |text: String| -> Result<u64, String> {
            text.replace('_', "")
                .parse()
                .map_err(|_| format!("{arg}: '{text}' is not a whole number"))
        };
        match arg {
            "--inputs" => settings.inputs = number(value()?)?,
            "--seed" => settings.seed = number(value()?)?,
            "--threads" => settings.threads = number(value()?)?.max(1) as usize,
            "--hang-after" => settings.hang_after = Duration::from_secs(number(value()?)?.max(1)),
            "--save" => settings.save_to = Some(PathBuf::from(value()?)),
            "--seeds" => seeds.push(PathBuf::from(value()?)),
            "--top-errors" => show_errors = true,
            "-h" | "--help" => return Err(String::new()),
            other if other.starts_with("--") => return Err(format!("unknown option {other}")),
            other => positional.push(other.to_string()),
        }
        i += 1;
    }
    match positional.first().map(String::as_str) {
        Some("replay") => {
            let target = positional.get(1).cloned().ok_or("replay needs a TARGET")?;
            let files: Vec<PathBuf> = positional[2..].iter().map(PathBuf::from).collect();
            if files.is_empty() {
                return Err("replay needs a FILE".to_string());
            }
            Ok(Command::Replay {
                target,
                files,
                seeds,
            })
        }
        Some("all") => Ok(Command::Campaign {
            targets: NAMES.to_vec(),
            settings,
            seeds,
            top_errors: show_errors,
        }),
        Some(name) => {
            let target = NAMES
                .iter()
                .copied()
                .find(|n| *n == name)
                .ok_or(format!("unknown target '{name}'"))?;
            Ok(Command::Campaign {
                targets: vec![target],
                settings,
                seeds,
                top_errors: show_errors,
            })
        }
        None => Err(String::new()),
    }
}

fn campaign_line(r: &Report) -> String {
    format!(
        "{:<8} inputs {:>10}  accepted {:>9}  refused {:>9}  distinct errors {:>8}  panics {:>3}  hangs {:>3}  broken {:>3}  {:>9.0} inputs/s  {:>7.1} s",
        r.target,
        r.inputs,
        r.accepted,
        r.refused,
        format!(
            "{}{}",
            if r.distinct_errors_capped { ">=" } else { "" },
            r.distinct_errors
        ),
        r.panics,
        r.hangs,
        r.broken,
        r.inputs_per_sec(),
        r.elapsed.as_secs_f64()
    )
}

fn run(command: Command, out: &mut impl Write) -> std::io::Result<ExitCode> {
    match command {
        Command::Campaign {
            targets,
            settings,
            seeds,
            top_errors,
        } => {
            writeln!(
                out,
                "seed {}, {} inputs per target, {} threads, a hang: {} s of CPU or {} s running",
                settings.seed,
                settings.inputs,
                settings.threads,
                settings.hang_after.as_secs(),
                (settings.hang_after * diskmeter_fuzz::campaign::STUCK_FACTOR).as_secs()
            )?;
            let mut clean = true;
            for name in targets {
                let Some(target) = by_name(name, &seeds) else {
                    continue;
                };
                let report = diskmeter_fuzz::run(target, &settings);
                writeln!(out, "{}", campaign_line(&report))?;
                for failure in &report.failures {
                    writeln!(
                        out,
                        "  {} x{} first at input {}: {}{}",
                        failure.kind.as_str(),
                        failure.count,
                        failure.index,
                        failure.message,
                        failure
                            .saved
                            .as_ref()
                            .map(|p| format!(" (saved as {})", p.display()))
                            .unwrap_or_default()
                    )?;
                }
                if top_errors {
                    for (count, example) in &report.top_errors {
                        writeln!(out, "  error x{count}: {example}")?;
                    }
                }
                clean &= report.clean();
                out.flush()?;
            }
            Ok(if clean {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Replay {
            target,
            files,
            seeds,
        } => {
            let Some(checker) = by_name(&target, &seeds) else {
                writeln!(out, "diskmeter-fuzz: unknown target '{target}'")?;
                return Ok(ExitCode::from(2));
            };
            let mut clean = true;
            for file in files {
                let input = match std::fs::read(&file) {
                    Ok(input) => input,
                    Err(e) => {
                        writeln!(out, "{}: cannot read: {e}", file.display())?;
                        clean = false;
                        continue;
                    }
                };
                let line = match check_once(checker.as_ref(), &input) {
                    Ok(Verdict::Accepted) => "accepted".to_string(),
                    Ok(Verdict::Refused(message)) => format!("refused: {message}"),
                    Ok(Verdict::Broken(why)) => {
                        clean = false;
                        format!("BROKEN: {why}")
                    }
                    Err(panic) => {
                        clean = false;
                        format!("PANIC: {panic}")
                    }
                };
                writeln!(out, "{}: {line}", file.display())?;
            }
            Ok(if clean {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let command = match parse(&args) {
        Ok(command) => command,
        Err(problem) => {
            let mut err = std::io::stderr().lock();
            if !problem.is_empty() {
                let _ = writeln!(err, "diskmeter-fuzz: {problem}");
            }
            let _ = writeln!(err, "{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(command, &mut out) {
        Ok(code) => code,
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr().lock(), "diskmeter-fuzz: {e}");
            ExitCode::from(1)
        }
    }
}
