//! `merge_ranks`: exact merging of several ranks' results, what it refuses, and property
//! tests that a histogram split across ranks merges back into the histogram of all.

mod common;

use diskmeter_report::merge::{merge_ranks, MergeError};
use diskmeter_report::{JobInput, RankInfo, RunInput, RunMeta, RunResult};
use diskmeter_stats::{Direction, IntervalRecorder, WorkerStats};
use diskmeter_workload::{JobSpec, RwMode};
use proptest::prelude::*;

const SEC: u64 = 1_000_000_000;

/// One rank's result of a single-job run whose IOs had the latencies `clats`.
fn rank_result(rank: u32, ranks: u32, clats: &[u64], with_rank: bool) -> RunResult {
    let spec = JobSpec {
        name: "randread".to_string(),
        rw: RwMode::RandRead,
        ioengine: diskmeter_workload::EngineKind::Null,
        filenames: vec![format!("/data/rank{rank}").into()],
        ..JobSpec::default()
    };
    let mut stats = WorkerStats::new();
    let mut series = IntervalRecorder::new(SEC);
    for (i, &clat) in clats.iter().enumerate() {
        stats.read.record_io(4096, 100, clat);
        series.record(Direction::Read, 4096, clat, i as u64 * 1_000);
    }
    stats.series = series.finish(2 * SEC);
    stats.runtime_ns = 2 * SEC - u64::from(rank) * 1_000;
    let start_ns = 1_800_000_000 * SEC + u64::from(rank) * 50_000;
    RunResult::build(RunInput {
        meta: RunMeta {
            diskmeter_version: "0.1.0".into(),
            started_unix_ms: start_ns / 1_000_000,
            finished_unix_ms: start_ns / 1_000_000 + 2_100,
            partial: false,
            hostname: format!("host-{rank}"),
            notes: vec!["same everywhere".into(), format!("only rank {rank}")],
            phase_starts_unix_ns: vec![start_ns, start_ns + SEC],
            io_finished_unix_ns: start_ns + 2 * SEC,
            rank: with_rank.then_some(RankInfo { rank, ranks }),
        },
        jobs: vec![JobInput {
            spec,
            clone_index: 0,
            group_id: 0,
            stats,
            error: None,
            targets: Vec::new(),
            steady_state: None,
        }],
    })
}

fn latencies(seed: u64, n: usize) -> Vec<u64> {
    (0..n as u64)
        .map(|i| 1_000 + (i * 7_919 + seed * 104_729) % 900_000)
        .collect()
}

#[test]
fn counts_add_up_and_percentiles_are_those_of_all_ios() {
    let parts: Vec<Vec<u64>> = (0..4u64)
        .map(|r| latencies(r, 500 + r as usize * 100))
        .collect();
    let results: Vec<RunResult> = (0..4)
        .map(|r| rank_result(r, 4, &parts[r as usize], true))
        .collect();
    let all: Vec<u64> = parts.concat();
    let whole = rank_result(0, 1, &all, false);
    let merged = merge_ranks(results.clone()).expect("merges");
    let job = &merged.jobs[0];
    assert_eq!(job.read.ios, all.len() as u64);
    assert_eq!(
        job.read.clat, whole.jobs[0].read.clat,
        "summaries of all IOs"
    );
    assert_eq!(job.read.lat, whole.jobs[0].read.lat);
    assert_eq!(job.lat_buckets, whole.jobs[0].lat_buckets);
    assert_eq!(job.workers, 4);
    assert_eq!(job.runtime_ns, 2 * SEC, "the longest rank's runtime");
    assert_eq!(job.series[0].read.ios, all.len() as u64);
    let s = merged.scale_out.as_ref().expect("scale_out");
    assert_eq!(s.ranks, 4);
    assert_eq!(s.total_ios, all.len() as u64);
    assert_eq!(s.phases.len(), 2);
    assert_eq!(s.phases[1].skew_ns, 150_000);
    assert_eq!(s.window_ns, 2 * SEC + 150_000);
    assert_eq!(merged.ranks.len(), 4);
    assert!(merged.meta.rank.is_none());
    assert!(merged.meta.notes.contains(&"same everywhere".to_string()));
    assert!(merged
        .meta
        .notes
        .contains(&"rank 3: only rank 3".to_string()));
    assert_eq!(merged.groups[0].read.ios, all.len() as u64);
}

