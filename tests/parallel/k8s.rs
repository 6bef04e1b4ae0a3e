//! `diskmeter k8s manifest`: the manifests it writes validate against Kubernetes' own schemas
//! (PyPI's kubernetes-validate, offline, strict), a bad job is refused as `diskmeter run`
//! refuses it, and the job file in the ConfigMap plans what the job given plans.

use crate::common;

use common::{diskmeter, diskmeter_with_env, skip, TestDir};
use std::path::{Path, PathBuf};

/// The Kubernetes versions the manifests are checked against: the oldest and the newest
/// whose schemas kubernetes-validate 1.37 ships with support still in view.
const KUBERNETES_VERSIONS: [&str; 2] = ["1.30.0", "1.37.0"];

/// The flags every manifest here needs.
const CLUSTER: [&str; 6] = [
    "--storage-class",
    "fast-ssd",
    "--volume-size",
    "20g",
    "--image",
    "registry.example/diskmeter:0.1",
];

fn jobs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jobs")
}

/// The environment the test job files read their sizes and folder from.
const JOB_ENV: [(&str, &str); 3] = [("DM_SIZE", "64m"), ("DM_RUNTIME", "1"), ("DM_DIR", ".")];

/// `diskmeter k8s manifest ARGS CLUSTER` in `dir`; the YAML, or the failed command's output.
fn manifest(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["k8s", "manifest"];
    all.extend_from_slice(args);
    all.extend_from_slice(&CLUSTER);
    diskmeter_with_env(dir, &JOB_ENV, &all)
}

fn yaml_of(output: std::process::Output) -> String {
    common::ok(output)
}

/// The documents of a manifest.
fn documents(yaml: &str) -> Vec<serde_yaml_ng::Value> {
    serde_yaml_ng::Deserializer::from_str(yaml)
        .map(|d| serde::Deserialize::deserialize(d).expect("a YAML document"))
        .collect()
}

/// The job file the ConfigMap holds.
fn config_map_job_file(yaml: &str) -> String {
    let docs = documents(yaml);
    assert_eq!(docs[0]["kind"], "ConfigMap");
    let data = docs[0]["data"].as_mapping().expect("data");
    assert_eq!(data.len(), 1, "one job file");
    data.values().next().unwrap().as_str().unwrap().to_string()
}

