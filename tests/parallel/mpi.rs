//! Runs across hosts (issue 18): `mpirun -n 4 --oversubscribe diskmeter run --mpi` on this
//! host — each rank on its own files and on one shared file split by `offset_increment`,
//! the merged figures against the ranks' own, the barriers' start skew, a failing rank, a
//! sweep — and the ranks started by other means (`--rank`/`--ranks`) and `--start-at`,
//! which need no MPI.
//!
//! The MPI tests need Open MPI's `mpirun` and a diskmeter built with `--features mpi`
//! (scripts/test does both when Open MPI is installed); they skip with the reason where
//! either is missing, and under CI=true they fail instead.

use crate::common;

use common::TestDir;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// Whether the MPI tests can run here; otherwise skips `test` with the reason.
fn mpi_ready(test: &str) -> bool {
    if !cfg!(feature = "mpi") {
        common::skip(
            test,
            "diskmeter was built without the mpi feature (cargo test --features mpi; scripts/test does it when Open MPI is installed)",
        );
        return false;
    }
    common::require_tool(test, "mpirun")
}

/// `mpirun -n RANKS --oversubscribe diskmeter ARGS` in `dir` (root allowed, as CI runs), at
/// most 120 s: a run that hangs fails the test rather than the suite.
fn mpirun(dir: &Path, ranks: u32, args: &[&str]) -> Output {
    common::isolate_history();
    let binary = common::binary();
    std::process::Command::new("timeout")
        .args(["120", "mpirun", "-n", &ranks.to_string(), "--oversubscribe"])
        .arg(binary)
        .args(args)
        .current_dir(dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // No network interface probing beyond this host: quicker, and quiet in containers.
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .expect("run mpirun")
}

/// The JSON a successful MPI run printed (rank 0's merged result).
fn merged(output: Output) -> Value {
    let stdout = common::ok(output);
    serde_json::from_str(&stdout).expect("rank 0 prints one JSON result")
}

fn total_ios(job: &Value) -> u64 {
    job["read"]["ios"].as_u64().unwrap() + job["write"]["ios"].as_u64().unwrap()
}

#[test]
fn four_ranks_on_their_own_files_merge_exactly_and_save_one_run() {
    if !mpi_ready("four_ranks_on_their_own_files_merge_exactly_and_save_one_run") {
        return;
    }
    let dir = TestDir::new();
    let db = dir.path().join("history.db");
    let run = merged(mpirun(
        dir.path(),
        4,
        &[
            "run",
            "--mpi",
            "--db",
            db.to_str().unwrap(),
            "--output-format=json",
            "--name=own",
            "--ioengine=psync",
            "--rw=randrw",
            "--bs=4k",
            "--size=1m",
            "--filename=own.$rank.dat",
        ],
    ));
    let ranks = run["ranks"].as_array().expect("ranks[]");
    assert_eq!(ranks.len(), 4);
    for (index, rank) in ranks.iter().enumerate() {
        assert_eq!(rank["meta"]["rank"]["rank"], index as u64);
        assert_eq!(rank["meta"]["rank"]["ranks"], 4);
        let target = rank["jobs"][0]["targets"][0]["path"].as_str().unwrap();
        assert!(target.ends_with(&format!("own.{index}.dat")), "{target}");
    }
    // Each rank did its 256 IOs; the aggregate is their sum.
    let sum: u64 = ranks.iter().map(|r| total_ios(&r["jobs"][0])).sum();
    assert_eq!(sum, 4 * 256);
    assert_eq!(total_ios(&run["jobs"][0]), sum);
    assert_eq!(run["scale_out"]["ranks"], 4);
    // The merged percentiles are those of a merge of the ranks' own results.
    let own: Vec<diskmeter_report::RunResult> = ranks
        .iter()
        .map(|r| serde_json::from_value(r.clone()).unwrap())
        .collect();
    let again = diskmeter_report::merge::merge_ranks(own).unwrap();
    let again = serde_json::to_value(&again).unwrap();
    for direction in ["read", "write"] {
        assert_eq!(
            run["jobs"][0][direction]["clat"], again["jobs"][0][direction]["clat"],
            "{direction}"
        );
    }
    // `diskmeter merge` of the four ranks' own results, written as four files (as four
    // hosts run by hand or four pods would leave them), gives rank 0's figures.
    let mut files = Vec::new();
    for (index, rank) in ranks.iter().enumerate() {
        let file = dir.path().join(format!("rank{index}.json"));
        std::fs::write(&file, serde_json::to_string(rank).unwrap()).unwrap();
        files.push(file);
    }
    let by_merge = common::ok(
        common::process()
            .arg("merge")
            .arg("--output-format=json")
            .args(&files)
            .output()
            .unwrap(),
    );
    let by_merge: Value = serde_json::from_str(&by_merge).unwrap();
    for key in ["jobs", "groups", "scale_out"] {
        assert_eq!(
            by_merge[key], run[key],
            "{key}: diskmeter merge against rank 0"
        );
    }
    for file in files {
        std::fs::remove_file(file).unwrap();
    }
    // The test files are gone, and the history holds one run of four ranks.
    let left: Vec<String> = dir
        .files()
        .into_iter()
        .filter(|f| f.ends_with(".dat"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let store = diskmeter_history::HistoryStore::open(&db).unwrap();
    let runs = store.list(&Default::default()).unwrap();
    assert_eq!(runs.len(), 1, "one run for the four ranks");
    assert!(
        runs[0].summary.starts_with("4 ranks: "),
        "the list names the rank count: {}",
        runs[0].summary
    );
    let stored = store.load(runs[0].id).unwrap();
    let text = serde_json::to_value(&stored.steps[0].result).unwrap();
    assert_eq!(text["ranks"].as_array().map(Vec::len), Some(4));
}

#[test]
fn four_ranks_split_one_shared_file_and_start_each_phase_together() {
    if !mpi_ready("four_ranks_split_one_shared_file_and_start_each_phase_together") {
        return;
    }
    let dir = TestDir::new();
    // Phase 0 writes each rank's quarter, phase 1 (stonewall) reads it back.
    let run = merged(mpirun(
        dir.path(),
        4,
        &[
            "run",
            "--mpi",
            "--no-save",
            "--output-format=json",
            "--ioengine=psync",
            "--bs=4k",
            "--size=1m",
            "--offset_increment=1m",
            "--filename=shared.dat",
            "--name=write",
            "--rw=write",
            "--write_iolog=write.$rank.log",
            "--name=read",
            "--stonewall",
            "--rw=read",
        ],
    ));
    for rank in 0..4u64 {
        let log = std::fs::read_to_string(dir.path().join(format!("write.{rank}.log"))).unwrap();
        let offsets: Vec<u64> = log
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                (fields.get(2) == Some(&"write")).then(|| fields[3].parse().unwrap())
            })
            .collect();
        assert_eq!(offsets.len(), 256, "rank {rank}");
        let region = rank << 20..(rank + 1) << 20;
        assert!(
            offsets.iter().all(|o| region.contains(o)),
            "rank {rank} wrote outside its region {region:?}"
        );
    }
    let phases = run["scale_out"]["phases"].as_array().expect("phases");
    assert_eq!(phases.len(), 2);
    for phase in phases {
        assert_eq!(phase["ranks"], 4);
        assert!(phase["skew_ns"].is_u64(), "{phase}");
    }
    assert_eq!(total_ios(&run["jobs"][0]), 4 * 256);
    assert!(
        !dir.path().join("shared.dat").exists(),
        "the shared file is removed"
    );
}

/// Review of issue 18: a rank that fails before the run's first round (its job file cannot
/// be read on its host only) ends the MPI job instead of leaving the others waiting for it,
/// and says why. Open MPI's MPMD form gives rank 0 a job file that does not exist and the
/// other three one that does.
#[test]
fn a_rank_refused_before_the_first_round_ends_the_job() {
    if !mpi_ready("a_rank_refused_before_the_first_round_ends_the_job") {
        return;
    }
    common::isolate_history();
    let dir = TestDir::new();
    std::fs::write(
        dir.path().join("job.fio"),
        "[j]\nioengine=null\nrw=randread\nsize=1m\n",
    )
    .unwrap();
    let binary = common::binary();
    let rank = |count: &str, job: &str| -> Vec<std::ffi::OsString> {
        ["-n", count, "--oversubscribe"]
            .iter()
            .map(std::ffi::OsString::from)
            .chain([binary.clone().into_os_string()])
            .chain(["run", "--mpi", "--no-save", job].map(std::ffi::OsString::from))
            .collect()
    };
    let output = std::process::Command::new("timeout")
        .args(["120", "mpirun"])
        .args(rank("1", "missing.fio"))
        .arg(":")
        .args(rank("3", "job.fio"))
        .current_dir(dir.path())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .expect("run mpirun");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(124), "the run hung: {stderr}");
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("missing.fio"), "rank 0 says why: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.stdout.is_empty(), "no result is printed");
}

