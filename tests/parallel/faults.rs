//! The IO fault matrix: each fault of the target and its storage made to happen under the real
//! binary, on real filesystems and block devices. Whatever the fault, diskmeter prints one
//! line naming the target and the cause, exits with 1, keeps (prints and saves) the steps
//! that finished before it, leaves no half-saved step and no unfinished run in the history,
//! and removes the test files it made, never a user's.
//!
//! Most faults hit the second step of `diskmeter suite realworld` (step 1 reads a good
//! target, step 2 writes the faulty one). A fault before the step's IO began (laying out,
//! opening) saves nothing of that step; one during its IO saves the step whole with the
//! failed job's error. The table in docs/guide/9-reference.md ("The target and its storage") is this file.

use crate::common;
#[path = "faults/support.rs"]
mod support;

use common::{one_line_failure, require_root, require_tool, TestDir};
use diskmeter_faultfs::Faults;
use std::process::Stdio;
use support::*;

/// A device with bad sectors: step 2's sequential writes get EIO from the block device
/// after its first 2 MiB went through; a read of a bad range fails the same way.
#[test]
fn eio_from_the_device_fails_the_step_that_met_it() {
    let test = "eio_from_the_device_fails_the_step_that_met_it";
    if !require_root(test) || !require_fuse(test) {
        return;
    }
    let t = TestDir::new();
    let faults = Faults::default()
        .fail_writes((2 << 20)..(12 << 20))
        .fail_reads((8 << 20)..(9 << 20));
    let device = FaultDevice::new(&t, 16, faults);
    let db = t.path().join("history.db");
    let dev = std::path::Path::new(&device.dev);
    let output = suite(t.path(), dev, dev, &db, &[]).output().unwrap();
    let line = one_line_failure(&output, &[&device.dev, "offset 2097152", "(EIO)"]);
    assert!(line.contains("write of 1048576 bytes"), "{line}");
    // Step 1 is kept; step 2 met the fault during its IO, so it is saved whole, its job
    // carrying the error it failed with; the run is closed, marked partial (2 of 4 steps).
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("stopped after 2 of 4 steps"), "{stdout}");
    // Issue 27: the failed step's figures are not shown as the step's; its note says why.
    assert!(
        stdout.contains("SEQ1M Q1T1 write: partial, left out of the table: failed: job"),
        "{stdout}"
    );
    let (run, shown) = the_saved_run(&db, 2);
    assert_eq!(run["partial"], true);
    assert!(job_error(&shown, 0, 0).is_null(), "{shown:#}");
    let error = job_error(&shown, 1, 0).as_str().expect("step 2's error");
    assert!(line.ends_with(error), "saved {error:?}, printed {line:?}");
    let output = common::process()
        .current_dir(t.path())
        .args([
            "run",
            "--quiet",
            "--no-save",
            "--name=r",
            "--rw=read",
            "--bs=64k",
        ])
        .args(["--direct=1", "--offset=8m", "--size=1m"])
        .arg(format!("--filename={}", device.dev))
        .output()
        .unwrap();
    one_line_failure(&output, &["read of 65536 bytes at offset 8388608", "(EIO)"]);
}