/// Whether python3 has PyPI's kubernetes-validate (run as `python3 -m kubernetes_validate`,
/// so where pip put its script does not matter).
fn has_kubernetes_validate() -> bool {
    std::process::Command::new("python3")
        .args(["-c", "import kubernetes_validate"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn manifests_validate_against_the_kubernetes_schemas() {
    let test = "manifests_validate_against_the_kubernetes_schemas";
    if !has_kubernetes_validate() {
        skip(
            test,
            "PyPI's kubernetes-validate is not installed for python3 (scripts/test installs it as root)",
        );
        return;
    }
    let dir = TestDir::new();
    let mixed = jobs_dir().join("azure-d8ds-v4-max-mixed-iops.fio");
    let mixed = mixed.to_str().unwrap();
    let variants: Vec<(&str, Vec<&str>)> = vec![
        (
            "options-1-pod",
            vec![
                "--pods",
                "1",
                "--name=randread",
                "--rw=randread",
                "--size=1g",
            ],
        ),
        (
            "options-4-pods-claim-namespace",
            vec![
                "--pods",
                "4",
                "--results-claim",
                "bench-results",
                "--namespace",
                "storage",
                "--name=w",
                "--rw=randwrite",
                "--bs=64k",
                "--size=4g",
                "--numjobs=2",
                "--name=r",
                "--rw=randread",
                "--size=4g",
            ],
        ),
        (
            "jobfile-64-pods",
            vec![
                "--pods",
                "64",
                "--k8s-name",
                "mixed",
                "--keep-results",
                "30m",
                "--cpu",
                "500m",
                "--memory",
                "2Gi",
                mixed,
            ],
        ),
        (
            "jobfile-64-pods-claim",
            vec![
                "--pods",
                "64",
                "--results-claim",
                "shared.results",
                "--namespace",
                "on",
                mixed,
            ],
        ),
        ("newcomer-default", vec!["--pods", "4", "--k8s-name", "yes"]),
    ];
    let mut files = Vec::new();
    for (name, args) in &variants {
        let file = dir.path().join(format!("{name}.yaml"));
        let mut with_output = args.clone();
        let path = file.to_str().unwrap().to_string();
        with_output.extend(["--output", &path]);
        let output = manifest(dir.path(), &with_output);
        yaml_of(output);
        let yaml = std::fs::read_to_string(&file).unwrap();
        assert_eq!(documents(&yaml).len(), 2, "{name}: a ConfigMap and a Job");
        files.push(path);
    }
    for version in KUBERNETES_VERSIONS {
        let output = std::process::Command::new("python3")
            .args([
                "-m",
                "kubernetes_validate",
                "--strict",
                "--kubernetes-version",
                version,
            ])
            .args(&files)
            .output()
            .expect("run kubernetes-validate");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "Kubernetes {version}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        // Two resources per file passed, none only warned about.
        assert_eq!(
            stdout.matches("passed for resource").count(),
            2 * files.len(),
            "{stdout}"
        );
    }
}

#[test]
fn the_index_reaches_every_pod_as_its_rank() {
    let dir = TestDir::new();
    let yaml = yaml_of(manifest(
        dir.path(),
        &[
            "--pods",
            "64",
            "--k8s-name",
            "bench",
            "--name=r",
            "--size=1g",
        ],
    ));
    let docs = documents(&yaml);
    let job = &docs[1]["spec"];
    assert_eq!(job["completionMode"], "Indexed");
    assert_eq!(job["completions"], 64);
    assert_eq!(job["parallelism"], 64);
    assert_eq!(job["backoffLimit"], 0);
    let container = &job["template"]["spec"]["containers"][0];
    let args: Vec<&str> = container["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let after = |flag: &str| args[args.iter().position(|a| *a == flag).unwrap() + 1];
    assert_eq!(after("--rank"), "$(JOB_COMPLETION_INDEX)");
    assert_eq!(after("--ranks"), "64");
    assert_eq!(after("--output"), "$(DISKMETER_RESULT)");
    assert_eq!(after("--output-format"), "json");
    assert_eq!(*args.last().unwrap(), "/job/bench.fio");
    let start = after("--start-at");
    assert!(
        start.len() == 20 && start.ends_with('Z') && start.as_bytes()[10] == b'T',
        "{start}"
    );
    assert_eq!(
        container["env"][1]["value"],
        "/results/bench-rank-$(JOB_COMPLETION_INDEX).json"
    );
}

#[test]
fn a_bad_job_is_refused_as_run_refuses_it_and_nothing_is_written() {
    let dir = TestDir::new();
    let job = dir.path().join("bad.fio");
    std::fs::write(&job, "[a]\nsize=1g\nrw=randred\n").unwrap();
    let out = dir.path().join("out.yaml");
    let args = [
        "--pods",
        "2",
        "--output",
        out.to_str().unwrap(),
        job.to_str().unwrap(),
    ];
    let refused = manifest(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("bad.fio:3: rw:"), "{stderr}");
    assert!(!out.exists(), "no manifest for a bad job");
    // The same words as `diskmeter run`.
    let run = diskmeter(dir.path(), &["run", "--dry-run", job.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&run.stderr), stderr);

    for (args, needle) in [
        (
            vec![
                "--pods",
                "2",
                "--name=a",
                "--filename=/dev/sdb",
                "--size=1g",
            ],
            "job a: filename: /dev/sdb is outside the pod's volume",
        ),
        (vec!["--pods", "2", "--name=a"], "job a: size: none given"),
        (vec!["--pods", "0", "--name=a", "--size=1g"], "--pods"),
        (
            vec!["--pods", "2", "--k8s-name", "Bench", "--size=1g"],
            "--k8s-name \"Bench\"",
        ),
        (
            vec![
                "--pods",
                "2",
                "--start-at",
                "2020-01-01T00:00:00Z",
                "--size=1g",
            ],
            "already passed",
        ),
        (
            vec!["--pods", "2", "--start-at", "tomorrow", "--size=1g"],
            "RFC 3339",
        ),
    ] {
        let output = manifest(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{needle:?} missing from: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A dry run's plan with the test folder out of it: the `directory` lines go, the pod's
/// `/data/` reads as the original's `./`, and the notes on fio's other engine names (which
/// the pod's file writes as the engine that runs) go.
fn plan_without_folder(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("directory="))
        .filter(|l| !(l.starts_with("# note: job ") && l.contains(" runs as ")))
        .map(|l| l.replace("/data/", "./"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_config_map_plans_what_the_job_given_plans_for_every_test_job_file() {
    let dir = TestDir::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(jobs_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.sort();
    assert!(files.len() > 50, "the test job files");
    let pod_file = dir.path().join("pod.fio");
    let pod_file = pod_file.to_str().unwrap();
    let mut compared = 0;
    for file in &files {
        let file = file.to_str().unwrap();
        let yaml = yaml_of(manifest(dir.path(), &["--pods", "2", file]));
        std::fs::write(pod_file, config_map_job_file(&yaml)).unwrap();
        let given = diskmeter_with_env(dir.path(), &JOB_ENV, &["run", "--dry-run", file]);
        // The pod reads its file with nothing from this environment.
        let in_pod = diskmeter(dir.path(), &["run", "--dry-run", pod_file]);
        assert_eq!(given.status.code(), in_pod.status.code(), "{file}");
        assert_eq!(
            plan_without_folder(&String::from_utf8_lossy(&given.stdout)),
            plan_without_folder(&String::from_utf8_lossy(&in_pod.stdout)),
            "{file}: the pod's job file plans differently"
        );
        compared += 1;
    }
    assert_eq!(compared, files.len());
}

#[test]
fn options_and_job_files_give_the_same_config_map() {
    let dir = TestDir::new();
    let job = dir.path().join("job.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=io_uring\nunlink=1\n[mixed]\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=32\nsize=2g\nruntime=30\ntime_based\n",
    )
    .unwrap();
    let from_file = config_map_job_file(&yaml_of(manifest(
        dir.path(),
        &["--pods", "2", job.to_str().unwrap()],
    )));
    let from_options = config_map_job_file(&yaml_of(manifest(
        dir.path(),
        &[
            "--pods",
            "2",
            "--name=mixed",
            "--rw=randrw",
            "--rwmixread=70",
            "--bs=4k",
            "--iodepth=32",
            "--size=2g",
            "--runtime=30",
            "--time_based",
        ],
    )));
    assert_eq!(from_file, from_options);
    assert!(from_file.contains("directory=/data\n"), "{from_file}");
}
