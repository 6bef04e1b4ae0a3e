//! The store (`set_*`) and print (`show_*`) functions of the options that say how a job
//! runs: its time limits and loops, caching and engine, rate caps, reporting groups and
//! ordering, random sequence, file handling, CPUs, buffer contents and latency percentiles.
//! Same conventions as `setters.rs`.

use super::convert::{choice, flag, mismatch};
use super::error::InvalidValue;
use super::value::Value;
use crate::{EngineKind, JobSpec};

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
