//! `diskmeter iometer --icf` through the real binary (issue 19, Iometer part): .icf files of
//! each Iometer version load, the guides' specifications saved as an .icf give the jobs
//! `--spec` gives, cycling gives its steps, targets are mapped or refused with their list,
//! errors name line and field, and a short run writes Iometer's results CSV.
//! The files are in tests/data/iometer (README there says where their format comes from).

use crate::common;

use assert_cmd::Command;
use common::TestDir;
use predicates::prelude::*;
use std::path::PathBuf;

fn data(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "data", "iometer", name]
        .iter()
        .collect();
    path.to_string_lossy().into_owned()
}

fn iometer(dir: &TestDir) -> Command {
    common::isolate_history();
    let mut cmd = common::command();
    cmd.current_dir(dir.path()).arg("iometer").arg("--quiet");
    cmd
}

/// A dry run's steps: each a list of jobs, each job its `key=value` lines.
fn dry_run_steps(out: &str) -> Vec<Vec<Vec<(String, String)>>> {
    let mut steps: Vec<Vec<Vec<(String, String)>>> = Vec::new();
    for line in out.lines() {
        if line.starts_with("## step") {
            steps.push(Vec::new());
        } else if line.starts_with('[') {
            if steps.is_empty() {
                steps.push(Vec::new());
            }
            steps.last_mut().unwrap().push(Vec::new());
        } else if let Some((key, value)) = line.trim().split_once('=') {
            if !line.trim_start().starts_with('#') {
                if let Some(job) = steps.last_mut().and_then(|s| s.last_mut()) {
                    job.push((key.to_string(), value.to_string()));
                }
            }
        }
    }
    steps
}

fn option<'a>(job: &'a [(String, String)], name: &str) -> Option<&'a str> {
    job.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn dry_run(dir: &TestDir, args: &[&str]) -> Vec<Vec<Vec<(String, String)>>> {
    let out = iometer(dir).arg("--dry-run").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dry_run_steps(&String::from_utf8_lossy(&out.stdout))
}

#[test]
fn each_version_s_file_loads_with_its_steps() {
    let dir = TestDir::new();
    for (file, targets, steps) in [
        ("guides-1.1.0.icf", 1, 6),
        ("qd-cycle-2008.06.18.icf", 1, 6),
        ("targets-2006.07.27.icf", 2, 6),
        ("mixed-2004.07.30.icf", 1, 2),
    ] {
        let path = data(file);
        let mut args = vec!["--icf", path.as_str(), "--size", "16m"];
        args.extend(std::iter::repeat_n(".", targets));
        assert_eq!(dry_run(&dir, &args).len(), steps, "{file}");
    }
}

#[test]
fn the_guides_specifications_saved_as_icf_give_the_spec_jobs() {
    let dir = TestDir::new();
    let icf = dry_run(
        &dir,
        &["--icf", &data("guides-1.1.0.icf"), "--size", "16m", "."],
    );
    let names = [
        "RandomWrites_8K",
        "RandomReads_8K",
        "RandomWrites_64K",
        "RandomReads_64K",
        "RandomWrites_1MB",
        "RandomReads_1MB",
    ];
    let mut args = vec![
        "--workers",
        "3",
        "--qd",
        "128",
        "--time",
        "1",
        "--size",
        "16m",
        ".",
    ];
    for name in names {
        args.extend(["--spec", name]);
    }
    let spec = dry_run(&dir, &args);
    let spec_jobs: Vec<&Vec<(String, String)>> = spec.iter().flatten().collect();
    assert_eq!((icf.len(), spec_jobs.len()), (6, 6));
    for (step, spec_job) in icf.iter().zip(spec_jobs) {
        assert_eq!(step.len(), 3, "three workers, a job each");
        for job in step {
            for name in [
                "rw", "bs", "iodepth", "runtime", "direct", "filename", "size",
            ] {
                assert_eq!(option(job, name), option(spec_job, name), "{name}: {job:?}");
            }
        }
        assert_eq!(option(spec_job, "numjobs"), Some("3"));
    }
}

