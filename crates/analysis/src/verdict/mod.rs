//! Verdicts a user can act on: a requirement ([`Requirement`]: metric, direction, statistic,
//! bound, unit) judged on a step's measured figure *with its 95 % interval*
//! ([`StepEvidence::estimate`]), giving one of three verdicts — met (the interval clears the
//! bound), missed (it lies wholly on the wrong side), within noise (it straddles the bound) —
//! or "not measured" with the reason. Used by `check` (`--require`, `--capture`, `--expect`)
//! and `suite --expect`; pure.
//!
//! **A paced rate.** A run paced at a rate cannot show more than that rate, so a rate
//! requirement at the pacing (a replay at level L checked against L: within
//! [`PACED_TOLERANCE`]) is met when the delivered rate's interval reaches the target and
//! missed when it lies wholly below it — never a coin flip between the two. A run paced below
//! the requirement cannot show whether the storage carries it: not measured. A missed paced
//! rate says how far behind its schedule the run fell ([`StepEvidence::lateness`]).
//!
//! **A partial step** (interrupted, or a job failed) is never judged as a whole run: each of
//! its requirements is "not measured", with the reason.

mod estimate;
mod evidence;
mod requirement;
mod steps;
#[cfg(test)]
mod tests;

pub use estimate::{order_statistic_ranks, Estimate, NotMeasured, HISTOGRAM_RELATIVE_ERROR};
pub use evidence::{merged_job_histogram, LatencyClock, StepEvidence};
pub use requirement::{
    add_unless_given, parse_all_requirements, parse_requirements, requirements_from_checklist,
    Allowance, Bound, LatencyStatistic, Measure, Requirement, RequirementError, Scope,
    MEASUREMENT_POINT_ALLOWANCE, REQUIRE_KEYS,
};
pub use steps::{match_profile, step_named, ProfileSteps};

use serde::Serialize;

/// A requirement at a run's pacing, within this share, is judged by the paced rule: the replay
/// rounds its rates up, so a level of 1,400.4 IOPS is paced at 1,401.
pub const PACED_TOLERANCE: f64 = 0.01;

/// The three verdicts, and the answer when there is nothing to judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval clears the bound.
    Met,
    /// The interval lies wholly on the wrong side of the bound.
    Missed,
    /// The interval straddles the bound: the run cannot tell.
    WithinNoise,
    /// The step has no such figure (no IO of that kind, partial, not kept).
    NotMeasured,
}

impl Verdict {
    /// As a line starts: `MET`, `MISSED`, `WITHIN NOISE`, `NOT MEASURED`.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Met => "MET",
            Verdict::Missed => "MISSED",
            Verdict::WithinNoise => "WITHIN NOISE",
            Verdict::NotMeasured => "NOT MEASURED",
        }
    }

    /// A verdict that fails a check: missed and not measured always; within noise with
    /// `strict`.
    pub fn fails(self, strict: bool) -> bool {
        match self {
            Verdict::Met => false,
            Verdict::WithinNoise => strict,
            Verdict::Missed | Verdict::NotMeasured => true,
        }
    }
}

/// One requirement judged on one step, with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    /// The canonical key (`read-lat-p99`).
    pub key: String,
    /// The requirement.
    pub requirement: Requirement,
    /// The unit of the threshold and the figures.
    pub unit: &'static str,
    /// The verdict.
    pub verdict: Verdict,
    /// The measured figure with its interval; `None` when not measured.
    pub measured: Option<Estimate>,
    /// How far past the threshold the figure is, percent of it: negative is the shortfall
    /// (for latency, positive is below the bound).
    pub margin_percent: Option<f64>,
    /// Which latency was judged (latency requirements only).
    pub clock: Option<LatencyClock>,
    /// Why: not measured, the paced rule, how far behind its pacing a run fell.
    pub reason: Option<String>,
}

impl Judgement {
    /// The line `check` prints:
    /// `MET read-iops >= 1,400 IOPS (capture 3 p90 IOPS read): measured 1,402 IOPS, 95 %
    /// interval 1,398-1,406 (batch means of 8 whole 1 s samples (2 batches)), margin +0.1 %`.
    pub fn line(&self) -> String {
        let mut text = format!("{} {}", self.verdict.label(), self.requirement);
        if let Some(m) = &self.measured {
            // A latency (judged in ms) prints in its scaled unit, as every human view does:
            // "412.0 us", not "0.4120 ms"; other figures with the unit after the value.
            let latency = self.unit == "ms";
            let figure = |v: f64| match latency {
                true => diskmeter_units::format_duration(v * 1e6),
                false => crate::requirements::format_figure(Some(v)),
            };
            match latency {
                true => text.push_str(&format!(": measured {}", figure(m.value))),
                false => text.push_str(&format!(": measured {} {}", figure(m.value), self.unit)),
            }
            if let Some(clock) = self.clock {
                text.push_str(&format!(" {}", clock.label()));
            }
            if m.has_interval() && m.low != m.high {
                text.push_str(&format!(
                    ", 95 % interval {} to {} ({})",
                    figure(m.low),
                    figure(m.high),
                    m.method
                ));
            } else {
                text.push_str(&format!(" ({})", m.method));
            }
            if let (Some(margin), true) =
                (self.margin_percent, self.verdict != Verdict::NotMeasured)
            {
                text.push_str(&format!(", margin {margin:+.1} %"));
            }
        }
        if let Some(reason) = &self.reason {
            text.push_str(if self.measured.is_some() { "; " } else { ": " });
            text.push_str(reason);
        }
        text
    }
}

