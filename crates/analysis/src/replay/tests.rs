//! The replay builder: each option comes from the figure the module docs say, and the options
//! build the job diskmeter runs (they parse with the workload crate's fio option table).

use super::*;
use diskmeter_capture::TraceProfile;

pub(super) fn p90(read_iops: f64, write_iops: f64, queue_depth: f64) -> LevelFigures {
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

pub(super) fn request(level: LevelFigures, trace: Option<TracedShape>) -> ReplayRequest {
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
pub(super) fn traced() -> TracedShape {
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
fn an_exact_replay_needs_one_logged_device_its_log_and_a_target() {
    let traced = |device: &str, log: Option<&str>| TraceProfile {
        device: device.into(),
        device_bytes: None,
        duration_ns: 1,
        ios: 1,
        lost_events: 0,
        read: Default::default(),
        write: Default::default(),
        random_fraction: 0.0,
        queue_depth: Default::default(),
        interarrival_ns: Default::default(),
        hot_set: Default::default(),
        processes: vec![],
        iolog_path: log.map(str::to_string),
        sequential_writes: Vec::new(),
        details: Default::default(),
    };
    let (vda, vdb, bare) = (
        traced("vda", Some("/h/iologs/capture-3.log")),
        traced("vdb", Some("/h/iologs/capture-3b.log")),
        traced("vdc", None),
    );
    let there = |_: &str| true;
    let target = Some("/dev/loop0".to_string());
    assert_eq!(
        exact_request(3, &[&bare], target.clone(), false, there),
        Err(ExactError::NoLog { id: 3 })
    );
    let several = exact_request(3, &[&vda, &vdb], target.clone(), false, there).unwrap_err();
    assert!(several.to_string().contains("(vda, vdb)"), "{several}");
    assert!(matches!(
        exact_request(3, &[&vda], target.clone(), false, |_| false),
        Err(ExactError::LogGone { .. })
    ));
    assert_eq!(
        exact_request(3, &[&vda, &bare], None, false, there),
        Err(ExactError::NoTarget)
    );
    let request = exact_request(3, &[&vda, &bare], None, true, there).unwrap();
    assert_eq!(request.name, "replay-3-exact");
    assert_eq!(request.redirect, None);
    let jobs = build_exact_replay(&ExactRequest {
        redirect: target,
        ..request
    })
    .job_specs(&[])
    .unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].name, "replay-3-exact");
}

#[test]
fn the_target_is_named_in_the_job_file_only_where_the_workload_does_not_aim_elsewhere() {
    let workload = build_replay(&request(p90(100.0, 50.0, 2.0), None)).unwrap();
    let options = |target, is_dir, emulated| workload.target_options(target, is_dir, emulated);
    let named = |option: &str| vec![(option.to_string(), "/mnt/x".to_string())];
    assert_eq!(options(Some("/mnt/x"), false, false), named("filename"));
    assert_eq!(options(Some("/mnt/x"), true, false), named("directory"));
    assert!(options(Some("/mnt/x"), false, true).is_empty());
    assert!(options(None, false, false).is_empty());
    let exact = ReplayWorkload {
        options: vec![("read_iolog".into(), "trace.log".into())],
        more_jobs: Vec::new(),
        notes: Vec::new(),
    };
    assert!(exact
        .target_options(Some("/dev/x"), false, false)
        .is_empty());
}
