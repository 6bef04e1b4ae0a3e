//! Steady-state detection as a job asks for it: fio's `steadystate=` (`ss=`),
//! `steadystate_duration=` (`ss_dur=`) and `steadystate_ramp_time=` (`ss_ramp=`), diskmeter's
//! own `steadystate_precision=` and `steadystate_sample=`, and the auto-stop settings
//! ([`AutoStop`], [`JobSpec::with_auto_stop`]) that suites and sweeps use.
//!
//! Only the description lives here; the runner samples the job once per `steadystate_sample`
//! (fio: once per second, fixed) and ends it when the criterion holds over the last `ss_dur`
//! (see `docs/guide/1-measure.md`, "Steady state"). fio's semantics (fio 3.33 `steadystate.c`): the
//! deviation criteria hold when every sample of the window is within the limit of the window's
//! mean; the slope criteria when the least-squares slope of the window (per second) is within
//! the limit, a percentage being of the window's mean. Both comparisons are strict, as fio's.
//!
//! A flat window alone can be a lull: a disk whose speed moves in phases of several seconds
//! looks steady for 5 s in a slow phase while its 30 s mean is 10 % higher. The precision
//! rule (diskmeter's, not fio's) therefore also asks that the mean itself be known: the 95 %
//! confidence interval of the mean of every sample so far (batch means, as the report's
//! interval) within +-N % of it.

use crate::spec::JobSpec;
use diskmeter_units::{format_size_suffix, parse_size, KbBase, UnitError};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One second: the default sampling interval of steady-state detection (fio's, fixed in
/// 3.33; diskmeter's `steadystate_sample` changes it).
pub const STEADY_SAMPLE_NS: u64 = 1_000_000_000;

/// When a job stops itself: the settings [`JobSpec::with_auto_stop`] applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutoStop {
    /// One sample of IOPS and bandwidth per this many ns.
    pub sample_ns: u64,
    /// The rolling window, ns: every sample in it within `tolerance_percent` of its mean.
    pub window_ns: u64,
    /// How far a window's samples may stray from its mean, percent.
    pub tolerance_percent: f64,
    /// The 95 % interval of the mean of all samples so far must be within this many percent
    /// of the mean; `None` leaves the mean's precision unjudged.
    pub precision_percent: Option<f64>,
    /// The job ends here at the latest, ns of measurement.
    pub max_runtime_ns: u64,
}

impl AutoStop {
    /// A suite step's rule (issue 4): per-second samples, the last 5 within 2 % of their mean
    /// (IOPS and bandwidth), and the step's mean IOPS and bandwidth known to +-1.5 % (95 %);
    /// at the latest after `max_runtime_ns`. The precision keeps a lull from ending a step:
    /// see the module's text and `bench/RESULTS.md`.
    pub fn suite_step(max_runtime_ns: u64) -> AutoStop {
        AutoStop {
            sample_ns: STEADY_SAMPLE_NS,
            window_ns: 5 * STEADY_SAMPLE_NS,
            tolerance_percent: 2.0,
            precision_percent: Some(1.5),
            max_runtime_ns,
        }
    }

    /// A sweep point's rule (issue 5): a point is one of dozens, so samples are 200 ms and
    /// the window 1 s (5 samples within 5 % of their mean), with the mean known to +-3 %
    /// (the analysis' plateau tolerance is 8 %); at the latest after `max_runtime_ns`.
    /// 200 ms, not 250: the blkio cgroup throttle of `diskmeter emulate` was seen to
    /// release IO in bursts about 100 ms apart, so a 250 ms sample holds 2 or 3 of them
    /// (+-20 %).
    pub fn sweep_point(max_runtime_ns: u64) -> AutoStop {
        AutoStop {
            sample_ns: 200_000_000,
            window_ns: 1_000_000_000,
            tolerance_percent: 5.0,
            precision_percent: Some(3.0),
            max_runtime_ns,
        }
    }
}

