//! Steady state and the confidence interval of the mean IOPS in the report: building them
//! from the runner's figures, their terminal line, and fio's JSON `steadystate` object.
//!
//! The interval is [`diskmeter_stats::batch_means`] over the job's full per-second samples of
//! total IOPS (reads and writes together): per-second samples are autocorrelated, which
//! batch means allow for (Law & Kelton, "Simulation Modeling and Analysis", ch. 9).

use std::fmt::Write as _;

use diskmeter_stats::{batch_means, IntervalSample};
use diskmeter_workload::JobSpec;
use serde_json::{json, Value};

use crate::format::{iops, rate_both, seconds};
use crate::input::SteadyStateInput;
use crate::schema::{ConfidenceInterval, JobResult, SteadyStateResult};

/// The reported steady state of a job that asked for it.
pub(crate) fn steady_state_result(
    spec: &JobSpec,
    input: Option<&SteadyStateInput>,
) -> Option<SteadyStateResult> {
    let ss = &spec.steadystate;
    if !ss.enabled() {
        return None;
    }
    let input = input?;
    let mean = |samples: &[f64]| {
        if samples.is_empty() {
            0.0
        } else {
            samples.iter().sum::<f64>() / samples.len() as f64
        }
    };
    Some(SteadyStateResult {
        criterion: ss.criterion,
        limit: ss.limit.value(),
        limit_is_percent: ss.limit.is_percent(),
        window_ns: ss.window_ns(),
        sample_ns: ss.sample_ns,
        ramp_ns: ss.ramp_ns,
        precision_limit_percent: ss.precision_percent,
        precision_percent: input.precision_percent,
        attained: input.attained_at_ns.is_some(),
        attained_at_ns: input.attained_at_ns,
        criterion_value: input.criterion_value,
        max_deviation: input.max_deviation,
        slope: input.slope,
        window_iops_mean: mean(&input.window_iops),
        window_bw_mean_bytes_per_sec: mean(&input.window_bw_bytes_per_sec),
        window_iops: input.window_iops.clone(),
        window_bw_bytes_per_sec: input.window_bw_bytes_per_sec.clone(),
    })
}

/// The 95 % interval of the mean IOPS over the full-length intervals of `series` (the last,
/// cut-short interval would pose as a dip).
pub(crate) fn iops_confidence(series: &[IntervalSample]) -> ConfidenceInterval {
    let full_ms = series.iter().map(|s| s.duration_ms).max().unwrap_or(0);
    let samples: Vec<f64> = series
        .iter()
        .filter(|s| s.duration_ms == full_ms && full_ms > 0)
        .map(|s| s.read.iops + s.write.iops)
        .collect();
    let estimate = batch_means(&samples);
    ConfidenceInterval {
        mean: estimate.mean,
        half_width: estimate
            .half_width
            .is_finite()
            .then_some(estimate.half_width),
        batches: estimate.batches as u32,
        samples: samples.len() as u64,
    }
}

/// The limit as fio's setting reads (`2%`, `100`), for the terminal.
fn limit_text(result: &SteadyStateResult) -> String {
    if result.limit_is_percent {
        format!("{}%", result.limit)
    } else {
        format!("{}", result.limit)
    }
}

/// The terminal lines: the IOPS interval for every job, the steady state when asked for.
pub(crate) fn render_lines(out: &mut String, job: &JobResult) {
    let ci = &job.iops_mean_ci;
    let _ = match ci.half_width {
        Some(half) => writeln!(
            out,
            "  IOPS mean    : {} +- {} (95% CI, batch means of {} per-second samples in {} batches)",
            iops(ci.mean),
            iops(half),
            ci.samples,
            ci.batches
        ),
        None => writeln!(
            out,
            "  IOPS mean    : {} (no 95% CI: {} per-second samples, at least 4 needed)",
            iops(ci.mean),
            ci.samples
        ),
    };
    let Some(ss) = &job.steady_state else {
        return;
    };
    // "5 s", "0.25 s": the settings as given, without the measured figures' decimals.
    let span = |ns: u64| format!("{} s", ns as f64 / 1e9);
    let mut setting = format!(
        "{}:{} over {}",
        ss.criterion.as_str(),
        limit_text(ss),
        span(ss.window_ns)
    );
    if ss.sample_ns != diskmeter_workload::STEADY_SAMPLE_NS {
        let _ = write!(setting, " of {} samples", span(ss.sample_ns));
    }
    if let Some(limit) = ss.precision_limit_percent {
        let _ = write!(setting, ", mean known to +-{limit}%");
    }
    let outcome = match ss.attained_at_ns {
        Some(at) => format!("attained at {}", seconds(at)),
        None => "not attained".to_string(),
    };
    let last = match (ss.criterion_value, ss.window_iops.is_empty()) {
        (_, true) => "no sample collected".to_string(),
        (value, false) => {
            let unit = if ss.limit_is_percent { "%" } else { "" };
            let value = value.map_or("undefined".to_string(), |v| format!("{v:.4}{unit}"));
            let precision = match (ss.precision_limit_percent, ss.precision_percent) {
                (None, _) => String::new(),
                (Some(_), Some(p)) => format!("; mean +-{p:.2}%"),
                (Some(_), None) => "; mean not yet known".to_string(),
            };
            format!(
                "window mean {} IOPS, {}; criterion {value}{precision}",
                iops(ss.window_iops_mean),
                rate_both(ss.window_bw_mean_bytes_per_sec)
            )
        }
    };
    let _ = writeln!(out, "  steady state : {setting}: {outcome} ({last})");
}

