//! The sweep section against sweeps saved in a temporary history: it states the ceilings,
//! the summary and the tier `diskmeter analyze` prints, and draws three charts per pattern.

use crate::tests::{new_run, save_suite, save_sweep, step, Fixture, Load, STARTED_UNIX_MS};
use crate::{section, ChartSpec, Item, Scale, SectionKind, ViewError};
use diskmeter_analysis::{analyse, points_of_steps, summary_lines, CeilingFinding};
use diskmeter_units::format_thousands;

/// Every line of a chart has points, as many y as x, finite values, at least one drawn
/// point, and x above 0 on a log axis: what uPlot and plotters need to draw it.
pub(crate) fn assert_drawable(chart: &ChartSpec) {
    assert!(!chart.series.is_empty(), "{}: no series", chart.id);
    for line in &chart.series {
        let what = format!("{} / {}", chart.id, line.label);
        assert!(!line.x.is_empty(), "{what}: no points");
        assert_eq!(line.x.len(), line.y.len(), "{what}");
        assert!(
            line.x.iter().all(|x| x.is_finite()),
            "{what}: x {:?}",
            line.x
        );
        assert!(
            line.y.iter().flatten().all(|y| y.is_finite()),
            "{what}: y {:?}",
            line.y
        );
        assert!(line.y.iter().any(Option::is_some), "{what}: nothing drawn");
        if chart.x.scale == Scale::Log10 {
            assert!(line.x.iter().all(|x| *x > 0.0), "{what}: x {:?}", line.x);
        }
        if chart.x.categories.is_empty() {
            assert!(
                line.x.windows(2).all(|w| w[0] < w[1]),
                "{what}: x not ascending {:?}",
                line.x
            );
        } else {
            assert!(line.x.len() <= chart.x.categories.len(), "{what}");
        }
    }
}

/// A sweep of `patterns` on a device capped like an Azure P30 (5,000 IOPS, 200 MiB/s, 0.25
/// ms per IO below the caps): 4 KiB to 1 MiB at QD 1 to 32, so both caps show on several
/// block sizes. Returns its id.
fn save_capped_sweep(fixture: &mut Fixture, patterns: &[&str]) -> i64 {
    let mut steps = Vec::new();
    for rw in patterns {
        for (bs_bytes, bs_name) in [
            (4096u64, "4k"),
            (8192, "8k"),
            (16_384, "16k"),
            (131_072, "128k"),
            (262_144, "256k"),
            (1 << 20, "1m"),
        ] {
            for qd in [1u32, 2, 4, 8, 16, 32] {
                let iops = (u64::from(qd) * 4_000)
                    .min(5_000)
                    .min((200 << 20) / bs_bytes);
                let started = STARTED_UNIX_MS + 3_200 * steps.len() as u64;
                let load = Load {
                    seconds: 2,
                    ..Load::randread(bs_bytes, qd, iops)
                };
                steps.push(step(&format!("{rw} {bs_name} QD{qd} x1"), &load, started));
            }
        }
    }
    fixture.save(&new_run(
        "sweep",
        &patterns.join(","),
        "diskmeter sweep /mnt/data --bs 4k,8k,16k,128k,256k,1m --qd 1,2,4,8,16,32",
        steps,
    ))
}

fn fact<'a>(section: &'a crate::Section, name: &str) -> &'a str {
    section
        .facts
        .iter()
        .flat_map(|g| &g.rows)
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no fact {name} in {:#?}", section.facts))
}

