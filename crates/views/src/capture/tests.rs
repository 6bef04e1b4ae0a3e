//! The capture section against a capture saved in a temporary history the way
//! `diskmeter capture` saves one (begun, samples appended one by one, finished): the
//! checklist rows of `diskmeter requirements` and one drawable chart per series kind.

use super::series::{DeviceSeries, MAX_POINTS};
use crate::sweep::tests::assert_drawable;
use crate::tests::{host, Fixture, STARTED_UNIX_MS};
use crate::{section, Item, SectionKind};
use diskmeter_analysis::requirements::{ChecklistBuilder, Level, Metric, WindowSet};
use diskmeter_capture::{CaptureSample, DeviceInterval, SystemInterval};
use diskmeter_history::{RunEnd, RunHeader, CAPTURE_KIND};

/// One device's interval: `reads` and `writes` per second of 8 KiB, `await_ms` each.
fn device(name: &str, reads: f64, writes: f64, await_ms: f64) -> DeviceInterval {
    DeviceInterval {
        device: name.to_string(),
        reads_per_sec: reads,
        writes_per_sec: writes,
        discards_per_sec: 0.0,
        flushes_per_sec: 0.0,
        flush_await_ms: 0.0,
        read_kib_per_sec: reads * 8.0,
        write_kib_per_sec: writes * 8.0,
        read_merges_per_sec: 0.0,
        write_merges_per_sec: 0.0,
        read_await_ms: if reads > 0.0 { await_ms } else { 0.0 },
        write_await_ms: if writes > 0.0 { await_ms * 2.0 } else { 0.0 },
        queue_size: (reads + writes) * await_ms / 1000.0,
        read_request_kib: 8.0,
        write_request_kib: 8.0,
        util_percent: 40.0,
    }
}

/// Second `i` of a capture of `vda` (a busy second every fifth, no writes every third)
/// and its partition `vda1`.
fn sample(i: u64) -> CaptureSample {
    let reads = if i % 5 == 4 {
        4_000.0
    } else {
        1_000.0 + 10.0 * i as f64
    };
    let writes = if i.is_multiple_of(3) { 0.0 } else { 300.0 };
    CaptureSample {
        start_unix_ms: STARTED_UNIX_MS + i * 1_000,
        duration_ms: 1_000.0,
        devices: vec![
            device("vda", reads, writes, 0.5 + 0.01 * i as f64),
            device("vda1", reads, writes, 0.5),
        ],
        system: SystemInterval {
            cpu_busy_percent: 20.0,
            cpu_user_percent: 15.0,
            cpu_system_percent: 5.0,
            cpu_iowait_percent: 1.0,
            memory_used_bytes: 3 << 30,
            memory_total_bytes: 8 << 30,
            memory_cached_bytes: 1 << 30,
            io_pressure_some_percent: Some(2.0),
            io_pressure_full_percent: None,
        },
    }
}

/// A capture of `seconds` samples of [`sample`], saved as `diskmeter capture` saves one.
fn save_capture(fixture: &mut Fixture, seconds: u64) -> i64 {
    let store = &mut fixture.store;
    let id = store
        .begin_run(&RunHeader {
            kind: CAPTURE_KIND.to_string(),
            name: "vda, vda1".to_string(),
            target: "vda, vda1".to_string(),
            command_line: "diskmeter capture --duration 20s".to_string(),
            host: host(),
            started_unix_ms: STARTED_UNIX_MS,
            diskmeter_version: "0.1.0".to_string(),
            hostname: "dbhost".to_string(),
            capture_id: None,
        })
        .unwrap();
    for i in 0..seconds {
        store.append_capture_sample(id, &sample(i)).unwrap();
    }
    store
        .finish_run(
            id,
            &RunEnd {
                finished_unix_ms: STARTED_UNIX_MS + seconds * 1_000,
                partial: false,
                summary: Some("vda: 1,300 IOPS p50".to_string()),
            },
        )
        .unwrap();
    id
}

