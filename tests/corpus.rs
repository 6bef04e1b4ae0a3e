//! fio's own example job files (fio's examples/, kept outside the repository in
//! `../shared/corpus/fio-examples`) run as fio runs them: `bench/corpus-fio` runs each file
//! whose engines diskmeter has with fio and with diskmeter on the null engine and compares
//! their (job, group) structure. Issue 15's acceptance: at least 95 % run, the rest are
//! refused with a specific reason naming file, line and option.
//!
//! `bench/same-work-fio` runs every job file of `tests/jobs` and of fio's examples
//! size-based on the null engine under both tools and compares each job's IOs and bytes per
//! direction (issue 28): drawn figures (a read/write mix, a size split, file sizes from a
//! range) within 4 sigma of the difference of two independent draws, everything else
//! exactly.

mod common;

use common::require_tool;
use std::path::Path;

/// The share of counted files that must run as fio runs them: issue 15's acceptance. After
/// issue 15, all 34 counted files of fio's examples run (zonemode=zbd on emulated zones
/// included).
const REQUIRED_RUN_RATE: f64 = 0.95;

fn corpus_dir() -> Option<std::path::PathBuf> {
    if let Ok(dir) = std::env::var("DM_CORPUS_FIO") {
        return Some(dir.into());
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    repo.ancestors()
        .skip(1)
        .take(3)
        .map(|base| base.join("shared/corpus/fio-examples"))
        .find(|dir| dir.is_dir())
}

#[test]
fn fios_example_job_files_run_with_fios_job_and_group_structure_or_say_why_not() {
    let test = "fios_example_job_files_run_with_fios_job_and_group_structure_or_say_why_not";
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIP {test}: no corpus at ../shared/corpus/fio-examples (DM_CORPUS_FIO)");
        return;
    };
    if !require_tool(test, "fio") || !require_tool(test, "python3") {
        return;
    }
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/corpus-fio"))
        .arg("--json")
        .arg("--corpus")
        .arg(&corpus)
        .arg("--diskmeter")
        .arg(assert_cmd::cargo::cargo_bin("diskmeter"))
        .output()
        .expect("bench/corpus-fio");
    assert!(
        out.status.success(),
        "bench/corpus-fio: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let files = report["files"].as_array().expect("files");
    let summary: Vec<String> = files
        .iter()
        .filter(|f| f["status"] != "pass" && f["status"] != "other engine")
        .map(|f| format!("{} {}: {}", f["status"], f["file"], f["reason"]))
        .collect();
    for file in files {
        let (status, reason) = (file["status"].as_str().unwrap(), &file["reason"]);
        // A file diskmeter runs has fio's jobs and groups.
        assert_ne!(status, "different structure", "{}: {reason}", file["file"]);
        if status == "refused" {
            // fio accepts the file, so every option in it is fio's: a refusal names the file,
            // line and option and says why, never "unknown option".
            let reason = reason.as_str().unwrap();
            let name = file["file"].as_str().unwrap();
            assert!(
                reason.starts_with(&format!("{name}:")) && !reason.contains("unknown option"),
                "{name}: {reason}"
            );
        }
    }
    let rate = report["rate"].as_f64().unwrap();
    assert!(
        report["counted"].as_u64().unwrap() >= 30,
        "{}",
        summary.join("\n")
    );
    assert!(
        rate >= REQUIRED_RUN_RATE,
        "{} of {} files ran as fio runs them ({:.1} %), below {:.0} %:\n{}",
        report["passed"],
        report["counted"],
        rate * 100.0,
        REQUIRED_RUN_RATE * 100.0,
        summary.join("\n")
    );
    eprintln!(
        "{} of {} of fio's example job files run as fio runs them",
        report["passed"], report["counted"]
    );
}

/// Issue 28's acceptance for the same-work harness: the share of counted job files that do
/// the same IO under diskmeter as under fio.
const REQUIRED_SAME_WORK_RATE: f64 = 0.98;

/// Files whose difference a branch not yet merged removes (bench/same-work-fio marks them
/// `pending`): h-randmap (fio's random map shrinks a split size's IO that would cover blocks
/// already done), h-values (`1Mi` is binary). The lead empties this list on merging them.
const PENDING_MERGES: &[&str] = &["h-randmap", "h-values"];

/// Files that do different work today, each with its known cause (the harness prints the
/// figures). A difference in any other file fails the test.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "jobs/options-control-zbd-writes.fio",
        "zonemode=zbd on the null engine: fio 3.33 issues no trim to its emulated zones",
    ),
    (
        "jobs/options-control-zbd-zone-sizes.fio",
        "zonemode=zbd on the null engine: fio 3.33 does no sequential write at 2z",
    ),
    (
        "jobs/options-trim-backlog.fio",
        "kept on purpose: trim_percentage trims without verify (docs/GUIDE.md)",
    ),
    (
        "fio-examples/cross-stripe-verify.fio",
        "fio ends holed sequential IO with an offset at the region's end; diskmeter wraps",
    ),
];

