//! The rows of the option table for verify options (see the module doc of `options`).
//!
//! Names, defaults and ranges are fio's (`fio --cmdhelp=verify` etc., fio 3.33); meanings are
//! fio's HOWTO, "Verification".
//!
//! The rows' options with logic of their own have their setter (`set_*`) and shower
//! (`show_*`) below the rows, with the conventions of `setters.rs`.

use super::convert::{choice, count, text};
use super::error::InvalidValue;
use super::limits::{Limits, Range};
use super::shape::plain;
use super::value::Value;
use super::{Category, OptionDef, OptionKind};
use crate::JobSpec;
use diskmeter_units::format_size_suffix;
use diskmeter_verify::{VerifyKind, VerifyPattern};

/// `verify=` values as fio lists them (`0` = off; `crc32c-intel` = crc32c).
pub(super) const VERIFY_CHOICES: &[&str] = &[
    "0",
    "md5",
    "crc64",
    "crc32",
    "crc32c-intel",
    "crc32c",
    "crc16",
    "crc7",
    "sha1",
    "sha256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "xxhash",
    "meta",
    "pattern",
    "null",
];

/// The verify rows.
pub(super) static ROWS: &[OptionDef] = &[
    OptionDef {
        name: "verify",
        category: Category::Verify,
        aliases: &[],
        kind: OptionKind::Choice(VERIFY_CHOICES),
        default: "0",
        unit: "",
        help: "Verify written data: each block carries a header (magic, offset, length, generation, seed, job, header crc) and this checksum of its data, checked when read back; 0 = off, meta = header only, pattern = verify_pattern only, null = write but never check (crc32c-intel = crc32c)",
        limits: None,
        set: set_verify,
        show: Some(show_verify),
    },
    plain!(
        "do_verify" => verify.do_verify: Flag,
        category Verify,
        default "1",
        help "Read back and check the written data after the write phase (only with verify)",
    ),
    plain!(
        "verify_only" => verify.verify_only: Flag,
        category Verify,
        default "0",
        help "Do not run the workload; only check that the data an earlier run of this job wrote is still intact (not with time_based)",
    ),
    OptionDef {
        name: "verify_pattern",
        category: Category::Verify,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Fill blocks with this pattern instead of seeded random bytes: 0x hex, decimal numbers, \"quoted strings\" and %o (the block's offset) in any sequence, up to 512 bytes; alone it means verify=pattern",
        limits: None,
        set: set_verify_pattern,
        show: Some(show_verify_pattern),
    },
    OptionDef {
        name: "verify_interval",
        category: Category::Verify,
        aliases: &[],
        kind: OptionKind::Size,
        default: "",
        unit: "bytes",
        help: "Write a verify header every this many bytes instead of once per block; the block size must be a multiple of it (unset = the block size)",
        limits: Some(Limits {
            range: Range::Int {
                min: 80,
                max: None,
            },
            why: "fio's smallest interval",
        }),
        set: set_verify_interval,
        show: Some(show_verify_interval),
    },
    OptionDef {
        name: "verify_offset",
        category: Category::Verify,
        aliases: &[],
        kind: OptionKind::Size,
        default: "",
        unit: "bytes",
        help: "Put the verify header this many bytes into each interval instead of at its start (unset = 0)",
        limits: Some(Limits {
            range: Range::Int {
                min: 40,
                max: None,
            },
            why: "fio's smallest offset",
        }),
        set: set_verify_offset,
        show: Some(show_verify_offset),
    },
    plain!(
        "verify_fatal" => verify.fatal: Flag,
        category Verify,
        default "0",
        help "Stop the job at its first verify failure instead of checking on",
    ),
    plain!(
        "verify_dump" => verify.dump: Flag,
        category Verify,
        default "0",
        help "On a verify failure, write the expected and the found contents of the block to files for inspection",
    ),
    plain!(
        "verify_async" => verify.async_threads: Count,
        category Verify,
        default "0", unit "threads",
        help "fio's number of offload threads for checking (0 = check inline)",
    ),
    plain!(
        "verify_async_cpus" => verify.async_cpus: Cpus,
        category Verify,
        default "",
        help "CPUs for the verify_async threads",
    ),
    plain!(
        "verify_backlog" => verify.backlog_blocks: IntOrOff,
        category Verify,
        default "", unit "blocks",
        help "Check while writing: after every this many blocks written, read back and check written blocks (unset or 0 = check after the write phase)",
    ),
    plain!(
        "verify_backlog_batch" => verify.backlog_batch_blocks: IntOrOff,
        category Verify,
        default "", unit "blocks",
        help "How many blocks each verify_backlog check reads back (unset = verify_backlog)",
    ),
    plain!(
        "verify_state_save" => verify.state_save: Flag,
        category Verify,
        default "1",
        help "When the job stops during its write phase, save how far it got so a later verify_state_load run checks only that",
    ),
    plain!(
        "verify_state_load" => verify.state_load: Flag,
        category Verify,
        default "0",
        help "Check only up to what the saved verify state says was written",
    ),
    plain!(
        "experimental_verify" => verify.experimental: Flag,
        category Verify,
        default "0",
        help "fio's experimental verification (offsets re-derived by replaying the job's offset sequence instead of logged)",
    ),
    plain!(
        "trim_verify_zero" => verify.trim_verify_zero: Flag,
        category Verify,
        default "1",
        help "Trimmed (discarded) blocks must read back as zeros when checked (with trim_percentage)",
    ),
];

// ---- setters and showers of the options above with logic of their own ----------------

pub(crate) fn set_verify(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let choice = choice(value)?;
    spec.verify.kind = match choice {
        "0" => None,
        name => Some(VerifyKind::parse(name)?),
    };
    spec.verify.kind_given = true;
    Ok(())
}

pub(crate) fn show_verify(spec: &JobSpec) -> Option<String> {
    Some(spec.verify.kind.map_or("0", VerifyKind::name).to_string())
}

pub(crate) fn set_verify_pattern(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.verify.pattern = Some(VerifyPattern::parse(&text(value)?)?);
    Ok(())
}

pub(crate) fn show_verify_pattern(spec: &JobSpec) -> Option<String> {
    spec.verify
        .pattern
        .as_ref()
        .map(|pattern| pattern.text().to_string())
}

pub(crate) fn set_verify_interval(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.verify.interval_bytes = Some(count(value)?);
    Ok(())
}

pub(crate) fn show_verify_interval(spec: &JobSpec) -> Option<String> {
    spec.verify
        .interval_bytes
        .map(|bytes| format_size_suffix(u64::from(bytes), spec.kb_base))
}

pub(crate) fn set_verify_offset(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.verify.header_offset_bytes = Some(count(value)?);
    Ok(())
}

pub(crate) fn show_verify_offset(spec: &JobSpec) -> Option<String> {
    spec.verify
        .header_offset_bytes
        .map(|bytes| format_size_suffix(u64::from(bytes), spec.kb_base))
}
