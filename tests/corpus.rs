//! fio's own example job files (fio's examples/, kept outside the repository in
//! `../shared/corpus/fio-examples`) run as fio runs them: `bench/corpus-fio` runs each file
//! whose engines diskmeter has with fio and with diskmeter on the null engine and compares
//! their (job, group) structure. Issue 15's acceptance: at least 95 % run, the rest are
//! refused with a specific reason naming file, line and option.

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
