//! Never destroy data, on every front-end (issue 17): a write that could destroy data is
//! refused whichever way the job came in — an fio job file, fio options on the command
//! line, an fio iolog replay, a DiskSpd command line, Iometer specifications, a suite, a
//! sweep, a replay of a capture (a workload like it, and `--exact`'s traced stream), a
//! verified write — and whatever holds the data: a mounted device, MBR and GPT partition
//! tables, ext4, an LVM physical volume, an md RAID member, a LUKS2 volume, a swap area, a
//! user's file, and symlinks to a device and to the file (`safety_matrix/targets.rs`,
//! `safety_matrix/images.rs`). A `write_iolog` aimed at such a device is refused too. Each
//! refusal exits with 1 and one line that names the target, says why, offers what to use
//! instead (a file on the mounted device's filesystem, a new file beside a user's, ...: issue
//! 32) and then `--allow-destroy`; suites, sweeps and Iometer lists refuse before their first step. No byte of any target changes (each is compared whole
//! after every command). Where a front-end only reads, it may read a mounted device and a
//! user's file. `--nocapture` prints the matrix, one `matrix |` line per cell.

use crate::common;
use crate::seed;

#[path = "safety_matrix/images.rs"]
mod images;
#[path = "safety_matrix/targets.rs"]
mod targets;

use common::TestDir;
use diskmeter_history::{HistoryStore, HostFacts, RunEnd, RunHeader, CAPTURE_KIND};
use std::path::Path;
use std::process::Output;
use targets::{Target, Targets, READ_ROWS};

/// diskmeter's arguments for one target.
type Args = Vec<String>;

fn args(list: &[&str]) -> Args {
    list.iter().map(|s| s.to_string()).collect()
}

fn path_of(target: &Target) -> String {
    target.path.display().to_string()
}

fn run(dir: &TestDir, args: &Args) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::diskmeter(dir.path(), &args)
}

/// Every target's bytes, once a front-end is done: a write that went astray shows wherever
/// it landed.
fn unchanged(targets: &Targets, after: &str, failures: &mut Vec<String>) {
    for target in &targets.all {
        if let Some(change) = target.changed() {
            failures.push(format!("after {after}: {} ({change})", target.kind));
        }
    }
}

