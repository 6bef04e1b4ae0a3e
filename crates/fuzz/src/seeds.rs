//! Seed inputs: real files the generators mutate. The repository's own job files
//! (`tests/jobs/`) are always there; a campaign can add folders (fio's example job files,
//! kept outside the repository).

use std::path::{Path, PathBuf};

/// The folder of the repository's job files.
pub fn repository_jobs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/jobs")
}

/// The repository's built-in planner catalogs.
pub fn repository_catalogs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../plan/catalog")
}

/// A seed file: its name (as an include would name it) and its text.
#[derive(Debug, Clone)]
pub struct SeedFile {
    /// The file's name, without its folder.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// The text files directly in `dirs` whose names end with one of `extensions`, sorted by
/// name so a campaign sees the same seeds in the same order; unreadable ones are skipped.
pub fn load(dirs: &[PathBuf], extensions: &[&str]) -> Vec<SeedFile> {
    let mut files = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !extensions.iter().any(|ext| name.ends_with(ext)) {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&path) {
                files.push(SeedFile { name, text });
            }
        }
    }
    files
}
