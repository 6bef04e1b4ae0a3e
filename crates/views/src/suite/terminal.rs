//! A suite as `diskmeter suite` prints it: the heading (target, size, engine), the table
//! ([`super::table`]) with each step's notes, the guide's verdicts with `--expect`, and how
//! the suite ended; the line announcing each step; the list of `--list`; and the JSON
//! document of `--output-format json`.

use super::table;
use diskmeter_report::RunResult;
use diskmeter_suites::expect::{self, Expectation};
use diskmeter_suites::{CacheRole, Suite, SuiteOptions, SUITES};
use diskmeter_units::format_bytes_binary;
use std::fmt::Write;

/// The suite's text: `results[i]` belongs to `suite.steps[i]` (fewer results: the suite
/// stopped early), `expectations` beside the steps they name and, with the `--expect`
/// `profile`, judged under the table ([`expect::judge_steps`]); `saved`: a warm-up was
/// recorded in the history.
pub fn text(
    suite: &Suite,
    options: &SuiteOptions,
    results: &[RunResult],
    expectations: &[Expectation],
    profile: Option<&str>,
    saved: bool,
) -> String {
    let mut text = header(suite, options);
    text.push_str(&table::render(suite, results, expectations));
    text.push('\n');
    text.push_str(&table::step_notes(suite, results));
    if let Some(profile) = profile {
        let _ = writeln!(text, "\nAgainst the guide ({profile}):");
        for judgement in expect::judge_steps(suite, results, expectations, profile) {
            let _ = writeln!(text, "  {}", judgement.line());
        }
    }
    if results.len() < suite.steps.len() {
        let _ = writeln!(
            text,
            "(stopped after {} of {} steps)",
            results.len(),
            suite.steps.len()
        );
    } else if suite.cache == CacheRole::Warms {
        let _ = writeln!(
            text,
            "kept {} warm in the host cache{}",
            suite.read_file.display(),
            if saved {
                " (recorded in the history for this boot)"
            } else {
                ""
            }
        );
    }
    text
}

/// "suite NAME on TARGET (SIZE, ENGINE)", where reads and writes go when elsewhere, and a
/// blank line.
fn header(suite: &Suite, options: &SuiteOptions) -> String {
    let size = options
        .size_bytes
        .map_or_else(|| "the whole device".to_string(), format_bytes_binary);
    let mut text = format!(
        "suite {} on {} ({size}, {})\n",
        suite.name,
        options.target.display(),
        if options.ioengine == "null" {
            "null engine: no IO".to_string()
        } else {
            format!("direct IO, {}", options.ioengine)
        }
    );
    for (what, path) in [
        ("reads", &options.read_target),
        ("writes", &options.write_target),
    ] {
        if let Some(path) = path {
            let _ = writeln!(text, "{what} on {}", path.display());
        }
    }
    text.push('\n');
    text
}

/// The line announcing step `index` (0-based) of `total` of suite `name`: "suite quick:
/// step 2/10: SEQ1M Q8T1 write".
pub fn step_line(name: &str, index: usize, total: usize, step: &str) -> String {
    format!("suite {name}: step {}/{total}: {step}", index + 1)
}

/// Every suite with its steps, for `diskmeter suite --list`.
pub fn list() -> String {
    let mut text = String::new();
    for suite in SUITES {
        let _ = writeln!(text, "{}: {}", suite.name, suite.description);
        for line in suite.step_lines() {
            let _ = writeln!(text, "    {line}");
        }
    }
    text
}

/// The JSON document of a suite: its name and every step that ran (`(name, result)`) with
/// its full result.
pub fn json<'a>(name: &str, steps: impl Iterator<Item = (&'a str, &'a RunResult)>) -> String {
    let steps: Vec<serde_json::Value> = steps
        .map(|(step, result)| {
            serde_json::json!({
                "step": step,
                // Why the step must not be read as whole (interrupted, failed); null if whole.
                "partial": result.partial_reason(),
                "result": serde_json::from_str::<serde_json::Value>(&diskmeter_report::to_json(result))
                    .unwrap_or_default(),
            })
        })
        .collect();
    let doc = serde_json::json!({ "suite": name, "steps": steps });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
