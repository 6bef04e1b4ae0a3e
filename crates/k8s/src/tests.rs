//! The structure of the manifests: what a benchmark depends on in each document.

use super::*;
use diskmeter_workload::{apply_option, JobSpec};
use std::time::{Duration, SystemTime};

const NOW_UNIX_S: u64 = 1_795_000_000;

fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(NOW_UNIX_S)
}

fn job(options: &[(&str, &str)]) -> JobSpec {
    let mut spec = JobSpec::default();
    for (name, value) in options {
        apply_option(&mut spec, name, Some(value)).unwrap();
    }
    spec
}

fn params(results: ResultsPlace) -> Params {
    Params {
        name: "bench".into(),
        namespace: Some("storage".into()),
        pods: 4,
        image: "registry.example/diskmeter:0.1".into(),
        storage_class: "fast-ssd".into(),
        volume_size_bytes: 20 << 30,
        cpu: "2".into(),
        memory: "1Gi".into(),
        start_at: now() + Duration::from_secs(300),
        results,
    }
}

fn in_pod() -> ResultsPlace {
    ResultsPlace::InPod { keep_seconds: 3600 }
}

fn randread() -> String {
    pod_job_file(&[job(&[
        ("name", "randread"),
        ("rw", "randread"),
        ("size", "1g"),
        ("direct", "1"),
    ])])
    .unwrap()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_job_file_moves_the_files_onto_the_volume_and_keeps_diskmeters_defaults() {
    let text = randread();
    assert!(text.starts_with("[randread]\nname=randread\n"), "{text}");
    assert!(text.contains("directory=/data\n"), "{text}");
    // Written for a job file, which starts from fio's defaults (psync, unlink=0): the
    // engine and unlink diskmeter's own commands default to are said.
    assert!(text.contains("ioengine=io_uring\n"), "{text}");
    assert!(text.contains("unlink=1\n"), "{text}");
}

#[test]
fn jobs_that_cannot_run_in_a_pod_are_refused_naming_job_and_option() {
    for (options, option) in [
        (
            vec![("name", "dev"), ("filename", "/dev/sdb"), ("size", "1g")],
            "filename",
        ),
        (vec![("name", "nosize")], "size"),
        (
            vec![("name", "dir"), ("opendir", "/srv"), ("size", "1g")],
            "opendir",
        ),
        (
            vec![("name", "pre"), ("exec_prerun", "true"), ("size", "1g")],
            "exec_prerun",
        ),
    ] {
        let error = pod_job_file(&[job(&options)]).unwrap_err().to_string();
        let name = options[0].1;
        assert!(
            error.starts_with(&format!("job {name}: {option}: ")),
            "{error}"
        );
    }
    assert!(pod_job_file(&[]).is_err());
}

#[test]
fn relative_filenames_stay_and_land_on_the_volume() {
    let text = pod_job_file(&[job(&[
        ("name", "shared"),
        ("filename", "shared.dat"),
        ("size", "64m"),
    ])])
    .unwrap();
    assert!(text.contains("filename=shared.dat\n"), "{text}");
    assert!(text.contains("directory=/data\n"), "{text}");
}

#[test]
fn the_config_map_holds_the_job_file() {
    let text = randread();
    let manifest = build(&text, &params(in_pod()), now()).unwrap();
    let config_map = &manifest.documents[0];
    assert_eq!(config_map["kind"], "ConfigMap");
    assert_eq!(config_map["metadata"]["name"], "bench");
    assert_eq!(config_map["metadata"]["namespace"], "storage");
    assert_eq!(
        config_map["data"]["bench.fio"].as_str(),
        Some(text.as_str())
    );
}

#[test]
fn the_job_is_indexed_with_every_pod_at_once_and_no_retry() {
    let manifest = build(&randread(), &params(in_pod()), now()).unwrap();
    let job = &manifest.documents[1];
    assert_eq!(job["apiVersion"], "batch/v1");
    assert_eq!(job["kind"], "Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert_eq!(spec["completions"], 4);
    assert_eq!(spec["parallelism"], 4);
    assert_eq!(spec["backoffLimit"], 0);
    assert_eq!(spec["template"]["spec"]["restartPolicy"], "Never");
}

#[test]
fn every_pod_runs_its_rank_from_the_completion_index_and_starts_at_the_same_time() {
    let manifest = build(
        &randread(),
        &params(ResultsPlace::Claim("results".into())),
        now(),
    )
    .unwrap();
    assert_eq!(manifest.start_at_rfc3339, "2026-11-18T11:11:40Z");
    let container = &manifest.documents[1]["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(strings(&container["command"]), ["diskmeter"]);
    assert_eq!(
        strings(&container["args"]),
        [
            "run",
            "--quiet",
            "--no-save",
            "--rank",
            "$(JOB_COMPLETION_INDEX)",
            "--ranks",
            "4",
            "--start-at",
            "2026-11-18T11:11:40Z",
            "--output",
            "$(DISKMETER_RESULT)",
            "--output-format",
            "json",
            "/job/bench.fio",
        ]
    );
    // The index variable is declared before the one that uses it: the kubelet expands
    // $(VAR) in a value only from variables above it.
    let env = container["env"].as_sequence().unwrap();
    assert_eq!(env[0]["name"], "JOB_COMPLETION_INDEX");
    assert_eq!(
        env[0]["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    );
    assert_eq!(env[1]["name"], "DISKMETER_RESULT");
    assert_eq!(
        env[1]["value"],
        "/results/bench-rank-$(JOB_COMPLETION_INDEX).json"
    );
}

#[test]
fn each_pod_has_its_own_volume_of_the_storage_class() {
    let manifest = build(&randread(), &params(in_pod()), now()).unwrap();
    let pod = &manifest.documents[1]["spec"]["template"]["spec"];
    let data = &pod["volumes"][0];
    assert_eq!(data["name"], "data");
    let claim = &data["ephemeral"]["volumeClaimTemplate"]["spec"];
    assert_eq!(strings(&claim["accessModes"]), ["ReadWriteOnce"]);
    assert_eq!(claim["storageClassName"], "fast-ssd");
    assert_eq!(claim["resources"]["requests"]["storage"], "20Gi");
    assert_eq!(pod["volumes"][1]["configMap"]["name"], "bench");
    let mounts = &pod["containers"][0]["volumeMounts"];
    assert_eq!(mounts[0]["mountPath"], DATA_MOUNT);
    assert_eq!(mounts[1]["mountPath"], JOB_MOUNT);
    assert_eq!(mounts[2]["mountPath"], RESULTS_MOUNT);
}

#[test]
fn results_go_to_the_claim_or_stay_in_the_pod_until_collected() {
    let claim = build(
        &randread(),
        &params(ResultsPlace::Claim("shared".into())),
        now(),
    )
    .unwrap();
    let pod = &claim.documents[1]["spec"]["template"]["spec"];
    assert_eq!(
        pod["volumes"][2]["persistentVolumeClaim"]["claimName"],
        "shared"
    );
    assert!(pod["containers"][0].get("readinessProbe").is_none());

    let kept = build(&randread(), &params(in_pod()), now()).unwrap();
    let pod = &kept.documents[1]["spec"]["template"]["spec"];
    assert!(pod["volumes"][2]["emptyDir"].is_mapping());
    let container = &pod["containers"][0];
    let command = strings(&container["command"]);
    assert_eq!(command[..2], ["sh", "-c"]);
    assert!(command[2].contains("sleep \"$DISKMETER_KEEP_SECONDS\""));
    assert_eq!(strings(&container["args"])[..2], ["diskmeter", "run"]);
    assert!(container["readinessProbe"]["exec"].is_mapping());
    let env = container["env"].as_sequence().unwrap();
    assert!(env
        .iter()
        .any(|v| v["name"] == "DISKMETER_KEEP_SECONDS" && v["value"] == "3600"));
}

#[test]
fn pods_run_restricted_with_a_memory_limit_and_no_cpu_limit() {
    let manifest = build(&randread(), &params(in_pod()), now()).unwrap();
    let pod = &manifest.documents[1]["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_eq!(pod["securityContext"]["fsGroup"], 1000);
    let container = &pod["containers"][0];
    assert_eq!(
        container["securityContext"]["allowPrivilegeEscalation"],
        false
    );
    assert_eq!(container["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(container["resources"]["requests"]["cpu"], "2");
    assert_eq!(container["resources"]["limits"]["memory"], "1Gi");
    assert!(container["resources"]["limits"].get("cpu").is_none());
}

#[test]
fn bad_parameters_are_refused() {
    let text = randread();
    type Change = Box<dyn Fn(&mut Params)>;
    let cases: Vec<(Change, &str)> = vec![
        (Box::new(|p| p.name = "Bench".into()), "--k8s-name"),
        (
            Box::new(|p| p.namespace = Some("a_b".into())),
            "--namespace",
        ),
        (Box::new(|p| p.storage_class = "".into()), "--storage-class"),
        (Box::new(|p| p.pods = 0), "--pods"),
        (Box::new(|p| p.cpu = "lots".into()), "--cpu"),
        (Box::new(|p| p.image = "a b".into()), "--image"),
        (Box::new(|p| p.volume_size_bytes = 0), "--volume-size"),
        (Box::new(|p| p.start_at = now()), "--start-at"),
        (
            Box::new(|p| p.results = ResultsPlace::Claim("Results".into())),
            "--results-claim",
        ),
    ];
    for (change, flag) in cases {
        let mut p = params(in_pod());
        change(&mut p);
        let error = build(&text, &p, now()).unwrap_err().to_string();
        assert!(error.starts_with(flag), "{flag}: {error}");
    }
}

#[test]
fn the_yaml_is_two_documents_after_the_recipe() {
    let manifest = build(&randread(), &params(in_pod()), now()).unwrap();
    let yaml = to_yaml(&manifest);
    assert!(yaml.starts_with("# diskmeter "), "{yaml}");
    assert!(yaml.contains("kubectl wait -n storage --for=condition=Ready pod -l job-name=bench"));
    assert!(yaml.contains("diskmeter merge results/*.json"));
    assert_eq!(yaml.matches("\n---\n").count(), 2, "{yaml}");
    // Numbers meant as strings stay strings when read back.
    let docs: Vec<Value> = serde_yaml_ng::Deserializer::from_str(&yaml)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect();
    assert_eq!(docs, manifest.documents);
    assert_eq!(
        docs[1]["spec"]["template"]["spec"]["containers"][0]["args"][7],
        "4"
    );
}

/// `--start-at`'s one parser (also the rank flags' of every command that runs steps).
#[test]
fn start_times_are_read_as_utc() {
    let at = |t| parse_rfc3339(t).map(|t| t.duration_since(SystemTime::UNIX_EPOCH).unwrap());
    assert_eq!(at("1970-01-01T00:00:00Z").unwrap(), Duration::ZERO);
    assert_eq!(
        at("2026-11-27T15:00:00Z").unwrap(),
        Duration::from_secs(1_795_791_600)
    );
    assert_eq!(
        at("2024-02-29T00:00:01.5+00:00").unwrap(),
        Duration::from_millis(1_709_164_801_500)
    );
    for bad in [
        "2026-11-27T15:00:00",
        "2026-02-30T00:00:00Z",
        "tomorrow",
        "2026-11-27T15:00:00+01:00",
    ] {
        assert!(at(bad).is_err(), "{bad}");
    }
}

/// The flags as typed: `--start-in` from now, sizes with k = 1024, the name from the jobs'
/// names, and a flag that does not read named in the error.
#[test]
fn flags_read_into_params_and_name_the_flag_that_does_not_read() {
    let flags = || ManifestFlags {
        pods: 4,
        volume_size: "20g".into(),
        start_in: "5m".into(),
        keep_results: "1h".into(),
        ..ManifestFlags::default()
    };
    let jobs = [job(&[("name", "seq")]), job(&[("name", "seq")])];
    let params = flags().params(&jobs, now()).unwrap();
    assert_eq!(params.volume_size_bytes, 20 << 30);
    assert_eq!(params.start_at, now() + Duration::from_secs(300));
    assert_eq!(params.results, in_pod());
    assert_eq!(params.name, default_name(&["seq"]));
    let bad = ManifestFlags {
        keep_results: "soon".into(),
        ..flags()
    };
    let error = bad.params(&jobs, now()).unwrap_err().to_string();
    assert!(error.starts_with("--keep-results: "), "{error}");
}