#[test]
fn the_sweep_section_names_the_tier_and_the_ceilings_that_analyze_prints() {
    let mut fixture = Fixture::new();
    let id = save_capped_sweep(&mut fixture, &["randread"]);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert_eq!(section.kind, SectionKind::Sweep);
    assert_eq!(section.anchor, format!("run-{id}"));
    // What `diskmeter analyze` computes from the same history.
    let run = fixture.store.load(id).unwrap();
    let groups = points_of_steps(run.steps.iter().map(|s| (s.name.as_str(), &s.result))).unwrap();
    let analysis = analyse(
        &groups[0].points,
        &diskmeter_plan::Catalog::builtin().named_volumes(),
    );
    let CeilingFinding::Found(iops) = &analysis.iops_ceiling else {
        panic!("the fixture shows an IOPS cap: {analysis:#?}");
    };
    assert!(
        analysis.bandwidth_ceiling.value().is_some(),
        "{analysis:#?}"
    );
    for line in summary_lines(&analysis) {
        assert!(
            section.notes.contains(&line),
            "{line} not in {:#?}",
            section.notes
        );
    }
    assert!(
        section.notes.iter().any(|n| n.starts_with("Caps: 5,0")),
        "{:#?}",
        section.notes
    );
    assert!(
        fact(&section, "IOPS ceiling").starts_with(&format_thousands(iops.value.round() as u64)),
        "{}",
        fact(&section, "IOPS ceiling")
    );
    assert!(fact(&section, "Bandwidth ceiling").contains("MiB/s"));
    assert!(fact(&section, "Crossover block size").ends_with("KiB"));
    let tier = &analysis.tiers[0];
    assert!(
        fact(&section, "Behaves like").contains(&tier.name),
        "{} vs {tier:?}",
        fact(&section, "Behaves like")
    );
    let tiers = section
        .tables
        .iter()
        .find(|t| t.title.starts_with("Nearest"))
        .unwrap();
    assert_eq!(tiers.rows[0][0].text, tier.id);
    let points = section
        .tables
        .iter()
        .find(|t| t.title == "Points: randread")
        .unwrap();
    assert_eq!(points.rows.len(), 36);
    assert!(points.rows.iter().all(|r| r.len() == points.columns.len()));
}

#[test]
fn each_sweep_chart_has_a_line_per_block_size_or_queue_depth_on_a_log_axis() {
    let mut fixture = Fixture::new();
    let id = save_capped_sweep(&mut fixture, &["randread"]);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let kinds: Vec<&str> = section.charts.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["iops-vs-qd", "mibps-vs-bs", "latency-vs-qd"]);
    for chart in &section.charts {
        assert_drawable(chart);
        assert_eq!(chart.id, format!("run-{id}-{}", chart.kind));
        assert_eq!(chart.x.scale, Scale::Log10);
        assert_eq!(chart.style, crate::ChartStyle::LinesPoints);
        // six block sizes, or six queue depths, of six points each
        assert_eq!(chart.series.len(), 6, "{}", chart.id);
        assert!(chart.series.iter().all(|s| s.x.len() == 6), "{}", chart.id);
    }
    let iops = &section.charts[0];
    assert_eq!(iops.series[0].label, "4K");
    assert_eq!(iops.series[0].x, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
    let top = iops.series[0]
        .y
        .iter()
        .flatten()
        .fold(0.0, |a: f64, b| a.max(*b));
    assert!((top - 5_000.0).abs() < 1.0, "{top}");
    assert_eq!(section.charts[1].series[0].label, "QD 1");
    assert_eq!(section.charts[1].series[0].x[0], 4.0); // KiB
}

#[test]
fn a_sweep_that_never_flattened_says_no_ceiling_and_names_no_tier() {
    let mut fixture = Fixture::new();
    let id = save_sweep(&mut fixture);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert!(fact(&section, "IOPS ceiling").starts_with("none found"));
    assert!(fact(&section, "Behaves like").starts_with("no tier named"));
    assert!(!section
        .tables
        .iter()
        .any(|t| t.title.starts_with("Nearest")));
    assert_eq!(section.charts.len(), 3);
    section.charts.iter().for_each(assert_drawable);
}

#[test]
fn a_sweep_of_two_patterns_has_a_child_section_for_each() {
    let mut fixture = Fixture::new();
    let id = save_capped_sweep(&mut fixture, &["randread", "randrw:70"]);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert!(section.charts.is_empty());
    let anchors: Vec<&str> = section.children.iter().map(|c| c.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [format!("run-{id}-randread"), format!("run-{id}-randrw-70")]
    );
    let mut ids: Vec<&str> = section.all_charts().iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 6);
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 6, "chart ids are unique in the document");
    assert!(fact(&section.children[1], "Behaves like").contains("P30"));
}

