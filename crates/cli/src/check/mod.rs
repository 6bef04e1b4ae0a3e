//! `diskmeter check RESULT_ID`: a stored result (a run, a suite step, a sweep point) against
//! requirements — a capture's checklist at a level (`--capture ID --level p90`), explicit
//! `--require` keys, or a guide's published figures (`--expect PROFILE`). The requirements
//! and their verdicts are the analysis crate's ([`diskmeter_analysis::verdict`]): one line per
//! requirement, met / missed / within noise with the measured figure, its 95 % interval and
//! the bound. This module parses, loads the step's evidence from the history and renders.
//! Exit 0 when nothing is missed (within noise passes unless `--strict`), 1 on a miss (or a
//! figure the step did not measure), 2 on bad input.

use crate::args::db_arg;
use crate::{write_output, Status, UsageError};
use clap::{Arg, ArgAction, ArgMatches, Command};
use diskmeter_analysis::requirements::{Level, WindowSet};
use diskmeter_analysis::verdict::{
    add_unless_given, judge, match_profile, parse_all_requirements, requirements_from_checklist,
    step_named, tally, Judgement, ProfileSteps, StepEvidence, REQUIRE_KEYS,
};
use diskmeter_history::{HistoryError, HistoryStore, Newest, StoredRun, CAPTURE_KIND};
use diskmeter_suites::expect::{self, EXPECTATION_SETS, SETS};
use serde::Serialize;
use std::fmt::Write;

/// The `check` subcommand.
pub fn command() -> Command {
    Command::new("check")
        .about("Check a saved result against requirements (a capture's level, --require) or a guide's published figures (--expect): met, missed or within noise; exit 1 on a miss")
        .long_about(
            "Judges a saved result (diskmeter history) against requirements and prints one \
             line per requirement: MET, MISSED or WITHIN NOISE, the measured figure with its \
             95 % interval, the bound and the margin (how far past the bound, in percent of \
             it). Met: the interval clears the bound; missed: it lies wholly on the wrong \
             side; within noise: it straddles the bound. Rates: batch means over the step's \
             1 s samples; latency percentiles: order statistics of the step's histogram \
             (+-0.1 %). A run paced at the required rate (a replay at level L checked against \
             L) is met when its interval reaches the rate and missed below it, with how late \
             its IOs went out. Latency of a rate-limited or replayed run is judged from the \
             intended issue time. A partial step is not judged.\n\n\
             Exit codes: 0 nothing missed (within noise passes; --strict makes it fail); 1 a \
             requirement missed or not measured; 2 bad input.\n\n\
             --capture ID --level p90: the capture's checklist (diskmeter requirements) at that \
             level: IOPS (total, read, write) and MiB/s as minimums; its latency as maximums \
             of the same statistic: per-IO percentiles where the capture was traced, else the \
             level of its 1 s mean latencies (await) against the level of the step's 1 s mean \
             latencies (keys read-await-p90, ...), never a per-IO percentile.\n\n\
             --require iops=5000,read-lat-p99=2ms,mibps=200: rates are minimums, latencies \
             (a bare number is ms) maximums; lat-p99 takes reads and writes together.\n\n\
             --expect PROFILE: a guide's published figures (--list-expect lists them); each \
             is matched to the run's step of the same name (a one-step run is taken as the \
             profile's step when the profile has one step). \"~N\" is required at 90 % of N \
             or more, \"N+\" at N or more, \"< N\" below N.\n\n\
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
                .help(format!("Requirements: {REQUIRE_KEYS}")),
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
        .arg(
            Arg::new("strict")
                .long("strict")
                .action(ArgAction::SetTrue)
                .help("A verdict within noise fails too (exit 1)"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT")
                .value_parser(["text", "json"])
                .default_value("text")
                .help("text, or json: the judgements with their evidence"),
        )
        .arg(db_arg())
}

/// One judged requirement on a named step.
#[derive(Serialize)]
struct StepJudgement {
    /// The step's name.
    step: String,
    #[serde(flatten)]
    judgement: Judgement,
}

/// `check --format json`'s document.
#[derive(Serialize)]
struct CheckDocument<'a> {
    run_id: i64,
    kind: &'a str,
    name: &'a str,
    target: &'a str,
    judgements: &'a [StepJudgement],
    met: usize,
    within_noise: usize,
    missed: usize,
    not_measured: usize,
    strict: bool,
    exit_code: i32,
}

/// Runs `diskmeter check`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    if matches.get_flag("list-expect") {
        write_output(None, &list_expect())?;
        return Ok(Status::Success);
    }
    let expect = matches.get_one::<String>("expect");
    let texts = matches.get_many::<String>("require").into_iter().flatten();
    let mut requirements =
        parse_all_requirements(texts.map(String::as_str)).map_err(|e| UsageError(e.to_string()))?;
    let level: Level = matches
        .get_one::<String>("level")
        .map_or("p90", String::as_str)
        .parse()
        .map_err(|e| UsageError(format!("--level: {e}")))?;
    let store = diskmeter_history::open_for_reading(crate::requirements::db(matches))?;
    if let Some(capture) = matches.get_one::<String>("capture") {
        let loaded = crate::requirements::load_requirements(
            &store,
            capture,
            crate::requirements::devices(matches),
            WindowSet::default(),
        )?;
        let source = format!("capture {}", loaded.summary.id);
        // An explicit --require key wins over the capture's.
        let from_capture = requirements_from_checklist(&loaded.requirements.whole, level, &source);
        add_unless_given(&mut requirements, from_capture);
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
    let mut judged: Vec<StepJudgement> = Vec::new();
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
        let evidence = step_evidence(&store, &run, *position)?;
        for r in &requirements {
            judged.push(StepJudgement {
                step: step.name.clone(),
                judgement: judge(r, &evidence),
            });
        }
    }
    if let Some(profile) = expect {
        judged.extend(judge_expectations(&store, &run, &steps, profile, &mut out)?);
    }
    let strict = matches.get_flag("strict");
    let judgements: Vec<Judgement> = judged.iter().map(|j| j.judgement.clone()).collect();
    let (met, within_noise, missed, not_measured) = tally(&judgements);
    let failed = judgements.iter().any(|j| j.verdict.fails(strict));
    if matches.get_one::<String>("format").map(String::as_str) == Some("json") {
        let document = CheckDocument {
            run_id: run.summary.id,
            kind: &run.summary.kind,
            name: &run.summary.name,
            target: &run.summary.target,
            judgements: &judged,
            met,
            within_noise,
            missed,
            not_measured,
            strict,
            exit_code: i32::from(failed),
        };
        let mut text = serde_json::to_string_pretty(&document)?;
        text.push('\n');
        write_output(None, &text)?;
    } else {
        for j in &judged {
            let _ = writeln!(out, "{}", j.judgement.line());
        }
        let _ = writeln!(
            out,
            "{} requirement{}: {met} met, {within_noise} within noise, {missed} missed{}{}",
            judgements.len(),
            if judgements.len() == 1 { "" } else { "s" },
            if not_measured > 0 {
                format!(", {not_measured} not measured")
            } else {
                String::new()
            },
            if strict && within_noise > 0 {
                " (--strict: within noise fails)"
            } else {
                ""
            }
        );
        write_output(None, &out)?;
    }
    Ok(if failed {
        Status::Failure
    } else {
        Status::Success
    })
}