/// The device vanishes while a run has it open: detached and its backing gone (the server
/// of its file killed). The first job (finished) keeps its figures, the second fails with
/// EIO.
#[test]
fn a_device_vanishing_mid_run_fails_the_job_on_it() {
    let test = "a_device_vanishing_mid_run_fails_the_job_on_it";
    if !require_root(test) || !require_fuse(test) {
        return;
    }
    let t = TestDir::new();
    let mut device = FaultDevice::new(&t, 16, Faults::default());
    let db = t.path().join("history.db");
    let mut child = common::process()
        .current_dir(t.path())
        .args(["run", "--quiet", "--output-format=json"])
        .arg(format!("--db={}", db.display()))
        .arg(format!("--filename={}", device.dev))
        .args(["--direct=1", "--bs=64k"])
        .args(["--name=before", "--rw=read", "--size=1m"])
        .args([
            "--name=during",
            "--stonewall",
            "--rw=write",
            "--offset=4m",
            "--size=8m",
        ])
        .args(["--time_based", "--runtime=60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first write comes from the second job: the first only reads.
    if !eventually(|| device.writes() > 0) {
        let _ = child.kill();
        panic!("the second job never wrote");
    }
    device.vanish();
    let output = child.wait_with_output().unwrap();
    one_line_failure(&output, &["job during", &device.dev, "(EIO)"]);
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(result["jobs"][0]["error"].is_null(), "{result:#}");
    assert_eq!(result["jobs"][0]["read"]["bytes"], 1 << 20);
    // One step: saved whole, the failed job with its error.
    let (_, shown) = the_saved_run(&db, 1);
    assert!(job_error(&shown, 0, 1).as_str().unwrap().contains("(EIO)"));
}

/// The write target's filesystem has no room for its test file: step 2 is refused before its
/// layout writes a byte, with both figures (issue 32), so only step 1 is saved and no file is
/// left.
#[test]
fn enospc_while_laying_out_keeps_the_steps_before() {
    let test = "enospc_while_laying_out_keeps_the_steps_before";
    if !require_root(test) || !require_tool(test, "mkfs.ext4") {
        return;
    }
    let t = TestDir::new();
    let (_device, full) = small_ext4(&t, "full", 16);
    let (db, read, write) = (
        t.path().join("h.db"),
        t.path().join("r.dat"),
        full.join("w.dat"),
    );
    let output = suite(t.path(), &read, &write, &db, &["--size=16m"])
        .output()
        .unwrap();
    let fits = [
        "16.0 MiB needed, ",
        " free on ",
        "(ext4); use a smaller --size",
    ];
    let line = one_line_failure(&output, &[&write.display().to_string(), fits[0], fits[1]]);
    assert!(line.contains(fits[2]), "{line}");
    step_1_alone_is_saved(&output, &db);
    assert!(holds_only(&full, &[]), "the half-made file removed");
    assert!(!read.exists(), "step 1's file removed");
    // Even when files are kept: a half-made file would read back zeros where it was not
    // written, and a later run could take it for a laid-out one.
    let output = common::diskmeter(
        &full,
        &[
            "run",
            "--quiet",
            "--no-save",
            "--keep",
            "--name=kept",
            "--size=16m",
        ],
    );
    one_line_failure(&output, &["./kept.0.0", fits[0], fits[2]]);
    assert!(
        holds_only(&full, &[]),
        "the half-made file removed, though kept"
    );
}

/// ENOSPC on layout, as a user meets it (issue 32): a 64 MiB file on an 8 MiB tmpfs. The
/// one line names both figures in scaled units, the filesystem, and what to do instead; the
/// layout wrote nothing. The tmpfs is unmounted however the test ends (its guard).
#[test]
fn enospc_on_layout_names_the_figures_and_what_to_do() {
    let test = "enospc_on_layout_names_the_figures_and_what_to_do";
    if !require_root(test) {
        return;
    }
    let t = TestDir::new();
    let tmpfs = MemoryFs::new(&t, "tmpfs", "size=8m");
    let file = tmpfs.0.join("big.dat");
    let output = common::diskmeter(
        t.path(),
        &[
            "run",
            "--quiet",
            "--no-save",
            "--name=big",
            "--rw=randread",
            "--size=64m",
            "--direct=0",
            &format!("--filename={}", file.display()),
        ],
    );
    let line = one_line_failure(
        &output,
        &[
            &format!(
                "{}: not enough space to lay out the test file",
                file.display()
            ),
            "64.0 MiB needed, 8.00 MiB free on ",
            &format!("{} (tmpfs)", tmpfs.0.display()),
            "use a smaller --size, put the file on a filesystem with room (--directory or \
             --filename), or free space on ",
        ],
    );
    eprintln!("{line}");
    assert!(holds_only(&tmpfs.0, &[]), "nothing laid out");
    // A dry run notes it instead of refusing.
    let filename = format!("--filename={}", file.display());
    let dry = [
        "run",
        "--dry-run",
        "--name=big",
        "--size=64m",
        "--direct=0",
        &filename,
    ];
    let planned = common::ok(common::diskmeter(t.path(), &dry));
    assert!(
        planned.contains("64.0 MiB needed, 8.00 MiB free on ")
            && planned.contains("; a run would be refused"),
        "{planned}"
    );
    // Four files of 4 MiB in one folder share its 8 MiB: the figure is their sum.
    let output = common::diskmeter(
        t.path(),
        &[
            "run",
            "--quiet",
            "--no-save",
            "--name=many",
            "--rw=randread",
            "--size=4m",
            "--numjobs=4",
            "--direct=0",
            &format!("--directory={}", tmpfs.0.display()),
        ],
    );
    one_line_failure(
        &output,
        &["lay out 4 test files: 16.0 MiB needed, 8.00 MiB free"],
    );
    assert!(holds_only(&tmpfs.0, &[]), "nothing laid out");
}

/// The filesystem fills up during the measured writes (they allocate as they go; see the
/// job file): the writing job fails with ENOSPC, the job before it keeps its figures, the
/// step is saved whole with the failed job's error, and both files are removed.
#[test]
fn enospc_while_writing_fails_the_writing_job() {
    let test = "enospc_while_writing_fails_the_writing_job";
    if !require_root(test) || !require_tool(test, "mkfs.ext4") {
        return;
    }
    let t = TestDir::new();
    let (_device, small) = small_ext4(&t, "small", 16);
    let db = t.path().join("h.db");
    let job_file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/jobs/fault-enospc-during-writes.fio"
    );
    let output = common::process()
        .current_dir(t.path())
        .env("DM_DIR", &small)
        .args(["run", "--quiet", "--output-format=json", job_file])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    let fill = small.join("fill.0.0").display().to_string();
    let line = one_line_failure(
        &output,
        &["job fill: write of 65536 bytes", &fill, "(ENOSPC)"],
    );
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(result["jobs"][0]["error"].is_null(), "{result:#}");
    assert_eq!(result["jobs"][0]["read"]["bytes"], 1 << 20);
    assert!(result["jobs"][1]["write"]["bytes"].as_u64().unwrap() > 0);
    let (_, shown) = the_saved_run(&db, 1);
    assert_eq!(
        job_error(&shown, 0, 1).as_str(),
        Some(line.trim_start_matches("diskmeter: "))
    );
    assert!(holds_only(&small, &[]), "both test files removed");
}

/// A folder the user may not write in, then a file the user may not write (with
/// `--allow-destroy`, so the safety rules do not refuse it first): EACCES, as an
/// unprivileged user, since root bypasses file modes.
#[test]
fn eacces_names_the_folder_or_file_the_user_may_not_write() {
    let test = "eacces_names_the_folder_or_file_the_user_may_not_write";
    if !require_root(test) || !require_tool(test, "setpriv") {
        return;
    }
    let t = TestDir::new();
    let (mine, roots) = (t.path().join("mine"), t.path().join("roots"));
    common::sh(&format!(
        "chmod 755 {t} && mkdir {mine} {roots} && chown {NOBODY}:{NOBODY} {mine} \
         && dd if=/dev/zero of={roots}/data bs=1M count=4 status=none",
        t = t.path().display(),
        mine = mine.display(),
        roots = roots.display()
    ));
    let read = mine.join("r.dat");
    for (write, extra, db) in [
        (roots.join("w.dat"), None, mine.join("folder.db")),
        (
            roots.join("data"),
            Some("--allow-destroy"),
            mine.join("file.db"),
        ),
    ] {
        let mut command = suite(&mine, &read, &write, &db, &[]);
        command.args(extra);
        let output = as_nobody(&command).output().unwrap();
        one_line_failure(&output, &[&write.display().to_string(), "(EACCES)"]);
        step_1_alone_is_saved(&output, &db);
        assert!(!read.exists(), "step 1's file removed");
    }
    assert!(holds_only(&roots, &["data"]), "the user's file stays");
    assert_eq!(
        std::fs::metadata(roots.join("data")).unwrap().len(),
        4 << 20
    );
}

/// A read-only filesystem: step 1 reads a file on it (reads still work), step 2's file
/// cannot be created there (EROFS).
#[test]
fn a_read_only_filesystem_refuses_writes_and_serves_reads() {
    let test = "a_read_only_filesystem_refuses_writes_and_serves_reads";
    if !require_root(test) || !require_tool(test, "mkfs.ext4") {
        return;
    }
    let t = TestDir::new();
    let (_device, ro) = small_ext4(&t, "ro", 16);
    common::sh(&format!(
        "dd if=/dev/urandom of={ro}/data bs=1M count=4 status=none && mount -o remount,ro {ro}",
        ro = ro.display()
    ));
    let (db, read, write) = (t.path().join("h.db"), ro.join("data"), ro.join("w.dat"));
    let output = suite(t.path(), &read, &write, &db, &[]).output().unwrap();
    one_line_failure(&output, &[&write.display().to_string(), "(EROFS)"]);
    let (_, shown) = step_1_alone_is_saved(&output, &db);
    let read_bytes = &shown["steps"][0]["result"]["jobs"][0]["read"]["bytes"];
    assert!(read_bytes.as_u64().unwrap() > 0, "{shown:#}");
    assert!(holds_only(&ro, &["data"]));
}

/// O_DIRECT refused by the filesystem (ramfs: EINVAL) when step 2 opens its file, laid out
/// through the page cache just before: the one line says what to do, and the file goes.
#[test]
fn o_direct_refused_by_the_filesystem_is_one_clear_line() {
    let test = "o_direct_refused_by_the_filesystem_is_one_clear_line";
    if !require_root(test) {
        return;
    }
    let t = TestDir::new();
    let ramfs = MemoryFs::new(&t, "ramfs", "size=64m");
    let (db, read, write) = (
        t.path().join("h.db"),
        t.path().join("r.dat"),
        ramfs.0.join("w.dat"),
    );
    let output = suite(t.path(), &read, &write, &db, &[]).output().unwrap();
    one_line_failure(
        &output,
        &[
            &write.display().to_string(),
            &format!(
                "the filesystem (ramfs on {}) refuses O_DIRECT",
                ramfs.0.display()
            ),
            "run with --direct=0",
            "or put the file on a filesystem that supports O_DIRECT",
        ],
    );
    step_1_alone_is_saved(&output, &db);
    assert!(
        holds_only(&ramfs.0, &[]),
        "the file laid out for step 2 removed"
    );
}

/// A folder that does not exist (no root needed).
#[test]
fn a_missing_folder_is_named() {
    let t = TestDir::new();
    let (db, read) = (t.path().join("h.db"), t.path().join("r.dat"));
    let write = std::path::Path::new("/nonexistent/folder/w.dat");
    let output = suite(t.path(), &read, write, &db, &[]).output().unwrap();
    one_line_failure(&output, &["folder /nonexistent/folder does not exist"]);
    step_1_alone_is_saved(&output, &db);
}

/// The test file is removed while the run reads it, and a user puts a file of their own at
/// its path: the run completes on the open file (IO on an unlinked file goes on until its
/// Waits until `child`'s worker has `path` open for its IO, then removes the file and puts a
/// user's file at its path; returns the child's output once it has ended, which must be a
/// success (IO goes on on the open descriptor).
fn replace_while_open(child: std::process::Child, path: &std::path::Path) -> std::process::Output {
    let opened = eventually(|| open_for_direct_io(child.id(), path));
    assert!(opened, "the worker never opened {}", path.display());
    std::fs::remove_file(path).unwrap();
    std::fs::write(path, "the user's").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// last descriptor closes), is saved whole, and the user's file stays (no root needed).
#[test]
fn a_test_file_removed_mid_run_ends_the_run_normally_and_spares_a_new_file() {
    let t = TestDir::new();
    // As /proc names the file the run holds open: no symlink on the way.
    let path = t.path().canonicalize().unwrap().join("u.0.0");
    let db = t.path().join("h.db");
    let child = common::process()
        .current_dir(t.path())
        .args(["run", "--quiet", "--output-format=json"])
        .arg(format!("--db={}", db.display()))
        .args([
            "--name=u",
            "--rw=randread",
            "--bs=4k",
            "--size=4m",
            "--direct=1",
        ])
        .args(["--time_based", "--runtime=2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = replace_while_open(child, &path);
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(result["jobs"][0]["read"]["ios"].as_u64().unwrap() > 0);
    let (run, _) = the_saved_run(&db, 1);
    assert_eq!(run["partial"], false);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "the user's");
}

/// The same for a file several steps share (a sweep's, a suite's), which the session removes
/// at the end of the command: the file a user put at its path while the step that made it
/// ran stays (issue 17; it was removed when the file was first seen after that step).
#[test]
fn a_shared_test_file_replaced_mid_step_spares_the_new_file() {
    let t = TestDir::new();
    let path = t.path().canonicalize().unwrap().join("s.dat");
    let child = common::process()
        .current_dir(t.path())
        .args([
            "sweep",
            "--quiet",
            "--no-save",
            "--rw",
            "randread",
            "--qd",
            "1",
        ])
        .args([
            "--bs",
            "4k",
            "--point-time",
            "2s",
            "--ramp",
            "0",
            "--charts",
            "none",
        ])
        .args(["--size", "4m"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    replace_while_open(child, &path);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "the user's");
}

/// A file a user puts at a path a later step of the command will use, while an earlier
/// step runs, is the user's: that step refuses it, and it stays.
#[test]
fn a_file_put_at_a_later_steps_path_stays() {
    let t = TestDir::new();
    let dir = t.path().canonicalize().unwrap();
    let (db, read, write) = (dir.join("h.db"), dir.join("r.dat"), dir.join("w.dat"));
    let child = suite(&dir, &read, &write, &db, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let opened = eventually(|| open_for_direct_io(child.id(), &read));
    assert!(opened, "step 1 never opened {}", read.display());
    std::fs::write(&write, "the user's").unwrap();
    let output = child.wait_with_output().unwrap();
    one_line_failure(
        &output,
        &[&write.display().to_string(), "not created by diskmeter"],
    );
    assert_eq!(std::fs::read_to_string(&write).unwrap(), "the user's");
    assert!(!read.exists(), "step 1's file removed");
}

/// Step 1's figures are printed and it alone is saved: step 2 failed before its IO began,
/// so nothing of it is; the run is closed, marked partial. Returns the run and its steps.
fn step_1_alone_is_saved(
    output: &std::process::Output,
    db: &std::path::Path,
) -> (serde_json::Value, serde_json::Value) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("stopped after 1 of 4 steps"), "{stdout}");
    let (run, shown) = the_saved_run(db, 1);
    assert_eq!(run["partial"], true, "{run:#}");
    assert_eq!(shown["steps"][0]["name"], "SEQ1M Q1T1 read");
    assert!(job_error(&shown, 0, 0).is_null(), "{shown:#}");
    (run, shown)
}