#[test]
fn issue_28_job_files_do_the_same_work_size_based_under_fio_and_diskmeter() {
    let test = "issue_28_job_files_do_the_same_work_size_based_under_fio_and_diskmeter";
    if !require_tool(test, "fio") || !require_tool(test, "python3") {
        return;
    }
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/same-work-fio"))
        .args(["--json", "--parallel", "4", "--size", "4m"])
        .arg("--diskmeter")
        .arg(assert_cmd::cargo::cargo_bin("diskmeter"));
    match corpus_dir() {
        Some(corpus) => {
            cmd.arg("--corpus").arg(corpus);
        }
        None => {
            eprintln!("{test}: no corpus at ../shared/corpus/fio-examples: tests/jobs only");
            cmd.args(["--corpus", ""]);
        }
    }
    let out = cmd.output().expect("bench/same-work-fio");
    assert!(
        out.status.success(),
        "bench/same-work-fio: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let files = report["files"].as_array().expect("files");
    let mut unexplained = Vec::new();
    let mut excused = 0;
    for file in files {
        let (name, status) = (
            file["file"].as_str().unwrap(),
            file["status"].as_str().unwrap(),
        );
        if status == "same work" || status == "other engine" {
            continue;
        }
        let pending: Vec<&str> = file["pending"]
            .as_array()
            .map(|p| p.iter().filter_map(|o| o.as_str()).collect())
            .unwrap_or_default();
        let note = file["note"].as_str().unwrap_or("");
        // Every file left out or differing is listed with its reason.
        eprintln!(
            "{status:<20} {name}{}: {}{}",
            if pending.is_empty() {
                String::new()
            } else {
                format!(" [pending {}]", pending.join(", "))
            },
            file["reason"].as_str().unwrap_or(""),
            if note.is_empty() {
                String::new()
            } else {
                format!(" (known cause: {note})")
            }
        );
        if status != "different work" && status != "refused" && status != "different structure" {
            continue;
        }
        if pending.iter().any(|owner| PENDING_MERGES.contains(owner)) {
            excused += 1;
        } else if !KNOWN_DIFFERENCES.iter().any(|(known, _)| *known == name) {
            unexplained.push(format!("{status} {name}: {}", file["reason"]));
        }
    }
    let counted = report["counted"].as_u64().unwrap();
    let same = report["same"].as_u64().unwrap();
    eprintln!(
        "same work as fio: {same} of {counted} counted job files ({:.1} %); {excused} more \
         pending a merge ({}), {} known differences, drawn figures within {} sigma",
        100.0 * report["rate"].as_f64().unwrap(),
        PENDING_MERGES.join(", "),
        KNOWN_DIFFERENCES.len(),
        report["sigmas"]
    );
    assert!(counted >= 60, "too few files counted: {counted}");
    assert!(
        unexplained.is_empty(),
        "job files doing other work than under fio:\n{}",
        unexplained.join("\n")
    );
    // A known difference that is gone leaves the list (so the rate below stays honest).
    for (known, cause) in KNOWN_DIFFERENCES {
        let now = files.iter().find(|f| f["file"] == *known);
        assert!(
            now.is_none_or(|f| f["status"] != "same work"),
            "{known} does the same work now: remove it from KNOWN_DIFFERENCES ({cause})"
        );
    }
    let reachable = (same + excused) as f64 / counted as f64;
    if KNOWN_DIFFERENCES.is_empty() && PENDING_MERGES.is_empty() {
        assert!(reachable >= REQUIRED_SAME_WORK_RATE, "{reachable}");
    } else {
        eprintln!(
            "issue 28's {:.0} % not yet met: {:.1} % with the pending merges",
            REQUIRED_SAME_WORK_RATE * 100.0,
            reachable * 100.0
        );
    }
}
