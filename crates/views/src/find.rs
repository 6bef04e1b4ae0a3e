//! Finding a chart in a built view: every chart of a section and its children, with the
//! step each belongs to (`diskmeter chart` picks one by kind and step, `--list` lists them:
//! [`RunCharts`]).

use crate::{ChartSpec, Section};
use diskmeter_history::StoredRun;
use std::collections::BTreeSet;
use std::fmt::Write;
use thiserror::Error;

/// Why `diskmeter chart` has no chart to write.
#[derive(Debug, Error)]
pub enum FindError {
    /// `--step` names no step of the run.
    #[error("run {run} has no step '{text}'; its steps: {steps}")]
    NoSuchStep {
        /// The run.
        run: i64,
        /// The step as given.
        text: String,
        /// Its steps: "0 (name), 1 (name)".
        steps: String,
    },
    /// The run (or step) has no chart at all.
    #[error("{whose} has no charts")]
    NoCharts {
        /// "run 12" or "run 12 step 1".
        whose: String,
    },
    /// The run (or step) has no chart of the kind asked.
    #[error("{whose} has no chart of kind '{kind}'; its kinds: {kinds}")]
    NoSuchKind {
        /// "run 12" or "run 12 step 1".
        whose: String,
        /// The kind asked.
        kind: String,
        /// The kinds it has.
        kinds: String,
    },
}

/// The charts of a run, or of one of its steps.
pub struct RunCharts<'a> {
    /// "run 12" or "run 12 step 1".
    pub whose: String,
    /// The charts.
    pub found: Vec<FoundChart<'a>>,
    /// The run's step names, by position.
    names: Vec<&'a str>,
}

impl<'a> RunCharts<'a> {
    /// The charts of `run`'s `section`, of step `step` (a position, or a step's name: exactly,
    /// else ignoring case) when one is given.
    pub fn of(
        run: &'a StoredRun,
        section: &'a Section,
        step: Option<&str>,
    ) -> Result<Self, FindError> {
        let names: Vec<&str> = run.steps.iter().map(|s| s.name.as_str()).collect();
        let mut found = charts_of(section);
        let step = step.map(|text| pick_step(run, &names, text)).transpose()?;
        // A one-step run's charts are the run's own: its step 0 is the run.
        let one_step = names.len() == 1 && found.iter().all(|f| f.step.is_none());
        if let (Some(step), false) = (step, one_step) {
            found.retain(|f| f.step == Some(step));
        }
        let id = run.summary.id;
        let whose = match step {
            Some(step) => format!("run {id} step {step}"),
            None => format!("run {id}"),
        };
        Ok(RunCharts {
            whose,
            found,
            names,
        })
    }

    /// `--list`: one chart a line, its kind, step position (`-` for the run's own) and title
    /// after the step's name.
    pub fn list(&self) -> String {
        let mut text = String::new();
        for f in &self.found {
            let step = f.step.and_then(|s| self.names.get(s as usize));
            let step_name = step.map(|s| format!("{s}: ")).unwrap_or_default();
            let (kind, position) = (&f.chart.kind, step_text(f.step));
            let _ = writeln!(
                text,
                "{kind:<20} {position:<4} {step_name}{}",
                f.chart.title
            );
        }
        text
    }

    /// The charts of `kind`, at least one.
    pub fn of_kind(&self, kind: &str) -> Result<Vec<&FoundChart<'a>>, FindError> {
        let matching: Vec<&FoundChart> =
            self.found.iter().filter(|f| f.chart.kind == kind).collect();
        if matching.is_empty() {
            let whose = self.whose.clone();
            return Err(match self.found.is_empty() {
                true => FindError::NoCharts { whose },
                false => FindError::NoSuchKind {
                    whose,
                    kind: kind.to_string(),
                    kinds: kinds(&self.found),
                },
            });
        }
        Ok(matching)
    }

    /// The note when several charts are of `kind` and the first of `matching` is written.
    pub fn several_note(&self, kind: &str, matching: &[&FoundChart]) -> Option<String> {
        let steps: Vec<String> = matching.iter().map(|f| step_text(f.step)).collect();
        (matching.len() > 1).then(|| {
            format!(
                "{} has {} charts of kind '{kind}' (steps {}); wrote the first (step {}); --step N|NAME picks another",
                self.whose,
                matching.len(),
                steps.join(", "),
                step_text(matching[0].step)
            )
        })
    }
}

