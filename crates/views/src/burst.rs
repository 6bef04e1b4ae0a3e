//! `diskmeter analyze` of a run or a suite: what each step's per-second series says about a
//! burst bucket ([`diskmeter_analysis::burst`]), as text or JSON. Each step's jobs are summed
//! interval by interval first: a bucket is the device's, shared by every job on it.

use diskmeter_analysis::burst::{read_burst, BurstMeasure, BurstReading, BurstTierMatch, Level};
use diskmeter_report::RunResult;
use diskmeter_units::{format_rate_binary, format_thousands};
use serde::Serialize;

/// `diskmeter analyze --help`'s description.
pub const ANALYZE_ABOUT: &str = "Analyses a saved sweep again: ceilings, crossover, knees, \
    tiers and charts (a curve sweep: its IOPS-latency curve and SLO answer); `last` is the \
    newest sweep. Points whose step was interrupted or failed are listed as partial, with why, \
    and left out of the analysis; with too few whole points for a curve nothing is inferred. \
    Of any other saved run or suite (by ID), reads each step's per-second series for a burst \
    bucket running dry: the burst rate, the baseline, when it stepped down, the bucket's size \
    and the catalog tiers they match.";

/// A saved run's steps as (name, result).
pub fn steps_of(
    run: &diskmeter_history::StoredRun,
) -> impl Iterator<Item = (&str, &RunResult)> + '_ {
    run.steps.iter().map(|s| (s.name.as_str(), &s.result))
}

/// One step's reading.
#[derive(Debug, Serialize)]
pub struct StepBurst {
    /// The step's name.
    pub step: String,
    /// What its series says.
    pub burst: BurstReading,
}

/// The burst reading of each step of a saved run: `steps` as (name, result).
pub fn read_steps<'a>(steps: impl IntoIterator<Item = (&'a str, &'a RunResult)>) -> Vec<StepBurst> {
    let tiers = diskmeter_plan::Catalog::builtin().disks;
    steps
        .into_iter()
        .map(|(name, result)| {
            let series = result.jobs.iter().fold(Vec::new(), |sum, job| {
                diskmeter_stats::merge_series(&sum, &job.series)
            });
            let ramp_ns = result
                .jobs
                .iter()
                .filter_map(|job| ramp_ns(&job.options))
                .max()
                .unwrap_or(0);
            StepBurst {
                step: name.to_string(),
                burst: read_burst(&series, ramp_ns, &tiers),
            }
        })
        .collect()
}

/// A job's `ramp_time`, ns (fio's unit for a bare number: seconds).
fn ramp_ns(options: &[diskmeter_report::JobOption]) -> Option<u64> {
    let option = options.iter().find(|o| o.name == "ramp_time")?;
    diskmeter_units::parse_time_ns(&option.value, diskmeter_units::TimeUnit::Seconds).ok()
}

/// The sweep points whose own series stepped down, one line each (nothing when none did): a
/// bucket that ran dry during a point means the points after it measured the baseline. Points
/// shorter than 9 intervals are not read (an auto-stopped point lasts seconds).
pub fn sweep_lines<'a>(points: impl IntoIterator<Item = (&'a str, &'a RunResult)>) -> String {
    read_steps(points)
        .into_iter()
        .filter_map(|point| match point.burst {
            BurstReading::StepDown(step) => Some(format!(
                "Burst: point {} stepped down at {:.1} s from {} to {} (a bucket of {} ran \
                 dry): the points after it measured the baseline.\n",
                point.step,
                step.step_s,
                rate(step.measure, step.burst.mean),
                rate(step.measure, step.baseline.mean),
                credits(step.measure, step.bucket)
            )),
            _ => None,
        })
        .collect()
}

