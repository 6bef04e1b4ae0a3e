//! fio's log files (`write_bw_log`, `write_iops_log`, `write_lat_log`, `log_avg_msec`):
//! the same job run by diskmeter and by fio, each in its own folder, writes the same files
//! with the same columns, directions and about as many lines. Values are never compared:
//! they are measurements. In tests/alone because the averaged logs' line counts follow
//! fio's helper thread: beside the saturated tests/parallel fio wrote 2 of a 1 s run's 10
//! windows (CI 2026-11-28, 22:10).

use crate::common;

use assert_cmd::Command;
use common::{real_io, require_tool, TestDir};
use std::collections::BTreeMap;
use std::path::Path;

/// One parsed log line: (time ms, value, direction, block size, the other columns).
type Line = (u64, u64, u64, u64, Vec<u64>);

/// Every `*.log` file of `dir`, parsed; panics on a line that is not fio's format.
fn logs(dir: &Path) -> BTreeMap<String, Vec<Line>> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".log") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = text
            .lines()
            .map(|line| {
                let columns: Vec<u64> = line
                    .split(", ")
                    .map(|c| c.parse().unwrap_or_else(|_| panic!("{name}: {line:?}")))
                    .collect();
                assert!(columns.len() >= 5, "{name}: {line:?}");
                (
                    columns[0],
                    columns[1],
                    columns[2],
                    columns[3],
                    columns[4..].to_vec(),
                )
            })
            .collect();
        found.insert(name, lines);
    }
    found
}

