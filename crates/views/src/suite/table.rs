//! A suite's results as one glanceable table, drawn by [`crate::text`]: CrystalDiskMark's
//! read/write rows, the guides' size x pattern matrix, or one row per step. Figures are the measured ones from each
//! step's result; nothing is estimated. A partial step (interrupted or failed:
//! [`RunResult::partial_reason`]) shows no figures, only "partial", and its note says why:
//! part of a step is not the step's figure.

use crate::text::TextTable;
use diskmeter_report::{RunResult, StepFigures};
use diskmeter_suites::expect::Expectation;
use diskmeter_suites::{Layout, Suite};
use diskmeter_units::{format_thousands, MIB_F64};

fn mib(bytes_per_sec: f64) -> String {
    format!("{:.2}", bytes_per_sec / MIB_F64)
}

fn iops(value: f64) -> String {
    if value >= 100.0 {
        format_thousands(value.round() as u64)
    } else {
        format!("{value:.2}")
    }
}

fn latency(ns: f64) -> String {
    match ns {
        ns if ns <= 0.0 => "-".to_string(),
        ns => diskmeter_units::format_duration(ns),
    }
}

fn new_table(header: Vec<&str>) -> TextTable {
    TextTable::new(header)
}

/// Right-aligns every column but the first (the row's name).
fn align_numbers(table: &mut TextTable, columns: usize) {
    table.align_right(1..columns);
}

/// The suite's table from each step's result (`results[i]` belongs to `suite.steps[i]`;
/// missing results, e.g. after Ctrl-C, leave their cells empty), with `expectations`
/// beside the steps they name.
pub fn render(suite: &Suite, results: &[RunResult], expectations: &[Expectation]) -> String {
    let figures: Vec<Option<StepFigures>> = (0..suite.steps.len())
        .map(|i| {
            results
                .get(i)
                .filter(|r| !r.is_partial())
                .map(StepFigures::of)
        })
        .collect();
    let gaps: Vec<&str> = (0..suite.steps.len())
        .map(
            |i| match results.get(i).is_some_and(RunResult::is_partial) {
                true => PARTIAL,
                false => "",
            },
        )
        .collect();
    let table = match suite.layout {
        Layout::ReadWriteRows => read_write_rows(suite, &figures, &gaps),
        Layout::Matrix => matrix(suite, &figures, &gaps),
        Layout::Steps => steps(suite, &figures, &gaps, expectations),
    };
    format!("{}\n", table)
}

/// What a partial step's cells say instead of its figures.
const PARTIAL: &str = "partial";

/// `gaps[i]`: what step i's cells say when it has no figures ("partial", or nothing when it
/// never ran).
fn read_write_rows(suite: &Suite, figures: &[Option<StepFigures>], gaps: &[&str]) -> TextTable {
    let mut table = new_table(vec![
        "test",
        "read MiB/s",
        "read IOPS",
        "read lat",
        "write MiB/s",
        "write IOPS",
        "write lat",
    ]);
    let mut rows: Vec<&str> = Vec::new();
    for step in &suite.steps {
        if !rows.contains(&step.row.as_str()) {
            rows.push(&step.row);
        }
    }
    for row in rows {
        let mut cells = vec![row.to_string()];
        for column in ["read", "write"] {
            let index = suite
                .steps
                .iter()
                .position(|s| s.row == row && s.column == column);
            let gap = index.map_or("", |i| gaps[i]).to_string();
            match index.and_then(|i| figures[i]) {
                Some(f) if column == "read" => cells.extend([
                    mib(f.read_bytes_per_sec),
                    iops(f.read_iops),
                    latency(f.read_lat_mean_ns),
                ]),
                Some(f) => cells.extend([
                    mib(f.write_bytes_per_sec),
                    iops(f.write_iops),
                    latency(f.write_lat_mean_ns),
                ]),
                None => cells.extend([gap.clone(), gap.clone(), gap]),
            }
        }
        table.row(cells);
    }
    align_numbers(&mut table, 7);
    table
}

fn matrix(suite: &Suite, figures: &[Option<StepFigures>], gaps: &[&str]) -> TextTable {
    let columns = ["seq read", "seq write", "random read", "random write"];
    let mut header = vec!["IO size"];
    header.extend(columns);
    let mut table = new_table(header);
    let mut rows: Vec<&str> = Vec::new();
    for step in &suite.steps {
        if !rows.contains(&step.row.as_str()) {
            rows.push(&step.row);
        }
    }
    for row in rows {
        let mut cells = vec![row.to_string()];
        for column in columns {
            let index = suite
                .steps
                .iter()
                .position(|s| s.row == row && s.column == column);
            let cell = index
                .and_then(|i| figures[i])
                .map(|f| {
                    let (bw, io) = if column.ends_with("read") {
                        (f.read_bytes_per_sec, f.read_iops)
                    } else {
                        (f.write_bytes_per_sec, f.write_iops)
                    };
                    format!("{} MiB/s, {} IOPS", mib(bw), iops(io))
                })
                .unwrap_or_else(|| index.map_or("", |i| gaps[i]).to_string());
            cells.push(cell);
        }
        table.row(cells);
    }
    align_numbers(&mut table, 5);
    table
}

