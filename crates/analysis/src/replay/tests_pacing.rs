//! The replay's pacing: the queue depth (captured, traced, Little's law, cut to iodepth's
//! limit), rates rounded up to reach the level, flushes replayed as fdatasync and dsync
//! writes, and the sequential stream's own job.

use super::tests::{p90, request, traced};
use super::*;

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