#[test]
fn a_failing_rank_ends_the_run_on_every_rank_with_its_error() {
    if !mpi_ready("a_failing_rank_ends_the_run_on_every_rank_with_its_error") {
        return;
    }
    let dir = TestDir::new();
    for rank in [0, 1, 3] {
        std::fs::create_dir(dir.path().join(format!("d{rank}"))).unwrap();
    }
    let output = mpirun(
        dir.path(),
        4,
        &[
            "run",
            "--mpi",
            "--no-save",
            "--name=j",
            "--rw=randwrite",
            "--bs=4k",
            "--size=1m",
            "--directory=d$rank",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(124), "the run hung: {stderr}");
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("rank 2 ("), "{stderr}");
    assert!(stderr.contains("d2"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.stdout.is_empty(), "no result is printed");
    for rank in [0, 1, 3] {
        let folder = dir.path().join(format!("d{rank}"));
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0, "{folder:?}");
    }
}

#[test]
fn a_sweep_runs_under_mpi_with_rank_0_printing_the_merged_points() {
    if !mpi_ready("a_sweep_runs_under_mpi_with_rank_0_printing_the_merged_points") {
        return;
    }
    let dir = TestDir::new();
    let doc = merged(mpirun(
        dir.path(),
        2,
        &[
            "sweep",
            "--mpi",
            "--no-save",
            "--output-format=json",
            "--ioengine=psync",
            "--qd=1,2",
            "--bs=4k",
            "--size=1m",
            "--point-time=200ms",
            "--ramp=0",
            "--charts=none",
            "sweep.$rank.dat",
        ],
    ));
    let text = doc.to_string();
    assert!(text.contains("points"), "{text}");
    assert!(!dir.path().join("sweep.0.dat").exists());
    assert!(!dir.path().join("sweep.1.dat").exists());
}