#[test]
fn a_run_whose_steps_are_not_sweep_points_is_refused_by_name() {
    let mut fixture = Fixture::new();
    let suite = save_suite(&mut fixture);
    let run = fixture.store.load(suite).unwrap();
    match super::section(&fixture.store, &run) {
        Err(ViewError::Unusable { run_id, reason }) => {
            assert_eq!(run_id, suite);
            assert!(
                reason.contains("'SEQ1M Q8T1 read' is not a sweep point"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn issue27_a_partial_point_is_marked_in_the_table_left_out_of_the_analysis_and_not_drawn() {
    // Ctrl-C during QD 8: its 2,863 IOPS, below QD 4's, are part of a second.
    let mut fixture = Fixture::new();
    let mut steps = Vec::new();
    for (qd, iops) in [(1u32, 1_200u64), (2, 2_350), (4, 4_504), (8, 2_863)] {
        let started = STARTED_UNIX_MS + 3_200 * steps.len() as u64;
        let load = Load::randread(4096, qd, iops);
        steps.push(step(&format!("randread 4k QD{qd} x1"), &load, started));
    }
    steps[3].result.meta.partial = true;
    let id = fixture.save(&new_run(
        "sweep",
        "randread",
        "diskmeter sweep /mnt/data --bs 4k --qd 1,2,4,8",
        steps,
    ));
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert_eq!(
        fact(&section, "Points"),
        "4 (1 partial, left out of the analysis)"
    );
    assert!(
        section.notes.iter().any(|n| n
            .starts_with("Partial point left out of the analysis: randread 4k QD8 x1 (2,863 IOPS")),
        "{:#?}",
        section.notes
    );
    // Still rising at QD 4, the highest whole point: not at the partial QD 8.
    assert!(fact(&section, "IOPS ceiling").contains("queue depth (4)"));
    let points = section
        .tables
        .iter()
        .find(|t| t.title == "Points: randread")
        .unwrap();
    let last = points.rows.last().unwrap();
    assert_eq!(last[1].text, "8");
    assert_eq!(last[2].text, "(2,863) partial");
    assert!(last[6].text.starts_with("partial, left out: interrupted"));
    assert_eq!(last[6].tone, crate::Tone::Neutral);
    let iops = &section.charts[0];
    assert_eq!(iops.series[0].x, [1.0, 2.0, 4.0], "no partial point drawn");
}

#[test]
fn issue27_a_sweep_with_one_whole_point_states_no_ceiling_limit_or_tier() {
    let mut fixture = Fixture::new();
    let mut steps = vec![
        step(
            "randwrite 4k QD1 x1",
            &Load::randread(4096, 1, 900),
            STARTED_UNIX_MS,
        ),
        step(
            "randwrite 4k QD2 x1",
            &Load::randread(4096, 2, 300),
            STARTED_UNIX_MS + 3_200,
        ),
    ];
    steps[1].result.jobs[0].error = Some("No space left on device (os error 28)".into());
    let id = fixture.save(&new_run("sweep", "randwrite", "diskmeter sweep", steps));
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let nothing = fact(&section, "Nothing inferred");
    assert!(
        nothing.starts_with("only 1 whole point(s)") && nothing.contains("1 partial point(s)"),
        "{nothing}"
    );
    assert!(section.facts.iter().all(|g| g
        .rows
        .iter()
        .all(|(name, _)| name != "IOPS ceiling" && name != "Behaves like")));
    assert!(!section.tables.iter().any(|t| t.title == "Block sizes"));
    assert_eq!(section.charts.len(), 3, "the one whole point is drawn");
    assert!(section
        .notes
        .iter()
        .any(|n| n.contains("failed: job") && n.contains("No space left on device")));
}
