//! The charts of a comparison: each metric of run B as a percentage of run A (`compare`),
//! and both runs' per-second IOPS overlaid (`compare-iops`).

use crate::{Axis, ChartSpec, ChartStyle, Scale, SeriesSpec};
use diskmeter_analysis::compare::Comparison;
use diskmeter_history::StoredRun;
use diskmeter_stats::IntervalSample;

/// Bars per metric: run A at 100 %, run B at its value as a percentage of A's. Percentages
/// put IOPS, MiB/s and latency on one scale; the table has the values themselves. A metric
/// whose baseline is 0 has no percentage: a gap.
pub(crate) fn relative_chart(anchor: &str, c: &Comparison) -> ChartSpec {
    let one_step = c.metrics.iter().all(|m| m.step == c.metrics[0].step);
    let categories: Vec<String> = c
        .metrics
        .iter()
        .map(|m| {
            if one_step {
                m.metric.clone()
            } else {
                format!("{}: {}", m.step, m.metric)
            }
        })
        .collect();
    let x: Vec<f64> = (0..c.metrics.len()).map(|i| i as f64).collect();
    let relative = |value: f64, baseline: f64| {
        let percent = value / baseline * 100.0;
        (baseline != 0.0 && percent.is_finite()).then_some(percent)
    };
    ChartSpec {
        id: format!("{anchor}-compare"),
        kind: "compare".to_string(),
        title: "Run B as a percentage of run A, per metric (above 100 %: more IOPS or MiB/s, \
                or more latency)"
            .to_string(),
        style: ChartStyle::Bars,
        x: Axis {
            label: "metric".to_string(),
            scale: Scale::Linear,
            categories,
        },
        y: Axis::linear("percent of run A's value"),
        series: vec![
            SeriesSpec {
                label: "A (baseline)".to_string(),
                x: x.clone(),
                y: c.metrics
                    .iter()
                    .map(|m| relative(m.baseline, m.baseline))
                    .collect(),
            },
            SeriesSpec {
                label: "B (candidate)".to_string(),
                x,
                y: c.metrics
                    .iter()
                    .map(|m| relative(m.candidate, m.baseline))
                    .collect(),
            },
        ],
    }
}

/// The steps both runs have, in the baseline's order.
fn matched_steps(c: &Comparison) -> Vec<&str> {
    let mut steps: Vec<&str> = Vec::new();
    for m in &c.metrics {
        if !steps.contains(&m.step.as_str()) {
            steps.push(&m.step);
        }
    }
    steps
}

fn series_of(run: &StoredRun, step: &str) -> Vec<IntervalSample> {
    run.steps
        .iter()
        .find(|s| s.name == step)
        .map(|s| crate::charted_intervals(&s.series()).to_vec())
        .unwrap_or_default()
}

/// Both runs' IOPS (reads and writes) per second, each point at the end of its interval.
/// The matched steps follow one another on one time axis, each starting a second after the
/// longer of its two runs ended, with a gap between steps so no line joins two of them.
pub(crate) fn iops_chart(anchor: &str, a: &StoredRun, b: &StoredRun, c: &Comparison) -> ChartSpec {
    let mut lines = [
        SeriesSpec {
            label: format!("A: run {}", a.summary.id),
            x: Vec::new(),
            y: Vec::new(),
        },
        SeriesSpec {
            label: format!("B: run {}", b.summary.id),
            x: Vec::new(),
            y: Vec::new(),
        },
    ];
    let mut offset_ms = 0u64;
    let steps = matched_steps(c);
    for (index, step) in steps.iter().enumerate() {
        let mut longest_ms = 0u64;
        for (line, run) in lines.iter_mut().zip([a, b]) {
            let series = series_of(run, step);
            for sample in &series {
                let end_ms = sample.start_ms + sample.duration_ms;
                longest_ms = longest_ms.max(end_ms);
                let iops = sample.read.iops + sample.write.iops;
                line.x.push((offset_ms + end_ms) as f64 / 1000.0);
                line.y.push(iops.is_finite().then_some(iops));
            }
        }
        offset_ms += longest_ms;
        if index + 1 < steps.len() {
            // Half a second after the step's end, a gap; the next step starts a second later.
            for line in &mut lines {
                line.x.push((offset_ms + 500) as f64 / 1000.0);
                line.y.push(None);
            }
            offset_ms += 1000;
        }
    }
    ChartSpec {
        id: format!("{anchor}-compare-iops"),
        kind: "compare-iops".to_string(),
        title: if steps.len() == 1 {
            "IOPS per second, both runs".to_string()
        } else {
            format!(
                "IOPS per second, both runs: {} one after another",
                steps.join(", ")
            )
        },
        style: ChartStyle::Lines,
        x: Axis::linear("time (s)"),
        y: Axis::linear("IOPS"),
        series: lines.into(),
    }
}
