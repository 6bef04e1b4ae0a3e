//! The rows of the option table for files options (see the module doc of `options`): how
//! files are named, chosen, created and opened, and what write buffers hold. Meanings are in
//! [`crate::files`].
//!
//! The rows' options with logic of their own have their setter (`set_*`) and shower
//! (`show_*`) below the rows, with the conventions of `setters.rs`.

use super::convert::{number, text};
use super::error::InvalidValue;
use super::limits::{Limits, Range};
use super::shape::plain;
use super::value::Value;
use super::{Category, OptionDef, OptionKind};
use crate::files::{
    parse_byte_pattern, show_byte_pattern, DedupeMode, FadviseHint, Fallocate, FileService,
    FilesError, LockFile, MemKind, SyncFileRange, DEFAULT_FILENAME_FORMAT,
};
use crate::JobSpec;
use std::path::PathBuf;

/// The files rows.
pub(super) static ROWS: &[OptionDef] = &[
    OptionDef {
        name: "filename_format",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Str,
        default: "$jobname.$jobnum.$filenum",
        unit: "",
        help: "Names of the files diskmeter creates: $jobname, $jobnum (the clone), $filenum and $clientuid (empty) are replaced; a clone whose names are all taken by an earlier job or clone does no IO, as fio",
        limits: None,
        set: set_filename_format,
        show: Some(show_filename_format),
    },
    OptionDef {
        name: "openfiles",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "files",
        help: "Files a worker keeps in service at once: the next file enters once one is done (its region covered); unset or 0 = all",
        limits: None,
        set: set_openfiles,
        show: Some(show_openfiles),
    },
    OptionDef {
        name: "file_service_type",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Str,
        default: "roundrobin",
        unit: "",
        help: "Which file the next IO goes to: roundrobin[:N] or random[:N] (switch after N IOs), sequential (finish a file, then the next), zipf:THETA, pareto:H, normal:DEV (gauss) over the files",
        limits: None,
        set: set_file_service_type,
        show: Some(show_file_service_type),
    },
    plain!(
        "create_serialize" => files.create_serialize: Flag,
        category Files,
        default "1",
        help "Lay files out one after another; diskmeter always does (layout happens before the clock starts), so 0 only changes how long setup takes",
    ),
    plain!(
        "create_fsync" => files.create_fsync: Flag,
        category Files,
        default "1",
        help "fsync each file diskmeter lays out before the run, so its data is on the device when IO starts",
    ),
    plain!(
        "create_only" => files.create_only: Flag,
        category Files,
        default "0",
        help "Lay the job's files out, then do no IO (the job reports zero IOs)",
    ),
    plain!(
        "fallocate" => files.fallocate: Choice<Fallocate>,
        category Files,
        default "native",
        help "How a new file's space is reserved: native (fallocate), posix (posix_fallocate, 1), keep (FALLOC_FL_KEEP_SIZE), truncate (ftruncate only: sparse), none (0)",
    ),
    plain!(
        "overwrite" => files.overwrite: MaybeFlag,
        category Files,
        default "",
        help "1 = write a new file fully before a writing job (fio); 0 = a write-only job's new file is only reserved (fio's default); unset = diskmeter writes every new file fully. Files diskmeter did not create are never written before the run",
    ),
    plain!(
        "lockfile" => files.lockfile: Choice<LockFile>,
        category Files,
        default "none",
        help "How workers sharing a file take turns: exclusive = one IO at a time on the file, readwrite = reads together and a write alone, none",
    ),
    plain!(
        "pre_read" => files.pre_read: Flag,
        category Files,
        default "0",
        help "Read the job's files into the page cache before the job starts (and skip invalidate); with direct=1 it has no effect on the measured IO",
    ),
    plain!(
        "allow_file_create" => files.allow_file_create: Flag,
        category Files,
        default "1",
        help "0 = a file that does not exist is an error instead of being created",
    ),
    plain!(
        "file_append" => files.file_append: Flag,
        category Files,
        default "0",
        help "IO goes after the current end of each file (needs --allow-destroy for files diskmeter did not create)",
    ),
    plain!(
        "fsync_on_close" => files.fsync_on_close: Flag,
        category Files,
        default "0",
        help "fsync each file the job wrote when the job ends (not counted as an IO, unlike end_fsync)",
    ),
    OptionDef {
        name: "sync_file_range",
        category: Category::Engine,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "sync_file_range(2) of the file after every N writes, timed and counted as syncs: \
               wait_before, write and/or wait_after (',' between), then :N (1 without it); \
               diskmeter syncs the whole file (fio the range written since the last call)",
        limits: None,
        set: set_sync_file_range,
        show: Some(show_sync_file_range),
    },
    plain!(
        "fadvise_hint" => files.fadvise_hint: Choice<FadviseHint>,
        category Files,
        default "1",
        help "posix_fadvise hint on open: 1 = the job's pattern (random or sequential), random, sequential, 0 = none",
    ),
    OptionDef {
        name: "opendir",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "path",
        help: "Every regular file below this folder (recursively) is a target, as if listed in filename",
        limits: None,
        set: set_opendir,
        show: Some(show_opendir),
    },
    OptionDef {
        name: "buffer_pattern",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Str,
        default: "",
        unit: "",
        help: "Write buffers hold this pattern repeated: 0x hex bytes, a \"quoted string\", a decimal number, or several written together (\"ab\"0x01)",
        limits: None,
        set: set_buffer_pattern,
        show: Some(show_buffer_pattern),
    },
    plain!(
        "scramble_buffers" => files.scramble_buffers: Flag,
        category Files,
        default "1",
        help "Stamp every written 512-byte sector so no two writes are equal (dedupe cannot flatter the result); 0 = write the buffers as they are",
    ),
    OptionDef {
        name: "dedupe_percentage",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Int,
        default: "",
        unit: "%",
        help: "Share of writes whose data repeats an earlier write's (deduplicable); the others are unique",
        limits: Some(Limits {
            range: Range::Int {
                min: 0,
                max: Some(100),
            },
            why: "",
        }),
        set: set_dedupe_percentage,
        show: Some(show_dedupe_percentage),
    },
    plain!(
        "dedupe_mode" => files.dedupe_mode: Choice<DedupeMode>,
        category Files,
        default "repeat",
        help "Which earlier data a duplicate repeats: repeat = the last unique write's, working_set = one of a set of dedupe_working_set_percentage of the region's blocks",
    ),
    OptionDef {
        name: "dedupe_working_set_percentage",
        category: Category::Files,
        aliases: &[],
        kind: OptionKind::Int,
        default: "5",
        unit: "%",
        help: "Size of dedupe_mode=working_set's set, as a share of the region's blocks",
        limits: Some(Limits {
            range: Range::Int {
                min: 0,
                max: Some(100),
            },
            why: "",
        }),
        set: set_dedupe_working_set_percentage,
        show: Some(show_dedupe_working_set_percentage),
    },
    plain!(
        "dedupe_global" => files.dedupe_global: Flag,
        category Files,
        default "0",
        help "Duplicates repeat data of every job (a shared working set), not only the job's own",
    ),
    OptionDef {
        name: "mem",
        category: Category::Files,
        aliases: &["iomem"],
        kind: OptionKind::Str,
        default: "malloc",
        unit: "",
        help: "What fio allocates IO buffers with (malloc, shm, shmhuge, mmap, mmaphuge, mmapshared); accepted: diskmeter always uses one aligned anonymous mapping per worker, in transparent huge pages when an IO spans pages (see the guide)",
        limits: None,
        set: set_mem,
        show: Some(show_mem),
    },
    plain!(
        "hugepage-size" => files.hugepage_size_bytes: Int,
        category Files,
        default "2097152", unit "bytes",
        help "Huge page size for fio's mem=shmhuge or mmaphuge; accepted: diskmeter's buffers use the kernel's transparent huge pages, whose size the kernel sets",
    ),
    plain!(
        "lockmem" => files.lockmem_bytes: Bytes,
        category Files,
        default "0", unit "bytes",
        help "Pin this much memory per worker with mlock while it runs, so the page cache has that much less; 0 = none",
    ),
];

