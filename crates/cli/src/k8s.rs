//! `diskmeter k8s manifest`: the jobs as `diskmeter run` takes them (options or job files)
//! and the cluster's parameters -> diskmeter-k8s -> multi-document YAML for `kubectl apply`.

use crate::{options, run, write_output, Status, UsageError};
use clap::{Arg, ArgMatches, Command};
use diskmeter_k8s::{ManifestError, Params, ResultsPlace};
use diskmeter_units::{parse_size, parse_time_ns, KbBase, TimeUnit};
use std::time::{Duration, SystemTime};

/// The `k8s` subcommand and its `manifest` subcommand.
pub fn command() -> Command {
    Command::new("k8s")
        .about("Run across Kubernetes pods: write the manifest of an Indexed Job")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(manifest_command())
}

fn manifest_command() -> Command {
    let command = Command::new("manifest")
        .about("Write an Indexed Job whose pods run the jobs together, one rank each, on volumes of their own")
        .long_about(
            "Write the Kubernetes manifest of one run across pods: a ConfigMap holding the \
             job file and an Indexed Job (completions = parallelism = --pods, no retries: a \
             pod run again would measure a different run). The jobs are given as to \
             `diskmeter run` (fio options or job files) and checked here; the ConfigMap holds \
             them as diskmeter resolved them, their test files in each pod's own volume (a \
             generic ephemeral volume of --storage-class and --volume-size, mounted at /data), \
             so every pod runs the same workload.\n\n\
             Pod INDEX runs `diskmeter run --rank INDEX --ranks N --start-at TIME`: it lays out \
             its files, waits until TIME (from --start-in or --start-at, the same for every \
             pod), runs, and writes /results/NAME-rank-INDEX.json. With --results-claim the \
             results land on that ReadWriteMany claim; otherwise each pod keeps its result \
             for --keep-results (it is Ready once the result is written) to be read with \
             `kubectl exec` or `kubectl cp`. Then `diskmeter merge results/*.json` gives the \
             aggregate. The manifest opens with these steps, with its names filled in.\n\n\
             The image must have `diskmeter` on its PATH, and `sh` unless --results-claim. \
             The pods run as user 1000 with no privileges (the restricted Pod Security \
             Standard): O_DIRECT on a file system needs nothing more.\n\n\
             Exit codes: 0 written; 2 usage error (a bad job, a name Kubernetes refuses, a \
             start that has passed).",
        )
        .arg(
            Arg::new("pods")
                .long("pods")
                .value_name("N")
                .required(true)
                .value_parser(clap::value_parser!(u32).range(1..))
                .help("Pods (ranks) that run at once: the Job's completions and parallelism"),
        )
        .arg(
            Arg::new("image")
                .long("image")
                .value_name("IMAGE")
                .required(true)
                .help("Container image with diskmeter on its PATH (and sh unless --results-claim)"),
        )
        .arg(
            Arg::new("storage-class")
                .long("storage-class")
                .value_name("NAME")
                .required(true)
                .help("Storage class of each pod's volume (the storage under test)"),
        )
        .arg(
            Arg::new("volume-size")
                .long("volume-size")
                .value_name("SIZE")
                .required(true)
                .help("Size of each pod's volume (4k, 100g: k = 1024; written as 100Gi); the jobs' files must fit (--size is the jobs' own)"),
        )
        .arg(
            Arg::new("k8s-name")
                .long("k8s-name")
                .value_name("NAME")
                .help("Name of the Job and the ConfigMap (default: diskmeter- and the job names); --name names a job, as in fio"),
        )
        .arg(
            Arg::new("namespace")
                .long("namespace")
                .value_name("NS")
                .help("Namespace of the Job and the ConfigMap (default: kubectl's current one)"),
        )
        .arg(
            Arg::new("start-in")
                .long("start-in")
                .value_name("DURATION")
                .default_value("5m")
                .conflicts_with("start-at")
                .help("The pods start their IO this long after the manifest is written (30s, 10m: m = minutes); leave time to pull the image and make the volumes"),
        )
        .arg(
            Arg::new("start-at")
                .long("start-at")
                .value_name("TIME")
                .help("The pods start their IO at this time, RFC 3339 UTC (2026-11-27T15:00:00Z)"),
        )
        .arg(
            Arg::new("results-claim")
                .long("results-claim")
                .value_name("PVC")
                .help("A ReadWriteMany claim every pod writes its result to (default: each pod keeps its result until collected)"),
        )
        .arg(
            Arg::new("keep-results")
                .long("keep-results")
                .value_name("DURATION")
                .default_value("1h")
                .conflicts_with("results-claim")
                .help("How long a pod keeps its result after the run for kubectl exec/cp (without --results-claim)"),
        )
        .arg(
            Arg::new("cpu")
                .long("cpu")
                .value_name("QUANTITY")
                .default_value("1")
                .help("CPU each pod requests (no limit is set: CPU throttling would show as disk latency)"),
        )
        .arg(
            Arg::new("memory")
                .long("memory")
                .value_name("QUANTITY")
                .default_value("1Gi")
                .help("Memory each pod requests and is limited to"),
        )
        .arg(
            Arg::new("output")
                .long("output")
                .value_name("FILE")
                .help("Write the manifest to FILE instead of stdout"),
        );
    options::add_job_options(crate::run::job_inputs(command))
}

