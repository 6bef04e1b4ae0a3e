//! The spool: where a finished run goes when the history cannot take it (locked by another
//! writer, read-only, damaged), so no result is ever lost to the database.
//!
//! A spooled run is one JSON file holding the whole run as it would have been saved: its
//! header, every step (the result schema document and the merged histograms as HdrHistogram
//! V2 blobs in base64), how it ended, and, when part of it did reach the history before the
//! fault, which run that was and how many of its steps it holds. The file is written to a
//! private name, flushed and renamed, so a spool file is whole or absent. It goes in the
//! folder `<database>.spool/` next to the database, or, when that folder cannot be written
//! (a read-only mount), in `spool/` of the user's data folder, naming its database.
//!
//! [`HistoryStore::import_spool`] puts spooled runs into the history: each in one
//! transaction that also records its spool id in `spool_imports` (schema v7), so a run is
//! imported whole and exactly once, even by two processes at the same moment or by one
//! killed between the commit and removing the file.

use crate::write::{close_run, insert_run, insert_step};
use crate::{data_folder, HistoryError, HistoryStore, NewStep, RunEnd, RunHeader};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use diskmeter_stats::LatencyHistogram;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The spool file's format; a reader refuses (leaves in place) a newer one.
const SPOOL_FORMAT: u32 = 1;

/// Why a run could not be kept in the spool either.
#[derive(Debug, thiserror::Error)]
pub enum SpoolError {
    /// Neither folder could take the file.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The last file tried.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The run could not be encoded.
    #[error("cannot encode the run: {0}")]
    Encode(#[from] serde_json::Error),
}

/// The part of a spooled run the history already holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpooledRunBegun {
    /// The run's id in the history.
    pub run_id: i64,
    /// How many of its steps were saved before the fault.
    pub steps_saved: u32,
}

/// A whole run kept in the spool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SpooledRun {
    spool_format: u32,
    spool_id: String,
    database: PathBuf,
    /// The database file's device and inode when the run was spooled, so a database
    /// reached by another path (a bind mount, a symlinked folder) still finds its runs.
    #[serde(default)]
    database_file_id: Option<(u64, u64)>,
    header: RunHeader,
    steps: Vec<SpooledStep>,
    end: RunEnd,
    begun: Option<SpooledRunBegun>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SpooledStep {
    name: String,
    /// The result schema document, as the history stores it.
    result: serde_json::Value,
    histograms: Vec<SpooledHistogram>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SpooledHistogram {
    direction: String,
    kind: String,
    hdr_v2_base64: String,
}

/// Where a spooled run was written.
#[derive(Debug)]
pub struct SpoolFile {
    /// The spool file.
    pub path: PathBuf,
    /// When it is in the data folder: the folder beside the database that could not take it,
    /// and why.
    pub not_beside: Option<(PathBuf, std::io::Error)>,
}

impl SpoolFile {
    /// Why the file is not beside its database, as the end of a sentence; empty when it is.
    pub fn why_not_beside(&self) -> String {
        match &self.not_beside {
            Some((folder, why)) => format!(
                " (in the data folder: {} beside the database cannot be written: {why})",
                folder.display()
            ),
            None => String::new(),
        }
    }
}

/// The spool folder of the database at `database`: `<database>.spool` beside it.
pub fn spool_folder(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".spool");
    PathBuf::from(name)
}

/// Where runs go whose database folder cannot be written.
fn fallback_folder() -> Option<PathBuf> {
    Some(data_folder()?.join("spool"))
}

/// The path that names a database in a spool file (absolute, symlinks resolved when it
/// exists), so a spooled run finds its database from any working folder.
fn database_key(database: &Path) -> PathBuf {
    database
        .canonicalize()
        .or_else(|_| std::path::absolute(database))
        .unwrap_or_else(|_| database.to_path_buf())
}

/// The device and inode of the file at `path`, if it exists.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

