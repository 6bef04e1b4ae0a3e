//! The comparison section against runs saved in a temporary history: one row per metric
//! with the verdict `diskmeter compare` gives, the noise floor and threshold stated, and
//! two drawable charts.

use crate::sweep::tests::assert_drawable;
use crate::tests::{
    new_run, save_plain_run, save_suite, save_sweep, step, Fixture, Load, STARTED_UNIX_MS,
};
use crate::{section, Item, SectionKind, Tone, ViewError};
use diskmeter_analysis::compare::{compare_runs, CompareOptions, Outcome};
use diskmeter_history::StoredRun;
use diskmeter_report::RunResult;
use diskmeter_workload::RwMode;

/// The plain run's workload again, with reads at `read_iops` and latency `base_clat_ns`.
fn save_mixed(fixture: &mut Fixture, read_iops: u64, base_clat_ns: u64) -> i64 {
    let load = Load {
        job: "mixed",
        rw: RwMode::RandRw,
        bs_bytes: 4096,
        iodepth: 16,
        numjobs: 2,
        read_iops,
        write_iops: 1_200,
        seconds: 6,
        base_clat_ns,
        steady: true,
    };
    let step = step("mixed", &load, STARTED_UNIX_MS + 60_000);
    fixture.save(&new_run("run", "mixed", "diskmeter run ...", vec![step]))
}

fn steps(run: &StoredRun) -> Vec<(String, &RunResult)> {
    run.steps
        .iter()
        .map(|s| (s.name.clone(), &s.result))
        .collect()
}

fn compare(baseline: i64, candidate: i64) -> Item {
    Item::Compare {
        baseline,
        candidate,
        options: CompareOptions::default(),
    }
}

#[test]
fn the_compare_table_has_a_row_per_metric_with_its_verdict_and_states_the_noise_floor() {
    let mut fixture = Fixture::new();
    let a = save_plain_run(&mut fixture);
    let b = save_mixed(&mut fixture, 1_400, 180_000);
    let section = section(&fixture.store, compare(a, b)).unwrap();
    assert_eq!(section.kind, SectionKind::Compare);
    assert_eq!(section.anchor, format!("compare-{a}-{b}"));
    // What `diskmeter compare` decides from the same history.
    let (run_a, run_b) = (
        fixture.store.load(a).unwrap(),
        fixture.store.load(b).unwrap(),
    );
    let expected = compare_runs(&steps(&run_a), &steps(&run_b), CompareOptions::default());
    assert!(expected.regressions() > 0, "{expected:#?}");
    let table = &section.tables[0];
    assert_eq!(table.title, "Metrics");
    assert_eq!(table.rows.len(), expected.metrics.len());
    // read and write, IOPS, MiB/s, mean and p99 latency
    assert_eq!(table.rows.len(), 8);
    for (row, metric) in table.rows.iter().zip(&expected.metrics) {
        assert_eq!(row.len(), table.columns.len());
        assert_eq!(row[1].text, metric.metric);
        assert_eq!(row[2].text, metric.format_value(metric.baseline));
        assert_eq!(row[3].text, metric.format_value(metric.candidate));
        assert_eq!(row[4].text, metric.format_change());
        assert_eq!(row[5].text, metric.outcome.label());
        let tone = match metric.outcome {
            Outcome::Faster => Tone::Good,
            Outcome::Slower => Tone::Bad,
            _ => Tone::Neutral,
        };
        assert_eq!(row[5].tone, tone, "{}", metric.metric);
        assert_eq!(row[6].text == "regression", metric.regression);
    }
    let read_iops = table
        .rows
        .iter()
        .find(|r| r[1].text == "read IOPS")
        .unwrap();
    assert_eq!(read_iops[5].text, "slower");
    assert_eq!(read_iops[6].tone, Tone::Bad);
    assert!(section.notes.contains(&expected.method_text()));
    assert!(section.notes[0].contains("changes under 5 % are within noise"));
    assert!(section.notes[0].contains("10 % or more is a regression"));
    let verdicts = section
        .facts
        .iter()
        .find(|g| g.title == "Verdicts")
        .unwrap();
    assert_eq!(
        verdicts.rows[0],
        (
            "Noise floor".to_string(),
            "5 % of run A's value".to_string()
        )
    );
    assert!(section.headline.as_deref().unwrap().contains("regression"));
    assert!(section.facts[0].title.starts_with(&format!("A: run {a}")));
    assert!(section.facts[1].title.starts_with(&format!("B: run {b}")));
}