#[test]
fn rank_order_comes_from_meta_rank_and_gaps_are_refused() {
    let mut results: Vec<RunResult> = (0..3)
        .map(|r| rank_result(r, 3, &latencies(u64::from(r), 10), true))
        .collect();
    results.reverse();
    let merged = merge_ranks(results.clone()).unwrap();
    let hosts: Vec<&str> = merged
        .ranks
        .iter()
        .map(|r| r.meta.hostname.as_str())
        .collect();
    assert_eq!(hosts, ["host-0", "host-1", "host-2"]);
    let mut duplicate = results.clone();
    duplicate[0] = duplicate[1].clone();
    let error = merge_ranks(duplicate).unwrap_err();
    assert!(
        matches!(error, MergeError::DuplicateRank { rank: 1, .. }),
        "{error}"
    );
    let error = merge_ranks(results[..2].to_vec()).unwrap_err();
    assert!(
        error.to_string().contains("rank(s) 0 are missing"),
        "{error}"
    );
    // A rank count no run had (a hand-edited file) is refused, not allocated for.
    let mut absurd = results.clone();
    for result in &mut absurd {
        result.meta.rank.as_mut().unwrap().ranks = u32::MAX;
    }
    let error = merge_ranks(absurd).unwrap_err();
    assert!(
        matches!(
            error,
            MergeError::MissingRanks {
                ranks: u32::MAX,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn differing_workloads_are_refused_naming_the_option_and_both_values() {
    let a = rank_result(0, 2, &latencies(0, 10), false);
    let mut b = rank_result(1, 2, &latencies(1, 10), false);
    for option in &mut b.jobs[0].options {
        if option.name == "bs" {
            option.value = "8k".into();
        }
    }
    let error = merge_ranks(vec![a.clone(), b]).unwrap_err().to_string();
    assert!(error.contains("bs=8k in rank 1 (host-1)"), "{error}");
    assert!(error.contains("bs=4k in rank 0 (host-0)"), "{error}");
    // The file names differ per rank and may.
    let c = rank_result(1, 2, &latencies(1, 10), false);
    assert_ne!(a.jobs[0].option("filename"), c.jobs[0].option("filename"));
    merge_ranks(vec![a, c]).expect("filename may differ");
}

#[test]
fn results_without_histograms_and_empty_lists_are_refused() {
    assert!(matches!(merge_ranks(Vec::new()), Err(MergeError::Empty)));
    let mut old = rank_result(1, 2, &latencies(1, 10), false);
    old.jobs[0].histograms = None;
    let error = merge_ranks(vec![rank_result(0, 2, &latencies(0, 10), false), old]).unwrap_err();
    assert_eq!(error.inputs(), vec![1]);
    assert!(
        error.to_string().contains("no latency histograms"),
        "{error}"
    );
}

#[test]
fn a_merge_of_one_is_itself_plus_scale_out() {
    let one = rank_result(0, 1, &latencies(0, 100), false);
    let merged = merge_ranks(vec![one.clone()]).unwrap();
    assert_eq!(merged.jobs, one.jobs);
    assert_eq!(merged.groups, one.groups);
    assert_eq!(merged.ranks, vec![one]);
    assert_eq!(merged.scale_out.unwrap().ranks, 1);
    let again = merge_ranks(vec![
        merge_ranks(vec![rank_result(0, 1, &[5], false)]).unwrap()
    ]);
    assert!(matches!(again, Err(MergeError::AlreadyMerged { .. })));
}

#[test]
fn a_failing_rank_prefixes_its_error_and_the_json_round_trips() {
    let a = rank_result(0, 2, &latencies(0, 10), false);
    let mut b = rank_result(1, 2, &latencies(1, 10), false);
    b.jobs[0].error = Some("read /data/rank1: Input/output error".into());
    let merged = merge_ranks(vec![a, b]).unwrap();
    assert_eq!(
        merged.jobs[0].error.as_deref(),
        Some("rank 1 (host-1): read /data/rank1: Input/output error")
    );
    let text = diskmeter_report::to_json(&merged);
    assert_eq!(diskmeter_report::from_json(&text).unwrap(), merged);
    let terminal = diskmeter_report::render_terminal(&merged);
    assert!(terminal.contains("Scale-out: 2 ranks"), "{terminal}");
}

#[test]
fn the_fixed_sample_merges_with_itself() {
    let sample = RunResult::build(common::sample_input(false));
    let merged = merge_ranks(vec![sample.clone(), sample.clone()]).unwrap();
    assert_eq!(merged.jobs.len(), sample.jobs.len());
    for (m, s) in merged.jobs.iter().zip(&sample.jobs) {
        assert_eq!(m.read.ios, 2 * s.read.ios);
        assert_eq!(m.write.lat_intended.count, 2 * s.write.lat_intended.count);
        assert_eq!(
            m.write.lat_intended.percentiles,
            s.write.lat_intended.percentiles
        );
        assert_eq!(m.cpu.user_ns, 2 * s.cpu.user_ns);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Latencies split across ranks in any way merge into exactly the histogram of all.
    #[test]
    fn split_histograms_merge_into_the_histogram_of_all(
        values in prop::collection::vec(0u64..5_000_000_000, 1..400),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c.index(values.len() + 1)).collect();
        bounds.push(0);
        bounds.push(values.len());
        bounds.sort_unstable();
        let ranks = bounds.len() as u32 - 1;
        let results: Vec<RunResult> = bounds
            .windows(2)
            .enumerate()
            .map(|(r, w)| rank_result(r as u32, ranks, &values[w[0]..w[1]], false))
            .collect();
        let whole = rank_result(0, 1, &values, false);
        let merged = merge_ranks(results.clone()).unwrap();
        let job = &merged.jobs[0];
        prop_assert_eq!(job.read.ios, values.len() as u64);
        prop_assert_eq!(
            results.iter().map(|r| r.jobs[0].read.bytes).sum::<u64>(),
            job.read.bytes
        );
        if ranks > 1 {
            prop_assert_eq!(&job.histograms, &whole.jobs[0].histograms);
            prop_assert_eq!(&job.read.clat, &whole.jobs[0].read.clat);
            prop_assert_eq!(&job.read.slat, &whole.jobs[0].read.slat);
        }
        let h = job.histograms.as_ref().unwrap().read.clat.decode().unwrap();
        prop_assert_eq!(h.count(), values.len() as u64);
    }
}