#[test]
fn queue_depth_cycling_gives_a_step_per_depth() {
    let dir = TestDir::new();
    let steps = dry_run(
        &dir,
        &[
            "--icf",
            &data("qd-cycle-2008.06.18.icf"),
            "--size",
            "16m",
            ".",
        ],
    );
    let depths: Vec<&str> = steps
        .iter()
        .map(|s| option(&s[0], "iodepth").unwrap())
        .collect();
    assert_eq!(depths, ["1", "2", "4", "8", "16", "32"]);
}

#[test]
fn queue_depth_and_target_cycling_cycles_depth_for_each_target_count() {
    let dir = TestDir::new();
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    let steps = dry_run(
        &dir,
        &[
            "--icf",
            &data("targets-2006.07.27.icf"),
            "--target-map",
            "D:=.",
            "--target-map",
            "E:=logs",
        ],
    );
    let seen: Vec<(usize, &str)> = steps
        .iter()
        .map(|s| {
            let files = option(&s[0], "filename").unwrap();
            (files.split(':').count(), option(&s[0], "iodepth").unwrap())
        })
        .collect();
    // Outstanding IOs are per target in Iometer: two targets at 1 are 2 in flight.
    assert_eq!(
        seen,
        [(1, "1"), (1, "2"), (1, "4"), (2, "2"), (2, "4"), (2, "8")]
    );
    assert_eq!(
        option(&steps[0][0], "size"),
        Some("32m"),
        "65536 sectors of 512 bytes"
    );
}

#[test]
fn mixed_specifications_keep_their_shares_think_time_and_alignment() {
    let dir = TestDir::new();
    let steps = dry_run(&dir, &["--icf", &data("mixed-2004.07.30.icf"), "."]);
    let file_server = &steps[0][0];
    assert_eq!(option(file_server, "bssplit"), Some("512/10:4k/60:64k/30"));
    assert_eq!(option(file_server, "rwmixread"), Some("80"));
    assert_eq!(
        option(file_server, "offset"),
        Some("1m"),
        "starting sector 2048"
    );
    let [writes, reads] = [&steps[1][0], &steps[1][1]];
    assert_eq!(
        (option(writes, "rw"), option(writes, "flow")),
        (Some("write"), Some("80"))
    );
    assert_eq!(
        (
            option(reads, "thinktime"),
            option(reads, "thinktime_blocks")
        ),
        (Some("10ms"), Some("8"))
    );
    assert_eq!(option(reads, "blockalign"), Some("4k"));
}