/// `analyze` of a saved run that is not a sweep: each step's reading as text (a heading
/// naming the run, then each step's), or as JSON (`{"run", "kind", "partial", "steps":
/// [{"step", "burst"}]}`). A partial run (interrupted, stopped on an error, never finished)
/// says so: its series ends where it was cut, and a step is read from the seconds it has.
pub fn of_run(run: &diskmeter_history::StoredRun, json: bool) -> String {
    let steps = read_steps(steps_of(run));
    let summary = &run.summary;
    let partial = summary.partial || summary.unfinished;
    if json {
        let doc = serde_json::json!({
            "run": summary.id, "kind": summary.kind, "partial": partial, "steps": steps,
        });
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        return text;
    }
    let mut out = format!(
        "{} {}: burst buckets in the per-second series (a step down from a burst level to a \
         baseline that stays down; docs/guide/5-rehearse.md, \"Burst signatures\")\n",
        summary.kind, summary.id
    );
    if partial {
        out.push_str(
            "The run is partial (interrupted, stopped on an error or never finished): each \
             step is read from the whole seconds it saved, and a step that ended early may \
             not have reached its bucket's end.\n",
        );
    }
    for step in &steps {
        out.push_str(&format!("\n{}:\n", step.step));
        out.push_str(&reading_lines(&step.burst));
    }
    out
}

fn rate(measure: BurstMeasure, value: f64) -> String {
    match measure {
        BurstMeasure::Iops => format!("{} IOPS", format_thousands(value.round().max(0.0) as u64)),
        BurstMeasure::BytesPerSec => format_rate_binary(value.max(0.0)),
    }
}

fn level(measure: BurstMeasure, level: &Level) -> String {
    let interval = if level.low.is_finite() && level.high.is_finite() {
        format!(
            " (95 % interval {} to {}, {} intervals)",
            rate(measure, level.low),
            rate(measure, level.high),
            level.intervals
        )
    } else {
        format!(" (no interval: {} intervals)", level.intervals)
    };
    format!("{}{interval}", rate(measure, level.mean))
}

fn credits(measure: BurstMeasure, value: f64) -> String {
    match measure {
        BurstMeasure::Iops => format!("{} IOs", format_thousands(value.round().max(0.0) as u64)),
        BurstMeasure::BytesPerSec => {
            diskmeter_units::format_bytes_binary(value.round().max(0.0) as u64)
        }
    }
}

fn tier(measure: BurstMeasure, t: &BurstTierMatch) -> String {
    let bucket = t.bucket_s.map_or_else(
        || "its bucket is not published".to_string(),
        |s| format!("a full bucket lasts {:.0} min", s / 60.0),
    );
    format!(
        "{} ({}): baseline {}, burst {}; {bucket}",
        t.id,
        t.name,
        rate(measure, t.baseline),
        rate(measure, t.burst)
    )
}

/// The lines of one reading.
pub fn reading_lines(reading: &BurstReading) -> String {
    match reading {
        BurstReading::TooShort { intervals } => {
            let side = diskmeter_analysis::burst::MIN_SIDE;
            format!(
                "  not read: {intervals} whole interval(s); a step needs at least {} ({side} \
                 on each side and the one it happens in)\n",
                2 * side + 1
            )
        }
        BurstReading::Level {
            measure,
            level: l,
            run_s,
            burst_of,
        } => {
            let mut out = format!(
                "  no step down over {run_s:.1} s: one level, {}\n",
                level(*measure, l)
            );
            for t in burst_of {
                out.push_str(&format!(
                    "  this level is the burst rate of {}: the run is shorter than that \
                     bucket, so it measured the burst, not the baseline\n",
                    tier(*measure, t)
                ));
            }
            out
        }
        BurstReading::StepDown(step) => {
            let m = step.measure;
            let mut out = format!(
                "  burst {}\n  baseline {}\n  stepped down at {:.2} s +- {:.2} s of the \
                 measured time{}\n  bucket {} ({} to {}): (burst - baseline) x {:.2} s of IO\n",
                level(m, &step.burst),
                level(m, &step.baseline),
                step.step_s,
                step.step_error_s,
                if step.ramp_s > 0.0 {
                    format!(
                        " (after a {:.1} s ramp that spent credits too)",
                        step.ramp_s
                    )
                } else {
                    String::new()
                },
                credits(m, step.bucket),
                credits(m, step.bucket_low),
                credits(m, step.bucket_high),
                step.ramp_s + step.step_s,
            );
            match step.tiers.first() {
                Some(t) => out.push_str(&format!("  matches {}\n", tier(m, t))),
                None => {
                    out.push_str("  matches no catalog tier's burst and baseline (within 10 %)\n")
                }
            }
            out
        }
    }
}
