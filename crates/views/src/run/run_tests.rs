//! The run view on runs saved into a real history: every chart of a run can be drawn, the
//! percentile curve is on a nines axis, ids are unique, and the facts show only what the
//! result holds.

use super::charts::curve_percentiles;
use crate::tests::{
    assert_charts_drawable, assert_unique_ids, host, new_run, save_plain_run, save_suite, step,
    Fixture, Load, STARTED_UNIX_MS,
};
use crate::{section, ChartStyle, Item, Scale, Section, SectionKind};
use diskmeter_workload::RwMode;

fn kinds(section: &Section) -> Vec<&str> {
    section.charts.iter().map(|c| c.kind.as_str()).collect()
}

fn fact<'a>(section: &'a Section, group: &str, name: &str) -> Option<&'a str> {
    section
        .facts
        .iter()
        .filter(|g| g.title == group)
        .flat_map(|g| &g.rows)
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

fn all_facts(section: &Section) -> Vec<(String, String)> {
    section
        .facts
        .iter()
        .flat_map(|g| {
            g.rows
                .iter()
                .map(|(n, v)| (format!("{}: {n}", g.title), v.clone()))
        })
        .collect()
}

#[test]
fn a_plain_run_shows_every_chart_of_a_run_with_both_directions() {
    let mut fixture = Fixture::new();
    let id = save_plain_run(&mut fixture);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert_eq!(section.kind, SectionKind::Run);
    assert_eq!(section.anchor, format!("run-{id}"));
    assert!(
        section.children.is_empty(),
        "one step: shown in the run's section"
    );
    assert_eq!(
        kinds(&section),
        ["iops", "bandwidth", "latency", "percentiles", "histogram"]
    );
    assert_charts_drawable(&section);
    assert_unique_ids(std::slice::from_ref(&section));
    for chart in &section.charts[..2] {
        let labels: Vec<&str> = chart.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["read", "write"], "{}", chart.id);
        assert_eq!(chart.series[0].x.len(), 6, "6 s, a point per second");
        assert!(chart.series[0].y.iter().all(|y| y.unwrap() > 0.0));
    }
    let latency = &section.charts[2];
    let labels: Vec<&str> = latency.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["read mean", "read p99", "write mean", "write p99"]);
    assert_eq!(latency.y.label, "latency (usec)");
}

#[test]
fn the_percentile_curve_has_percentiles_on_a_nines_axis_from_the_stored_histograms() {
    let mut fixture = Fixture::new();
    let id = save_plain_run(&mut fixture);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let curve = section
        .charts
        .iter()
        .find(|c| c.kind == "percentiles")
        .unwrap();
    assert_eq!(curve.x.scale, Scale::Nines);
    assert_eq!(curve.y.scale, Scale::Log10);
    assert_eq!(curve.style, ChartStyle::Lines);
    let read = fixture
        .store
        .histogram(id, 0, "read", "clat")
        .unwrap()
        .unwrap();
    for series in &curve.series {
        assert_eq!(series.x[0], 0.0);
        assert!(series.x.iter().all(|p| (0.0..100.0).contains(p)));
        // 16,800 reads resolve four nines: the curve goes past 99.99.
        assert!(*series.x.last().unwrap() > 99.99, "{:?}", series.x.last());
        let y: Vec<f64> = series.y.iter().map(|y| y.unwrap()).collect();
        assert!(
            y.windows(2).all(|w| w[0] <= w[1]),
            "latency grows with the percentile"
        );
    }
    let read_curve = &curve.series[0];
    assert_eq!(read_curve.label, "read clat");
    // The curve is the histogram's: p50 of the stored histogram, in usec.
    let at_50 = read_curve.x.iter().position(|p| (p - 50.0).abs() < 1e-9);
    let at_90 = read_curve
        .x
        .iter()
        .position(|p| (p - 90.0).abs() < 1e-9)
        .unwrap();
    assert!(at_50.is_none() || read_curve.y[at_50.unwrap()].is_some());
    assert_eq!(
        read_curve.y[at_90].unwrap(),
        read.value_at_percentile(90.0) as f64 / 1000.0
    );
    assert!(section
        .notes
        .iter()
        .any(|n| n.contains("3 significant digits") && n.contains("0.1 %")));
}