/// Runs `command` on every target `applies` to and checks that each was refused: exit code
/// 1, one line naming the target with every reason it holds, the alternative and
/// `--allow-destroy`, and no
/// byte of it changed (nor, at the end, of any other target). Returns each target's output, for checks of its own.
fn refuses(
    front_end: &str,
    dir: &TestDir,
    targets: &'static Targets,
    applies: impl Fn(&Target) -> bool,
    command: impl Fn(&Target) -> Args,
) -> Vec<(&'static Target, Output)> {
    let mut failures = Vec::new();
    let mut outputs = Vec::new();
    for target in targets.all.iter().filter(|t| applies(t)) {
        let out = run(dir, &command(target));
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let named = target.named.display().to_string();
        let line = stderr.lines().find(|line| {
            line.contains(&format!("{named}: refusing to write"))
                && line.contains(&target.alternative)
                && line.contains("--allow-destroy")
                && target.reasons.iter().all(|r| line.contains(r.as_str()))
        });
        match (out.status.code(), line) {
            (Some(1), Some(line)) => eprintln!("matrix | {front_end} | {} | {line}", target.kind),
            (code, _) => failures.push(format!(
                "{front_end} x {}: exit {code:?}, no line naming {named} with {:?} and {:?}:\n{stderr}",
                target.kind, target.reasons, target.alternative
            )),
        }
        if let Some(change) = target.changed() {
            failures.push(format!("{front_end} x {}: {change}", target.kind));
        }
        outputs.push((target, out));
    }
    unchanged(targets, front_end, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    outputs
}

/// Runs `command` on the rows reads are tried on (a mounted device, a user's file): it is
/// not refused, `ran` accepts its output, and no byte changed.
fn reads(
    front_end: &str,
    dir: &TestDir,
    targets: &'static Targets,
    command: impl Fn(&Target) -> Args,
    ran: impl Fn(&Output) -> bool,
) {
    let mut failures = Vec::new();
    for kind in READ_ROWS {
        let target = targets.get(kind);
        let out = run(dir, &command(target));
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("refusing") || !ran(&out) {
            failures.push(format!(
                "{front_end} reading {kind}: exit {:?}:\n{stderr}",
                out.status.code()
            ));
        } else {
            eprintln!("matrix | {front_end} | {kind} | reads: allowed");
        }
        if let Some(change) = target.changed() {
            failures.push(format!("{front_end} reading {kind}: {change}"));
        }
    }
    unchanged(targets, &format!("{front_end}'s reads"), &mut failures);
    assert!(
        std::path::Path::new(&targets.get(targets::USER_FILE).path).exists(),
        "a user's file is never removed"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn succeeded(out: &Output) -> bool {
    out.status.success()
}

#[test]
fn fio_job_files() {
    let Some(targets) = targets::shared("fio_job_files") else {
        return;
    };
    let dir = TestDir::new();
    let job = |name: &str, body: &str, target: &Target| -> Args {
        let file = dir
            .path()
            .join(format!("{name}-{}.fio", target.kind.replace(' ', "-")));
        let text = format!("{body}\n[{name}]\nfilename={}\n", path_of(target));
        std::fs::write(&file, text).unwrap();
        args(&["run", "--quiet", "--no-save", file.to_str().unwrap()])
    };
    let write = "[global]\nrw=randwrite\nbs=4k\nsize=1m\ndirect=1";
    refuses(
        "fio job file",
        &dir,
        targets,
        |_| true,
        |t| job("w", write, t),
    );
    let read = "[global]\nrw=randread\nbs=4k\nsize=64k\ndirect=1";
    reads(
        "fio job file",
        &dir,
        targets,
        |t| job("r", read, t),
        succeeded,
    );
}

#[test]
fn fio_options_on_the_command_line() {
    let Some(targets) = targets::shared("fio_options_on_the_command_line") else {
        return;
    };
    let dir = TestDir::new();
    let job = |rw: &str, size: &str, target: &Target| {
        args(&[
            "run",
            "--quiet",
            "--no-save",
            "--name=job",
            &format!("--rw={rw}"),
            "--bs=4k",
            &format!("--size={size}"),
            &format!("--filename={}", path_of(target)),
        ])
    };
    refuses(
        "fio options",
        &dir,
        targets,
        |_| true,
        |t| job("randwrite", "1m", t),
    );
    reads(
        "fio options",
        &dir,
        targets,
        |t| job("randread", "64k", t),
        succeeded,
    );
}

/// An fio iolog (version 3) of `actions` on /dev/vdb, 10 us apart; `replay_redirect` and
/// `--exact` send its IO to the target.
fn write_iolog_file(path: &Path, actions: &[&str]) {
    let mut text = "fio version 3 iolog\n0 /dev/vdb add\n0 /dev/vdb open\n".to_string();
    for (i, action) in actions.iter().enumerate() {
        text.push_str(&format!("{} /dev/vdb {action}\n", 10 * (i + 1)));
    }
    text.push_str(&format!("{} /dev/vdb close\n", 10 * (actions.len() + 1)));
    std::fs::write(path, text).unwrap();
}

const LOGGED_WRITES: &[&str] = &["write 0 4096", "read 4096 4096", "write 8192 4096"];

#[test]
fn fio_iolog_replays() {
    let Some(targets) = targets::shared("fio_iolog_replays") else {
        return;
    };
    let dir = TestDir::new();
    let (writes, reads_only) = (dir.path().join("w.log"), dir.path().join("r.log"));
    write_iolog_file(&writes, LOGGED_WRITES);
    write_iolog_file(&reads_only, &["read 0 4096", "read 8192 4096"]);
    let replay = |log: &Path, target: &Target| {
        args(&[
            "run",
            "--quiet",
            "--no-save",
            "--name=replay",
            &format!("--read_iolog={}", log.display()),
            &format!("--replay_redirect={}", path_of(target)),
        ])
    };
    refuses(
        "fio iolog replay",
        &dir,
        targets,
        |_| true,
        |t| replay(&writes, t),
    );
    reads(
        "fio iolog replay",
        &dir,
        targets,
        |t| replay(&reads_only, t),
        succeeded,
    );
}

#[test]
fn diskspd_command_lines() {
    let Some(targets) = targets::shared("diskspd_command_lines") else {
        return;
    };
    let dir = TestDir::new();
    let diskspd = |write_percent: &str, target: &Target| {
        args(&[
            "diskspd",
            "--quiet",
            "--no-save",
            "-b4K",
            "-d1",
            "-W0",
            "-o1",
            "-r",
            &format!("-w{write_percent}"),
            &path_of(target),
        ])
    };
    refuses("DiskSpd", &dir, targets, |_| true, |t| diskspd("100", t));
    reads("DiskSpd", &dir, targets, |t| diskspd("0", t), succeeded);
}

#[test]
fn iometer_specifications() {
    let Some(targets) = targets::shared("iometer_specifications") else {
        return;
    };
    let dir = TestDir::new();
    let iometer = |specs: &[&str], target: &Target| {
        let mut list = args(&["iometer", "--quiet", "--no-save"]);
        for spec in specs {
            list.extend(args(&["--spec", spec]));
        }
        list.extend(args(&["--time", "200ms", "--workers", "1", "--qd", "1"]));
        list.push(path_of(target));
        list
    };
    // The reads come first: they must not run before the writes are refused.
    let refused = refuses(
        "Iometer",
        &dir,
        targets,
        |_| true,
        |t| iometer(&["RandomReads_8K", "RandomWrites_8K"], t),
    );
    for (target, out) in refused {
        let table = String::from_utf8_lossy(&out.stdout);
        assert!(
            !table.contains("RandomReads_8K"),
            "{}: {table}",
            target.kind
        );
    }
    reads(
        "Iometer",
        &dir,
        targets,
        |t| iometer(&["RandomReads_8K"], t),
        succeeded,
    );
}

#[test]
fn suites() {
    let Some(targets) = targets::shared("suites") else {
        return;
    };
    let dir = TestDir::new();
    let suite = |name: &str, target: &Target| {
        args(&[
            "suite",
            "--quiet",
            "--no-save",
            name,
            &path_of(target),
            "--size",
            "1m",
            "--runtime",
            "200ms",
            "--iodepth",
            "1",
            "--numjobs",
            "1",
        ])
    };
    // `quick` reads before it writes: refused before its first step, not after four.
    for (target, out) in refuses("suite", &dir, targets, |_| true, |t| suite("quick", t)) {
        let table = String::from_utf8_lossy(&out.stdout);
        assert!(
            table.contains("(stopped after 0 of 8 steps)"),
            "{}: {table}",
            target.kind
        );
    }
    // A suite that only reads may read.
    reads(
        "suite",
        &dir,
        targets,
        |t| suite("max-read-iops", t),
        succeeded,
    );
}

#[test]
fn sweeps() {
    let Some(targets) = targets::shared("sweeps") else {
        return;
    };
    let dir = TestDir::new();
    let sweep = |patterns: &str, target: &Target| {
        args(&[
            "sweep",
            "--quiet",
            "--no-save",
            "--rw",
            patterns,
            "--qd",
            "1",
            "--bs",
            "4k",
            "--point-time",
            "200ms",
            "--ramp",
            "0",
            "--charts",
            "none",
            "--size",
            "1m",
            "--output-format",
            "json",
            &path_of(target),
        ])
    };
    // The read point comes first: no point runs once a later one would be refused.
    for (target, out) in refuses(
        "sweep",
        &dir,
        targets,
        |_| true,
        |t| sweep("randread,randwrite", t),
    ) {
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let measured: usize = json["sweeps"].as_array().map_or(0, |s| {
            s.iter()
                .map(|s| s["points"].as_array().map_or(0, Vec::len))
                .sum()
        });
        assert!(
            json["sweeps"].is_array() && measured == 0,
            "{}: {json}",
            target.kind
        );
    }
    // The default sweep only reads, and may.
    reads("sweep", &dir, targets, |t| sweep("randread", t), succeeded);
}

/// A finished capture whose trace names the fio iolog at `log` (what `capture --trace`
/// records), for `replay --exact`: the seeded traced capture's samples and trace saved again
/// as a new capture, since a finished capture's trace cannot change.
fn capture_with_iolog(db: &Path, log: &Path) -> i64 {
    let seeded = seed::seed_traced_capture(db);
    let mut store = HistoryStore::open(db).unwrap();
    let mut trace = store.capture_traces(seeded).unwrap().remove(0);
    trace.iolog_path = Some(log.display().to_string());
    trace.queue_depth.max = 2.0;
    let mut samples = Vec::new();
    store
        .for_each_capture_sample(seeded, |s| samples.push(s))
        .unwrap();
    let id = store
        .begin_run(&RunHeader {
            kind: CAPTURE_KIND.into(),
            name: "traced".into(),
            target: "vda".into(),
            command_line: "diskmeter capture --trace --device vda".into(),
            host: HostFacts::default(),
            started_unix_ms: seed::START_MS,
            diskmeter_version: "test".into(),
            hostname: "seed".into(),
            capture_id: None,
        })
        .unwrap();
    for sample in &samples {
        store.append_capture_sample(id, sample).unwrap();
    }
    store.save_trace_profile(id, &trace).unwrap();
    let end = RunEnd {
        finished_unix_ms: seed::START_MS + 120_000,
        partial: false,
        summary: None,
    };
    store.finish_run(id, &end).unwrap();
    id
}

#[test]
fn replays_of_a_capture() {
    let Some(targets) = targets::shared("replays_of_a_capture") else {
        return;
    };
    let dir = TestDir::new();
    let db = dir.path().join("history.db");
    // The seeded capture writes 500-1,000 IOs a second: its replay writes.
    let capture = seed::seed_capture(&db).to_string();
    let log = dir.path().join("traced.log");
    write_iolog_file(&log, LOGGED_WRITES);
    let traced = capture_with_iolog(&db, &log).to_string();
    let replay = |extra: &[&str], target: &Target| {
        let mut list = args(&[
            "replay",
            "--db",
            db.to_str().unwrap(),
            "--quiet",
            "--no-save",
        ]);
        list.extend(args(extra));
        list.push(path_of(target));
        list
    };
    refuses(
        "replay",
        &dir,
        targets,
        |_| true,
        |t| replay(&[&capture, "--size", "1m", "--runtime", "1"], t),
    );
    refuses(
        "replay --exact",
        &dir,
        targets,
        |_| true,
        |t| replay(&[&traced, "--exact"], t),
    );
}

#[test]
fn verified_writes() {
    let Some(targets) = targets::shared("verified_writes") else {
        return;
    };
    let dir = TestDir::new();
    let verify = |extra: &str, size: &str, target: &Target| {
        args(&[
            "run",
            "--quiet",
            "--no-save",
            "--name=v",
            "--rw=randwrite",
            "--bs=4k",
            &format!("--size={size}"),
            "--verify=crc32c",
            extra,
            &format!("--filename={}", path_of(target)),
        ])
    };
    refuses(
        "verify",
        &dir,
        targets,
        |_| true,
        |t| verify("--do_verify=1", "1m", t),
    );
    // verify_only writes nothing: it reads the blocks back, and finds none of its headers
    // in data it did not write.
    reads(
        "verify_only",
        &dir,
        targets,
        |t| verify("--verify_only=1", "64k", t),
        |out| {
            out.status.code() == Some(1)
                && String::from_utf8_lossy(&out.stderr).contains("verify failed")
        },
    );
}

#[test]
fn a_write_iolog_aimed_at_a_device_with_data() {
    let Some(targets) = targets::shared("a_write_iolog_aimed_at_a_device_with_data") else {
        return;
    };
    let dir = TestDir::new();
    // The job reads a file of its own; only its log would be written to the device.
    refuses(
        "write_iolog",
        &dir,
        targets,
        |t| t.device,
        |t| {
            args(&[
                "run",
                "--quiet",
                "--no-save",
                "--name=logged",
                "--rw=randread",
                "--bs=4k",
                "--size=64k",
                "--filename=scratch.dat",
                &format!("--write_iolog={}", path_of(t)),
            ])
        },
    );
    assert!(
        !dir.path().join("scratch.dat").exists(),
        "laid out before the refusal"
    );
}
