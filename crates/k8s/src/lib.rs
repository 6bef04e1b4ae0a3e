//! Kubernetes manifests for one diskmeter run across pods (`diskmeter k8s manifest`): a
//! ConfigMap holding the job file and an Indexed Job whose pods each run one rank of it on a
//! volume of their own, start their IO together and write their result JSON where it can be
//! collected for `diskmeter merge`.
//!
//! Pure: the jobs and the parameters in, YAML text out; nothing here reads a file, the clock
//! or the environment (the caller gives the start time). [`ManifestFlags`] reads the
//! command's flags into [`Params`], [`pod_job_file`] makes the job file the pods run,
//! [`build`] the documents, [`to_yaml`] the text `kubectl apply -f` takes.
//! Why each field of the Job is what it is: see the `documents` module.
#![forbid(unsafe_code)]

mod documents;
mod flags;
mod jobtext;
mod names;
mod yaml;

pub use documents::RESULT_VAR;
pub use flags::ManifestFlags;
pub use jobtext::pod_job_file;
pub use names::{default_name, quantity_of_bytes, MAX_NAME_CHARS};

use serde_yaml_ng::Value;
use std::time::{Duration, SystemTime};
use thiserror::Error;

/// Where each pod's volume (its test files, its working folder) is mounted.
pub const DATA_MOUNT: &str = "/data";
/// Where the ConfigMap's job file is mounted.
pub const JOB_MOUNT: &str = "/job";
/// Where the pods write their result JSON.
pub const RESULTS_MOUNT: &str = "/results";

/// Why no manifest could be made; every variant is the user's input (a usage error).
#[derive(Debug, Error)]
pub enum ManifestError {
    /// The command gave no jobs.
    #[error("no jobs to run")]
    NoJobs,
    /// A job cannot run in a pod as it is.
    #[error("job {job}: {option}: {reason}")]
    Job {
        /// The job's name.
        job: String,
        /// The option at fault.
        option: String,
        /// Why, and what to write instead.
        reason: String,
    },
    /// A job's resolved options do not read back the same from a job file.
    #[error("job {job}: cannot be written as a job file the pods read the same way: {detail}")]
    NotRepresentable {
        /// The job's name.
        job: String,
        /// The first option that differs.
        detail: String,
    },
    /// A name or quantity Kubernetes would refuse.
    #[error("{what} {value:?}: must be {rule}")]
    Name {
        /// The flag that gave it.
        what: &'static str,
        /// The value given.
        value: String,
        /// Kubernetes' rule for it.
        rule: String,
    },
    /// `--pods 0`.
    #[error("--pods: at least 1")]
    NoPods,
    /// `--start-at` is not after the time the manifest is written.
    #[error("--start-at {start_at}: already passed ({now} now); give a time to come")]
    StartPassed {
        /// The start asked for.
        start_at: String,
        /// The time the manifest is written.
        now: String,
    },
    /// `--volume-size 0`.
    #[error("--volume-size: must be more than 0 bytes")]
    EmptyVolume,
    /// A size or time flag that does not read.
    #[error("--{flag}: {reason}")]
    Flag {
        /// The flag, without its dashes.
        flag: &'static str,
        /// The parser's word on it.
        reason: String,
    },
}

/// Where the pods leave their result JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultsPlace {
    /// On this ReadWriteMany claim, which every pod mounts: collect from it once the Job is
    /// complete.
    Claim(String),
    /// In each pod (an `emptyDir`); the pod stays up this long after its run so the result
    /// can be read with `kubectl exec`/`kubectl cp`, and is Ready once the result is there.
    InPod {
        /// How long a pod keeps its result after the run, seconds.
        keep_seconds: u64,
    },
}

/// What the manifest is made of, besides the jobs.
#[derive(Debug, Clone)]
pub struct Params {
    /// The Job's and the ConfigMap's name (a DNS label of up to [`MAX_NAME_CHARS`]).
    pub name: String,
    /// The namespace of both objects; `None` = kubectl's current one.
    pub namespace: Option<String>,
    /// The pods (ranks) that run at once.
    pub pods: u32,
    /// The container image; it runs `diskmeter`, and `sh` where the results stay in the pod.
    pub image: String,
    /// The storage class of each pod's volume.
    pub storage_class: String,
    /// The size each pod's volume asks for, bytes.
    pub volume_size_bytes: u64,
    /// The CPU each pod requests (a Kubernetes quantity; no limit is set).
    pub cpu: String,
    /// The memory each pod requests and is limited to (a Kubernetes quantity).
    pub memory: String,
    /// When every pod starts its IO (after laying out its files).
    pub start_at: SystemTime,
    /// Where the results go.
    pub results: ResultsPlace,
}

/// The documents of a manifest and what a user needs to hear about them.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The ConfigMap, then the Job.
    pub documents: Vec<Value>,
    /// The start time every pod waits for, RFC 3339 UTC.
    pub start_at_rfc3339: String,
    /// The job file's name in the ConfigMap (and under [`JOB_MOUNT`]).
    pub job_file_name: String,
    /// The parameters it was built from.
    pub params: Params,
}

