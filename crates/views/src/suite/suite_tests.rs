//! The suite view on a suite saved into a real history: its table links to a child per
//! step, its bar charts compare the steps, and every step has the charts of a run.

use crate::tests::{assert_charts_drawable, assert_unique_ids, save_suite, Fixture, SUITE_STEPS};
use crate::{section, ChartStyle, Item, SectionKind};

#[test]
fn a_suite_shows_its_steps_table_bar_charts_and_a_child_per_step() {
    let mut fixture = Fixture::new();
    let id = save_suite(&mut fixture);
    let suite = section(&fixture.store, Item::Run(id)).unwrap();
    assert_eq!(suite.kind, SectionKind::Suite);
    assert_eq!(suite.title, format!("Suite {id}: crystal-quick"));
    let table = &suite.tables[0];
    assert_eq!(table.columns.len(), 8);
    assert_eq!(table.rows.len(), 3);
    for (position, row) in table.rows.iter().enumerate() {
        assert_eq!(row.len(), table.columns.len());
        assert_eq!(row[0].text, SUITE_STEPS[position]);
        let link = format!("#run-{id}-step-{position}");
        assert_eq!(row[0].link.as_deref(), Some(link.as_str()));
        assert_eq!(suite.children[position].anchor, link[1..]);
    }
    // The write step read nothing: "-", not 0.
    assert_eq!(table.rows[2][1].text, "-");
    assert!(table.rows[2][3].numeric);
    let kinds: Vec<&str> = suite.charts.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["suite-iops", "suite-bandwidth", "suite-latency"]);
    for chart in &suite.charts {
        assert_eq!(chart.style, ChartStyle::Bars);
        assert_eq!(chart.x.categories, SUITE_STEPS);
    }
    let iops_labels: Vec<&str> = suite.charts[0]
        .series
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(iops_labels, ["read", "write"]);
    let latency_labels: Vec<&str> = suite.charts[2]
        .series
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(latency_labels, ["mean latency", "p99"]);
    for child in &suite.children {
        assert_eq!(child.kind, SectionKind::Step);
        let kinds: Vec<&str> = child.charts.iter().map(|c| c.kind.as_str()).collect();
        assert_eq!(
            kinds,
            ["iops", "bandwidth", "latency", "percentiles", "histogram"],
            "{}",
            child.anchor
        );
        assert!(child.code.iter().any(|c| c.title == "Job file"));
        assert!(child.headline.is_some());
    }
    assert_charts_drawable(&suite);
    assert_unique_ids(std::slice::from_ref(&suite));
}

#[test]
fn a_suite_step_without_steady_state_shows_no_steady_state() {
    let mut fixture = Fixture::new();
    let id = save_suite(&mut fixture);
    let suite = section(&fixture.store, Item::Run(id)).unwrap();
    assert_eq!(suite.tables[0].rows[0][7].text, "-");
    for child in &suite.children {
        assert!(child.facts.iter().all(|g| g.title != "Steady state"));
        assert!(child.facts.iter().any(|g| g.title == "CPU"));
    }
    // The run-level facts are the suite's, not repeated in each step.
    assert!(suite.facts.iter().any(|g| g.title == "Summary"));
    assert!(suite
        .children
        .iter()
        .all(|c| c.facts.iter().all(|g| g.title != "Summary")));
}