/// What is watched and how (the part of `steadystate=` before the ':').
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyCriterion {
    /// fio `iops`: every per-second IOPS sample within the limit of the window's mean.
    Iops,
    /// fio `iops_slope`: the least-squares slope of the IOPS samples within the limit.
    IopsSlope,
    /// fio `bw`: every per-second bandwidth sample within the limit of the window's mean.
    Bw,
    /// fio `bw_slope`: the least-squares slope of the bandwidth samples within the limit.
    BwSlope,
    /// diskmeter's own `iops_bw` (not fio's; fio refuses it): the `iops` test and the `bw`
    /// test must both hold, each against its own mean. Only a percentage limit makes sense
    /// for two quantities in different units, so only a percentage is accepted.
    IopsBw,
}

/// Every criterion, in the order help texts list them.
pub const STEADY_CRITERIA: [SteadyCriterion; 5] = [
    SteadyCriterion::Iops,
    SteadyCriterion::IopsSlope,
    SteadyCriterion::Bw,
    SteadyCriterion::BwSlope,
    SteadyCriterion::IopsBw,
];

impl SteadyCriterion {
    /// fio's spelling (`iops`, `iops_slope`, `bw`, `bw_slope`) or diskmeter's `iops_bw`.
    pub fn as_str(self) -> &'static str {
        match self {
            SteadyCriterion::Iops => "iops",
            SteadyCriterion::IopsSlope => "iops_slope",
            SteadyCriterion::Bw => "bw",
            SteadyCriterion::BwSlope => "bw_slope",
            SteadyCriterion::IopsBw => "iops_bw",
        }
    }

    /// The criterion called `text` (exact, lowercase, as fio).
    pub fn parse(text: &str) -> Option<SteadyCriterion> {
        STEADY_CRITERIA.into_iter().find(|c| c.as_str() == text)
    }

    /// True for the slope criteria (`iops_slope`, `bw_slope`).
    pub fn is_slope(self) -> bool {
        matches!(self, SteadyCriterion::IopsSlope | SteadyCriterion::BwSlope)
    }

    /// True when the IOPS samples are judged.
    pub fn judges_iops(self) -> bool {
        matches!(
            self,
            SteadyCriterion::Iops | SteadyCriterion::IopsSlope | SteadyCriterion::IopsBw
        )
    }

    /// True when the bandwidth samples are judged.
    pub fn judges_bw(self) -> bool {
        matches!(
            self,
            SteadyCriterion::Bw | SteadyCriterion::BwSlope | SteadyCriterion::IopsBw
        )
    }
}

/// The threshold of a criterion (the part of `steadystate=` after the ':').
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyLimit {
    /// In the criterion's unit: IOPS for `iops`, bytes per second for `bw`, IOPS per second
    /// for `iops_slope`, bytes per second per second for `bw_slope`.
    Absolute(f64),
    /// A percentage of the window's mean (`2%`); for a slope, percent of the mean per second.
    Percent(f64),
}

impl SteadyLimit {
    /// The number, whichever its unit.
    pub fn value(self) -> f64 {
        match self {
            SteadyLimit::Absolute(value) | SteadyLimit::Percent(value) => value,
        }
    }

    /// True for a percentage of the mean.
    pub fn is_percent(self) -> bool {
        matches!(self, SteadyLimit::Percent(_))
    }
}

/// A job's steady-state settings. Detection is on when [`SteadyState::enabled`]: fio's rule,
/// a window (`ss_dur`) of at least one second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// What is judged (fio `steadystate=CRITERION:...`; default `iops_slope`).
    pub criterion: SteadyCriterion,
    /// Its threshold (fio `steadystate=...:LIMIT`; default 0.01 %).
    pub limit: SteadyLimit,
    /// The rolling window, ns (fio `steadystate_duration`); whole seconds count, 0 = off.
    pub duration_ns: u64,
    /// Time after the job's measurement starts before samples are collected, ns (fio
    /// `steadystate_ramp_time`).
    pub ramp_ns: u64,
    /// One sample per this many ns (diskmeter's `steadystate_sample`; fio: 1 s, fixed).
    #[serde(default = "default_sample_ns")]
    pub sample_ns: u64,
    /// Also require the 95 % interval of the mean of every sample so far within this many
    /// percent of the mean, for each quantity the criterion judges (diskmeter's
    /// `steadystate_precision`; fio has no such rule); `None` = not judged.
    #[serde(default)]
    pub precision_percent: Option<f64>,
}

