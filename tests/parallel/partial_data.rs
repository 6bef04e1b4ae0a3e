//! Issue 27, item 6: partial data is never analysed as whole. A sweep interrupted by SIGINT
//! and sweeps stopped by ENOSPC (a real one, from a tmpfs mounted with a small `size=`): the
//! sweep's own output and `diskmeter analyze` say which points are partial and why, and
//! infer no cap, no "still rising" and no tier from them.
//!
//! Nothing here judges a rate: the runs are a few seconds of 4 KiB IO on tmpfs, and the
//! assertions are about which points the analysis took, not their figures.

use crate::common;

use common::{require_root, sh, TestDir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A tmpfs of `mib` MiB mounted in a test folder, unmounted on drop.
struct SmallFs {
    at: PathBuf,
}

impl SmallFs {
    fn new(dir: &Path, mib: u64) -> SmallFs {
        let at = dir.join("small");
        std::fs::create_dir_all(&at).expect("create the mount point");
        sh(&format!(
            "mount -t tmpfs -o size={mib}m tmpfs {}",
            at.display()
        ));
        SmallFs { at }
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.at).status();
    }
}

fn diskmeter(dir: &Path, args: &[&str]) -> std::process::Output {
    common::diskmeter(dir, args)
}

/// `diskmeter analyze last --output-format json` of the history at `db`: the sweeps.
fn analyze_json(dir: &Path, db: &str) -> Vec<Value> {
    let out = diskmeter(
        dir,
        &[
            "analyze",
            "last",
            "--db",
            db,
            "--charts",
            "none",
            "--output-format",
            "json",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("analyze JSON");
    doc["sweeps"].as_array().cloned().expect("sweeps")
}

/// `diskmeter analyze last` of the history at `db`, as text.
fn analyze_text(dir: &Path, db: &str) -> String {
    let out = diskmeter(dir, &["analyze", "last", "--db", db, "--charts", "none"]);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The claims an analysis must not make from a partial point.
fn assert_no_inference_from(text: &str, partial_qd: u64) {
    for claim in [
        format!("highest queue depth ({partial_qd})"),
        format!("at QD {partial_qd}"),
        "Caps:".to_string(),
        "Behaves like".to_string(),
    ] {
        assert!(!text.contains(&claim), "claims '{claim}':\n{text}");
    }
}

#[test]
fn issue27_a_sweep_interrupted_by_sigint_lists_its_partial_point_and_infers_nothing_from_it() {
    let work = TestDir::in_memory();
    let dir = work.path();
    // Four points of two seconds each: the signal 3 s in lands inside the second (QD 2),
    // a second from either end of it, so a start delayed by a busy host (this binary runs
    // eight tests at a time) still cuts a point rather than fall between two.
    let child = common::process()
        .current_dir(dir)
        .args([
            "sweep",
            "f",
            "--size",
            "16m",
            "--bs",
            "4k",
            "--qd",
            "1,2,4,8",
            "--point-time",
            "2s",
            "--ramp",
            "0",
            "--charts",
            "none",
            "--db",
            "h.db",
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start diskmeter");
    let started = Instant::now();
    while !common::catches_sigint(child.id()) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no SIGINT handler"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(3_000));
    // SAFETY: sends a signal to our own child, which has not been waited for.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().expect("wait for diskmeter");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let context = format!(
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{context}");

    let sweeps = analyze_json(dir, "h.db");
    let partial = sweeps[0]["partial_points"]
        .as_array()
        .expect("partial_points");
    assert_eq!(
        partial.len(),
        1,
        "one point was cut short: {sweeps:#?}\n{context}"
    );
    let partial_qd = partial[0]["qd"].as_u64().unwrap();
    let reason = partial[0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("interrupted"), "{reason}");
    // The whole points are the ones before it; the analysis takes only them.
    let whole: Vec<u64> = sweeps[0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["qd"].as_u64().unwrap())
        .collect();
    assert!(!whole.contains(&partial_qd), "{whole:?} {partial_qd}");
    assert!(whole.iter().all(|qd| *qd < partial_qd), "{whole:?}");
    let analysis = &sweeps[0]["analysis"];
    for finding in analysis["block_sizes"].as_array().unwrap() {
        assert!(
            finding["max_qd"].as_u64().unwrap() < partial_qd,
            "{analysis:#}"
        );
    }
    assert_eq!(
        analysis["iops_ceiling"]["status"], "not_found",
        "{analysis:#}"
    );
    assert!(
        analysis["tiers"].as_array().unwrap().is_empty(),
        "{analysis:#}"
    );

    // The text of analyze, and the sweep's own output, name the partial point and why.
    let name = format!("randread 4k QD{partial_qd} x1");
    for text in [analyze_text(dir, "h.db"), stdout.into_owned()] {
        assert!(
            text.contains(&format!("Partial point left out of the analysis: {name}")),
            "{text}"
        );
        assert!(text.contains("partial: left out"), "{text}");
        assert_no_inference_from(&text, partial_qd);
    }
    assert!(work.files().iter().all(|f| f != "f"), "{:?}", work.files());
}

#[test]
fn issue27_a_sweep_stopped_by_enospc_in_a_point_lists_it_and_infers_no_cap_from_it() {
    if !require_root(
        "issue27_a_sweep_stopped_by_enospc_in_a_point_lists_it_and_infers_no_cap_from_it",
    ) {
        return;
    }
    let work = TestDir::in_memory();
    let dir = work.path();
    let fs = SmallFs::new(dir, 4);
    // A sparse 64 MiB file on a 4 MiB filesystem: its holes read back as zeros (the reads
    // are whole points), its random writes run the filesystem out of space.
    let file = fs.at.join("data");
    sh(&format!("truncate -s 64m {}", file.display()));
    let file_arg = file.display().to_string();
    let out = diskmeter(
        dir,
        &[
            "sweep",
            &file_arg,
            "--size",
            "64m",
            "--rw",
            "randread,randwrite",
            "--bs",
            "4k",
            "--qd",
            "1,2",
            "--point-time",
            "1s",
            "--ramp",
            "0",
            "--charts",
            "none",
            "--db",
            "h.db",
            "--quiet",
            "--allow-destroy",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(out.status.code(), Some(1), "{context}");
    assert!(stderr.contains("No space left on device"), "{context}");

    let sweeps = analyze_json(dir, "h.db");
    assert_eq!(sweeps.len(), 2, "{sweeps:#?}");
    // The reads ran whole, and are analysed.
    assert_eq!(sweeps[0]["rw"], "randread");
    assert_eq!(
        sweeps[0]["points"].as_array().unwrap().len(),
        2,
        "{context}"
    );
    assert!(sweeps[0]["analysis"]["nothing_inferred"].is_null());
    // The first write point failed: listed, with the error, and nothing inferred.
    let writes = &sweeps[1];
    assert_eq!(writes["rw"], "randwrite");
    assert!(
        writes["points"].as_array().unwrap().is_empty(),
        "{writes:#}"
    );
    let partial = writes["partial_points"].as_array().unwrap();
    assert_eq!(partial.len(), 1, "{writes:#}");
    assert_eq!(partial[0]["step"], "randwrite 4k QD1 x1");
    let reason = partial[0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("failed: job "), "{reason}");
    assert!(reason.contains("No space left on device"), "{reason}");
    let analysis = &writes["analysis"];
    assert!(
        analysis["nothing_inferred"]
            .as_str()
            .is_some_and(|r| r.starts_with("no whole point was measured")),
        "{analysis:#}"
    );
    for whole_text in [analyze_text(dir, "h.db"), stdout] {
        // The writes' part: the reads' analysis is of whole points and says what it says.
        let text = whole_text
            .split_once("sweep randwrite")
            .map_or(whole_text.as_str(), |(_, writes)| writes);
        assert!(
            text.contains("Partial point left out of the analysis: randwrite 4k QD1 x1"),
            "{text}"
        );
        assert!(
            text.contains("Nothing inferred: no whole point was measured"),
            "{text}"
        );
        assert!(!text.contains("not capped within the grid"), "{text}");
        assert!(!text.contains("still rising"), "{text}");
    }
    drop(fs);
}

#[test]
fn issue27_a_sweep_whose_file_does_not_fit_says_nothing_was_measured() {
    if !require_root("issue27_a_sweep_whose_file_does_not_fit_says_nothing_was_measured") {
        return;
    }
    // The sweep of issue 27: its test file could not be laid out (ENOSPC), no point ran,
    // and it printed an empty table and "the device was not capped within the grid". Since
    // issue 32 the layout is refused before it writes, with both figures.
    let work = TestDir::in_memory();
    let dir = work.path();
    let fs = SmallFs::new(dir, 4);
    let file = fs.at.join("f").display().to_string();
    let out = diskmeter(
        dir,
        &[
            "sweep",
            &file,
            "--size",
            "16m",
            "--bs",
            "4k",
            "--qd",
            "1,2",
            "--point-time",
            "200ms",
            "--ramp",
            "0",
            "--charts",
            "none",
            "--db",
            "h.db",
            "--quiet",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let context = format!(
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{context}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("not enough space to lay out the test file: 16.0 MiB needed, 4.00 MiB free"),
        "{context}"
    );
    assert!(
        stdout.contains("Nothing inferred: no whole point was measured"),
        "{context}"
    );
    assert!(
        stdout.contains("stopped after 0 of its 2 points"),
        "{context}"
    );
    assert!(!stdout.contains("not capped"), "{context}");
    drop(fs);
}
