//! Steady-state detection as a job asks for it: fio's `steadystate=` (`ss=`),
//! `steadystate_duration=` (`ss_dur=`) and `steadystate_ramp_time=` (`ss_ramp=`), and the
//! auto-stop helper ([`JobSpec::with_auto_stop`]) that suites use.
//!
//! Only the description lives here; the runner samples the job once per second and ends it
//! when the criterion holds over the last `ss_dur` seconds (see `docs/GUIDE.md`, "Steady
//! state"). fio's semantics (fio 3.33 `steadystate.c`): the deviation criteria hold when every
//! sample of the window is within the limit of the window's mean; the slope criteria when the
//! least-squares slope of the window (per second) is within the limit, a percentage being of
//! the window's mean. Both comparisons are strict, as fio's.

use crate::spec::JobSpec;
use diskmeter_units::{format_size_suffix, parse_size, KbBase};
use serde::{Deserialize, Serialize};

/// One second: the sampling interval of steady-state detection (fio's, fixed in 3.33).
pub const STEADY_SAMPLE_NS: u64 = 1_000_000_000;

/// The window [`JobSpec::with_auto_stop`] is usually given: 5 seconds (issue 4's default).
pub const AUTO_STOP_WINDOW_NS: u64 = 5 * STEADY_SAMPLE_NS;

/// The tolerance [`JobSpec::with_auto_stop`] is usually given: every sample within 2 % of the
/// window's mean (issue 4's default).
pub const AUTO_STOP_TOLERANCE_PERCENT: f64 = 2.0;

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
}

impl Default for SteadyState {
    /// fio's defaults: `iops_slope:0.01%`, no window (detection off), no ramp.
    fn default() -> Self {
        SteadyState {
            criterion: SteadyCriterion::IopsSlope,
            limit: SteadyLimit::Percent(0.01),
            duration_ns: 0,
            ramp_ns: 0,
        }
    }
}

impl SteadyState {
    /// Whether the job is watched for steady state (a window of at least one second).
    pub fn enabled(&self) -> bool {
        self.window_samples() > 0
    }