/// `time` as RFC 3339 UTC to the second (`2026-11-27T15:00:00Z`), the form `--start-at`
/// takes.
pub fn rfc3339(time: SystemTime) -> String {
    humantime::format_rfc3339_seconds(time).to_string()
}

/// Reads `--start-at`: RFC 3339 in UTC (`2026-11-27T15:00:00Z`, or `+00:00`). The one parser
/// of `--start-at`: `k8s manifest` and the rank flags of every command that runs steps.
pub fn parse_rfc3339(text: &str) -> Result<SystemTime, ManifestError> {
    humantime::parse_rfc3339(text).map_err(|e| ManifestError::Name {
        what: "--start-at",
        value: text.to_string(),
        rule: format!("an RFC 3339 time in UTC such as 2026-11-27T15:00:00Z ({e})"),
    })
}

/// The documents for `params` running `job_file` (from [`pod_job_file`]); `now` is when the
/// manifest is written, to refuse a start that has passed.
pub fn build(job_file: &str, params: &Params, now: SystemTime) -> Result<Manifest, ManifestError> {
    names::check_name("--k8s-name", &params.name)?;
    if let Some(namespace) = &params.namespace {
        names::check_namespace(namespace)?;
    }
    names::check_object_name("--storage-class", &params.storage_class)?;
    if let ResultsPlace::Claim(claim) = &params.results {
        names::check_object_name("--results-claim", claim)?;
    }
    names::check_quantity("--cpu", &params.cpu)?;
    names::check_quantity("--memory", &params.memory)?;
    if params.image.trim().is_empty() || params.image.chars().any(char::is_whitespace) {
        return Err(ManifestError::Name {
            what: "--image",
            value: params.image.clone(),
            rule: "an image reference such as registry.example/diskmeter:0.1".into(),
        });
    }
    if params.pods == 0 {
        return Err(ManifestError::NoPods);
    }
    if params.volume_size_bytes == 0 {
        return Err(ManifestError::EmptyVolume);
    }
    // Whole seconds: the start is printed to the second, so it is also kept to the second.
    let start_at = truncate_to_second(params.start_at);
    if start_at <= now {
        return Err(ManifestError::StartPassed {
            start_at: rfc3339(start_at),
            now: rfc3339(now),
        });
    }
    let start_at_rfc3339 = rfc3339(start_at);
    let job_file_name = format!("{}.fio", params.name);
    let documents = vec![
        documents::config_map(params, &job_file_name, job_file),
        documents::indexed_job(params, &job_file_name, &start_at_rfc3339),
    ];
    Ok(Manifest {
        documents,
        start_at_rfc3339,
        job_file_name,
        params: params.clone(),
    })
}

fn truncate_to_second(time: SystemTime) -> SystemTime {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(since) => SystemTime::UNIX_EPOCH + Duration::from_secs(since.as_secs()),
        Err(_) => time,
    }
}

/// The manifest as multi-document YAML for `kubectl apply -f`, opening with comments that
/// say when the pods start and how to collect and merge the results.
pub fn to_yaml(manifest: &Manifest) -> String {
    let mut text = header(manifest);
    for document in &manifest.documents {
        text.push_str("---\n");
        text.push_str(&yaml::document(document));
    }
    text
}

/// The comment block: the recipe of docs/guide/7-scale-out.md ("Kubernetes") with this manifest's names.
fn header(manifest: &Manifest) -> String {
    let params = &manifest.params;
    let name = &params.name;
    let ns = params
        .namespace
        .as_ref()
        .map(|n| format!(" -n {n}"))
        .unwrap_or_default();
    let mut lines = vec![
        format!(
            "# diskmeter {}: {} pods run {} as ranks 0..{} of one run.",
            env!("CARGO_PKG_VERSION"),
            params.pods,
            manifest.job_file_name,
            params.pods - 1
        ),
        format!(
            "# Every pod lays out its files, then waits until {} to start its IO: apply before then.",
            manifest.start_at_rfc3339
        ),
        format!("#   kubectl apply{ns} -f THIS-FILE"),
    ];
    match &params.results {
        ResultsPlace::Claim(claim) => lines.extend([
            format!("#   kubectl wait{ns} --for=condition=Complete job/{name} --timeout=24h"),
            format!("# The results are {name}-rank-*.json on the claim {claim}; copy them out, then:"),
        ]),
        ResultsPlace::InPod { keep_seconds } => lines.extend([
            format!(
                "# A pod is Ready once its result is written and keeps it for {keep_seconds} s:"
            ),
            format!("#   kubectl wait{ns} --for=condition=Ready pod -l job-name={name} --timeout=24h"),
            format!("#   mkdir -p results; for pod in $(kubectl get{ns} pods -l job-name={name} -o name); do"),
            format!("#     kubectl exec{ns} \"$pod\" -- sh -c 'cat \"${}\"' > \"results/${{pod#pod/}}.json\"; done", RESULT_VAR),
        ]),
    }
    lines.extend([
        "#   diskmeter merge results/*.json".to_string(),
        format!("#   kubectl delete{ns} job/{name} configmap/{name}"),
    ]);
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests;
