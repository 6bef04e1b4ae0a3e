//! Finding a chart in a built view: every chart of a section and its children, with the
//! step each belongs to (`diskmeter chart` picks one by kind and step, `--list` lists them).

use crate::{ChartSpec, Section};
use std::collections::BTreeSet;

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
