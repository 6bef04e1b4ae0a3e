//! Checks that a job makes sense as a whole, without touching the system.
//!
//! Parsing ([`crate::apply_option`]) checks each value's form and its option's range; the
//! range is checked again here (from the same table row), with the rules that need several
//! options together, so jobs built in code, from job files or from other tools' command lines
//! all get them.

use crate::options::value::parse_value;
use crate::options::{all_options, find_option, OptionDef};
use crate::{BlockSizeSpread, Direction, EngineKind, JobSpec};
use diskmeter_units::{format_size_suffix, MAX_CPU};
use thiserror::Error;

/// The block-size and offset alignment `direct=1` needs: the smallest logical sector.
pub const DIRECT_ALIGNMENT: u64 = 512;

/// One problem with a job, as one line: `job 'seq': iodepth=0: must be between 1 and 65536`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("job '{job}': {option}={value}: {message}")]
pub struct ValidationError {
    /// The job's name.
    pub job: String,
    /// The option at fault, by its fio name.
    pub option: &'static str,
    /// The option's value as it would be written.
    pub value: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// Every problem with `spec`: first the values outside their option's range, in
/// option-table order, then the rules of several options; empty when the job can run.
///
/// Pure: no files are opened and no devices probed (that happens when the job is planned).
pub fn validate(spec: &JobSpec) -> Vec<ValidationError> {
    validate_with(spec, all_options())
}

/// [`validate`] against the ranges of `table` (the option table; tests pass a changed copy).
pub(crate) fn validate_with<'a>(
    spec: &JobSpec,
    table: impl IntoIterator<Item = &'a OptionDef>,
) -> Vec<ValidationError> {
    let mut errors: Vec<ValidationError> = table
        .into_iter()
        .filter_map(|def| {
            let message = out_of_range(spec, def)?;
            Some(ValidationError {
                job: spec.name.clone(),
                option: def.name,
                value: shown(spec, def.name),
                message,
            })
        })
        .collect();
    let mut fail = |option: &'static str, message: String| {
        errors.push(ValidationError {
            job: spec.name.clone(),
            option,
            value: shown(spec, option),
            message,
        });
    };

    if spec.name.trim().is_empty() {
        fail("name", "a job needs a name".to_string());
    }
    if spec.size_bytes == Some(0) {
        fail(
            "size",
            "must be more than 0 bytes (leave it unset to use the files' own size)".to_string(),
        );
    }
    if spec.io_size_bytes == Some(0) {
        fail(
            "io_size",
            "must be more than 0 bytes (leave it unset to transfer size once per loop)".to_string(),
        );
    }
    if spec.direct && !spec.offset_bytes.is_multiple_of(DIRECT_ALIGNMENT) {
        fail(
            "offset",
            format!("direct=1 needs an offset that is a multiple of {DIRECT_ALIGNMENT} bytes"),
        );
    }
    if let Some(size) = spec.size_bytes {
        if spec.offset_bytes.checked_add(size).is_none() {
            fail(
                "offset",
                "offset plus size is beyond the largest possible file (16 EiB)".to_string(),
            );
        }
    }
    for direction in issued(spec) {
        let bs = spec.bs_bytes.get(direction);
        if bs == 0 {
            fail(
                "bs",
                format!(
                    "the {} block size must be at least 1 byte",
                    direction.as_str()
                ),
            );
        } else if spec.direct && !bs.is_multiple_of(DIRECT_ALIGNMENT) {
            fail(
                "bs",
                format!(
                    "the {} block size {} is not a multiple of {DIRECT_ALIGNMENT}, which direct=1 \
                     needs (e.g. 4k)",
                    direction.as_str(),
                    format_size_suffix(bs, spec.kb_base)
                ),
            );
        }
    }
    validate_pattern(spec, &mut fail);
    if spec.runtime_ns == Some(0) {
        fail(
            "runtime",
            "0 means no limit in fio; leave runtime unset instead".to_string(),
        );
    }
    if spec.time_based && spec.runtime_ns.is_none() {
        fail(
            "time_based",
            "time_based needs runtime (how long to keep going, e.g. runtime=60)".to_string(),
        );
    }
    for direction in Direction::BOTH {
        let name = direction.as_str();
        if spec.rate_bytes_per_sec.get(direction) == Some(0) {
            fail(
                "rate",
                format!("a {name} cap of 0 means no cap; leave it unset"),
            );
        }
        if spec.rate_iops.get(direction) == Some(0) {
            fail(
                "rate_iops",
                format!("a {name} cap of 0 means no cap; leave it unset"),
            );
        }
        if spec.rate_bytes_per_sec.get(direction).is_some()
            && spec.rate_iops.get(direction).is_some()
        {
            fail(
                "rate_iops",
                format!("{name}s are capped by both rate and rate_iops; keep one of them"),
            );
        }
    }
    for (enabled, option) in [
        (spec.fixedbufs, "fixedbufs"),
        (spec.registerfiles, "registerfiles"),
    ] {
        if enabled && spec.ioengine != EngineKind::IoUring {
            fail(
                option,
                format!(
                    "{option} is an io_uring option; use ioengine=io_uring or drop it (ioengine is {})",
                    spec.ioengine.as_str()
                ),
            );
        }
    }
    if let Some(cpus) = &spec.cpus_allowed {
        if cpus.is_empty() {
            fail(
                "cpus_allowed",
                "lists no CPU; leave it unset to allow any".to_string(),
            );
        } else if cpus.iter().any(|&cpu| cpu > MAX_CPU) {
            fail("cpus_allowed", format!("CPU numbers go up to {MAX_CPU}"));
        }
    }
    // How many percentiles and their range are the row's limits, checked above.
    if spec.percentile_list.is_empty() {
        fail("percentile_list", "lists no percentile".to_string());
    }
    crate::steady::validate_steady(spec, &mut fail);
    crate::iolog::validate_iolog(spec, &mut fail);
    crate::verify::validate_verify(spec, &mut fail);
    crate::control::validate_control(spec, &mut fail);
    errors
}