#[test]
fn the_curve_goes_as_deep_as_the_ios_resolve() {
    let ten = curve_percentiles(10);
    assert_eq!(ten.first(), Some(&0.0));
    assert!((ten.last().unwrap() - 90.0).abs() < 1e-9);
    let million = curve_percentiles(1_000_000);
    assert!((million.last().unwrap() - 99.9999).abs() < 1e-9);
    assert!(curve_percentiles(u64::MAX).iter().all(|p| *p < 100.0));
}

#[test]
fn the_histogram_chart_shares_its_buckets_and_sums_to_all_ios() {
    let mut fixture = Fixture::new();
    let id = save_plain_run(&mut fixture);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let histogram = section
        .charts
        .iter()
        .find(|c| c.kind == "histogram")
        .unwrap();
    assert_eq!(histogram.x.scale, Scale::Log10);
    assert_eq!(histogram.series[0].x, histogram.series[1].x);
    for series in &histogram.series {
        let total: f64 = series.y.iter().map(|y| y.unwrap()).sum();
        assert!((total - 100.0).abs() < 1e-6, "{}: {total}", series.label);
    }
}

#[test]
fn the_facts_are_the_results_summary_host_device_cpu_steady_state_and_confidence() {
    let mut fixture = Fixture::new();
    let id = save_plain_run(&mut fixture);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let titles: Vec<&str> = section.facts.iter().map(|g| g.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Summary",
            "Host",
            "Device",
            "Filesystem",
            "Job mixed (2 workers)",
            "CPU",
            "Steady state",
            "Confidence of the mean IOPS"
        ]
    );
    assert_eq!(fact(&section, "Summary", "kind"), Some("run"));
    assert_eq!(fact(&section, "Summary", "status"), Some("finished"));
    assert_eq!(
        fact(&section, "Device", "model"),
        Some("Samsung SSD 980 PRO 1TB")
    );
    let job = "Job mixed (2 workers)";
    assert!(fact(&section, job, "read")
        .unwrap()
        .starts_with("2,800 IOPS"));
    assert!(fact(&section, job, "write")
        .unwrap()
        .starts_with("1,200 IOPS"));
    let (kinds, percents) = kinds_and_percents(percentiles(&section));
    assert!(percents.iter().any(|c| c == "p99.9"), "{percents:?}");
    assert!(kinds.iter().any(|k| k == "read clat"), "{kinds:?}");
    assert!(fact(&section, "Steady state", "mixed (2 workers)")
        .unwrap()
        .contains("attained at 3.00 s"));
    assert!(
        fact(&section, "Confidence of the mean IOPS", "mixed (2 workers)")
            .unwrap()
            .contains("95 % CI")
    );
    let code: Vec<&str> = section.code.iter().map(|c| c.title.as_str()).collect();
    assert_eq!(code, ["Command line", "Job file"]);
    assert!(
        section.code[1].text.contains("rw=randrw"),
        "{}",
        section.code[1].text
    );
    assert!(section.headline.as_deref().unwrap().contains("IOPS"));
}

/// The section's table of latency percentiles (a row per direction and kind).
fn percentiles(section: &crate::Section) -> &crate::Table {
    (section
        .tables
        .iter()
        .find(|t| t.title.starts_with("Latency percentiles")))
    .expect("a table of latency percentiles")
}

/// The percentile table's latency kinds ("read clat") and percentiles ("p99"), whichever way
/// it is laid out (a column per kind up to six kinds, else a row per kind).
fn kinds_and_percents(table: &crate::Table) -> (Vec<String>, Vec<String>) {
    let heads: Vec<String> = table.columns[1..].to_vec();
    let firsts: Vec<String> = table.rows.iter().map(|r| r[0].text.clone()).collect();
    match table.columns[0].as_str() {
        "percentile" => (heads, firsts),
        _ => (firsts, heads),
    }
}