// ---- setters and showers of the options above with logic of their own ----------------

pub(crate) fn set_filename_format(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let format = text(value)?;
    if format.trim().is_empty() {
        return Err(InvalidValue::EmptyFileName);
    }
    // fio's default format written out is the same as none.
    spec.files.filename_format = (format != DEFAULT_FILENAME_FORMAT).then_some(format);
    Ok(())
}

pub(crate) fn show_filename_format(spec: &JobSpec) -> Option<String> {
    Some(
        spec.files
            .filename_format
            .clone()
            .unwrap_or_else(|| DEFAULT_FILENAME_FORMAT.to_string()),
    )
}

pub(crate) fn set_openfiles(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let n = number(value)?;
    // fio: 0 (or unset) keeps every file open.
    spec.files.openfiles = match n {
        0 => None,
        n => Some(u32::try_from(n).map_err(|_| InvalidValue::TooLarge {
            max: u64::from(u32::MAX),
        })?),
    };
    Ok(())
}

pub(crate) fn show_openfiles(spec: &JobSpec) -> Option<String> {
    spec.files.openfiles.map(|n| n.to_string())
}

pub(crate) fn set_file_service_type(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.files.file_service = FileService::parse(&text(value)?)?;
    Ok(())
}

pub(crate) fn show_file_service_type(spec: &JobSpec) -> Option<String> {
    Some(spec.files.file_service.show())
}