/// The position of the step `text` names among `names`.
fn pick_step(run: &StoredRun, names: &[&str], text: &str) -> Result<u32, FindError> {
    let position = match text.parse::<u32>() {
        Ok(n) if (n as usize) < names.len() => Some(n),
        Ok(_) => None,
        Err(_) => names
            .iter()
            .position(|n| *n == text)
            .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(text)))
            .map(|p| p as u32),
    };
    position.ok_or_else(|| {
        let steps: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i} ({n})"))
            .collect();
        FindError::NoSuchStep {
            run: run.summary.id,
            text: text.to_string(),
            steps: steps.join(", "),
        }
    })
}

fn step_text(step: Option<u32>) -> String {
    step.map_or_else(|| "-".to_string(), |s| s.to_string())
}

/// A chart of a run's section, with the step it belongs to.
#[derive(Debug, Clone, Copy)]
pub struct FoundChart<'a> {
    /// The chart.
    pub chart: &'a ChartSpec,
    /// The step's position, `None` for the run's own charts.
    pub step: Option<u32>,
}

/// The step position a section's anchor names (`run-12-step-3`), if any.
fn step_of(anchor: &str) -> Option<u32> {
    anchor.rsplit_once("-step-")?.1.parse().ok()
}

/// Every chart of `section` and its children, depth first.
pub fn charts_of(section: &Section) -> Vec<FoundChart<'_>> {
    let mut found = Vec::new();
    collect(section, None, &mut found);
    found
}

fn collect<'a>(section: &'a Section, step: Option<u32>, found: &mut Vec<FoundChart<'a>>) {
    let step = step_of(&section.anchor).or(step);
    found.extend(
        section
            .charts
            .iter()
            .map(|chart| FoundChart { chart, step }),
    );
    for child in &section.children {
        collect(child, step, found);
    }
}

/// The kinds of `found`, sorted, each once, joined by ", ".
pub fn kinds(found: &[FoundChart]) -> String {
    let kinds: BTreeSet<&str> = found.iter().map(|f| f.chart.kind.as_str()).collect();
    kinds.into_iter().collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Axis, ChartStyle, SectionKind};

    fn chart(kind: &str) -> ChartSpec {
        ChartSpec {
            id: kind.into(),
            kind: kind.into(),
            title: kind.into(),
            style: ChartStyle::Lines,
            x: Axis::linear("x"),
            y: Axis::linear("y"),
            series: Vec::new(),
        }
    }

    #[test]
    fn charts_are_found_in_the_run_and_its_steps_with_their_step_position() {
        let mut suite = Section::new("run-4", "Run 4", SectionKind::Suite);
        suite.charts.push(chart("suite-iops"));
        for position in 0..2 {
            let mut step = Section::new(
                format!("run-4-step-{position}"),
                format!("Step {position}"),
                SectionKind::Step,
            );
            step.charts.push(chart("iops"));
            suite.children.push(step);
        }
        let found = charts_of(&suite);
        let listed: Vec<(&str, Option<u32>)> = found
            .iter()
            .map(|f| (f.chart.kind.as_str(), f.step))
            .collect();
        assert_eq!(
            listed,
            [("suite-iops", None), ("iops", Some(0)), ("iops", Some(1))]
        );
        assert_eq!(kinds(&found), "iops, suite-iops");
        assert_eq!(step_of("run-12-step-10"), Some(10));
        assert_eq!(step_of("compare-1-2"), None);
    }
}