#[test]
fn the_capture_section_has_the_checklist_rows_of_diskmeter_requirements() {
    let mut fixture = Fixture::new();
    let id = save_capture(&mut fixture, 20);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert_eq!(section.kind, SectionKind::Capture);
    assert_eq!(section.anchor, format!("run-{id}"));
    // The checklist `diskmeter requirements` prints: the same builder over the same samples.
    let mut builder = ChecklistBuilder::new(None, WindowSet::default());
    for i in 0..20 {
        builder.push(&sample(i));
    }
    let expected = builder.finish().unwrap();
    let table = &section.children[0].tables[0];
    assert_eq!(
        table.columns,
        ["metric", "p50", "p90", "p99", "max", "mean", "from"]
    );
    assert_eq!(table.rows.len(), Metric::ALL.len());
    for (row, metric) in table.rows.iter().zip(Metric::ALL) {
        assert_eq!(row[0].text, super::checklist_label(metric));
        for (cell, level) in row[1..6].iter().zip(Level::ALL) {
            assert_eq!(
                cell.text,
                super::checklist_figure(metric, expected.whole.level(metric, level)),
                "{} {level}",
                metric.label()
            );
            assert!(cell.numeric);
        }
    }
    let iops = table
        .rows
        .iter()
        .find(|r| r[0].text == "IOPS total")
        .unwrap();
    assert_eq!(iops[4].text, "4,300"); // max: a busy second with writes
    let random = table.rows.iter().find(|r| r[0].text == "random %").unwrap();
    assert_eq!(random[1].text, "unknown");
    assert_eq!(random[6].text, "-");
    let facts: Vec<&(String, String)> = section.facts.iter().flat_map(|g| &g.rows).collect();
    assert!(facts.contains(&&("Devices".to_string(), "vda".to_string())));
    assert!(facts
        .iter()
        .any(|(n, v)| n == "Left out" && v.starts_with("vda1")));
    assert!(facts
        .iter()
        .any(|(n, v)| n == "Intervals" && v == "20 over 20 s"));
    // The checklist is a section of its own (the loop links to it), with its notes.
    let checklist = &section.children[0];
    assert_eq!(checklist.anchor, format!("run-{id}-requirements"));
    assert!(
        checklist.notes[0].contains("within 0.1 %"),
        "{:?}",
        checklist.notes
    );
    assert_eq!(section.headline.as_deref(), Some("vda: 1,300 IOPS p50"));
}

#[test]
fn each_capture_chart_has_a_line_per_device_and_direction() {
    let mut fixture = Fixture::new();
    let id = save_capture(&mut fixture, 20);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    let kinds: Vec<&str> = section.charts.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "capture-iops",
            "capture-bandwidth",
            "capture-latency",
            "capture-queue"
        ]
    );
    for chart in &section.charts {
        assert_drawable(chart);
        assert_eq!(chart.id, format!("run-{id}-{}", chart.kind));
        // only vda: its partition's IO is in it
        assert!(chart
            .series
            .iter()
            .all(|s| s.label.starts_with("vda") && !s.label.starts_with("vda1")));
        assert!(chart.series.iter().all(|s| s.x.len() == 20));
        assert_eq!(chart.series[0].x[0], 1.0, "the end of the first second");
    }
    let latency = &section.charts[2];
    let write = latency
        .series
        .iter()
        .find(|s| s.label == "vda write")
        .unwrap();
    assert_eq!(write.y[0], None, "no writes in second 0: no latency, a gap");
    assert_eq!(write.y[1], Some(2.0 * 0.51));
    assert_eq!(section.charts[0].series[0].y[4], Some(4_000.0));
}

#[test]
fn a_long_capture_is_drawn_in_buckets_that_keep_its_totals() {
    let mut series = DeviceSeries::default();
    let seconds = 2 * MAX_POINTS as u64 + 10;
    for i in 0..seconds {
        series.push(&sample(i));
    }
    let (charts, per_point) = series.charts("run-1", &["vda".to_string()]);
    assert_eq!(per_point, 3);
    let iops = &charts[0];
    assert!(iops.series[0].x.len() <= MAX_POINTS);
    charts.iter().for_each(assert_drawable);
    // time-weighted: the mean read rate over every bucket is the capture's
    let exact: f64 = (0..seconds)
        .map(|i| sample(i).devices[0].reads_per_sec)
        .sum();
    let buckets: Vec<f64> = iops.series[0].y.iter().map(|y| y.unwrap()).collect();
    let full = (seconds / 3) as usize;
    let bucketed: f64 = buckets[..full].iter().sum::<f64>() * 3.0
        + buckets[full..].iter().sum::<f64>() * (seconds % 3) as f64;
    assert!(
        (bucketed - exact).abs() < 1e-6 * exact,
        "{bucketed} vs {exact}"
    );
}

#[test]
fn a_capture_with_no_device_figures_says_there_is_nothing_to_draw() {
    let mut fixture = Fixture::new();
    let id = save_capture(&mut fixture, 0);
    let section = section(&fixture.store, Item::Run(id)).unwrap();
    assert!(section.charts.is_empty());
    assert!(section
        .notes
        .iter()
        .any(|n| n.contains("no series to draw")));
    assert_eq!(section.children[0].tables[0].rows.len(), Metric::ALL.len());
}
