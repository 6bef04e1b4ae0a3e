//! How fio job files read (issue 3, first part), through the real binary and beside fio:
//! every file in tests/jobs resolves with its sections as jobs, resolves as fio reads it
//! (`fio --showcmd`), and short null-engine runs give fio's jobs and reporting groups. Dry
//! runs and the null engine only: no disk IO, no figure measured (a module of tests/parallel,
//! which runs beside anything but tests/alone).

use crate::common;
// The job files' helpers, shared with tests/parallel/jobfile.rs (one module in the binary).
use super::jobfile::support;

use assert_cmd::Command;
use common::{require_tool, TestDir};
use support::{dry_run, job_files, job_files_where, on_two_threads, with_env};

#[test]
fn every_job_file_resolves_with_its_sections_as_jobs() {
    let dir = TestDir::new();
    let files = job_files();
    assert!(files.len() >= 30, "tests/jobs has {} files", files.len());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let plan = dry_run(dir.path(), &[file.display().to_string()]);
        for line in text.lines().map(str::trim) {
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                if name != "global" {
                    assert!(
                        plan.contains(&format!("[{name}]")),
                        "{}: no job {name}\n{plan}",
                        file.display()
                    );
                }
            }
        }
    }
}

/// fio's `--showcmd` prints a job file as the command line fio reads it as; diskmeter must
/// resolve the file and that command line to the same jobs. (showcmd repeats every [global]
/// before each job, so files with a second [global] are compared by running them instead,
/// in `later_globals_match_fios_run`.)
#[test]
fn job_files_resolve_as_fio_reads_them() {
    if !require_tool("job_files_resolve_as_fio_reads_them", "fio") {
        return;
    }
    let dir = TestDir::new();
    let files = job_files_where(|text| text.matches("[global]").count() <= 1);
    // Dry runs only: two files at a time, each its own three processes.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let compare_next = || {
        while let Some(file) = files.get(next.fetch_add(1, std::sync::atomic::Ordering::SeqCst)) {
            let out = with_env(Command::new("fio"), dir.path())
                .arg("--showcmd")
                .arg(file)
                .output()
                .expect("fio --showcmd");
            assert!(out.status.success(), "fio --showcmd {}", file.display());
            let line = String::from_utf8(out.stdout).unwrap();
            // A job file starts from fio's defaults, a command line from diskmeter's: give
            // the command line fio's (the file's own options come after them and win).
            let args: Vec<String> = ["--ioengine=psync", "--unlink=0"]
                .into_iter()
                .map(str::to_string)
                .chain(line.split_whitespace().skip(1).map(unquote))
                .collect();
            let from_file = dry_run(dir.path(), &[file.display().to_string()]);
            let from_fio = dry_run(dir.path(), &args);
            assert_eq!(
                from_file,
                from_fio,
                "{}: fio read it as {line}",
                file.display()
            );
        }
    };
    on_two_threads(compare_next);
    assert!(files.len() >= 28, "compared {} files", files.len());
}

/// `--description="text"` as a shell passes it: showcmd prints the file's quotes. Only for
/// `description`: in a pattern (`buffer_pattern="text"`) the quotes are fio's syntax.
fn unquote(arg: &str) -> String {
    match arg.split_once("=\"") {
        Some((key, rest)) if key == "--description" && rest.ends_with('"') => {
            format!("{key}={}", &rest[..rest.len() - 1])
        }
        _ => arg.to_string(),
    }
}

/// (jobname, groupid) of every job in fio-3.x JSON.
fn structure(json: &str) -> Vec<(String, u64)> {
    let v: serde_json::Value =
        serde_json::from_str(&json[json.find('{').expect("JSON")..]).unwrap();
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Short null-engine runs of the semantics files give the same jobs and reporting groups
/// (stonewall, new_group) in fio and in diskmeter's fio-compatible JSON.
/// Structure does not depend on speed: fio and diskmeter run side by side, two files at a
/// time, in folders of their own.
#[test]
fn job_and_group_structure_matches_fio() {
    if !require_tool("job_and_group_structure_matches_fio", "fio") {
        return;
    }
    let dir = TestDir::new();
    let files = job_files_where(|text| text.contains("ioengine=null"));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let compare_next = || {
        while let Some(file) = files.get(next.fetch_add(1, std::sync::atomic::Ordering::SeqCst)) {
            let folder = |tool: &str| {
                let stem = file.file_stem().unwrap().to_string_lossy();
                let folder = dir.path().join(format!("{tool}-{stem}"));
                std::fs::create_dir_all(&folder).unwrap();
                folder
            };
            let mut fio = std::process::Command::new("fio");
            fio.arg("--output-format=json").arg(file);
            let mut dm = common::process();
            dm.args(["run", "--quiet", "--output-format=fio-json"])
                .arg(file);
            let running = [(fio, folder("fio")), (dm, folder("dm"))].map(|(mut cmd, at)| {
                cmd.env("DM_DIR", &at)
                    .env("DM_SIZE", "8m")
                    .env("DM_RUNTIME", "1")
                    .current_dir(&at)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("spawn")
            });
            let [fio, dm] = running.map(|child| child.wait_with_output().expect("wait"));
            for (tool, out) in [("fio", &fio), ("diskmeter", &dm)] {
                assert!(
                    out.status.success(),
                    "{tool} {}: {}",
                    file.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            assert_eq!(
                structure(&String::from_utf8_lossy(&dm.stdout)),
                structure(&String::from_utf8_lossy(&fio.stdout)),
                "{}",
                file.display()
            );
        }
    };
    on_two_threads(compare_next);
    assert!(files.len() >= 15, "compared {} files", files.len());
}
