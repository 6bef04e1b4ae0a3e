//! `diskmeter check RESULT_ID`: a stored result (a run, a suite step, a sweep point) against
//! requirements — a capture's checklist at a level (`--capture ID --level p90`), explicit
//! `--require` keys, or a guide's published figures (`--expect PROFILE`) — one line per
//! requirement with pass or fail and the margin. Exit 0 when every one passes, 1 on a miss
//! (or a figure the step did not measure), 2 on bad input.

mod require;

use crate::args::db_arg;
use crate::history::open;
use crate::{write_output, Status, UsageError};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_analysis::requirements::{Level, WindowSet};
use diskmeter_history::{HistoryError, HistoryStore, RunFilter, StoredRun, CAPTURE_KIND};
use diskmeter_suites::expect::{self, Bound, EXPECTATION_SETS, SETS};
use diskmeter_suites::table::StepFigures;
use require::{Requirement, Side};
use std::fmt::Write;

/// The `check` subcommand.
pub fn command() -> Command {
    Command::new("check")
        .about("Check a saved result against requirements (a capture's level, --require) or a guide's published figures (--expect); exit 1 on a miss")
        .long_about(
            "Judges a saved result (diskmeter history) against requirements and prints one \
             line per requirement: PASS or MISS, the measured figure, the threshold and the \
             margin (how far past the threshold, in percent of it). Exit codes: 0 every \
             requirement passes; 1 one is missed or was not measured; 2 bad input.\n\n\
             --capture ID --level p90: the capture's checklist (diskmeter requirements) at that \
             level: IOPS (total, read, write) and MiB/s as minimums, and its read and write \
             latency (per-interval means, r_await/w_await) as maximums of the step's mean \
             latency.\n\n\
             --require iops=5000,read-lat-p99=2ms,mibps=200: rates are minimums, latencies \
             (issue to completion; a bare number is ms) maximums; lat-p99 takes reads and \
             writes together. Latency percentiles come from the step's merged histograms.\n\n\
             --expect PROFILE: a guide's published figures (--list-expect lists them); each \
             is matched to the run's step of the same name (a one-step run is taken as the \
             profile's step when the profile has one step). \"~N\" passes at 90 % of N or \
             more, \"N+\" at N or more, \"< N\" below N.\n\n\
             A run of several steps (a suite, a sweep) needs --step NAME for --capture and \
             --require.",
        )
        .arg(
            Arg::new("result")
                .value_name("RESULT_ID")
                .required_unless_present("list-expect")
                .help("The run's id (diskmeter history), or 'last' for the newest run that is not a capture"),
        )
        .arg(
            Arg::new("step")
                .long("step")
                .value_name("NAME")
                .help("The step of a suite or the point of a sweep to check (its name as diskmeter show lists it, or #N from 1)"),
        )
        .arg(
            Arg::new("capture")
                .long("capture")
                .value_name("ID")
                .help("Require what this capture needed at --level (an id, or 'last')"),
        )
        .arg(
            Arg::new("level")
                .long("level")
                .value_name("LEVEL")
                .default_value("p90")
                .help("With --capture: the checklist column: p50, p90, p99, max or mean"),
        )
        .arg(crate::requirements::device_arg())
        .arg(
            Arg::new("require")
                .long("require")
                .value_name("KEY=VALUE,...")
                .action(ArgAction::Append)
                .help("Requirements: iops, read-iops, write-iops, mibps, read-mibps, write-mibps (minimums); lat-LEVEL, read-lat-LEVEL, write-lat-LEVEL with LEVEL mean, p50, p90, p99, p99.9, max (maximums, ms)"),
        )
        .arg(
            Arg::new("expect")
                .long("expect")
                .value_name("PROFILE")
                .value_parser(EXPECTATION_SETS)
                .help("A guide's published figures for the run's steps (--list-expect)"),
        )
        .arg(
            Arg::new("list-expect")
                .long("list-expect")
                .action(ArgAction::SetTrue)
                .help("List the --expect profiles with their figures, and exit"),
        )
        .arg(db_arg())
}

/// One judged requirement.
struct Line {
    pass: bool,
    text: String,
}