/// Runs `diskmeter k8s ...`.
pub fn main(matches: &ArgMatches) -> anyhow::Result<Status> {
    match matches.subcommand() {
        Some(("manifest", sub)) => manifest(sub),
        _ => Err(UsageError("give a subcommand: diskmeter k8s manifest".into()).into()),
    }
}

fn usage(error: ManifestError) -> UsageError {
    UsageError(error.to_string())
}

/// A time flag (fio's rules: seconds by default, `m` = minutes), as a duration.
fn duration_flag(matches: &ArgMatches, flag: &str) -> Result<Duration, UsageError> {
    let text = matches.get_one::<String>(flag).map_or("0", String::as_str);
    parse_time_ns(text, TimeUnit::Seconds)
        .map(Duration::from_nanos)
        .map_err(|e| UsageError(format!("--{flag}: {e}")))
}

fn manifest(matches: &ArgMatches) -> anyhow::Result<Status> {
    // The jobs first, as `diskmeter run` reads them: a bad job is refused before anything.
    let jobs = run::jobs(matches, false)?;
    let job_file = diskmeter_k8s::pod_job_file(&jobs).map_err(usage)?;
    let text = |flag: &str| matches.get_one::<String>(flag).cloned();
    let now = SystemTime::now();
    let start_at = match text("start-at") {
        Some(time) => diskmeter_k8s::parse_rfc3339(&time).map_err(usage)?,
        None => now + duration_flag(matches, "start-in")?,
    };
    let volume = text("volume-size").unwrap_or_default();
    let volume_size_bytes = parse_size(&volume, KbBase::Binary)
        .map_err(|e| UsageError(format!("--volume-size: {e}")))?;
    let results = match text("results-claim") {
        Some(claim) => ResultsPlace::Claim(claim),
        None => ResultsPlace::InPod {
            keep_seconds: duration_flag(matches, "keep-results")?.as_secs(),
        },
    };
    let name = text("k8s-name").unwrap_or_else(|| {
        let mut names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
        names.dedup();
        diskmeter_k8s::default_name(&names)
    });
    let params = Params {
        name,
        namespace: text("namespace"),
        pods: matches.get_one::<u32>("pods").copied().unwrap_or(1),
        image: text("image").unwrap_or_default(),
        storage_class: text("storage-class").unwrap_or_default(),
        volume_size_bytes,
        cpu: text("cpu").unwrap_or_default(),
        memory: text("memory").unwrap_or_default(),
        start_at,
        results,
    };
    let manifest = diskmeter_k8s::build(&job_file, &params, now).map_err(usage)?;
    let yaml = diskmeter_k8s::to_yaml(&manifest);
    let output = matches.get_one::<String>("output");
    write_output(output, &yaml)?;
    if let Some(path) = output {
        eprintln!(
            "diskmeter: wrote {path}: {} pods of job/{} start their IO at {}; apply it before then",
            params.pods, params.name, manifest.start_at_rfc3339
        );
    }
    Ok(Status::Success)
}
