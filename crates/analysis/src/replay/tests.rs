//! The replay builder: each option comes from the figure the module docs say, and the options
//! build the job diskmeter runs (they parse with the workload crate's fio option table).

use super::*;
use diskmeter_capture::TraceProfile;

fn p90(read_iops: f64, write_iops: f64, queue_depth: f64) -> LevelFigures {
    LevelFigures {
        level: Level::P90,
        read_iops,
        write_iops,
        read_request_bytes: Some(8192.0),
        write_request_bytes: Some(65536.0),
        queue_depth,
        read_latency_ms: None,
        write_latency_ms: None,
        flushes_per_sec: 0.0,
        read_bytes_per_sec: None,
        write_bytes_per_sec: None,
        write_iops_mean: None,
    }
}

fn request(level: LevelFigures, trace: Option<TracedShape>) -> ReplayRequest {
    ReplayRequest {
        name: "replay-7-p90".into(),
        level,
        trace,
        random_percent: None,
        size_bytes: 1 << 30,
        runtime_ns: 60_000_000_000,
    }
}

/// The traced shape of the acceptance workload: 8k/60:64k/40 reads, 30 % random.
fn traced() -> TracedShape {
    TracedShape {
        read_sizes: vec![(65536, 400), (8192, 600)],
        write_sizes: vec![(4096, 300)],
        random_fraction: 0.3,
        hot_share: Some(0.2),
        working_set_bytes: Some(512 << 20),
        queue_depth_p99: None,
        write_ios_per_sec: None,
        sequential_write_sizes: Vec::new(),
    }
}

#[test]
fn a_counter_capture_gives_mean_sizes_rates_mix_and_depth() {
    let built = build_replay(&request(p90(1400.0, 600.0, 3.2), None)).unwrap();
    assert_eq!(built.option("rw"), Some("randrw"));
    assert_eq!(built.option("rwmixread"), Some("70"));
    assert_eq!(built.option("bs"), Some("8k,64k"));
    assert_eq!(built.option("rate_iops"), Some("1400,600"));
    assert_eq!(built.option("iodepth"), Some("4"));
    assert_eq!(built.option("bssplit"), None);
    assert_eq!(built.option("percentage_random"), None, "fully random");
    assert_eq!(built.option("random_distribution"), None);
    assert_eq!(built.option("direct"), Some("1"));
    assert_eq!(built.option("time_based"), Some("1"));
    assert_eq!(built.option("runtime"), Some("60s"));
    assert_eq!(built.option("size"), Some("1g"));
    assert_eq!(built.option("ioengine"), Some(REPLAY_ENGINE));
}

#[test]
fn a_counter_capture_says_the_random_share_is_unknown_and_never_invents_one() {
    let built = build_replay(&request(p90(1400.0, 600.0, 3.2), None)).unwrap();
    assert!(
        built
            .notes
            .iter()
            .any(|n| n.contains("random share: unknown") && n.contains("--random")),
        "{:#?}",
        built.notes
    );
    let mut asked = request(p90(1400.0, 600.0, 3.2), None);
    asked.random_percent = Some(30);
    let built = build_replay(&asked).unwrap();
    assert_eq!(built.option("percentage_random"), Some("30"));
    assert!(built
        .notes
        .iter()
        .any(|n| n.contains("as --random gave it")));
}

#[test]
fn a_trace_gives_the_size_split_random_share_and_hot_set() {
    let built = build_replay(&request(p90(1400.0, 600.0, 7.5), Some(traced()))).unwrap();
    assert_eq!(built.option("bssplit"), Some("8k/60:64k/40,4k/100"));
    assert_eq!(built.option("bs"), None);
    assert_eq!(built.option("percentage_random"), Some("30"));
    assert_eq!(
        built.option("random_distribution"),
        Some("zoned:80/20:20/80")
    );
    assert_eq!(built.option("iodepth"), Some("8"));
    assert!(built.notes.iter().any(|n| n.contains("--size 512m")));
    // 1,400 reads/s x (0.6 x 8 KiB + 0.4 x 64 KiB) = 43,581,440 bytes/s; writes are all 4k.
    assert_eq!(built.option("rate"), Some("43581440,2457600"));
    assert_eq!(
        built.option("rate_iops"),
        None,
        "fio takes one or the other"
    );
    assert!(built.notes.iter().any(|n| n.contains("smallest size")));
}