impl SpooledRun {
    /// The run meant for `database`: its header, its steps in order, how it ended, and the
    /// part of it the database took before the fault (if any).
    pub fn new(
        database: &Path,
        header: RunHeader,
        steps: &[NewStep],
        end: RunEnd,
        begun: Option<SpooledRunBegun>,
    ) -> SpooledRun {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let host: String = header
            .hostname
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let spool_id = format!(
            "run-{}-{host}-{}-{nanos}",
            header.started_unix_ms,
            std::process::id()
        );
        let steps = steps
            .iter()
            .map(|step| SpooledStep {
                name: step.name.clone(),
                result: serde_json::from_str(&diskmeter_report::to_json(&step.result))
                    .unwrap_or(serde_json::Value::Null),
                histograms: step
                    .histograms
                    .iter()
                    .filter_map(|(direction, kind, histogram)| {
                        let bytes = histogram.to_bytes().ok()?;
                        Some(SpooledHistogram {
                            direction: direction.clone(),
                            kind: kind.clone(),
                            hdr_v2_base64: BASE64.encode(bytes),
                        })
                    })
                    .collect(),
            })
            .collect();
        SpooledRun {
            spool_format: SPOOL_FORMAT,
            spool_id,
            database: database_key(database),
            database_file_id: file_id(database),
            header,
            steps,
            end,
            begun,
        }
    }

    /// Writes the run to the spool of its database, or to the user's data folder when that
    /// cannot be written; returns where it went (and, in the data folder, why).
    pub fn write(&self) -> Result<SpoolFile, SpoolError> {
        let text = serde_json::to_vec_pretty(self)?;
        let name = format!("{}.json", self.spool_id);
        let beside = spool_folder(&self.database);
        let refused = match write_whole(&beside, &name, &text) {
            Ok(path) => {
                return Ok(SpoolFile {
                    path,
                    not_beside: None,
                })
            }
            Err(refused) => refused,
        };
        let Some(fallback) = fallback_folder() else {
            let (path, source) = refused;
            return Err(SpoolError::Write { path, source });
        };
        match write_whole(&fallback, &name, &text) {
            Ok(path) => Ok(SpoolFile {
                path,
                not_beside: Some((beside, refused.1)),
            }),
            Err((path, source)) => Err(SpoolError::Write { path, source }),
        }
    }

    /// The steps as the store saves them; a histogram whose blob does not decode is left
    /// out (the result keeps its percentiles).
    fn new_steps(&self) -> Result<Vec<NewStep>, diskmeter_report::ReportError> {
        self.steps
            .iter()
            .map(|step| {
                let result = diskmeter_report::from_json(&step.result.to_string())?;
                let histograms = step
                    .histograms
                    .iter()
                    .filter_map(|h| {
                        let bytes = BASE64.decode(&h.hdr_v2_base64).ok()?;
                        let histogram = LatencyHistogram::from_bytes(&bytes).ok()?;
                        Some((h.direction.clone(), h.kind.clone(), histogram))
                    })
                    .collect();
                Ok(NewStep {
                    name: step.name.clone(),
                    result,
                    histograms,
                })
            })
            .collect()
    }
}

/// Writes `bytes` as `folder/name`, whole or not at all: a private name first, flushed,
/// then renamed.
fn write_whole(
    folder: &Path,
    name: &str,
    bytes: &[u8],
) -> Result<PathBuf, (PathBuf, std::io::Error)> {
    let path = folder.join(name);
    let private = folder.join(format!(".{name}.tmp"));
    let fail = |e| (path.clone(), e);
    std::fs::create_dir_all(folder).map_err(fail)?;
    let written = std::fs::File::create(&private)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&private, &path));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&private);
        return Err(fail(error));
    }
    // The rename is durable once the folder is flushed; a failure here loses nothing yet.
    if let Ok(dir) = std::fs::File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(path)
}

