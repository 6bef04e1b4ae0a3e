//! `RunResult::build`: group_reporting merges clones, other clones stay separate, and the
//! derived figures (rates, CPU share, group totals) follow fio's definitions.

mod common;

use diskmeter_report::RunResult;

#[test]
fn group_reporting_merges_clones_into_one_job_named_after_the_first() {
    let result = RunResult::build(common::sample_input(false));
    assert_eq!(result.jobs.len(), 3, "1 merged reader + 2 separate writers");
    let reader = &result.jobs[0];
    assert_eq!(reader.name, "randread-4k");
    assert_eq!((reader.workers, reader.clone_index), (2, None));
    assert_eq!(reader.read.ios, 6_000);
    assert_eq!(reader.read.bytes, 6_000 * 4096);
    // Runtime is the longest clone's; CPU shares are over the summed runtimes.
    assert_eq!(reader.runtime_ns, 3_000_000_000);
    assert_eq!(reader.workers_runtime_ns, 5_999_000_000);
    assert_eq!(reader.read.iops, 2_000.0);
    assert!((reader.cpu.usr_percent - 5.0).abs() < 0.01);
    assert!((reader.cpu.sys_percent - 25.0).abs() < 0.01);
    assert_eq!(reader.targets.len(), 1, "the shared target is listed once");
    // Merged per-second series sum the clones: 2 x 1000 IOs per second.
    assert_eq!(reader.read.iops_samples.samples, 3);
    assert!((reader.read.iops_samples.mean - 2_000.0).abs() < 1.0);
    assert_eq!(reader.write.ios, 0);
    assert_eq!(reader.write.runtime_ns, 0);
}

#[test]
fn clones_without_group_reporting_are_reported_separately() {
    let result = RunResult::build(common::sample_input(false));
    let writers: Vec<_> = result.jobs.iter().filter(|j| j.group_id == 1).collect();
    assert_eq!(writers.len(), 2);
    assert_eq!(writers[0].clone_index, Some(0));
    assert_eq!(writers[1].clone_index, Some(1));
    assert_eq!(writers[0].error, None);
    assert!(writers[1]
        .error
        .as_deref()
        .unwrap()
        .starts_with("write /data/w.1.0"));
    assert_eq!(writers[0].write.lat_intended.count, 1_000);
    assert!(writers[0].write.lat_intended.mean_ns > writers[0].write.lat.mean_ns);
    assert!((writers[0].write.bw_percent_of_group - 50.0).abs() < 1e-9);
}

#[test]
fn percentiles_follow_the_percentile_list_and_lie_within_min_max() {
    let result = RunResult::build(common::sample_input(false));
    let clat = &result.jobs[0].read.clat;
    assert_eq!(clat.percentiles.len(), 17);
    assert_eq!(clat.percentiles[16].percent, 99.99);
    for p in &clat.percentiles {
        assert!(clat.min_ns <= p.value_ns && p.value_ns <= clat.max_ns);
    }
    assert!(
        result.jobs[0].write.clat.percentiles.is_empty(),
        "no writes, no percentiles"
    );
}

#[test]
fn latency_buckets_cover_every_io() {
    let result = RunResult::build(common::sample_input(false));
    for job in &result.jobs {
        assert_eq!(job.lat_buckets.len(), 32);
        let total: u64 = job.lat_buckets.iter().map(|b| b.count).sum();
        assert_eq!(total, job.read.ios + job.write.ios);
        let percent: f64 = job.lat_buckets.iter().map(|b| b.percent).sum();
        assert!((percent - 100.0).abs() < 1e-9);
    }
}

#[test]
fn group_totals_follow_fio_run_status() {
    let result = RunResult::build(common::sample_input(false));
    assert_eq!(result.groups.len(), 2);
    let g1 = &result.groups[1];
    assert_eq!((g1.group_id, g1.workers), (1, 2));
    assert_eq!(g1.write.io_bytes, 2 * 1_000 * 8192);
    // Aggregate = all bytes over the longest runtime.
    assert!((g1.write.bw_bytes_per_sec - 2.0 * 8_192_000.0 / 2.5).abs() < 1e-6);
    assert_eq!(g1.write.min_runtime_ns, 2_500_000_000);
    assert_eq!(g1.read, Default::default());
}