#[test]
fn a_queue_depth_under_one_still_keeps_one_io_in_flight() {
    let built = build_replay(&request(p90(10.0, 0.0, 0.02), None)).unwrap();
    assert_eq!(built.option("iodepth"), Some("1"));
    assert_eq!(built.option("rw"), Some("randread"));
    assert_eq!(built.option("rate_iops"), Some("10"));
    assert_eq!(built.option("bs"), Some("8k"));
    assert_eq!(built.option("rwmixread"), None);
}

#[test]
fn a_write_only_level_rates_and_sizes_the_writes() {
    let built = build_replay(&request(p90(0.0, 250.4, 1.0), None)).unwrap();
    assert_eq!(built.option("rw"), Some("randwrite"));
    assert_eq!(built.option("rate_iops"), Some("251"), "250.4 rounded up");
    assert_eq!(built.option("bs"), Some("64k"));
}

#[test]
fn mean_sizes_round_to_whole_sectors() {
    let mut level = p90(100.0, 100.0, 1.0);
    level.read_request_bytes = Some(23.7 * 1024.0); // 24268.8 bytes -> 47 sectors
    level.write_request_bytes = Some(100.0);
    let built = build_replay(&request(level, None)).unwrap();
    assert_eq!(built.option("bs"), Some("24064,512"));
}

#[test]
fn a_mean_size_past_u64_bytes_is_cut_to_whole_sectors_not_a_panic() {
    // 1e300 bytes rounded to sectors and multiplied back overflowed (found by fuzzing).
    let mut level = p90(100.0, 100.0, 1.0);
    level.read_request_bytes = Some(1e300);
    let built = build_replay(&request(level, None)).unwrap();
    let bs = built.option("bs").unwrap();
    let read = bs.split(',').next().unwrap();
    let bytes = diskmeter_units::parse_size(read, diskmeter_units::KbBase::Binary).unwrap();
    assert_eq!(bytes, u64::MAX / SECTOR_BYTES * SECTOR_BYTES, "{bs}");
}

#[test]
fn size_shares_add_up_to_100_and_tiny_sizes_are_left_out_with_a_note() {
    let trace = TracedShape {
        read_sizes: vec![(4096, 333), (8192, 333), (16384, 333), (1 << 20, 1)],
        ..TracedShape::default()
    };
    let built = build_replay(&request(p90(100.0, 0.0, 1.0), Some(trace))).unwrap();
    assert_eq!(built.option("bssplit"), Some("4k/34:8k/33:16k/33"));
    assert!(built
        .notes
        .iter()
        .any(|n| n.contains("1 size(s) under half")));
}

#[test]
fn more_sizes_than_fio_keeps_are_cut_to_the_most_frequent() {
    let trace = TracedShape {
        read_sizes: (1..=80u64).map(|k| (k * 512, 100 + k)).collect(),
        ..TracedShape::default()
    };
    let built = build_replay(&request(p90(100.0, 0.0, 1.0), Some(trace))).unwrap();
    let split = built.option("bssplit").unwrap();
    assert!(split.split(':').count() <= BSSPLIT_MAX, "{split}");
    let total: u64 = split
        .split(':')
        .map(|e| e.split('/').nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 100);
}

#[test]
fn an_even_trace_gets_uniform_offsets() {
    let mut trace = traced();
    trace.hot_share = Some(0.85);
    let built = build_replay(&request(p90(100.0, 100.0, 1.0), Some(trace))).unwrap();
    assert_eq!(built.option("random_distribution"), None);
    assert!(built.notes.iter().any(|n| n.contains("spread evenly")));
}

