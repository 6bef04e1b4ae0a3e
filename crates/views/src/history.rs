//! The terminal and CSV forms of the history's commands: the run listing (`diskmeter
//! history`), one run (`diskmeter show`), a comparison of two runs (`diskmeter compare`) and
//! the CSV of `diskmeter export`. The CLI reads the history and writes what these return.

use crate::text::TextTable;
use diskmeter_analysis::compare::Comparison;
use diskmeter_history::{RunSummary, StoredRun};
use diskmeter_report::format::utc_timestamp;
use diskmeter_report::{JobResult, LatencyClock, RunResult};
use diskmeter_units::{format_iops, format_rate_binary};
use std::fmt::Write;

/// How a run ended, for listings: "" when it finished whole.
pub fn run_state(run: &RunSummary) -> &'static str {
    if run.unfinished {
        " (unfinished)"
    } else if run.partial {
        " (interrupted)"
    } else {
        ""
    }
}

/// `diskmeter history`: a row per run, or a line saying none matched.
pub fn listing_text(runs: &[RunSummary]) -> String {
    if runs.is_empty() {
        return "no runs match\n".to_string();
    }
    let mut table = TextTable::new(["id", "started", "kind", "name", "target", "steps", "result"]);
    for run in runs {
        table.row([
            run.id.to_string(),
            utc_timestamp(run.started_unix_ms),
            run.kind.clone(),
            run.name.clone(),
            run.target.clone(),
            run.steps.to_string(),
            format!("{}{}", run.summary, run_state(run)),
        ]);
    }
    format!("{table}\n")
}

/// `diskmeter show`: the run, its host and command line, a row per step, which steps are
/// partial and, with `full`, every step's full report.
pub fn show_text(run: &StoredRun, full: bool) -> String {
    let s = &run.summary;
    let mut text = String::new();
    let _ = writeln!(text, "run {}: {} {} on {}", s.id, s.kind, s.name, s.target);
    let _ = writeln!(
        text,
        "started {}, took {:.1} s{}; diskmeter {} on {}",
        utc_timestamp(s.started_unix_ms),
        s.finished_unix_ms.saturating_sub(s.started_unix_ms) as f64 / 1000.0,
        if s.unfinished {
            ", unfinished (begun but never finished: still running, or its process ended; the steps it finished are kept)"
        } else if s.partial {
            ", interrupted (partial)"
        } else {
            ""
        },
        s.diskmeter_version,
        s.hostname
    );
    if let Some(host) = &run.host {
        let _ = writeln!(text, "host: {}", host.one_line());
    }
    let _ = writeln!(text, "command: {}\n", s.command_line);
    // The headline first (of the step, or a card per step), then the detail.
    let headline = match run.steps.as_slice() {
        [one] => crate::headline::Headline::of(&one.result),
        steps => {
            crate::headline::Headline::of_steps(steps.iter().map(|s| (s.name.as_str(), &s.result)))
        }
    };
    if !run.steps.is_empty() {
        let _ = writeln!(text, "{}", headline.text());
    }
    text.push_str(&steps_table(run));
    text.push('\n');
    for step in run.steps.iter() {
        if let Some(reason) = step.result.partial_reason() {
            let _ = writeln!(text, "{} is partial: {reason}", step.name);
        }
    }
    if full {
        for step in &run.steps {
            let _ = writeln!(text, "\n## {}\n", step.name);
            text.push_str(&diskmeter_report::render_terminal(&step.result));
        }
    }
    text
}

/// A row per step: IOPS and MiB/s per direction, mean and p99 latency, steady state.
fn steps_table(run: &StoredRun) -> String {
    let mut table = TextTable::new([
        "step",
        "read IOPS",
        "read bandwidth",
        "write IOPS",
        "write bandwidth",
        "mean lat",
        "p99 lat",
        "steady",
    ]);
    for step in &run.steps {
        let r = &step.result;
        let sum = |f: &dyn Fn(&JobResult) -> f64| -> f64 { r.jobs.iter().map(f).sum() };
        // On the intended clock for a paced or replayed step, marked so.
        let latency = r.headline_latency();
        let mark = match latency.clock {
            LatencyClock::Issue => "",
            LatencyClock::Intended => " (intended)",
        };
        let us = |ns: f64| format!("{}{mark}", diskmeter_units::format_duration(ns));
        let (mean, p99) = if latency.unknown {
            ("not known".to_string(), "not known".to_string())
        } else {
            (
                us(latency.mean_ns.unwrap_or(0.0)),
                latency.p99_ns.map_or("-".to_string(), |ns| us(ns as f64)),
            )
        };
        let steady = r
            .jobs
            .iter()
            .filter_map(|j| j.steady_state.as_ref())
            .map(|ss| match ss.attained_at_ns {
                Some(ns) => format!("after {:.0} s", ns as f64 / 1e9),
                None => "not reached".to_string(),
            })
            .next()
            .unwrap_or_else(|| "-".to_string());
        table.row([
            // Part of a step is not the step's figure: marked, as every view marks it.
            match r.is_partial() {
                true => format!("{} (partial)", step.name),
                false => step.name.clone(),
            },
            format_iops(sum(&|j| j.read.iops)),
            format_rate_binary(sum(&|j| j.read.bw_bytes_per_sec)),
            format_iops(sum(&|j| j.write.iops)),
            format_rate_binary(sum(&|j| j.write.bw_bytes_per_sec)),
            mean,
            p99,
            steady,
        ]);
    }
    table.to_string()
}