/// One row per step. When a step reads and writes at once (the guides' mixed scenarios),
/// the table also shows the combined IOPS and MiB/s, as the guides report them ("100,000+
/// IOPS", "1,000 MiB/s combined").
fn steps(
    suite: &Suite,
    figures: &[Option<StepFigures>],
    gaps: &[&str],
    expectations: &[Expectation],
) -> TextTable {
    let mixed = figures
        .iter()
        .flatten()
        .any(|f| f.read_iops > 0.0 && f.write_iops > 0.0)
        || suite.steps.iter().any(|s| s.column == "mixed");
    let mut header = vec![
        "step",
        "read IOPS",
        "read MiB/s",
        "read lat",
        "write IOPS",
        "write MiB/s",
        "write lat",
    ];
    if mixed {
        header.push("total IOPS");
        header.push("total MiB/s");
    }
    if !expectations.is_empty() {
        header.push("guide expects");
        header.push("measured / expected");
    }
    let columns = header.len();
    let mut table = new_table(header);
    let or_dash = |value: f64, text: String| if value > 0.0 { text } else { "-".into() };
    for ((step, f), gap) in suite.steps.iter().zip(figures).zip(gaps) {
        let mut cells = vec![step.name.clone()];
        match f {
            Some(f) => {
                cells.extend([
                    or_dash(f.read_iops, iops(f.read_iops)),
                    or_dash(f.read_iops, mib(f.read_bytes_per_sec)),
                    latency(f.read_lat_mean_ns),
                    or_dash(f.write_iops, iops(f.write_iops)),
                    or_dash(f.write_iops, mib(f.write_bytes_per_sec)),
                    latency(f.write_lat_mean_ns),
                ]);
                if mixed {
                    let total_iops = f.read_iops + f.write_iops;
                    cells.push(or_dash(total_iops, iops(total_iops)));
                    cells.push(or_dash(
                        total_iops,
                        mib(f.read_bytes_per_sec + f.write_bytes_per_sec),
                    ));
                }
            }
            None => cells.extend(vec![gap.to_string(); if mixed { 8 } else { 6 }]),
        }
        if !expectations.is_empty() {
            match expectations.iter().find(|e| e.step == step.name) {
                Some(e) => {
                    cells.push(e.text.to_string());
                    cells.push(f.map(|f| e.judge(&f)).unwrap_or_default());
                }
                None => cells.extend([String::new(), String::new()]),
            }
        }
        table.row(cells);
    }
    align_numbers(&mut table, columns);
    table
}

/// One line per step on how it ended: steady after N s (auto-stop) or not within its
/// runtime, and the 95 % interval of its mean IOPS from the per-second samples; for a
/// partial step, why it is partial and that it was left out (no steady state or interval
/// is stated from part of a step).
pub fn step_notes(suite: &Suite, results: &[RunResult]) -> String {
    let mut text = String::new();
    for (step, result) in suite.steps.iter().zip(results) {
        if let Some(reason) = result.partial_reason() {
            text.push_str(&format!(
                "  {}: partial, left out of the table: {reason}\n",
                step.name
            ));
            continue;
        }
        let mut parts = Vec::new();
        for job in &result.jobs {
            if let Some(ss) = &job.steady_state {
                parts.push(match ss.attained_at_ns {
                    Some(ns) if ss.attained => format!("steady after {:.0} s", ns as f64 / 1e9),
                    _ => format!("not steady within {:.0} s", job.runtime_ns as f64 / 1e9),
                });
            }
            let ci = &job.iops_mean_ci;
            parts.push(match ci.half_width {
                Some(h) if ci.mean > 0.0 => format!(
                    "IOPS {} +- {:.1} % (95 %, {} s)",
                    iops(ci.mean),
                    h / ci.mean * 100.0,
                    ci.samples
                ),
                _ => format!(
                    "IOPS {} ({} s: too few seconds for an interval)",
                    iops(ci.mean),
                    ci.samples
                ),
            });
        }
        parts.dedup();
        text.push_str(&format!("  {}: {}\n", step.name, parts.join("; ")));
    }
    text
}