impl Judgement {
    /// `requirement` not measured, for `reason` ("run 3 has no step 'x'").
    pub fn not_measured(requirement: &Requirement, reason: String) -> Judgement {
        Judgement {
            reason: Some(reason),
            ..Judgement::unjudged(requirement, None)
        }
    }

    /// `requirement` before it is judged: not measured, with no reason yet.
    fn unjudged(requirement: &Requirement, clock: Option<LatencyClock>) -> Judgement {
        Judgement {
            key: requirement.key(),
            requirement: requirement.clone(),
            unit: requirement.measure.unit(),
            verdict: Verdict::NotMeasured,
            measured: None,
            margin_percent: None,
            clock,
            reason: None,
        }
    }
}

/// Judges `requirement` on the step `evidence` describes.
pub fn judge(requirement: &Requirement, evidence: &StepEvidence) -> Judgement {
    let measure = requirement.measure;
    let clock = matches!(measure, Measure::LatencyMs { .. }).then_some(evidence.clock);
    let mut judgement = Judgement::unjudged(requirement, clock);
    if let Some(why) = &evidence.partial {
        judgement.reason = Some(format!(
            "not judged: the step is partial ({why}), and part of a run is never judged as a \
             whole one"
        ));
        return judgement;
    }
    let estimate = match evidence.estimate(measure) {
        Ok(estimate) => estimate,
        Err(why) => {
            judgement.reason = Some(why.to_string());
            return judgement;
        }
    };
    let threshold = requirement.threshold;
    judgement.margin_percent = (threshold > 0.0).then(|| match requirement.bound {
        Bound::AtLeast => (estimate.value - threshold) / threshold * 100.0,
        Bound::AtMost | Bound::Below => (threshold - estimate.value) / threshold * 100.0,
    });
    let pacing = match requirement.bound {
        Bound::AtLeast => evidence.pacing(measure),
        _ => None,
    };
    judgement.verdict = match pacing {
        Some(paced) if paced < threshold * (1.0 - PACED_TOLERANCE) => {
            judgement.reason = Some(format!(
                "the run was paced at {} {}, below the requirement, so it cannot show whether \
                 the storage carries {}",
                crate::requirements::format_figure(Some(paced)),
                measure.unit(),
                crate::requirements::format_figure(Some(threshold)),
            ));
            Verdict::NotMeasured
        }
        Some(paced) if paced <= threshold * (1.0 + PACED_TOLERANCE) => {
            if !estimate.has_interval() {
                Verdict::WithinNoise
            } else if estimate.high >= threshold {
                judgement.reason = Some(format!(
                    "paced at {} {}: a run cannot exceed its pacing, so an interval that \
                     reaches the target meets it",
                    crate::requirements::format_figure(Some(paced)),
                    measure.unit()
                ));
                Verdict::Met
            } else {
                judgement.reason = Some(
                    evidence
                        .lateness(measure.scope())
                        .unwrap_or_else(|| "the run delivered less than its pacing".to_string()),
                );
                Verdict::Missed
            }
        }
        _ => three_way(requirement, &estimate),
    };
    if judgement.verdict == Verdict::Missed && judgement.reason.is_none() && pacing.is_some() {
        judgement.reason = evidence.lateness(measure.scope());
    }
    judgement.measured = Some(estimate);
    judgement
}

/// Met when the interval clears the bound, missed when it lies past the bound (and its
/// allowance), within noise otherwise.
fn three_way(requirement: &Requirement, estimate: &Estimate) -> Verdict {
    let (t, allowance) = (requirement.threshold, requirement.allowance);
    let (low, high) = (estimate.low, estimate.high);
    let (met, missed) = match requirement.bound {
        Bound::AtLeast => (low >= t, high < t - allowance),
        Bound::AtMost => (high <= t, low > t + allowance),
        Bound::Below => (high < t, low >= t + allowance),
    };
    if met {
        Verdict::Met
    } else if missed {
        Verdict::Missed
    } else {
        Verdict::WithinNoise
    }
}

/// The counts of each verdict over `judgements`: (met, within noise, missed, not measured).
pub fn tally(judgements: &[Judgement]) -> (usize, usize, usize, usize) {
    let count = |v: Verdict| judgements.iter().filter(|j| j.verdict == v).count();
    (
        count(Verdict::Met),
        count(Verdict::WithinNoise),
        count(Verdict::Missed),
        count(Verdict::NotMeasured),
    )
}