#[test]
fn a_trace_without_sizes_for_a_direction_falls_back_to_the_counters() {
    let mut trace = traced();
    trace.write_sizes.clear();
    let built = build_replay(&request(p90(100.0, 100.0, 1.0), Some(trace))).unwrap();
    assert_eq!(built.option("bs"), Some("8k,64k"));
    assert_eq!(built.option("bssplit"), None);
}

#[test]
fn a_level_with_no_io_or_a_damaged_figure_is_refused() {
    assert_eq!(
        build_replay(&request(p90(0.0, 0.0, 1.0), None)),
        Err(ReplayError::NoIo { level: Level::P90 })
    );
    assert!(matches!(
        build_replay(&request(p90(f64::NAN, 1.0, 1.0), None)),
        Err(ReplayError::NotFinite { what: "r/s", .. })
    ));
    let mut asked = request(p90(1.0, 1.0, 1.0), None);
    asked.random_percent = Some(101);
    assert_eq!(
        build_replay(&asked),
        Err(ReplayError::RandomOutOfRange(101))
    );
}

#[test]
fn the_options_build_the_job_diskmeter_runs() {
    let built = build_replay(&request(p90(1400.0, 600.0, 3.2), Some(traced()))).unwrap();
    let options: Vec<(String, Option<String>)> = built
        .options
        .iter()
        .map(|(n, v)| (n.clone(), Some(v.clone())))
        .collect();
    let jobs = diskmeter_workload::jobs_from_options(&options).expect("the options parse");
    let job = &jobs[0];
    assert_eq!(job.name, "replay-7-p90");
    assert_eq!(job.rwmixread, 70);
    // Reads are a split, so both directions are paced in bytes at their mean sizes.
    assert_eq!(job.rate_bytes_per_sec.read, Some(43_581_440));
    assert_eq!(job.rate_iops.read, None);
    assert_eq!(job.rate_bytes_per_sec.write, Some(600 * 4096));
    assert_eq!(job.rate_iops.write, None);
    assert_eq!(job.iodepth, 4);
    assert_eq!(job.percentage_random, 30);
    assert!(job.direct && job.time_based);
    assert_eq!(diskmeter_workload::validate(job), Vec::new());
}