#[test]
fn facts_leave_out_what_the_result_does_not_hold() {
    let mut fixture = Fixture::new();
    // A job whose percentile_list had no p99 and no p99.9, on a host whose device model and
    // scheduler could not be read, without steady state.
    let mut only = step("reads", &Load::randread(4096, 4, 2_000), STARTED_UNIX_MS);
    only.result.jobs[0]
        .read
        .clat
        .percentiles
        .retain(|p| p.percent < 99.0);
    let mut run = new_run("run", "reads", "diskmeter run reads.fio", vec![only]);
    let device = run.host.device.as_mut().unwrap();
    device.model.clear();
    device.scheduler.clear();
    run.host.filesystem = None;
    let id = fixture.save(&run);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let facts = all_facts(&section);
    let text = format!("{facts:?}");
    assert!(!text.contains("p99"), "{text}");
    let (_, columns) = kinds_and_percents(percentiles(&section));
    assert!(!columns.iter().any(|c| c.starts_with("p99")), "{columns:?}");
    assert!(columns.iter().any(|c| c == "p95"), "{columns:?}");
    assert!(
        !text.contains("write"),
        "no write figures for a read-only job: {text}"
    );
    assert_eq!(fact(&section, "Device", "model"), None);
    assert_eq!(fact(&section, "Device", "scheduler"), None);
    assert_eq!(fact(&section, "Device", "name"), Some("nvme0n1"));
    assert!(section.facts.iter().all(|g| g.title != "Filesystem"));
    assert!(section.facts.iter().all(|g| g.title != "Steady state"));
    assert!(!section.headline.as_deref().unwrap().contains("p99"));
    // Read-only: the per-second charts have a read line and no write line.
    for chart in section.charts.iter().filter(|c| c.kind != "latency") {
        assert!(chart.series.iter().all(|s| s.label.starts_with("read")));
    }
    assert_charts_drawable(&section);
}

#[test]
fn a_step_without_stored_histograms_draws_the_percentiles_its_job_listed() {
    let mut fixture = Fixture::new();
    let mut only = step("reads", &Load::randread(4096, 4, 2_000), STARTED_UNIX_MS);
    only.histograms.clear();
    // An older step: its jobs carry no histograms either (result schema 4 added them).
    for job in &mut only.result.jobs {
        job.histograms = None;
    }
    let id = fixture.save(&new_run("run", "reads", "diskmeter run", vec![only]));
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert_eq!(
        kinds(&section),
        ["iops", "bandwidth", "latency", "percentiles"]
    );
    let curve = &section.charts[3];
    assert_eq!(curve.x.scale, Scale::Nines);
    assert_eq!(curve.style, ChartStyle::LinesPoints);
    assert!(curve.series[0].x.contains(&99.9));
    assert!(section
        .notes
        .iter()
        .any(|n| n.contains("No latency histogram")));
    assert_charts_drawable(&section);
}

#[test]
fn several_jobs_get_a_cpu_chart_with_a_bar_per_job() {
    let mut fixture = Fixture::new();
    // numjobs=2 without group_reporting is reported as two jobs.
    let mut load = Load::randread(4096, 8, 4_000);
    load.numjobs = 2;
    let mut two = step("two", &load, STARTED_UNIX_MS);
    let merged = two.result.clone();
    let one = step("one", &Load::randread(4096, 8, 2_000), STARTED_UNIX_MS);
    two.result.jobs = vec![one.result.jobs[0].clone(), one.result.jobs[0].clone()];
    two.result.jobs[1].clone_index = Some(1);
    two.result.jobs[0].clone_index = Some(0);
    assert_eq!(merged.jobs.len(), 1, "group_reporting merges the clones");
    let id = fixture.save(&new_run("run", "two", "diskmeter run", vec![two]));
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let cpu = section.charts.iter().find(|c| c.kind == "cpu").unwrap();
    assert_eq!(cpu.style, ChartStyle::Bars);
    assert_eq!(cpu.x.categories, ["randread clone 0", "randread clone 1"]);
    let labels: Vec<&str> = cpu.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["usr", "sys"]);
    assert_charts_drawable(&section);
}

