//! `diskmeter k8s manifest`: the jobs as `diskmeter run` takes them (options or job files)
//! and the cluster's parameters -> diskmeter-k8s -> multi-document YAML for `kubectl apply`.

use crate::{options, run, write_output, Status, UsageError};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use diskmeter_k8s::{ManifestError, ManifestFlags};
use std::time::SystemTime;

/// The `k8s` subcommand and its `manifest` subcommand.
pub fn command() -> Command {
    Command::new("k8s")
        .about("Run across Kubernetes pods: write the manifest of an Indexed Job")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(manifest_command())
}

// `manifest`'s own options, before the jobs' (each doc comment is its help, one line when
// clap joins it; a doc comment on the struct would be the command's about).
#[derive(Args, Debug)]
struct ManifestArgs {
    /// Pods (ranks) that run at once: the Job's completions and parallelism
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pods: u32,
    /// Container image with diskmeter on its PATH (and sh unless --results-claim)
    #[arg(long, value_name = "IMAGE")]
    image: String,
    /// Storage class of each pod's volume (the storage under test)
    #[arg(long, value_name = "NAME")]
    storage_class: String,
    /// Size of each pod's volume (4k, 100g: k = 1024; written as 100Gi); the jobs' files must
    /// fit (--size is the jobs' own)
    #[arg(long, value_name = "SIZE")]
    volume_size: String,
    /// Name of the Job and the ConfigMap (default: diskmeter- and the job names); --name names
    /// a job, as in fio
    #[arg(long, value_name = "NAME")]
    k8s_name: Option<String>,
    /// Namespace of the Job and the ConfigMap (default: kubectl's current one)
    #[arg(long, value_name = "NS")]
    namespace: Option<String>,
    /// The pods start their IO this long after the manifest is written (30s, 10m: m =
    /// minutes); leave time to pull the image and make the volumes
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "5m",
        conflicts_with = "start_at"
    )]
    start_in: String,
    /// The pods start their IO at this time, RFC 3339 UTC (2026-11-27T15:00:00Z)
    #[arg(long, value_name = "TIME")]
    start_at: Option<String>,
    /// A ReadWriteMany claim every pod writes its result to (default: each pod keeps its result
    /// until collected)
    #[arg(long, value_name = "PVC")]
    results_claim: Option<String>,
    /// How long a pod keeps its result after the run for kubectl exec/cp (without
    /// --results-claim)
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "1h",
        conflicts_with = "results_claim"
    )]
    keep_results: String,
    /// CPU each pod requests (no limit is set: CPU throttling would show as disk latency)
    #[arg(long, value_name = "QUANTITY", default_value = "1")]
    cpu: String,
    /// Memory each pod requests and is limited to
    #[arg(long, value_name = "QUANTITY", default_value = "1Gi")]
    memory: String,
    /// Write the manifest to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    output: Option<String>,
}

fn manifest_command() -> Command {
    let command = Command::new("manifest")
        .about("Write an Indexed Job whose pods run the jobs together, one rank each, on volumes of their own")
        .long_about(diskmeter_views::help::K8S_MANIFEST_ABOUT);
    run::job_inputs(options::add_job_options(ManifestArgs::augment_args(
        command,
    )))
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

fn manifest(matches: &ArgMatches) -> anyhow::Result<Status> {
    let args = ManifestArgs::from_arg_matches(matches)?;
    // The jobs first, as `diskmeter run` reads them: a bad job is refused before anything.
    let jobs = run::jobs(matches, false)?;
    let job_file = diskmeter_k8s::pod_job_file(&jobs).map_err(usage)?;
    let now = SystemTime::now();
    let flags = ManifestFlags {
        pods: args.pods,
        image: args.image,
        storage_class: args.storage_class,
        volume_size: args.volume_size,
        k8s_name: args.k8s_name,
        namespace: args.namespace,
        start_in: args.start_in,
        start_at: args.start_at,
        results_claim: args.results_claim,
        keep_results: args.keep_results,
        cpu: args.cpu,
        memory: args.memory,
    };
    let params = flags.params(&jobs, now).map_err(usage)?;
    let manifest = diskmeter_k8s::build(&job_file, &params, now).map_err(usage)?;
    write_output(args.output.as_ref(), &diskmeter_k8s::to_yaml(&manifest))?;
    if let Some(path) = &args.output {
        eprintln!(
            "diskmeter: wrote {path}: {} pods of job/{} start their IO at {}; apply it before then",
            params.pods, params.name, manifest.start_at_rfc3339
        );
    }
    Ok(Status::Success)
}
