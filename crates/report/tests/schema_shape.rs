//! The result schema's serialized shape is tied to its version: a field added, renamed,
//! removed or retyped without a `SCHEMA_VERSION` bump fails here.
//!
//! `tests/data/result-schema-vN.shape` lists every key path of a result in which every
//! optional field is present, with the JSON types seen there. A new version gets a new file
//! (`DISKMETER_WRITE_SCHEMA_SHAPE=1 cargo test -p diskmeter-report --test schema_shape`
//! writes the file of the current version when it does not exist yet); a released version's
//! file is never rewritten.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use diskmeter_report::{RunResult, SCHEMA_VERSION};
use serde_json::Value;

/// A result with every optional field filled in somewhere, so each appears in the shape.
fn result_with_every_field() -> RunResult {
    let mut result = RunResult::build(common::steady_input());
    let job = &mut result.jobs[0];
    job.sync = Some(job.read.lat.clone());
    job.trim = Some(job.write.clone());
    job.io_errors = Some(diskmeter_report::IoErrorSummary {
        total: 2,
        first_errno: Some(28),
        first_error: Some("No space left on device".into()),
        continue_on_error: true,
        dump: vec![diskmeter_stats::IoErrorRecord {
            op: "write".into(),
            file: 0,
            offset_bytes: 4096,
            len_bytes: 4096,
            errno: 28,
            continued: true,
        }],
        dump_dropped: 1,
    });
    job.iops_mean_ci.half_width = Some(12.5);
    job.workload.bs_read_spread = Some("4k/50:64k/50".into());
    job.workload.bs_write_spread = Some("1k-8k".into());
    job.latency_target = Some(diskmeter_report::LatencyTargetResult {
        target_ns: 500_000_000,
        window_ns: 5_000_000_000,
        percentile: 99.9,
        depth: 16,
    });
    job.connections = Some(diskmeter_report::ConnectionResult::of(
        8,
        120,
        600_000_000,
        9_000_000,
        4_000_000_000,
    ));
    let ss = job
        .steady_state
        .as_mut()
        .expect("the steady input asks for it");
    ss.precision_limit_percent = Some(3.0);
    ss.precision_percent = Some(1.5);
    result.groups[0].trim = Some(result.groups[0].read);
    result.meta.phase_starts_unix_ns = vec![1_764_000_000_000_000_000];
    result.meta.io_finished_unix_ns = 1_764_000_004_000_000_000;
    result.meta.rank = Some(diskmeter_report::RankInfo { rank: 1, ranks: 4 });
    let histograms = job.histograms.as_mut().expect("build fills them");
    histograms.trim = Some(histograms.read.clone());
    histograms.sync = histograms.read.lat.clone();
    histograms.read.lat_intended = histograms.read.lat.clone();
    assert!(result.jobs.iter().any(|j| j.error.is_some()));
    assert!(result.jobs.iter().any(|j| j.clone_index.is_some()));
    // A merge adds `ranks` (each a result of this same shape) and `scale_out`.
    let mut alone = result.clone();
    alone.meta.rank = None;
    let merged = diskmeter_report::merge::merge_ranks(vec![alone]).expect("merges");
    let mut scale_out = merged.scale_out.expect("scale_out");
    scale_out.per_rank[0].error = Some("failed".into());
    result.scale_out = Some(scale_out);
    result.ranks = merged.ranks;
    result
}

/// Every key path ("jobs[].read.clat.min_ns") with the JSON types found there.
fn shape(value: &Value, path: &str, out: &mut BTreeMap<String, BTreeSet<&'static str>>) {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    out.entry(path.to_string()).or_default().insert(kind);
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                // `ranks[]` holds whole results: their shape is this one's, listed once.
                if path.is_empty() && key == "ranks" {
                    out.entry("ranks".to_string()).or_default().insert("array");
                    continue;
                }
                let child_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                shape(child, &child_path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                shape(item, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

fn shape_text(result: &RunResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    let mut paths = BTreeMap::new();
    shape(&value, "", &mut paths);
    paths.remove("");
    paths
        .iter()
        .map(|(path, kinds)| {
            let kinds: Vec<&str> = kinds.iter().copied().collect();
            format!("{path}: {}\n", kinds.join("|"))
        })
        .collect()
}

#[test]
fn the_result_shape_changes_only_with_the_schema_version() {
    let shape = shape_text(&result_with_every_field());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/data/result-schema-v{SCHEMA_VERSION}.shape"));
    if std::env::var_os("DISKMETER_WRITE_SCHEMA_SHAPE").is_some() && !path.exists() {
        std::fs::write(&path, &shape).unwrap();
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no shape file {} for schema version {SCHEMA_VERSION}: set \
             DISKMETER_WRITE_SCHEMA_SHAPE=1 to write it (for a new version only)",
            path.display()
        )
    });
    if stored != shape {
        let old: BTreeSet<&str> = stored.lines().collect();
        let new: BTreeSet<&str> = shape.lines().collect();
        panic!(
            "the serialized result schema changed but SCHEMA_VERSION is still {SCHEMA_VERSION}: \
             bump it, describe the change in docs/output-fields.md, and write the new version's \
             shape file (never edit an older one)\nonly in {}: {:?}\nnow: {:?}",
            path.display(),
            old.difference(&new).collect::<Vec<_>>(),
            new.difference(&old).collect::<Vec<_>>()
        );
    }
}

#[test]
fn the_shape_sees_a_renamed_field() {
    // The check above is only as good as the shape: a renamed field must change it.
    let result = result_with_every_field();
    let mut value = serde_json::to_value(&result).unwrap();
    let job = value["jobs"][0].as_object_mut().unwrap();
    let runtime = job.remove("runtime_ns").unwrap();
    job.insert("runtime_nanos".into(), runtime);
    let mut renamed = BTreeMap::new();
    shape(&value, "", &mut renamed);
    let mut original = BTreeMap::new();
    shape(&serde_json::to_value(&result).unwrap(), "", &mut original);
    assert_ne!(renamed, original);
}
