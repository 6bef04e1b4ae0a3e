//! Reading results of older schema versions: the one place that knows their shapes.
//!
//! Schema 1 (diskmeter up to commit f43a725) embedded the internal `JobSpec` in every job
//! (`jobs[].spec`). [`upgrade_json`] turns such a document into the current schema: the spec
//! is read as a `JobSpec` once and becomes the job's `options` and `workload`. A spec that no
//! longer reads as a `JobSpec` (the internal type moved on) is still kept, loosely: its fields
//! become options named after them, and a note in `meta.notes` says so, because a finished
//! run must never drop out of the history.

use serde_json::{Map, Value};

use diskmeter_workload::JobSpec;

use crate::schema::{JobOption, JobWorkload, RunResult, SCHEMA_VERSION};
use crate::ReportError;

/// Reads a diskmeter result of any schema version this build knows (1 to 5 and the
/// current one), upgraded to the current schema.
pub fn upgrade_json(text: &str) -> Result<RunResult, ReportError> {
    let mut doc: Value = serde_json::from_str(text)?;
    match schema_version(&doc)? {
        1 => upgrade_from_v1(&mut doc),
        // 2 -> 3 only added optional fields (a job's `trim`, `io_errors` and
        // `latency_target`), 3 -> 4 too (`meta`'s phase starts, IO end and rank), 4 -> 5 too
        // (a job's pacing and the series' intended-time means, 0 = not kept), 5 -> 6 too (a
        // job's `connections`): a version-2 to -5 result reads as it is.
        2..=5 => doc["schema_version"] = Value::from(SCHEMA_VERSION),
        SCHEMA_VERSION => {}
        found => {
            return Err(ReportError::UnknownVersion {
                found,
                known: SCHEMA_VERSION,
            })
        }
    }
    Ok(serde_json::from_value(doc)?)
}

/// The document's `schema_version`, or why it is not a diskmeter result.
pub(crate) fn schema_version(doc: &Value) -> Result<u32, ReportError> {
    doc.get("schema_version")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or(ReportError::NotAResult)
}

/// Schema 1 -> 2: each job's `spec` becomes `options` and `workload`.
fn upgrade_from_v1(doc: &mut Value) {
    let mut loose = Vec::new();
    if let Some(jobs) = doc.get_mut("jobs").and_then(Value::as_array_mut) {
        for job in jobs.iter_mut().filter_map(Value::as_object_mut) {
            let spec = job.remove("spec").unwrap_or(Value::Null);
            let (options, workload) = match serde_json::from_value::<JobSpec>(spec.clone()) {
                Ok(spec) => (JobOption::list_of(&spec), JobWorkload::of(&spec)),
                Err(_) => {
                    let name = job.get("name").and_then(Value::as_str).unwrap_or("job");
                    loose.push(name.to_string());
                    (loose_options(&spec), loose_workload(&spec))
                }
            };
            job.insert(
                "options".into(),
                serde_json::to_value(options).unwrap_or_default(),
            );
            job.insert(
                "workload".into(),
                serde_json::to_value(workload).unwrap_or_default(),
            );
        }
    }
    if !loose.is_empty() {
        if let Some(notes) = doc.pointer_mut("/meta/notes").and_then(Value::as_array_mut) {
            notes.push(Value::String(format!(
                "upgraded from result schema 1: the stored job specification of {} no longer \
                 reads as a job, so its options are the specification's fields as stored",
                loose.join(", ")
            )));
        }
    }
    doc["schema_version"] = Value::from(SCHEMA_VERSION);
}

/// The fields of a schema-1 spec as `field=value` options (strings as they are, other values
/// as compact JSON, nulls left out), `name` first.
fn loose_options(spec: &Value) -> Vec<JobOption> {
    let empty = Map::new();
    let fields = spec.as_object().unwrap_or(&empty);
    let mut options: Vec<JobOption> = fields
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| JobOption {
            name: name.clone(),
            value: match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            },
        })
        .collect();
    options.sort_by_key(|o| o.name != "name");
    options
}

/// The typed facts of a schema-1 spec, read by the field names schema 1 used.
fn loose_workload(spec: &Value) -> JobWorkload {
    let text = |pointer: &str, default: &str| {
        spec.pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_string()
    };
    let number = |pointer: &str, default: u64| {
        spec.pointer(pointer)
            .and_then(Value::as_u64)
            .unwrap_or(default)
    };
    let flag = |pointer: &str, default: bool| {
        spec.pointer(pointer)
            .and_then(Value::as_bool)
            .unwrap_or(default)
    };
    let spread = |pointer: &str| {
        spec.pointer(pointer)
            .filter(|v| v.as_str() != Some("fixed"))
            .map(Value::to_string)
    };
    JobWorkload {
        rw: text("/rw", "read"),
        bs_read_bytes: number("/bs_bytes/read", 4096),
        bs_write_bytes: number("/bs_bytes/write", 4096),
        bs_read_spread: spread("/bs_spread/read"),
        bs_write_spread: spread("/bs_spread/write"),
        ioengine: text("/ioengine", "io_uring"),
        iodepth: u32::try_from(number("/iodepth", 1)).unwrap_or(u32::MAX),
        clat_percentiles: flag("/clat_percentiles", true),
        lat_percentiles: flag("/lat_percentiles", false),
        rate_iops: [0, 0],
        rate_bytes_per_sec: [0, 0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_that_no_longer_reads_is_kept_loosely_with_a_note() {
        let spec = serde_json::json!({
            "rw": "randwrite",
            "name": "old",
            "bs_bytes": {"read": 8192, "write": 8192},
            "iodepth": 16,
            "a_field_that_was_removed": 3,
            "directory": null,
        });
        let options = loose_options(&spec);
        assert_eq!(options[0].name, "name");
        assert!(options.contains(&JobOption {
            name: "a_field_that_was_removed".into(),
            value: "3".into()
        }));
        assert!(options.iter().all(|o| o.name != "directory"));
        let workload = loose_workload(&spec);
        assert_eq!(
            (
                workload.rw.as_str(),
                workload.bs_write_bytes,
                workload.iodepth
            ),
            ("randwrite", 8192, 16)
        );
        assert_eq!(workload.bs_read_spread, None);
    }
}