/// fio's `steadystate` object of a job that asked for steady state (fio 3.33 `stat.c`):
/// the setting as `"iops:2.000000%"`, `duration` in seconds, `attained` 0/1, the last
/// `criterion` as text, `max_deviation`, `slope`, and the window's samples as integers.
pub(crate) fn fio_steadystate(job: &JobResult) -> Option<Value> {
    let ss = job.steady_state.as_ref()?;
    let percent = if ss.limit_is_percent { "%" } else { "" };
    let whole = |values: &[f64]| -> Vec<u64> { values.iter().map(|v| v.round() as u64).collect() };
    Some(json!({
        "ss": format!("{}:{:.6}{percent}", ss.criterion.as_str(), ss.limit),
        "duration": ss.window_ns / diskmeter_workload::STEADY_SAMPLE_NS,
        "attained": u8::from(ss.attained),
        "criterion": format!("{:.6}{percent}", ss.criterion_value.unwrap_or(0.0)),
        "max_deviation": ss.max_deviation,
        "slope": ss.slope,
        "data": {
            "bw_mean": ss.window_bw_mean_bytes_per_sec.round() as u64,
            "iops_mean": ss.window_iops_mean.round() as u64,
            "iops": whole(&ss.window_iops),
            "bw": whole(&ss.window_bw_bytes_per_sec),
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskmeter_stats::IntervalDirection;

    fn series(iops: &[f64]) -> Vec<IntervalSample> {
        iops.iter()
            .enumerate()
            .map(|(i, &v)| IntervalSample {
                start_ms: i as u64 * 1000,
                duration_ms: 1000,
                read: IntervalDirection {
                    iops: v,
                    ..IntervalDirection::default()
                },
                write: IntervalDirection::default(),
            })
            .collect()
    }

    #[test]
    fn the_interval_comes_from_batch_means_of_full_seconds() {
        let mut s = series(&[5000.0, 5004.0, 5002.0, 4998.0, 4996.0, 5000.0]);
        // A cut-short last second is left out.
        s.push(IntervalSample {
            start_ms: 6000,
            duration_ms: 300,
            ..IntervalSample::default()
        });
        let ci = iops_confidence(&s);
        assert_eq!((ci.samples, ci.batches), (6, 2));
        assert_eq!(ci.mean, 5000.0);
        // Batch means 5002 and 4998: se = 2, t(0.975, 1) = 12.706.
        assert!((ci.half_width.unwrap() - 12.706 * 2.0).abs() < 1e-9);
    }

    #[test]
    fn too_few_seconds_give_no_interval() {
        let ci = iops_confidence(&series(&[1.0, 2.0, 3.0]));
        assert_eq!((ci.half_width, ci.samples), (None, 3));
        assert_eq!(iops_confidence(&[]).samples, 0);
    }

    #[test]
    fn no_steady_state_without_a_window() {
        let input = SteadyStateInput {
            attained_at_ns: None,
            window_iops: vec![],
            window_bw_bytes_per_sec: vec![],
            criterion_value: None,
            max_deviation: 0.0,
            slope: 0.0,
            precision_percent: None,
        };
        assert_eq!(steady_state_result(&JobSpec::default(), Some(&input)), None);
        let mut spec = JobSpec::default();
        spec.steadystate.duration_ns = 3_000_000_000;
        let result = steady_state_result(&spec, Some(&input)).unwrap();
        assert!(!result.attained);
        assert_eq!(result.window_ns, 3_000_000_000);
    }
}