/// The spooled runs in `folder`: (file, run), oldest first (names start with the start time).
fn spooled_in(folder: &Path) -> Vec<(PathBuf, Option<SpooledRun>)> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|n| n.ends_with(".json") && !n.starts_with('.'))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let run = std::fs::read(&file)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<SpooledRun>(&bytes).ok())
                .filter(|run| run.spool_format <= SPOOL_FORMAT);
            (file, run)
        })
        .collect()
}

impl HistoryStore {
    /// Imports the runs spooled for this database (its `.spool` folder, and those in the
    /// user's data folder that name it) and returns their ids, in the order imported. Each
    /// is imported whole in one transaction and recorded, so it is never imported twice;
    /// its file is removed afterwards. A file that cannot be read is left where it is.
    pub fn import_spool(&mut self) -> Result<Vec<i64>, HistoryError> {
        let (key, id) = (database_key(&self.path), file_id(&self.path));
        // Where [`SpooledRun::write`] puts them: beside the file the path resolves to (a
        // database named by a symlink keeps its spool beside the file it points to).
        let own = spool_folder(&key);
        let ours =
            |run: &SpooledRun| run.database == key || (id.is_some() && run.database_file_id == id);
        let mut spooled = spooled_in(&own);
        if let Some(fallback) = fallback_folder() {
            spooled.extend(
                spooled_in(&fallback)
                    .into_iter()
                    .filter(|(_, run)| run.as_ref().is_some_and(ours)),
            );
        }
        let mut imported = Vec::new();
        for (file, run) in spooled {
            let Some(run) = run else { continue };
            let Ok(steps) = run.new_steps() else { continue };
            if let Some(id) = self.import_one(&run, &steps)? {
                imported.push(id);
            }
            let _ = std::fs::remove_file(&file);
        }
        // An emptied spool folder goes too (remove_dir refuses one that is not empty).
        let _ = std::fs::remove_dir(&own);
        Ok(imported)
    }

    /// Imports one spooled run unless it was imported before; returns its id when it is
    /// imported now.
    fn import_one(
        &mut self,
        run: &SpooledRun,
        steps: &[NewStep],
    ) -> Result<Option<i64>, HistoryError> {
        let tx = self.write_transaction()?;
        let done: Option<i64> = tx
            .query_row(
                "SELECT 1 FROM spool_imports WHERE spool_id = ?1",
                [&run.spool_id],
                |row| row.get(0),
            )
            .optional()?;
        if done.is_some() {
            return Ok(None);
        }
        // The part the history took before the fault is completed, if it is still there
        // and is the same run (same start, command line and host); otherwise the whole run
        // is added.
        let begun = match run.begun {
            Some(begun) => tx
                .query_row(
                    "SELECT unfinished, (SELECT COUNT(*) FROM steps WHERE run_id = id)
                     FROM runs WHERE id = ?1 AND started_unix_ms = ?2 AND command_line = ?3
                         AND hostname = ?4",
                    params![
                        begun.run_id,
                        run.header.started_unix_ms as i64,
                        run.header.command_line,
                        run.header.hostname
                    ],
                    |row| Ok((begun.run_id, row.get::<_, bool>(0)?, row.get::<_, u32>(1)?)),
                )
                .optional()?,
            None => None,
        };
        let run_id = match begun {
            Some((run_id, false, _)) => run_id,
            Some((run_id, true, held)) => {
                for (position, step) in steps.iter().enumerate().skip(held as usize) {
                    insert_step(&tx, run_id, position as u32, step)?;
                }
                close_run(&tx, run_id, &run.end)?;
                run_id
            }
            None => {
                let run_id = insert_run(&tx, &run.header)?;
                for (position, step) in steps.iter().enumerate() {
                    insert_step(&tx, run_id, position as u32, step)?;
                }
                close_run(&tx, run_id, &run.end)?;
                run_id
            }
        };
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        tx.execute(
            "INSERT INTO spool_imports (spool_id, run_id, imported_unix_ms) VALUES (?1, ?2, ?3)",
            params![run.spool_id, run_id, now_ms],
        )?;
        tx.commit()?;
        Ok(Some(run_id))
    }
}