#[test]
fn a_rank_started_by_other_means_names_its_files_and_carries_its_rank() {
    let dir = TestDir::new();
    let run = dir.run_json(&[
        "--no-save",
        "--rank=1",
        "--ranks=3",
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--bs=64k",
        "--filename=part.$rank.of.$nranks",
        "--offset_increment=1m",
    ]);
    assert_eq!(run["meta"]["rank"]["rank"], 1);
    assert_eq!(run["meta"]["rank"]["ranks"], 3);
    let target = run["jobs"][0]["targets"][0]["path"].as_str().unwrap();
    assert!(target.ends_with("part.1.of.3"), "{target}");
    let output = dir
        .run(&[
            "--no-save",
            "--rank=3",
            "--ranks=3",
            "--ioengine=null",
            "--size=1m",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("less than 3"));
}

#[test]
fn start_at_waits_for_its_time_and_notes_a_time_already_past() {
    let dir = TestDir::new();
    let at_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        + 2_000_000_000;
    let at_s = at_ns.div_ceil(1_000_000_000);
    let when = rfc3339(at_s);
    let args = [
        "--no-save",
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--bs=64k",
    ];
    let run = dir.run_json(&[&args[..], &[&format!("--start-at={when}")]].concat());
    let started = run["meta"]["phase_starts_unix_ns"][0].as_u64().unwrap();
    assert!(started >= at_s * 1_000_000_000, "{started} before {when}");
    let late = dir.run_json(&[&args[..], &["--start-at=2020-01-01T00:00:00Z"]].concat());
    let notes = late["meta"]["notes"].to_string();
    assert!(notes.contains("started late by"), "{notes}");
    let bad = dir
        .run(&[&args[..], &["--start-at=15:00"]].concat())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn mpi_without_the_feature_says_how_to_build_it() {
    if cfg!(feature = "mpi") {
        return;
    }
    let dir = TestDir::new();
    let output = dir
        .run(&["--mpi", "--ioengine=null", "--size=1m"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--features mpi"));
}

/// `seconds` since the epoch as RFC 3339 UTC.
fn rfc3339(seconds: u64) -> String {
    let output = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{seconds}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .expect("date");
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}
