//! Setters and printers of the files and buffer options (`filename_format`, `openfiles`,
//! `file_service_type`, `fallocate`, `overwrite`, `lockfile`, `buffer_pattern`, `dedupe_*`,
//! `mem`, ...); same conventions as `setters.rs`. The meanings are in [`crate::files`].

use super::convert::{number, text};
use super::error::InvalidValue;
use super::value::Value;
use crate::files::{
    parse_byte_pattern, show_byte_pattern, FileService, FilesError, MemKind, SyncFileRange,
    DEFAULT_FILENAME_FORMAT,
};
use crate::JobSpec;
use std::path::PathBuf;

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