fn default_sample_ns() -> u64 {
    STEADY_SAMPLE_NS
}

impl Default for SteadyState {
    /// The options' defaults, as [`crate::JobSpec::default`] has them (from the option rows).
    fn default() -> Self {
        crate::JobSpec::default().steadystate
    }
}

impl SteadyState {
    /// Placeholders for the option rows' defaults to replace (see `JobSpec::blank`).
    pub(crate) fn blank() -> Self {
        SteadyState {
            criterion: SteadyCriterion::IopsSlope,
            limit: SteadyLimit::Percent(0.01),
            duration_ns: 0,
            ramp_ns: 0,
            sample_ns: 0,
            precision_percent: None,
        }
    }

    /// Whether the job is watched for steady state (a window of at least one sample; fio:
    /// one second).
    pub fn enabled(&self) -> bool {
        self.window_samples() > 0
    }

    /// Samples in the window: `ss_dur` in whole samples (whole seconds by default; fio
    /// truncates too).
    pub fn window_samples(&self) -> usize {
        usize::try_from(self.duration_ns / self.sample_ns.max(1)).unwrap_or(usize::MAX)
    }

    /// The window's length as judged: whole samples, ns.
    pub fn window_ns(&self) -> u64 {
        self.window_samples() as u64 * self.sample_ns
    }

    /// `CRITERION:LIMIT` as `steadystate=` takes it back (`iops:2%`, `bw:10m`, `iops:100`).
    pub fn setting_text(&self, kb_base: KbBase) -> String {
        let limit = match self.limit {
            SteadyLimit::Percent(percent) => format!("{percent}%"),
            // Byte rates print with a size suffix, as they may be written.
            SteadyLimit::Absolute(bytes)
                if self.criterion.judges_bw()
                    && bytes.fract() == 0.0
                    && (0.0..9.0e15).contains(&bytes) =>
            {
                format_size_suffix(bytes as u64, kb_base)
            }
            SteadyLimit::Absolute(value) => format!("{value}"),
        };
        format!("{}:{limit}", self.criterion.as_str())
    }
}

/// Why a `steadystate=` value cannot be used; the option parser puts the option in front.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SteadyStateError {
    /// No ':' between the criterion and the limit.
    #[error(
        "give a criterion and a limit, e.g. iops:2% (criteria: {})",
        criteria_list()
    )]
    NoLimit,

    /// `lat` or `lat_slope`: criteria of fio releases after 3.33.
    #[error(
        "'{word}' is a criterion of fio releases newer than 3.33, which diskmeter follows; use \
         one of {}",
        criteria_list()
    )]
    NewerFio {
        /// The criterion as written.
        word: String,
    },

    /// Not a criterion fio or diskmeter knows.
    #[error(
        "{}'{word}' is not a criterion; use one of {}",
        suggestion.map(|near| format!("did you mean '{near}'? ")).unwrap_or_default(),
        criteria_list()
    )]
    UnknownCriterion {
        /// The criterion as written.
        word: String,
        /// The nearest criterion, when it looks like a misspelling of one.
        suggestion: Option<&'static str>,
    },

    /// Nothing after the ':'.
    #[error("the limit after ':' is missing (e.g. iops:2%)")]
    MissingLimit,

    /// `iops_bw` with an absolute limit.
    #[error(
        "iops_bw judges IOPS and bandwidth together, so its limit must be a percentage of the \
         mean (e.g. iops_bw:2%)"
    )]
    IopsBwNeedsPercent,

    /// A bandwidth limit the size parser refused.
    #[error(transparent)]
    Bandwidth(#[from] UnitError),

    /// A number below 0 (or not finite).
    #[error("{what} must be a number of 0 or more")]
    Negative {
        /// Which number ("the percentage", "an IOPS limit").
        what: &'static str,
    },

    /// A number with a suffix or other characters, which fio would cut at its digits.
    #[error(
        "{what} must be a plain number like 2 or 0.5 (no unit suffix: fio would read '{text}' \
         as just its leading digits)"
    )]
    NotPlain {
        /// Which number.
        what: &'static str,
        /// The text as written.
        text: String,
    },
}