    /// Per-second samples in the window: `ss_dur` in whole seconds (fio truncates too).
    pub fn window_samples(&self) -> usize {
        usize::try_from(self.duration_ns / STEADY_SAMPLE_NS).unwrap_or(usize::MAX)
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

/// Parses `steadystate=` text: `CRITERION:LIMIT` where LIMIT is `N%` (of the window's mean),
/// a plain number (IOPS criteria) or a byte rate with fio's size suffixes (`bw`, `bw_slope`,
/// read under `kb_base`). The error is the reason, for the option parser to prefix.
pub fn parse_steadystate(
    text: &str,
    kb_base: KbBase,
) -> Result<(SteadyCriterion, SteadyLimit), String> {
    let choices = || {
        STEADY_CRITERIA
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some((word, limit)) = text.split_once(':') else {
        return Err(format!(
            "give a criterion and a limit, e.g. iops:2% (criteria: {})",
            choices()
        ));
    };
    let word = word.trim();
    let criterion = SteadyCriterion::parse(word).ok_or_else(|| {
        // fio's names are lowercase and fio refuses `IOPS`; suggest the spelling.
        let lower = word.to_ascii_lowercase();
        let hint = crate::options::nearest(&lower, STEADY_CRITERIA.iter().map(|c| c.as_str()))
            .map(|near| format!("did you mean '{near}'? "))
            .unwrap_or_default();
        if word == "lat" || word == "lat_slope" {
            format!(
                "'{word}' is a criterion of fio releases newer than 3.33, which diskmeter \
                 follows; use one of {}",
                choices()
            )
        } else {
            format!(
                "{hint}'{word}' is not a criterion; use one of {}",
                choices()
            )
        }
    })?;
    let limit = limit.trim();
    if limit.is_empty() {
        return Err("the limit after ':' is missing (e.g. iops:2%)".to_string());
    }
    let parsed = if let Some(percent) = limit.strip_suffix('%') {
        SteadyLimit::Percent(plain_number(percent.trim(), "the percentage")?)
    } else if criterion == SteadyCriterion::IopsBw {
        return Err(
            "iops_bw judges IOPS and bandwidth together, so its limit must be a percentage \
             of the mean (e.g. iops_bw:2%)"
                .to_string(),
        );
    } else if criterion.judges_bw() {
        let bytes = parse_size(limit, kb_base).map_err(|e| e.to_string())?;
        SteadyLimit::Absolute(bytes as f64)
    } else {
        SteadyLimit::Absolute(plain_number(limit, "an IOPS limit")?)
    };
    Ok((criterion, parsed))
}

/// A finite, non-negative decimal number. fio reads these with strtod and ignores what
/// follows the number (`iops:1k` is 1 IOPS there); diskmeter refuses instead of guessing.
fn plain_number(text: &str, what: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        Ok(_) => Err(format!("{what} must be a number of 0 or more")),
        Err(_) => Err(format!(
            "{what} must be a plain number like 2 or 0.5 (no unit suffix: fio would read \
             '{text}' as just its leading digits)"
        )),
    }
}

/// The whole-job rules of the steady-state options; `fail(option, message)` reports one.
pub(crate) fn validate_steady(spec: &JobSpec, fail: &mut impl FnMut(&'static str, String)) {
    let ss = &spec.steadystate;
    if ss.duration_ns > 0 && ss.duration_ns < STEADY_SAMPLE_NS {
        fail(
            "steadystate_duration",
            "steady state is judged on one sample per second, so the window must be at \
             least 1s (fio silently turns detection off instead); 0 turns it off"
                .to_string(),
        );
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
    if ss.criterion == SteadyCriterion::IopsBw && !ss.limit.is_percent() {
        fail(
            "steadystate",
            "iops_bw needs a percentage limit (e.g. iops_bw:2%)".to_string(),
        );
    }
}

impl JobSpec {
    /// The job as a suite step that stops itself once its numbers are trustworthy: it ends
    /// when over the last `window_ns` (whole seconds, at least 1) every per-second IOPS
    /// sample and every per-second bandwidth sample is within `tolerance_percent` of the
    /// window's mean (diskmeter's `iops_bw` criterion), and at the latest after
    /// `max_runtime_ns` of measurement. Sets `steadystate=iops_bw:TOL%`,
    /// `steadystate_duration=window_ns`, `runtime=max_runtime_ns` and `time_based` (so the
    /// job does not stop early for having covered its size); `ss_ramp` and `ramp_time` are
    /// left as they are. The defaults are [`AUTO_STOP_WINDOW_NS`] and
    /// [`AUTO_STOP_TOLERANCE_PERCENT`].
    pub fn with_auto_stop(
        mut self,
        window_ns: u64,
        tolerance_percent: f64,
        max_runtime_ns: u64,
    ) -> JobSpec {
        self.steadystate.criterion = SteadyCriterion::IopsBw;
        self.steadystate.limit = SteadyLimit::Percent(tolerance_percent);
        self.steadystate.duration_ns = window_ns;
        self.runtime_ns = Some(max_runtime_ns);
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
        let refused = |text: &str| parse_steadystate(text, KbBase::Binary).unwrap_err();
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
    fn auto_stop_sets_the_combined_criterion_window_and_limit() {
        let job = JobSpec::default().with_auto_stop(
            AUTO_STOP_WINDOW_NS,
            AUTO_STOP_TOLERANCE_PERCENT,
            60 * STEADY_SAMPLE_NS,
        );
        assert_eq!(job.steadystate.criterion, SteadyCriterion::IopsBw);
        assert_eq!(job.steadystate.limit, SteadyLimit::Percent(2.0));
        assert_eq!(job.steadystate.window_samples(), 5);
        assert_eq!(job.runtime_ns, Some(60_000_000_000));
        assert!(job.time_based);
        let described = crate::describe(&job);
        assert!(described.contains(&("steadystate".to_string(), "iops_bw:2%".to_string())));
        assert!(described.contains(&("steadystate_duration".to_string(), "5s".to_string())));
        assert!(validate(&job).is_empty());
    }
}
