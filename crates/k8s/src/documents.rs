//! The two Kubernetes objects of a run across pods, as YAML values in the order `kubectl`
//! users expect their keys: the ConfigMap holding the job file and the Indexed Job.
//!
//! Every choice a benchmark depends on is here, each with its reason:
//! - `completionMode: Indexed`, `completions = parallelism = pods`: every rank at once, each
//!   with its index (the rank).
//! - `backoffLimit: 0` and `restartPolicy: Never`: a pod run again would start after the
//!   others finished and measure a different, smaller run; a failed rank fails the Job.
//! - The rank comes from `JOB_COMPLETION_INDEX`, declared here from the pod's
//!   `batch.kubernetes.io/job-completion-index` annotation (the Job controller adds the same
//!   variable only when a container lacks it), so `$(JOB_COMPLETION_INDEX)` in `args` and in
//!   later variables is expanded by the kubelet on every Kubernetes version with Indexed
//!   Jobs.
//! - No CPU limit: CFS quota throttling stalls the submitting thread and would show as disk
//!   latency; a memory limit equal to the request keeps the pod's memory its own.
//! - The restricted Pod Security Standard: not root, no privilege escalation, no
//!   capabilities, a read-only root file system; O_DIRECT on a file system needs none of
//!   them (a raw block device would).

use crate::{Params, ResultsPlace, DATA_MOUNT, JOB_MOUNT, RESULTS_MOUNT};
use serde_yaml_ng::{Mapping, Value};

/// The user and group the pods run as; `fsGroup` makes the volumes writable for it.
const POD_USER_ID: u64 = 1000;

/// The environment variable holding the pod's result file (the readiness probe reads it).
pub const RESULT_VAR: &str = "DISKMETER_RESULT";

/// The container's shell script when the results stay in the pod: run diskmeter, then keep
/// the pod (and its result) alive for `kubectl exec`/`kubectl cp` if a result was written;
/// leave at once on SIGTERM (`kubectl delete`); exit with diskmeter's status.
const KEEP_SCRIPT: &str = "\"$@\"; status=$?\n\
    if [ -s \"$DISKMETER_RESULT\" ]; then\n  \
    trap 'exit $status' TERM\n  \
    sleep \"$DISKMETER_KEEP_SECONDS\" & wait $!\n\
    fi\n\
    exit $status\n";

fn text(value: impl Into<String>) -> Value {
    Value::String(value.into())
}

fn number(value: u64) -> Value {
    Value::Number(value.into())
}

fn map<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    let mut mapping = Mapping::new();
    for (key, value) in pairs {
        mapping.insert(text(key), value);
    }
    Value::Mapping(mapping)
}

fn list(items: impl IntoIterator<Item = Value>) -> Value {
    Value::Sequence(items.into_iter().collect())
}

fn texts<'a>(items: impl IntoIterator<Item = &'a str>) -> Value {
    list(items.into_iter().map(text))
}

/// The labels every object carries (Kubernetes' recommended ones).
fn labels(params: &Params) -> Value {
    map([
        ("app.kubernetes.io/name", text("diskmeter")),
        ("app.kubernetes.io/instance", text(&params.name)),
        ("app.kubernetes.io/component", text("benchmark")),
        ("app.kubernetes.io/version", text(env!("CARGO_PKG_VERSION"))),
    ])
}

fn metadata(params: &Params) -> Value {
    let mut meta = Mapping::new();
    meta.insert(text("name"), text(&params.name));
    if let Some(namespace) = &params.namespace {
        meta.insert(text("namespace"), text(namespace));
    }
    meta.insert(text("labels"), labels(params));
    Value::Mapping(meta)
}

/// The ConfigMap: the job file under `job_file_name`.
pub fn config_map(params: &Params, job_file_name: &str, job_file: &str) -> Value {
    let mut data = Mapping::new();
    data.insert(text(job_file_name), text(job_file));
    map([
        ("apiVersion", text("v1")),
        ("kind", text("ConfigMap")),
        ("metadata", metadata(params)),
        ("data", Value::Mapping(data)),
    ])
}

/// The result file of a pod, with the index left for the kubelet to expand.
pub fn result_path(params: &Params) -> String {
    format!(
        "{RESULTS_MOUNT}/{}-rank-$(JOB_COMPLETION_INDEX).json",
        params.name
    )
}

/// `diskmeter run`'s arguments in every pod.
fn run_args(params: &Params, job_file_name: &str, start_at: &str) -> Vec<String> {
    let ranks = params.pods.to_string();
    [
        "run",
        "--quiet",
        "--no-save",
        "--rank",
        "$(JOB_COMPLETION_INDEX)",
        "--ranks",
        &ranks,
        "--start-at",
        start_at,
        "--output",
        &format!("$({RESULT_VAR})"),
        "--output-format",
        "json",
        &format!("{JOB_MOUNT}/{job_file_name}"),
    ]
    .map(String::from)
    .to_vec()
}

fn env(params: &Params) -> Value {
    let mut vars = vec![
        map([
            ("name", text("JOB_COMPLETION_INDEX")),
            (
                "valueFrom",
                map([(
                    "fieldRef",
                    map([(
                        "fieldPath",
                        text("metadata.annotations['batch.kubernetes.io/job-completion-index']"),
                    )]),
                )]),
            ),
        ]),
        map([
            ("name", text(RESULT_VAR)),
            ("value", text(result_path(params))),
        ]),
        // The root file system is read-only: diskmeter's data folder goes on the pod's
        // volume (the history is off, --no-save, but the ledger of its test files is kept).
        map([("name", text("HOME")), ("value", text(DATA_MOUNT))]),
        map([
            ("name", text("XDG_DATA_HOME")),
            ("value", text(format!("{DATA_MOUNT}/.diskmeter"))),
        ]),
    ];
    if let ResultsPlace::InPod { keep_seconds } = params.results {
        vars.push(map([
            ("name", text("DISKMETER_KEEP_SECONDS")),
            ("value", text(keep_seconds.to_string())),
        ]));
    }
    list(vars)
}