#[test]
fn the_job_file_lists_the_comments_the_notes_then_one_section() {
    let built = build_replay(&request(p90(1400.0, 600.0, 3.2), None)).unwrap();
    let text = built.job_file(
        &["replay of capture 7 at p90".into()],
        &[("filename".into(), "/dev/vdb".into())],
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# replay of capture 7 at p90");
    let section = lines.iter().position(|l| *l == "[replay-7-p90]").unwrap();
    assert!(lines[..section].iter().all(|l| l.starts_with("# ")));
    assert_eq!(lines[section + 1], "size=1g");
    assert_eq!(*lines.last().unwrap(), "filename=/dev/vdb");
    assert!(
        !text.lines().any(|l| l.starts_with("name=")),
        "the section names the job"
    );
}

#[test]
fn level_figures_are_a_column_of_the_checklist() {
    use crate::requirements::{ChecklistBuilder, WindowSet};
    use diskmeter_capture::{CaptureSample, DeviceInterval, SystemInterval};
    let interval = |reads: f64, writes: f64, queue: f64| DeviceInterval {
        device: "vdb".into(),
        reads_per_sec: reads,
        writes_per_sec: writes,
        discards_per_sec: 0.0,
        flushes_per_sec: 0.0,
        flush_await_ms: 0.0,
        read_kib_per_sec: reads * 8.0,
        write_kib_per_sec: writes * 16.0,
        read_merges_per_sec: 0.0,
        write_merges_per_sec: 0.0,
        read_await_ms: 0.5,
        write_await_ms: 1.0,
        queue_size: queue,
        read_request_kib: 8.0,
        write_request_kib: 16.0,
        util_percent: 50.0,
    };
    let system = SystemInterval {
        cpu_busy_percent: 0.0,
        cpu_user_percent: 0.0,
        cpu_system_percent: 0.0,
        cpu_iowait_percent: 0.0,
        memory_used_bytes: 0,
        memory_total_bytes: 1,
        memory_cached_bytes: 0,
        io_pressure_some_percent: None,
        io_pressure_full_percent: None,
    };
    let mut builder = ChecklistBuilder::new(None, WindowSet::default());
    // 50 quiet intervals, 45 busy, 5 peaks: p90 is a busy one.
    for i in 0..100u64 {
        let device = match i % 20 {
            0 => interval(3000.0, 1500.0, 12.0),
            1..=9 => interval(1400.0, 600.0, 3.2),
            _ => interval(500.0, 200.0, 1.0),
        };
        builder.push(&CaptureSample {
            start_unix_ms: i * 1000,
            duration_ms: 1000.0,
            devices: vec![device],
            system: system.clone(),
        });
    }
    let checklist = builder.finish().unwrap().whole;
    let figures = LevelFigures::from_checklist(&checklist, Level::P90);
    assert_eq!(figures.level, Level::P90);
    assert!((figures.read_iops - 1400.0).abs() < 1400.0 * 1e-3);
    assert!((figures.write_iops - 600.0).abs() < 600.0 * 1e-3);
    assert!((figures.queue_depth - 3.2).abs() < 3.2 * 1e-3);
    assert_eq!(figures.read_request_bytes, Some(8192.0));
    assert_eq!(figures.write_request_bytes, Some(16384.0));
    assert_eq!(figures.read_latency_ms, Some(0.5));
    assert_eq!(figures.write_latency_ms, Some(1.0));
    let built = build_replay(&request(figures.clone(), None)).unwrap();
    // Rounded up from the histogram's figure (within 0.1 % of 1,400 and 600).
    let rates = format!("{},{}", figures.read_iops.ceil(), figures.write_iops.ceil());
    assert_eq!(built.option("rate_iops"), Some(rates.as_str()));
    // Little's law: (1,400 x 0.5 ms + 600 x 1 ms) x 4 = 5.2 IOs, over aqu-sz 3.2.
    assert_eq!(built.option("iodepth"), Some("6"));
}

#[test]
fn traces_of_several_devices_add_their_sizes_and_weigh_their_random_shares() {
    use diskmeter_capture::{SizeShare, TraceDirection};
    let trace = |device: &str, sizes: &[(u64, u64)], random: f64| TraceProfile {
        device: device.into(),
        device_bytes: None,
        duration_ns: 1,
        ios: sizes.iter().map(|(_, n)| n).sum(),
        lost_events: 0,
        read: TraceDirection {
            ios: sizes.iter().map(|(_, n)| n).sum(),
            sizes: sizes
                .iter()
                .map(|&(bytes, ios)| SizeShare { bytes, ios })
                .collect(),
            ..TraceDirection::default()
        },
        write: TraceDirection::default(),
        random_fraction: random,
        queue_depth: Default::default(),
        interarrival_ns: Default::default(),
        hot_set: diskmeter_capture::HotSet {
            region_bytes: 1 << 20,
            working_set_bytes: 64 << 20,
            share_for_80_percent_of_ios: 0.1,
            device_share_for_80_percent_of_ios: None,
        },
        processes: vec![],
        iolog_path: None,
        sequential_writes: Vec::new(),
        details: Default::default(),
    };
    let a = trace("vda", &[(4096, 300), (8192, 100)], 1.0);
    let b = trace("vdb", &[(4096, 100)], 0.0);
    let one = TracedShape::from_traces(&[&a]).unwrap();
    assert_eq!(one.hot_share, Some(0.1));
    let both = TracedShape::from_traces(&[&a, &b]).unwrap();
    assert_eq!(both.read_sizes, vec![(4096, 400), (8192, 100)]);
    assert!((both.random_fraction - 0.8).abs() < 1e-9);
    assert_eq!(
        both.hot_share, None,
        "hot sets of two devices do not add up"
    );
    assert_eq!(TracedShape::from_traces(&[]), None);
}

#[test]
fn exact_replays_the_traced_log_onto_the_target_at_the_traced_depth() {
    let built = build_exact_replay(&ExactRequest {
        name: "replay-7-exact".into(),
        iolog_path: "/var/lib/trace/vdb.log".into(),
        redirect: Some("/dev/vdc".into()),
        traced_max_queue_depth: 11.2,
    });
    assert_eq!(built.option("read_iolog"), Some("/var/lib/trace/vdb.log"));
    assert_eq!(built.option("replay_redirect"), Some("/dev/vdc"));
    assert_eq!(built.option("iodepth"), Some("12"));
    assert_eq!(built.option("rate_iops"), None, "the log sets the rate");
    let options: Vec<(String, Option<String>)> = built
        .options
        .iter()
        .map(|(n, v)| (n.clone(), Some(v.clone())))
        .collect();
    let job = &diskmeter_workload::jobs_from_options(&options).unwrap()[0];
    assert_eq!(diskmeter_workload::validate(job), Vec::new());
}

#[test]
fn a_capture_whose_counts_and_rates_are_near_u64_max_builds_a_replay_not_a_panic() {
    // A stored capture is a document; a damaged one can hold any number (found by fuzzing):
    // the read share summed two rates of u64::MAX, the sizes summed their IOs.
    let sizes = vec![(4096, u64::MAX), (8192, u64::MAX), (4096, 1)];
    let shape = TracedShape {
        read_sizes: sizes.clone(),
        write_sizes: sizes,
        random_fraction: 0.5,
        ..TracedShape::default()
    };
    let built = build_replay(&request(p90(1e300, 1e300, 4.0), Some(shape))).unwrap();
    assert_eq!(built.option("rwmixread"), Some("50"));
    assert_eq!(built.option("bssplit"), Some("4k/50:8k/50,4k/50:8k/50"));
}

#[test]
fn traces_whose_counts_add_up_past_u64_max_combine_without_a_panic() {
    use diskmeter_capture::{SizeShare, TraceDirection};
    let direction = TraceDirection {
        ios: u64::MAX,
        sizes: vec![SizeShare {
            bytes: 4096,
            ios: u64::MAX,
        }],
        ..TraceDirection::default()
    };
    let trace = TraceProfile {
        device: "vda".into(),
        device_bytes: None,
        duration_ns: 1,
        ios: u64::MAX,
        lost_events: 0,
        read: direction.clone(),
        write: direction,
        random_fraction: 1.0,
        queue_depth: Default::default(),
        interarrival_ns: Default::default(),
        hot_set: Default::default(),
        processes: vec![],
        iolog_path: None,
        sequential_writes: Vec::new(),
        details: Default::default(),
    };
    let both = TracedShape::from_traces(&[&trace, &trace]).unwrap();
    assert_eq!(both.read_sizes, vec![(4096, u64::MAX)]);
    assert_eq!(both.random_fraction, 1.0);
}

#[test]
fn a_queue_deeper_than_iodepth_takes_is_cut_to_its_limit_with_a_note() {
    // A damaged capture's aqu-sz of 4.6e12 made iodepth=4613937818242, which the option
    // table refuses: the replay's own job did not parse (found by fuzzing).
    let built = build_replay(&request(p90(100.0, 0.0, 4.6e12), None)).unwrap();
    assert_eq!(built.option("iodepth"), Some("65536"));
    assert!(built
        .notes
        .iter()
        .any(|n| n.contains("more than iodepth takes")));
    let exact = build_exact_replay(&ExactRequest {
        name: "replay-7-exact".into(),
        iolog_path: "/t.log".into(),
        redirect: None,
        traced_max_queue_depth: f64::MAX,
    });
    assert_eq!(exact.option("iodepth"), Some("65536"));
    for workload in [built, exact] {
        let options: Vec<(String, Option<String>)> = workload
            .options
            .iter()
            .map(|(n, v)| (n.clone(), Some(v.clone())))
            .collect();
        diskmeter_workload::jobs_from_options(&options).unwrap();
    }
}

#[test]
fn rates_are_rounded_up_so_the_replay_can_reach_its_level() {
    let built = build_replay(&request(p90(1400.6, 600.2, 1.0), None)).unwrap();
    assert_eq!(built.option("rate_iops"), Some("1401,601"));
    let built = build_replay(&request(p90(0.2, 0.0, 1.0), None)).unwrap();
    assert_eq!(built.option("rate_iops"), Some("1"));
}

#[test]
fn the_depth_is_the_larger_of_the_captured_queue_and_littles_law_with_headroom() {
    // 2,000 IOPS at 2 ms need 4 in flight; with 4x headroom 16, over aqu-sz 1.5.
    let mut level = p90(1400.0, 600.0, 1.5);
    level.read_latency_ms = Some(2.0);
    level.write_latency_ms = Some(2.0);
    let depth = replay_depth(&level, [1400, 600], None);
    assert_eq!(depth.captured, 2);
    assert_eq!(depth.littles_law, Some(16));
    assert_eq!(depth.iodepth, 16);
    assert!((depth.latency_ms.unwrap() - 2.0).abs() < 1e-9);
    // A deep captured queue stands over a fast device's law.
    level.queue_depth = 31.2;
    assert_eq!(replay_depth(&level, [1400, 600], None).iodepth, 32);
    // The trace's p99 stands over both.
    assert_eq!(replay_depth(&level, [1400, 600], Some(40.5)).iodepth, 41);
    // Per direction: 1,000 r/s x 1 ms + 100 w/s x 10 ms = 2 in flight, x4 = 8.
    let mut level = p90(1000.0, 100.0, 0.5);
    level.read_latency_ms = Some(1.0);
    level.write_latency_ms = Some(10.0);
    let depth = replay_depth(&level, [1000, 100], None);
    assert_eq!((depth.littles_law, depth.iodepth), (Some(8), 8));
    let built = build_replay(&request(level, None)).unwrap();
    assert_eq!(built.option("iodepth"), Some("8"));
    let note = built
        .notes
        .iter()
        .find(|n| n.starts_with("iodepth 8"))
        .unwrap();
    assert!(
        note.contains("Little's law") && note.contains("4x"),
        "{note}"
    );
}

#[test]
fn without_a_latency_the_depth_is_the_captured_one_and_says_so() {
    let depth = replay_depth(&p90(1400.0, 600.0, 3.2), [1400, 600], None);
    assert_eq!((depth.iodepth, depth.littles_law), (4, None));
    assert!(depth.note(Level::P90).contains("not applied"));
    // A direction without IO needs no latency.
    let mut level = p90(0.0, 600.0, 0.2);
    level.write_latency_ms = Some(0.5);
    assert_eq!(replay_depth(&level, [0, 600], None).littles_law, Some(2));
}

#[test]
fn without_a_trace_flushes_are_taken_for_fsyncs_with_their_empty_writes() {
    assert_eq!(plan_flushes(0.0, 600, None), None);
    assert_eq!(plan_flushes(100.0, 0, None), None);
    // 600 w/s of which 100 are the flushes' empty writes: 500 data writes, a sync every 5
    // of them, paced at 600 x 5/6 = 500: 500 + 100 syncs count as 600 writes again.
    let plan = plan_flushes(100.0, 600, None).unwrap();
    assert_eq!(
        (plan.plain_writes, plan.every, plan.dsync_writes),
        (500, Some(5), 0)
    );
    // 460 data writes / 140 = 3.3: every 3, 600 x 3/4 = 450 data + 150 syncs.
    let plan = plan_flushes(140.0, 600, None).unwrap();
    assert_eq!((plan.plain_writes, plan.every), (450, Some(3)));
    // More flushes than half the writes: a sync after every data write, the most fio can.
    let plan = plan_flushes(535.0, 600, None).unwrap();
    assert_eq!((plan.plain_writes, plan.every), (300, Some(1)));
    let mut level = p90(1400.0, 600.0, 1.0);
    level.flushes_per_sec = 100.0;
    let built = build_replay(&request(level.clone(), None)).unwrap();
    assert_eq!(built.option("fdatasync"), Some("5"));
    assert_eq!(built.option("rate_iops"), Some("1400,500"));
    assert!(built.more_jobs.is_empty());
    // wareq-sz counted the empty writes: the data writes are 6/5 as large (64 KiB -> 76.8 KiB,
    // rounded to whole sectors: 154 x 512 bytes = 77 KiB).
    assert_eq!(built.option("bs"), Some("8k,77k"));
    assert!(built.notes.iter().any(|n| n.starts_with("fdatasync 5")));
    level.write_iops = 0.0;
    let built = build_replay(&request(level, None)).unwrap();
    assert_eq!(built.option("fdatasync"), None);
    assert!(built
        .notes
        .iter()
        .any(|n| n.contains("not replayed") && n.contains("f/s")));
}

#[test]
fn a_trace_tells_fsyncs_from_flushes_that_rode_on_data_writes() {
    // 600 counted w/s, the trace saw 580 data writes/s for every 600 counted: 20 empty
    // writes (fsyncs); of 120 f/s the other 100 came with data writes (journal commits).
    let plan = plan_flushes(120.0, 600, Some(580.0 / 600.0)).unwrap();
    assert_eq!(plan.dsync_writes, 100);
    assert_eq!(plan.plain_writes, 480);
    assert_eq!(plan.every, Some(24), "480 / 20");
    assert!((plan.syncs_per_sec() - 20.0).abs() < 1e-9);
    // Every counted write carried data: all flushes ride on writes, no fdatasync.
    let plan = plan_flushes(120.0, 600, Some(1.0)).unwrap();
    assert_eq!(
        (plan.plain_writes, plan.every, plan.dsync_writes),
        (480, None, 120)
    );
    // A level of 1,400 r/s + 600 w/s: the random job keeps the reads and the plain writes,
    // a second job the writes with their own flush, both with the target.
    let mut level = p90(1400.0, 600.0, 1.0);
    level.flushes_per_sec = 120.0;
    level.write_iops_mean = Some(600.0);
    let mut trace = traced();
    trace.write_ios_per_sec = Some(580.0);
    let built = build_replay(&request(level, Some(trace))).unwrap();
    assert_eq!(built.option("fdatasync"), Some("24"));
    assert_eq!(built.more_jobs.len(), 1);
    let second = &built.more_jobs[0];
    let get = |name: &str| {
        second
            .iter()
            .find(|(o, _)| o == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("name"), Some("replay-7-p90-dsync"));
    assert_eq!(get("rw"), Some("randwrite"));
    assert_eq!(get("sync"), Some("dsync"));
    assert_eq!(get("rate_iops"), Some("100"));
    assert_eq!(get("bssplit"), Some("4k/100"));
    assert_eq!(get("fdatasync"), None);
    let file = built.job_file(&[], &[("filename".into(), "/dev/vdc".into())]);
    assert_eq!(file.matches("filename=/dev/vdc").count(), 2, "{file}");
    assert!(file.contains("\n[replay-7-p90-dsync]\n"), "{file}");
    for options in built.jobs() {
        let options: Vec<(String, Option<String>)> =
            options.iter().cloned().map(|(k, v)| (k, Some(v))).collect();
        diskmeter_workload::jobs_from_options(&options).expect("the job parses");
    }
}

#[test]
fn a_sequential_write_stream_gets_a_job_of_its_own_at_its_sizes() {
    // 1,000 traced writes, 300 of them 2 KiB appends that continued their stream; 400
    // reads; 46 % of all IOs random: of the 1,400 IOs 756 sequential, 300 the log's, so the
    // random job keeps 1,100 IOs of which 456 sequential (reads).
    let mut trace = traced();
    trace.read_sizes = vec![(8192, 400)];
    trace.write_sizes = vec![(8192, 700), (2048, 300)];
    trace.sequential_write_sizes = vec![(2048, 300)];
    trace.random_fraction = 1.0 - 756.0 / 1400.0;
    let split = split_streams(Some(&trace), 600, 0);
    assert!((split.sequential_share - 0.3).abs() < 1e-9);
    assert_eq!(split.sequential_plain, 180);
    assert_eq!(split.sequential_sizes, vec![(2048, 300)]);
    let random = split.random_fraction.unwrap();
    assert!((random - (1.0 - 456.0 / 1100.0)).abs() < 1e-9, "{random}");
    // The writes with their own flush are taken from the stream first.
    let split = split_streams(Some(&trace), 600, 100);
    assert_eq!(split.sequential_plain, 80);
    let split = split_streams(Some(&trace), 600, 500);
    assert_eq!(split.sequential_plain, 0);
    // A few writes that happened to follow each other are no stream.
    trace.sequential_write_sizes = vec![(2048, 50)];
    assert_eq!(split_streams(Some(&trace), 600, 0), StreamSplit::default());
    assert_eq!(split_streams(None, 600, 0), StreamSplit::default());

    // The workload: the random job and a sequential one at the stream's sizes and rate.
    trace.sequential_write_sizes = vec![(2048, 300)];
    let built = build_replay(&request(p90(400.0, 600.0, 1.0), Some(trace))).unwrap();
    assert_eq!(built.option("rw"), Some("randrw"));
    assert_eq!(built.more_jobs.len(), 1);
    let log = &built.more_jobs[0];
    let get = |name: &str| log.iter().find(|(o, _)| o == name).map(|(_, v)| v.as_str());
    assert_eq!(get("name"), Some("replay-7-p90-seq"));
    assert_eq!(get("rw"), Some("write"));
    assert_eq!(get("bssplit"), Some("2k/100"));
    assert_eq!(get("rate_iops"), Some("180"));
    assert_eq!(get("percentage_random"), None);
    assert_eq!(built.option("percentage_random"), Some("59"));
    // The random job writes the sizes that did not continue a stream.
    assert_eq!(built.option("bssplit"), Some("8k/100,8k/100"));
    assert!(built
        .notes
        .iter()
        .any(|n| n.starts_with("replay-7-p90-seq: 180 writes/s")));
}

#[test]
fn a_damaged_capture_with_few_flushes_among_huge_writes_still_builds_a_job_that_parses() {
    // Found by fuzzing: 1.5e15 writes per flush is more than fdatasync= takes (a u32).
    let mut level = p90(100.0, 1e18, 1.0);
    level.flushes_per_sec = 1.0;
    let built = build_replay(&request(level, None)).unwrap();
    assert_eq!(built.option("fdatasync"), Some("4294967295"));
    for options in built.jobs() {
        let options: Vec<(String, Option<String>)> =
            options.iter().cloned().map(|(k, v)| (k, Some(v))).collect();
        diskmeter_workload::jobs_from_options(&options).expect("the job parses");
    }
}

#[test]
fn a_level_whose_mib_per_s_needs_more_ios_than_its_iops_is_paced_to_carry_both() {
    let mut level = p90(1400.0, 0.0, 1.0);
    // 1,400 reads/s of 8 KiB are 10.9 MiB/s; the level's MiB/s is 3 % more.
    level.read_bytes_per_sec = Some(1400.0 * 8192.0 * 1.03);
    let built = build_replay(&request(level, None)).unwrap();
    assert_eq!(built.option("rate_iops"), Some("1442"));
    assert!(
        built.notes.iter().any(|n| n.contains("carries both")),
        "{:?}",
        built.notes
    );
    // At or under the IOPS' own throughput, the IOPS set the rate.
    let mut level = p90(1400.0, 0.0, 1.0);
    level.read_bytes_per_sec = Some(1400.0 * 8192.0);
    let built = build_replay(&request(level, None)).unwrap();
    assert_eq!(built.option("rate_iops"), Some("1400"));
}
