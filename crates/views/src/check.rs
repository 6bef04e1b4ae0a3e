//! `diskmeter check`: a stored result (a run, a suite step, a sweep point) judged against
//! requirements ([`check`]) and the judgements' two forms, text and JSON ([`Checked`]); and
//! the `--expect` profiles' listing ([`list_expect`]). The verdicts are the analysis crate's
//! ([`diskmeter_analysis::verdict`]); this module loads each step's evidence from the
//! history and renders.

/// `diskmeter check --help`'s description (kept with the rest of its words).
pub const CHECK_ABOUT: &str =
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
    --require.\n\n\
    Each check is kept in the history (--db) with its verdicts as printed, and says so on \
    stderr (saved as check N): the run's page and report show it, and one made with \
    --capture is part of that capture's loop (diskmeter report ID --with-replays).";

#[cfg(test)]
mod tests;

use crate::requirements::{load_run, LoadError};
use diskmeter_analysis::verdict::{
    judge, match_profile, step_named, tally, Judgement, ProfileSteps, Requirement, StepEvidence,
};
use diskmeter_history::{HistoryError, HistoryStore, NewCheck, Newest, StoredRun, CAPTURE_KIND};
use diskmeter_suites::expect::{self, SETS};
use serde::Serialize;
use std::fmt::Write;

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

/// A result judged: the run, what the text form says before the judgements (the step
/// judged, a step standing in for a profile's), and the judgements.
pub struct Checked {
    run: StoredRun,
    notes: String,
    judged: Vec<StepJudgement>,
}

/// Judges the result `result_text` names (an id, or `last`: the newest run that is not a
/// capture): `requirements` on the step `step` names (a run of several steps needs one), and
/// the figures of the `expect` profile on the steps of the same names.
pub fn check(
    store: &HistoryStore,
    result_text: &str,
    step: Option<&str>,
    requirements: &[Requirement],
    expect: Option<&str>,
) -> Result<Checked, LoadError> {
    let run = load_result(store, result_text)?;
    let steps = chosen_steps(&run, step)?;
    let mut notes = String::new();
    let mut judged: Vec<StepJudgement> = Vec::new();
    if !requirements.is_empty() {
        let [position] = steps.as_slice() else {
            let names: Vec<&str> = steps
                .iter()
                .map(|&p| run.steps[p as usize].name.as_str())
                .collect();
            return Err(LoadError::Input(format!(
                "run {} has {} steps ({}): pick one with --step NAME",
                run.summary.id,
                names.len(),
                names.join(", ")
            )));
        };
        let step = &run.steps[*position as usize];
        let _ = writeln!(notes, "step: {}", step.name);
        let evidence = step_evidence(store, &run, *position)?;
        for r in requirements {
            judged.push(StepJudgement {
                step: step.name.clone(),
                judgement: judge(r, &evidence),
            });
        }
    }
    if let Some(profile) = expect {
        judged.extend(judge_expectations(
            store, &run, &steps, profile, &mut notes,
        )?);
    }
    Ok(Checked { run, notes, judged })
}

impl Checked {
    fn judgements(&self) -> Vec<Judgement> {
        self.judged.iter().map(|j| j.judgement.clone()).collect()
    }

    /// Whether a judgement fails the check (within noise does with `strict`).
    pub fn failed(&self, strict: bool) -> bool {
        self.judged
            .iter()
            .any(|j| j.judgement.verdict.fails(strict))
    }