#[test]
fn a_run_of_several_steps_shows_a_table_and_a_child_per_step() {
    let mut fixture = Fixture::new();
    let steps = vec![
        step("first", &Load::randread(4096, 1, 1_000), STARTED_UNIX_MS),
        step(
            "second",
            &Load {
                rw: RwMode::RandWrite,
                read_iops: 0,
                write_iops: 800,
                ..Load::randread(4096, 1, 0)
            },
            STARTED_UNIX_MS + 3_500,
        ),
    ];
    let id = fixture.save(&new_run("replay", "trace", "diskmeter replay t.log", steps));
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert_eq!(section.kind, SectionKind::Run);
    assert!(section.charts.is_empty());
    assert_eq!(section.tables[0].rows.len(), 2);
    let anchors: Vec<&str> = section.children.iter().map(|c| c.anchor.as_str()).collect();
    assert_eq!(
        anchors,
        [format!("run-{id}-step-0"), format!("run-{id}-step-1")]
    );
    assert_eq!(section.children[1].title, "Step 2 of 2: second");
    assert_eq!(section.children[1].kind, SectionKind::Step);
    assert!(section.children[1].charts[0].series[0].label == "write");
    assert_charts_drawable(&section);
    assert_unique_ids(std::slice::from_ref(&section));
}

#[test]
fn a_document_of_several_runs_has_unique_anchors_and_chart_ids() {
    let mut fixture = Fixture::new();
    let plain = save_plain_run(&mut fixture);
    let suite = save_suite(&mut fixture);
    let mut other_host = new_run(
        "run",
        "again",
        "diskmeter run",
        vec![step(
            "again",
            &Load::randread(4096, 2, 500),
            STARTED_UNIX_MS,
        )],
    );
    other_host.host = host();
    let again = fixture.save(&other_host);
    let document = crate::document(
        &fixture.store,
        &[Item::Run(plain), Item::Run(suite), Item::Run(again)],
        STARTED_UNIX_MS,
    )
    .unwrap();
    assert_eq!(document.sections.len(), 3);
    assert_unique_ids(&document.sections);
    for section in &document.sections {
        assert_charts_drawable(section);
    }
}

#[test]
fn a_missing_run_is_a_history_error() {
    let fixture = Fixture::new();
    let error = section(&fixture.store, Item::Run(42)).unwrap_err();
    assert!(error.to_string().contains("no run 42"), "{error}");
}

#[test]
fn a_rate_limited_step_says_where_the_latency_from_the_intended_time_is() {
    let mut fixture = Fixture::new();
    let mut paced = step("paced", &Load::randread(4096, 4, 1_000), STARTED_UNIX_MS);
    let read = &mut paced.result.jobs[0].read;
    read.lat_intended = read.lat.clone();
    let id = fixture.save(&new_run("run", "paced", "diskmeter run", vec![paced]));
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert!(section.notes.iter().any(|n| n.contains("rate-limited")));
    assert!(fact(&section, "Job randread", "read lat_intended").is_some());
    let (kinds, _) = kinds_and_percents(percentiles(&section));
    assert!(kinds.iter().any(|k| k == "read lat_intended"), "{kinds:?}");
}

/// A run of one paced step of 4 KiB random reads whose IOs took 100 us from issue to
/// completion; `intended`: how the intended-time latency was kept (`Some(factor)`: the
/// issue-clock figures times `factor`, as a stall makes them; `None`: not kept, as results
/// saved before it was).
fn save_paced_run(fixture: &mut Fixture, intended: Option<f64>) -> i64 {
    let load = Load {
        job: "paced",
        seconds: 3,
        base_clat_ns: 100_000,
        ..Load::randread(4096, 1, 1_000)
    };
    let mut step = step("paced", &load, STARTED_UNIX_MS);
    let job = &mut step.result.jobs[0];
    job.options.push(diskmeter_report::JobOption {
        name: "rate_iops".into(),
        value: "1000".into(),
    });
    if let Some(factor) = intended {
        let mut summary = job.read.lat.clone();
        summary.mean_ns *= factor;
        summary.max_ns = (summary.max_ns as f64 * factor) as u64;
        summary.percentiles = job
            .read
            .clat
            .percentiles
            .iter()
            .map(|p| diskmeter_report::Percentile {
                percent: p.percent,
                value_ns: (p.value_ns as f64 * factor) as u64,
            })
            .collect();
        job.read.lat_intended = summary;
    }
    fixture.save(&new_run(
        "run",
        "paced",
        "diskmeter run --name paced --rate_iops 1000",
        vec![step],
    ))
}