/// The evidence of step `position` of `run`: its result and its merged histograms from the
/// history.
fn step_evidence(
    store: &HistoryStore,
    run: &StoredRun,
    position: u32,
) -> anyhow::Result<StepEvidence> {
    let mut failure: Option<HistoryError> = None;
    let evidence = StepEvidence::of(
        &run.steps[position as usize].result,
        &mut |direction, kind| {
            let name = match direction {
                diskmeter_units::Direction::Read => "read",
                diskmeter_units::Direction::Write => "write",
            };
            match store.histogram(run.summary.id, position, name, kind) {
                Ok(h) => h,
                Err(e) => {
                    failure.get_or_insert(e);
                    None
                }
            }
        },
    );
    match failure {
        Some(e) => Err(e.into()),
        None => Ok(evidence),
    }
}

/// `ID` or `last` (the newest run that is not a capture), loaded; a capture or an unknown
/// id is bad input.
fn load_result(store: &HistoryStore, text: &str) -> anyhow::Result<StoredRun> {
    let id = store
        .resolve_id(text, Newest::Result)
        .map_err(crate::picked)?;
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
    let names: Vec<&str> = run.steps.iter().map(|s| s.name.as_str()).collect();
    match step_named(&names, wanted) {
        Some(p) => Ok(vec![p as u32]),
        None => Err(UsageError(format!(
            "--step {wanted}: run {} has no such step (its steps: {})",
            run.summary.id,
            names.join(", ")
        ))
        .into()),
    }
}

/// The profile's figures judged on the run's steps of the same names.
fn judge_expectations(
    store: &HistoryStore,
    run: &StoredRun,
    steps: &[u32],
    profile: &str,
    out: &mut String,
) -> anyhow::Result<Vec<StepJudgement>> {
    let expectations = expect::expectations(profile).unwrap_or_default();
    let profile_steps: Vec<&str> = {
        let mut names: Vec<&str> = expectations.iter().map(|e| e.step).collect();
        names.dedup();
        names
    };
    let names: Vec<&str> = steps
        .iter()
        .map(|&p| run.steps[p as usize].name.as_str())
        .collect();
    let find = |name: &str| {
        let position = names.iter().position(|n| n.eq_ignore_ascii_case(name));
        position.map(|i| steps[i])
    };
    let stand_in = match match_profile(&names, &profile_steps) {
        ProfileSteps::ByName => None,
        ProfileSteps::StandIn(i) => Some(steps[i]),
        ProfileSteps::Unmatched => {
            return Err(UsageError(format!(
                "--expect {profile}: run {} has none of its steps ({}); its steps: {}",
                run.summary.id,
                profile_steps.join(", "),
                names.join(", ")
            ))
            .into())
        }
    };
    if let Some(p) = stand_in {
        let _ = writeln!(
            out,
            "step '{}' checked as '{}'",
            run.steps[p as usize].name, profile_steps[0]
        );
    }
    let mut judged = Vec::new();
    for e in &expectations {
        let requirement = e.requirement(profile);
        let judgement = match stand_in.or_else(|| find(e.step)) {
            None => Judgement::not_measured(
                &requirement,
                format!(
                    "not measured: run {} has no step '{}'",
                    run.summary.id, e.step
                ),
            ),
            Some(p) => judge(&requirement, &step_evidence(store, run, p)?),
        };
        judged.push(StepJudgement {
            step: e.step.to_string(),
            judgement,
        });
    }
    Ok(judged)
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
            let _ = writeln!(
                out,
                "    {}: {} {}",
                e.step,
                expect::label_of(e.measure),
                e.text
            );
        }
    }
    let _ = writeln!(
        out,
        "\n\"~N\" is required at {} % of N or more, \"N+\" at N or more, \"< N\" below N; \
         each judged on the measured figure's 95 % interval (met, missed or within noise).",
        expect::ABOUT_SHARE * 100.0
    );
    out
}