/// Runs fio with `args` in `dir`; false (with a SKIP line) when fio is not installed.
fn fio(test: &str, dir: &Path, args: &[&str]) -> bool {
    if !require_tool(test, "fio") {
        return false;
    }
    let out = Command::new("fio")
        .current_dir(dir)
        .arg("--output=/dev/null")
        .args(args)
        .output()
        .expect("run fio");
    assert!(
        out.status.success(),
        "fio {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

fn diskmeter(dir: &TestDir, args: &[&str]) {
    let out = dir.run(args).output().expect("run diskmeter");
    assert!(
        out.status.success(),
        "diskmeter {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Lines per direction.
fn per_direction(lines: &[Line]) -> [usize; 2] {
    let reads = lines.iter().filter(|l| l.2 == 0).count();
    [reads, lines.len() - reads]
}

/// The checks both tools' logs pass: fio's columns, directions 0 and 1 only, times that
/// never go back, and averaged bandwidth and IOPS lines that move on from one window to the
/// next. (An averaged latency log may stamp a direction twice with the end time: a window
/// closed by an IO in the job's last millisecond, then the rest written at the end; fio's
/// finalize_logs does the same.)
fn check_format(name: &str, lines: &[Line], columns: usize, averaged: bool) {
    let mut last = [None::<u64>; 2];
    let mut previous = 0;
    // A shared file (per_job_logs=0, no worker number) holds one worker's lines after
    // another's, each starting again from its own measurement start.
    let shared = !name
        .trim_end_matches(".log")
        .rsplit('.')
        .next()
        .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()));
    for (time, _, direction, bs, rest) in lines {
        assert_eq!(4 + rest.len(), columns, "{name}");
        assert!(*direction <= 1, "{name}: direction {direction}");
        assert_eq!(rest.last(), Some(&0), "{name}: the priority column is 0");
        assert!(
            shared || *time >= previous,
            "{name}: time {time} after {previous}"
        );
        previous = *time;
        if averaged {
            assert_eq!(*bs, 0, "{name}: averaged lines have block size 0");
            let d = *direction as usize;
            let windows = name.contains("_bw.") || name.contains("_iops.");
            assert!(
                !matches!(last[d], Some(t) if t > *time || (windows && t == *time)),
                "{name}: {time} after {:?} in direction {d}",
                last[d]
            );
            last[d] = Some(*time);
        } else {
            assert!(*bs > 0, "{name}: an IO's line has its size");
        }
    }
}

/// Compares the logs of the two folders: same file names, same format, same directions,
/// line counts per direction within `slack` (exactly equal with 0).
fn compare(dm: &Path, fio: &Path, columns: usize, averaged: bool, slack: usize) {
    let (ours, theirs) = (logs(dm), logs(fio));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "the same log files"
    );
    for (name, lines) in &ours {
        let expected = &theirs[name];
        check_format(&format!("diskmeter {name}"), lines, columns, averaged);
        check_format(&format!("fio {name}"), expected, columns, averaged);
        let (a, b) = (per_direction(lines), per_direction(expected));
        for d in 0..2 {
            assert!(
                a[d].abs_diff(b[d]) <= slack,
                "{name}: diskmeter has {a:?} lines (read, write), fio {b:?}"
            );
        }
        assert_eq!(
            (a[0] > 0, a[1] > 0),
            (b[0] > 0, b[1] > 0),
            "{name}: the same directions"
        );
    }
}

/// The averaged logs of a mixed null-engine run: one line per 100 ms window and direction.
#[test]
fn averaged_null_engine_logs_match_fio() {
    let (dm, theirs) = (TestDir::new(), TestDir::new());
    let job = [
        "--name=mixed",
        "--ioengine=null",
        "--size=100m",
        "--rw=randrw",
        // fio runs the null engine synchronously at iodepth 1 (no slat); 4 makes both queue.
        "--iodepth=4",
        "--write_bw_log=x",
        "--write_iops_log=x",
        "--write_lat_log=x",
        "--log_avg_msec=100",
        "--time_based",
        "--runtime=1",
    ];
    if !fio("averaged_null_engine_logs_match_fio", theirs.path(), &job) {
        return;
    }
    diskmeter(&dm, &job);
    assert_eq!(
        logs(dm.path()).keys().collect::<Vec<_>>(),
        [
            "x_bw.1.log",
            "x_clat.1.log",
            "x_iops.1.log",
            "x_lat.1.log",
            "x_slat.1.log"
        ]
    );
    // fio writes an averaged line from its helper thread's wakeups: kept off a CPU by the
    // tests beside it, it drops windows (7 of 10 in a CI run of 2026-11-28), so the counts
    // may differ by 4 of the 10 windows; the format and directions are checked line by line.
    compare(dm.path(), theirs.path(), 5, true, 4);
}

/// A real file through psync, buffered: the same, and neither tool has a submission latency
/// to log for an engine that does the IO inside the submit call.
#[test]
fn averaged_file_logs_match_fio() {
    let _turn = real_io();
    let (dm, theirs) = (TestDir::new(), TestDir::new());
    let job = [
        "--name=file",
        "--filename=data",
        "--size=16m",
        "--ioengine=psync",
        "--direct=0",
        "--rw=randrw",
        "--write_bw_log=f",
        "--write_iops_log=f",
        "--write_lat_log=f",
        "--log_avg_msec=100",
        "--time_based",
        "--runtime=1",
    ];
    if !fio("averaged_file_logs_match_fio", theirs.path(), &job) {
        return;
    }
    diskmeter(&dm, &job);
    // fio writes an averaged line from its helper thread's wakeups: kept off a CPU by the
    // tests beside it, it drops windows (7 of 10 in a CI run of 2026-11-28), so the counts
    // may differ by 4 of the 10 windows; the format and directions are checked line by line.
    compare(dm.path(), theirs.path(), 5, true, 4);
    let ours = logs(dm.path());
    assert!(ours["f_slat.1.log"].is_empty());
    assert!(!ours["f_lat.1.log"].is_empty());
}

/// One line per IO (`log_avg_msec=0`), with `log_offset`: exactly one line per IO in each
/// log, with the IO's size and offset; IOPS lines say 1.
#[test]
fn per_io_logs_match_fio() {
    let (dm, theirs) = (TestDir::new(), TestDir::new());
    let job = [
        "--name=per-io",
        "--ioengine=null",
        "--size=1m",
        "--bs=4k",
        "--rw=randread",
        "--iodepth=2",
        "--write_bw_log=p",
        "--write_iops_log=p",
        "--write_lat_log=p",
        "--log_offset=1",
    ];
    if !fio("per_io_logs_match_fio", theirs.path(), &job) {
        return;
    }
    diskmeter(&dm, &job);
    compare(dm.path(), theirs.path(), 6, false, 0);
    for (name, lines) in logs(dm.path()) {
        assert_eq!(lines.len(), 256, "{name}: 1 MiB in 4 KiB reads");
        let mut offsets: Vec<u64> = lines.iter().map(|l| l.4[0]).collect();
        offsets.sort_unstable();
        offsets.dedup();
        assert_eq!(offsets.len(), 256, "{name}: each block once");
        assert!(lines.iter().all(|l| l.3 == 4096), "{name}");
        if name.contains("_iops.") {
            assert!(lines.iter().all(|l| l.1 == 1), "{name}");
        }
    }
}

/// tests/jobs/options-logs-shared.fio: a bare `write_lat_log` takes the job's name, workers
/// are numbered over the whole run, and `per_job_logs=0` makes the clones share one file.
#[test]
fn log_names_of_a_job_file_match_fio() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jobs/options-logs-shared.fio");
    let file = file.to_str().unwrap();
    let (dm, theirs) = (TestDir::new(), TestDir::new());
    let mut fio_cmd = Command::new("fio");
    if !require_tool("log_names_of_a_job_file_match_fio", "fio") {
        return;
    }
    let out = fio_cmd
        .current_dir(theirs.path())
        .env("DM_SIZE", "1m")
        .args(["--output=/dev/null", file])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = dm.run(&[file]).env("DM_SIZE", "1m").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    compare(dm.path(), theirs.path(), 5, false, 0);
    let ours = logs(dm.path());
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        [
            "first_clat.1.log",
            "first_lat.1.log",
            "first_slat.1.log",
            "shared_iops.log",
            "third_clat.4.log",
            "third_lat.4.log",
            "third_slat.4.log"
        ]
    );
    assert_eq!(
        ours["shared_iops.log"].len(),
        512,
        "both clones' 256 writes"
    );
}