pub(crate) fn set_sync_file_range(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.files.sync_file_range = Some(SyncFileRange::parse(&text(value)?)?);
    Ok(())
}

pub(crate) fn show_sync_file_range(spec: &JobSpec) -> Option<String> {
    spec.files.sync_file_range.map(|range| range.show())
}

pub(crate) fn set_opendir(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let folder = text(value)?;
    if folder.trim().is_empty() {
        return Err(FilesError::EmptyFolder.into());
    }
    spec.files.opendir = Some(PathBuf::from(folder));
    Ok(())
}

pub(crate) fn show_opendir(spec: &JobSpec) -> Option<String> {
    spec.files
        .opendir
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned())
}

pub(crate) fn set_buffer_pattern(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    spec.files.buffer_pattern = Some(parse_byte_pattern(&text(value)?)?);
    Ok(())
}

pub(crate) fn show_buffer_pattern(spec: &JobSpec) -> Option<String> {
    spec.files.buffer_pattern.as_deref().map(show_byte_pattern)
}

pub(crate) fn set_dedupe_percentage(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    // The row's range (0 to 100) is checked before the setter runs.
    spec.files.dedupe_percentage = Some(number(value)?.min(100) as u8);
    Ok(())
}

pub(crate) fn show_dedupe_percentage(spec: &JobSpec) -> Option<String> {
    spec.files.dedupe_percentage.map(|p| p.to_string())
}

pub(crate) fn set_dedupe_working_set_percentage(
    spec: &mut JobSpec,
    value: Value,
) -> Result<(), InvalidValue> {
    spec.files.dedupe_working_set_percentage = number(value)?.min(100) as u8;
    Ok(())
}

pub(crate) fn show_dedupe_working_set_percentage(spec: &JobSpec) -> Option<String> {
    Some(spec.files.dedupe_working_set_percentage.to_string())
}

pub(crate) fn set_mem(spec: &mut JobSpec, value: Value) -> Result<(), InvalidValue> {
    let text = text(value)?;
    let (word, path) = match text.split_once(':') {
        Some((word, path)) => (word, Some(path)),
        None => (text.as_str(), None),
    };
    let kind = MemKind::parse(word.trim()).ok_or_else(|| InvalidValue::NotAChoice {
        choices: MEM_CHOICES,
        suggestion: crate::nearest(word, MEM_CHOICES.iter().copied()),
    })?;
    if let Some(path) = path.filter(|p| !p.is_empty()) {
        return Err(FilesError::MemFile {
            path: path.to_string(),
        }
        .into());
    }
    spec.files.mem = kind;
    Ok(())
}

pub(crate) fn show_mem(spec: &JobSpec) -> Option<String> {
    Some(spec.files.mem.as_str().to_string())
}

/// `mem=` words.
pub(super) const MEM_CHOICES: &[&str] =
    &["malloc", "shm", "shmhuge", "mmap", "mmaphuge", "mmapshared"];
