//! The store (`set_*`) and print (`show_*`) functions of the options that say how a job
//! runs: its time limits and loops, caching and engine, rate caps, reporting groups and
//! ordering, random sequence, file handling, CPUs, buffer contents and latency percentiles.
//! Same conventions as `setters.rs`.

use super::convert::{choice, flag, mismatch, nanos, pair, set_cap, show_cap};
use super::error::InvalidValue;
use super::value::Value;
use crate::{EngineKind, JobSpec, SyncMode};
use diskmeter_units::{format_cpu_list, format_size_suffix, format_time_suffix};

pub(crate) fn set_runtime(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // fio: runtime=0 means no limit.
    let ns = nanos(value)?;
    spec.runtime_ns = (ns > 0).then_some(ns);
    Ok(())
}

pub(crate) fn show_runtime(spec: &JobSpec) -> Option<String> {
    spec.runtime_ns.map(format_time_suffix)
}

pub(crate) fn set_buffered(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.direct = !flag(value)?;
    Ok(())
}

pub(crate) fn set_ioengine(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let choice = choice(value)?;
    spec.ioengine = EngineKind::parse(choice).ok_or_else(|| mismatch(&Value::Choice(choice)))?;
    // Kept so the plan can say that `posixaio` runs as io_uring (and `vsync` as psync).
    spec.compat.ioengine_as_written = (choice != spec.ioengine.as_str()
        && !matches!(choice, "sync" | "pvsync"))
    .then(|| choice.to_string());
    Ok(())
}

pub(crate) fn show_ioengine(spec: &JobSpec) -> Option<String> {
    Some(spec.ioengine.as_str().to_string())
}

pub(crate) fn set_rate(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    set_cap(&mut spec.rate_bytes_per_sec, pair(value)?);
    Ok(())
}

pub(crate) fn show_rate(spec: &JobSpec) -> Option<String> {
    let size = |bytes| format_size_suffix(bytes, spec.kb_base);
    show_cap(spec.rate_bytes_per_sec, size)
}

pub(crate) fn set_rate_iops(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    set_cap(&mut spec.rate_iops, pair(value)?);
    Ok(())
}

pub(crate) fn show_rate_iops(spec: &JobSpec) -> Option<String> {
    show_cap(spec.rate_iops, |iops: u64| iops.to_string())
}

pub(crate) fn set_sync(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let choice = choice(value)?;
    spec.sync = SyncMode::parse(choice).ok_or_else(|| mismatch(&Value::Choice(choice)))?;
    Ok(())
}

pub(crate) fn show_sync(spec: &JobSpec) -> Option<String> {
    Some(spec.sync.as_str().to_string())
}

/// Options that state what diskmeter always does (`thread`: workers are threads;
/// `refill_buffers`: every write is made unique anyway): the value is checked, nothing changes.
pub(crate) fn set_always_so(_spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    flag(value).map(|_| ())
}

pub(crate) fn set_rate_process(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.rate_poisson = choice(value)? == "poisson";
    Ok(())
}

pub(crate) fn show_rate_process(spec: &JobSpec) -> Option<String> {
    Some(
        if spec.rate_poisson {
            "poisson"
        } else {
            "linear"
        }
        .to_string(),
    )
}

pub(crate) fn set_cpus_allowed(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    match value {
        Value::Cpus(cpus) => {
            spec.cpus_allowed = Some(cpus);
            Ok(())
        }
        other => Err(mismatch(&other)),
    }
}

pub(crate) fn show_cpus_allowed(spec: &JobSpec) -> Option<String> {
    spec.cpus_allowed.as_deref().map(format_cpu_list)
}

pub(crate) fn set_percentile_list(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // How many percentiles, and their range, are the row's limits, checked before this runs.
    spec.percentile_list = match value {
        Value::Floats(list) => list,
        other => return Err(mismatch(&other)),
    };
    Ok(())
}

pub(crate) fn show_percentile_list(spec: &JobSpec) -> Option<String> {
    let items: Vec<String> = spec.percentile_list.iter().map(f64::to_string).collect();
    Some(items.join(":"))
}