/// The criteria as a help text lists them: `iops, iops_slope, bw, bw_slope, iops_bw`.
fn criteria_list() -> String {
    STEADY_CRITERIA
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses `steadystate=` text: `CRITERION:LIMIT` where LIMIT is `N%` (of the window's mean),
/// a plain number (IOPS criteria) or a byte rate with fio's size suffixes (`bw`, `bw_slope`,
/// read under `kb_base`).
pub fn parse_steadystate(
    text: &str,
    kb_base: KbBase,
) -> Result<(SteadyCriterion, SteadyLimit), SteadyStateError> {
    let Some((word, limit)) = text.split_once(':') else {
        return Err(SteadyStateError::NoLimit);
    };
    let word = word.trim();
    let criterion = SteadyCriterion::parse(word).ok_or_else(|| {
        if word == "lat" || word == "lat_slope" {
            SteadyStateError::NewerFio {
                word: word.to_string(),
            }
        } else {
            // fio's names are lowercase and fio refuses `IOPS`; suggest the spelling.
            let lower = word.to_ascii_lowercase();
            SteadyStateError::UnknownCriterion {
                word: word.to_string(),
                suggestion: crate::options::nearest(
                    &lower,
                    STEADY_CRITERIA.iter().map(|c| c.as_str()),
                ),
            }
        }
    })?;
    let limit = limit.trim();
    if limit.is_empty() {
        return Err(SteadyStateError::MissingLimit);
    }
    let parsed = if let Some(percent) = limit.strip_suffix('%') {
        SteadyLimit::Percent(plain_number(percent.trim(), "the percentage")?)
    } else if criterion == SteadyCriterion::IopsBw {
        return Err(SteadyStateError::IopsBwNeedsPercent);
    } else if criterion.judges_bw() {
        let bytes = parse_size(limit, kb_base)?;
        SteadyLimit::Absolute(bytes as f64)
    } else {
        SteadyLimit::Absolute(plain_number(limit, "an IOPS limit")?)
    };
    Ok((criterion, parsed))
}

/// A finite, non-negative decimal number. fio reads these with strtod and ignores what
/// follows the number (`iops:1k` is 1 IOPS there); diskmeter refuses instead of guessing.
fn plain_number(text: &str, what: &'static str) -> Result<f64, SteadyStateError> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        Ok(_) => Err(SteadyStateError::Negative { what }),
        Err(_) => Err(SteadyStateError::NotPlain {
            what,
            text: text.to_string(),
        }),
    }
}

/// The whole-job rules of the steady-state options; `fail(option, message)` reports one.
pub(crate) fn validate_steady(spec: &JobSpec, fail: &mut impl FnMut(&'static str, String)) {
    let ss = &spec.steadystate;
    // The shortest sample is the `steadystate_sample` row's limit, checked with every limit;
    // the window is judged only against a sample that passes it.
    let sample_ok = crate::options::limits_of("steadystate_sample").is_none_or(|limits| {
        limits
            .check(&crate::options::Value::Nanos(ss.sample_ns))
            .is_ok()
    });
    if sample_ok && ss.duration_ns > 0 && ss.duration_ns < ss.sample_ns {
        let message = if ss.sample_ns == STEADY_SAMPLE_NS {
            "steady state is judged on one sample per second, so the window must be at \
             least 1s (fio silently turns detection off instead); 0 turns it off"
                .to_string()
        } else {
            format!(
                "the window must hold at least one sample of steadystate_sample={}; 0 turns \
                 detection off",
                diskmeter_units::format_time_suffix(ss.sample_ns)
            )
        };
        fail("steadystate_duration", message);
    }
    if ss.criterion.is_slope() && ss.window_samples() == 1 {
        fail(
            "steadystate_duration",
            format!(
                "{} fits a line through the window's samples and needs at least 2 (a window \
                 of 2s or more)",
                ss.criterion.as_str()
            ),
        );
    }
    let limit = ss.limit.value();
    if !limit.is_finite() || limit < 0.0 {
        fail(
            "steadystate",
            "the limit must be a number of 0 or more".to_string(),
        );
    }
    if ss
        .precision_percent
        .is_some_and(|p| !(p > 0.0 && p <= 100.0))
    {
        fail(
            "steadystate_precision",
            "give a percentage above 0 (e.g. 1.5%), or 0 to leave the mean unjudged".to_string(),
        );
    }
    if ss.criterion == SteadyCriterion::IopsBw && !ss.limit.is_percent() {
        fail(
            "steadystate",
            "iops_bw needs a percentage limit (e.g. iops_bw:2%)".to_string(),
        );
    }
}

impl JobSpec {
    /// The job as a step that stops itself once its numbers are trustworthy: it ends when
    /// over the last `rule.window_ns` every IOPS sample and every bandwidth sample is within
    /// `rule.tolerance_percent` of the window's mean (diskmeter's `iops_bw` criterion) and,
    /// with a precision, the 95 % intervals of the mean IOPS and bandwidth so far are within
    /// it; at the latest after `rule.max_runtime_ns` of measurement. Sets
    /// `steadystate=iops_bw:TOL%`, `steadystate_duration`, `steadystate_sample`,
    /// `steadystate_precision`, `runtime` and `time_based` (so the job does not stop early
    /// for having covered its size); `ss_ramp` and `ramp_time` are left as they are.
    pub fn with_auto_stop(mut self, rule: AutoStop) -> JobSpec {
        self.steadystate.criterion = SteadyCriterion::IopsBw;
        self.steadystate.limit = SteadyLimit::Percent(rule.tolerance_percent);
        self.steadystate.duration_ns = rule.window_ns;
        self.steadystate.sample_ns = rule.sample_ns;
        self.steadystate.precision_percent = rule.precision_percent;
        self.runtime_ns = Some(rule.max_runtime_ns);
        self.time_based = true;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate;

    #[test]
    fn criteria_and_limits_parse_as_fio_reads_them() {
        let binary = KbBase::Binary;
        assert_eq!(
            parse_steadystate("iops:2%", binary),
            Ok((SteadyCriterion::Iops, SteadyLimit::Percent(2.0)))
        );
        assert_eq!(
            parse_steadystate("iops_slope:0.1 %", binary),
            Ok((SteadyCriterion::IopsSlope, SteadyLimit::Percent(0.1)))
        );
        assert_eq!(
            parse_steadystate("iops:100", binary),
            Ok((SteadyCriterion::Iops, SteadyLimit::Absolute(100.0)))
        );
        // fio reads a bandwidth limit as a size: 10m is 10 MiB/s under kb_base=1024.
        assert_eq!(
            parse_steadystate("bw:10m", binary),
            Ok((SteadyCriterion::Bw, SteadyLimit::Absolute(10_485_760.0)))
        );
        assert_eq!(
            parse_steadystate("bw_slope:1k", KbBase::Decimal),
            Ok((SteadyCriterion::BwSlope, SteadyLimit::Absolute(1000.0)))
        );
    }

    #[test]
    fn what_fio_misreads_or_refuses_is_refused_with_a_reason() {
        let refused = |text: &str| {
            parse_steadystate(text, KbBase::Binary)
                .unwrap_err()
                .to_string()
        };
        assert!(refused("iops").contains("criterion and a limit"));
        assert!(refused("iops:").contains("missing"));
        assert!(refused("iops:1k").contains("plain number"));
        assert!(refused("iops:-1").contains("0 or more"));
        assert!(refused("iosp:2%").contains("did you mean 'iops'"));
        assert!(refused("lat:2ms").contains("newer than 3.33"));
        assert!(refused("iops_bw:100").contains("percentage"));
    }

    #[test]
    fn settings_print_back_to_the_same_values() {
        for (text, kb_base) in [
            ("iops:2%", KbBase::Binary),
            ("bw_slope:0.5%", KbBase::Binary),
            ("bw:10m", KbBase::Binary),
            ("bw:10m", KbBase::Decimal),
            ("iops:0.25", KbBase::Binary),
            ("iops_bw:3%", KbBase::Binary),
        ] {
            let (criterion, limit) = parse_steadystate(text, kb_base).unwrap();
            let ss = SteadyState {
                criterion,
                limit,
                ..SteadyState::default()
            };
            assert_eq!(ss.setting_text(kb_base), text);
        }
    }

    #[test]
    fn the_window_counts_whole_seconds() {
        let ss = |duration_ns| SteadyState {
            duration_ns,
            ..SteadyState::default()
        };
        assert!(!ss(0).enabled());
        assert_eq!(ss(2_500_000_000).window_samples(), 2);
        assert!(ss(1_000_000_000).enabled());
    }

    #[test]
    fn windows_too_short_for_their_criterion_are_refused() {
        let mut job = JobSpec::default();
        job.steadystate.duration_ns = 500_000_000;
        let messages: Vec<String> = validate(&job).iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].contains("steadystate_duration=500ms: steady state is judged"));
        job.steadystate.duration_ns = STEADY_SAMPLE_NS; // iops_slope over one sample
        assert!(validate(&job)[0].message.contains("needs at least 2"));
        job.steadystate.criterion = SteadyCriterion::Iops;
        assert!(validate(&job).is_empty());
    }

    #[test]
    fn auto_stop_sets_the_combined_criterion_window_limit_and_precision() {
        let job = JobSpec::default().with_auto_stop(AutoStop::suite_step(60 * STEADY_SAMPLE_NS));
        assert_eq!(job.steadystate.criterion, SteadyCriterion::IopsBw);
        assert_eq!(job.steadystate.limit, SteadyLimit::Percent(2.0));
        assert_eq!(job.steadystate.window_samples(), 5);
        assert_eq!(job.steadystate.precision_percent, Some(1.5));
        assert_eq!(job.runtime_ns, Some(60_000_000_000));
        assert!(job.time_based);
        let described = crate::describe(&job);
        let has =
            |name: &str, value: &str| described.contains(&(name.to_string(), value.to_string()));
        assert!(has("steadystate", "iops_bw:2%"), "{described:?}");
        assert!(has("steadystate_duration", "5s"), "{described:?}");
        assert!(has("steadystate_precision", "1.5%"), "{described:?}");
        assert!(validate(&job).is_empty());

        let point = JobSpec::default().with_auto_stop(AutoStop::sweep_point(3 * STEADY_SAMPLE_NS));
        assert_eq!(point.steadystate.window_samples(), 5);
        assert_eq!(point.steadystate.window_ns(), 1_000_000_000);
        let described = crate::describe(&point);
        assert!(
            described.contains(&("steadystate_sample".to_string(), "200ms".to_string())),
            "{described:?}"
        );
        assert!(validate(&point).is_empty());
    }

    #[test]
    fn samples_and_precision_are_checked() {
        let mut job = JobSpec::default();
        job.steadystate.criterion = SteadyCriterion::Iops;
        job.steadystate.duration_ns = 2 * STEADY_SAMPLE_NS;
        job.steadystate.sample_ns = 10_000_000;
        assert!(validate(&job)[0].message.contains("timer noise"));
        job.steadystate.sample_ns = 3 * STEADY_SAMPLE_NS;
        assert!(validate(&job)[0]
            .message
            .contains("at least one sample of steadystate_sample=3s"));
        job.steadystate.sample_ns = 500_000_000;
        assert_eq!(job.steadystate.window_samples(), 4);
        assert!(validate(&job).is_empty());
        job.steadystate.precision_percent = Some(0.0);
        assert!(validate(&job)[0].message.contains("above 0"));
    }
}