#[test]
fn issue27_a_paced_runs_headline_latency_is_its_intended_time_latency_labelled() {
    let mut fixture = Fixture::new();
    let id = save_paced_run(&mut fixture, Some(1_000.0));
    let run = fixture.store.load(id).unwrap();
    let p99_ns = run.steps[0].result.jobs[0]
        .read
        .lat_intended
        .percentile(99.0);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let headline = section.headline.clone().unwrap();
    let p99 = diskmeter_units::format_duration(p99_ns.unwrap() as f64);
    assert!(
        headline.contains("mean intended-time latency ")
            && headline.ends_with(&format!(", p99 {p99}")),
        "{headline}"
    );
    assert!(
        section
            .notes
            .iter()
            .any(|n| n.contains("headline latency is from when each IO was due")),
        "{:#?}",
        section.notes
    );
}

#[test]
fn issue27_a_paced_run_saved_without_intended_latency_says_it_is_not_known() {
    let mut fixture = Fixture::new();
    let id = save_paced_run(&mut fixture, None);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let headline = section.headline.clone().unwrap();
    assert!(
        headline.ends_with(", intended-time latency not known (saved before diskmeter kept it)"),
        "{headline}"
    );
    assert!(!headline.contains("p99"), "{headline}");
    assert!(section.notes.iter().any(|n| n.contains("not known")));
}

#[test]
fn issue27_a_partial_suite_step_is_named_partial_in_the_table_the_charts_and_its_section() {
    let mut fixture = Fixture::new();
    let mut steps: Vec<_> = [
        ("SEQ1M Q8T1 read", Load::randread(1 << 20, 8, 1_800)),
        ("RND4K Q32T1 read", Load::randread(4096, 32, 9_000)),
    ]
    .iter()
    .enumerate()
    .map(|(i, (name, load))| step(name, load, STARTED_UNIX_MS + 3_500 * i as u64))
    .collect();
    steps[1].result.meta.partial = true;
    let id = fixture.save(&new_run("suite", "quick", "diskmeter suite quick", steps));
    let suite = section(&fixture.store, Item::Run(id)).unwrap();
    let table = &suite.tables[0];
    assert_eq!(table.rows[0][0].text, "SEQ1M Q8T1 read");
    assert_eq!(table.rows[1][0].text, "RND4K Q32T1 read (partial)");
    assert_eq!(table.rows[1][0].tone, crate::Tone::Neutral);
    for chart in &suite.charts {
        assert_eq!(chart.x.categories[1], "RND4K Q32T1 read (partial)");
    }
    let child = &suite.children[1];
    assert!(
        child.title.ends_with("RND4K Q32T1 read (partial)"),
        "{}",
        child.title
    );
    assert!(
        child
            .notes
            .iter()
            .any(|n| n.starts_with("This step is partial (interrupted")),
        "{:#?}",
        child.notes
    );
}

#[test]
fn a_chart_title_names_the_emulated_tier_the_command_line_asked_for() {
    use super::tier_title;
    let with = "diskmeter run --name=x --emulate azure-p30 --rw=randread";
    assert_eq!(
        tier_title("/dev/loop3", with),
        "/dev/loop3 (emulated azure-p30)"
    );
    let equals = "diskmeter sweep --emulate=gp3 --qd=1,4";
    assert_eq!(
        tier_title("/dev/loop3", equals),
        "/dev/loop3 (emulated gp3)"
    );
    let size_only = "diskmeter run --emulate-size=128m f.dat";
    assert_eq!(tier_title("f.dat", size_only), "f.dat");
    assert_eq!(tier_title("f.dat", "diskmeter run f.dat"), "f.dat");
}