#[test]
fn windows_targets_are_mapped_or_refused_with_the_list() {
    let dir = TestDir::new();
    iometer(&dir)
        .args(["--dry-run", "--icf", &data("guides-1.1.0.icf")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'C: \"NTFS\"'"))
        .stderr(predicate::str::contains("--target-map"));
    iometer(&dir)
        .args([
            "--dry-run",
            "--icf",
            &data("guides-1.1.0.icf"),
            "--target-map",
            "Q:=.",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no such target"));
    let steps = dry_run(
        &dir,
        &[
            "--icf",
            &data("guides-1.1.0.icf"),
            "--size",
            "16m",
            "--target-map",
            "C:=.",
        ],
    );
    assert_eq!(option(&steps[0][0], "filename"), Some("./iobw.tst"));
}

#[test]
fn errors_name_the_file_line_and_field() {
    let dir = TestDir::new();
    let text = std::fs::read_to_string(data("qd-cycle-2008.06.18.icf")).unwrap();
    let cases = [
        (text.replace("\tCYCLE_OUTSTANDING_IOS\n", "\tCYCLE_EVERYTHING\n"), "bad.icf:25: 'TEST SETUP, Test Type: unknown test type 'CYCLE_EVERYTHING'"),
        (text.replace("4096,100,100,100,0,1,0,0", "4096,90,100,100,0,1,0,0"), "bad.icf:46: 'ACCESS SPECIFICATIONS, 4K random read: the lines' % of size add up to 90"),
        (text.replace("4096,100,100,100,0,1,0,0", "4096,100,100,100,0,1,0,64"), "reply 64 bytes is a network transaction"),
        (text.replace("\tDISK\n'Default", "\tNETWORK,TCP\n'Default"), "network workers cannot run here"),
        (text.replace("\t1,DISABLED,1\n", "\tx,DISABLED,1\n"), "bad.icf:60: 'MANAGER LIST, Number of outstanding IOs: expected a whole number, found 'x'"),
        ("'TEST SETUP\n".to_string(), "bad.icf:1: file, Version: an Iometer configuration file starts with a 'Version' line"),
    ];
    for (text, needle) in cases {
        std::fs::write(dir.path().join("bad.icf"), text).unwrap();
        iometer(&dir)
            .args(["--dry-run", "--icf", "bad.icf", "."])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
    }
}

#[test]
fn a_short_queue_depth_cycle_writes_iometer_s_results_csv() {
    let _turn = common::real_io();
    let dir = TestDir::new();
    let text = std::fs::read_to_string(data("qd-cycle-2008.06.18.icf"))
        .unwrap()
        .replace(
            "1          32         2          EXPONENTIAL",
            "1          2          2          EXPONENTIAL",
        );
    std::fs::write(dir.path().join("qd.icf"), text).unwrap();
    iometer(&dir)
        .args([
            "--icf",
            "qd.icf",
            "--size",
            "16m",
            "--csv",
            "results.csv",
            "--no-save",
            ".",
        ])
        .assert()
        .success();
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    let headers: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("'Target Type,"))
        .collect();
    assert_eq!(headers.len(), 2, "a header per step:\n{csv}");
    assert!(headers[0].starts_with("'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps"));
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .filter(|l| {
            ["ALL,", "MANAGER,", "WORKER,"]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .map(|l| l.split(',').collect())
        .collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        kinds,
        ["ALL", "MANAGER", "WORKER", "ALL", "MANAGER", "WORKER"]
    );
    let columns = headers[0].split(',').count();
    for row in &rows {
        assert_eq!(row.len(), columns, "{row:?}");
        assert_eq!(row[2], "4K random read");
        let iops: f64 = row[6].parse().unwrap();
        let read_ios: u64 = row[32].parse().unwrap();
        assert!(iops > 0.0 && read_ios > 0, "{row:?}");
        assert_eq!(row[8], "0.000000", "no writes");
    }
    assert_eq!(
        (rows[0][1], rows[1][1], rows[2][1]),
        ("All", "WINSRV01", "Worker 1")
    );
    assert_eq!(
        (rows[2][47], rows[5][47]),
        ("1", "2"),
        "queue depth per step"
    );
    assert!(
        dir.files().iter().all(|f| f != "iobw.tst"),
        "{:?}",
        dir.files()
    );
}

/// A file Iometer 2008.06.18 saved itself (its access specifications list only, every
/// default assignment NONE; source in tests/data/iometer/README.md): `--spec NAME` runs
/// specifications of its library, `--workers`/`--qd` size the default workers.
#[test]
fn a_library_saved_by_iometer_runs_the_specifications_named() {
    let dir = TestDir::new();
    let file = data("library-saved-2008.06.18.icf");
    let folder = dir.path().to_string_lossy().into_owned();
    let steps = dry_run(
        &dir,
        &[
            "--icf",
            &file,
            "--spec",
            "Database pattern (Intel/StorageReview.com)",
            "--spec",
            "fileserver pattern (intel)",
            "--workers",
            "3",
            "--qd",
            "128",
            "--time",
            "1s",
            &folder,
        ],
    );
    assert_eq!(steps.len(), 2, "{steps:?}");
    assert_eq!(steps[0].len(), 3, "three workers: {steps:?}");
    let database = &steps[0][0];
    assert_eq!(option(database, "bs"), Some("8k"));
    assert_eq!(option(database, "rwmixread"), Some("67"));
    assert_eq!(option(database, "rw"), Some("randrw"));
    assert_eq!(option(database, "iodepth"), Some("128"));
    assert_eq!(
        option(&steps[1][0], "bssplit"),
        Some("512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10")
    );
    // Without --spec nothing is assigned (NONE): the library is listed with the flag that
    // runs it (issue 28), and an unknown name lists the library.
    iometer(&dir)
        .args(["--dry-run", "--icf", &file, "--time", "1s", &folder])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("an access specification library (13 specifications")
                .and(predicate::str::contains("run some with --spec NAME"))
                .and(predicate::str::contains(
                    "  Database pattern (Intel/StorageReview.com): 8.00 KiB, 67 % read, \
                     100 % random",
                ))
                .and(predicate::str::contains(
                    "  Fileserver pattern (Intel): 512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10, \
                     80 % read, 100 % random",
                ))
                .and(predicate::str::contains("  OS Paging: 64.0 KiB, 90 % read, 0 % random"))
                .and(predicate::str::contains("nothing to run").not()),
        );
    iometer(&dir)
        .args(["--dry-run", "--icf", &file, "--spec", "OLTP", &folder])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("OLTP").and(predicate::str::contains("'OS Paging'")));
    // A file with workers of its own keeps their settings.
    iometer(&dir)
        .args([
            "--dry-run",
            "--icf",
            &data("guides-1.1.0.icf"),
            "--qd",
            "4",
            &folder,
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("sets its own workers"));
}

/// issue 28: a disk worker with Iometer's "test connection rate" runs (each target closed and
/// opened again every N transactions, Iometer's `Grunt::Do_IOs`), and the results CSV has
/// Iometer's connection columns filled, as the terminal and JSON have them.
#[test]
fn a_disk_worker_testing_the_connection_rate_fills_the_connection_columns() {
    let _turn = common::real_io();
    let dir = TestDir::new();
    let text = std::fs::read_to_string(data("qd-cycle-2008.06.18.icf"))
        .unwrap()
        .replace("\t1,DISABLED,1\n", "\t4,ENABLED,16\n")
        .replace("CYCLE_OUTSTANDING_IOS", "NORMAL");
    assert!(text.contains("4,ENABLED,16"));
    std::fs::write(dir.path().join("conn.icf"), text).unwrap();
    iometer(&dir)
        .args(["--dry-run", "--icf", "conn.icf", "."])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "# Iometer's connection-rate test: each target closed and opened again every 16 IOs",
        ));
    let out = iometer(&dir)
        .args([
            "--icf",
            "conn.icf",
            "--size",
            "16m",
            "--csv",
            "results.csv",
            "--output-format",
            "json",
            "--no-save",
            ".",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let job = &results[0]["jobs"][0];
    let connections = &job["connections"];
    let reads = job["read"]["ios"].as_u64().unwrap();
    let count = connections["count"].as_u64().unwrap();
    // Each closed connection had its 16 reads; the last one was still open at the end. When
    // the runtime ends between a connection's 16th read and its close (reads a multiple of
    // 16), that connection is still open and not counted: one fewer.
    let closed = reads / 16;
    assert!(
        count == closed || (reads.is_multiple_of(16) && count + 1 == closed),
        "{reads} reads, {connections}"
    );
    assert_eq!(connections["transactions_per_connection"], 16);
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    let header: Vec<&str> = csv
        .lines()
        .find(|l| l.starts_with("'Target Type,"))
        .unwrap()
        .split(',')
        .collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .filter(|l| l.starts_with("ALL,") || l.starts_with("WORKER,"))
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 2, "{csv}");
    for row in &rows {
        assert_eq!(row.len(), header.len(), "{row:?}");
        let number = |name: &str| -> f64 {
            row[column(name)]
                .parse()
                .unwrap_or_else(|_| panic!("{name}: {row:?}"))
        };
        assert_eq!(number("Connections") as u64, count, "{row:?}");
        assert_eq!(row[column("Transactions per Connection")], "16");
        let runtime_s = job["runtime_ns"].as_f64().unwrap() / 1e9;
        let per_second = number("Connections per Second");
        assert!(
            (per_second - count as f64 / runtime_s).abs() < 0.01,
            "{per_second} vs {count} in {runtime_s} s"
        );
        let mean_ms = number("Average Connection Time");
        let max_ms = number("Maximum Connection Time");
        assert!(mean_ms > 0.0 && max_ms >= mean_ms, "{mean_ms} {max_ms}");
        assert!(
            (mean_ms - connections["mean_ns"].as_f64().unwrap() / 1e6).abs() < 1e-6,
            "the CSV's mean is the JSON's"
        );
        // Transactions are network figures: still empty.
        assert_eq!(row[column("Transactions per Second")], "");
    }
    assert!(dir.files().iter().all(|f| f != "iobw.tst"));
}