/// The steps of a run by name, as [`diskmeter_analysis::compare::compare_runs`] takes them.
pub fn step_refs(run: &StoredRun) -> Vec<(String, &RunResult)> {
    run.steps
        .iter()
        .map(|s| (s.name.clone(), &s.result))
        .collect()
}

/// `compare --format json`: both runs' summaries, the comparison and its count of
/// regressions.
pub fn comparison_json(a: &StoredRun, b: &StoredRun, c: &Comparison) -> serde_json::Result<String> {
    let document = serde_json::json!({
        "baseline": a.summary,
        "candidate": b.summary,
        "comparison": c,
        "regressions": c.regressions(),
    });
    Ok(serde_json::to_string_pretty(&document)? + "\n")
}

/// `diskmeter compare`: both runs, a row per step and metric with its verdict, the notes,
/// the method and the count of regressions.
pub fn comparison_text(a: &StoredRun, b: &StoredRun, c: &Comparison) -> String {
    let mut text = String::new();
    for (label, run) in [("A", a), ("B", b)] {
        let s = &run.summary;
        let _ = writeln!(
            text,
            "{label}: run {} ({} {} on {}, {})",
            s.id,
            s.kind,
            s.name,
            s.target,
            utc_timestamp(s.started_unix_ms)
        );
    }
    text.push('\n');
    let mut table = TextTable::new(["step", "metric", "A", "B", "change", "verdict"]);
    for m in &c.metrics {
        table.row([
            m.step.clone(),
            m.metric.clone(),
            m.format_value(m.baseline),
            m.format_value(m.candidate),
            m.format_change(),
            m.verdict_text(),
        ]);
    }
    let _ = writeln!(text, "{table}\n");
    for (which, names) in [("A", &c.only_in_baseline), ("B", &c.only_in_candidate)] {
        if !names.is_empty() {
            let _ = writeln!(text, "only in {which}: {}", names.join(", "));
        }
    }
    for note in &c.notes {
        let _ = writeln!(text, "{note}");
    }
    let _ = writeln!(text, "{}", c.method_text());
    let _ = writeln!(
        text,
        "{} regression{}",
        c.regressions(),
        if c.regressions() == 1 { "" } else { "s" }
    );
    text
}

/// The CSV columns, one row per step, reported job and direction that did IO.
const CSV_HEADER: &str = "run_id,step,job,direction,ios,bytes,runtime_ns,iops,bw_bytes_per_sec,lat_mean_ns,lat_stddev_ns,lat_min_ns,lat_max_ns,clat_p50_ns,clat_p90_ns,clat_p99_ns,clat_p99_9_ns,clat_p99_99_ns";

/// `diskmeter export --format csv`: one row per step, job and direction that did IO.
pub fn csv(run: &StoredRun) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for step in &run.steps {
        for job in &step.result.jobs {
            for (label, d) in [("read", &job.read), ("write", &job.write)] {
                if d.ios == 0 {
                    continue;
                }
                let p = |percent: f64| {
                    d.clat
                        .percentiles
                        .iter()
                        .find(|x| (x.percent - percent).abs() < 1e-9)
                        .map_or(String::new(), |x| x.value_ns.to_string())
                };
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{:.3},{:.3},{:.1},{:.1},{},{},{},{},{},{},{}",
                    run.summary.id,
                    csv_field(&step.name),
                    csv_field(&job.name),
                    label,
                    d.ios,
                    d.bytes,
                    d.runtime_ns,
                    d.iops,
                    d.bw_bytes_per_sec,
                    d.lat.mean_ns,
                    d.lat.stddev_ns,
                    d.lat.min_ns,
                    d.lat.max_ns,
                    p(50.0),
                    p(90.0),
                    p(99.0),
                    p(99.9),
                    p(99.99)
                );
            }
        }
    }
    out
}

/// RFC 4180 quoting when needed.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("SEQ1M Q8T1 read"), "SEQ1M Q8T1 read");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn listings_say_whether_a_run_was_interrupted_or_never_finished() {
        let mut run = RunSummary {
            id: 1,
            kind: "suite".into(),
            name: "quick".into(),
            target: "/x".into(),
            started_unix_ms: 0,
            finished_unix_ms: 0,
            partial: false,
            unfinished: false,
            diskmeter_version: "0.1.0".into(),
            hostname: "h".into(),
            command_line: String::new(),
            steps: 3,
            summary: String::new(),
        };
        assert_eq!(run_state(&run), "");
        run.partial = true;
        assert_eq!(run_state(&run), " (interrupted)");
        run.unfinished = true;
        assert_eq!(run_state(&run), " (unfinished)");
    }
}