/// The rules of the pattern options (sizes from bsrange/bssplit, alignment, fill_device).
fn validate_pattern(spec: &JobSpec, fail: &mut impl FnMut(&'static str, String)) {
    for direction in issued(spec) {
        let name = direction.as_str();
        let spread = spec.bs_spread.get_ref(direction);
        let option = match spread {
            BlockSizeSpread::Fixed => "bs",
            BlockSizeSpread::Range { .. } => "bsrange",
            BlockSizeSpread::Split(_) => "bssplit",
        };
        let sizes: Vec<u64> = match spread {
            BlockSizeSpread::Fixed => Vec::new(),
            BlockSizeSpread::Range {
                min_bytes,
                max_bytes,
            } => vec![*min_bytes, *max_bytes],
            BlockSizeSpread::Split(shares) => shares.iter().map(|s| s.bytes).collect(),
        };
        if sizes.contains(&0) {
            fail(option, format!("a {name} block size of 0 bytes"));
        }
        if spec.direct && sizes.iter().any(|bytes| bytes % DIRECT_ALIGNMENT != 0) {
            fail(
                option,
                format!(
                    "every {name} block size must be a multiple of {DIRECT_ALIGNMENT} with direct=1"
                ),
            );
        }
        if let Some(align) = spec.blockalign_bytes.get(direction) {
            if spec.direct && align % DIRECT_ALIGNMENT != 0 {
                fail(
                    "blockalign",
                    format!("direct=1 needs {name} offsets on multiples of {DIRECT_ALIGNMENT}"),
                );
            }
        }
    }
    if spec.blocksize_unaligned && spec.direct {
        fail(
            "blocksize_unaligned",
            "sizes of any byte count cannot be read or written with direct=1 (O_DIRECT needs \
             sector multiples); drop one of them"
                .to_string(),
        );
    }
    if spec.fill_device && spec.rw.reads() {
        fail(
            "fill_device",
            "diskmeter fills a filesystem with writes only; use rw=write (then read the \
             files in a later job)"
                .to_string(),
        );
    }
    if spec.fill_device && spec.time_based {
        fail(
            "fill_device",
            "a job that fills the filesystem ends at ENOSPC; drop time_based".to_string(),
        );
    }
}

/// The directions the job issues IO in.
fn issued(spec: &JobSpec) -> impl Iterator<Item = Direction> + '_ {
    Direction::BOTH
        .into_iter()
        .filter(move |direction| match direction {
            Direction::Read => spec.rw.reads(),
            Direction::Write => spec.rw.writes(),
        })
}

/// Why the job's value of `def` is outside the row's limits, if it is. The value is read as
/// the option would write it and parsed back, so the range is checked exactly as the parser
/// checks it; a value the option's kind cannot even hold (`rwmixread` of 101) is outside.
fn out_of_range(spec: &JobSpec, def: &OptionDef) -> Option<String> {
    let limits = def.limits?;
    let text = (def.show?)(spec)?;
    if text.is_empty() {
        // Nothing to range-check (an empty list is its own rule below).
        return None;
    }
    match parse_value(def.kind, Some(&text), spec.kb_base, None) {
        Ok(value) => limits.check(&value).err().map(|e| e.requirement()),
        Err(_) => Some(limits.refusal().requirement()),
    }
}

/// The option's value as `describe` would print it; empty for unset options.
fn shown(spec: &JobSpec, option: &str) -> String {
    find_option(option)
        .and_then(|def| def.show)
        .and_then(|show| show(spec))
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