/// Runs `diskmeter check`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    if matches.get_flag("list-expect") {
        write_output(None, &list_expect())?;
        return Ok(Status::Success);
    }
    let expect = matches.get_one::<String>("expect");
    let mut requirements: Vec<Requirement> = Vec::new();
    for text in matches.get_many::<String>("require").into_iter().flatten() {
        requirements.extend(require::parse_require(text)?);
    }
    let level: Level = matches
        .get_one::<String>("level")
        .map_or("p90", String::as_str)
        .parse()
        .map_err(|e| UsageError(format!("--level: {e}")))?;
    let store = open(matches)?;
    if let Some(capture) = matches.get_one::<String>("capture") {
        let loaded = crate::requirements::load_requirements(
            &store,
            capture,
            crate::requirements::devices(matches),
            WindowSet::default(),
        )?;
        let source = format!("capture {}", loaded.summary.id);
        let from_capture = require::from_capture(&loaded.requirements.whole, level, &source);
        // An explicit --require key wins over the capture's.
        for r in from_capture {
            if !requirements.iter().any(|given| given.key == r.key) {
                requirements.push(r);
            }
        }
    } else if matches.value_source("level") == Some(clap::parser::ValueSource::CommandLine) {
        return Err(UsageError("--level only applies with --capture".into()).into());
    }
    if requirements.is_empty() && expect.is_none() {
        return Err(UsageError(
            "nothing to check: give --capture ID, --require KEY=VALUE,... or --expect PROFILE"
                .into(),
        )
        .into());
    }
    let run = load_result(
        &store,
        matches
            .get_one::<String>("result")
            .map_or("last", String::as_str),
    )?;
    let steps = chosen_steps(&run, matches.get_one::<String>("step"))?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Checking run {} ({} {} on {})",
        run.summary.id, run.summary.kind, run.summary.name, run.summary.target
    );
    let mut lines: Vec<Line> = Vec::new();
    if !requirements.is_empty() {
        let [position] = steps.as_slice() else {
            let names: Vec<&str> = steps
                .iter()
                .map(|&p| run.steps[p as usize].name.as_str())
                .collect();
            return Err(UsageError(format!(
                "run {} has {} steps ({}): pick one with --step NAME",
                run.summary.id,
                names.len(),
                names.join(", ")
            ))
            .into());
        };
        let step = &run.steps[*position as usize];
        let _ = writeln!(out, "step: {}", step.name);
        let figures = StepFigures::of(&step.result);
        for r in &requirements {
            let measured =
                require::measure(&store, run.summary.id, *position, &figures, r.measure)?;
            lines.push(judge_requirement(r, measured));
        }
    }
    if let Some(profile) = expect {
        lines.extend(judge_expectations(&run, &steps, profile, &mut out)?);
    }
    for line in &lines {
        let _ = writeln!(
            out,
            "{} {}",
            if line.pass { "PASS" } else { "MISS" },
            line.text
        );
    }
    let missed = lines.iter().filter(|l| !l.pass).count();
    let _ = writeln!(
        out,
        "{} of {} requirements met{}",
        lines.len() - missed,
        lines.len(),
        if missed > 0 {
            format!(", {missed} missed")
        } else {
            String::new()
        }
    );
    write_output(None, &out)?;
    Ok(if missed > 0 {
        Status::Failure
    } else {
        Status::Success
    })
}

/// `ID` or `last` (the newest run that is not a capture), loaded; a capture or an unknown
/// id is bad input.
fn load_result(store: &HistoryStore, text: &str) -> anyhow::Result<StoredRun> {
    let id = if text == "last" {
        store
            .list(&RunFilter::default())?
            .into_iter()
            .find(|r| r.kind != CAPTURE_KIND)
            .map(|r| r.id)
            .ok_or_else(|| UsageError("the history has no result to check yet".into()))?
    } else {
        text.parse::<i64>().map_err(|_| {
            UsageError(format!(
                "'{text}' is not a run id (a number from diskmeter history, or 'last')"
            ))
        })?
    };
    let run = match store.load(id) {
        Ok(run) => run,
        Err(e @ HistoryError::NoSuchRun(_)) => return Err(UsageError(e.to_string()).into()),
        Err(e) => return Err(e.into()),
    };
    if run.summary.kind == CAPTURE_KIND {
        return Err(UsageError(format!(
            "run {id} is a capture, not a result: give it as --capture {id}"
        ))
        .into());
    }
    if run.steps.is_empty() {
        return Err(UsageError(format!("run {id} has no finished step to check")).into());
    }
    Ok(run)
}

/// The positions of the steps to check: the one `--step` names (by name, or `#N`), else all.
fn chosen_steps(run: &StoredRun, step: Option<&String>) -> anyhow::Result<Vec<u32>> {
    let Some(wanted) = step else {
        return Ok((0..run.steps.len() as u32).collect());
    };
    let by_number = wanted
        .strip_prefix('#')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n >= 1 && n <= run.steps.len())
        .map(|n| n - 1);
    let found = by_number.or_else(|| {
        run.steps
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(wanted))
    });
    match found {
        Some(p) => Ok(vec![p as u32]),
        None => {
            let names: Vec<&str> = run.steps.iter().map(|s| s.name.as_str()).collect();
            Err(UsageError(format!(
                "--step {wanted}: run {} has no such step (its steps: {})",
                run.summary.id,
                names.join(", ")
            ))
            .into())
        }
    }
}