/// A log that cannot be created stops the run before it starts, naming the file.
#[test]
fn a_log_in_a_missing_folder_is_refused_before_the_run() {
    let dir = TestDir::new();
    dir.run(&[
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--write_bw_log=no/such/folder/x",
    ])
    .assert()
    .code(1)
    .stderr(predicates::str::contains(
        "no/such/folder/x_bw.1.log: cannot create the log file: No such file or directory",
    ));
}

/// A log that cannot be written (a full disk) fails the run with a message, after the
/// results are printed; nothing panics.
#[test]
fn a_log_that_cannot_be_written_fails_the_run_with_a_message() {
    let dir = TestDir::new();
    std::os::unix::fs::symlink("/dev/full", dir.path().join("x_lat.1.log")).unwrap();
    let out = dir
        .run(&[
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--write_lat_log=x",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("job t: cannot write the log file x_lat.1.log: No space left on device"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("results still printed");
    assert_eq!(v["jobs"][0]["read"]["ios"], 256);
}

/// `run --help` lists the log options and `--dry-run` names each worker's files.
#[test]
fn help_and_dry_run_show_the_logs() {
    let dir = TestDir::new();
    let help = common::command().args(["run", "--help"]).output().unwrap();
    let listed = common::help_options(&String::from_utf8_lossy(&help.stdout));
    for option in [
        "--write_bw_log",
        "--write_iops_log",
        "--write_lat_log",
        "--log_avg_msec",
        "--log_offset",
        "--per_job_logs",
    ] {
        assert!(
            listed.contains_key(option.trim_start_matches("--")),
            "{option} missing from run --help"
        );
    }
    let out = dir
        .run(&[
            "--dry-run",
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--numjobs=2",
            "--write_bw_log",
            "--log_avg_msec=100",
            "--name=b",
            "--write_iops_log=out/b",
        ])
        .output()
        .unwrap();
    let plan = String::from_utf8_lossy(&out.stdout);
    assert!(plan.contains("  write_bw_log=\n"), "{plan}");
    assert!(plan.contains("  log_avg_msec=100\n"), "{plan}");
    assert!(plan.contains("#   logs: a_bw.1.log\n"), "{plan}");
    assert!(plan.contains("#   logs: a_bw.2.log\n"), "{plan}");
    assert!(plan.contains("#   logs: out/b_iops.3.log\n"), "{plan}");
    assert!(dir.files().is_empty(), "a dry run creates no log");
}

/// The last line a command printed to stderr (its error, for a Python traceback).
fn last_stderr_line(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

/// Issue 28: fio's own log readers on diskmeter's logs. `fio2gnuplot` (fio's package, run
/// without gnuplot: it writes its statistics and plot scripts) reads diskmeter's bandwidth log
/// as it reads fio's: the same files out, and its min, max and value count are the log's.
/// `fiologparser.py` (fio's docs) predates fio 3.x's fifth log column (the IO priority) and
/// refuses fio 3.33's own logs; it refuses diskmeter's, which have fio 3.33's columns, with
/// the same error.
#[test]
fn fios_log_readers_read_diskmeters_logs_as_fios() {
    let test = "fios_log_readers_read_diskmeters_logs_as_fios";
    if !require_tool(test, "fio2gnuplot") {
        return;
    }
    let (dm, theirs) = (TestDir::new(), TestDir::new());
    let job = [
        "--name=logs",
        "--ioengine=null",
        "--size=100m",
        "--rw=randrw",
        "--write_bw_log=x",
        "--log_avg_msec=100",
        "--time_based",
        "--runtime=1",
    ];
    if !fio(test, theirs.path(), &job) {
        return;
    }
    diskmeter(&dm, &job);
    // Debian's Python: fio2gnuplot imports six, which Debian's python3-six gives it.
    let python = |dir: &Path, args: &[&str]| {
        std::process::Command::new("/usr/bin/python3")
            .current_dir(dir)
            .args(args)
            .output()
            .expect("run /usr/bin/python3")
    };
    let mut outputs = Vec::new();
    for dir in [dm.path(), theirs.path()] {
        std::fs::create_dir(dir.join("plots")).unwrap();
        let out = python(
            dir,
            &[
                "/usr/bin/fio2gnuplot",
                "-p",
                "x_bw.1.log",
                "-t",
                "t",
                "-d",
                "plots",
            ],
        );
        assert!(out.status.success(), "{dir:?}: {}", last_stderr_line(&out));
        let mut files: Vec<String> = std::fs::read_dir(dir.join("plots"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        outputs.push(files);
    }
    assert_eq!(
        outputs[0], outputs[1],
        "fio2gnuplot's files for diskmeter's log and fio's"
    );
    let global = std::fs::read_to_string(dm.path().join("plots/x_bw.1.global")).unwrap();
    let stat = |key: &str| -> f64 {
        global
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("no {key} in {global}"))
            .parse()
            .unwrap()
    };
    let logged = &logs(dm.path())["x_bw.1.log"];
    let values: Vec<f64> = logged.iter().map(|l| l.1 as f64).collect();
    assert_eq!(stat("values_count"), values.len() as f64, "{global}");
    assert_eq!(stat("min"), values.iter().cloned().fold(f64::MAX, f64::min));
    assert_eq!(stat("max"), values.iter().cloned().fold(0.0, f64::max));

    let parser_gz = "/usr/share/doc/fio/fiologparser.py.gz";
    if !Path::new(parser_gz).exists() {
        common::skip(test, "fio's docs (fiologparser.py.gz) are not installed");
        return;
    }
    let gunzip = std::process::Command::new("gzip")
        .args(["-dc", parser_gz])
        .output()
        .expect("run gzip");
    assert!(gunzip.status.success());
    let mut verdicts = Vec::new();
    for dir in [dm.path(), theirs.path()] {
        std::fs::write(dir.join("fiologparser.py"), &gunzip.stdout).unwrap();
        let out = python(dir, &["fiologparser.py", "-s", "x_bw.1.log"]);
        verdicts.push((out.status.success(), last_stderr_line(&out)));
    }
    assert_eq!(
        verdicts[0], verdicts[1],
        "fiologparser.py on diskmeter's log and on fio's"
    );
}