    /// The run, the notes, one line per judgement and the counts of each verdict.
    pub fn text(&self, strict: bool) -> String {
        let s = &self.run.summary;
        let mut out = format!(
            "Checking run {} ({} {} on {})\n",
            s.id, s.kind, s.name, s.target
        );
        // The headline of each judged step first; the verdicts below are its evidence.
        let mut shown: Vec<&str> = Vec::new();
        for j in &self.judged {
            let Some(step) = self.run.steps.iter().find(|st| st.name == j.step) else {
                continue;
            };
            if !shown.contains(&j.step.as_str()) {
                shown.push(&j.step);
                let cards = crate::headline::Headline::of(&step.result).text();
                let _ = writeln!(out, "{}:\n{cards}", j.step);
            }
        }
        out.push_str(&self.notes);
        for j in &self.judged {
            let _ = writeln!(out, "{}", j.judgement.line());
        }
        let (met, within_noise, missed, not_measured) = tally(&self.judgements());
        let _ = writeln!(
            out,
            "{} requirement{}: {met} met, {within_noise} within noise, {missed} missed{}{}",
            self.judged.len(),
            if self.judged.len() == 1 { "" } else { "s" },
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
        out
    }

    /// What the history keeps of this check ([`diskmeter_history::NewCheck`]): the run and
    /// step judged, the capture and level whose checklist was required (if any), the overall
    /// verdict and the verdicts as text and JSON (the command line and the time are stamped
    /// when it is saved).
    pub fn record(
        &self,
        strict: bool,
        capture: Option<(i64, &str)>,
    ) -> serde_json::Result<NewCheck> {
        let (_, within_noise, missed, not_measured) = tally(&self.judgements());
        let mut steps = self.judged.iter().map(|j| j.step.as_str());
        let first = steps.next().unwrap_or("");
        Ok(NewCheck {
            run_id: self.run.summary.id,
            step: if steps.all(|s| s == first) { first } else { "" }.to_string(),
            capture_id: capture.map(|(id, _)| id),
            level: capture.map_or(String::new(), |(_, level)| level.to_string()),
            created_unix_ms: 0,
            command_line: String::new(),
            verdict: crate::linked::overall_verdict(missed, within_noise, not_measured).to_string(),
            text: self.text(strict),
            check_json: self.json(strict)?,
        })
    }

    /// The judgements with their evidence, the counts and the exit code, pretty-printed
    /// with a trailing newline.
    pub fn json(&self, strict: bool) -> serde_json::Result<String> {
        let (met, within_noise, missed, not_measured) = tally(&self.judgements());
        let s = &self.run.summary;
        let document = CheckDocument {
            run_id: s.id,
            kind: &s.kind,
            name: &s.name,
            target: &s.target,
            judgements: &self.judged,
            met,
            within_noise,
            missed,
            not_measured,
            strict,
            exit_code: i32::from(self.failed(strict)),
        };
        Ok(serde_json::to_string_pretty(&document)? + "\n")
    }
}

/// The evidence of step `position` of `run`: its result and its merged histograms from the
/// history.
fn step_evidence(
    store: &HistoryStore,
    run: &StoredRun,
    position: u32,
) -> Result<StepEvidence, HistoryError> {
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
        Some(e) => Err(e),
        None => Ok(evidence),
    }
}

/// `ID` or `last` (the newest run that is not a capture), loaded; a capture or an unknown
/// id is bad input.
fn load_result(store: &HistoryStore, text: &str) -> Result<StoredRun, LoadError> {
    let id = store.resolve_id(text, Newest::Result)?;
    let run = load_run(store, id)?;
    if run.summary.kind == CAPTURE_KIND {
        return Err(LoadError::Input(format!(
            "run {id} is a capture, not a result: give it as --capture {id}"
        )));
    }
    if run.steps.is_empty() {
        return Err(LoadError::Input(format!(
            "run {id} has no finished step to check"
        )));
    }
    Ok(run)
}

/// The positions of the steps to check: the one `--step` names (by name, or `#N`), else all.
fn chosen_steps(run: &StoredRun, step: Option<&str>) -> Result<Vec<u32>, LoadError> {
    let Some(wanted) = step else {
        return Ok((0..run.steps.len() as u32).collect());
    };
    let names: Vec<&str> = run.steps.iter().map(|s| s.name.as_str()).collect();
    match step_named(&names, wanted) {
        Some(p) => Ok(vec![p as u32]),
        None => Err(LoadError::Input(format!(
            "--step {wanted}: run {} has no such step (its steps: {})",
            run.summary.id,
            names.join(", ")
        ))),
    }
}

/// The profile's figures judged on the run's steps of the same names.
fn judge_expectations(
    store: &HistoryStore,
    run: &StoredRun,
    steps: &[u32],
    profile: &str,
    out: &mut String,
) -> Result<Vec<StepJudgement>, LoadError> {
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
            return Err(LoadError::Input(format!(
                "--expect {profile}: run {} has none of its steps ({}); its steps: {}",
                run.summary.id,
                profile_steps.join(", "),
                names.join(", ")
            )))
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
pub fn list_expect() -> String {
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