#[test]
fn the_same_workload_twice_is_within_noise_with_no_regression() {
    let mut fixture = Fixture::new();
    let a = save_plain_run(&mut fixture);
    let b = save_mixed(&mut fixture, 2_800, 90_000);
    let section = section(&fixture.store, compare(a, b)).unwrap();
    let table = &section.tables[0];
    // (The fixture's writes all land in its last second, so their latency has too few
    // per-second samples for a verdict.)
    assert!(
        table
            .rows
            .iter()
            .all(
                |r| ["within noise", "too few samples"].contains(&r[5].text.as_str())
                    && r[5].tone == Tone::Neutral
                    && r[6].text == "no"
            ),
        "{table:#?}"
    );
    assert!(table.rows.iter().any(|r| r[5].text == "within noise"));
    assert!(section
        .headline
        .as_deref()
        .unwrap()
        .starts_with("0 regressions"));
}

#[test]
fn the_compare_charts_put_run_b_against_run_a_per_metric_and_per_second() {
    let mut fixture = Fixture::new();
    let a = save_plain_run(&mut fixture);
    let b = save_mixed(&mut fixture, 1_400, 180_000);
    let section = section(&fixture.store, compare(a, b)).unwrap();
    let kinds: Vec<&str> = section.charts.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["compare", "compare-iops"]);
    section.charts.iter().for_each(assert_drawable);
    let bars = &section.charts[0];
    assert_eq!(bars.style, crate::ChartStyle::Bars);
    assert_eq!(bars.x.categories.len(), section.tables[0].rows.len());
    assert!(bars.series[0].y.iter().all(|y| *y == Some(100.0)));
    let read_iops = bars
        .x
        .categories
        .iter()
        .position(|c| c == "read IOPS")
        .unwrap();
    let b_percent = bars.series[1].y[read_iops].unwrap();
    assert!((b_percent - 50.0).abs() < 2.0, "{b_percent}");
    let overlay = &section.charts[1];
    assert_eq!(overlay.series.len(), 2);
    // six seconds each, reads and writes together
    assert_eq!(overlay.series[0].x.len(), 6);
    let mean = |i: usize| overlay.series[i].y.iter().flatten().sum::<f64>() / 6.0;
    assert!((mean(0) - 4_000.0).abs() < 40.0, "{}", mean(0));
    assert!((mean(1) - 2_600.0).abs() < 40.0, "{}", mean(1));
}

#[test]
fn suites_are_compared_step_by_step_on_one_time_axis_with_gaps_between_steps() {
    let mut fixture = Fixture::new();
    let a = save_suite(&mut fixture);
    let b = save_suite(&mut fixture);
    let section = section(&fixture.store, compare(a, b)).unwrap();
    let steps: Vec<&str> = section.tables[0]
        .rows
        .iter()
        .map(|r| r[0].text.as_str())
        .collect();
    assert!(steps.contains(&"SEQ1M Q8T1 read") && steps.contains(&"RND4K Q1T1 write"));
    section.charts.iter().for_each(assert_drawable);
    let overlay = &section.charts[1];
    // three steps of three seconds, and a gap after each but the last
    assert_eq!(overlay.series[0].x.len(), 3 * 3 + 2);
    assert_eq!(
        overlay.series[0].y.iter().filter(|y| y.is_none()).count(),
        2
    );
    assert!(section.charts[0].x.categories[0].starts_with("SEQ1M Q8T1 read: "));
}

#[test]
fn runs_with_no_step_in_common_cannot_be_compared() {
    let mut fixture = Fixture::new();
    let a = save_plain_run(&mut fixture);
    let b = save_sweep(&mut fixture);
    match section(&fixture.store, compare(a, b)) {
        Err(ViewError::Unusable { run_id, reason }) => {
            assert_eq!(run_id, b);
            assert!(reason.contains("no step in common"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}