fn container(params: &Params, job_file_name: &str, start_at: &str) -> Value {
    let args = run_args(params, job_file_name, start_at);
    let mut c = Mapping::new();
    c.insert(text("name"), text("diskmeter"));
    c.insert(text("image"), text(&params.image));
    match params.results {
        ResultsPlace::Claim(_) => {
            c.insert(text("command"), texts(["diskmeter"]));
            c.insert(text("args"), texts(args.iter().map(String::as_str)));
        }
        ResultsPlace::InPod { .. } => {
            c.insert(text("command"), texts(["sh", "-c", KEEP_SCRIPT, "sh"]));
            let with_program = std::iter::once("diskmeter").chain(args.iter().map(String::as_str));
            c.insert(text("args"), texts(with_program));
            // Ready = the result is there to collect.
            c.insert(
                text("readinessProbe"),
                map([
                    (
                        "exec",
                        map([(
                            "command",
                            texts(["sh", "-c", "test -s \"$DISKMETER_RESULT\""]),
                        )]),
                    ),
                    ("periodSeconds", number(5)),
                ]),
            );
        }
    }
    c.insert(text("workingDir"), text(DATA_MOUNT));
    c.insert(text("env"), env(params));
    c.insert(
        text("resources"),
        map([
            (
                "requests",
                map([("cpu", text(&params.cpu)), ("memory", text(&params.memory))]),
            ),
            ("limits", map([("memory", text(&params.memory))])),
        ]),
    );
    c.insert(
        text("securityContext"),
        map([
            ("allowPrivilegeEscalation", Value::Bool(false)),
            ("readOnlyRootFilesystem", Value::Bool(true)),
            ("capabilities", map([("drop", texts(["ALL"]))])),
        ]),
    );
    c.insert(
        text("volumeMounts"),
        list([
            map([("name", text("data")), ("mountPath", text(DATA_MOUNT))]),
            map([
                ("name", text("job")),
                ("mountPath", text(JOB_MOUNT)),
                ("readOnly", Value::Bool(true)),
            ]),
            map([
                ("name", text("results")),
                ("mountPath", text(RESULTS_MOUNT)),
            ]),
        ]),
    );
    Value::Mapping(c)
}

fn volumes(params: &Params) -> Value {
    let data = map([
        ("name", text("data")),
        (
            "ephemeral",
            map([(
                "volumeClaimTemplate",
                map([
                    ("metadata", map([("labels", labels(params))])),
                    (
                        "spec",
                        map([
                            ("accessModes", texts(["ReadWriteOnce"])),
                            ("storageClassName", text(&params.storage_class)),
                            (
                                "resources",
                                map([(
                                    "requests",
                                    map([(
                                        "storage",
                                        text(crate::names::quantity_of_bytes(
                                            params.volume_size_bytes,
                                        )),
                                    )]),
                                )]),
                            ),
                        ]),
                    ),
                ]),
            )]),
        ),
    ]);
    let job = map([
        ("name", text("job")),
        ("configMap", map([("name", text(&params.name))])),
    ]);
    let results = match &params.results {
        ResultsPlace::Claim(claim) => map([
            ("name", text("results")),
            ("persistentVolumeClaim", map([("claimName", text(claim))])),
        ]),
        ResultsPlace::InPod { .. } => map([("name", text("results")), ("emptyDir", map([]))]),
    };
    list([data, job, results])
}

/// The Indexed Job running `diskmeter run` in every pod.
pub fn indexed_job(params: &Params, job_file_name: &str, start_at: &str) -> Value {
    let pod_spec = map([
        ("restartPolicy", text("Never")),
        (
            "securityContext",
            map([
                ("runAsNonRoot", Value::Bool(true)),
                ("runAsUser", number(POD_USER_ID)),
                ("runAsGroup", number(POD_USER_ID)),
                ("fsGroup", number(POD_USER_ID)),
                ("seccompProfile", map([("type", text("RuntimeDefault"))])),
            ]),
        ),
        // One pod per node where the nodes allow: ranks sharing a node share its links.
        (
            "topologySpreadConstraints",
            list([map([
                ("maxSkew", number(1)),
                ("topologyKey", text("kubernetes.io/hostname")),
                ("whenUnsatisfiable", text("ScheduleAnyway")),
                (
                    "labelSelector",
                    map([(
                        "matchLabels",
                        map([("app.kubernetes.io/instance", text(&params.name))]),
                    )]),
                ),
            ])]),
        ),
        (
            "containers",
            list([container(params, job_file_name, start_at)]),
        ),
        ("volumes", volumes(params)),
    ]);
    map([
        ("apiVersion", text("batch/v1")),
        ("kind", text("Job")),
        ("metadata", metadata(params)),
        (
            "spec",
            map([
                ("completionMode", text("Indexed")),
                ("completions", number(u64::from(params.pods))),
                ("parallelism", number(u64::from(params.pods))),
                ("backoffLimit", number(0)),
                (
                    "template",
                    map([
                        ("metadata", map([("labels", labels(params))])),
                        ("spec", pod_spec),
                    ]),
                ),
            ]),
        ),
    ])
}