fn judge_requirement(r: &Requirement, measured: Option<f64>) -> Line {
    let op = match r.side {
        Side::AtLeast => ">=",
        Side::AtMost => "<=",
    };
    let unit = r.measure.unit();
    let wanted = format!(
        "{} {op} {} {unit} ({})",
        r.key,
        figure(r.threshold),
        r.origin
    );
    match measured {
        None => Line {
            pass: false,
            text: format!("{wanted}: not measured (the step has no such IO)"),
        },
        Some(m) => {
            let (pass, margin) = match r.side {
                Side::AtLeast => (m >= r.threshold, (m - r.threshold) / r.threshold),
                Side::AtMost => (m <= r.threshold, (r.threshold - m) / r.threshold),
            };
            Line {
                pass,
                text: format!(
                    "{wanted}: measured {} {unit}, margin {}",
                    figure(m),
                    percent(margin * 100.0)
                ),
            }
        }
    }
}

/// The profile's figures judged on the run's steps of the same names.
fn judge_expectations(
    run: &StoredRun,
    steps: &[u32],
    profile: &str,
    out: &mut String,
) -> anyhow::Result<Vec<Line>> {
    let expectations = expect::expectations(profile).unwrap_or_default();
    let profile_steps: Vec<&str> = {
        let mut names: Vec<&str> = expectations.iter().map(|e| e.step).collect();
        names.dedup();
        names
    };
    let find = |name: &str| {
        steps
            .iter()
            .copied()
            .find(|&p| run.steps[p as usize].name.eq_ignore_ascii_case(name))
    };
    let any_named = profile_steps.iter().any(|n| find(n).is_some());
    // A one-step result checked against a one-step profile: the step is the scenario, whatever
    // it was called (a plain `diskmeter run` of the guide's job).
    let stand_in = (!any_named && steps.len() == 1 && profile_steps.len() == 1).then(|| steps[0]);
    if !any_named && stand_in.is_none() {
        let names: Vec<&str> = steps
            .iter()
            .map(|&p| run.steps[p as usize].name.as_str())
            .collect();
        return Err(UsageError(format!(
            "--expect {profile}: run {} has none of its steps ({}); its steps: {}",
            run.summary.id,
            profile_steps.join(", "),
            names.join(", ")
        ))
        .into());
    }
    if let Some(p) = stand_in {
        let _ = writeln!(
            out,
            "step '{}' checked as '{}'",
            run.steps[p as usize].name, profile_steps[0]
        );
    }
    Ok(expectations
        .iter()
        .map(|e| {
            let position = stand_in.or_else(|| find(e.step));
            let wanted = format!("{}: {} {} ({})", e.step, e.metric.label(), e.text, profile);
            match position {
                None => Line {
                    pass: false,
                    text: format!(
                        "{wanted}: not measured (run {} has no step '{}')",
                        run.summary.id, e.step
                    ),
                },
                Some(p) => {
                    let v = e.verdict(&StepFigures::of(&run.steps[p as usize].result));
                    let op = if e.bound == Bound::Below { "<" } else { ">=" };
                    Line {
                        pass: v.pass,
                        text: format!(
                            "{wanted}: measured {}, needs {op} {}, margin {}",
                            figure(v.measured),
                            figure(v.threshold),
                            percent(v.margin_percent)
                        ),
                    }
                }
            }
        })
        .collect())
}

/// `diskmeter check --list-expect`: every profile, its suite and its figures.
fn list_expect() -> String {
    let mut out = String::new();
    for set in SETS {
        let _ = writeln!(
            out,
            "{}  (diskmeter suite {})\n  {}",
            set.name, set.suite, set.description
        );
        for e in expect::expectations(set.name).unwrap_or_default() {
            let _ = writeln!(out, "    {}: {} {}", e.step, e.metric.label(), e.text);
        }
    }
    let _ = writeln!(
        out,
        "\n\"~N\" passes at {} % of N or more, \"N+\" at N or more, \"< N\" below N.",
        expect::ABOUT_SHARE * 100.0
    );
    out
}

fn figure(value: f64) -> String {
    diskmeter_analysis::requirements::format_figure(Some(value))
}

fn percent(value: f64) -> String {
    format!("{value:+.1} %")
}
